"""Give every expression of the straight-line function its torch dtype for this call's
argument dtypes (`node.tz_type`, and `node.tz_operands` for the dtype operands meet in).
Rewrites nothing; refuses operations the dtypes do not allow."""
from __future__ import annotations

import ast

import torch

from tritonize.errors import ScalarTypeError
from tritonize.passes.ast_tools import is_math_call, math_name
from tritonize.passes.math_table import MATH_TABLE
from tritonize.passes.type_rules import (PYTHON, PromotionError, VType, dtype_name, is_float, is_int, promote,
                                         python_vtype, to_float)

_SYMBOL = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
           ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<",
           ast.RShift: ">>", ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "not"}


def symbol(op) -> str:
    return _SYMBOL[type(op)]


class InferTypes(ast.NodeVisitor):
    """
    >>> # x: float16 tensor, beta: Python float
    >>> # y = x * beta      y: float16 tensor  (computed in float32, see compute_dtype)
    """

    def __init__(self, ctx, spec):
        self.ctx, self.spec = ctx, spec
        self.env = {p.name: p.vtype for p in spec.params}

    def run(self, tree: ast.FunctionDef) -> ast.FunctionDef:
        for statement in tree.body:
            if isinstance(statement, ast.Assign):
                self.env[statement.targets[0].id] = self.type_of(statement.value)
            else:
                values = statement.value.elts if isinstance(statement.value, ast.Tuple) else [statement.value]
                for value in values:
                    self.type_of(value)
        return tree

    def fail(self, node, message):
        raise ScalarTypeError(message, self.ctx.location(node))

    def type_of(self, node) -> VType:
        try:
            vt = self.visit(node)
        except PromotionError as error:  # the innermost expression whose operands torch refuses
            self.fail(node, str(error))
        node.tz_type = vt
        return vt

    def visit_Constant(self, node):
        return python_vtype(node.value)

    def visit_Name(self, node):
        return self.env[node.id]

    def visit_UnaryOp(self, node):
        vt = self.type_of(node.operand)
        if isinstance(node.op, ast.Not):
            return VType(torch.bool, vt.priority)
        if vt.dtype == torch.bool and vt.is_python:
            vt = VType(torch.int64, PYTHON)  # Python: -True == -1, ~True == -2
        node.tz_operands = vt
        if isinstance(node.op, ast.USub) and vt.dtype == torch.bool:
            self.fail(node, "negation `-` of a bool tensor is not supported (as in torch); use `not`")
        if isinstance(node.op, ast.Invert) and is_float(vt.dtype):
            self.fail(node, f"`~` needs an integer or bool operand, got {vt}")
        return vt

    def visit_BinOp(self, node):
        left, right = self.type_of(node.left), self.type_of(node.right)
        operands = promote(left, right)
        op, dtype = node.op, operands.dtype
        if dtype == torch.bool and operands.is_python and not isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
            operands = VType(torch.int64, PYTHON)  # Python arithmetic on bools is on ints
            dtype = torch.int64
        node.tz_operands = operands
        if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)):
            shift = isinstance(op, (ast.LShift, ast.RShift))
            if is_float(dtype) or (shift and dtype == torch.bool):
                kinds = "integer" if shift else "integer or bool"
                self.fail(node, f"`{symbol(op)}` needs {kinds} operands, got {left} and {right}")
            return operands
        if isinstance(op, ast.Div):
            node.tz_operands = to_float(operands)
            return node.tz_operands
        if dtype == torch.bool:
            if isinstance(op, (ast.Add, ast.Mult)):
                return operands  # torch: bool + bool is `or`, bool * bool is `and`
            self.fail(node, f"`{symbol(op)}` on two bool tensors is not supported (as in torch); "
                            f"convert with int() first")
        if isinstance(op, ast.Pow) and is_int(dtype) and _is_negative_constant(node.right):
            node.tz_operands = to_float(operands)  # Python: 2 ** -1 == 0.5
            return node.tz_operands
        return operands

    def visit_Compare(self, node):
        left, right = self.type_of(node.left), self.type_of(node.comparators[0])
        node.tz_operands = promote(left, right)
        return VType(torch.bool, node.tz_operands.priority)

    def visit_BoolOp(self, node):
        types = [self.type_of(v) for v in node.values]
        node.tz_operands = promote(*types)
        if all(t.dtype == torch.bool for t in types):
            return VType(torch.bool, node.tz_operands.priority)
        return node.tz_operands

    def visit_IfExp(self, node):
        self.type_of(node.test)
        node.tz_operands = promote(self.type_of(node.body), self.type_of(node.orelse))
        return node.tz_operands

    def visit_Call(self, node):
        types = [self.type_of(a) for a in node.args]
        if is_math_call(node):
            return self.math_call(node, math_name(node), types)
        builtin = node.func.id
        if builtin in ("min", "max"):
            if len(types) < 2:
                self.fail(node, f"{builtin}() needs at least two arguments in a @pointwise function")
            node.tz_operands = promote(*types)
            return node.tz_operands
        if len(types) != 1:
            self.fail(node, f"{builtin}() takes exactly one argument here")
        vt = types[0]
        if builtin == "abs":
            node.tz_operands = VType(torch.int64, PYTHON) if vt.is_python and vt.dtype == torch.bool else vt
            return node.tz_operands
        if builtin == "float":
            return to_float(vt)
        if builtin == "int":
            return vt if is_int(vt.dtype) else VType(torch.int64, vt.priority)
        return VType(torch.bool, vt.priority)  # bool()

    def math_call(self, node, fname, types):
        if fname == "log" and len(types) == 2:
            node.tz_operands = to_float(promote(*types))
            return node.tz_operands
        entry = MATH_TABLE[fname]
        if entry.kind == "ldexp":
            if not is_int(types[1].dtype) and types[1].dtype != torch.bool:
                self.fail(node, f"math.ldexp needs an integer exponent, got {types[1]}")
            node.tz_operands = to_float(types[0])
            return node.tz_operands
        operands = promote(*types)
        if entry.kind == "same" and not is_float(operands.dtype):
            node.tz_operands = operands
            return operands
        node.tz_operands = to_float(operands)
        if entry.kind == "bool":
            return VType(torch.bool, operands.priority)
        return node.tz_operands


def _is_negative_constant(node) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return node.operand.value > 0
    return isinstance(node, ast.Constant) and node.value < 0


def describe(vt: VType) -> str:
    return dtype_name(vt.dtype)

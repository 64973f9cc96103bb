"""Evaluate operations whose operands are all literals with Python's own semantics (a float `%`
that is zero signed as the kernels sign it), and propagate names bound to literals. Leaves anything
that would raise or overflow int64."""
from __future__ import annotations

import ast
import copy
import math
import operator

from tritonize.passes.ast_tools import constant, copy_location, is_math_call, math_name
from tritonize.passes.math_table import PYTHON_FUNCTIONS


def _remainder(a, b):
    """Python's `a % b`, but a float zero takes the dividend's sign, as torch.remainder and the kernels
    give it (Python gives the divisor's: 3.0 % -1.5 is -0.0 there, 0.0 in a kernel)."""
    result = a % b
    if isinstance(result, float) and result == 0.0:
        return math.copysign(0.0, a)
    return result


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: _remainder,
           ast.Pow: operator.pow, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
           ast.BitXor: operator.xor, ast.LShift: operator.lshift, ast.RShift: operator.rshift}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert, ast.Not: operator.not_}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge}
_BUILTINS = {"abs": abs, "min": min, "max": max, "float": float, "int": int, "bool": bool}


def literal(node):
    """The Python value of a literal node (`3`, `-2.5`), or None."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -node.operand.value
    return None


def _fits(value) -> bool:
    if isinstance(value, bool) or isinstance(value, float):
        return True
    return isinstance(value, int) and -2**63 <= value < 2**63


class FoldConstants(ast.NodeTransformer):
    """
    >>> # y = x * (2 ** 3 / 4)     becomes     y = x * 2.0
    """

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, tree: ast.FunctionDef) -> ast.FunctionDef:
        self.known = {}
        body = []
        for statement in tree.body:
            statement = self.visit(statement)
            if (isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name)
                    and literal(statement.value) is not None and not isinstance(statement.value, ast.Name)
                    and _is_straight_line(tree)):
                self.known[statement.targets[0].id] = statement.value
                continue
            for node in ast.walk(statement):  # a name bound anew is no longer that literal
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    self.known.pop(node.id, None)
            body.append(statement)
        tree.body = body
        return tree

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.known:
            return copy_location(copy.deepcopy(self.known[node.id]), node)
        return node

    def fold(self, node, compute, *values):
        if any(v is None for v in values):
            return node
        try:
            result = compute(*values)
        except (ArithmeticError, ValueError, TypeError):
            return node
        if not _fits(result):
            return node
        return copy_location(constant(result), node)

    def visit_BinOp(self, node):
        self.generic_visit(node)
        return self.fold(node, _BINARY[type(node.op)], literal(node.left), literal(node.right))

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            return node  # `-2` is already a literal
        return self.fold(node, _UNARY[type(node.op)], literal(node.operand))

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) != 1:
            return node
        return self.fold(node, _COMPARE[type(node.ops[0])], literal(node.left), literal(node.comparators[0]))

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        values = [literal(v) for v in node.values]
        combine = (lambda *v: _and(v)) if isinstance(node.op, ast.And) else (lambda *v: _or(v))
        return self.fold(node, combine, *values)

    def visit_IfExp(self, node):
        self.generic_visit(node)
        test = literal(node.test)
        if test is None:
            return node
        return node.body if test else node.orelse

    def visit_Call(self, node):
        self.generic_visit(node)
        values = [literal(a) for a in node.args]
        if is_math_call(node):
            fname = math_name(node)
            function = PYTHON_FUNCTIONS[fname]
            # math.floor(2.5) is the int 2 in Python; keep the float dtype as torch.floor does
            keep_float = any(isinstance(v, float) for v in values) and fname in ("floor", "ceil", "trunc", "round")
            return self.fold(node, lambda *v: float(function(*v)) if keep_float else function(*v), *values)
        if isinstance(node.func, ast.Name) and node.func.id in _BUILTINS and not node.keywords:
            return self.fold(node, _BUILTINS[node.func.id], *values)
        return node


def _and(values):
    result = values[0]
    for v in values[1:]:
        result = result and v
    return result


def _or(values):
    result = values[0]
    for v in values[1:]:
        result = result or v
    return result


def _is_straight_line(tree) -> bool:
    return not any(isinstance(n, ast.If) for n in tree.body)

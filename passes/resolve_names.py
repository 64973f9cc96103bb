"""Resolve every free name: math.* and tritonize.math.* to their canonical `math.NAME`, constants
to literals, builtins kept, helper functions marked for inlining; unknown names are errors."""
from __future__ import annotations

import ast
import builtins
import math
import numbers
import types

import tritonize.math as tritonize_math
from tritonize.errors import UnknownName, UnsupportedCall, UnsupportedSyntax
from tritonize.passes.ast_tools import constant, copy_location
from tritonize.passes.math_helpers import HELPERS as MATH_HELPERS
from tritonize.passes.math_table import MATH_CONSTANTS, MATH_TABLE, PYTHON_FUNCTIONS, public_name

SCALAR_BUILTINS = {"abs": abs, "min": min, "max": max, "float": float, "int": int, "bool": bool}
# by identity: tritonize.math's own functions too where math has one of that name (math.fma,
# from Python 3.13), so that either spelling resolves
_MATH_FUNCTIONS = {id(function): name for name, function in PYTHON_FUNCTIONS.items()}
_MATH_FUNCTIONS.update({id(getattr(tritonize_math, name)): name for name in tritonize_math.__all__})


ONLY_MODULES = "attribute access is only supported on modules (math.pi, math.exp)"
ONLY_MODULE_FUNCTIONS = "only functions of modules can be called as `module.name(...)`; methods are not supported"


def supported_math(module: types.ModuleType) -> str:
    helpers = [helper.__name__ for helper in MATH_HELPERS.values()] if module is math else []
    return ", ".join(sorted([n for n in MATH_TABLE if hasattr(module, n)] + helpers))


def local_names(tree: ast.FunctionDef) -> set[str]:
    args = tree.args
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


class ResolveNames(ast.NodeTransformer):
    """
    >>> SCALE = 2.0
    >>> def f(x):
    ...     return math.exp(x) * SCALE + math.pi
    """

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, tree: ast.FunctionDef) -> ast.FunctionDef:
        self.locals = local_names(tree)
        tree.body = [self.visit(s) for s in tree.body]
        return tree

    def lookup(self, node: ast.Name):
        key = node.id
        if key in self.ctx.closure:
            return self.ctx.closure[key]
        if key in self.ctx.globals:
            return self.ctx.globals[key]
        if hasattr(builtins, key):
            return getattr(builtins, key)
        raise UnknownName(f"name '{key}' is not defined", self.ctx.location(node))

    def visit_Name(self, node: ast.Name):
        if node.id in self.locals or not isinstance(node.ctx, ast.Load):
            return node
        value = self.lookup(node)
        return self.as_value(node, value, node.id)

    def as_value(self, node, value, label):
        if isinstance(value, numbers.Number) and not isinstance(value, complex):
            if hasattr(value, "item"):
                value = value.item()
            value = bool(value) if isinstance(value, bool) else value
            if not isinstance(value, (bool, int, float)):
                value = float(value)
            self.ctx.constants_read[label] = value
            return copy_location(constant(value), node)
        kind = type(value).__name__
        raise UnsupportedSyntax(
            f"'{label}' is a {kind}; a @pointwise function can only read int, float and bool "
            f"constants, and call math.*, tritonize.math.*, abs/min/max/round/float/int/bool and scalar functions",
            self.ctx.location(node))

    def visit_AnnAssign(self, node: ast.AnnAssign):
        node.value = self.visit(node.value)  # the annotation is documentation, not a value
        return node

    def module(self, node, error, message):
        """The module that `node` (a name, not a local, or a dotted name) stands for, else `error`."""
        value = self.attribute(node) if isinstance(node, ast.Attribute) else (
            None if node.id in self.locals else self.lookup(node))
        if not isinstance(value, types.ModuleType):
            raise error(message, self.ctx.location(node))
        return value

    def attribute(self, node: ast.Attribute, error=UnsupportedSyntax, message=ONLY_MODULES):
        """The object `module.name` (or `package.module.name`) stands for."""
        module = self.module(node.value, error, message)
        if not hasattr(module, node.attr):
            known = f"; it has {supported_math(module)}" if module is tritonize_math else ""
            raise UnknownName(f"module '{module.__name__}' has no attribute '{node.attr}'{known}",
                              self.ctx.location(node))
        return getattr(module, node.attr)

    def visit_Attribute(self, node: ast.Attribute):
        if self.module(node.value, UnsupportedSyntax, ONLY_MODULES) is math:
            if node.attr in MATH_CONSTANTS:
                return copy_location(constant(MATH_CONSTANTS[node.attr]), node)
            raise UnsupportedSyntax(f"math.{node.attr} is not supported as a value", self.ctx.location(node))
        return self.as_value(node, self.attribute(node), ast.unparse(node))

    def visit_Call(self, node: ast.Call):
        node.args = [self.visit(a) for a in node.args]
        for keyword in node.keywords:
            keyword.value = self.visit(keyword.value)
        func = node.func
        if isinstance(func, ast.Name) and func.id in self.locals:
            raise UnsupportedCall(f"'{func.id}' is a local value, not a function", self.ctx.location(func))
        if isinstance(func, ast.Attribute):
            target = self.attribute(func, UnsupportedCall, ONLY_MODULE_FUNCTIONS)
        else:
            target = self.lookup(func)
        return self.resolve_call(node, target, ast.unparse(func))

    def resolve_call(self, node: ast.Call, target, label: str):
        location = self.ctx.location(node.func)
        if any(target is b for b in SCALAR_BUILTINS.values()):
            node.func = copy_location(ast.Name(id=target.__name__, ctx=ast.Load()), node.func)
            return node
        math_name = _MATH_FUNCTIONS.get(id(target))
        module = getattr(target, "__module__", None)
        math_helper = MATH_HELPERS.get(id(target))  # math.frexp, math.modf: inlined as helpers
        if math_helper is not None:
            node.tz_helper = math_helper
            return node
        if math_name is None and callable(target) and module in (math.__name__, tritonize_math.__name__):
            refused = f"{module}.{target.__name__} is not supported in @pointwise functions; supported: "
            raise UnsupportedCall(refused + supported_math(math) + f" (and from tritonize.math: "
                                  f"{supported_math(tritonize_math)})", location)
        if math_name is not None:
            arity = MATH_TABLE[math_name].arity
            if math_name == "round" and (node.keywords or len(node.args) != 1):
                raise UnsupportedCall("round() takes one argument in a @pointwise function (to the nearest "
                                      "integer, ties to even, as torch.round); for digits, scale: "
                                      "round(x * 100.0) / 100.0", location)
            if node.keywords or len(node.args) != arity and not (math_name == "log" and len(node.args) == 2):
                raise UnsupportedCall(f"{public_name(math_name)} takes {arity} positional argument(s)", location)
            node.func = copy_location(
                ast.Attribute(value=ast.Name(id="math", ctx=ast.Load()), attr=math_name, ctx=ast.Load()), node.func)
            return node
        helper = getattr(target, "scalar_function", None) or target
        if isinstance(helper, types.FunctionType):
            node.tz_helper = helper
            return node
        raise UnsupportedCall(f"'{label}' ({type(target).__name__}) cannot be called in a @pointwise function; "
                              f"only math.*, tritonize.math.*, abs/min/max/round/float/int/bool and scalar Python functions",
                              location)

"""Resolve every free name: math.* to its canonical `math.NAME`, constants to literals,
builtins kept, helper functions marked for inlining; unknown names are errors."""
from __future__ import annotations

import ast
import builtins
import math
import numbers
import types

from tritonize.errors import UnknownName, UnsupportedCall, UnsupportedSyntax
from tritonize.passes.ast_tools import constant
from tritonize.passes.math_table import MATH_CONSTANTS, MATH_TABLE

SCALAR_BUILTINS = {"abs": abs, "min": min, "max": max, "float": float, "int": int, "bool": bool}
_MATH_FUNCTIONS = {id(getattr(math, n)): n for n in MATH_TABLE if hasattr(math, n)}


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
            return ast.copy_location(constant(value), node)
        kind = type(value).__name__
        raise UnsupportedSyntax(
            f"'{label}' is a {kind}; a @pointwise function can only read int, float and bool "
            f"constants, and call math.*, abs/min/max/float/int/bool and scalar functions",
            self.ctx.location(node))

    def visit_AnnAssign(self, node: ast.AnnAssign):
        node.value = self.visit(node.value)  # the annotation is documentation, not a value
        return node

    def visit_Attribute(self, node: ast.Attribute):
        base = node.value
        module = None if base.id in self.locals else self.lookup(base)
        if not isinstance(module, types.ModuleType):
            raise UnsupportedSyntax("attribute access is only supported on modules (math.pi, math.exp)",
                                    self.ctx.location(node))
        if module is math:
            if node.attr in MATH_CONSTANTS:
                return ast.copy_location(constant(MATH_CONSTANTS[node.attr]), node)
            raise UnsupportedSyntax(f"math.{node.attr} is not supported as a value", self.ctx.location(node))
        if not hasattr(module, node.attr):
            raise UnknownName(f"module '{module.__name__}' has no attribute '{node.attr}'", self.ctx.location(node))
        return self.as_value(node, getattr(module, node.attr), f"{base.id}.{node.attr}")

    def visit_Call(self, node: ast.Call):
        node.args = [self.visit(a) for a in node.args]
        for keyword in node.keywords:
            keyword.value = self.visit(keyword.value)
        func = node.func
        if isinstance(func, ast.Name) and func.id in self.locals:
            raise UnsupportedCall(f"'{func.id}' is a local value, not a function", self.ctx.location(func))
        if isinstance(func, ast.Attribute):
            base = func.value.id
            module = None if base in self.locals else self.lookup(func.value)
            if not isinstance(module, types.ModuleType):
                raise UnsupportedCall("only functions of modules can be called as `module.name(...)`; "
                                      "methods are not supported", self.ctx.location(func))
            if not hasattr(module, func.attr):
                raise UnknownName(f"module '{module.__name__}' has no attribute '{func.attr}'",
                                  self.ctx.location(func))
            target, label = getattr(module, func.attr), f"{base}.{func.attr}"
        else:
            target, label = self.lookup(func), func.id
        return self.resolve_call(node, target, label)

    def resolve_call(self, node: ast.Call, target, label: str):
        location = self.ctx.location(node.func)
        if any(target is b for b in SCALAR_BUILTINS.values()):
            node.func = ast.copy_location(ast.Name(id=target.__name__, ctx=ast.Load()), node.func)
            return node
        math_name = _MATH_FUNCTIONS.get(id(target))
        if math_name is None and isinstance(target, types.BuiltinFunctionType) and target.__module__ == "math":
            raise UnsupportedCall(f"math.{target.__name__} is not supported in @pointwise functions; "
                                  f"supported: {', '.join(sorted(MATH_TABLE))}", location)
        if math_name is not None:
            arity = MATH_TABLE[math_name].arity
            if node.keywords or len(node.args) != arity and not (math_name == "log" and len(node.args) == 2):
                raise UnsupportedCall(f"math.{math_name} takes {arity} positional argument(s)", location)
            node.func = ast.copy_location(
                ast.Attribute(value=ast.Name(id="math", ctx=ast.Load()), attr=math_name, ctx=ast.Load()), node.func)
            return node
        helper = getattr(target, "scalar_function", None) or target
        if isinstance(helper, types.FunctionType):
            node.tz_helper = helper
            return node
        raise UnsupportedCall(f"'{label}' ({type(target).__name__}) cannot be called in a @pointwise function; "
                              f"only math.*, abs/min/max/float/int/bool and scalar Python functions", location)

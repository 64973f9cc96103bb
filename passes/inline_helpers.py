"""Inline calls to helper functions: each helper is compiled to straight-line form on its own,
its names are renamed apart, its statements go before the calling statement and the call
becomes its return value. Leaves math and builtin calls alone."""
from __future__ import annotations

import ast
import copy
import inspect

from tritonize.errors import RecursiveHelper, UnsupportedCall
from tritonize.passes.ast_tools import assign, copy_location, name


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        replacement = self.mapping.get(node.id)
        if replacement is None:
            return node
        if isinstance(node.ctx, ast.Store):
            return copy_location(name(replacement.id, store=True), node)
        return copy_location(copy.deepcopy(replacement), node)


class InlineHelpers(ast.NodeTransformer):
    """
    >>> def half(v):
    ...     return v * 0.5
    >>> def f(x):
    ...     return half(x + 1.0)
    # becomes:  v = x + 1.0 ; return v * 0.5
    """

    def __init__(self, ctx):
        self.ctx = ctx
        self.pending: list[ast.stmt] = []

    def run(self, tree: ast.FunctionDef) -> ast.FunctionDef:
        tree.body = self.inline_block(tree.body)
        return tree

    def inline_block(self, statements):
        out = []
        for statement in statements:
            self.pending = []
            if isinstance(statement, ast.If):
                statement.test = self.visit(statement.test)
                before = self.pending
                statement.body = self.inline_block(statement.body)
                statement.orelse = self.inline_block(statement.orelse)
                self.pending = before
            else:
                statement = self.visit(statement)
            out.extend(self.pending)
            out.append(statement)
        return out

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        helper = getattr(node, "tz_helper", None)
        if helper is None:
            return node
        from tritonize.passes import run_frontend  # the pipeline is defined in the package

        if helper in self.ctx.helper_stack or helper is self.ctx.fn:
            chain = " -> ".join(f.__name__ for f in self.ctx.helper_stack + (self.ctx.fn, helper))
            raise RecursiveHelper(f"recursive helper calls cannot be inlined: {chain}", self.ctx.location(node))
        body, ret, helper_ctx = run_frontend(helper, self.ctx.helper_stack + (self.ctx.fn,))
        self.ctx.helper_sources[helper.__qualname__] = helper_ctx.filename
        self.ctx.helper_sources.update(helper_ctx.helper_sources)
        self.ctx.constants_read.update({f"{helper.__name__}.{k}": v for k, v in helper_ctx.constants_read.items()})
        mapping = self.bind_arguments(node, helper, helper_ctx)
        stored = {n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for local in sorted(stored - set(helper_ctx.params)):
            mapping[local] = name(self.ctx.names.fresh(local))
        renamer = _Rename(mapping)
        self.pending.extend(renamer.visit(copy.deepcopy(s)) for s in body)
        values = [renamer.visit(copy.deepcopy(v)) for v in ret]
        # the values keep the helper's own locations, so errors point into the helper
        if len(values) == 1:
            return values[0]
        returned = copy_location(ast.Tuple(elts=values, ctx=ast.Load()), node)
        returned.tz_returned_by = f"{ast.unparse(node.func)}()"  # the call as written: math.frexp(), helper()
        return returned

    def bind_arguments(self, node: ast.Call, helper, helper_ctx) -> dict:
        try:
            bound = inspect.signature(helper).bind(*node.args, **{k.arg: k.value for k in node.keywords})
        except TypeError as exc:
            raise UnsupportedCall(f"{helper.__name__}(): {exc}", self.ctx.location(node)) from None
        mapping = {}
        for param in helper_ctx.params:
            if param in bound.arguments:
                value = bound.arguments[param]
            else:
                value = copy_location(ast.Constant(helper_ctx.defaults[param]), node)
            if isinstance(value, (ast.Name, ast.Constant)) or _is_negative_literal(value):
                mapping[param] = value
            else:
                temp = self.ctx.names.fresh(param)
                self.pending.append(copy_location(assign(temp, value), node))
                mapping[param] = name(temp)
        return mapping


def _is_negative_literal(node) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant)

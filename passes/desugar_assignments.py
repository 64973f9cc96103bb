"""Turn `x += e`, `x: T = e`, `a = b = e` and `a, b = e1, e2` into plain single assignments;
drop docstrings and `pass`. Leaves expressions alone."""
from __future__ import annotations

import ast

from tritonize.errors import ControlFlowError
from tritonize.passes.ast_tools import assign, copy_location, name


class DesugarAssignments:
    """
    >>> # a, b = b, a + b      becomes      a_1 = b; b_1 = a + b; a = a_1; b = b_1
    """

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, tree: ast.FunctionDef) -> ast.FunctionDef:
        tree.body = self.block(tree.body)
        return tree

    def block(self, statements):
        out = []
        for statement in statements:
            out.extend(self.statement(statement))
        return out

    def statement(self, node):
        if isinstance(node, ast.Pass) or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            return []
        if isinstance(node, ast.If):
            node.body, node.orelse = self.block(node.body), self.block(node.orelse)
            return [node]
        if isinstance(node, ast.AugAssign):
            value = copy_location(ast.BinOp(left=name(node.target.id), op=node.op, right=node.value), node)
            return [copy_location(assign(node.target.id, value), node)]
        if isinstance(node, ast.AnnAssign):
            return [copy_location(assign(node.target.id, node.value), node)]
        if isinstance(node, ast.Assign):
            return self.assignment(node)
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
            node.value.elts = [self.single_value(e) for e in node.value.elts]
        elif isinstance(node, ast.Return):
            node.value = self.maybe_tuple(node.value)
        return [node]

    def assignment(self, node: ast.Assign):
        value = node.value
        if len(node.targets) > 1:
            temp = self.ctx.names.fresh("t")
            out = [copy_location(assign(temp, value), node)]
            for target in node.targets:
                out.extend(self.assignment(copy_location(ast.Assign(targets=[target], value=name(temp)), node)))
            return out
        target = node.targets[0]
        if isinstance(target, ast.Name):
            node.value = self.single_value(value)
            return [node]
        if not isinstance(value, ast.Tuple):
            raise ControlFlowError("only a tuple of values (`a, b = x, y` or a helper returning several "
                                   "values) can be unpacked", self.ctx.location(node))
        if len(value.elts) != len(target.elts):
            raise ControlFlowError(f"cannot unpack {len(value.elts)} values into {len(target.elts)} names",
                                   self.ctx.location(node))
        temps, out = [], []
        for element in value.elts:
            temp = self.ctx.names.fresh("t")
            temps.append(temp)
            out.append(copy_location(assign(temp, self.single_value(element)), node))
        for target_name, temp in zip(target.elts, temps):
            out.append(copy_location(assign(target_name.id, name(temp)), node))
        return out

    def maybe_tuple(self, value):
        return value if isinstance(value, ast.Tuple) else self.single_value(value)

    def single_value(self, value):
        for node in ast.walk(value):
            if isinstance(node, ast.Tuple):
                helper = getattr(node, "tz_returned_by", "a helper")  # InlineHelpers names it
                raise ControlFlowError(f"{helper} returns {len(node.elts)} values, used here as one value; unpack "
                                       f"them first: `{', '.join('abcdefgh'[:len(node.elts)])} = ...`",
                                       self.ctx.location(node))
        return value

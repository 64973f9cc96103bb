"""Split `a < b < c` into `(a < b) and (b < c)`, naming `b` once so it is computed once.
Leaves single comparisons alone."""
from __future__ import annotations

import ast

from tritonize.passes.ast_tools import assign, copy_location, name


class LowerChainedComparisons(ast.NodeTransformer):
    """
    >>> # lo < f(x) <= hi      becomes      m = f(x); (lo < m) and (m <= hi)
    """

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, tree: ast.FunctionDef) -> ast.FunctionDef:
        body = []
        for statement in tree.body:
            self.pending = []
            statement = self.visit(statement)
            body.extend(self.pending)
            body.append(statement)
        tree.body = body
        return tree

    def visit_Compare(self, node: ast.Compare):
        self.generic_visit(node)
        if len(node.ops) == 1:
            return node
        operands = [node.left] + node.comparators
        for index in range(1, len(operands) - 1):
            if not isinstance(operands[index], (ast.Name, ast.Constant)):
                temp = self.ctx.names.fresh("m")
                self.pending.append(copy_location(assign(temp, operands[index]), node))
                operands[index] = name(temp)
        parts = [copy_location(ast.Compare(left=operands[i], ops=[op], comparators=[operands[i + 1]]), node)
                 for i, op in enumerate(node.ops)]
        return copy_location(ast.BoolOp(op=ast.And(), values=parts), node)

"""Refuse everything outside the scalar subset, pointing at the offending node; rewrites nothing."""
from __future__ import annotations

import ast

from tritonize.errors import UnsupportedSyntax

REFUSED = {
    ast.For: "loops are not supported in @pointwise functions (each call computes one element)",
    ast.AsyncFor: "loops are not supported in @pointwise functions",
    ast.While: "`while` loops are not supported in @pointwise functions (each call computes one element)",
    ast.Break: "`break` is not supported in @pointwise functions",
    ast.Continue: "`continue` is not supported in @pointwise functions",
    ast.List: "lists are not supported in @pointwise functions; use scalars",
    ast.ListComp: "comprehensions are not supported in @pointwise functions",
    ast.SetComp: "comprehensions are not supported in @pointwise functions",
    ast.DictComp: "comprehensions are not supported in @pointwise functions",
    ast.GeneratorExp: "generator expressions are not supported in @pointwise functions",
    ast.Dict: "dicts are not supported in @pointwise functions",
    ast.Set: "sets are not supported in @pointwise functions",
    ast.Subscript: "indexing is not supported in @pointwise functions: parameters are single elements",
    ast.Starred: "star-arguments are not supported in @pointwise functions",
    ast.Lambda: "lambdas are not supported in @pointwise functions; define a helper function",
    ast.Global: "`global` is not supported in @pointwise functions",
    ast.Nonlocal: "`nonlocal` is not supported in @pointwise functions",
    ast.Try: "`try` is not supported in @pointwise functions",
    ast.With: "`with` is not supported in @pointwise functions",
    ast.Raise: "`raise` is not supported in @pointwise functions",
    ast.Assert: "`assert` is not supported in @pointwise functions",
    ast.Import: "imports inside @pointwise functions are not supported; import at module level",
    ast.ImportFrom: "imports inside @pointwise functions are not supported; import at module level",
    ast.ClassDef: "classes are not supported in @pointwise functions",
    ast.FunctionDef: "nested functions are not supported; define the helper at module level",
    ast.AsyncFunctionDef: "async functions are not supported",
    ast.Yield: "`yield` is not supported in @pointwise functions",
    ast.YieldFrom: "`yield` is not supported in @pointwise functions",
    ast.Await: "`await` is not supported in @pointwise functions",
    ast.NamedExpr: "the walrus operator `:=` is not supported; assign on its own line",
    ast.JoinedStr: "strings are not supported in @pointwise functions",
    ast.Delete: "`del` is not supported in @pointwise functions",
    ast.Slice: "slices are not supported in @pointwise functions",
}
if hasattr(ast, "Match"):
    REFUSED[ast.Match] = "`match` is not supported in @pointwise functions; use if/elif/else"
if hasattr(ast, "TryStar"):
    REFUSED[ast.TryStar] = "`try` is not supported in @pointwise functions"

ALLOWED_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
                  ast.LShift, ast.RShift, ast.BitOr, ast.BitXor, ast.BitAnd)
ALLOWED_COMPARE = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


class CheckSubset(ast.NodeVisitor):
    """Raise UnsupportedSyntax at the first construct outside the scalar subset."""

    def __init__(self, ctx):
        self.ctx = ctx

    def run(self, tree: ast.FunctionDef) -> ast.FunctionDef:
        self.check_signature(tree)
        for index, statement in enumerate(tree.body):
            if index == 0 and _is_docstring(statement):
                continue
            self.visit(statement)
        return tree

    def fail(self, node, message):
        raise UnsupportedSyntax(message, self.ctx.location(node))

    def check_signature(self, tree):
        args = tree.args
        if args.vararg:
            self.fail(args.vararg, "*args is not supported: name each parameter")
        if args.kwarg:
            self.fail(args.kwarg, "**kwargs is not supported: name each parameter")
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            if not _is_number_literal(default):
                self.fail(default, "parameter defaults must be int, float or bool literals")

    def generic_visit(self, node):
        for cls, message in REFUSED.items():
            if isinstance(node, cls):
                self.fail(node, message)
        super().generic_visit(node)

    def visit_Expr(self, node):
        self.visit(node.value)  # `yield x` is refused for being a yield
        self.fail(node, "an expression statement has no effect in a @pointwise function; "
                        "assign it or return it")

    def visit_Return(self, node):
        if node.value is None:
            self.fail(node, "a @pointwise function must return a value")
        self.visit_value_or_tuple(node.value)

    def visit_Assign(self, node):
        for target in node.targets:
            self.check_target(target)
        if isinstance(node.value, ast.Tuple) and not all(isinstance(t, ast.Tuple) for t in node.targets):
            self.visit_Tuple(node.value)  # `y = (x, x)`: a tuple is not a value
        self.visit_value_or_tuple(node.value)

    def visit_AugAssign(self, node):
        self.check_target(node.target, allow_tuple=False)
        self.check_binop(node, node.op)
        self.visit(node.value)

    def visit_AnnAssign(self, node):
        self.check_target(node.target, allow_tuple=False)
        if node.value is None:
            self.fail(node, "a bare annotation binds nothing; give it a value")
        self.visit(node.value)

    def visit_value_or_tuple(self, value):
        for element in value.elts if isinstance(value, ast.Tuple) else [value]:
            self.visit(element)

    def check_target(self, target, allow_tuple=True):
        if isinstance(target, ast.Name):
            return
        if allow_tuple and isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
            return
        self.fail(target, "only plain names can be assigned to in @pointwise functions")

    def visit_Tuple(self, node):
        self.fail(node, "tuples are only supported as `return a, b` and `a, b = ...`")

    def visit_BinOp(self, node):
        self.check_binop(node, node.op)
        self.generic_visit(node)

    def check_binop(self, node, op):
        if not isinstance(op, ALLOWED_BINOPS):
            self.fail(node, f"the operator {type(op).__name__} is not supported in @pointwise functions")

    def visit_Compare(self, node):
        for op in node.ops:
            if not isinstance(op, ALLOWED_COMPARE):
                symbol = {ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}[type(op)]
                self.fail(node, f"`{symbol}` is not supported in @pointwise functions; compare values with == or !=")
        self.generic_visit(node)

    def visit_Constant(self, node):
        if not isinstance(node.value, (bool, int, float)):
            self.fail(node, f"{type(node.value).__name__} constants are not supported; only int, float and bool")

    def visit_Attribute(self, node):
        base = node.value
        while isinstance(base, ast.Attribute):  # a dotted module name: tritonize.math.erfinv
            base = base.value
        if not isinstance(base, ast.Name):
            self.fail(node, "attribute access is only supported on modules (math.pi, math.exp)")

    def visit_Call(self, node):
        if not isinstance(node.func, (ast.Name, ast.Attribute)):
            self.fail(node, "only named functions can be called in @pointwise functions")
        self.visit(node.func)
        for arg in node.args:
            self.visit(arg)
        for keyword in node.keywords:
            if keyword.arg is None:
                self.fail(keyword.value, "**kwargs in calls is not supported")
            self.visit(keyword.value)


def _is_docstring(statement) -> bool:
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str))


def _is_number_literal(node) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float))

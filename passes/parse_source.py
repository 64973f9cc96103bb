"""Parse a Python function into an ast.FunctionDef whose locations are absolute in its file.

Leaves the body as written; only decorators are dropped. A lambda becomes the `def` it stands
for (`def name(params): return body`, named by the variable it is assigned to where there is
one). Every node also carries `tz_file`, so that nodes inlined from a helper in another file
still point at that file.
"""
from __future__ import annotations

import ast
import copy
import functools
import inspect
import textwrap

from tritonize.errors import SourceLocation, UnsupportedSyntax
from tritonize.passes.ast_tools import parse


def source_of(fn) -> tuple[str, str, int]:
    """(dedented source, filename, first line) of a function; works for Jupyter cells too."""
    try:
        lines, first_line = inspect.getsourcelines(fn)
    except (OSError, TypeError) as exc:
        raise UnsupportedSyntax(
            f"cannot read the source of {getattr(fn, '__qualname__', fn)!r}: {exc}") from None
    return "".join(lines), inspect.getsourcefile(fn) or fn.__code__.co_filename, first_line


def parse_function(fn) -> tuple[ast.FunctionDef, str]:
    """
    >>> def f(x):
    ...     return x + 1
    >>> tree, _ = parse_function(f)
    >>> ast.unparse(tree)
    'def f(x):\\n    return x + 1'
    """
    if fn.__code__.co_name == "<lambda>":
        return parse_lambda(fn)
    raw, filename, first_line = source_of(fn)
    source = textwrap.dedent(raw)
    indent = len(raw.splitlines()[0]) - len(source.splitlines()[0])
    module = parse(source)
    tree = module.body[0]
    if not isinstance(tree, ast.FunctionDef):
        where = SourceLocation(filename, first_line + tree.lineno - 1, tree.col_offset + indent)
        kind = "an `async def`" if isinstance(tree, ast.AsyncFunctionDef) else type(tree).__name__
        raise UnsupportedSyntax(f"@pointwise needs a plain `def` function, not {kind}", where)
    for node in ast.walk(tree):
        if hasattr(node, "lineno"):
            node.lineno += first_line - 1
            node.col_offset += indent
            if getattr(node, "end_lineno", None) is not None:
                node.end_lineno += first_line - 1
                node.end_col_offset += indent
        node.tz_file = filename
    tree.decorator_list = []
    return tree, filename


def parse_lambda(fn) -> tuple[ast.FunctionDef, str]:
    """A lambda as the `def` it stands for, found in its whole file (its own lines may not parse
    alone: `pointwise(\\n    lambda x: x + 1)` starts inside a call), where parsing from its
    first line makes every location absolute.

    >>> double = (lambda x: 2 * x)
    >>> ast.unparse(parse_lambda(double)[0])
    'def double(x):\\n    return 2 * x'
    """
    code = fn.__code__
    try:
        lines, _ = inspect.findsource(fn)
        filename = inspect.getsourcefile(fn) or code.co_filename
        module = _parsed("".join(lines))
    except (OSError, TypeError, SyntaxError) as exc:
        raise UnsupportedSyntax(f"cannot read the source of the lambda at {code.co_filename}:"
                                f"{code.co_firstlineno}: {exc}") from None
    found = _the_lambda(module, code, filename)
    name = _assigned_name(module, found) or "lambda"
    node = copy.deepcopy(found)  # the passes rewrite their tree; the parsed file is kept for other lambdas
    body = ast.Return(value=node.body)
    ast.copy_location(body, node.body)
    fields = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}  # Python 3.12+
    tree = ast.FunctionDef(name=name, args=node.args, body=[body], decorator_list=[], returns=None,
                           type_comment=None, **fields)
    ast.copy_location(tree, node)
    for each in ast.walk(tree):
        each.tz_file = filename
    return tree, filename


@functools.lru_cache(maxsize=8)
def _parsed(text: str) -> ast.Module:
    """A file's tree, kept while its lambdas are decorated one after another (a 1600-line file
    takes ~15 ms to parse)."""
    return parse(text)


def _the_lambda(module: ast.Module, code, filename: str) -> ast.Lambda:
    """The lambda expression that compiled to `code`: on its first line, with its parameters, and
    (Python 3.11+, where code objects keep columns) around the columns of its instructions."""
    arguments = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & inspect.CO_VARARGS)
                                 + bool(code.co_flags & inspect.CO_VARKEYWORDS)]
    found = [node for node in ast.walk(module) if isinstance(node, ast.Lambda)
             and node.lineno == code.co_firstlineno and _parameter_names(node.args) == arguments]
    if len(found) > 1 and hasattr(code, "co_positions"):
        # the spans of its instructions (empty ones, such as RESUME's at column 0, say nothing)
        spots = {(line, column) for line, _, column, end_column in code.co_positions()
                 if line is not None and column is not None and end_column is not None and end_column > column}
        found = [node for node in found if spots and all(_inside(node.body, spot) for spot in spots)]
    if len(found) != 1:
        where = SourceLocation(filename, code.co_firstlineno, 0)
        reason = "is not in its file as it runs" if not found else "is one of several alike on its line"
        raise UnsupportedSyntax(f"the lambda {reason}: define it with `def` instead", where)
    return found[0]


def _parameter_names(arguments: ast.arguments) -> tuple:
    names = [a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs]
    names += [a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return tuple(names)


def _inside(node: ast.AST, spot: tuple) -> bool:
    return (node.lineno, node.col_offset) <= spot < (node.end_lineno, node.end_col_offset)


def _assigned_name(module: ast.Module, lambda_node: ast.Lambda) -> str | None:
    """`name` where the lambda is assigned to it, directly or through the calls that take it
    (`name = pointwise(lambda x: ...)`, `name = pointwise(promotion=...)(lambda x: ...)`), or in a
    tuple of such (`f, g = pointwise(lambda x: ...), pointwise(lambda x: ...)`)."""
    for statement in ast.walk(module):
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
        elif isinstance(statement, ast.AnnAssign):
            target = statement.target
        else:
            continue
        if statement.lineno <= lambda_node.lineno <= statement.end_lineno:
            for name, value in _pairs(target, statement.value):
                if isinstance(name, ast.Name) and _hands_over(value, lambda_node):
                    return name.id
    return None


def _pairs(target: ast.AST, value: ast.AST) -> list:
    """The (target, value) pairs of an assignment, tuples and lists unpacked element by element."""
    if (isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List))
            and len(target.elts) == len(value.elts)):
        return [pair for t, v in zip(target.elts, value.elts) for pair in _pairs(t, v)]
    return [(target, value)]


def _hands_over(value: ast.AST, lambda_node: ast.Lambda) -> bool:
    """Is `value` the lambda, or a call that takes it (or such a call) as a positional argument?"""
    return value is lambda_node or (isinstance(value, ast.Call)
                                    and any(_hands_over(argument, lambda_node) for argument in value.args))

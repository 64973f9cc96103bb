"""Parse a Python function into an ast.FunctionDef whose locations are absolute in its file.

Leaves the body as written; only decorators are dropped. Every node also carries `tz_file`,
so that nodes inlined from a helper in another file still point at that file.
"""
from __future__ import annotations

import ast
import inspect
import textwrap

from tritonize.errors import UnsupportedSyntax


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
    raw, filename, first_line = source_of(fn)
    source = textwrap.dedent(raw)
    indent = len(raw.splitlines()[0]) - len(source.splitlines()[0])
    module = ast.parse(source)
    tree = module.body[0]
    if not isinstance(tree, (ast.FunctionDef, ast.AsyncFunctionDef)) or isinstance(tree, ast.AsyncFunctionDef):
        raise UnsupportedSyntax(f"@pointwise needs a plain `def` function, not {type(tree).__name__}")
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

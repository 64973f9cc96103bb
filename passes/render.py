"""Render a generated module's AST to source text: astor where it works (its line wrapping
keeps long tuple-free signatures readable), else the standard library's `ast.unparse`;
comment markers become `# ...` lines. Changes no code."""
from __future__ import annotations

import ast
import warnings

from tritonize.passes.ast_tools import COMMENT_MARKER, parse

try:
    with warnings.catch_warnings():
        # astor 0.8.1 touches ast.Num & co., deprecated since Python 3.12
        warnings.simplefilter("ignore", DeprecationWarning)
        import astor
except ImportError:  # pragma: no cover - astor is a dependency, but the fallback must work
    astor = None


def render(tree: ast.Module, use_astor: bool = True) -> str:
    source = None
    if use_astor and astor is not None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                source = astor.to_source(tree, pretty_source=_wrap_at_100)
            parse(source)
        except Exception:  # astor does not know every node of every Python version
            source = None
    if source is None:
        source = ast.unparse(tree) + "\n"
    return _comments_to_lines(source)


def _wrap_at_100(source_parts) -> str:
    return "".join(astor.source_repr.split_lines(source_parts, maxline=100))


def _comments_to_lines(source: str) -> str:
    lines = source.splitlines()
    markers = []
    for node in ast.walk(parse(source)):
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name) and node.value.func.id == COMMENT_MARKER):
            markers.append((node.lineno, node.end_lineno, node.col_offset, node.value.args[0].value))
    for start, end, col, text in sorted(markers, reverse=True):
        lines[start - 1:end] = [" " * col + "# " + text]
    return "\n".join(lines) + "\n"

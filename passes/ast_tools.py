"""Small AST helpers shared by the passes: templates spliced into AST, fresh names, locations."""
from __future__ import annotations

import ast
import contextlib
import copy
import functools
import sys
import threading

from tritonize.errors import SourceLocation

COMMENT_MARKER = "__tritonize_comment__"

# CPython 3.11.0-3.11.7 and 3.12.0-3.12.1 count ast.parse's recursion in state that all threads
# share (gh-106905): a garbage collection inside one thread's parse may hand the interpreter to
# another thread, and the parse that finishes second fails with "SystemError: AST constructor
# recursion depth mismatch" (seen in CI, where it also sent render to its ast.unparse fallback).
# Every parse of the package holds PARSE_LOCK; where parsing races, Triton's own parses of a
# kernel (its compiler's, its interpreter's first run of one) hold it too (COMPILE_LOCK).
PARSE_LOCK = threading.RLock()
PARSE_RACES = sys.version_info < (3, 11, 8) or (3, 12) <= sys.version_info < (3, 12, 2)
COMPILE_LOCK = PARSE_LOCK if PARSE_RACES else contextlib.nullcontext()


def parse(source: str, mode: str = "exec") -> ast.AST:
    """ast.parse, one thread at a time (PARSE_LOCK)."""
    with PARSE_LOCK:
        return ast.parse(source, mode=mode)


def copy_location(new: ast.AST, old: ast.AST) -> ast.AST:
    """ast.copy_location, and `old`'s file (`tz_file`, parse_source's): a statement built from a
    helper's node must name the helper's file in errors and in the generated code's src comments."""
    ast.copy_location(new, old)
    if hasattr(old, "tz_file"):
        new.tz_file = old.tz_file
    return new


@functools.lru_cache(maxsize=None)
def _parsed_template(template: str) -> ast.AST:
    return parse(template, mode="eval").body


class _Splice(ast.NodeTransformer):
    def __init__(self, values: dict[str, ast.AST]):
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.values:
            return copy.deepcopy(self.values[node.id])
        return node


def expr(template: str, **values: ast.AST | str | int | float) -> ast.expr:
    """Parse `template` once and splice AST nodes in for its placeholder names.

    >>> ast.unparse(expr("tl.load(ptr + off, mask=mask)", ptr=name("x_ptr"), off=name("o")))
    'tl.load(x_ptr + o, mask=mask)'
    """
    nodes = {k: v if isinstance(v, ast.AST) else as_node(v) for k, v in values.items()}
    tree = copy.deepcopy(_parsed_template(template))
    return ast.fix_missing_locations(_Splice(nodes).visit(ast.Expression(tree))).body


def stmt(template: str, **values) -> ast.stmt:
    """Like `expr`, for one statement (`x = {value}`, `tl.store(...)`)."""
    nodes = {k: v if isinstance(v, ast.AST) else as_node(v) for k, v in values.items()}
    tree = parse(template).body[0]
    return ast.fix_missing_locations(_Splice(nodes).visit(tree))


def as_node(value) -> ast.expr:
    if isinstance(value, str):
        return name(value)
    return constant(value)


def name(identifier: str, store: bool = False) -> ast.Name:
    return ast.Name(id=identifier, ctx=ast.Store() if store else ast.Load())


def constant(value) -> ast.expr:
    """A literal; negative numbers and non-finite floats become expressions Python can parse."""
    if isinstance(value, float):
        if value != value:
            return expr("float('nan')")
        if value in (float("inf"), float("-inf")):
            return expr("float('inf')") if value > 0 else expr("-float('inf')")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and (value < 0 or str(value).startswith("-")):
        return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(-value))
    return ast.Constant(value)


def assign(target: str, value: ast.expr) -> ast.Assign:
    return ast.fix_missing_locations(ast.Assign(targets=[name(target, store=True)], value=value))


def comment(text: str) -> ast.Expr:
    """A statement that `render` turns into a `# text` comment line."""
    return ast.Expr(ast.Call(func=name(COMMENT_MARKER), args=[ast.Constant(text)], keywords=[]))


def location_of(node: ast.AST, filename: str) -> SourceLocation | None:
    if not hasattr(node, "lineno"):
        return None
    return SourceLocation(filename, node.lineno, node.col_offset)


class NameAllocator:
    """Hands out identifiers that collide with nothing already taken (`x`, `x_1`, `x_2`...)."""

    def __init__(self, taken=()):
        self.taken = set(taken)

    def fresh(self, base: str) -> str:
        base = base or "t"
        candidate, n = base, 0
        while candidate in self.taken:
            n += 1
            candidate = f"{base}_{n}"
        self.taken.add(candidate)
        return candidate


def is_math_call(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "math")


def math_name(node: ast.Call) -> str:
    return node.func.attr


def names_read(*nodes: ast.AST) -> set[str]:
    """Every name these nodes read (ast.Load), anywhere inside them."""
    return {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}

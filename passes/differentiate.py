"""Differentiate the straight-line scalar function in reverse mode: a new scalar function of
the same parameters plus one incoming gradient per output, returning the gradient of each
parameter asked for. Gradients flow through the taken branch of a select; comparisons,
integer casts, floor division and rounding carry none; min/max/abs follow torch at ties.
"""
from __future__ import annotations

import ast
import copy

from tritonize.errors import ScalarTypeError
from tritonize.passes.ast_tools import assign, constant, copy_location, expr, is_math_call, math_name, name
from tritonize.passes.fold_constants import literal
from tritonize.passes.math_table import public_name

LN2, LN10, TWO_OVER_SQRT_PI = 0.6931471805599453, 2.302585092994046, 1.1283791670955126
SQRT_PI_OVER_TWO, SQRT_TWO_PI = 0.886226925452758, 2.5066282746310002

# d value / d x for one-argument math functions: `x` the argument, `y` the value
UNARY_DERIVATIVES = {
    "exp": "y",
    "exp2": f"y * {LN2}",
    "expm1": "y + 1.0",
    "log": "1.0 / x",
    "log2": f"1.0 / (x * {LN2})",
    "log10": f"1.0 / (x * {LN10})",
    "log1p": "1.0 / (x + 1.0)",
    "sqrt": "0.5 / y",
    "rsqrt": "-0.5 * y * y * y",
    "cbrt": "y / (3.0 * x)",
    "sin": "math.cos(x)",
    "cos": "-math.sin(x)",
    "tan": "1.0 + y * y",
    "asin": "1.0 / math.sqrt(1.0 - x * x)",
    "acos": "-1.0 / math.sqrt(1.0 - x * x)",
    "atan": "1.0 / (1.0 + x * x)",
    "sinh": "math.cosh(x)",
    "cosh": "math.sinh(x)",
    "tanh": "1.0 - y * y",
    "asinh": "1.0 / math.sqrt(x * x + 1.0)",
    "acosh": "1.0 / math.sqrt(x * x - 1.0)",
    "atanh": "1.0 / (1.0 - x * x)",
    "erf": f"{TWO_OVER_SQRT_PI} * math.exp(-(x * x))",
    "erfc": f"-{TWO_OVER_SQRT_PI} * math.exp(-(x * x))",
    "erfinv": f"{SQRT_PI_OVER_TWO} * math.exp(y * y)",
    "erfcx": f"2.0 * x * y - {TWO_OVER_SQRT_PI}",
    "ndtri": f"{SQRT_TWO_PI} * math.exp(0.5 * y * y)",
    # torch's formulas (derivatives.yaml), sgn(0) = 0 and i1's slope 1/2 at 0 included
    "i0": "math.i1(x)",
    "i0e": "math.i1e(x) - (1.0 if x > 0 else (-1.0 if x < 0 else 0.0)) * y",
    "i1": "(0.5 if x == 0 else math.i0(x) - y / x)",
    "i1e": "(0.5 if x == 0 else math.i0e(x) - y * ((1.0 if x > 0 else (-1.0 if x < 0 else 0.0)) + 1.0 / x))",
    # J0' = -J1, J1' = J0 - J1/x (1/2 at 0), Y0' = -Y1, Y1' = Y0 - Y1/x (torch has no gradient of these)
    "bessel_j0": "-math.bessel_j1(x)",
    "bessel_j1": "(0.5 if x == 0 else math.bessel_j0(x) - y / x)",
    "bessel_y0": "-math.bessel_y1(x)",
    "bessel_y1": "math.bessel_y0(x) - y / x",
    # K0' = -K1, K1' = -K0 - K1/x, and for the scaled forms exp(x) K: k0e' = k0e - k1e, k1e' = k1e (1 - 1/x) - k0e
    # (torch has no derivative of these)
    "modified_bessel_k0": "-math.modified_bessel_k1(x)",
    "modified_bessel_k1": "-math.modified_bessel_k0(x) - y / x",
    "scaled_modified_bessel_k0": "y - math.scaled_modified_bessel_k1(x)",
    "scaled_modified_bessel_k1": "y * (1.0 - 1.0 / x) - math.scaled_modified_bessel_k0(x)",
    "fabs": "(1.0 if x > 0 else (-1.0 if x < 0 else 0.0))",
    "lgamma": "math.digamma(x)",
    "digamma": "math.trigamma(x)",  # trigamma's own derivative (polygamma(2, x)) is missing
    "degrees": "57.29577951308232",
    "radians": "0.017453292519943295",
}
NO_GRADIENT = {"floor", "ceil", "trunc", "round", "isnan", "isinf", "isfinite", "nextafter"}

# d value / d a, d b (and d c) for functions of two or three arguments; None: no gradient
ARGUMENT_DERIVATIVES = {
    "atan2": ("b / (a * a + b * b)", "-a / (a * a + b * b)"),
    "hypot": ("a / y", "b / y"),
    "pow": ("b * a ** (b - 1)", "(0.0 if a == 0 and b >= 0 else y * math.log(a))"),
    "copysign": ("math.copysign(1.0, a) * math.copysign(1.0, b)", None),
    "fmod": ("1.0", "-math.trunc(a / b)"),
    "ldexp": ("math.ldexp(1.0, b)", None),
    "log": ("1.0 / a", "-math.log(a) / (b * math.log(b) ** 2)"),  # math.log(x, base)
    "fma": ("b", "a", "1.0"),  # a * b + c
}


class _Flatten:
    """Give every operation its own name, so that derivatives refer to values by name."""

    def __init__(self, names):
        self.names = names

    def run(self, statements):
        self.out = []
        for statement in statements:
            value = self.operand(statement.value, top=True)
            self.out.append(copy_location(assign(statement.targets[0].id, value), statement))
            self.origin = statement
        return self.out

    def operand(self, node, top=False):
        if isinstance(node, (ast.Name, ast.Constant)) or literal(node) is not None:
            return node
        node = copy.copy(node)
        for field, value in ast.iter_fields(node):
            if field in ("func", "op", "ops", "ctx"):
                continue
            if isinstance(value, list):
                setattr(node, field, [self.operand(v) if isinstance(v, ast.expr) else v for v in value])
            elif isinstance(value, ast.expr):
                setattr(node, field, self.operand(value))
        if top:
            return node
        temp = self.names.fresh("t")
        self.out.append(copy_location(assign(temp, node), node))
        return name(temp)


def _is_zero(node) -> bool:
    return literal(node) == 0 and not isinstance(literal(node), bool)


def _is_one(node) -> bool:
    return literal(node) == 1 and not isinstance(literal(node), bool)


def mul(a, b):
    if _is_zero(a) or _is_zero(b):
        return constant(0.0)
    if _is_one(a):
        return b
    if _is_one(b):
        return a
    return ast.BinOp(left=a, op=ast.Mult(), right=b)


def total(terms):
    terms = [t for t in terms if not _is_zero(t)]
    if not terms:
        return constant(0.0)
    result = terms[0]
    for term in terms[1:]:
        result = ast.BinOp(left=result, op=ast.Add(), right=term)
    return result


class Differentiate:
    """
    >>> # def f(x, y):                     def f_backward(x, y, grad_out0):
    >>> #     t = math.exp(x)                  t = math.exp(x)
    >>> #     return t * y                     return grad_out0 * y * t, grad_out0 * t
    """

    def __init__(self, ctx, wrt: tuple):
        self.ctx, self.wrt = ctx, wrt

    def run(self, tree: ast.FunctionDef) -> ast.FunctionDef:
        names = self.ctx.names
        *body, ret = tree.body
        outputs = ret.value.elts if isinstance(ret.value, ast.Tuple) else [ret.value]
        # each returned value gets a name too, so that gradients start from names
        named = []
        for output in outputs:
            if isinstance(output, ast.Name) or literal(output) is not None:
                named.append(output)
            else:
                temp = names.fresh("out")
                body.append(copy_location(assign(temp, output), ret))
                named.append(name(temp))
        outputs = named
        forward = _Flatten(names).run(body)
        self.grads = [names.fresh(f"grad_out{k}") for k in range(len(outputs))]
        self.adjoints: dict[str, list] = {}
        self.statements: list[ast.stmt] = []
        for output, grad in zip(outputs, self.grads):
            self.propagate(output, name(grad), ret)
        for statement in reversed(forward):
            target = statement.targets[0].id
            terms = self.adjoints.pop(target, None)
            if not terms:
                continue
            adjoint = names.fresh(f"d_{target}")
            self.statements.append(copy_location(assign(adjoint, total(terms)), statement))
            self.propagate(statement.value, name(adjoint), statement, value=name(target))
        results = [total(self.adjoints.get(p, [])) for p in self.wrt]
        derived = copy.copy(tree)
        derived.name = f"{tree.name}_backward"
        derived.args = copy.deepcopy(tree.args)
        derived.args.args += [ast.arg(arg=g) for g in self.grads]
        derived.args.defaults = []
        derived.args.kw_defaults = [None] * len(derived.args.kwonlyargs)
        value = results[0] if len(results) == 1 else ast.Tuple(elts=results, ctx=ast.Load())
        statements, value = _share_common(forward + self.statements, value)
        derived.body = _live(statements, value) + [copy_location(ast.Return(value=value), ret)]
        return ast.fix_missing_locations(derived)

    def accumulate(self, node, gradient):
        if isinstance(node, ast.Name) and not _is_zero(gradient):
            for part in ast.walk(gradient):  # built from templates: give it the user's line
                if not hasattr(part, "tz_file") and hasattr(self.origin, "lineno"):
                    part.lineno, part.col_offset = self.origin.lineno, self.origin.col_offset
                    part.end_lineno, part.end_col_offset = self.origin.lineno, self.origin.col_offset
                    part.tz_file = getattr(self.origin, "tz_file", self.ctx.filename)
            self.adjoints.setdefault(node.id, []).append(gradient)

    def fail(self, node, what):
        raise ScalarTypeError(f"{what} has no derivative in tritonize yet", self.ctx.location(node))

    def propagate(self, node, g, origin, value=None):
        """Add g * d node / d leaf to each leaf's adjoint; `value` names node's own value."""
        self.origin = origin
        if isinstance(node, ast.Name):
            self.accumulate(node, g)
        elif isinstance(node, ast.BinOp):
            self.binary(node, g, value)
        elif isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                self.accumulate(node.operand, ast.UnaryOp(op=ast.USub(), operand=g))
            elif isinstance(node.op, ast.UAdd):
                self.accumulate(node.operand, g)
        elif isinstance(node, ast.IfExp):  # the gradient takes the branch the select took
            self.accumulate(node.body, expr("g if c else 0.0", g=g, c=node.test))
            self.accumulate(node.orelse, expr("0.0 if c else g", g=g, c=node.test))
        elif isinstance(node, ast.BoolOp) and len(node.values) == 2:  # `a and b` is b if a else a
            a, b = node.values
            keep_b = isinstance(node.op, ast.And)
            self.accumulate(b, expr("g if a else 0.0" if keep_b else "0.0 if a else g", g=g, a=a))
            self.accumulate(a, expr("0.0 if a else g" if keep_b else "g if a else 0.0", g=g, a=a))
        elif isinstance(node, ast.Call):
            self.call(node, g, value)
        # constants, comparisons: no gradient

    def binary(self, node, g, value):
        a, b, op = node.left, node.right, node.op
        if isinstance(op, ast.Add):
            self.accumulate(a, g)
            self.accumulate(b, g)
        elif isinstance(op, ast.Sub):
            self.accumulate(a, g)
            self.accumulate(b, ast.UnaryOp(op=ast.USub(), operand=g))
        elif isinstance(op, ast.Mult):
            self.accumulate(a, mul(g, b))
            self.accumulate(b, mul(g, a))
        elif isinstance(op, ast.Div):
            self.accumulate(a, expr("g / b", g=g, b=b))
            y = value if value is not None else node
            self.accumulate(b, expr("-(g * y) / b", g=g, y=y, b=b))
        elif isinstance(op, ast.Mod):  # torch.remainder: a - b * floor(a / b)
            self.accumulate(a, g)
            self.accumulate(b, expr("-(g * (a // b))", g=g, a=a, b=b))
        elif isinstance(op, ast.Pow):
            exponent = literal(b)
            if exponent is not None:
                if exponent != 0:
                    self.accumulate(a, mul(g, mul(constant(exponent), expr("a ** e", a=a, e=constant(exponent - 1)))))
                return
            y = value if value is not None else node
            da, db = ARGUMENT_DERIVATIVES["pow"]
            self.accumulate(a, mul(g, expr(da, a=a, b=b, y=y)))
            self.accumulate(b, mul(g, expr(db, a=a, b=b, y=y)))
        # //, bitwise, shifts: integers or steps, no gradient

    def call(self, node, g, value):
        args = node.args
        y = value if value is not None else node
        if is_math_call(node):
            fname = math_name(node)
            if fname in NO_GRADIENT:
                return
            if fname in UNARY_DERIVATIVES and len(args) == 1:
                self.accumulate(args[0], mul(g, expr(UNARY_DERIVATIVES[fname], x=args[0], y=y)))
                return
            derivatives = ARGUMENT_DERIVATIVES.get(fname, ())
            if len(args) == len(derivatives):
                named = dict(zip("abc", args))
                for arg, derivative in zip(args, derivatives):
                    if derivative is not None:
                        self.accumulate(arg, mul(g, expr(derivative, y=y, **named)))
                return
            self.fail(node, public_name(fname))
        builtin = node.func.id
        if builtin == "float":
            self.accumulate(args[0], g)
        elif builtin == "abs":  # torch: the gradient of abs at 0 is 0
            self.accumulate(args[0], expr("g if x > 0 else (-g if x < 0 else 0.0)", g=g, x=args[0]))
        elif builtin in ("min", "max"):
            self.extremum(builtin, args, g, node)
        # int(), bool(): no gradient

    def extremum(self, builtin, args, g, node):
        """torch.minimum/maximum: the gradient goes to the smaller (larger) one, halved at ties."""
        wins = "<" if builtin == "min" else ">"
        a = args[0]
        for index, b in enumerate(args[1:]):
            if index < len(args) - 2:  # min(a, b, c) is min(min(a, b), c): name the inner one
                self.fail(node, f"{builtin}() of more than two values")
            self.accumulate(a, expr(f"g if a {wins} b else (0.5 * g if a == b else 0.0)", g=g, a=a, b=b))
            self.accumulate(b, expr(f"g if b {wins} a else (0.5 * g if a == b else 0.0)", g=g, a=a, b=b))


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        return copy_location(name(self.mapping[node.id]), node) if node.id in self.mapping else node


def _share_common(statements, result):
    """A statement computing what an earlier one computed reuses that name (straight-line
    code, names assigned once): `t = x * beta` twice is computed once."""
    seen, mapping, kept = {}, {}, []
    rename = _Rename(mapping)
    for statement in statements:
        value = rename.visit(statement.value)
        key = ast.dump(value)
        target = statement.targets[0].id
        if key in seen:
            mapping[target] = seen[key]
            continue
        seen[key] = target
        statement.value = value
        kept.append(statement)
    return kept, rename.visit(result)


def _live(statements, result) -> list:
    """Drop statements whose values the result does not use (straight-line code)."""
    needed = {n.id for n in ast.walk(result) if isinstance(n, ast.Name)}
    kept = []
    for statement in reversed(statements):
        target = statement.targets[0].id
        if target in needed:
            kept.append(statement)
            needed |= {n.id for n in ast.walk(statement.value) if isinstance(n, ast.Name)}
    return kept[::-1]

"""A grammar of random scalar programs for the fuzzer (tests/test_fuzz.py), as Hypothesis
strategies: nested expressions, math calls, ternaries, if/elif/else with assignments and
early returns, helper calls (plain and @pointwise, with defaults, keywords and two results),
module and closure constants, int programs with `//` and `%`, and mixed dtypes.

Every generated program is *typed*: each expression is drawn for a type (kind bool/int/float,
strong = a tensor, weak = a Python number) with torch's promotion rules, and only where
plain Python and torch agree on the value:

- a strong int or bool never meets a weak float (torch computes that in float32, Python in
  float64), and `/`, `float()` and math.* never take a strong int (float32 again);
- bools take no arithmetic (torch: True + True is True, Python: 2);
- every int expression carries a bound on its magnitude, kept under 2**52, so Python's
  unbounded ints agree with int64 and with the float64 conversion;
- divisors of `//` and `%` are nonzero by construction (`abs(e) + 1`) or left to chance
  (a Python exception marks that element as not comparable);
- `int()` of a float is clamped (`int(max(min(e, 1000.0), -1000.0))`).

A program also says whether it is *exact*: only correctly rounded float operations
(+ - * / // %, sqrt, floor, fmod, copysign, ...), so the interpreter must match Python bit
for bit; transcendental functions and `**` make it inexact (a few ulps, compared with a
tolerance).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NamedTuple

from hypothesis import strategies as st

B, I, F = 0, 1, 2  # kinds, in promotion order
KIND_NAMES = {B: "bool", I: "int", F: "float"}


class T(NamedTuple):
    kind: int
    strong: bool

    def __str__(self):
        return ("S" if self.strong else "W") + "bif"[self.kind]


TYPES = [T(k, s) for s in (True, False) for k in (B, I, F)]
TOP_LIMIT = 2**52  # int magnitudes stay exact in float64 and inside int64
MIN_LIMIT = 64
PARAM_BOUND = 30  # int tensors and Python ints passed to the program
HELPER_PARAM_BOUND = 1000

FLOAT_LITERALS = ["0.5", "1.5", "2.0", "-3.25", "0.1", "0.001", "100.0", "2.5", "-0.75", "7.0"]

# math functions of one float: (template, exact). `{a}` is the argument.
MATH_UNARY = [
    ("math.sqrt(abs({a}))", True), ("math.floor({a})", True), ("math.ceil({a})", True),
    ("math.trunc({a})", True), ("math.fabs({a})", True), ("math.degrees({a})", True),
    ("math.radians({a})", True), ("math.sqrt({a})", True),
    ("math.exp({a})", False), ("math.log(abs({a}) + 0.25)", False), ("math.sin({a})", False),
    ("math.cos({a})", False), ("math.tan({a})", False), ("math.atan({a})", False),
    ("math.tanh({a})", False), ("math.sinh({a})", False), ("math.cosh({a})", False),
    ("math.asinh({a})", False), ("math.erf({a})", False), ("math.erfc({a})", False),
    ("math.expm1({a})", False), ("math.log1p(abs({a}))", False), ("math.log2(abs({a}) + 1.0)", False),
    ("math.log10(abs({a}) + 1.0)", False), ("math.asin(math.tanh({a}) * 0.5)", False),
    ("math.acos(math.tanh({a}) * 0.5)", False), ("math.acosh(abs({a}) + 1.0)", False),
    ("math.atanh(math.tanh({a}) * 0.5)", False), ("math.lgamma({a})", False), ("math.log({a})", False),
]
if hasattr(math, "cbrt"):
    MATH_UNARY += [("math.cbrt({a})", False), ("math.exp2({a})", False)]
MATH_UNARY += [("tm.erfinv(math.tanh({a}))", False), ("tm.digamma({a})", False), ("tm.erfcx({a})", False),
               ("tm.ndtri(math.tanh({a}) * 0.5 + 0.5)", False)]  # tritonize.math
MATH_BINARY = [("math.copysign({a}, {b})", True), ("math.fmod({a}, {b})", True),
               ("math.atan2({a}, {b})", False), ("math.hypot({a}, {b})", False),
               ("math.pow(abs({a}), {b})", False)]
SAME_KIND = {"math.floor", "math.ceil", "math.trunc"}
MATH_PREDICATES = ["math.isnan({a})", "math.isinf({a})", "math.isfinite({a})"]


def promote(*types: T) -> T | None:
    """torch.result_type's kind for these operands, or None where torch would compute in
    float32 (a strong int/bool meeting a weak float) and Python in float64."""
    strong = [t.kind for t in types if t.strong]
    weak = [t.kind for t in types if not t.strong]
    if not strong:
        return T(max(weak), False)
    high = max(strong)
    if weak and max(weak) > high:
        if high == B and max(weak) == I:
            return T(I, True)
        return None
    return T(high, True)


def to_float(t: T | None) -> T | None:
    """`/`, float(), math.*: ints become float32 tensors in torch, unless they are weak."""
    if t is None or (t.strong and t.kind != F):
        return None
    return T(F, t.strong)


@dataclass
class Var:
    type: T
    bound: int  # magnitude bound (ints and bools); 0 for floats


@dataclass
class Helper:
    name: str
    params: list  # [(name, T, default literal or None)]
    outs: list  # [T]
    bounds: list  # magnitude bound of each result


@dataclass
class Param:
    name: str
    type: T
    default: str | None = None  # a literal, for weak parameters
    annotation: str | None = None


@dataclass
class Program:
    source: str
    name: str
    params: list  # [Param]
    outs: list  # [T]
    exact: bool
    uses: set = field(default_factory=set)  # what the program exercises, for hypothesis.event


class Scope:
    """What one function body can read: its variables and the helpers defined before it."""

    def __init__(self, variables: dict, helpers: list, constants: dict):
        self.vars = dict(variables)
        self.helpers = helpers
        self.constants = constants
        self.strong_kinds = {v.type.kind for v in variables.values() if v.type.strong}
        self.params = set(variables)

    def child(self) -> "Scope":
        child = Scope(self.vars, self.helpers, self.constants)
        child.strong_kinds, child.params = self.strong_kinds, self.params
        return child

    def available(self, t: T) -> bool:
        if not t.strong:
            return True
        if t.kind == F:
            return F in self.strong_kinds
        return bool(self.strong_kinds)  # int(...) or a comparison of any strong value


class Builder:
    """Draws one program. `draw` is Hypothesis's; every choice is a small integer that
    shrinks towards the simplest form (a leaf, fewer statements, no helpers)."""

    def __init__(self, draw):
        self.draw = draw
        self.exact = True
        self.counter = 0
        self.lines: list[str] = []
        self.uses: set[str] = set()

    # -- small draws --------------------------------------------------------------------------

    def pick(self, options, label=None):
        return options[self.draw(st.integers(0, len(options) - 1), label=label)]

    def chance(self, one_in: int) -> bool:
        return self.draw(st.integers(0, one_in - 1)) == 1

    def fresh(self, prefix="v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # -- expressions --------------------------------------------------------------------------

    def expr(self, scope: Scope, t: T, depth: int, limit: int = TOP_LIMIT) -> tuple[str, int]:
        """Source of an expression of type `t` and its magnitude bound (<= limit for ints)."""
        productions = self.productions(scope, t, depth, limit) if depth > 0 else []
        if not productions or self.draw(st.integers(0, 3), label="leaf?") == 0:
            return self.leaf(scope, t, limit)
        name, produce = self.pick(productions)
        self.uses.add(name)
        return produce()

    def leaf(self, scope: Scope, t: T, limit: int) -> tuple[str, int]:
        # only int magnitudes are bounded (a float may hold any value; a bool is 0 or 1)
        options = [(n, v.bound) for n, v in scope.vars.items() if v.type == t and (t.kind != I or v.bound <= limit)]
        local = [o for o in options if o[0] not in scope.params]
        if local and self.chance(2):  # most often a local computed before: fewer dead stores
            return self.pick(local[::-1], label="local")
        if not t.strong:
            options += [(n, bound) for n, (ct, bound) in scope.constants.items() if ct == t and bound <= limit]
            options.append(self.literal(t, limit))
        if not options:
            options = self.conversions(scope, t, limit)
        return self.pick(options, label="leaf")

    def literal(self, t: T, limit: int) -> tuple[str, int]:
        if t.kind == B:
            return self.pick(["True", "False"]), 1
        if t.kind == I:
            value = self.draw(st.integers(-10, 10), label="int literal")
            return (f"({value})" if value < 0 else str(value)), abs(value)
        text = self.pick(FLOAT_LITERALS)
        return (f"({text})" if text.startswith("-") else text), 0

    def conversions(self, scope: Scope, t: T, limit: int) -> list:
        """A strong int or bool made from a strong parameter of another kind."""
        out = []
        clamp = min(1000, limit)
        for n, v in scope.vars.items():
            if v.type == t and t.kind == I:  # its bound is above the limit
                out.append((f"({n} % {clamp - 1})", clamp - 1))
            if not v.type.strong:
                continue
            if t == T(I, True) and v.type.kind == B:
                out.append((f"int({n})", 1))
            if t == T(I, True) and v.type.kind == F:
                out.append((f"int(max(min({n}, {clamp}.0), -{clamp}.0))", clamp))
            if t == T(B, True) and v.type.kind in (I, F):
                out.append((f"({n} > 0)", 1))
        assert out, f"no strong {t} can be made in this scope"
        return out

    def operand_types(self, scope, combine, want: T, count=2, allow=lambda ts: True):
        """Operand types that `combine` turns into `want`."""
        found = []
        candidates = [t for t in TYPES if scope.available(t)]
        if count == 2:
            pairs = [(a, b) for a in candidates for b in candidates]
        else:
            pairs = [(a, b, c) for a in candidates for b in candidates for c in candidates]
        for types in pairs:
            if allow(types) and combine(*types) == want:
                found.append(types)
        return found

    def productions(self, scope: Scope, t: T, depth: int, limit: int) -> list:
        d = depth - 1
        p = []
        if t.kind in (I, F):
            p += self.arithmetic(scope, t, d, limit)
            p += self.division(scope, t, d, limit)
            p.append(("unary", lambda: self.unary(scope, t, d, limit)))
            p.append(("power", lambda: self.power(scope, t, d, limit)))
        if t.kind == F:
            p += self.math_calls(scope, t, d)
        if t.kind == I:
            p += self.int_only(scope, t, d, limit)
        if t.kind in (B, I):
            p += self.bitwise(scope, t, d, limit)
        if t.kind == B:
            p += self.predicates(scope, t, d)
        p += self.selections(scope, t, d, limit)
        p += self.helper_calls(scope, t, d, limit) * 3  # helpers are rare otherwise
        return p

    def arithmetic(self, scope, t, d, limit):
        pairs = self.operand_types(scope, promote, t, allow=lambda ts: not all(x.kind == B for x in ts))
        if not pairs:
            return []

        def produce():
            a_t, b_t = self.pick(pairs, label="operand types")
            ops = ["+", "-"] + (["*"] if t.kind == F or math.isqrt(limit) >= MIN_LIMIT else [])
            op = self.pick(ops)
            if op == "*":
                a, ab = self.expr(scope, a_t, d, math.isqrt(limit))
                b, bb = self.expr(scope, b_t, d, limit // max(ab, 1))
                return f"({a} * {b})", ab * bb
            half = max(limit // 2, MIN_LIMIT) if limit >= 2 * MIN_LIMIT else None
            if half is None:
                return self.leaf(scope, t, limit)
            a, ab = self.expr(scope, a_t, d, half)
            b, bb = self.expr(scope, b_t, d, half)
            return f"({a} {op} {b})", ab + bb
        return [("arithmetic", produce)]

    def division(self, scope, t, d, limit):
        out = []
        if t.kind == F:
            pairs = self.operand_types(scope, lambda a, b: to_float(promote(a, b)), t,
                                       allow=lambda ts: ts[1].kind != B)
            if pairs:
                def true_divide():
                    a_t, b_t = self.pick(pairs, label="operand types")
                    a, _ = self.expr(scope, a_t, d)
                    b, _ = self.divisor(scope, b_t, d, TOP_LIMIT)
                    return f"({a} / {b})", 0
                out.append(("truediv", true_divide))
        pairs = self.operand_types(scope, promote, t, allow=lambda ts: all(x.kind != B for x in ts))
        if pairs:
            def floor_or_mod():
                a_t, b_t = self.pick(pairs, label="operand types")
                op = self.pick(["//", "%"])
                self.uses.add("floordiv" if op == "//" else "mod")
                a, ab = self.expr(scope, a_t, d, limit)
                b, bb = self.divisor(scope, b_t, d, limit)
                return f"({a} {op} {b})", (ab if op == "//" else bb)
            out.append(("floordiv/mod", floor_or_mod))
        return out

    def divisor(self, scope, t, d, limit):
        """A divisor of type `t`, nonzero by construction unless drawn raw."""
        one = "1" if t.kind == I or not self.chance(2) else "0.5"
        form = self.draw(st.integers(0, 3), label="divisor form")
        if form == 3 and not t.strong and t.kind == I:
            value = self.pick([2, 3, 7, -2, -5])
            return f"({value})", abs(value)
        inner, bound = self.expr(scope, t, d, limit - 1)
        if form == 0:
            return f"(abs({inner}) + {one})", bound + 1
        if form == 1:
            return f"(-abs({inner}) - {one})", bound + 1
        return inner, bound  # may be zero: that element is skipped

    def unary(self, scope, t, d, limit):
        choices = ["-", "+", "abs"] + (["~"] if t.kind == I else [])
        op = self.pick(choices)
        a, ab = self.expr(scope, t, d, limit - 1)
        if op == "abs":
            return f"abs({a})", ab
        if op == "~":
            return f"(~{a})", ab + 1
        return f"({op}{a})", ab

    def power(self, scope, t, d, limit):
        self.exact = self.exact and t.kind == I
        if t.kind == I:
            exponent = self.pick([2, 3] if limit >= MIN_LIMIT ** 3 else [2])
            root = math.isqrt(limit) if exponent == 2 else round(limit ** (1 / 3)) - 1
            if root < MIN_LIMIT:
                return self.leaf(scope, t, limit)
            a, ab = self.expr(scope, t, d, root)
            return f"({a} ** {exponent})", ab ** exponent
        exponent = self.pick(["2", "3", "0.5", "-1", "1.5", "-0.5", "0", "2.5", "-2"])
        a, _ = self.expr(scope, t, d)
        if "." in exponent:
            a = f"abs({a})"  # a negative base to a fractional power is complex in Python
        if exponent.startswith("-"):
            exponent = f"({exponent})"
        return f"({a} ** {exponent})", 0

    def math_calls(self, scope, t, d):
        out = []
        arg_types = [a for a in TYPES if scope.available(a) and to_float(a) == t]

        def unary():
            a_t = self.pick(arg_types)
            # floor/ceil/trunc of an int stay ints (the "same" kind): only floats here
            templates = MATH_UNARY if a_t.kind == F else [m for m in MATH_UNARY if m[0].split("(")[0] not in SAME_KIND]
            template, exact = self.pick(templates, label="math function")
            self.exact = self.exact and exact
            self.uses.add(template.split("(")[0])
            a, _ = self.expr(scope, a_t, d)
            return template.format(a=a), 0
        out.append(("math1", unary))
        pairs = self.operand_types(scope, lambda a, b: to_float(promote(a, b)), t)
        if pairs:
            def binary():
                template, exact = self.pick(MATH_BINARY, label="math function")
                self.exact = self.exact and exact
                self.uses.add(template.split("(")[0])
                a_t, b_t = self.pick(pairs)
                a, _ = self.expr(scope, a_t, d)
                b, _ = self.expr(scope, b_t, d)
                return template.format(a=a, b=b), 0
            out.append(("math2", binary))

        def ldexp():
            a, _ = self.expr(scope, self.pick(arg_types), d)
            n_types = [x for x in (T(I, True), T(I, False)) if scope.available(x)]
            n, _ = self.expr(scope, self.pick(n_types), d, MIN_LIMIT)
            return f"math.ldexp({a}, {n})", 0
        out.append(("ldexp", ldexp))

        def to_float_call():
            a, _ = self.expr(scope, self.pick(arg_types), d)
            return f"float({a})", 0
        out.append(("float()", to_float_call))
        return out

    def int_only(self, scope, t, d, limit):
        out = []
        pairs_shift = [x for x in TYPES if x.kind == I and scope.available(x) and promote(t, x) == t]

        def shift():
            a_limit = limit >> 7
            if a_limit < MIN_LIMIT:
                return self.leaf(scope, t, limit)
            a, ab = self.expr(scope, t, d, a_limit)
            if self.chance(2):
                k, _ = self.expr(scope, self.pick(pairs_shift), d)
                k = f"({k} % 7)"
            else:
                k = str(self.draw(st.integers(0, 6)))
            op = self.pick(["<<", ">>"])
            return f"({a} {op} {k})", (ab << 6 if op == "<<" else ab)
        out.append(("shift", shift))

        def to_int():
            source = [x for x in TYPES if scope.available(x) and x.strong == t.strong]
            a_t = self.pick(source)
            if a_t.kind == F:
                a, _ = self.expr(scope, a_t, d)
                clamp = min(1000, limit)
                return f"int(max(min({a}, {clamp}.0), -{clamp}.0))", clamp
            a, ab = self.expr(scope, a_t, d, limit)
            if self.chance(2) and a_t.kind == I:
                return f"math.{self.pick(['floor', 'ceil', 'trunc'])}({a})", ab
            return f"int({a})", ab
        out.append(("int()", to_int))
        return out

    def bitwise(self, scope, t, d, limit):
        pairs = self.operand_types(scope, promote, t, allow=lambda ts: all(x.kind != F for x in ts))
        if not pairs or limit < 4 * MIN_LIMIT:
            return []

        def produce():
            a_t, b_t = self.pick(pairs)
            op = self.pick(["&", "|", "^"])
            a, ab = self.expr(scope, a_t, d, limit // 4)
            b, bb = self.expr(scope, b_t, d, limit // 4)
            return f"({a} {op} {b})", 2 * max(ab, bb, 1)
        return [("bitwise", produce)]

    def predicates(self, scope, t, d):
        out = []
        pairs = [(a, b) for a in TYPES for b in TYPES if scope.available(a) and scope.available(b)
                 and promote(a, b) is not None and (a.strong or b.strong) == t.strong]
        if pairs:
            def compare():
                a_t, b_t = self.pick(pairs, label="compared types")
                a, _ = self.expr(scope, a_t, d)
                b, _ = self.expr(scope, b_t, d)
                op = self.pick(["<", "<=", ">", ">=", "==", "!="])
                if self.chance(3):  # chained: a < b < c
                    c, _ = self.expr(scope, b_t, d)
                    return f"({a} {op} {b} {self.pick(['<', '<=', '!='])} {c})", 1
                return f"({a} {op} {b})", 1
            out.append(("compare", compare))
        same = [a for a in TYPES if scope.available(a) and a.strong == t.strong]
        out.append(("not/bool", lambda: self._not_or_bool(scope, same, d)))
        floats = [a for a in TYPES if a.kind == F and scope.available(a) and a.strong == t.strong]
        if floats:
            def predicate():
                a, _ = self.expr(scope, self.pick(floats), d)
                return self.pick(MATH_PREDICATES).format(a=a), 1
            out.append(("isnan/isinf", predicate))
        return out

    def _not_or_bool(self, scope, types, d):
        a, _ = self.expr(scope, self.pick(types), d)
        return (f"(not {a})" if self.chance(2) else f"bool({a})"), 1

    def selections(self, scope, t, d, limit):
        out = []
        pairs = self.operand_types(scope, promote, t)
        if pairs:
            def ternary():
                # Python's result has the type of the branch taken (`x if c else False` is a
                # bool when c is false), the kernel's the promoted one: values agree, but a
                # later `//` or copysign sees -0.0 against 0: branches share their kind
                a_t, b_t = self.pick([p for p in pairs if p[0].kind == p[1].kind] or [(t, t)])
                # a constant condition keeps one branch, and its dtype: differing branches
                # need a condition that is not constant, i.e. a strong one
                tests = [x for x in TYPES if scope.available(x) and (x.strong or a_t == b_t)]
                if not tests:
                    a_t = b_t = t
                    tests = [x for x in TYPES if scope.available(x)]
                c, _ = self.expr(scope, self.pick(tests), d)
                a, ab = self.expr(scope, a_t, d, limit)
                b, bb = self.expr(scope, b_t, d, limit)
                return f"({a} if {c} else {b})", max(ab, bb)
            out.append(("ternary", ternary))

            def min_max():
                # constant operands are folded to the one Python picks, with its own type
                a_t, b_t = self.pick([p for p in pairs if p[0] == p[1] or p[0].strong or p[1].strong] or [(t, t)])
                a, ab = self.expr(scope, a_t, d, limit)
                b, bb = self.expr(scope, b_t, d, limit)
                if self.chance(3):
                    c, cb = self.expr(scope, t, d, limit)
                    return f"{self.pick(['min', 'max'])}({a}, {b}, {c})", max(ab, bb, cb)
                return f"{self.pick(['min', 'max'])}({a}, {b})", max(ab, bb)
            out.append(("min/max", min_max))

            def and_or():
                # a constant first operand is folded away with its own type: as for ternaries,
                # operands of differing types need a first operand that is not constant
                # and the result's type is the operand picked (`0.0 or False` is False): as for
                # ternaries, both operands of one kind
                a_t, b_t = self.pick([p for p in pairs if p[0] == p[1] or (p[0].strong and p[0].kind == p[1].kind)]
                                     or [(t, t)])
                a, ab = self.expr(scope, a_t, d, limit)
                b, bb = self.expr(scope, b_t, d, limit)
                return f"({a} {self.pick(['and', 'or'])} {b})", max(ab, bb)
            out.append(("and/or", and_or))
        return out

    def callable_helpers(self, scope, outputs: int):
        return [h for h in scope.helpers if len(h.outs) == outputs and all(scope.available(p[1]) for p in h.params)]

    def helper_calls(self, scope, t, d, limit):
        usable = [h for h in self.callable_helpers(scope, 1) if h.outs[0] == t and h.bounds[0] <= limit]
        if not usable:
            return []

        def produce():
            helper = self.pick(usable)
            return self.call(scope, helper, d), helper.bounds[0]
        return [("helper", produce)]

    def call(self, scope, helper: Helper, d) -> str:
        args, keyword = [], False
        for pname, ptype, default in helper.params:
            if default is not None and self.chance(2):
                keyword = True  # left out: its default
                continue
            value, _ = self.expr(scope, ptype, d, HELPER_PARAM_BOUND)
            if keyword or (self.chance(4) and default is not None):
                keyword = True
                args.append(f"{pname}={value}")
            else:
                args.append(value)
        self.uses.add("helper call")
        return f"{helper.name}({', '.join(args)})"

    # -- statements ---------------------------------------------------------------------------

    def emit(self, indent: int, text: str):
        self.lines.append("    " * indent + text)

    def block(self, scope: Scope, outs: list, depth: int, indent: int, must_return: bool) -> bool:
        """Statements into self.lines; True when every path through them has returned."""
        for _ in range(self.draw(st.integers(0, 4), label="statements")):
            kind = self.draw(st.integers(0, 4 if depth > 0 else 2), label="statement")
            if kind == 0:
                self.assign_new(scope, depth, indent)
            elif kind == 1:
                self.reassign(scope, depth, indent)
            elif kind == 2:
                self.unpack(scope, depth, indent)
            elif self.if_statement(scope, outs, depth, indent):
                return True
        if must_return:
            self.emit_return(scope, outs, depth, indent)
            return True
        return False

    def assign_new(self, scope, depth, indent):
        t = self.pick([x for x in TYPES if scope.available(x)], label="new variable type")
        value, bound = self.expr(scope, t, self.expr_depth(), 2**40)
        var = self.fresh()
        if self.chance(4):
            self.emit(indent, f"{var}: {KIND_NAMES[t.kind]} = {value}")
        else:
            self.emit(indent, f"{var} = {value}")
        scope.vars[var] = Var(t, bound)

    def reassign(self, scope, depth, indent):
        if not scope.vars:
            return
        var = self.pick(sorted(scope.vars))
        t = scope.vars[var].type
        if self.chance(2) and t.kind != B:  # x op= e
            pairs = [x for x in TYPES if scope.available(x) and promote(t, x) == t and x.kind != B]
            op = self.pick(["+", "-"] + (["*"] if t.kind == F else []))
            value, bound = self.expr(scope, self.pick(pairs), self.expr_depth(), 2**40)
            self.emit(indent, f"{var} {op}= {value}")
            self.uses.add("augassign")
            scope.vars[var] = Var(t, scope.vars[var].bound + bound)
            return
        value, bound = self.expr(scope, t, self.expr_depth(), 2**40)
        self.emit(indent, f"{var} = {value}")
        scope.vars[var] = Var(t, bound)

    def unpack(self, scope, depth, indent):
        pairs = self.callable_helpers(scope, 2)
        if pairs:
            helper = self.pick(pairs)
            names = [self.fresh(), self.fresh()]
            self.emit(indent, f"{names[0]}, {names[1]} = {self.call(scope, helper, self.expr_depth())}")
            for n, t, bound in zip(names, helper.outs, helper.bounds):
                scope.vars[n] = Var(t, bound)
            return
        # a, b = e1, e2
        types = [self.pick([x for x in TYPES if scope.available(x)]) for _ in range(2)]
        values = [self.expr(scope, t, self.expr_depth(), 2**40) for t in types]
        names = [self.fresh(), self.fresh()]
        self.emit(indent, f"{names[0]}, {names[1]} = {values[0][0]}, {values[1][0]}")
        for n, t, (_, bound) in zip(names, types, values):
            scope.vars[n] = Var(t, bound)

    def if_statement(self, scope, outs, depth, indent) -> bool:
        """if/elif/else: branches assign (merged after) or return early. True if all return."""
        self.uses.add("if")
        count = self.draw(st.integers(1, 3), label="branches")
        has_else = self.chance(2) or count == 1 and self.chance(2)
        planned = []  # new variables every non-returning branch assigns
        if has_else:
            for _ in range(self.draw(st.integers(0, 2))):
                planned.append((self.fresh(), self.pick([x for x in TYPES if scope.available(x)])))
        branch_scopes, returned = [], []
        for k in range(count + has_else):
            if k < count:
                cond, _ = self.expr(scope, self.pick([x for x in TYPES if scope.available(x)]), self.expr_depth())
                self.emit(indent, f"{'if' if k == 0 else 'elif'} {cond}:")
            else:
                self.emit(indent, "else:")
            inner = scope.child()
            before = len(self.lines)
            returns = self.chance(3)
            done = self.block(inner, outs, depth - 1, indent + 1, must_return=returns)
            if not done:
                for var, t in planned:
                    value, bound = self.expr(inner, t, self.expr_depth(), 2**40)
                    self.emit(indent + 1, f"{var} = {value}")
                    inner.vars[var] = Var(t, bound)
            if len(self.lines) == before:
                self.emit(indent + 1, "pass")
            returned.append(done)
            if done:
                self.uses.add("early return")
            else:
                branch_scopes.append(inner)
        if has_else and all(returned):
            return True
        # after the if: variables of the paths that go on, merged
        survivors = branch_scopes + ([] if has_else else [scope])
        for var in list(scope.vars) + [v for v, _ in planned]:
            versions = [s.vars[var] for s in survivors if var in s.vars]
            if len(versions) == len(survivors):
                scope.vars[var] = Var(versions[0].type, max(v.bound for v in versions))
        return False

    def emit_return(self, scope, outs, depth, indent):
        values = [self.expr(scope, t, 1 + self.expr_depth(), 2**40) for t in outs]
        self.emit(indent, "return " + ", ".join(v for v, _ in values))
        self.return_bounds.append([b for _, b in values])

    # -- functions ----------------------------------------------------------------------------

    def helper(self, index: int, helpers: list, constants: dict, main_scope: Scope) -> Helper:
        count = self.draw(st.integers(1, 3), label="helper params")
        params, variables = [], {}
        for k in range(count):
            t = self.pick([x for x in TYPES if main_scope.available(x)], label="helper param type")
            name = f"p{index}_{k}"
            default = None
            if k == count - 1 and not t.strong and self.chance(2):
                default, _ = self.literal(t, PARAM_BOUND)
            params.append((name, t, default))
            variables[name] = Var(t, HELPER_PARAM_BOUND if t.kind == I else (1 if t.kind == B else 0))
        scope = Scope(variables, list(helpers), constants)
        outs = [self.pick([x for x in TYPES if scope.available(x)], label="helper result type")
                for _ in range(1 + self.chance(3))]
        decorated = self.chance(3)
        name = f"h{index}"
        self.emit(0, "")
        if decorated:
            self.emit(0, "@pointwise")
            self.uses.add("@pointwise helper")
        signature = ", ".join(p if d is None else f"{p}={d}" for p, _, d in params)
        self.emit(0, f"def {name}({signature}):")
        bounds = self.function_body(scope, outs, indent=1)
        return Helper(name, params, outs, bounds)

    def function_body(self, scope, outs, indent) -> list:
        """A body ending in a return; the results' bounds (the largest over every return)."""
        self.return_bounds = []
        depth = self.draw(st.integers(0, 2), label="nesting")
        self.block(scope, outs, depth, indent, must_return=True)
        return [max(bounds) for bounds in zip(*self.return_bounds)]

    def expr_depth(self) -> int:
        return self.draw(st.integers(0, 3), label="expression depth")


@st.composite
def programs(draw, tensor_kinds=(F, I, B), number_kinds=(F, I, B), max_helpers=2) -> Program:
    """A random program: constants, 0-2 helpers, and `prog`, with typed parameters: tensors
    of `tensor_kinds` (at least one, not all bool) and Python numbers of `number_kinds`."""
    b = Builder(draw)
    # parameters: at least one tensor; weak parameters last (they may have defaults)
    strong = [T(draw(st.sampled_from(list(tensor_kinds)), label="tensor kind"), True)
              for _ in range(draw(st.integers(1, 3), label="tensors"))]
    if all(t.kind == B for t in strong):
        strong[0] = T(I, True)
    weak = [T(draw(st.sampled_from(list(number_kinds)), label="number kind"), False)
            for _ in range(draw(st.integers(0, 2), label="numbers"))]
    params = []
    for k, t in enumerate(strong + weak):
        param = Param("abcdefg"[k], t)
        if not t.strong:
            if b.chance(3):
                param.annotation = KIND_NAMES[t.kind]
            if b.chance(2) or (params and params[-1].default is not None):
                param.default, _ = b.literal(t, PARAM_BOUND)
        params.append(param)
    constants = {}
    b.emit(0, "import math")
    b.emit(0, "import tritonize.math as tm")
    for k in range(draw(st.integers(0, 2), label="constants")):
        t = T(draw(st.sampled_from(list(number_kinds))), False)
        text, bound = b.literal(t, PARAM_BOUND)
        constants[f"K{k}"] = (t, bound)
        b.emit(0, f"K{k} = {text}")
    variables = {p.name: Var(p.type, PARAM_BOUND if p.type.kind == I else (1 if p.type.kind == B else 0))
                 for p in params}
    main_scope = Scope(variables, [], constants)
    helpers = []
    for k in range(draw(st.integers(0, max_helpers), label="helpers")):
        helpers.append(b.helper(k, helpers, constants, main_scope))
    main_scope.helpers = helpers
    outs = [b.pick([x for x in TYPES if x.strong and main_scope.available(x)], label="result type")
            for _ in range(1 + b.chance(4))]
    closure = b.chance(4)
    indent = 1
    b.emit(0, "")
    if closure:  # the function reads constants from an enclosing function
        b.emit(0, "def make():")
        b.emit(1, "C0 = 0.25")
        b.emit(1, "C1 = 3")
        main_scope.constants = dict(constants, C0=(T(F, False), 0), C1=(T(I, False), 3))
        indent = 2
        b.uses.add("closure")
    signature = []
    for p in params:
        text = p.name + (f": {p.annotation}" if p.annotation else "")
        if p.default is not None:
            text += f" = {p.default}" if p.annotation else f"={p.default}"
        signature.append(text)
    b.emit(indent - 1, f"def prog({', '.join(signature)}):")
    b.function_body(main_scope, outs, indent)
    if closure:
        b.emit(1, "return prog")
        b.emit(0, "")
        b.emit(0, "prog = make()")
    return Program("\n".join(b.lines) + "\n", "prog", params, outs, b.exact, b.uses)

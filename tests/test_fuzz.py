"""The fuzzer: random scalar programs (tests/program_strategies.py) compiled with @pointwise
and compared element by element with the same source run as plain Python.

Each program is written to a real file (so @pointwise reads its source like a user's), executed
twice: once with the real `@pointwise`, once as plain Python. Where Python and torch differ on
purpose, the plain run takes torch's side: `pointwise` is the identity, `min`/`max` propagate
NaN (torch.minimum), math.floor/ceil/trunc of a float stay floats (torch.floor keeps -0.0 and
inf where Python returns an int or raises), and a float `%` that gives zero gives it the
dividend's sign (torch.remainder's) where Python gives the divisor's. Tensors are float64, int64 and bool, and Python
numbers, so results compare exactly:

- int and bool outputs: equal, and the output dtype is the one the program's types predict;
- float outputs of an *exact* program (only correctly rounded operations: Triton's interpreter
  runs them through numpy, CUDA kernels compile them without fma contraction): equal bit for
  bit, sign of zero included;
- otherwise (transcendental functions, `**`): within 1e-9 relative, or else within what Python
  itself gives when the float inputs move by 1e-12 (an element next to a discontinuity such as
  `floor` may round either way).

An element where plain Python raises (a math domain error, a division by zero drawn by chance,
an overflow) is not compared. Failing programs shrink to a minimal one; the failure prints its
source and the element's inputs (shrinking compiles every candidate: minutes, not seconds).

Budget: TRITONIZE_FUZZ_EXAMPLES programs per test (default 100 on the CPU, three tests: about
20 s on 2 cores; 50 on a GPU, which compiles each one); HYPOTHESIS_PROFILE=long runs 1000 each. The `ci` profile is derandomized (the
same programs every run); `dev` draws new ones and replays failures from its database.
"""
from __future__ import annotations

import ast
import builtins
import hashlib
import itertools
import math
import os
import tempfile
from pathlib import Path

import numpy
import pytest
import torch
from hypothesis import event as hypothesis_event
from hypothesis import given, note, settings
from hypothesis import strategies as st
from hypothesis.control import current_build_context
from hypothesis.errors import InvalidArgument

from conftest import DEVICE
from program_strategies import B, F, I, PARAM_BOUND, programs
from tritonize import pointwise

_LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
# a GPU compiles each program (about a second): half the programs there, unless told
EXAMPLES = int(os.environ.get("TRITONIZE_FUZZ_EXAMPLES") or (1000 if _LONG else 50 if DEVICE == "cuda" else 100))
SOURCES = Path(tempfile.mkdtemp(prefix="tritonize-fuzz-"))
DTYPES = {F: torch.float64, I: torch.int64, B: torch.bool}
RELATIVE, ABSOLUTE, NUDGE = 1e-9, 1e-12, 1e-12


def event(value: str):
    """hypothesis.event, and nothing outside a Hypothesis test."""
    try:
        current_build_context()
    except InvalidArgument:
        return
    hypothesis_event(value)


def _nan_min(*values):
    """min() as torch.minimum: a NaN anywhere gives NaN."""
    if any(isinstance(v, float) and v != v for v in values):
        return math.nan
    return builtins.min(*values)


def _nan_max(*values):
    if any(isinstance(v, float) and v != v for v in values):
        return math.nan
    return builtins.max(*values)


def _float_rounding(name):
    """math.floor/ceil/trunc as torch has them: a float stays a float (sign of zero, inf, nan
    kept) where Python returns an int; an int stays the same int."""
    rounding = getattr(math, name)

    def rounded(x):
        if not isinstance(x, float):
            return rounding(x)
        if not math.isfinite(x):
            return x
        return math.copysign(float(rounding(x)), x)
    return rounded


def _torch_remainder(a, b):
    """a % b as torch.remainder (which tritonize follows) gives it: Python's, but for a float zero,
    which takes the dividend's sign (fmod's) where Python gives it the divisor's (1.0 % -0.5 is -0.0
    in Python, 0.0 in torch): the sign of such a zero reaches other outputs (copysign(1, a % b))."""
    result = a % b
    if result == 0 and isinstance(result, float):
        return math.copysign(0.0, a)
    return result


class _TorchRemainder(ast.NodeTransformer):
    """The plain run's `x % y` calls _torch_remainder (the programs write no `%=`: their augmented
    assignments are + - *)."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, ast.Mod):
            return node
        return ast.copy_location(ast.Call(ast.Name("_torch_remainder", ast.Load()), [node.left, node.right], []), node)


PLAIN_MATH = type(math)("math")
PLAIN_MATH.__dict__.update({k: v for k, v in vars(math).items() if not k.startswith("__")})
PLAIN_MATH.__dict__.update({name: _float_rounding(name) for name in ("floor", "ceil", "trunc")})


def load(program):
    """(the @pointwise function, the plain-Python function) from one file of source."""
    digest = hashlib.sha256(program.source.encode()).hexdigest()[:12]
    path = SOURCES / f"fuzz_{digest}.py"
    path.write_text(program.source)
    code = compile(program.source, str(path), "exec")
    compiled = {"__name__": f"fuzz_{digest}", "pointwise": pointwise}
    exec(code, compiled)
    plain = {"__name__": f"fuzz_{digest}_plain", "pointwise": lambda fn: fn, "min": _nan_min, "max": _nan_max,
             "_torch_remainder": _torch_remainder}
    tree = ast.fix_missing_locations(_TorchRemainder().visit(ast.parse(program.source)))
    exec(compile(tree, str(path), "exec"), plain)
    plain["math"] = PLAIN_MATH  # read when the function runs
    return pointwise(compiled[program.name]), plain[program.name]


# -- inputs -------------------------------------------------------------------------------------

def float_values(rng, n, specials):
    """Mostly moderate values, with integers, halves, zeros of both signs, large and tiny
    magnitudes, and (when `specials`) infinities and NaN."""
    kind = rng.integers(0, 10, n)
    values = rng.uniform(-5, 5, n)
    integers = rng.integers(-4, 5, n).astype(float)
    values = numpy.where(kind == 0, integers, values)
    values = numpy.where(kind == 1, integers / 2, values)
    values = numpy.where(kind == 2, rng.choice([1e6, -3e7, 1e-6, -2.5e-8, 123456.789, 1e15], n), values)
    values = numpy.where(kind == 3, rng.choice([0.0, -0.0], n), values)
    if specials:
        values = numpy.where(kind == 4, rng.choice([math.inf, -math.inf, math.nan], n), values)
    return values


def tensor_for(param, shape, rng, specials, device):
    n = math.prod(shape)
    if param.type.kind == F:
        values = torch.from_numpy(float_values(rng, n, specials))
    elif param.type.kind == I:
        values = torch.from_numpy(rng.integers(-PARAM_BOUND, PARAM_BOUND + 1, n))
    else:
        values = torch.from_numpy(rng.integers(0, 2, n).astype(bool))
    return values.reshape(shape).to(device)


def number_for(param, rng, specials):
    if param.type.kind == F:
        return float(float_values(rng, 1, specials)[0])
    if param.type.kind == I:
        return int(rng.integers(-PARAM_BOUND, PARAM_BOUND + 1))
    return bool(rng.integers(0, 2))


@st.composite
def calls(draw, program, device):
    """(positional args, keyword args, the broadcast shape) for one call of `program`."""
    rng = numpy.random.default_rng(draw(st.integers(0, 2**32 - 1), label="seed"))
    specials = draw(st.booleans(), label="inf/nan inputs")
    if draw(st.booleans(), label="2-d"):
        shapes = [(3, 7), (7,), (3, 1), (1, 7)]
    else:
        shapes = [(draw(st.sampled_from([1, 5, 24])),)]
    args, kwargs, by_keyword = [], {}, False
    for param in program.params:
        if param.type.strong:
            value = tensor_for(param, draw(st.sampled_from(shapes), label="shape"), rng, specials, device)
            if value.dim() == 2 and draw(st.booleans(), label="transposed"):
                value = value.t().contiguous().t()
        else:
            if param.default is not None and draw(st.booleans(), label="default"):
                by_keyword = True
                continue
            value = number_for(param, rng, specials)
        if by_keyword or (param.default is not None and draw(st.booleans(), label="keyword")):
            by_keyword = True
            kwargs[param.name] = value
        else:
            args.append(value)
    tensors = [v for v in args + list(kwargs.values()) if isinstance(v, torch.Tensor)]
    return args, kwargs, tuple(torch.broadcast_shapes(*[t.shape for t in tensors]))


# -- the reference and the comparison -------------------------------------------------------------

def elements(value, shape):
    """The value at each element of the broadcast shape, as Python numbers."""
    if isinstance(value, torch.Tensor):
        return value.cpu().expand(shape).reshape(-1).tolist()
    return itertools.repeat(value)


def python_results(plain, index_args, index_kwargs, outputs):
    try:
        result = plain(*index_args, **index_kwargs)
    except (ArithmeticError, ValueError):
        return None  # Python raises where torch gives inf or nan: not compared
    return result if outputs > 1 else (result,)


def nudged(values, rng):
    """The float inputs moved by NUDGE (relative), one at a time each way, then all at once by
    1 to 32 NUDGEs each: an ill-conditioned element (the remainder of a 1e60 dividend, whose
    last ulp decides it) takes values across its whole range only under moves of several sizes."""
    floats = [k for k, v in enumerate(values) if isinstance(v, float) and math.isfinite(v) and v != 0]
    moves = [{k: sign} for k in floats for sign in (-1, 1)]
    moves += [{k: rng.choice([-1, 1]) * 2.0 ** rng.integers(0, 6) for k in floats} for _ in range(16)]
    for move in moves:
        yield [v * (1 + NUDGE * move[k]) if k in move else v for k, v in enumerate(values)]


def explained_by_nudges(got, plain, args, kwargs, k, outputs):
    """Is `got` within what Python gives when the float inputs move by a hair? A few samples of
    an answer that the hair moves across a range (an ill-conditioned element) seldom reach the
    range's ends, so `got` may stand outside what they reached by as much as they spread."""
    names = list(kwargs)
    flat = list(args) + [kwargs[n] for n in names]
    seen = []
    for values in nudged(flat, numpy.random.default_rng(0)):
        result = python_results(plain, values[:len(args)], dict(zip(names, values[len(args):])), outputs)
        if result is not None:
            seen.append(float(result[k]))
    if got != got:
        return any(v != v for v in seen)
    finite = [v for v in seen if v == v]
    if not finite:
        return False
    low, high = min(finite), max(finite)
    slack = RELATIVE * max(abs(low), abs(high), 1.0) + (high - low)
    return low - slack <= got <= high + slack


def agree(got, want, kind, strict, signed_zeros=True) -> bool:
    if kind != F:
        return got == want
    want_value = want
    try:
        want = float(want)
    except OverflowError:
        return True  # an exact Python int beyond float64: not comparable
    if got != got or want != want:
        return got != got and want != want
    if strict:
        # an int from Python (int(), a Python int param) has no sign of zero
        signed = signed_zeros and isinstance(want_value, float)
        return got == want and (not signed or math.copysign(1, got) == math.copysign(1, want))
    return math.isclose(got, want, rel_tol=RELATIVE, abs_tol=ABSOLUTE)


def check(program, fn, plain, args, kwargs, shape, device):
    results = fn(*args, **kwargs)
    results = results if len(program.outs) > 1 else (results,)
    for out, t in zip(results, program.outs):
        assert out.dtype == DTYPES[t.kind], f"dtype {out.dtype}, expected {DTYPES[t.kind]}"
        assert tuple(out.shape) == shape and out.device.type == device
    got = [out.cpu().reshape(-1).tolist() for out in results]
    columns = [elements(a, shape) for a in args]
    names = list(kwargs)
    keyword_columns = [elements(kwargs[n], shape) for n in names]
    strict = program.exact
    # the sign of zero must match (the plain run's remainder gives a zero torch's sign: _torch_remainder)
    signed_zeros = True
    compared = 0
    for index, row in enumerate(zip(range(math.prod(shape)), *columns, *keyword_columns)):
        values = row[1:]
        index_args, index_kwargs = values[:len(args)], dict(zip(names, values[len(args):]))
        want = python_results(plain, index_args, index_kwargs, len(program.outs))
        if want is None:
            continue
        compared += 1
        for k, t in enumerate(program.outs):
            g = got[k][index]
            if agree(g, want[k], t.kind, strict, signed_zeros):
                continue
            # an int output of an inexact program (int(pow(2, 4.0)): 15 from a result an ulp low)
            # is as ill-conditioned at its integer boundaries as a float one
            if not strict and t.kind in (F, I) and explained_by_nudges(g, plain, index_args, index_kwargs, k,
                                                                       len(program.outs)):
                event("a mismatch explained by nudged inputs")
                continue
            raise AssertionError(
                f"output {k} at element {index}: tritonize gives {g!r}, plain Python {want[k]!r}\n"
                f"inputs: {index_args} {index_kwargs}\n"
                f"({'exact' if strict else 'tolerant'} comparison; source below)\n{program.source}")
    event("elements compared: " + ("none" if compared == 0 else "some" if compared < math.prod(shape) else "all"))


def run_program(program, data, device):
    note(program.source)
    for use in sorted(program.uses):
        event(use)
    fn, plain = load(program)
    args, kwargs, shape = data.draw(calls(program, device), label="call")
    check(program, fn, plain, args, kwargs, shape, device)


@settings(max_examples=EXAMPLES)
@given(program=programs(), data=st.data())
def test_mixed_programs(program, data, device):
    """Float64, int64 and bool tensors with Python numbers, every construct of the subset."""
    run_program(program, data, device)


@settings(max_examples=EXAMPLES)
@given(program=programs(tensor_kinds=[I], number_kinds=[I]), data=st.data())
def test_int_programs(program, data, device):
    """Only ints: `//`, `%`, shifts and bitwise operations, floor semantics, exact results."""
    run_program(program, data, device)


@settings(max_examples=EXAMPLES)
@given(program=programs(tensor_kinds=[F], number_kinds=[F]), data=st.data())
def test_float_programs(program, data, device):
    """Only float64: math calls, float `//` and `%`, NaN, infinities and signed zeros."""
    run_program(program, data, device)


def test_the_checker_catches_a_wrong_answer(device):
    """A fuzzer that cannot fail proves nothing: feed it a program whose compiled form is
    swapped for another, and see it complain."""
    from program_strategies import Param, Program, T

    source = "import math\n\ndef prog(a):\n    return a // 2.0\n"
    program = Program(source, "prog", [Param("a", T(F, True))], [T(F, True)], exact=True)
    fn, plain = load(program)
    wrong = pointwise(lambda_free_trunc_div)
    x = torch.tensor([-3.0, 3.0], dtype=torch.float64, device=device)
    check(program, fn, plain, [x], {}, (2,), device)
    with pytest.raises(AssertionError, match="plain Python -2.0"):
        check(program, wrong, plain, [x], {}, (2,), device)


def test_nudges_explain_ill_conditioned_elements_and_nothing_more():
    """Three long fuzz draws: pow(n, hypot(100, a)) % d is the remainder of 5.5e47 (n = 3) or
    1.8e60 (n = 4) by a divisor under 20, which the last ulp of pow decides (tritonize's
    portable pow is 1 ulp off there). Moves of the inputs by 1 to 32 NUDGEs take Python's own
    answer across much of that range, so tritonize's is within what the inputs determine; a
    well-conditioned program stays held to RELATIVE."""
    def clipped(a):
        return int(max(min(a, 1000.0), -1000.0))

    def ill(a):
        return math.pow(abs(-clipped(a)), math.hypot(100.0, a)) % (abs(a) + 1)

    def ill_too(a, b):
        b = 2 // (abs(-b) + 1)
        return math.pow(abs(-clipped(a)), math.hypot(100.0, a)) % (abs((a if clipped(a) else 1.5) * max(a, b)) + 1)

    def well(a):
        return math.pow(3.0, a / 40.0) % (abs(a) + 1)

    a = -3.757167235004361
    assert explained_by_nudges(2.3017363705209384, ill, [a], {}, 0, 1)
    assert explained_by_nudges(2.6024860988035323, ill, [a], {}, 0, 1)
    assert explained_by_nudges(8.0, ill_too, [4.0, 2.0], {}, 0, 1)  # Python: 5.0
    assert explained_by_nudges(0.07352551162808751, ill_too, [3.3185038266433686, 2.0], {}, 0, 1)  # 4.53
    assert not explained_by_nudges(ill(a) + 20.0, ill, [a], {}, 0, 1)  # far beyond the divisor
    assert explained_by_nudges(well(a) * (1 + 1e-12), well, [a], {}, 0, 1)
    assert not explained_by_nudges(well(a) * (1 + 1e-6), well, [a], {}, 0, 1)


def lambda_free_trunc_div(a):
    return math.trunc(a / 2.0)  # C's truncation, where Python floors

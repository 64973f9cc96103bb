"""Hardening (issue 7): the rest of the bad-input catalogue (tests/test_errors.py holds the
first part), NaN/inf scalars and Python ints that do not fit a tensor's dtype, errors that
leave no half-written output and no broken cache entry, the cache under several processes,
damaged files and unusable directories, calls from many threads, and tensors whose element
count or offsets pass 2**31.

Huge-tensor tests that need a GPU with enough free memory are skipped elsewhere (the only
skips here); on the CPU the index-width choice is unit-tested, and a kernel with offsets past
2**31 runs through the interpreter on a lazily allocated buffer.
"""
from __future__ import annotations

import ast
import gc
import math
import os
import random
import subprocess
import sys
import textwrap
import threading
import time
import warnings
from pathlib import Path

import pytest
import torch

import tritonize
from tritonize import (ArgumentCountError, CallError, ControlFlowError, DSLError, DtypeError, OutArgumentError,
                       RecursiveHelper, ScalarTypeError, UnknownName, UnsupportedCall, UnsupportedSyntax, call,
                       cache, pointwise)
from source_markers import MarkedSource

SOURCE = MarkedSource(__file__)
marked_line, assert_points_at = SOURCE.line, SOURCE.assert_points_at


def sentinel(shape=(3,), dtype=torch.float32, device="cpu") -> torch.Tensor:
    return torch.full(shape, -7, dtype=dtype, device=device)


def assert_untouched(*tensors: torch.Tensor):
    for t in tensors:
        assert torch.equal(t.cpu(), torch.full(t.shape, -7, dtype=t.dtype)), f"out= was written: {t}"


def cache_files(prefix: str = "") -> set:
    """Files in the cache whose names start with `prefix` (a module's own, or its temporary
    `.name...tmp`): tests running beside this one (pytest -n) share the cache directory."""
    directory = tritonize.cache_dir()
    if not directory.exists():
        return set()
    return {p.name for p in directory.iterdir() if p.name.lstrip(".").startswith(prefix)}


# ================================================================================================
# Constructs not in test_errors.py's catalogue, refused when pointwise() runs on them
# ================================================================================================

def helper_with_default(v, k=1.0):
    return v * k


def nested_async_def(x):
    async def inner():  # @nested_async_def
        return 1
    return x


def class_definition(x):
    class Inner:  # @class_definition
        pass
    return x


def generator_function(x):
    yield x  # @generator_function


def match_statement(x):
    match x:  # @match_statement
        case 1:
            return x
    return x


def try_star(x):
    try:  # @try_star
        y = x
    except* ValueError:
        y = x
    return y


def star_in_call(x):
    return max(*x)  # @star_in_call


def double_star_in_call(x):
    return helper_with_default(**x)  # @double_star_in_call


def matrix_product(x):
    return x @ x  # @matrix_product


def bytes_constant(x):
    return x + b"a"  # @bytes_constant


def none_constant(x):
    return None  # @none_constant


def ellipsis_constant(x):
    return ...  # @ellipsis_constant


def complex_literal(x):
    return x * 1j  # @complex_literal


def bare_annotation(x):
    y: float  # @bare_annotation
    return x


def nested_tuple_target(x):
    (a, b), c = (x, x), x  # @nested_tuple_target
    return a


def starred_target(x):
    a, *b = x, x  # @starred_target
    return a


def unpack_a_single_value(x):
    a, b = x  # @unpack_a_single_value
    return a


def unpack_too_many_values(x):
    a, b = x, x, x  # @unpack_too_many_values
    return a


def math_with_keyword(x):
    return math.log(x, base=2.0)  # @math_with_keyword


def immediate_lambda_call(x):
    return (lambda v: v)(x)  # @immediate_lambda_call


def tuple_in_a_ternary(x):
    return (x, x) if x > 0 else (x, x)  # @tuple_in_a_ternary


def set_comprehension(x):
    return {v for v in x}  # @set_comprehension


def torch_function(x):
    return torch.exp(x)  # @torch_function


def module_string(x):
    return x + os.sep  # @module_string


def call_a_math_constant(x):
    return math.e(x)  # @call_a_math_constant


def builtin_round_digits(x):
    return round(x, 2)  # @builtin_round_digits


def builtin_pow(x):
    return pow(x, 2)  # @builtin_pow


def builtin_range(x):
    return range(x)  # @builtin_range


def walrus_in_a_condition(x):
    if (y := x) > 0:  # @walrus_in_a_condition
        return y
    return x


def helper_with_unknown_keyword(x):
    return helper_with_default(x, bogus=1.0)  # @helper_with_unknown_keyword


def unknown_math_constant(x):
    return x * math.tau2  # @unknown_math_constant


def unknown_name_on_a_dead_branch(x):
    if False:
        return x + nowhere_defined  # @unknown_name_on_a_dead_branch
    return x


def unknown_name_in_a_condition(x):
    if x > threshold_undefined:  # @unknown_name_in_a_condition
        return x
    return -x


def first_of_three(v):
    return second_of_three(v) + 1


def second_of_three(v):
    return third_of_three(v) * 2


def third_of_three(v):
    return first_of_three(v - 1)  # @third_of_three


def calls_a_three_cycle(x):
    return first_of_three(x)


MORE_CONSTRUCTS = [
    (nested_async_def, UnsupportedSyntax, "async def", "async"),
    (class_definition, UnsupportedSyntax, "class", "class"),
    (generator_function, UnsupportedSyntax, "yield", "yield"),
    (match_statement, UnsupportedSyntax, "match", "match"),
    (try_star, UnsupportedSyntax, "try", "try"),
    (star_in_call, UnsupportedSyntax, "*x", "star"),
    (double_star_in_call, UnsupportedSyntax, "x)", "**kwargs"),
    (matrix_product, UnsupportedSyntax, "x @ x", "MatMult"),
    (bytes_constant, UnsupportedSyntax, 'b"a"', "bytes"),
    (none_constant, UnsupportedSyntax, "None", "NoneType"),
    (ellipsis_constant, UnsupportedSyntax, "...", "ellipsis"),
    (complex_literal, UnsupportedSyntax, "1j", "complex"),
    (bare_annotation, UnsupportedSyntax, "y: float", "annotation"),
    (nested_tuple_target, UnsupportedSyntax, "(a, b)", "plain names"),
    (starred_target, UnsupportedSyntax, "a, *b", "plain names"),
    (unpack_a_single_value, ControlFlowError, "a, b = x", "unpack"),
    (unpack_too_many_values, ControlFlowError, "a, b = x, x, x", "3 values into 2"),
    (math_with_keyword, UnsupportedCall, "math.log", "math.log"),
    (immediate_lambda_call, UnsupportedSyntax, "(lambda", "named functions"),
    (tuple_in_a_ternary, UnsupportedSyntax, "(x, x) if", "tuples"),
    (set_comprehension, UnsupportedSyntax, "{v for", "comprehensions"),
    (torch_function, UnsupportedCall, "torch.exp", "torch.exp"),
    (module_string, UnsupportedSyntax, "os.sep", "os.sep"),
    (call_a_math_constant, UnsupportedCall, "math.e", "math.e"),
    (builtin_round_digits, UnsupportedCall, "round(x, 2)", "round() takes one argument"),
    (builtin_pow, UnsupportedCall, "pow", "'pow'"),
    (builtin_range, UnsupportedCall, "range", "'range'"),
    (walrus_in_a_condition, UnsupportedSyntax, "y :=", "walrus"),
    (helper_with_unknown_keyword, UnsupportedCall, "helper_with_default(x, bogus", "bogus"),
    (unknown_math_constant, UnsupportedSyntax, "math.tau2", "math.tau2"),
    (unknown_name_on_a_dead_branch, UnknownName, "nowhere_defined", "nowhere_defined"),
    (unknown_name_in_a_condition, UnknownName, "threshold_undefined", "threshold_undefined"),
]


@pytest.mark.parametrize("fn,error,snippet,words", MORE_CONSTRUCTS, ids=[c[0].__name__ for c in MORE_CONSTRUCTS])
def test_more_constructs_refused_when_decorated(fn, error, snippet, words):
    with pytest.raises(error) as info:
        pointwise(fn)
    assert isinstance(info.value, DSLError)
    assert_points_at(info.value, fn.__name__, snippet)
    assert words in info.value.message, info.value.message


def test_recursion_through_three_helpers_names_the_cycle():
    with pytest.raises(RecursiveHelper) as info:
        pointwise(calls_a_three_cycle)
    assert_points_at(info.value, "third_of_three", "first_of_three(v - 1)")
    for helper in ("first_of_three", "second_of_three", "third_of_three"):
        assert helper in info.value.message, info.value.message


@pointwise
def abs_of_two(x):
    return abs(x, x)  # @abs_of_two


@pointwise
def min_of_one(x):
    return min(x)  # @min_of_one


@pointwise
def int_with_a_base(x):
    return int(x, 2)  # @int_with_a_base


@pytest.mark.parametrize("fn,snippet", [(abs_of_two, "abs("), (min_of_one, "min("), (int_with_a_base, "int(")],
                         ids=["abs", "min", "int"])
def test_builtin_arity_errors_point_at_the_call(fn, snippet, device):
    out = sentinel(device=device)
    with pytest.raises(ScalarTypeError) as info:
        fn(torch.ones(3, device=device), out=out)
    assert_points_at(info.value, fn.__name__, snippet)
    assert_untouched(out)


# ================================================================================================
# Calls: arguments, keywords, dtypes
# ================================================================================================

@pointwise
def add2(x, y):
    return x + y


@pointwise
def keyword_only(x, *, scale=2.0):
    return x * scale


def test_wrong_arguments_without_out(device):
    x = torch.ones(3, device=device)
    for args, kwargs, words in [((x,), {}, "'y'"), ((x, x), {"z": 1.0}, "'z'"), ((), {"y": x}, "'x'")]:
        with pytest.raises(ArgumentCountError) as info:
            add2(*args, **kwargs)
        assert "add2" in str(info.value) and words in str(info.value), str(info.value)


def test_keyword_only_parameter_given_by_position(device):
    x = torch.ones(3, device=device)
    torch.testing.assert_close(keyword_only(x, scale=3.0), x * 3)
    with pytest.raises(ArgumentCountError):
        keyword_only(x, 3.0)


@pointwise
def shifted_by(x, k: int):
    return x + k


@pointwise
def scaled_by(x, s: float):
    return x * s


@pytest.mark.parametrize("fn,value", [(shifted_by, math.nan), (shifted_by, math.inf), (shifted_by, 1e300),
                                      (scaled_by, 2**2000)], ids=["int-nan", "int-inf", "int-1e300", "float-2**2000"])
def test_a_number_its_annotation_cannot_convert_is_a_call_error(fn, value, device):
    x = torch.ones(3, device=device)
    name = "'k'" if fn is shifted_by else "'s'"
    out = sentinel(device=device)
    with pytest.raises(CallError) as info:
        fn(x, value, out=out)
    assert name in str(info.value), str(info.value)
    assert_untouched(out)
    fn(x, type(value)(2))  # a call of the same signature is memoized: its launch converts the number
    with pytest.raises(CallError) as info:
        fn(x, value)
    assert name in str(info.value), str(info.value)


MORE_UNSUPPORTED_DTYPES = [getattr(torch, n) for n in ("complex32", "float8_e4m3fnuz", "float8_e5m2fnuz")
                           if hasattr(torch, n)]


@pytest.mark.parametrize("dtype", MORE_UNSUPPORTED_DTYPES, ids=str)
def test_more_unsupported_dtypes_in_and_out(dtype):
    """Refused by name, whether an input, a 0-d input or out=, before anything is written
    (CPU tensors: some of these dtypes have no kernels on every device)."""
    x = torch.zeros(3, dtype=dtype)
    out = sentinel()
    for args in [(x, 1), (torch.ones(3), x[0])]:
        with pytest.raises(DtypeError) as info:
            add2(*args, out=out)
        assert str(dtype).replace("torch.", "") in str(info.value)
        assert_untouched(out)
    with pytest.raises((DtypeError, OutArgumentError)) as info:
        add2(torch.ones(3, dtype=torch.int32), 1, out=torch.zeros(3, dtype=dtype))
    assert str(dtype).replace("torch.", "") in str(info.value)


@pointwise
def mul2(x, y):
    return x * y


@pointwise
def less(x, y):
    return x < y


@pointwise
def equal(x, y):
    return x == y


@pointwise
def sub2(x, y):
    return x - y


INT_OVERFLOWS = [(torch.int8, 1000), (torch.int8, -1000), (torch.int8, 2**40), (torch.uint8, -1),
                 (torch.uint8, 256), (torch.uint8, 300), (torch.int16, 2**63 - 1), (torch.int32, 2**40),
                 (torch.int32, -2**63)]


@pytest.mark.parametrize("dtype,value", INT_OVERFLOWS, ids=[f"{d}-{v}" for d, v in INT_OVERFLOWS])
def test_python_int_beyond_the_tensor_dtype_wraps_like_torch(dtype, value, device):
    """torch casts a Python int to the tensor's dtype (it is weak), wrapping modulo 2**bits:
    int8 + 1000 is int8 + (-24). tritonize gives exactly torch's dtype and values."""
    x = torch.tensor([-100, -1, 0, 1, 2, 100], device=device).to(dtype)
    for ours, theirs in [(add2, torch.add), (mul2, torch.mul), (sub2, torch.sub), (less, torch.lt),
                         (equal, torch.eq)]:
        expected = theirs(x, value)
        got = ours(x, value)
        assert got.dtype == expected.dtype and torch.equal(got, expected), f"{ours.__name__}: {got} vs {expected}"


@pointwise
def divide(x, y):
    return x / y


@pointwise
def floor_divide(x, y):
    return x // y


@pointwise
def remainder(x, y):
    return x % y


@pointwise
def maximum(x, y):
    return max(x, y)


@pointwise
def power(x, y):
    return x ** y


@pointwise
def select(x, y):
    return x if x > 0 else y


@pointwise
def exp_of_product(x, y):
    return math.exp(x * y)


@pointwise
def scaled(x, s: float):
    return x * s + s


NONFINITE_OPS = [
    (add2, torch.add), (sub2, torch.sub), (mul2, torch.mul), (divide, torch.div),
    (floor_divide, torch.floor_divide), (remainder, torch.remainder), (less, torch.lt), (equal, torch.eq),
    (maximum, lambda x, v: torch.maximum(x, torch.tensor(v, dtype=x.dtype, device=x.device))),
    (power, torch.pow),
    (select, lambda x, v: torch.where(x > 0, x, torch.tensor(v, dtype=x.dtype, device=x.device))),
    (exp_of_product, lambda x, v: torch.exp(x * v)),
    (scaled, lambda x, v: x * v + v),
]
NONFINITE = [math.nan, math.inf, -math.inf]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("value", NONFINITE, ids=["nan", "inf", "-inf"])
def test_nan_and_inf_scalars_compute_like_torch(dtype, value, device):
    """NaN and infinities are valid Python floats: no error, torch's values (IEEE rules,
    NaN-propagating max, a NaN exponent, inf * 0, ...)."""
    x = torch.tensor([-2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, math.inf, -math.inf, math.nan],
                     dtype=dtype, device=device)
    for ours, theirs in NONFINITE_OPS:
        expected = theirs(x, value)
        got = ours(x, value)
        assert got.dtype == expected.dtype, f"{ours.__name__}: {got.dtype} vs {expected.dtype}"
        torch.testing.assert_close(got, expected, equal_nan=True, rtol=0, atol=0,
                                   msg=lambda m: f"{ours.__name__}(x, {value}):\n{m}\n{got}\n{expected}")


@pytest.mark.parametrize("value", NONFINITE, ids=["nan", "inf", "-inf"])
def test_nan_and_inf_scalars_with_int_tensors_and_on_the_left(value, device):
    """An int tensor meeting a non-finite Python float computes in float32, as torch does;
    the scalar on the left works too."""
    x = torch.tensor([-3, -1, 0, 1, 2, 7], dtype=torch.int32, device=device)
    for ours, theirs in [(add2, torch.add), (mul2, torch.mul), (divide, torch.div), (less, torch.lt),
                         (floor_divide, torch.floor_divide), (remainder, torch.remainder)]:
        expected = theirs(x, value)
        got = ours(x, value)
        assert got.dtype == expected.dtype
        torch.testing.assert_close(got, expected, equal_nan=True, rtol=0, atol=0)
    f = torch.tensor([-2.0, 0.0, 3.0, math.nan], device=device)
    for ours, theirs in [(add2, torch.add), (sub2, torch.sub), (divide, torch.div), (less, torch.lt)]:
        expected = theirs(torch.tensor(value, device=device), f)
        got = ours(value, f)
        torch.testing.assert_close(got, expected, equal_nan=True, rtol=0, atol=0)


@pointwise
def minimum(x, y):
    return min(x, y)


def test_min_and_max_of_signed_zeros_return_the_first_like_python(device):
    """Python's min(-0.0, 0.0) is -0.0 and min(0.0, -0.0) is 0.0 (the first on ties); so is
    torch.minimum on the CPU, while torch's CUDA kernel orders -0.0 below 0.0. tritonize
    keeps Python's rule on every device."""
    a = torch.tensor([-0.0, 0.0, -0.0, 0.0], dtype=torch.float64, device=device)
    b = torch.tensor([0.0, -0.0, -0.0, 0.0], dtype=torch.float64, device=device)

    def signs(values):
        return [math.copysign(1.0, v) for v in values]

    pairs = list(zip(a.tolist(), b.tolist()))
    assert signs(minimum(a, b).tolist()) == signs([min(x, y) for x, y in pairs])
    assert signs(maximum(a, b).tolist()) == signs([max(x, y) for x, y in pairs])
    assert signs(minimum(a, b).tolist()) == [-1.0, 1.0, -1.0, 1.0]


# ================================================================================================
# No half-written output, no broken cache entry
# ================================================================================================

@pointwise
def invert(x):
    return ~x


def test_a_type_error_writes_nothing_to_the_cache(device):
    before = cache_files("invert")
    out = sentinel(device=device)
    with pytest.raises(ScalarTypeError):
        invert(torch.ones(3, device=device), out=out)
    assert_untouched(out)
    assert cache_files("invert") == before
    assert not invert.specializations


def test_an_interrupted_write_leaves_no_file_and_the_next_call_works(device, monkeypatch, tmp_path):
    """A KeyboardInterrupt (or a full disk) in the middle of writing a module: no partial
    file, no temporary file, no entry; the next call generates the module whole."""
    # an empty cache: a module an earlier run left in a reused TRITONIZE_CACHE_DIR is not written
    monkeypatch.setenv("TRITONIZE_CACHE_DIR", str(tmp_path))

    @pointwise
    def interrupted(x):
        return x * 3 - 1

    real_fdopen = os.fdopen

    class Exploding:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, text):
            self.handle.write(text[: len(text) // 2])
            raise KeyboardInterrupt

    x = torch.arange(4.0, device=device)
    out = sentinel((4,), device=device)
    with monkeypatch.context() as exploding:
        exploding.setattr(cache.os, "fdopen", lambda fd, mode: Exploding(real_fdopen(fd, mode)))
        with pytest.raises(KeyboardInterrupt):
            interrupted(x, out=out)
    assert_untouched(out)
    assert cache_files("interrupted") == set()
    assert not interrupted.specializations
    torch.testing.assert_close(interrupted(x, out=out), x * 3 - 1)
    path = interrupted.source_path(x)
    assert path.stem.endswith(cache.content_hash(path.read_text()))


def test_a_failed_import_is_not_remembered(device, monkeypatch):
    @pointwise
    def import_fails_once(x):
        return x + 0.5

    real = cache.import_module
    calls = []

    def failing(path):
        calls.append(path)
        if len(calls) == 1:
            raise ImportError("simulated")
        return real(path)

    monkeypatch.setattr(cache, "import_module", failing)
    x = torch.arange(3.0, device=device)
    with pytest.raises(ImportError):
        import_fails_once(x)
    assert not import_fails_once.specializations
    torch.testing.assert_close(import_fails_once(x), x + 0.5)
    assert len(calls) == 2


# ================================================================================================
# The cache: several processes, damaged files, unusable directories, changed helpers
# ================================================================================================

SPAWNED = textwrap.dedent('''
    import multiprocessing, sys, torch
    from tritonize import pointwise

    SCALE = 1.5

    def shifted(v):
        return v - 0.25

    @pointwise
    def work(x, y):
        return shifted(x) * SCALE + y

    @pointwise
    def pair(x, k: int):
        return x // k, x % k

    def calls():
        f = torch.arange(-12.0, 12.0).reshape(4, 6)
        i = torch.arange(-12, 12, dtype=torch.int32).reshape(4, 6)
        return [(work, (f, f)), (work, (f.t(), 2.0)), (work, (i, i.double())), (pair, (i, 5)),
                (pair, (f.t(), 3)), (work, (f[::2], f[1::2]))]

    def expected():
        return [(x - 0.25) * SCALE + y for fn, (x, y) in calls() if fn is work]

    def worker(barrier, queue):
        barrier.wait()  # every process generates the same modules at the same moment
        results, paths = [], []
        for fn, args in calls():
            results.append(fn(*args))
            paths.append(str(fn.source_path(*args)))
        queue.put((paths, [[r.tolist() for r in (res if isinstance(res, tuple) else (res,))] for res in results]))

    if __name__ == "__main__":
        context = multiprocessing.get_context("spawn")
        barrier, queue = context.Barrier({count}), context.Queue()
        processes = [context.Process(target=worker, args=(barrier, queue)) for _ in range({count})]
        for p in processes:
            p.start()
        answers = [queue.get(timeout=300) for _ in processes]
        for p in processes:
            p.join(timeout=60)
            assert p.exitcode == 0, p.exitcode
        paths = answers[0][0]
        for other_paths, other_results in answers:
            assert other_paths == paths, (other_paths, paths)
            assert other_results == answers[0][1]
        works = [r for (fn, _), r in zip(calls(), answers[0][1]) if fn is work]
        for got, want in zip(works, expected()):
            assert torch.equal(torch.tensor(got[0]), want.to(torch.float64).reshape(torch.tensor(got[0]).shape)), (got, want)
        print("\\n".join(sorted(set(paths))))
''')


def assert_whole_modules(directory: Path):
    """Every file is a module whose text matches the hash in its name; nothing else is left."""
    names = sorted(p.name for p in directory.iterdir() if p.name != "__pycache__")
    assert names and all(n.endswith(".py") for n in names), names
    for name in names:
        text = (directory / name).read_text()
        assert Path(name).stem.endswith(cache.content_hash(text)), name
        ast.parse(text)
    return names


def test_eight_spawned_processes_generate_the_same_modules_at_once(tmp_path):
    script = tmp_path / "spawned.py"
    script.write_text(SPAWNED.format(count=8))
    directory = tmp_path / "cache"
    env = dict(os.environ, TRITONIZE_CACHE_DIR=str(directory), TRITONIZE_TEST_DEVICE="cpu")
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    paths = done.stdout.split()
    names = assert_whole_modules(directory)
    assert sorted(Path(p).name for p in paths) == names  # one file per specialization, no strays


NEXT_PROCESS = textwrap.dedent('''
    import sys, torch
    sys.path.insert(0, {here!r})
    from hardening_module import affine
    x = torch.arange(-3.0, 3.0, 0.5)
    assert torch.equal(affine(x), x * {scale} - {one}), affine(x)
    print(affine.source_path(x))
''')

HARDENING_MODULE = '''
from tritonize import pointwise

SCALE = {scale}


def minus_one(v):
    return v - {one}


@pointwise
def affine(x):
    return minus_one(x * SCALE)
'''


def run_next_process(tmp_path, scale=2.0, one="1.0", env_extra=None):
    (tmp_path / "hardening_module.py").write_text(HARDENING_MODULE.format(scale=scale, one=one))
    env = dict(os.environ, TRITONIZE_CACHE_DIR=str(tmp_path / "cache"), **(env_extra or {}))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # let Python write bytecode wherever it would
    script = NEXT_PROCESS.format(here=str(tmp_path), scale=scale, one=one)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return Path(done.stdout.split()[-1])


def test_a_truncated_module_and_damaged_bytecode_are_replaced_by_the_next_process(tmp_path):
    """A module truncated by a crash is rewritten by the next process, which runs the right
    kernel. Python checks a .pyc only against its source's mtime and size, so a truncated
    .pyc (or one compiled from other text) would break or replace the kernel: generated
    modules are executed from their verified text instead."""
    import importlib.util
    import marshal

    path = run_next_process(tmp_path)
    good = path.read_bytes()
    path.write_bytes(good[: len(good) // 2])
    pyc = Path(importlib.util.cache_from_source(str(path)))
    pyc.parent.mkdir(exist_ok=True)

    def plant(code):  # a .pyc Python would accept for the file as it is now
        stat = path.stat()
        header = importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little") + \
            int(stat.st_mtime).to_bytes(4, "little") + (stat.st_size & 0xFFFFFFFF).to_bytes(4, "little")
        pyc.write_bytes(header + code)

    plant(marshal.dumps(compile("raise SystemExit(3)", str(path), "exec"))[:7])  # truncated
    assert run_next_process(tmp_path) == path
    assert path.read_bytes() == good
    plant(marshal.dumps(compile("def launch(*args, **kwargs): pass", str(path), "exec")))  # well-formed, wrong
    assert run_next_process(tmp_path) == path
    assert_whole_modules(path.parent)


def make_salted(salt):
    @pointwise
    def salted(x):
        return x * salt
    return salted


@pytest.mark.parametrize("damage", ["garbage", "empty", "invalid utf-8", "appended"])
def test_a_damaged_module_is_rewritten(damage, device):
    salt = random.random()
    x = torch.arange(3.0, device=device)
    path = make_salted(salt).source_path(x)
    good = path.read_bytes()
    path.write_bytes({"garbage": bytes(reversed(good)), "empty": b"", "appended": good + b"\nlaunch = None\n",
                      "invalid utf-8": good[:40] + b"\xff\xfe" + good[42:]}[damage])
    again = make_salted(salt)  # decorated again, as a new process would
    assert again.source_path(x) == path and path.read_bytes() == good
    torch.testing.assert_close(again(x), x * salt)


def test_a_changed_helper_or_constant_makes_a_new_module_never_a_stale_one(tmp_path):
    first = run_next_process(tmp_path, scale=2.0)
    new_constant = run_next_process(tmp_path, scale=3.0)  # asserts x * 3.0 - 1.0
    new_helper = run_next_process(tmp_path, scale=3.0, one="0.5")  # the helper changed
    assert len({first, new_constant, new_helper}) == 3
    assert len(assert_whole_modules(first.parent)) == 3


def test_a_helper_redefined_in_a_notebook_cell_gets_a_new_kernel(device):
    import linecache

    namespace = {"pointwise": pointwise}

    def cell(source, name):
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        exec(compile(source, name, "exec"), namespace)

    cell("def bump(v):\n    return v + 1\n", "<hardening-cell-1>")
    cell("@pointwise\ndef uses_bump(x):\n    return bump(x) * 2\n", "<hardening-cell-2>")
    x = torch.arange(4.0, device=device)
    first = namespace["uses_bump"]
    assert torch.equal(first(x), (x + 1) * 2)
    cell("def bump(v):\n    return v + 10\n", "<hardening-cell-3>")
    cell("@pointwise\ndef uses_bump(x):\n    return bump(x) * 2\n", "<hardening-cell-4>")
    second = namespace["uses_bump"]
    assert torch.equal(second(x), (x + 10) * 2)
    assert second.source_path(x) != first.source_path(x)
    assert torch.equal(first(x), (x + 1) * 2)  # an already decorated function keeps its helper


@pytest.fixture
def fresh_fallback(monkeypatch):
    """Forget this process's fallback directory and warnings, for one test."""
    monkeypatch.setattr(cache, "_fallback", None)
    monkeypatch.setattr(cache, "_warned", set())


def unusable_directories(tmp_path):
    (tmp_path / "a-file").write_text("not a directory")
    found = {"missing, cannot be made": tmp_path / "a-file" / "cache"}
    if os.geteuid() != 0:
        read_only = tmp_path / "read-only"
        read_only.mkdir()
        read_only.chmod(0o555)
        found["read-only"] = read_only
    elif Path("/proc/self/ns").is_dir():  # root writes through permissions, not into /proc
        found["read-only"] = Path("/proc/self/ns")
    return found


@pytest.mark.parametrize("kind", ["missing, cannot be made", "read-only"])
def test_an_unusable_cache_directory_falls_back_with_one_warning(kind, tmp_path, monkeypatch, fresh_fallback,
                                                                  device):
    directory = unusable_directories(tmp_path).get(kind)
    assert directory is not None, "no read-only directory on this system"
    monkeypatch.setenv("TRITONIZE_CACHE_DIR", str(directory))
    salt = random.random()  # modules no other test has written

    @pointwise
    def salted(x, y):
        return x * salt + y

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for args in [(torch.ones(3), 1.0), (torch.ones(3, dtype=torch.int32), 2), (torch.ones(4, 6)[:, :3], 0.5)]:
            args = [a.to(device) if isinstance(a, torch.Tensor) else a for a in args]
            torch.testing.assert_close(salted(*args), args[0] * salt + args[1], check_dtype=False)
    ours = [w for w in caught if issubclass(w.category, cache.CacheDirectoryWarning)]
    assert len(ours) == 1, [str(w.message) for w in caught]
    message = str(ours[0].message)
    assert str(directory) in message and "TRITONIZE_CACHE_DIR" in message
    assert salted.specializations  # (how many the three calls need differs between CPU and CUDA)
    for path in salted.specializations.values():
        assert path.parent == cache._fallback and path.parent != directory


def test_a_read_only_cache_that_holds_the_module_is_read_without_warning(tmp_path, monkeypatch, fresh_fallback):
    monkeypatch.setenv("TRITONIZE_CACHE_DIR", str(tmp_path))
    salt = random.random()
    x = torch.ones(3)
    path = make_salted(salt).source_path(x)
    assert path.parent == tmp_path
    real_mkstemp = cache.tempfile.mkstemp

    def read_only(*args, **kwargs):
        if kwargs.get("dir") == tmp_path:
            raise PermissionError(13, "Permission denied")
        return real_mkstemp(*args, **kwargs)

    monkeypatch.setattr(cache.tempfile, "mkstemp", read_only)
    again = make_salted(salt)  # the same function decorated again (a new process, say)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert again.source_path(x) == path
        torch.testing.assert_close(again(x), x * salt)


# ================================================================================================
# Threads: new and known specializations at once
# ================================================================================================

def make_thread_functions(salt):
    """Functions no other test has compiled (the salt is in their kernels)."""
    @pointwise
    def axpy(a, x, y):
        return a * x + y + salt

    @pointwise
    def branchy(x, y):
        if x > y:
            return x - y
        return (y - x) * 0.5 + salt

    @pointwise
    def divmod_by(x, k: int):
        return x // k, x % k

    return axpy, branchy, divmod_by


def thread_jobs(functions, salt, device):
    """(function, args, expected results) over dtypes, ranks, layouts, scalars and 0-d tensors."""
    axpy, branchy, divmod_by = functions
    g = torch.Generator().manual_seed(7)
    jobs = []
    for dtype in (torch.float32, torch.float16, torch.int32):
        base = (torch.randn(6, 10, generator=g) * 8).to(dtype).to(device)
        other = (torch.randn(10, generator=g) * 8).to(dtype).to(device)
        for x in (base, base.t(), base[:, ::3]):
            y = other[: x.shape[-1]]
            jobs.append((axpy, (2, x, y), (2 * x + y + salt,)))
            jobs.append((axpy, (torch.tensor(1.5, device=device), x, 0.25), (1.5 * x + 0.25 + salt,)))
            jobs.append((branchy, (x, y), (torch.where(x > y, x - y, (y - x) * 0.5 + salt),)))
            if not dtype.is_floating_point:
                jobs.append((divmod_by, (x, 3), (torch.floor_divide(x, 3), torch.remainder(x, 3))))
    return jobs


def run_together(work, count: int) -> list:
    """work(0) ... work(count - 1) in as many threads, started at once (a barrier); (k, the exception) for each that raised."""
    barrier, failures = threading.Barrier(count), []

    def worker(k):
        try:
            barrier.wait()
            work(k)
        except BaseException as exc:  # noqa: BLE001 - returned to the test
            failures.append((k, exc))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    return failures


def test_many_threads_calling_new_and_known_specializations(device):
    salt = random.random()
    functions = make_thread_functions(salt)
    jobs = thread_jobs(functions, salt, device)
    for fn, args, _ in jobs[::4]:  # some specializations are known before the threads start
        fn(*args)

    def work(seed):  # the jobs in an order of the thread's own
        order = list(range(len(jobs)))
        random.Random(seed).shuffle(order)
        for k in order:
            fn, args, expected = jobs[k]
            got = fn(*args)
            got = got if isinstance(got, tuple) else (got,)
            for g, e in zip(got, expected):
                assert g.dtype == e.dtype and g.shape == e.shape, (fn.__name__, g.dtype, e.dtype)
                torch.testing.assert_close(g, e, rtol=2e-3, atol=2e-3, equal_nan=True)

    failures = run_together(work, 8)
    assert not failures, failures[:3]  # with the seed of each thread
    # one module per specialization, each whole
    for fn in functions:
        paths = list(fn.specializations.values())
        assert len(set(paths)) == len(paths)
        for path in paths:
            assert path.stem.endswith(cache.content_hash(path.read_text()))


def test_many_threads_decorating_and_first_calling_the_same_function(device):
    """Several PointwiseFunction objects of one source generate the same file at once."""
    salt = random.random()
    x = torch.arange(-6.0, 6.0, device=device).reshape(3, 4)
    count = 8
    results = [None] * count

    def work(k):
        fn = make_salted(salt)
        results[k] = (fn(x), fn(x.t()), fn.source_path(x))

    failures = run_together(work, count)
    assert not failures, failures[:3]
    paths = {str(path) for _, _, path in results}
    assert len(paths) == 1, paths
    for a, b, path in results:
        torch.testing.assert_close(a, x * salt)
        torch.testing.assert_close(b, x.t() * salt)
        text = path.read_text()
        assert path.stem.endswith(cache.content_hash(text)), (path, cache.content_hash(text), text[:400])


@pytest.fixture
def collections_switch_threads():
    """Every garbage collection sleeps a moment, handing the interpreter to another thread: what
    a collection inside ast.parse does now and then, and what races CPython 3.11.0-3.11.7's
    parses (gh-106905: a plain ast.parse of a 100-function module in four threads fails this way
    in nearly every run of 40 parses)."""
    def sleep_at_start(phase, info, sleep=time.sleep):
        if phase == "start":
            sleep(0.0001)
    threshold = gc.get_threshold()
    gc.callbacks.append(sleep_at_start)
    gc.set_threshold(50)
    yield
    gc.callbacks.remove(sleep_at_start)
    gc.set_threshold(*threshold)


def test_threads_generating_while_collections_switch_threads(device, collections_switch_threads):
    """Decorating, generating (templates, rendering, the cache's hash each parse) and first runs
    (Triton's interpreter and compiler parse the kernel) in four threads at once, with collections
    that switch threads: no "AST constructor recursion depth mismatch", and modules rendered by
    astor (its render is checked by a parse, whose failure took the ast.unparse fallback)."""
    g = torch.Generator().manual_seed(3)
    x = torch.randn(6, 10, generator=g).to(device)
    y = torch.randn(10, generator=g).to(device)
    count, paths = 4, []

    def work(k):
        for round_ in range(3):
            salt = random.random()
            axpy, branchy, _ = make_thread_functions(salt)
            torch.testing.assert_close(axpy(2.0, x, y), 2.0 * x + y + salt)
            torch.testing.assert_close(branchy(x.t(), 1.5), torch.where(x.t() > 1.5, x.t() - 1.5,
                                                                        (1.5 - x.t()) * 0.5 + salt))
            paths.extend([axpy.source_path(2.0, x, y), branchy.source_path(x.t(), 1.5)])

    failures = run_together(work, count)
    assert not failures, failures[:3]
    assert len(paths) == 2 * 3 * count
    for path in paths:  # astor's rendering, whose lines wrap at 100, not the fallback's (ast.unparse)
        code = [line for line in path.read_text().splitlines() if not line.lstrip().startswith("#")]
        assert render_uses_unparse() or max(map(len, code)) <= 100, path


class _AstParseCalls(ast.NodeVisitor):
    """The functions of a module that call ast.parse (the innermost enclosing one, or "<module>")."""
    def __init__(self):
        self.enclosing, self.calls = ["<module>"], []

    def visit_FunctionDef(self, node):
        self.enclosing.append(node.name)
        self.generic_visit(node)
        self.enclosing.pop()

    def visit_Call(self, node):
        func = node.func
        if (isinstance(func, ast.Attribute) and func.attr == "parse" and isinstance(func.value, ast.Name)
                and func.value.id == "ast"):
            self.calls.append(self.enclosing[-1])
        self.generic_visit(node)


def test_the_package_parses_only_through_ast_tools_parse():
    """Every parse of the package holds ast_tools.PARSE_LOCK: no module of dsl/, passes/ or ops/ calls
    ast.parse but ast_tools.parse itself."""
    import tritonize.ops
    import tritonize.passes
    calls = []
    for package in (tritonize, tritonize.passes, tritonize.ops):
        for path in sorted(Path(package.__file__).parent.glob("*.py")):
            finder = _AstParseCalls()
            finder.visit(ast.parse(path.read_text()))
            calls += [(path.name, function) for function in finder.calls]
    assert calls == [("ast_tools.py", "parse")], calls


def test_inspecting_a_function_while_other_threads_add_specializations():
    """`specializations`, repr and the notebook display read the function's tables while a
    call adds to them (this raised 'dictionary changed size during iteration')."""
    salt = random.random()

    @pointwise
    def watched(x, y):
        return x * salt + y

    stop, failures = threading.Event(), []

    def inspect_repeatedly():
        while not stop.is_set():
            try:
                watched.specializations
                watched._repr_markdown_()
            except Exception as exc:  # noqa: BLE001
                failures.append(exc)

    reader = threading.Thread(target=inspect_repeatedly)
    reader.start()
    try:
        dtypes = [torch.float32, torch.float64, torch.float16, torch.int32, torch.int64, torch.int8, torch.uint8]
        for a in dtypes:
            for b in dtypes:
                watched(torch.ones(3, dtype=a), torch.ones(3, dtype=b))
    finally:
        stop.set()
        reader.join()
    assert not failures, failures[:3]
    assert len(watched.specializations) >= len(dtypes)


# ================================================================================================
# Huge tensors: more than 2**31 elements, offsets past 2**31
# ================================================================================================

INT32_LIMIT = 2**31 - 1


def test_index_width_boundaries():
    """int32 exactly while every task id (numel plus a block of lanes) and every offset fits."""
    block = 1024
    assert call.fits_int32([INT32_LIMIT - block], [[1], [1]], block)
    assert not call.fits_int32([INT32_LIMIT - block + 1], [[1], [1]], block)
    assert call.fits_int32([2, 2**20], [[INT32_LIMIT - (2**20 - 1), 1]], block)  # the last element at 2**31 - 1
    assert not call.fits_int32([2, 2**20], [[INT32_LIMIT - (2**20 - 1) + 1, 1]], block)
    assert not call.fits_int32([2, 4], [[1, 1], [2**31, 1]], block)  # one operand (an output, say) is enough
    assert not call.fits_int32([2, 4], [[-2**31, 1]], block)  # a negative stride reaches as far
    assert call.fits_int32([1, 4], [[2**40, 1]], block)  # a size-1 dim never moves


def lazily_allocated(numel, dtype=torch.int8):
    """A CPU buffer of `numel` elements whose pages are never touched (the OS maps them lazily)."""
    return torch.empty(numel, dtype=dtype)


def test_plans_of_huge_tensors_choose_the_index_width():
    big = lazily_allocated(2**31 + 4096)
    add = add2
    assert add.plan((big[: 2**30], 1), {}, None)[1].index_dtype == torch.int32
    assert add.plan((big[: 2**31 - 4096 - 1], 1), {}, None)[1].index_dtype == torch.int32
    assert add.plan((big[: 2**31 + 1], 1), {}, None)[1].index_dtype == torch.int64
    view = big.as_strided((2, 8), (2**31, 1))  # 16 elements, the second row past 2**31
    assert add.plan((view, 1), {}, None)[1].index_dtype == torch.int64
    small = torch.zeros(2, 8, dtype=torch.int8)
    assert add.plan((small, 1), {}, None)[1].index_dtype == torch.int32
    assert add.plan((small, 1), {}, view)[1].index_dtype == torch.int64  # an output's offsets count too


def test_offsets_past_2_31_on_the_cpu_are_exact():
    """The kernel really runs (the interpreter): 16 elements at offsets up to 2**31 + 7."""
    big = lazily_allocated(2**31 + 4096)
    view = big.as_strided((2, 8), (2**31, 1))
    view.copy_(torch.arange(16, dtype=torch.int8).reshape(2, 8))
    got = add2(view, 100)
    assert torch.equal(got, torch.arange(16, dtype=torch.int8).reshape(2, 8) + 100)
    out = lazily_allocated(2**31 + 4096).as_strided((2, 8), (2**31, 1))  # its stores past 2**31 too
    add2(view, view, out=out)
    assert torch.equal(out, 2 * torch.arange(16, dtype=torch.int8).reshape(2, 8))


def cuda_with_free_memory(gib: float):
    if not torch.cuda.is_available():
        return pytest.mark.skip(reason="needs a CUDA GPU")
    free, _ = torch.cuda.mem_get_info()
    return pytest.mark.skipif(free < gib * 2**30, reason=f"needs {gib} GiB of free GPU memory")


@cuda_with_free_memory(8)
def test_more_than_2_31_elements_on_the_gpu():
    n = 2**31 + 2**20 + 3
    x = torch.randint(-100, 100, (n,), device="cuda", dtype=torch.int8)
    assert add2.plan((x, 3), {}, None)[1].index_dtype == torch.int64
    got = add2(x, 3)
    assert torch.equal(got, x + 3)
    assert got[-5:].tolist() == (x[-5:] + 3).tolist()
    del got, x
    torch.cuda.empty_cache()


@cuda_with_free_memory(12)
def test_more_than_2_31_elements_in_2d_tiles_and_broadcast_on_the_gpu():
    rows, cols = 65537, 32771  # 2,147,713,027 elements
    x = torch.randint(-100, 100, (cols, rows), device="cuda", dtype=torch.int8).t()
    y = torch.randint(-20, 20, (rows, cols), device="cuda", dtype=torch.int8)
    spec = add2.plan((x, y), {}, None)[1]
    assert spec.index_dtype == torch.int64 and spec.tile is not None  # the layouts disagree: 2D tiles
    got = add2(x, y)
    assert torch.equal(got, x + y)
    del got, y
    row = torch.randint(-20, 20, (cols,), device="cuda", dtype=torch.int8)  # broadcast along the rows
    assert add2.plan((x, row), {}, None)[1].index_dtype == torch.int64
    got = add2(x, row)
    assert torch.equal(got, x + row)
    del got, x, row
    torch.cuda.empty_cache()


@cuda_with_free_memory(6)
def test_offsets_past_2_31_and_int32_at_the_edge_on_the_gpu():
    big = torch.zeros(2**31 + 4096, dtype=torch.int8, device="cuda")
    view = big.as_strided((2, 8), (2**31, 1))
    view.copy_(torch.arange(16, dtype=torch.int8, device="cuda").reshape(2, 8))
    assert add2.plan((view, 100), {}, None)[1].index_dtype == torch.int64
    assert torch.equal(add2(view, 100), view + 100)
    # the largest contiguous tensor that int32 indexes (its size and a block stay within int32):
    # its last elements are right. The block is the launch's at that size (a dependent launch's
    # block of 1-byte elements grows, call.dependent_block)
    del view
    big[:16] = 0
    block = add2.plan((big[: INT32_LIMIT - 2**16], 1), {}, None)[0].blocks[0]
    edge = big[: INT32_LIMIT - block]
    edge[-64:] = torch.arange(64, dtype=torch.int8, device="cuda")
    assert add2.plan((edge, 1), {}, None)[1].index_dtype == torch.int32
    got = add2(edge, 1)
    assert got[-64:].tolist() == list(range(1, 65)) and got[:8].tolist() == [1] * 8
    del got, big, edge
    torch.cuda.empty_cache()


def test_a_module_rendered_by_astor_or_by_unparse_names_one_cache_file(device):
    """The cache names a module by its code, not its layout: the two renderers agree on the
    name (a thread that fell back to ast.unparse under load once gave one kernel two files),
    while any change to the code still gives a new name."""
    from tritonize.passes.render import render

    fn = make_salted(random.random())
    path = fn.source_path(torch.arange(4.0, device=device))
    text = path.read_text()
    plain = render(ast.parse(text), use_astor=False)
    assert plain != text or render_uses_unparse()
    assert cache.content_hash(plain) == cache.content_hash(text) and path.stem.endswith(cache.content_hash(plain))
    assert cache.content_hash(text + "\nlaunch = None\n") != cache.content_hash(text)
    assert cache.content_hash(text.replace("* ", "+ ", 1)) != cache.content_hash(text)


def render_uses_unparse() -> bool:
    # the module: `from tritonize.passes import render` gives its function of that name
    return sys.modules["tritonize.passes.render"].astor is None

"""The direct launcher (dsl/launch.py) against stand-ins for the two Triton launcher layouts
it knows: it must call the C entry point with the argument order of that Triton version,
hand launches to Triton's own runner while a profiling hook is registered, and refuse a
launcher it does not know (the caller then keeps Triton's runner). On a GPU, every
memoized CUDA call in the suite goes through it."""
import math
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st
import torch
import triton

import tritonize
from tritonize.decorator import signature_key
from tritonize.launch import (direct_launcher, extern_libs, grid_launcher, integer_class, launcher_layout,
                              toolkit_libdevice)


class HookChain:
    def __init__(self):
        self.calls = []


class Knobs:
    def __init__(self, hook):
        self.runtime = type("runtime", (), {})()
        self.runtime.launch_enter_hook = hook()
        self.runtime.launch_exit_hook = hook()


class Launcher36:
    global_scratch_size = profile_scratch_size = 0
    launch_cooperative_grid, launch_pdl = False, True

    def __init__(self):
        self.calls = []
        self.launch = lambda *args: self.calls.append(args)

    def __call__(self, gridX, gridY, gridZ, stream, function, *args):
        raise AssertionError("the direct launcher goes around this wrapper")


class Launcher39(Launcher36):
    arg_annotations, kernel_signature = ("annotations",), b"signature"

    def __call__(self, gridX, gridY, gridZ, stream, function, kernel_metadata, launch_metadata,
                 launch_enter_hook, launch_exit_hook, *args):
        raise AssertionError("the direct launcher goes around this wrapper")


class Compiled:
    function, packed_metadata = 1234, (4, 1, 0)

    def __init__(self, launcher):
        self.run, self.runner_calls, self.grids = launcher, [], []

    def __getitem__(self, grid):
        self.grids.append(grid)
        return lambda *args: self.runner_calls.append(args)


def streams(index):
    return 77 + index


DEVICE = torch.device("cuda", 1)


def test_triton_3_6_layout():
    compiled = Compiled(Launcher36())
    launch = direct_launcher(compiled, (40,), DEVICE, knobs=Knobs(HookChain), current_stream=streams)
    assert launcher_layout(compiled.run) == "3.6" and compiled.grids == [(40, 1, 1)]
    launch((111, 222, 3, 1024))
    assert compiled.run.calls == [(40, 1, 1, 78, 1234, False, True, None, None, (4, 1, 0), None, None, None,
                                   111, 222, 3, 1024)]
    assert compiled.runner_calls == []


@pytest.mark.parametrize("launcher", [Launcher36, Launcher39])
def test_a_two_dimensional_grid_reaches_the_c_launch_and_the_runner(launcher):
    """A tiled launch's grid (columns, rows) goes to the C entry point as gridX, gridY and to
    Triton's runner as three dims."""
    compiled = Compiled(launcher())
    launch = direct_launcher(compiled, (16, 3), DEVICE, knobs=Knobs(HookChain), current_stream=streams)
    assert compiled.grids == [(16, 3, 1)]
    launch((111, 5))
    assert compiled.run.calls[0][:4] == (16, 3, 1, 78)


def test_triton_3_9_layout():
    compiled = Compiled(Launcher39())
    launch = direct_launcher(compiled, (8,), DEVICE, knobs=Knobs(lambda: None), current_stream=streams)
    assert launcher_layout(compiled.run) == "3.9"
    launch((111, 5))
    assert compiled.run.calls == [(8, 1, 1, 78, 1234, False, True, (4, 1, 0), None, None, None, None, None,
                                   ("annotations",), b"signature", (111, 5))]


@pytest.mark.parametrize("launcher", [Launcher36, Launcher39])
def test_a_registered_hook_sees_every_launch(launcher):
    """A profiler's launch hook is honoured: those launches go through Triton's runner."""
    knobs = Knobs(HookChain)
    compiled = Compiled(launcher())
    launch = direct_launcher(compiled, (2,), DEVICE, knobs=knobs, current_stream=streams)
    knobs.runtime.launch_enter_hook.calls.append(print)
    launch((1, 2))
    assert compiled.runner_calls == [(1, 2)] and compiled.run.calls == []
    knobs.runtime.launch_enter_hook.calls.clear()
    launch((1, 2))
    assert len(compiled.run.calls) == 1


@pytest.mark.parametrize("launcher, expected", [
    (Launcher36, [(40, 1, 1, 78, 1234, False, True, None, None, (4, 1, 0), None, None, None, 111, 5),
                  (7, 3, 1, 78, 1234, False, True, None, None, (4, 1, 0), None, None, None, 222, 6)]),
    (Launcher39, [(40, 1, 1, 78, 1234, False, True, (4, 1, 0), None, None, None, None, None, ("annotations",),
                   b"signature", (111, 5)),
                  (7, 3, 1, 78, 1234, False, True, (4, 1, 0), None, None, None, None, None, ("annotations",),
                   b"signature", (222, 6))])])
def test_the_grid_launcher_takes_each_launchs_grid(launcher, expected):
    """grid_launcher's launch(grid_x, grid_y, args): one launcher for launches of any size, each on
    a grid of its own programs (one-dimensional, or two for tiles); with a hook registered, through
    Triton's runner on that grid, so that the hook sees it."""
    knobs, compiled = Knobs(HookChain), Compiled(launcher())
    launch = grid_launcher(compiled, DEVICE, knobs=knobs, current_stream=streams)
    launch(40, 1, (111, 5))
    launch(7, 3, (222, 6))
    assert compiled.run.calls == expected and compiled.runner_calls == []
    knobs.runtime.launch_enter_hook.calls.append(print)
    launch(9, 2, (333, 7))
    assert compiled.grids[-1] == (9, 2, 1) and compiled.runner_calls == [(333, 7)] and len(compiled.run.calls) == 2


class Output:
    def data_ptr(self):
        return 999


@pytest.mark.parametrize("launcher, expected", [
    (Launcher36, (40, 1, 1, 78, 1234, False, True, None, None, (4, 1, 0), None, None, None, 111, 222, 999, 3, 64)),
    (Launcher39, (40, 1, 1, 78, 1234, False, True, (4, 1, 0), None, None, None, None, None, ("annotations",),
                  b"signature", (111, 222, 999, 3, 64)))])
def test_the_steady_call_allocates_its_output_and_launches_in_one_closure(launcher, expected):
    """With `output`, the launcher is the steady path's call(args, pointers): it allocates the
    output from the arguments, launches on the pointers, the output's and the tail, and
    returns the output; with a hook registered, the runner gets the same arguments."""
    knobs, compiled, allocated = Knobs(HookChain), Compiled(launcher()), []

    def allocate(args):
        allocated.append(args)
        return Output()

    call = direct_launcher(compiled, (40,), DEVICE, knobs=knobs, current_stream=streams,
                           output=(None, allocate, (3, 64)))
    out = call(("a", "b"), [111, 222])
    assert type(out) is Output and allocated == [("a", "b")]
    assert compiled.run.calls == [expected] and compiled.runner_calls == []
    knobs.runtime.launch_exit_hook.calls.append(print)
    assert type(call(("a", "b"), [111, 222])) is Output
    assert compiled.runner_calls == [(111, 222, 999, 3, 64)] and len(compiled.run.calls) == 1


@pytest.mark.parametrize("launcher", [Launcher36, Launcher39])
def test_the_steady_call_allocates_like_an_argument_without_the_allocator(launcher):
    """With `like`, the output is torch.empty_like of that argument (same shape, strides,
    dtype, device), a new tensor on each call, and `allocate` is not called."""
    knobs, compiled = Knobs(HookChain), Compiled(launcher())
    a, b = torch.zeros(3, 4, dtype=torch.float16), torch.zeros(4, 3, dtype=torch.float64).t()

    def allocate(args):
        raise AssertionError("like= names the argument to allocate like")

    call = direct_launcher(compiled, (40,), DEVICE, knobs=knobs, current_stream=streams, output=(1, allocate, (3, 64)))
    first, second = call((a, b), [111, 222]), call((a, b), [111, 222])
    assert first.dtype == torch.float64 and first.shape == (3, 4) and first.stride() == b.stride()
    assert first.data_ptr() != second.data_ptr()
    launched = [c[-1] if launcher is Launcher39 else c[-5:] for c in compiled.run.calls]
    assert launched == [(111, 222, first.data_ptr(), 3, 64), (111, 222, second.data_ptr(), 3, 64)]


class UnknownLauncher(Launcher36):
    def __call__(self, grid, stream, function, *args):
        raise AssertionError


class ScratchLauncher(Launcher36):
    global_scratch_size = 128


@pytest.mark.parametrize("launcher", [UnknownLauncher, ScratchLauncher])
def test_an_unknown_launcher_or_one_needing_scratch_is_left_to_triton(launcher):
    compiled = Compiled(launcher())
    assert direct_launcher(compiled, (2,), DEVICE, knobs=Knobs(HookChain), current_stream=streams) is None


@pytest.mark.parametrize("launcher", [UnknownLauncher, ScratchLauncher])
def test_the_grid_launcher_leaves_an_unknown_launcher_to_the_caller(launcher):
    assert grid_launcher(Compiled(launcher()), DEVICE, knobs=Knobs(HookChain), current_stream=streams) is None


def test_the_installed_triton_has_a_known_layout():
    """The Triton this suite runs with (3.6 on the GPU image, the newest on CI) is one the
    direct launcher knows; a new layout fails here, not silently slower."""
    from triton.backends.nvidia.driver import CudaLauncher

    names = list(__import__("inspect").signature(CudaLauncher.__call__).parameters)
    assert names in (["self", "gridX", "gridY", "gridZ", "stream", "function", "args"],
                     ["self", "gridX", "gridY", "gridZ", "stream", "function", "kernel_metadata",
                      "launch_metadata", "launch_enter_hook", "launch_exit_hook", "args"])


needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="launches CUDA kernels")


@needs_cuda
@pytest.mark.parametrize("direct", [True, False], ids=["direct", "runner"])
def test_memoized_cuda_calls_use_the_compiled_launcher(direct, monkeypatch):
    """The real thing: the second call of a signature launches through the direct launcher
    (or Triton's runner where asked for), on the current stream, with the right results."""
    from tritonize import decorator, pointwise

    monkeypatch.setattr(decorator, "DIRECT_LAUNCH", direct)

    @pointwise
    def fused(a, b, s: float = 2.0):
        return a * s + b

    a, b = torch.randn(3000, device="cuda"), torch.randn(50, 60, device="cuda").t()
    for _ in range(3):
        assert torch.equal(fused(a.view(60, 50), b), a.view(60, 50) * 2.0 + b)
        assert torch.equal(fused(a, b.reshape(-1), 0.5), a * 0.5 + b.reshape(-1))
    recipes = list(fused._recipes.values())
    assert {r.fast_kind for r in recipes} == {"direct" if direct else "runner"}
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        results = [fused(a, b.reshape(-1), 0.5) for _ in range(20)]
    side.synchronize()
    assert all(torch.equal(r, a * 0.5 + b.reshape(-1)) for r in results)


def tritons_integer_specialization(value):
    """The installed Triton's own specialization of an integer kernel argument: its type and
    key (Triton 3.6 and 3.9 both specialize in C++, with these arguments)."""
    from triton._C.libtriton import native_specialize_impl
    from triton.backends.compiler import BaseBackend
    return native_specialize_impl(BaseBackend, value, False, True, True)


INTEGERS = sorted({*range(-40, 70), *[b + d for b in (2**31, -2**31, 2**32, 2**63, -2**63, 10**12, 2**40, 1 << 50)
                                       for d in range(-33, 34) if -2**63 <= b + d < 2**64]})


def test_integer_classes_are_tritons_specializations():
    """Integers of one launch.integer_class get one specialization from the installed Triton
    (so a kernel compiled for one serves the others), and integers of different classes get
    different ones (so no kernel is compiled twice for want of a finer class). A Triton that
    specializes on more fails here, not with wrong results."""
    by_class = {}
    for value in INTEGERS:
        by_class.setdefault(integer_class(value), set()).add(tritons_integer_specialization(value))
    assert all(len(specializations) == 1 for specializations in by_class.values()), by_class
    assert len({next(iter(s)) for s in by_class.values()}) == len(by_class)
    assert len(by_class) == 7  # 1; int32, int64, uint64 each divisible by 16 or not


def _launches_what_triton_would(fn, args, got):
    """The call's recipe launched directly, the kernel Triton's JIT finds for these arguments."""
    recipe = fn._recipes[signature_key(args)]
    assert recipe.fast_kind == "direct"
    again = torch.empty_like(got)
    found = recipe.launch(*[args[i] for i in recipe.tensor_positions], again, *recipe.strides, recipe.sizes,
                          recipe.numel, recipe.grid, *recipe.blocks, recipe.warps, extern_libs=recipe.extern_libs)
    assert found is recipe.compiled, [tuple(a.shape) for a in args]  # Triton's JIT launches this very kernel
    assert torch.equal(again, got)


@needs_cuda
def test_calls_of_new_shapes_launch_the_kernel_triton_compiled_for_their_classes(monkeypatch):
    """A call of a new shape whose kernel Triton compiled already for integers of the same
    classes (another shape's), pointers of the same dtypes and alignment, launches that compiled
    kernel directly, the first time: the very object Triton's JIT finds for this call's
    arguments, with torch's results; Triton's JIT runs once for each such kernel, not each shape."""
    from triton.runtime.jit import JITFunction

    from tritonize import pointwise

    jit_runs = []
    jit_run = JITFunction.run

    def counted_run(self, *args, **kwargs):
        jit_runs.append(self)
        return jit_run(self, *args, **kwargs)

    monkeypatch.setattr(JITFunction, "run", counted_run)

    @pointwise
    def scaled_sum(a, b):
        return a * 2 + b

    buffer = torch.randn(2, 70000, device="cuda")
    calls_jit_runs = 0
    shapes = [(n,) for n in (1000, 1001, 1024, 1040, 1999, 2000, 4096, 65536, 65537)]
    shapes += [(m, n) for m, n in ((3, 17), (5, 17), (4, 32), (6, 32), (7, 19))]
    for shape in shapes:
        numel = torch.Size(shape).numel()
        for offset in (0, 1):  # a misaligned pair is another class of kernel
            a = buffer[0, offset:offset + numel].view(shape)
            b = buffer[1, offset:offset + numel].view(shape)
            for args in ((a, b), (a, b[..., :1])):
                runs_before = len(jit_runs)
                got = scaled_sum(*args)
                assert torch.equal(got, args[0] * 2 + args[1])
                if signature_key(args) not in scaled_sum._recipes:  # a dense shape seen once: by its class
                    assert len(jit_runs) == runs_before
                    got = scaled_sum(*args)  # seen again: it keeps a recipe
                calls_jit_runs += len(jit_runs) - runs_before
                assert torch.equal(got, args[0] * 2 + args[1])
                _launches_what_triton_would(scaled_sum, args, got)
    compiled = {id(r.compiled) for r in scaled_sum._recipes.values()}
    # Triton's JIT ran once for each compiled kernel, every other recipe took one directly
    assert len(compiled) == len(scaled_sum._kernels) == calls_jit_runs < len(scaled_sum._recipes)

    # tensors of several dtypes read as float64 share one module of code: each dtype its own kernel
    @pointwise
    def read_wide(x: torch.float64, y):
        return x * 2 + y

    for n, dtype in ((100, torch.float32), (101, torch.float16), (102, torch.int32), (103, torch.float32),
                     (104, torch.int32)):
        x, y = torch.arange(n, device="cuda").to(dtype), torch.ones(n, device="cuda")
        got = read_wide(x, y)
        assert torch.equal(got, x.double() * 2 + y)
        _launches_what_triton_would(read_wide, (x, y), got)


def _counting_jit_runs(monkeypatch) -> list:
    """Triton's JIT functions run from now on (each JITFunction.run call), in a list."""
    from triton.runtime.jit import JITFunction

    runs, run = [], JITFunction.run

    def counted_run(self, *args, **kwargs):
        runs.append(self)
        return run(self, *args, **kwargs)

    monkeypatch.setattr(JITFunction, "run", counted_run)
    return runs


@needs_cuda
def test_shapes_seen_once_keep_no_objects_the_garbage_collector_tracks():
    """Calls of a new shape every call, each launched by its class (fresh outputs, in place, a
    rotation of interleaved halves in place, a slice of a transposed batch whose structure is new
    every call), leave the heap as they found it: what the function keeps of each shape, and of
    each structure seen once, is an int. Before, each kept its key (7 to 19 tuples) and such a
    structure (11 more), and the collector's full passes over a growing heap took ~20% of a
    rotation's time on the CPU machine."""
    import gc

    from tritonize import pointwise

    @pointwise
    def add(a, b):
        return a + b

    @pointwise
    def rotate(a, b, cos, sin):
        return a * cos - b * sin, a * sin + b * cos

    buffer = torch.randn(3, 3300 * 128, device="cuda")

    def rotation(n):
        x = buffer[0, :n * 128].view(n, 128)
        even, odd = x[:, ::2], x[:, 1::2]
        cos, sin = buffer[1, :n * 64].view(n, 64), buffer[2, :n * 64].view(n, 64)
        return lambda: rotate(even, odd, cos, sin, out=(even, odd))

    forms = {
        "fresh": lambda n: (lambda a=buffer[0, :n * 64].view(n, 64), b=buffer[1, :64]: add(a, b)),
        "in place": lambda n: (lambda a=buffer[0, :n * 64].view(64, n).t(), b=buffer[1, :n * 64].view(n, 64):
                               add(a, b, out=a)),
        "rotation in place": rotation,
        # strides that follow the size: a structure of its own every call, walked as the planner walks it
        "slice of a transposed batch": lambda n: (lambda a=buffer[0, :n * 128].view(128, n).t()[:, ::2],
                                                  b=buffer[1, :n * 64].view(n, 64): add(a, b)),
    }
    for label, form in forms.items():
        # a template and its kernel, then the structure's walk; sizes of one integer class (n % 16 == 4)
        for n in (20, 36, 52):
            form(n)()
        calls = [form(n) for n in range(68, 68 + 16 * 200, 16)]
        recipes = len(add._recipes) + len(add._out_recipes) + len(rotate._out_recipes)
        gc.collect()
        gc.disable()
        try:
            before = len(gc.get_objects())
            for call in calls:
                call()
            kept = len(gc.get_objects()) - before
        finally:
            gc.enable()
        assert kept <= 2, (label, kept)  # (nothing a call: room for a cache entry made once)
        assert len(add._recipes) + len(add._out_recipes) + len(rotate._out_recipes) == recipes, label


@needs_cuda
def test_a_shape_seen_once_launches_by_its_class_and_keeps_no_recipe(monkeypatch):
    """A call of a shape no call had (a flat walk, rows beside a bias or a column, a transposed
    tensor's tiles, strided and sliced rows, a 0-d tensor; a number among the arguments; one or two
    outputs) whose class has a template and whose kernel Triton compiled for another size launches
    that kernel on a grid of its own size: torch's results, no JIT run, no recipe kept; the shape
    seen again keeps a recipe, and the call after takes the steady path."""
    from tritonize import pointwise

    jit_runs = _counting_jit_runs(monkeypatch)

    @pointwise
    def axpy(a, b, s: float):
        return a * s + b

    @pointwise
    def sum_and_difference(a, b):
        return a + b, a - b

    def expected(fn, args):
        a, b = args[:2]
        return a * args[2] + b if fn is axpy else (a + b, a - b)

    buffer = torch.randn(2, 100000, device="cuda")
    layouts = {  # rows of 64 beside a bias, a column (one value a row); other layouts of n rows of 64
        "bias": lambda n: (buffer[0, :n * 64].view(n, 64), buffer[1, :64]),
        "column": lambda n: (buffer[0, :n * 64].view(n, 64), buffer[1, :n].view(n, 1)),
        "transposed": lambda n: (buffer[0, :n * 64].view(64, n).t(), buffer[1, :n * 64].view(n, 64)),  # 2-D tiles
        "strided slice": lambda n: (buffer[0, :n * 128].view(n, 128)[:, ::2], buffer[1, :n * 64].view(n, 64)),
        "column slice": lambda n: (buffer[0, :n * 80].view(n, 80)[:, :64], buffer[1, :n * 64].view(n, 64)),
        "0-d": lambda n: (buffer[0, :n * 64].view(64, n).t(), zero_d),  # a 0-d tensor takes no strides
        # a 0-d tensor in CPU memory, a new one each call: passed by value, a number's argument
        "0-d in CPU memory": lambda n: (buffer[0, :n * 64].view(n, 64), torch.tensor(n / 9)),
        "transposed, 0-d in CPU memory": lambda n: (buffer[0, :n * 64].view(64, n).t(), torch.tensor(n / 9)),
    }
    zero_d = torch.tensor(0.75, device="cuda")
    for fn, extra in ((axpy, (0.5,)), (sum_and_difference, ())):
        # flat walks of sizes divisible by 16 and not (two kernels), masked; the layouts above
        for first, layout in ((1000, "flat"), (1040, "flat"), *[(32, layout) for layout in layouts]):
            def arguments(n, scale=1.0, layout=layout):
                numbers = [e * scale for e in extra]
                if layout == "flat":
                    return buffer[0, :n], buffer[1, :n], *numbers
                return *layouts[layout](n), *numbers

            fn(*arguments(first))  # the class's template, and its kernel, compiled
            recipes, runs = len(fn._recipes), len(jit_runs)
            for n in range(first + 16, first + 16 * 40, 16):  # a new size, of the first one's integer classes
                args = arguments(n, scale=n / 7)
                got = fn(*args)
                for value, want in zip(got if isinstance(got, tuple) else (got,), _as_tuple(expected(fn, args))):
                    assert value.shape == want.shape and torch.equal(value, want), n
                assert hash(signature_key(args)) in fn._seen and signature_key(args) not in fn._recipes
            assert len(fn._recipes) == recipes and len(jit_runs) == runs, "no recipe kept, no JIT run"
            again = arguments(first + 16, scale=(first + 16) / 7)
            for call in range(2):
                got = fn(*again)
                assert all(torch.equal(v, w) for v, w in zip(_as_tuple(got), _as_tuple(expected(fn, again))))
            recipe = fn._recipes[signature_key(again)]  # the second call of that shape kept a recipe
            if fn is axpy:
                assert recipe.call != recipe.first_calls  # and the third took the steady path
            assert len(jit_runs) == runs


def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


@needs_cuda
def test_a_call_with_out_of_a_new_shape_launches_by_its_class(monkeypatch):
    """A call with out= (a fresh tensor, one laid out transposed, or in place into its first
    argument, a column slice among them) of a shape no call had, whose class has a template and a
    compiled kernel, launches by its class: torch's results in `out`, no JIT run, no recipe kept;
    the shape seen again keeps a recipe with a write guard, and a partial overlap is still refused."""
    from tritonize import pointwise

    jit_runs = _counting_jit_runs(monkeypatch)

    @pointwise
    def axpy(a, b, s: float):
        return a * s + b

    buffer = torch.randn(2, 100000, device="cuda")
    layouts = {
        "rows": lambda n: (buffer[0, :n * 64].view(n, 64), buffer[1, :n * 64].view(n, 64)),
        "bias": lambda n: (buffer[0, :n * 64].view(n, 64), buffer[1, :64]),
        "transposed": lambda n: (buffer[0, :n * 64].view(64, n).t(), buffer[1, :n * 64].view(n, 64)),
        "column slice": lambda n: (buffer[0, :n * 80].view(n, 80)[:, :64], buffer[1, :n * 64].view(n, 64)),
        "0-d in CPU memory": lambda n: (buffer[0, :n * 64].view(n, 64), torch.tensor(n / 9)),
    }
    into = {"fresh": lambda a: torch.empty_like(a, memory_format=torch.contiguous_format),
            "transposed": lambda a: torch.empty(64, a.shape[0], device="cuda").t(), "in place": lambda a: a}
    for layout, arguments in layouts.items():
        for number, (kind, out_for) in enumerate(into.items()):
            def call(n):
                a, b = arguments(n)
                out = out_for(a)
                want = a * (n / 7) + b
                assert axpy(a, b, n / 7, out=out) is out and torch.equal(out, want), (layout, kind, n)
                return signature_key((a, b, n / 7)) + signature_key((out,))

            call(32)  # the class's template, and its kernel, compiled
            recipes, runs = len(axpy._out_recipes), len(jit_runs)
            # sizes of the first one's integer classes, other than the other kinds': a call in place
            # has the signature of one into a fresh tensor of that layout
            first = 48 + 16 * 20 * number
            for n in range(first, first + 16 * 20, 16):
                key = call(n)
                assert hash(key) in axpy._seen and key not in axpy._out_recipes, (layout, kind)
            assert len(axpy._out_recipes) == recipes and len(jit_runs) == runs, "no recipe kept, no JIT run"
            for _ in range(3):  # kept, then the steady path's writes
                key = call(first)
            assert key in axpy._out_recipes
    a = buffer[0, :65 * 64].view(65, 64)
    with pytest.raises(tritonize.OutArgumentError, match="overlaps input 'a'"):
        axpy(a[1:], a[1:], 2.0, out=a[:-1])


@needs_cuda
def test_a_rotation_in_place_on_interleaved_rows_of_a_new_length_launches_by_its_class(monkeypatch):
    """The even and odd elements of each row rotated in place (out= the inputs themselves, the odd
    ones 4 bytes past 16-byte alignment), a new number of rows every call, as a rotary embedding
    over a growing sequence: after the class's first call, each launches by its class, with no
    JIT run and no recipe kept, and gives torch's results; likewise with the halves swapped (the
    misaligned one first: another class, another kernel)."""
    from tritonize import pointwise

    jit_runs = _counting_jit_runs(monkeypatch)

    @pointwise
    def rotate(a, b, cos, sin):
        return a * cos - b * sin, a * sin + b * cos

    rows = torch.randn(400 * 128, device="cuda")
    table = torch.randn(2, 400 * 64, device="cuda")

    def call(n, shift=0):
        x = rows[:n * 128].view(n, 128)
        cos, sin = table[0, :n * 64].view(n, 64), table[1, :n * 64].view(n, 64)
        even, odd = x[:, shift::2], x[:, 1 - shift::2]
        want = (even * cos - odd * sin, even * sin + odd * cos)
        result = rotate(even, odd, cos, sin, out=(even, odd))
        assert result[0] is even and result[1] is odd
        assert torch.equal(even, want[0]) and torch.equal(odd, want[1]), n
        return signature_key((even, odd, cos, sin)) + signature_key((even, odd))

    for shift in (0, 1):  # the odd elements written first, then the even ones first
        call(32, shift)  # the class's template, and its kernel, compiled
        recipes, runs = len(rotate._out_recipes), len(jit_runs)
        for n in range(48 + 160 * shift, 208 + 160 * shift, 16):
            key = call(n, shift)
            assert hash(key) in rotate._seen and key not in rotate._out_recipes, (shift, n)
        assert len(rotate._out_recipes) == recipes and len(jit_runs) == runs, "no recipe kept, no JIT run"


@needs_cuda
def test_a_0d_cpu_tensor_beside_gpu_tensors_is_captured_by_value():
    """A CUDA graph holds a 0-d CPU tensor's value at capture, as eager torch's kernels do (it is
    passed by value: a copy to the GPU before each launch could not be captured); its sign and NaN
    reach the kernel as they are (copysign)."""
    from tritonize import pointwise

    @pointwise
    def signed(x, s):
        return math.copysign(x, s)

    x = torch.randn(4096, device="cuda")
    for value in (0.5, -0.0, -math.nan, math.nan, -2.0):
        s = torch.tensor(value)
        want = torch.copysign(x, s)
        signed(x, s)  # planned outside the capture
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            got = signed(x, s)
        s.fill_(-s.item() if value == value else 1.0)  # the graph keeps the value it captured
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(got, want), value


@needs_cuda
def test_a_class_launch_goes_through_tritons_runner_while_a_hook_is_registered(monkeypatch):
    """A profiler's launch hook sees the launches of dense shapes seen once, as it sees others'."""
    import triton

    from tritonize import pointwise

    @pointwise
    def halve(x):
        return x * 0.5

    buffer = torch.randn(5000, device="cuda")
    halve(buffer[:1000])
    halve(buffer[:1016])  # launched by its class: the class's launcher is made
    seen, runtime = [], triton.knobs.runtime
    hooks = runtime.launch_enter_hook
    if hasattr(hooks, "add"):  # a HookChain: the profiler adds to it
        hooks.add(seen.append)
    else:
        monkeypatch.setattr(runtime, "launch_enter_hook", seen.append)
    try:
        got = halve(buffer[:1032])
        assert hash(signature_key((buffer[:1032],))) in halve._seen and len(seen) == 1
        assert torch.equal(got, buffer[:1032] * 0.5)
        got = halve(buffer[:1040])  # another integer class: no compiled kernel, so planned and compiled
        assert signature_key((buffer[:1040],)) in halve._recipes and len(seen) == 2
        assert torch.equal(got, buffer[:1040] * 0.5)
    finally:
        if hasattr(hooks, "remove"):
            hooks.remove(seen.append)


@needs_cuda
def test_with_tritons_runner_asked_for_no_call_launches_by_its_class(monkeypatch):
    """TRITONIZE_FAST_LAUNCH=runner keeps every launch on Triton's runner: a dense shape seen
    once is planned and kept as a recipe, as before class launches."""
    from tritonize import decorator, pointwise

    monkeypatch.setattr(decorator, "DIRECT_LAUNCH", False)

    @pointwise
    def halve(x):
        return x * 0.5

    buffer = torch.randn(5000, device="cuda")
    for n in (1000, 1016, 1032):
        assert torch.equal(halve(buffer[:n]), buffer[:n] * 0.5)
    assert not halve._seen and len(halve._recipes) == 3


def test_a_hook_registered_before_arming_leaves_the_launch_to_triton():
    knobs = Knobs(HookChain)
    knobs.runtime.launch_exit_hook.calls.append(print)
    assert direct_launcher(Compiled(Launcher36()), (2,), DEVICE, knobs=knobs, current_stream=streams) is None


@needs_cuda
def test_steady_calls_allocate_and_launch_right_in_every_variant():
    """The steady closures: output allocated like an input, from an input of its dtype, or
    from nothing of its dtype; inputs in parameter order or not (a number between them)."""
    from tritonize import pointwise

    @pointwise
    def plain(a, b):
        return a - b

    @pointwise
    def mixed(k: int, a, b):
        return a * k - b

    x = torch.randn(40, 40, device="cuda")
    cases = [(x, x), (x.t(), x.t()), (x, x.t()), (x[:, :20], x[:, 10:30]),
             (torch.arange(1600, device="cuda").view(40, 40), x), (x, torch.ones(40, device="cuda", dtype=torch.int8)),
             (torch.tensor([7], device="cuda", dtype=torch.int16), x.half())]
    for a, b in cases:
        for _ in range(3):
            got = plain(a, b)
            assert got.dtype == (a - b).dtype and got.shape == (a - b).shape
            assert torch.equal(got, a - b)
            # no fma contraction: the fused kernel rounds a * k and then - b, as torch's two ops
            assert torch.equal(mixed(3, a, b), a * 3 - b)
            assert torch.equal(mixed(True, a, b), a * 1 - b)  # a bool for an int parameter
    kinds = {r.fast_kind for r in [*plain._recipes.values(), *mixed._recipes.values()]}
    assert kinds == {"direct"}
    assert all(r.call != r.first_calls for r in [*plain._recipes.values(), *mixed._recipes.values()])
    # the steady path converts its numbers as the first call does: out of int64 is refused
    with pytest.raises(tritonize.CallError, match="does not fit in int64"):
        mixed(2**64, x, x)


@needs_cuda
def test_steady_calls_of_several_outputs_allocate_each_and_launch_in_one_closure():
    """Two and three outputs, of one dtype or several, beside numbers and a 0-d CPU tensor passed
    by value: each output its own fresh tensor, laid out as the first call's, equal to it."""
    from tritonize import pointwise

    @pointwise
    def polar(r, theta):
        return r * math.cos(theta), r * math.sin(theta)

    @pointwise
    def parts(x, k: int, s):
        return x * k + s, x > s, x // 2.0

    x = torch.randn(40, 40, device="cuda")
    cases = [(polar, (x, x.t())), (polar, (x[:, :20], torch.randn(20, device="cuda"))),
             (parts, (x, 3, torch.tensor(0.25))), (parts, (x.t().half(), -2, 0.5))]
    for fn, args in cases:
        first = fn(*args)
        for _ in range(3):
            got = fn(*args)
            assert len(got) == len(first) and len({out.data_ptr() for out in got}) == len(got)
            for out, expected in zip(got, first):
                assert out.dtype == expected.dtype and out.stride() == expected.stride()
                assert torch.equal(out, expected)
    recipes = [*polar._recipes.values(), *parts._recipes.values()]
    assert len(recipes) == 4 and {r.fast_kind for r in recipes} == {"direct"}
    assert all(r.call != r.first_calls and r.call.__qualname__.startswith("LaunchRecipe.steady_calls_of_outputs")
               for r in recipes)
    expected = x.t().half() * -2 + 0.5
    assert torch.equal(parts(x.t().half(), -2, 0.5)[0], expected)


@needs_cuda
def test_out_calls_into_misaligned_outputs_launch_directly():
    """The odd elements of a row written in place (4 bytes past 16-byte alignment), or a slice
    one element on: the recipe arms the kernel Triton specialized for misaligned outputs, and an
    aligned output of the same shape and strides takes a recipe of its own (its key differs)."""
    from tritonize import pointwise

    @pointwise
    def rotate(a, b, cos, sin):
        return a * cos - b * sin, a * sin + b * cos

    @pointwise
    def scaled(x, s: float):
        return x * s

    x = torch.randn(8, 64, device="cuda")
    cos, sin = torch.randn(8, 32, device="cuda"), torch.randn(8, 32, device="cuda")
    buffer = torch.randn(4097, device="cuda")
    for _ in range(4):
        even, odd = x[:, ::2], x[:, 1::2]
        expected = rotate(even.clone(), odd.clone(), cos, sin)
        rotate(even, odd, cos, sin, out=(even, odd))
        assert torch.equal(x[:, ::2], expected[0]) and torch.equal(x[:, 1::2], expected[1])
        for start in (1, 0):  # misaligned, then aligned: two recipes
            source = buffer[start + 2048:start + 4096].clone()
            assert scaled(source, 0.5, out=buffer[start:start + 2048]) is not None
            assert torch.equal(buffer[start:start + 2048], source * 0.5)
    recipes = [*rotate._out_recipes.values(), *scaled._out_recipes.values()]
    assert len(recipes) == 3
    assert {r.fast_kind for r in recipes} == {"direct"}
    assert all(r.write != r.first_writes for r in recipes)


def test_dependent_launch_is_for_launches_larger_than_the_l2_or_asked_for_and_on_hopper_only(monkeypatch):
    """call.dependent_launch: by default for launches that move more bytes than the L2 holds;
    TRITONIZE_DEPENDENT_LAUNCH=1 asks for it at every size, =0 for none, other values are refused;
    only CUDA devices of compute capability 9 and up, never the CPU, and not 16-bit costly kernels
    in small blocks over more than half a wave (the one case pdl_sweep found slower)."""
    from tritonize import call

    l2 = 50 * 2**20  # an H100's
    monkeypatch.setattr(call, "l2_bytes", lambda device: l2)
    monkeypatch.setattr(call, "device_threads", lambda device: 132 * 2048)
    capability = {"now": (9, 0)}
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: capability["now"])
    gpu, cpu = torch.device("cuda", 0), torch.device("cpu")
    monkeypatch.delenv("TRITONIZE_DEPENDENT_LAUNCH", raising=False)
    for found, expected in (((9, 0), True), ((10, 0), True), ((8, 9), False)):
        capability["now"] = found
        call._hopper_with_grid_dependency_ops.cache_clear()
        assert call.dependent_launch(gpu, (2**24,), moved_bytes=l2 + 1) is expected, found
        assert call.dependent_launch(gpu, (2**22,), moved_bytes=l2) is False  # fits in the L2: not by default
    assert call.dependent_launch(cpu, (2**24,), moved_bytes=l2 + 1) is False
    capability["now"] = (9, 0)
    monkeypatch.setattr(torch.version, "hip", "6.2")  # ROCm: its gfx9 devices report (9, x)
    call._hopper_with_grid_dependency_ops.cache_clear()
    assert call.dependent_launch(gpu, (2**24,), moved_bytes=l2 + 1) is False
    monkeypatch.setattr(torch.version, "hip", None)
    call._hopper_with_grid_dependency_ops.cache_clear()
    for setting, small, large in (("1", True, True), (" 1 ", True, True), ("0", False, False), ("", False, True)):
        monkeypatch.setenv("TRITONIZE_DEPENDENT_LAUNCH", setting)
        assert call.dependent_launch(gpu, (2**20,), moved_bytes=12 * 2**20) is small, setting
        assert call.dependent_launch(gpu, (2**24,), moved_bytes=3 * 2**26) is large, setting
        assert call.dependent_launch(cpu, (2**20,), moved_bytes=12 * 2**20) is False
    for wrong in ("yes", "true", "2"):
        monkeypatch.setenv("TRITONIZE_DEPENDENT_LAUNCH", wrong)
        with pytest.raises(ValueError, match=f"TRITONIZE_DEPENDENT_LAUNCH='{wrong}': use 1"):
            call.dependent_launch(gpu, (2**20,))
        assert call.dependent_launch(cpu, (2**20,)) is False  # the CPU never reads it
    monkeypatch.setenv("TRITONIZE_DEPENDENT_LAUNCH", "1")
    # (sizes, tile, costly math, gathered, element bytes) -> dependent launch
    cases = {((2**20,), None, True, False, 2): False,  # 2048 blocks of 512: about a wave
             ((1024, 1024), None, True, False, 1): False,
             ((2**19,), None, True, False, 2): True,  # half a wave
             ((2**21,), None, True, False, 2): True,  # blocks of 1024
             ((2**20,), None, True, False, 4): True,  # float32
             ((2**20,), None, False, False, 2): True,  # light math
             ((2**20,), None, True, True, 2): True,  # gathered: blocks of CUDA_GATHER_BLOCK
             ((1024, 1024), (0, 1, (True, False)), True, False, 2): True}  # tiles
    assert call.small_costly_blocks(gpu, (1024, 1024), True) and not call.small_costly_blocks(gpu, (2**21,), True)
    assert not call.small_costly_blocks(gpu, (2**20,), False)
    for (sizes, tile, costly, gathered, width), expected in cases.items():
        assert call.dependent_launch(gpu, sizes, tile, costly, gathered, width) is expected, (sizes, tile, costly)
    call._hopper_with_grid_dependency_ops.cache_clear()


def test_moved_bytes_counts_each_operand_s_distinct_elements():
    """call.moved_bytes, what dependent_launch weighs against the L2: a broadcast dim (stride 0)
    counts once, each operand at its own element size, outputs included."""
    from tritonize import call, pointwise

    @pointwise
    def scaled_sum(a, b, k: float = 2.0):
        return a * k + b

    cases = [((torch.randn(64, 32), torch.randn(32)), (64 * 32 + 32 + 64 * 32) * 4),
             ((torch.randn(64, 32, dtype=torch.bfloat16), torch.randn(64, 1, dtype=torch.bfloat16)),
              (64 * 32 + 64 + 64 * 32) * 2),
             # a (1, 1) tensor: one element; a 0-d tensor in CPU memory is passed by value (no bytes), float16 out
             ((torch.randn(64, 32, dtype=torch.float16), torch.ones(1, 1)), 64 * 32 * 2 + 4 + 64 * 32 * 4),
             ((torch.randn(64, 32, dtype=torch.float16), torch.tensor(1.0)), 64 * 32 * 2 + 64 * 32 * 2),
             ((torch.randn(32, 64).t(), torch.randn(64, 32)), 3 * 64 * 32 * 4),
             ((torch.randn(64, 64)[:, ::2], torch.randn(64, 32)), 3 * 64 * 32 * 4)]
    for args, expected in cases:
        plan, _ = scaled_sum.plan(args, {}, None)
        assert call.moved_bytes(plan.sizes, plan.inputs + plan.outputs) == expected, [a.shape for a in args]


def cuda_kernel(function, args, **spec_changes):
    """(module source, kernel FunctionDef) that `function` generates for a CUDA call with these
    arguments, planned here with `spec_changes` applied to its specialization."""
    import ast
    import dataclasses

    from tritonize.passes import generate_module

    _, spec = function.plan(args, {}, None)
    source = generate_module(function._ctx, dataclasses.replace(spec, device_type="cuda", **spec_changes), "TEST")
    kernel = next(node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)
                  and node.name.endswith("_kernel"))
    return source, kernel


def test_a_dependent_kernel_waits_before_its_first_load_and_releases_after_its_last():
    """Generated CUDA modules with dependent_launch: gdc_wait comes before every load and store
    and gdc_launch_dependents after every load and before every store, and the launch asks for
    PDL; without it, none of the three appear."""
    import ast

    from tritonize import pointwise

    @pointwise
    def two(a, b, k: float = 2.0):
        t = a * k
        return t + b, t - b

    @pointwise
    def scaled(x, k: float):
        return x * k

    calls = [(two, (torch.randn(4, 5), torch.randn(5))), (two, (torch.randn(4, 5).t(), torch.randn(5, 4))),
             (scaled, (torch.tensor(3.0), 2.0)), (scaled, (torch.randn(64), 2.0)),
             (two, (torch.randn(70), torch.randn(70)))]  # rank 1, a ragged block: loads and stores in ifs
    for function, args in calls:
        for on in (True, False):
            source, kernel = cuda_kernel(function, args, dependent_launch=on)
            calls_in_source_order = sorted((node for node in ast.walk(kernel) if isinstance(node, ast.Call)),
                                           key=lambda node: (node.lineno, node.col_offset))
            order = [ast.unparse(node.func) for node in calls_in_source_order
                     if ast.unparse(node.func) in ("tl.load", "tl.store", "tl_cuda.gdc_wait",
                                                   "tl_cuda.gdc_launch_dependents")]
            if not on:
                assert not any(name.startswith("tl_cuda") for name in order) and "launch_pdl" not in source
                continue
            wait, release = order.index("tl_cuda.gdc_wait"), order.index("tl_cuda.gdc_launch_dependents")
            loads = [i for i, name in enumerate(order) if name == "tl.load"]
            stores = [i for i, name in enumerate(order) if name == "tl.store"]
            assert order.count("tl_cuda.gdc_wait") == order.count("tl_cuda.gdc_launch_dependents") == 1
            assert all("tl_cuda" not in ast.unparse(n) for n in kernel.body if isinstance(n, ast.If))
            assert stores and all(wait < i for i in loads + stores) and wait < release
            assert all(i < release for i in loads) and all(release < i for i in stores)
            assert "launch_pdl=True" in source and "dependent launch (PDL)" in source
            assert "from triton.language.extra import cuda as tl_cuda" in source


def test_a_tensor_the_function_never_reads_is_not_loaded_and_moves_no_bytes():
    """A tensor parameter the function never reads (fill's input: its shape and dtype only) gets
    no load in the kernel, on the CPU and CUDA alike, and a comment saying why; its bytes do not
    count toward the launch's moved bytes (call.moved_bytes over the inputs read), which decides
    dependent launch and its blocks. The results are unchanged."""
    import tritonize.ops as tops
    from tritonize import call, pointwise

    @pointwise
    def first(a, b):
        return a * 2.0

    @pointwise
    def both(a, b):
        return a * 2.0 + b

    a, b = torch.randn(8, 16), torch.randn(8, 16)
    assert first._read_params == {"a"} and both._read_params == {"a", "b"}
    for source in (first.source(a, b), cuda_kernel(first, (a, b))[0]):  # the CPU's module, a CUDA one
        assert "tl.load(a_ptr" in source and "tl.load(b_ptr" not in source, source
        assert "# b: not read by the function (only its shape and dtype count), so not loaded" in source
    for source in (both.source(a, b), cuda_kernel(both, (a, b))[0]):
        assert "tl.load(b_ptr" in source and "not read by the function" not in source
    assert torch.equal(first(a, b), a * 2.0) and torch.equal(both(a, b), a * 2.0 + b)
    assert torch.equal(tops.fill(a, 2.5), torch.full_like(a, 2.5))
    captured = {}

    def dependent_launch(device, sizes, tile, costly, gathered, element_bytes, moved_bytes):
        captured["moved"] = moved_bytes
        return False

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(call, "dependent_launch", dependent_launch)
        first.plan((a, b), {}, None)
        assert captured["moved"] == 2 * a.numel() * 4  # a and the output; not b
        both.plan((a, b), {}, None)
        assert captured["moved"] == 3 * a.numel() * 4


def test_an_input_broadcast_along_every_tiled_dim_is_one_value_per_program(device):
    """A tile walks dim p and the dims after it; an input broadcast along all of them (its shape
    (2, 1, 1, 1) against (2, 1, 2, 2)) has one value per program, loaded without the tile's
    mask (a block mask on a single pointer does not compile: hypothesis found it on an H200),
    and the results are torch's."""
    import dataclasses

    from tritonize import pointwise
    from tritonize.passes import generate_module

    @pointwise
    def axpy_and_diff(a, b):
        return a * 3 + b, a - b

    a, b = torch.randn(2, 1, 1, 1, device=device), torch.randn(2, 1, 2, 2, device=device)
    outs = tuple(torch.empty(2, 1, 2, 2, device=device).transpose(2, 3) for _ in range(2))
    _, spec = axpy_and_diff.plan((a, b), {}, outs)
    assert spec.tile is not None and dict(spec.broadcast_dims)["a"] == tuple(range(spec.tile[0], spec.rank))
    source = generate_module(axpy_and_diff._ctx, dataclasses.replace(spec, device_type="cuda"), "TEST")
    loads = [line.strip() for line in source.splitlines() if "tl.load(" in line]
    assert loads[0] == "a = tl.load(a_ptr + i0 * a_stride0)" and "mask=mask" in loads[1], loads
    first, second = axpy_and_diff(a, b, out=outs)
    assert torch.equal(first, a * 3 + b) and torch.equal(second, a - b)


def test_a_flat_walk_masks_only_its_last_block():
    """A flat kernel (rank 1, or decoded from rank 2 on) whose blocks do not cover its tasks
    loads and stores whole blocks without the mask, so that Triton keeps their accesses vectors,
    and masks only the last block; its results equal torch's on both sides of each block
    boundary. Walks whose blocks cover the tasks, and tiles, keep one path."""
    import ast

    from tritonize import pointwise

    @pointwise
    def axpy_and_diff(a, b, k: float = 0.5):
        return a * k + b, a - b

    def kernel_ifs(args):
        return [node for node in cuda_kernel(axpy_and_diff, args)[1].body if isinstance(node, ast.If)]

    # rank 1, and rank 2 with b broadcast along either dim (the CPU's blocks: up to 4096)
    shapes = [((n,), (n,)) for n in (3 * 4096 + 7, 4096 + 1, 70, 1)] + [((65, 67), (67,)), ((131, 33), (131, 1))]
    for shape, other in shapes:
        a, b = torch.randn(shape), torch.randn(other)
        loads, stores = kernel_ifs((a, b))
        for branch, masked in ((loads.body, False), (loads.orelse, True), (stores.body, False), (stores.orelse, True)):
            calls = [node for node in ast.walk(ast.Module(body=branch, type_ignores=[])) if isinstance(node, ast.Call)
                     and ast.unparse(node.func) in ("tl.load", "tl.store")]
            assert len(calls) == 2 and all(any(k.arg == "mask" for k in c.keywords) is masked for c in calls)
        first, second = axpy_and_diff(a, b)
        assert torch.equal(first, a * 0.5 + b) and torch.equal(second, a - b)
        ints = torch.arange(a.numel(), dtype=torch.int32).reshape(shape)
        other_ints = torch.arange(b.numel(), dtype=torch.int32).flip(0).reshape(other)
        first, second = axpy_and_diff(ints, other_ints, 3)  # k: float, so a float32 first result
        expected = (ints * 3.0 + other_ints, ints - other_ints)
        assert [r.dtype for r in (first, second)] == [e.dtype for e in expected] == [torch.float32, torch.int32]
        assert torch.equal(first, expected[0]) and torch.equal(second, expected[1])
    assert kernel_ifs((torch.randn(8192), torch.randn(8192))) == []  # blocks cover the tasks: no masks
    assert kernel_ifs((torch.randn(64, 64), torch.randn(64))) == []
    assert kernel_ifs((torch.randn(33, 31).t(), torch.randn(31, 33))) == []  # a tile


@pytest.mark.parametrize("b_shape, flat", [((67,), (True, False, True, True)), ((131, 1), (True, False, True, True)),
                                           ("transposed", ())])
def test_dense_operands_of_a_decoded_walk_are_addressed_by_the_task_id(b_shape, flat):
    """In a decoded walk, a tensor whose strides are the dense row-major strides of the walk
    (here `a` and both outputs) is read and written at `ptr + tid`, which Triton sees run on
    across rows where the inner size (67, 33) is not a multiple of 16; a broadcast operand keeps
    its decoded address. The header says which; results equal torch's, also with out= tensors
    that are not dense (which keep decoded addresses)."""
    import ast

    from tritonize import call, pointwise

    @pointwise
    def axpy_and_diff(a, b, k: float = 0.5):
        return a * k + b, a - b

    a = torch.randn(131, 67) if b_shape != (131, 1) else torch.randn(131, 33)
    b = torch.randn(b_shape) if b_shape != "transposed" else torch.randn(a.shape[::-1]).t()
    _, spec = axpy_and_diff.plan((a, b), {}, None)
    assert spec.flat_indexed == flat
    source, kernel = cuda_kernel(axpy_and_diff, (a, b))
    addresses = {ast.unparse(node.args[0]) for node in ast.walk(kernel) if isinstance(node, ast.Call)
                 and ast.unparse(node.func) in ("tl.load", "tl.store")}
    at_tid = {address.split(" + ")[0] for address in addresses if address.endswith(" + tid")}
    assert at_tid == ({"a_ptr", "out0_ptr", "out1_ptr"} if flat else set())
    assert ("a, out0, out1 at the flat index" in source) == bool(flat)
    first, second = axpy_and_diff(a, b)
    assert torch.equal(first, a * 0.5 + b) and torch.equal(second, a - b)
    outs = (torch.empty(a.shape[::-1]).t(), torch.empty(a.shape[0], 2 * a.shape[1])[:, ::2])
    _, spec = axpy_and_diff.plan((a, b), {}, outs)
    assert spec.tile or spec.flat_indexed == (flat[:2] + (False, False) if flat else ())
    axpy_and_diff(a, b, out=outs)
    assert torch.equal(outs[0], a * 0.5 + b) and torch.equal(outs[1], a - b)


def test_flat_indexed_rule():
    """Dense row-major strides over the walk's sizes, size-1 dims aside; only decoded walks."""
    from tritonize import call

    assert call.flat_indexed([5, 7], [[7, 1], [0, 1], [1, 5]], None) == (True, False, False)
    assert call.flat_indexed([5, 1, 7], [[7, 99, 1], [14, 7, 2]], None) == (True, False)
    assert call.flat_indexed([3, 5, 7], [[35, 7, 1], [0, 7, 1]], None) == (True, False)
    assert call.flat_indexed([5, 7], [[0, 1], [1, 0]], None) == ()  # nothing dense
    assert call.flat_indexed([35], [[1], [1]], None) == ()  # rank 1 walks index by tid anyway
    assert call.flat_indexed([5, 7], [[7, 1], [1, 5]], (0, 1, (True, True))) == ()  # tiles


@given(st.lists(st.integers(1, 5), min_size=2, max_size=4).flatmap(
    lambda sizes: st.tuples(st.just(sizes), st.lists(st.lists(st.sampled_from([0, 1, 2, 3, 5, 7, 12, 35, 60]),
                                                              min_size=len(sizes), max_size=len(sizes)),
                                                     min_size=1, max_size=3))))
def test_flat_indexed_and_fits_int32_agree_with_their_definitions(case):
    """The two size checks every plan makes, written for speed, against their definitions: dense
    row-major strides where every dim of more than one element has its row-major stride; every
    operand's farthest element, sum((n - 1) * |stride|), within int32 (negative strides too)."""
    from tritonize import call

    sizes, stride_lists = case
    dense = [math.prod(sizes[d + 1:]) for d in range(len(sizes))]
    found = tuple(all(s == t for n, s, t in zip(sizes, strides, dense) if n != 1) for strides in stride_lists)
    assert call.flat_indexed(sizes, stride_lists, None) == (found if any(found) else ())
    for scale in (1, -1, 2**24, -2**25):
        scaled = [[s * scale for s in strides] for strides in stride_lists]
        spans = [sum((n - 1) * abs(s) for n, s in zip(sizes, strides)) for strides in scaled]
        expected = math.prod(sizes) + 64 <= call.INT32_LIMIT and max(spans) <= call.INT32_LIMIT
        assert call.fits_int32(sizes, scaled, 64) == expected


@given(st.lists(st.integers(0, 6), max_size=5))
def test_row_major_strides_are_torchs(shape):
    """call.row_major_strides, written for speed: the dims innermost first as allocation_strides
    lays them out, and torch.empty's strides wherever no size is 0."""
    from tritonize import call

    shape = tuple(shape)
    expected = tuple(call.allocation_strides(shape, list(range(len(shape) - 1, -1, -1))))
    assert call.row_major_strides(shape) == expected
    if 0 not in shape:
        assert expected == torch.empty(shape).stride()


@needs_cuda
def test_dependent_flat_launches_of_light_programs_take_grown_blocks(monkeypatch):
    """A bfloat16 negation of 2^24 elements and a uint8 add of 2^25 move more than an H100's or
    H200's L2, so on Hopper they launch as programmatic dependents, whose programs of 1024 elements
    would move 4 and 3 KiB: their blocks grow to 2048 (8 warps for bfloat16, 4 for uint8's 16-byte
    vectors) and they still compute torch's results."""
    from tritonize import call, pointwise

    monkeypatch.delenv("TRITONIZE_DEPENDENT_LAUNCH", raising=False)

    @pointwise
    def negate(x):
        return -x

    @pointwise
    def plus(a, b):
        return a + b

    x = torch.randn(2**24, device="cuda").to(torch.bfloat16)
    a, b = (torch.randint(0, 256, (2**25,), device="cuda", dtype=torch.uint8) for _ in range(2))
    hopper = torch.cuda.get_device_capability()[0] >= 9
    for fn, args, expected, shape in ((negate, (x,), -x, (2048, 8)), (plus, (a, b), a + b, (2048, 4))):
        plan, spec = fn.plan(args, {}, None)
        dependent = hopper and call.moved_bytes(plan.sizes, plan.inputs + plan.outputs) > call.l2_bytes(x.device)
        assert spec.dependent_launch is dependent
        assert (plan.blocks[0], plan.warps) == (shape if dependent else (1024, 4))
        assert torch.equal(fn(*args), expected)


@needs_cuda
@pytest.mark.parametrize("setting, numel", [("1", 2**22), ("", 2**24)])
def test_dependent_launches_see_the_writes_of_the_kernels_before_them(monkeypatch, setting, numel):
    """With dependent launch on a Hopper GPU (asked for with TRITONIZE_DEPENDENT_LAUNCH=1, or by
    default for launches larger than the L2), chains of kernels where each reads what the one
    before wrote (tritonize after tritonize, after torch, before torch, and replayed as a CUDA
    graph) give exactly torch's results: each kernel's gdc_wait holds its loads until the writes
    before it are visible."""
    from tritonize import call, pointwise

    monkeypatch.setenv("TRITONIZE_DEPENDENT_LAUNCH", setting)

    @pointwise
    def step(a, b):
        return a * 0.5 + b

    a = torch.randn(numel, device="cuda")
    b = torch.randn(numel, device="cuda")
    expected, got = a.clone(), a.clone()
    for _ in range(30):
        expected = expected * 0.5 + b
        got = step(got, b)
    assert torch.equal(got, expected)
    for _ in range(10):  # torch writes, tritonize reads; tritonize writes, torch reads
        expected = (expected * 0.5 + b).mul(3.0)
        got = step(got, b).mul(3.0)
        got.add_(1.0)
        expected.add_(1.0)
    assert torch.equal(got, expected)
    spec = next(iter(step._modules))
    assert 3 * numel * 4 > call.l2_bytes(a.device) or setting == "1"
    assert spec.dependent_launch is (torch.cuda.get_device_capability(a.device)[0] >= 9)  # what was tested
    static_in, static_b = a.clone(), b.clone()
    graph = torch.cuda.CUDAGraph()
    step(static_in, static_b)  # compiled and memoized before the capture
    with torch.cuda.graph(graph):
        chained = static_in
        for _ in range(8):
            chained = step(chained, static_b)
    graph.replay()
    reference = a.clone()
    for _ in range(8):
        reference = reference * 0.5 + b
    assert torch.equal(chained, reference)


# -- which libdevice CUDA kernels link (launch.toolkit_libdevice) -------------------------------

def toolkit(root, version, by="json"):
    """A stand-in CUDA toolkit under `root` with its libdevice, its version in version.json or
    only in the directory's name."""
    library = root / "nvvm" / "libdevice"
    library.mkdir(parents=True)
    (library / "libdevice.10.bc").write_bytes(b"BC")
    if by == "json":
        (root / "version.json").write_text('{"cuda": {"name": "CUDA SDK", "version": "%s"}}' % version)
    return str(library / "libdevice.10.bc")


def test_a_toolkit_of_torchs_cuda_version_is_chosen_the_newest_first(tmp_path):
    older = toolkit(tmp_path / "a", "13.0.48")
    newer = toolkit(tmp_path / "cuda-13.2", None, by="name")
    roots = [str(tmp_path / "a"), str(tmp_path / "cuda-13.2")]
    assert toolkit_libdevice({}, "13.0", roots) == newer
    assert toolkit_libdevice({}, "13.0", roots[:1]) == older


def test_other_major_versions_older_toolkits_and_none_leave_tritons(tmp_path):
    roots = [str(tmp_path / "a"), str(tmp_path / "b")]
    toolkit(tmp_path / "a", "12.9.86")
    toolkit(tmp_path / "b", "13.0.48")
    assert toolkit_libdevice({}, "13.1", roots) is None  # 13.0 is older than torch's 13.1
    assert toolkit_libdevice({}, "11.8", roots) is None
    assert toolkit_libdevice({}, None, roots) is None  # a CPU build of torch
    assert toolkit_libdevice({}, "12.8", roots).startswith(str(tmp_path / "a"))
    assert toolkit_libdevice({}, "13.0", [str(tmp_path / "missing")]) is None


def test_the_environment_chooses_first(tmp_path):
    chosen = toolkit(tmp_path / "mine", "13.0.0")
    found = [str(tmp_path / "mine")]
    assert toolkit_libdevice({"TRITONIZE_LIBDEVICE": chosen}, None, []) == chosen
    assert toolkit_libdevice({"TRITONIZE_LIBDEVICE": "triton"}, "13.0", found) is None
    assert toolkit_libdevice({"TRITON_LIBDEVICE_PATH": chosen}, "13.0", found) is None  # Triton's own knob
    with pytest.raises(FileNotFoundError, match="TRITONIZE_LIBDEVICE"):
        toolkit_libdevice({"TRITONIZE_LIBDEVICE": str(tmp_path / "nothing.bc")}, None, [])


def test_capped_kernels_launch_with_maxnreg_and_say_so(monkeypatch):
    """Specialization.max_registers: a CUDA module launches its kernel with `maxnreg=N` and its header says so;
    one without a cap passes none. The decorator plans the cap through call.max_registers with the function's
    math_table.caps_registers: J0's kernel asks, Y0's, airy_ai's and exp's do not."""
    import ast

    from tritonize import call
    from tritonize.ops import math_ops

    x = torch.randn(300, dtype=torch.float64)
    for cap in (48, 64):
        source, _ = cuda_kernel(math_ops.bessel_j0_kernel, (x,), max_registers=cap)
        launch = next(node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)
                      and node.name == "launch")
        held = [k.value.value for node in ast.walk(launch) if isinstance(node, ast.Call)
                for k in node.keywords if k.arg == "maxnreg"]
        assert held == [cap]
        assert f"at most {cap} registers a thread" in source.splitlines()[2]  # the specialization line
    source, _ = cuda_kernel(math_ops.bessel_j0_kernel, (x,))
    assert "maxnreg" not in source and "registers a thread" not in source
    asked = []
    monkeypatch.setattr(call, "max_registers",
                        lambda device, tile, element_bytes, caps: asked.append((tile, element_bytes, caps)) or 0)
    for function in (math_ops.bessel_j0_kernel, math_ops.bessel_y0_kernel, math_ops.airy_ai_kernel,
                     math_ops.exp_kernel):
        function.plan((x,), {}, None)
    function.plan((x.float(),), {}, None)
    assert asked == [(None, 8, True), (None, 8, False), (None, 8, False), (None, 8, False), (None, 4, False)]


@needs_cuda
def test_capped_cuda_kernels_hold_their_registers():
    """A flat CUDA launch of the op library's float64 J0 is compiled with ptxas held to call.CAPPED_REGISTERS's
    cap (Triton's `maxnreg`), under what ptxas allocates unheld, and gives the uncapped kernel's results bit for
    bit; float32 J0 plans the float32 cap, float64 Y0 none (math_table.CAPPED_ROWS)."""
    from tritonize import call
    from tritonize.ops import math_ops

    j0 = math_ops.bessel_j0_kernel

    def launched(x):
        """J0 of x planned afresh, and the kernel Triton compiled for it."""
        for memo in (j0._recipes, j0._class_templates, j0._class_walks, j0._kernels):
            memo.clear()
        result = j0(x)
        (compiled,) = j0._kernels.values()
        return result, compiled

    x = torch.linspace(-40.0, 40.0, 5000, dtype=torch.float64, device="cuda")
    assert j0.plan((x.float(),), {}, None)[1].max_registers == call.CAPPED_REGISTERS[False]
    cap = call.CAPPED_REGISTERS[True]
    assert cap > 0 and j0.plan((x,), {}, None)[1].max_registers == cap
    assert math_ops.bessel_y0_kernel.plan((x,), {}, None)[1].max_registers == 0
    capped, compiled = launched(x)
    assert compiled.n_regs <= cap
    try:
        call.CAPPED_REGISTERS[True] = 0
        uncapped, compiled = launched(x)
    finally:
        call.CAPPED_REGISTERS[True] = cap
    assert compiled.n_regs > cap  # the cap held ptxas below what it allocates unheld
    assert torch.equal(capped, uncapped)
    launched(x)  # no memo keeps the uncapped plan


@needs_cuda
def test_cuda_kernels_link_the_chosen_libdevice():
    """A CUDA op's kernel is compiled with the libdevice extern_libs() chose (Triton's own where
    it chose none)."""
    from tritonize.ops.math_ops import sinh_kernel
    x = torch.randn(1024, device="cuda")
    torch.testing.assert_close(sinh_kernel(x), torch.sinh(x))
    compiled = [r.compiled for r in sinh_kernel._recipes.values() if getattr(r, "compiled", None) is not None]
    assert compiled, "the call was memoized with its compiled kernel"
    linked = dict(compiled[-1].metadata.extern_libs)["libdevice"]
    chosen = extern_libs()
    expected = chosen["libdevice"] if chosen else os.path.join(
        os.path.dirname(triton.__file__), "backends", "nvidia", "lib", "libdevice.10.bc")
    assert os.path.realpath(linked) == os.path.realpath(expected)


def test_importing_tritonize_warms_tritons_cache_key_in_a_thread_once(monkeypatch):
    """warm_triton (called by `import tritonize` on CUDA builds) computes Triton's cache key in a
    daemon thread, so that the first launch finds it computed; once a process, never on a CPU
    build or with TRITONIZE_WARM_TRITON=0, and a fork waits for the thread."""
    import threading
    import time

    from triton.runtime.cache import triton_key

    from tritonize import launch

    monkeypatch.setattr(launch, "_warming", None)
    triton_key.cache_clear()
    assert launch.warm_triton(environ={}, cuda_version=None) is None  # a CPU build
    assert launch.warm_triton(environ={"TRITONIZE_WARM_TRITON": "0"}, cuda_version="13.0") is None
    assert triton_key.cache_info().currsize == 0
    thread = launch.warm_triton(environ={}, cuda_version="13.0")
    assert thread is not None and thread.daemon
    thread.join(120)
    assert not thread.is_alive() and triton_key.cache_info().currsize == 1
    assert launch.warm_triton(environ={}, cuda_version="13.0") is None  # once a process
    slow = threading.Thread(target=time.sleep, args=(0.3,), daemon=True)
    slow.start()
    monkeypatch.setattr(launch, "_warming", slow)
    launch._finish_warming()  # what os.fork runs first
    assert not slow.is_alive()

"""Launching a compiled kernel again without Triton's per-call Python: the steady path of a
memoized call on CUDA.

Triton's `JITFunction.__getitem__(grid)(...)` binds every argument, hashes the
specialization and looks the kernel up on each call (tens of microseconds); its
`CompiledKernel[grid]` runner still asks torch for the current device and stream, builds
launch metadata for the profiling hooks and goes through the launcher's Python wrapper.
Once a call's kernel is compiled, a memoized call only needs the compiled launcher with
the current stream. How to reach it differs between Triton versions, so `direct_launcher`
recognizes the launcher it finds and otherwise answers None: the caller then keeps
`CompiledKernel[grid]`, and where that fails too, the JIT path (TRITONIZE_FAST_LAUNCH=0
forces that last one).
"""
from __future__ import annotations

import functools
import glob
import inspect
import json
import os
import re
import threading

import torch

# The launcher's Python wrapper, `CudaLauncher.__call__`, by the parameters it takes:
# Triton 3.6 passes (packed metadata, launch metadata, hooks, *kernel args) through *args
# to a C `launch` taking scratch buffers before them; Triton 3.9 names them and its C
# `launch` takes the kernel arguments as one tuple with their annotations.
LAYOUT_3_6 = ("self", "gridX", "gridY", "gridZ", "stream", "function", "args")
LAYOUT_3_9 = ("self", "gridX", "gridY", "gridZ", "stream", "function", "kernel_metadata", "launch_metadata",
              "launch_enter_hook", "launch_exit_hook", "args")


@functools.cache
def _call_parameters(launcher_type) -> tuple | None:
    """The parameter names of a launcher class's __call__, once a class: inspect.signature
    took ~30 us of each new-shape call's ~130 on an H100 when asked per kernel."""
    try:
        return tuple(inspect.signature(launcher_type.__call__).parameters)
    except (TypeError, ValueError):
        return None


def launcher_layout(launcher) -> str | None:
    """'3.6' or '3.9' where the compiled kernel's launcher is one whose C entry point this
    module knows how to call, else None."""
    names = _call_parameters(type(launcher))
    if names is None:
        return None
    needed = ("launch", "launch_cooperative_grid", "launch_pdl", "global_scratch_size", "profile_scratch_size")
    if not all(hasattr(launcher, attribute) for attribute in needed):
        return None
    if launcher.global_scratch_size or launcher.profile_scratch_size:
        return None  # the kernel needs scratch memory per launch: Triton's wrapper allocates it
    if names == LAYOUT_3_6:
        return "3.6"
    if names == LAYOUT_3_9 and not getattr(launcher, "gsan_enabled", False) \
            and hasattr(launcher, "arg_annotations") and hasattr(launcher, "kernel_signature"):
        return "3.9"
    return None


def integer_class(value: int):
    """What a kernel Triton compiles for an integer argument it specializes depends on: 1 is
    a constant of the kernel; any other value is typed by the narrowest of int32, int64 and
    uint64 that holds it and marked where 16 divides it. Two calls whose integers fall in the
    same classes run the same compiled kernel (tests/test_launch.py checks this against the
    installed Triton's own specialization)."""
    return integer_classes((value,))[0]


def integer_classes(values) -> tuple:
    """integer_class of each of `values`, in one comprehension: a class launch asks it of each of
    its ~10 integer arguments, and a call of integer_class apiece took ~1 us of it."""
    return tuple([1 if value == 1 else (value % 16 == 0, 0 if -2**31 <= value < 2**31 else
                                        1 if -2**63 <= value < 2**63 else 2) for value in values])


def _idle(hook) -> bool:
    """No profiling hook is registered (Triton 3.6 keeps an empty HookChain, 3.9 None)."""
    return hook is None or (type(getattr(hook, "calls", None)) is list and not hook.calls)


def three_dims(grid: tuple) -> tuple:
    """A launch grid of one or two dims as the three that Triton 3.6's runner reads."""
    return (*grid, 1, 1)[:3]


def _entry(compiled, grid: tuple, knobs=None, current_stream=None):
    """What launching `compiled` without Triton's wrapper takes, or None where this Triton's
    launcher is not one this module knows (or a profiling hook is registered now): Triton's
    runner on `grid` (three dims), the layout, the C entry point, the arguments between the
    stream and the kernel's own, the current stream's accessor, and the hooks (runtime, enter,
    exit, enter_calls, exit_calls). Loads the kernel's module. A launch may go around the runner
    while `runtime.launch_enter_hook is enter and runtime.launch_exit_hook is exit and not
    enter_calls and not exit_calls`: no profiler registered (or replaced) a hook since."""
    try:
        runner = compiled[grid]  # loads the module
        launcher, function, metadata = compiled.run, compiled.function, compiled.packed_metadata
    except Exception:
        return None
    if knobs is None:
        from triton import knobs
    layout = launcher_layout(launcher)
    if layout is None:
        return None
    runtime = knobs.runtime
    # torch's C accessor of the current stream: what Triton's own driver calls, minus its wrapper
    current_stream = current_stream or getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if current_stream is None:
        return None
    # the hooks as they are now: while these same objects stay empty, no launch needs the runner
    enter, exit = runtime.launch_enter_hook, runtime.launch_exit_hook
    if not (_idle(enter) and _idle(exit)):
        return None
    # an empty HookChain's list of calls (mutated in place when a profiler adds a hook)
    enter_calls, exit_calls = getattr(enter, "calls", ()), getattr(exit, "calls", ())
    cooperative, pdl = launcher.launch_cooperative_grid, launcher.launch_pdl
    if layout == "3.6":
        between = (function, cooperative, pdl, None, None, metadata, None, None, None)
    else:  # Triton 3.9's C entry point takes the kernel arguments as one tuple, with their annotations
        between = (function, cooperative, pdl, metadata, None, None, None, None, None, launcher.arg_annotations,
                   launcher.kernel_signature)
    return runner, layout, launcher.launch, between, current_stream, (runtime, enter, exit, enter_calls, exit_calls)


def direct_launcher(compiled, grid: tuple, device: torch.device, knobs=None, current_stream=None, output=None):
    """A function `launch(kernel_args)` that launches `compiled` on the grid (one or two dims)
    on the device's current stream, the kernel's arguments given as one tuple, pointers as
    ints; None where this Triton's launcher is not one it knows. With `output`, a triple
    (like, allocate, tail), it is instead the steady path's `call(args, pointers)`: allocate
    the one output (`torch.empty_like(args[like])`, or where `like` is None `allocate(args)`),
    launch on (*pointers, its pointer, *tail), return it; one closure, since each Python call
    here costs ~0.1-0.2 us of a ~9 us call. While a
    launch hook is registered (a profiler), each launch goes through Triton's own runner so
    that the hook sees it."""
    grid_x, grid_y, grid_z = three_dims(grid)
    entry = _entry(compiled, (grid_x, grid_y, grid_z), knobs, current_stream)
    if entry is None:
        return None
    runner, layout, c_launch, between, current_stream, (runtime, enter, exit, enter_calls, exit_calls) = entry
    index = device.index
    # each closure below tests the hooks as _entry says (inlined: a function call costs ~0.1 us);
    # while a profiler has registered one, Triton's runner launches, and calls the hook
    like, allocate, tail = output or (None, None, ())
    empty_like = torch.empty_like

    if layout == "3.6":
        if output is None:
            def launch(args):
                if (runtime.launch_enter_hook is enter and runtime.launch_exit_hook is exit
                        and not enter_calls and not exit_calls):
                    c_launch(grid_x, grid_y, grid_z, current_stream(index), *between, *args)
                else:
                    runner(*args)
            return launch

        def call(args, pointers):
            out = empty_like(args[like]) if like is not None else allocate(args)
            if (runtime.launch_enter_hook is enter and runtime.launch_exit_hook is exit
                    and not enter_calls and not exit_calls):
                c_launch(grid_x, grid_y, grid_z, current_stream(index), *between, *pointers, out.data_ptr(), *tail)
            else:
                runner(*pointers, out.data_ptr(), *tail)
            return out
        return call

    if output is None:
        def launch(args):
            if (runtime.launch_enter_hook is enter and runtime.launch_exit_hook is exit
                    and not enter_calls and not exit_calls):
                c_launch(grid_x, grid_y, grid_z, current_stream(index), *between, args)
            else:
                runner(*args)
        return launch

    def call(args, pointers):
        out = empty_like(args[like]) if like is not None else allocate(args)
        if (runtime.launch_enter_hook is enter and runtime.launch_exit_hook is exit
                and not enter_calls and not exit_calls):
            c_launch(grid_x, grid_y, grid_z, current_stream(index), *between, (*pointers, out.data_ptr(), *tail))
        else:
            runner(*pointers, out.data_ptr(), *tail)
        return out
    return call


def grid_launcher(compiled, device: torch.device, knobs=None, current_stream=None):
    """A function `launch(grid_x, grid_y, kernel_args)` that launches `compiled` on a grid of
    grid_x by grid_y programs, given on each call (a call of a class of any size: see
    PointwiseFunction._class_launch), on the device's current stream, the kernel's arguments
    given as one tuple, pointers as ints; None where this Triton's launcher is not one it knows.
    While a launch hook is registered, each launch goes through Triton's own runner."""
    entry = _entry(compiled, (1, 1, 1), knobs, current_stream)
    if entry is None:
        return None
    _, layout, c_launch, between, current_stream, (runtime, enter, exit, enter_calls, exit_calls) = entry
    index = device.index
    if layout == "3.6":
        def launch(grid_x, grid_y, args):
            if (runtime.launch_enter_hook is enter and runtime.launch_exit_hook is exit
                    and not enter_calls and not exit_calls):
                c_launch(grid_x, grid_y, 1, current_stream(index), *between, *args)
            else:
                compiled[(grid_x, grid_y, 1)](*args)
        return launch

    def launch(grid_x, grid_y, args):
        if (runtime.launch_enter_hook is enter and runtime.launch_exit_hook is exit
                and not enter_calls and not exit_calls):
            c_launch(grid_x, grid_y, 1, current_stream(index), *between, args)
        else:
            compiled[(grid_x, grid_y, 1)](*args)
    return launch


# Triton 3.6 links an older libdevice than the CUDA 13.0 toolkit's, and compiles several of its
# functions to more code: on an H200, bfloat16 atan at 2^24 elements took 28.1 us with Triton's
# and 22.5 with the toolkit's (eager: 22.7), sinh 29.5 and 25.8, asinh 34.8 and 30.9, pow 68.3
# and 54.1, the same results but for pow's last bit on 83 of 2^24 inputs
# (benchmarks/results/experiment_libdevice_h200.txt). The toolkit of torch's own CUDA version is
# the math library eager's kernels were compiled with.
def toolkit_libdevice(environ=os.environ, cuda_version: str | None = "torch", roots=None) -> str | None:
    """The libdevice that CUDA kernels link: TRITONIZE_LIBDEVICE's path if set ("triton": Triton's
    own); else, unless Triton's TRITON_LIBDEVICE_PATH chooses one, that of an installed CUDA
    toolkit of torch's CUDA major version and at least its minor one (CUDA_HOME, CUDA_PATH,
    /usr/local/cuda*; the newest wins); else None, Triton's own. `cuda_version` stands in for
    torch.version.cuda (None: a CPU build), `roots` for the toolkits found."""
    chosen = environ.get("TRITONIZE_LIBDEVICE")
    if chosen:
        if chosen == "triton":
            return None
        if not os.path.isfile(chosen):
            raise FileNotFoundError(f"TRITONIZE_LIBDEVICE={chosen!r}: no such file (a libdevice.10.bc, "
                                    "or 'triton' for Triton's own)")
        return chosen
    if environ.get("TRITON_LIBDEVICE_PATH"):
        return None
    wanted = _version(torch.version.cuda if cuda_version == "torch" else cuda_version)
    if wanted is None:
        return None
    if roots is None:
        roots = [environ.get("CUDA_HOME"), environ.get("CUDA_PATH"), "/usr/local/cuda", *glob.glob("/usr/local/cuda-*")]
    found = []
    for root in filter(None, roots):
        path = os.path.join(root, "nvvm", "libdevice", "libdevice.10.bc")
        version = _toolkit_version(root)
        if os.path.isfile(path) and version and version[0] == wanted[0] and version[1] >= wanted[1]:
            found.append((version, os.path.realpath(path)))
    return max(found)[1] if found else None


def _version(text: str | None) -> tuple | None:
    match = re.match(r"(\d+)\.(\d+)", text or "")
    return (int(match[1]), int(match[2])) if match else None


def _toolkit_version(root: str) -> tuple | None:
    """A toolkit's CUDA version: its version.json, else the directory's name (cuda-13.0)."""
    try:
        with open(os.path.join(root, "version.json")) as handle:
            return _version(json.load(handle)["cuda"]["version"])
    except (OSError, ValueError, KeyError, TypeError):
        return _version(re.sub(r"^cuda-", "", os.path.basename(os.path.realpath(root))))


@functools.cache
def extern_libs() -> dict | None:
    """Triton's `extern_libs` launch option for tritonize's CUDA kernels (toolkit_libdevice), once a process."""
    path = toolkit_libdevice()
    return {"libdevice": path} if path else None


# A process's first CUDA launch imports Triton and computes Triton's cache key, a hash of its own
# sources and its libtriton (tens of MB) that Triton computes once a process before it looks for a
# compiled kernel on disk: on an H100 host ~0.3 s and ~0.25 s of a ~0.7 s first call with warm
# caches (cProfile of benchmarks.run's first-call script). Started when tritonize is imported, in a
# thread of its own, they overlap whatever the program does before its first call (the hashing,
# most of it, runs outside the GIL).
_warming: threading.Thread | None = None


def warm_triton(environ=os.environ, cuda_version: str | None = "torch") -> threading.Thread | None:
    """Import Triton and compute its cache key in a daemon thread, once a process, where torch is a
    CUDA build (`cuda_version` stands in for torch.version.cuda) and TRITONIZE_WARM_TRITON is not
    "0"; the thread, else None. A fork waits for it (a child must not inherit its import lock)."""
    global _warming
    version = torch.version.cuda if cuda_version == "torch" else cuda_version
    if _warming is not None or version is None or environ.get("TRITONIZE_WARM_TRITON", "1") == "0":
        return None
    _warming = threading.Thread(target=_compute_triton_key, name="tritonize: warm Triton", daemon=True)
    if hasattr(os, "register_at_fork"):  # POSIX: Windows has no fork
        os.register_at_fork(before=_finish_warming)
    _warming.start()
    return _warming


def _compute_triton_key():
    try:
        from triton.runtime.cache import triton_key
        triton_key()  # functools.lru_cache'd by Triton: its compiler's later call is a lookup
    except Exception:  # noqa: BLE001 - another Triton: its first launch computes what it needs
        pass


def _finish_warming():
    if _warming is not None and _warming.is_alive():
        _warming.join()

"""The Python of tritonize's CUDA host paths, timed on a machine without a GPU: CPU tensors pose as
CUDA ones (their `device` reads a stand-in whose type is "cuda"), and a launch launches nothing
(Triton's launchers are stand-ins; generated modules are still built and imported). What is left
is the Python of a call: its key, its class's walk and size choices, the overlap checks of out=
calls, the allocation of its outputs. Not a timing of the GPU path: a real call adds the launch
(~4 us) and reads real device attributes; use it to find and A/B Python costs, then confirm on the
GPU (benchmarks.experiments.new_shape_classes, out_new_shapes, host_layers).

Rows: calls of a new shape every call, each launched by its class (PointwiseFunction._class_launch;
the inputs of every call are made before the timed loop, as benchmarks.run's host_new_shapes makes
them), steady calls of the op library and of its registered kernels, and torch.func's vmap over a
call. us per call, the least of `--rounds` rounds. Another tree is timed by putting a package of it
first on the path (from the repository's root, where `benchmarks` is):

    mkdir -p /tmp/base/tritonize && git archive BASE dsl passes ops | tar -x -C /tmp/base
    (cd /tmp/base && cp -r dsl/* tritonize/ && mv passes ops tritonize/)
    for tree in /tmp/base ""; do PYTHONPATH=$tree taskset -c 1 python -m benchmarks.experiments.host_python_cpu; done

    python -m benchmarks.experiments.host_python_cpu [--rounds 3] [--profile] [row ...]
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import time
import timeit

import torch

import tritonize
from benchmarks.cases import add, mul
from benchmarks.experiments.interleaved_out import rotate
from tritonize import call, decorator


class _StandInCuda:
    """A device that says it is CUDA device 0."""
    type = "cuda"
    index = 0

    def __eq__(self, other):
        return isinstance(other, _StandInCuda)

    def __ne__(self, other):
        return not isinstance(other, _StandInCuda)

    def __hash__(self):
        return hash(("cuda", 0))

    def __repr__(self):
        return "cuda:0"


def pose_as_cuda():
    """From now on in this process, every tensor says it is on CUDA device 0 (an H100's threads and
    L2, Hopper), and launches launch nothing."""
    device = _StandInCuda()
    torch.Tensor.device = property(lambda self: device)
    allocate = torch.empty_strided
    torch.empty_strided = lambda *args, device=None, **kwargs: allocate(*args, device="cpu", **kwargs)
    call.device_threads = lambda device: 132 * 2048
    call.l2_bytes = lambda device: 50 * 2**20
    call._hopper_with_grid_dependency_ops = lambda device: True
    decorator._several_gpus = lambda: False
    decorator.grid_launcher = lambda compiled, device, *args, **kwargs: lambda x, y, arguments: None

    def direct_launcher(compiled, grid, device, knobs=None, current_stream=None, output=None):
        if output is None:
            return lambda arguments: None
        _, allocate_output, _ = output

        def steady(args, pointers):
            out = allocate_output(args)
            out.data_ptr()
            return out
        return steady
    decorator.direct_launcher = direct_launcher

    class Module:  # a generated module's launch, standing in: it returns a compiled kernel's stand-in
        def __init__(self):
            self.launch = lambda *args, **kwargs: object()

    modules, module_for = {}, decorator.PointwiseFunction.module_for

    def stand_in_module_for(self, spec):
        _, path = module_for(self, spec)  # generated and imported as on the GPU
        return modules.setdefault((id(self), spec), Module()), path
    decorator.PointwiseFunction.module_for = stand_in_module_for


CALLS = 3000
ROW = 64


def new_shape_rows() -> dict:
    """Each row: (operands of a size n, the call)."""
    def rows(n, buffer):
        return buffer[0][:n * ROW].view(n, ROW), buffer[1][:n * ROW].view(n, ROW)

    def transposed(n, buffer):
        return buffer[0][:n * ROW].view(ROW, n).t(), buffer[1][:n * ROW].view(n, ROW)

    def interleaved(n, buffer):
        x = buffer[0][:n * 2 * ROW].view(n, 2 * ROW)
        return x[:, ::2], x[:, 1::2], buffer[1][:n * ROW].view(n, ROW), buffer[2][:n * ROW].view(n, ROW)

    return {
        "new length add": (lambda n, buffer: (buffer[0][:n * ROW], buffer[1][:n * ROW]), add),
        "new batch beside a bias add": (lambda n, buffer: (rows(n, buffer)[0], buffer[1][:ROW]), add),
        "new transposed batch add": (transposed, add),
        "new rows mul in place": (rows, lambda a, b: mul(a, b, out=a)),
        "new transposed mul in place": (transposed, lambda a, b: mul(a, b, out=a)),
        "new column slice mul in place": (
            lambda n, buffer: (buffer[0][:n * (ROW + 16)].view(n, ROW + 16)[:, :ROW], rows(n, buffer)[1]),
            lambda a, b: mul(a, b, out=a)),
        "new rotation in place": (interleaved, lambda even, odd, cos, sin: rotate(even, odd, cos, sin, out=(even, odd))),
        "new rotation in place, sliced in the call": (
            lambda n, buffer: (buffer[0][:n * 2 * ROW].view(n, 2 * ROW), *interleaved(n, buffer)[2:]),
            lambda x, cos, sin: rotate(x[:, ::2], x[:, 1::2], cos, sin, out=(x[:, ::2], x[:, 1::2]))),
    }


def time_new_shapes(labels, rounds: int, profile: bool) -> dict:
    # three storages, as the GPU rows' operands have (an out= check compares an output with the inputs
    # of its storage only)
    buffer = [torch.randn((64 + (rounds + 1) * CALLS) * 2 * ROW) for _ in range(3)]
    times = {}
    for label, (operands, fn) in new_shape_rows().items():
        if labels and label not in labels:
            continue
        sizes = iter(range(64, 64 + (rounds + 1) * CALLS, CALLS))  # every size used once
        best = float("inf")
        for round in range(rounds + 1):  # the first round makes the class's template and walk
            start = next(sizes)
            sets = [operands(n, buffer) for n in range(start, start + CALLS)]
            profiler = cProfile.Profile() if profile and round == rounds else None
            began = time.perf_counter()
            if profiler:
                profiler.enable()
            for arguments in sets:
                fn(*arguments)
            if profiler:
                profiler.disable()
                pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
            elif round:
                best = min(best, (time.perf_counter() - began) / CALLS * 1e6)
        times[label] = best
    return times


def time_steady(labels, rounds: int) -> dict:
    from tritonize import ops
    from tritonize.ops import registry

    a, b, c, d = (torch.randn(1024) for _ in range(4))
    calls = {
        "steady add": lambda: add(a, b),
        "add(a, b, out=c)": lambda: add(a, b, out=c),
        "add(c, b, out=c), in place": lambda: add(c, b, out=c),
        "ops.add_(c, b)": lambda: ops.add_(c, b),
        "ops.mul(a, 0.5)": lambda: ops.mul(a, 0.5),
        "ops.addcmul_(c, a, b, value=0.1)": lambda: ops.addcmul_(c, a, b, value=0.1),
        "ops.lerp_(d, a, 0.1)": lambda: ops.lerp_(d, a, 0.1),
    }
    for overload, args, kwargs in (("add.Tensor", (a, b), {}), ("addcmul_", (c, a, b), {"value": 0.1}),
                                   ("lerp_.Scalar", (d, a, 0.1), {})):
        kernel = registry._make_kernel(registry.TABLE[overload], registry._schema(overload), None, "cuda")
        calls[f"registered aten::{overload}"] = lambda kernel=kernel, args=args, kwargs=kwargs: kernel(*args, **kwargs)
    times = {}
    for label, fn in calls.items():
        if labels and label not in labels:
            continue
        for _ in range(3):
            fn()
        times[label] = min(timeit.repeat(fn, number=CALLS, repeat=rounds)) / CALLS * 1e6
    return times


def time_transforms(labels, rounds: int) -> dict:
    """torch.func over a @pointwise call (its op's FuncTorchBatched kernel, dsl/transforms.py): a vmap of
    gelu, and per-example gradients (a vmap of grad), on a 4 x 4 batch."""
    from benchmarks.cases import gelu

    x = torch.randn(4, 4)
    calls = {"vmap of gelu": (torch.func.vmap(gelu), 300),
             "per-example gradients": (torch.func.vmap(torch.func.grad(lambda row: gelu(row).square().sum())), 60)}
    times = {}
    for label, (fn, number) in calls.items():
        if labels and label not in labels:
            continue
        for _ in range(20):
            fn(x)
        times[label] = min(timeit.repeat(lambda: fn(x), number=number, repeat=20 * rounds)) / number * 1e6
    return times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("rows", nargs="*")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="print a cProfile of each new-shape row's last round")
    arguments = parser.parse_args()
    pose_as_cuda()
    times = time_new_shapes(arguments.rows, arguments.rounds, arguments.profile)
    if not arguments.profile:
        times.update(time_steady(arguments.rows, arguments.rounds))
        times.update(time_transforms(arguments.rows, arguments.rounds))
    print(f"# benchmarks.experiments.host_python_cpu ({tritonize.__file__}): us of Python per call")
    for label, us in times.items():
        print(f"{label:48s} {us:7.2f} us")


if __name__ == "__main__":
    main()

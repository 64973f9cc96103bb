"""Host time of calls whose shape is new on every call, launched back to back: the three rows of
benchmarks.run (a length growing by one, a batch of rows beside a bias, a transposed batch; each
benchmarks.run.host_new_shapes) and a rotation written in place on the even and odd elements of
rows of a growing sequence (experiments/interleaved_out.py's). tritonize from whichever tree is
installed; with --others, torch eager and torch.compile (dynamic shapes) too. Each such call
launches by its class (PointwiseFunction._class_launch), so this times the class path's Python:
its key, walk, size choices and launch. Hosts differ by more than a change moves these, so
compare trees in turn on one machine, each process pinned to one core:

    git archive BASE dsl passes ops pyproject.toml README.md | (mkdir -p /tmp/base && tar -x -C /tmp/base)
    taskset -c 3 python -m benchmarks.experiments.new_shape_classes --others
    for round in 1 2 3; do for tree in /tmp/base .; do
        pip install -q --no-deps --no-build-isolation -e $tree
        taskset -c 3 python -m benchmarks.experiments.new_shape_classes
    done; done
"""
import sys
import time

import torch

import tritonize
from benchmarks import run
from benchmarks.cases import OPS


@tritonize.pointwise
def rotate(a, b, cos, sin):
    return a * cos - b * sin, a * sin + b * cos


def eager_rotate(x, cos, sin):
    even, odd = x[..., ::2], x[..., 1::2]
    first, second = even * cos - odd * sin, even * sin + odd * cos
    even.copy_(first)
    odd.copy_(second)


def rotations(others: bool, calls: int = 1000, rounds: int = 3) -> dict:
    """us per call of the rotation in place on rows of 128 float32 values, a new number of rows
    every call, the least of `rounds` rounds in turn."""
    rows = torch.randn((64 + 3 * rounds * calls) * 128, device="cuda")
    table = torch.randn(2, (64 + 3 * rounds * calls) * 64, device="cuda")

    def operands(n):
        return rows[:n * 128].view(n, 128), table[0, :n * 64].view(n, 64), table[1, :n * 64].view(n, 64)

    def ours(x, cos, sin):
        rotate(x[:, ::2], x[:, 1::2], cos, sin, out=(x[:, ::2], x[:, 1::2]))

    systems = {"tritonize": ours}
    if others:
        systems.update({"eager": eager_rotate, "torch.compile (dynamic)": torch.compile(eager_rotate, dynamic=True)})
    for fn in systems.values():  # compiled on two lengths first, so that its dynamic kernel serves all
        fn(*operands(40))
        fn(*operands(41))
    next_length = [64]

    def one_round(label):
        first = next_length[0]
        next_length[0] += calls
        sets = [operands(n) for n in range(first, first + calls)]
        torch.cuda.synchronize()
        start = time.perf_counter()
        for x, cos, sin in sets:
            systems[label](x, cos, sin)
        torch.cuda.synchronize()
        return (time.perf_counter() - start) / calls * 1e6

    return run.best_in_turn({label: lambda label=label: one_round(label) for label in systems}, rounds)


def main():
    others = "--others" in sys.argv
    device = torch.device("cuda")
    systems = run.new_shape_systems(device) if others else {"tritonize": OPS["add"].ours}
    results = {
        "flat": run.host_new_shapes(device, systems=systems),
        "bias": run.host_new_shapes(device, systems=systems, row=run.NEW_SHAPE_ROW),
        "transposed": run.host_new_shapes(device, systems=systems, row=run.NEW_SHAPE_ROW, transposed=True),
        "rotation": rotations(others),
    }
    for row, times in results.items():
        print(f"{row:11s} " + "  ".join(f"{label} {us:6.1f}" for label, us in times.items()), flush=True)


if __name__ == "__main__":
    main()

"""Host time of calls whose shape is new on every call, launched back to back: the three rows of
benchmarks.run (a length growing by one, a batch of rows beside a bias, a transposed batch; each
benchmarks.run.host_new_shapes), an add of a column slice of rows of a new count, and a rotation
written in place on the even and odd elements of rows of a growing sequence
(experiments/interleaved_out.py's). tritonize from whichever tree is
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

from benchmarks import run
from benchmarks.cases import OPS
from benchmarks.experiments.interleaved_out import eager_rotate, rotate


def new_lengths(systems: dict, operands, first: int, calls: int = 1000, rounds: int = 3) -> dict:
    """us per call of each system on `operands(n)`, a new n every call (rounds from `first` on, each
    on lengths no round had), the least of `rounds` rounds in turn; each system called on two
    lengths first (torch.compile's dynamic kernel then serves all)."""
    for fn in systems.values():
        fn(*operands(first - 2))
        fn(*operands(first - 1))
    next_length = [first]

    def one_round(label):
        start = next_length[0]
        next_length[0] += calls
        sets = [operands(n) for n in range(start, start + calls)]
        torch.cuda.synchronize()
        began = time.perf_counter()
        for arguments in sets:
            systems[label](*arguments)
        torch.cuda.synchronize()
        return (time.perf_counter() - began) / calls * 1e6

    return run.best_in_turn({label: lambda label=label: one_round(label) for label in systems}, rounds)


def rotations(others: bool, calls: int = 1000, rounds: int = 3) -> dict:
    """The rotation in place on rows of 128 float32 values, a new number of rows every call."""
    rows = torch.randn((64 + 3 * rounds * calls) * 128, device="cuda")
    table = torch.randn(2, (64 + 3 * rounds * calls) * 64, device="cuda")

    def operands(n):
        return rows[:n * 128].view(n, 128), table[0, :n * 64].view(n, 64), table[1, :n * 64].view(n, 64)

    def ours(x, cos, sin):
        rotate(x[:, ::2], x[:, 1::2], cos, sin, out=(x[:, ::2], x[:, 1::2]))

    systems = {"tritonize": ours}
    if others:
        systems.update({"eager": eager_rotate, "torch.compile (dynamic)": torch.compile(eager_rotate, dynamic=True)})
    return new_lengths(systems, operands, 64, calls, rounds)


def column_slices(others: bool, calls: int = 1000, rounds: int = 3) -> dict:
    """An add of a column slice (n, 80)[:, :64] (a block of a fused projection's columns) and
    (n, 64) rows, a new n every call."""
    count = 64 + 3 * rounds * calls
    sliced, rows = torch.randn(count * 80, device="cuda"), torch.randn(count * 64, device="cuda")

    def operands(n):
        return sliced[:n * 80].view(n, 80)[:, :64], rows[:n * 64].view(n, 64)

    systems = {"tritonize": OPS["add"].ours}
    if others:
        systems.update({"eager": torch.add, "torch.compile (dynamic)": torch.compile(torch.add, dynamic=True)})
    return new_lengths(systems, operands, 64, calls, rounds)


def main():
    others = "--others" in sys.argv
    device = torch.device("cuda")
    systems = run.new_shape_systems(device) if others else {"tritonize": OPS["add"].ours}
    results = {
        "flat": run.host_new_shapes(device, systems=systems),
        "bias": run.host_new_shapes(device, systems=systems, row=run.NEW_SHAPE_ROW),
        "transposed": run.host_new_shapes(device, systems=systems, row=run.NEW_SHAPE_ROW, transposed=True),
        "column slice": column_slices(others),
        "rotation": rotations(others),
    }
    for row, times in results.items():
        print(f"{row:13s} " + "  ".join(f"{label} {us:6.1f}" for label, us in times.items()), flush=True)


if __name__ == "__main__":
    main()

"""tritonize's host time on the rows that a host-path change moves, for an A/B between trees on one
GPU machine: the new-shape rows of benchmarks.run and experiments/new_shape_classes.py (a new
length, a batch beside a bias, a transposed batch, a column slice, a rotation in place), the out=
rows of experiments/out_new_shapes.py (tritonize only: no torch.compile to wait for), and
benchmarks.run's call forms (each beside eager's, which tells how the host moved between
processes). Each process prints `TAG | row | us` lines; `--summarize FILE` prints the least of each
row per tag, and HEAD's over BASE's. Hosts differ by more than a change moves these, so take the
trees in turn, each process pinned to one core:

    git archive BASE dsl passes ops pyproject.toml README.md | (mkdir -p /tmp/base && tar -x -C /tmp/base)
    for round in 1 2 3; do for tree in /tmp/base .; do
        pip install -q --no-deps --no-build-isolation -e $tree
        taskset -c 3 python -m benchmarks.experiments.host_ab_rows $([ $tree = . ] && echo head || echo base) >> ab.txt
    done; done
    python -m benchmarks.experiments.host_ab_rows --summarize ab.txt
"""
import collections
import sys

import torch

from benchmarks import run
from benchmarks.cases import OPS
from benchmarks.experiments import new_shape_classes, out_new_shapes

ROUNDS = 3


def out_rows() -> dict:
    """us per call of out_new_shapes' cases, tritonize only, the least of ROUNDS rounds (out_new_shapes'
    check first: tritonize's results against eager's, and each case's class made)."""
    count = ROUNDS * len(out_new_shapes.cases(None)) * out_new_shapes.CALLS
    buffer = torch.rand(3, (out_new_shapes.ROW + 16) * (16 + count + 16), device="cuda") + 0.5
    out_new_shapes.check(buffer)
    starts = iter(range(16, 16 + count, out_new_shapes.CALLS))
    times = {}
    for label, (arguments, ours, theirs) in out_new_shapes.cases(buffer).items():
        enabled = ours == "enabled"
        times["out= " + label] = min(out_new_shapes.round_us(theirs if enabled else ours, arguments, next(starts),
                                                             enabled) for _ in range(ROUNDS))
    return times


def measure() -> dict:
    device, ours = torch.device("cuda"), {"tritonize": OPS["add"].ours}
    times = {
        "new length": run.host_new_shapes(device, systems=ours)["tritonize"],
        "new batch beside a bias": run.host_new_shapes(device, systems=ours, row=run.NEW_SHAPE_ROW)["tritonize"],
        "new transposed batch": run.host_new_shapes(device, systems=ours, row=run.NEW_SHAPE_ROW,
                                                    transposed=True)["tritonize"],
        "new column slice": new_shape_classes.column_slices(False)["tritonize"],
        "new rotation in place": new_shape_classes.rotations(False)["tritonize"],
    }
    times.update(out_rows())
    for form, both in run.host_call_forms(device).items():
        times["form " + form] = both["tritonize"]
        times["eager " + form] = both["eager"]
    return times


def summarize(path: str):
    best = collections.defaultdict(lambda: float("inf"))
    for line in open(path):
        parts = [part.strip() for part in line.split("|")]
        if len(parts) == 3:
            best[(parts[1], parts[0])] = min(best[(parts[1], parts[0])], float(parts[2]))
    for row in dict.fromkeys(row for row, _ in best):
        base, head = best[(row, "base")], best[(row, "head")]
        print(f"{row:48s} base {base:8.2f}  head {head:8.2f}  {head / base:6.3f}")


def main():
    if sys.argv[1:2] == ["--summarize"]:
        summarize(sys.argv[2])
        return
    tag = sys.argv[1] if len(sys.argv) > 1 else "head"
    for row, us in measure().items():
        print(f"{tag} | {row} | {us:.2f}", flush=True)


if __name__ == "__main__":
    main()

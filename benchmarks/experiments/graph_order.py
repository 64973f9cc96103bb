"""Does the first graphed row of a process read fast? benchmarks.run's graph timings (graph_times)
of one row, then of another, then of the first again, all in one new process: with the warm-up
replays that graph_times makes before timing (run.warm_up) or, with `--no-warm-up`, without them.
Run it once each way, each in a new process:

    python -m benchmarks.experiments.graph_order --no-warm-up
    python -m benchmarks.experiments.graph_order
"""
import argparse

import torch

from benchmarks import run
from benchmarks.cases import OPS, bytes_moved, make_inputs
from benchmarks.experiments import header

# the first graphed row of benchmarks.run's plan, and the row that showed the effect
ROWS = [("add", "contiguous", torch.float32, 20), ("add", "rank-4 permuted", torch.bfloat16, 20)]


def graphed_row(name, case, dtype, exponent) -> dict:
    op = OPS[name]
    inputs = make_inputs(case, 2**exponent, op.arity, dtype, "cuda", op.bool_first)
    reference = op.eager(*inputs)
    outputs = reference if isinstance(reference, tuple) else (reference,)
    compiled = run.compile_op(name)
    run.check(name, op.ours(*inputs), reference, dtype)
    run.check(name + " (torch.compile)", compiled(*inputs), reference, dtype)
    return run.graph_times(op, case, dtype, 2**exponent, compiled, inputs, bytes_moved(inputs, outputs), "cuda")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-warm-up", action="store_true", help="time the graphs without warm-up replays")
    args = parser.parse_args(argv)
    if args.no_warm_up:
        run.WARM_UP_SECONDS = 0
    print(header("graph_order" + (" --no-warm-up" if args.no_warm_up else "")), flush=True)
    for order, row in enumerate(ROWS + ROWS[:1]):
        name, case, dtype, exponent = row
        times = graphed_row(*row)
        systems = ", ".join(f"{system} {times[f'graph {system} us']:.2f}" for system in run.SYSTEMS)
        print(f"{order + 1}. {name} | {case} | {str(dtype)[6:]} | 2^{exponent}: {systems} us; "
              f"{times['graph vs torch.compile']:.3f}x torch.compile", flush=True)


if __name__ == "__main__":
    main()

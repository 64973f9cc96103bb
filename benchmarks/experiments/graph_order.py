"""Does the first graphed row of a process read fast? benchmarks.run's graph timings (graph_times)
of one row, then of another, then of the first again, all in one new process.

    python -m benchmarks.experiments.graph_order

It read ~7% fast for every system alike (results/experiment_graph_order_h100.txt), with 0.2 s
of replays before the timing (a05b3cd, `--no-warm-up` there for the other way) or without them;
the warm-up went out again.
"""
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


def main():
    print(header("graph_order"), flush=True)
    for order, row in enumerate(ROWS + ROWS[:1]):
        name, case, dtype, exponent = row
        times = graphed_row(*row)
        systems = ", ".join(f"{system} {times[f'graph {system} us']:.2f}" for system in run.SYSTEMS)
        print(f"{order + 1}. {name} | {case} | {str(dtype)[6:]} | 2^{exponent}: {systems} us; "
              f"{times['graph vs torch.compile']:.3f}x torch.compile", flush=True)


if __name__ == "__main__":
    main()

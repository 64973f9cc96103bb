"""Does dependent launch (TRITONIZE_DEPENDENT_LAUNCH=1) lose anywhere once a launch moves more
bytes than the L2 holds? Below that, outputs that reuse the block the launch before freed kept
less of their L2 reuse with it (pdl_reuse.py). tritonize's kernels planned with it off and on
(fresh @pointwise functions, results checked equal), at 2^23..2^25 elements, timed five ways,
the best of 3 rounds taken in turn:
- back to back: CUDA graphs of launches on rotating inputs replayed with nothing between
  (benchmarks.run.steady_us), each launch writing an output of its own ("own") or the block the
  launch before freed ("reuse");
- graphs after a flush: the same graphs, reusing, replayed after do_bench's L2 flush (replay_us,
  benchmarks.run's "as graphs" rows);
- single: one launch after do_bench's flush (median_us, benchmarks.run's main table);
- after torch: back to back, each launch right after a torch kernel (`torch.neg` of a tensor as
  large as the launch's output), the pair's time less the torch kernels' own.

    python -m benchmarks.experiments.pdl_large [--exponents 23,24,25] [--ops gelu,sigmoid]
"""
import argparse

import torch

from benchmarks import run
from benchmarks.cases import OPS, Op, bytes_moved, make_inputs
from benchmarks.experiments import header, planned
from tritonize import pointwise

ROWS = [("add", "row broadcast", torch.bfloat16), ("add", "column broadcast", torch.bfloat16),
        ("add", "contiguous", torch.bfloat16), ("add", "transposed + contiguous", torch.bfloat16),
        ("add", "strided slices", torch.bfloat16), ("add", "row broadcast", torch.float32),
        ("add", "contiguous", torch.float32), ("gelu", "contiguous", torch.bfloat16),
        ("silu_and_mul", "contiguous", torch.float16), ("sigmoid", "contiguous", torch.bfloat16),
        ("sigmoid", "contiguous", torch.float32), ("neg", "contiguous", torch.bfloat16),
        ("neg", "contiguous", torch.float32)]


@pointwise
def neg(x):  # the lightest unary op: a load, a sign flip, a store
    return -x


OPS = {**OPS, "neg": Op(neg, torch.neg, 1)}
WAYS = ("own", "reuse", "after flush", "single", "after torch")


def timings(compiled, sets, torch_inputs) -> dict:
    """way -> a function timing `compiled` on `sets` that way (see the module's docstring)."""
    calls = [lambda x=x: compiled(*x) for x in sets]
    own = run.capture(calls, keep_outputs=True)
    reuse = run.capture(calls)
    pairs = [c for x, t in zip(sets, torch_inputs) for c in (lambda t=t: torch.neg(t), lambda x=x: compiled(*x))]
    paired = run.capture(pairs)
    alone = run.capture([lambda t=t: torch.neg(t) for t in torch_inputs])
    return {"own": lambda: run.steady_us(own), "reuse": lambda: run.steady_us(reuse),
            "after flush": lambda: run.replay_us(reuse), "single": lambda: run.median_us(calls[0]),
            "after torch": lambda: 2 * run.steady_us(paired) - run.steady_us(alone)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exponents", default="23,24,25")
    parser.add_argument("--ops", default="", help="only the rows of these ops (comma-separated)")
    args = parser.parse_args()
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    print(header("pdl_large") + f"; L2 {l2 / 2**20:.0f} MiB", flush=True)
    print("op | case | dtype | 2^k | MB moved: per way, off us / on us (off / on: above 1 = dependent launch faster)",
          flush=True)
    for name, case, dtype in ROWS:
        if args.ops and name not in args.ops.split(","):
            continue
        op = OPS[name]
        function = op.ours.__wrapped__  # the scalar function: planned() decorates it afresh
        for exponent in map(int, args.exponents.split(",")):
            inputs = make_inputs(case, 2**exponent, op.arity, dtype, "cuda", op.bool_first)
            reference = op.eager(*inputs)
            moved = bytes_moved(inputs, [reference])
            sets = run.rotating_inputs(inputs, case, 2**exponent, op, dtype, "cuda", moved)
            torch_inputs = [torch.empty_like(reference) for _ in sets]
            measures = {}
            for way in ("off", "on"):
                compiled, result = planned(function, way == "on", inputs)
                assert torch.equal(result, reference) or torch.allclose(result.float(), reference.float(),
                                                                         rtol=2e-2, atol=2e-2), (name, case)
                # the launch's own module (an approximation check adds small ones, launched plainly)
                assert any(s.dependent_launch for s in compiled._modules) == (way == "on"), (name, case, way)
                for label, measure in timings(compiled, sets, torch_inputs).items():
                    measures[way, label] = measure
            best = run.best_in_turn(measures, run.ROUNDS)
            print(f"{name} | {case} | {str(dtype)[6:]} | 2^{exponent} | {moved / 1e6:.0f} MB: " + ", ".join(
                f"{w} {best['off', w]:.2f}/{best['on', w]:.2f} ({best['off', w] / best['on', w]:.3f}x)" for w in WAYS),
                flush=True)


if __name__ == "__main__":
    main()

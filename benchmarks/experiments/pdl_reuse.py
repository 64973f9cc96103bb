"""Is dependent launch's loss on graphed bfloat16 broadcast adds at 2^22 (pdl_broadcast.py) about
outputs that reuse the block the launch before freed? The same adds as CUDA graphs after
do_bench's flush (replay_us), with dependent launch off and on (TRITONIZE_DEPENDENT_LAUNCH), each
launch's output either freed for the next (as benchmarks.run's graphs) or kept (an output of its
own), the best of 3 rounds taken in turn.

    python -m benchmarks.experiments.pdl_reuse
"""
import torch

from benchmarks import run
from benchmarks.cases import add, bytes_moved, make_inputs
from benchmarks.experiments import header, planned

ROWS = [("row broadcast", torch.bfloat16, 22), ("column broadcast", torch.bfloat16, 22),
        ("contiguous", torch.bfloat16, 22), ("row broadcast", torch.float32, 22)]


def main():
    print(header("pdl_reuse").replace("CUDA graphs", "CUDA graphs after do_bench's flush"), flush=True)
    for case, dtype, exponent in ROWS:
        inputs = make_inputs(case, 2**exponent, 2, dtype, "cuda")
        moved = bytes_moved(inputs, [torch.add(*inputs)])
        sets = [inputs] + [make_inputs(case, 2**exponent, 2, dtype, "cuda") for _ in range(run.rotating_sets(moved) - 1)]
        measures = {}
        for setting in ("0", "1"):
            compiled, result = planned(add.__wrapped__, setting == "1", inputs)
            assert torch.equal(result, torch.add(*inputs))
            assert all(spec.dependent_launch == (setting == "1") for spec in compiled._modules)
            calls = [lambda x=x, f=compiled: f(*x) for x in sets]
            for keep in (False, True):
                graph = run.capture(calls, keep_outputs=keep)
                measures[setting, keep] = lambda g=graph: run.replay_us(g)
        best = run.best_in_turn(measures, run.ROUNDS)
        print(f"add | {case} | {str(dtype)[6:]} | 2^{exponent}: " + "; ".join(
            f"outputs {'of their own' if keep else 'reusing the freed block'}: off {best['0', keep]:.2f} us, "
            f"on {best['1', keep]:.2f} us ({best['0', keep] / best['1', keep]:.3f}x)" for keep in (False, True)),
            flush=True)


if __name__ == "__main__":
    main()

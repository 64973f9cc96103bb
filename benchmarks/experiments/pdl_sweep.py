"""Where does dependent launch (TRITONIZE_DEPENDENT_LAUNCH=1) win and where does it lose?
tritonize's kernels for a few ops and dtypes from 2^16 to 2^24 elements, each as a CUDA graph of
launches on rotating inputs replayed back to back (benchmarks.run's steady_us), planned with it
off and on (a fresh @pointwise function for each), the best of 3 rounds taken in turn. Results of
the two are checked equal first.

    python -m benchmarks.experiments.pdl_sweep

Its committed output (results/experiment_pdl_sweep_h100.txt) was made before call.dependent_launch
left out 16-bit kernels with costly math in small blocks over more than half a wave, the rule it
led to: run again, those cells (16-bit sigmoid and gelu at 2^20) plan "on" without it and say
"left out by the rule".
"""
import torch

from benchmarks import cases, run
from benchmarks.experiments import header, planned

MAX_LAUNCHES = 256  # launches per graph: small sizes rotate over fewer sets than ROTATE_BYTES asks
add, sigmoid, gelu, silu_and_mul = (f.__wrapped__ for f in (cases.add, cases.sigmoid, cases.gelu, cases.silu_and_mul))

ROWS = [(add, torch.float32), (add, torch.bfloat16), (sigmoid, torch.float32), (sigmoid, torch.bfloat16),
        (gelu, torch.bfloat16), (gelu, torch.float16), (silu_and_mul, torch.bfloat16)]
EXPONENTS = (16, 18, 19, 20, 21, 22, 24)


def main():
    print(header("pdl_sweep").replace("CUDA graphs", "CUDA graphs back to back (steady_us)"), flush=True)
    print("op | dtype | 2^k: off us, on us (off / on: above 1 = dependent launch faster)", flush=True)
    for function, dtype in ROWS:
        arity = function.__code__.co_argcount
        line = []
        for exponent in EXPONENTS:
            n = 2**exponent
            moved = (arity + 1) * n * torch.tensor([], dtype=dtype).element_size()
            sets = [[torch.randn(n, device="cuda").to(dtype) for _ in range(arity)]
                    for _ in range(min(run.rotating_sets(moved), MAX_LAUNCHES))]
            graphs, results = {}, {}
            for way in ("off", "on"):
                compiled, results[way] = planned(function, way == "on", sets[0])
                graphs[way] = compiled, run.capture([lambda x=x, f=compiled: f(*x) for x in sets], keep_outputs=True)
            assert torch.equal(results["off"], results["on"])
            assert not any(s.dependent_launch for s in graphs["off"][0]._modules)
            launches_on = {s.dependent_launch for s in graphs["on"][0]._modules}
            assert len(launches_on) == 1  # every kernel of the "on" function planned alike
            best = run.best_in_turn({way: lambda g=g: run.steady_us(g) for way, (_, g) in graphs.items()}, run.ROUNDS)
            line.append(f"2^{exponent} {best['off']:.2f}/{best['on']:.2f} ({best['off'] / best['on']:.2f}x"
                        f"{'' if launches_on == {True} else ', left out by the rule'})")
        print(f"{function.__name__} | {str(dtype)[6:]} | " + ", ".join(line), flush=True)


if __name__ == "__main__":
    main()

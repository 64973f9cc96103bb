"""Where does dependent launch (TRITONIZE_DEPENDENT_LAUNCH=1) win and where does it lose?
tritonize's kernels for a few ops and dtypes from 2^16 to 2^24 elements, each as a CUDA graph of
launches on rotating inputs replayed back to back (benchmarks.run's steady_us), planned with it
off and on (a fresh @pointwise function for each), the best of 3 rounds taken in turn. Results of
the two are checked equal first.

    python -m benchmarks.experiments.pdl_sweep
"""
import math
import os

import torch

from benchmarks import run
from benchmarks.experiments import header
from tritonize import pointwise

MAX_LAUNCHES = 256  # launches per graph: small sizes rotate over fewer sets than ROTATE_BYTES asks


def add(a, b):
    return a + b


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


def gelu(x):
    return 0.5 * x * (1.0 + math.erf(x * 0.7071067811865476))


def silu_and_mul(x, y):
    return x / (1.0 + math.exp(-x)) * y


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
            graphs = {}
            for way, setting in (("off", "0"), ("on", "1")):
                os.environ["TRITONIZE_DEPENDENT_LAUNCH"] = setting
                compiled = pointwise(function)
                graphs[way] = compiled, run.capture([lambda x=x, f=compiled: f(*x) for x in sets], keep_outputs=True)
            os.environ.pop("TRITONIZE_DEPENDENT_LAUNCH")
            assert torch.equal(graphs["off"][0](*sets[0]), graphs["on"][0](*sets[0]))
            assert all(s.dependent_launch for s in graphs["on"][0]._modules)
            best = run.best_in_turn({way: lambda g=g: run.steady_us(g) for way, (_, g) in graphs.items()}, run.ROUNDS)
            line.append(f"2^{exponent} {best['off']:.2f}/{best['on']:.2f} ({best['off'] / best['on']:.2f}x)")
        print(f"{function.__name__} | {str(dtype)[6:]} | " + ", ".join(line), flush=True)


if __name__ == "__main__":
    main()

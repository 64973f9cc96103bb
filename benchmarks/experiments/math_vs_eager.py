"""Which math functions does tritonize compile slower than eager's build of the same function?
One @pointwise kernel per function on bfloat16 (float32 math inside, where 16-bit I/O leaves
the math as the bound), timed beside the torch op at 2^27 elements; `--ncu` launches each
once at 2^24, for ncu's instruction counts.

    python -m benchmarks.experiments.math_vs_eager
    ncu --metrics smsp__inst_executed.sum python -m benchmarks.experiments.math_vs_eager --ncu
"""
import math
import sys

import torch
import torch.nn.functional as F

from benchmarks.experiments import best_us
from tritonize import pointwise


@pointwise
def tanh(x):
    return math.tanh(x)


@pointwise
def sin(x):
    return math.sin(x)


@pointwise
def cos(x):
    return math.cos(x)


@pointwise
def exp(x):
    return math.exp(x)


@pointwise
def erf(x):
    return math.erf(x)


@pointwise
def log1p(x):
    return math.log1p(x)


@pointwise
def gelu_tanh(x):  # gelu's tanh form, as tritonize.ops.gelu(x, approximate="tanh") computes it
    return 0.5 * x * (1.0 + math.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


FUNCTIONS = [(tanh, torch.tanh), (sin, torch.sin), (cos, torch.cos), (exp, torch.exp), (erf, torch.erf),
             (log1p, torch.log1p), (gelu_tanh, lambda x: F.gelu(x, approximate="tanh"))]


def argument(function, x):
    """x, or |x| for log1p (its domain)."""
    return x.abs() if function is log1p else x


if __name__ == "__main__":
    if sys.argv[1:] == ["--ncu"]:
        x = torch.randn(2 ** 24, device="cuda").to(torch.bfloat16)
        for ours, eager in FUNCTIONS:
            eager(argument(ours, x))
            ours(argument(ours, x))
        torch.cuda.synchronize()
        sys.exit()
    x = torch.randn(2 ** 27, device="cuda").to(torch.bfloat16)
    copy = best_us(lambda: x.clone())
    print(f"bfloat16 2^27, us (best of 3 do_bench medians); a copy of the same bytes: {copy:.1f}")
    for ours, eager in FUNCTIONS:
        arg = argument(ours, x)
        torch.testing.assert_close(ours(arg).float(), eager(arg).float(), rtol=1.6e-2, atol=1e-5)
        mine, theirs = best_us(lambda: ours(arg)), best_us(lambda: eager(arg))
        print(f"{ours.__name__:9s} tritonize {mine:7.1f}  eager {theirs:7.1f}  ({theirs / mine:.2f}x eager)", flush=True)

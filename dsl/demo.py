"""The demo that `python -m tritonize demo` runs: define @pointwise functions, run them on
the GPU if there is one (else on the CPU through Triton's interpreter), check them against
torch, and show where the generated code lives."""
from __future__ import annotations

import math
import time

import torch

from tritonize import pointwise


@pointwise
def gelu(x):
    return 0.5 * x * (1.0 + math.erf(x * 0.7071067811865476))


@pointwise
def softplus(x, beta: float = 1.0, threshold: float = 20.0):
    if x * beta > threshold:  # if/else becomes a select
        return x
    return math.log(1.0 + math.exp(x * beta)) / beta


@pointwise
def gelu_and_mul(x, y):  # helpers are inlined
    return gelu(x) * y


@pointwise
def polar(r, theta):  # two outputs
    return r * math.cos(theta), r * math.sin(theta)


def main() -> int:
    device = "cuda" if torch.cuda.is_available() else "cpu"
    where = torch.cuda.get_device_name() if device == "cuda" else "CPU (Triton interpreter)"
    print(f"tritonize demo on {where}: the first call of each generates its kernel", flush=True)
    torch.manual_seed(0)
    x = torch.randn(64, 48, device=device)
    y = torch.randn(48, device=device)
    checks = [
        ("gelu(x)", lambda: gelu(x), lambda: torch.nn.functional.gelu(x)),
        ("softplus(x.t(), beta=2.0)", lambda: softplus(x.t(), beta=2.0),
         lambda: torch.nn.functional.softplus(x.t(), beta=2.0)),
        ("gelu_and_mul(x, y)  [broadcast]", lambda: gelu_and_mul(x, y),
         lambda: torch.nn.functional.gelu(x) * y),
        ("polar(x, y)[1]", lambda: polar(x, y)[1], lambda: x * torch.sin(y)),
    ]
    failures = 0
    for label, ours, reference in checks:
        start = time.perf_counter()
        got = ours()
        elapsed = time.perf_counter() - start
        expected = reference()
        ok = got.shape == expected.shape and torch.allclose(got, expected, rtol=1e-5, atol=1e-6)
        failures += not ok
        error = (got - expected).abs().max().item()
        print(f"  {'ok  ' if ok else 'FAIL'} {label:34s} max |error| {error:.2e}  first call {elapsed * 1e3:7.1f} ms",
              flush=True)
    print(f"generated code for gelu(x): {gelu.source_path(x)}")
    print("\n" + gelu.source(x))
    return 1 if failures else 0

"""The op library's autograd comes from the same derivation as any @pointwise function: its
gradients match torch's in float32 and bfloat16, and agree with the library's own backward
ops (the formulas aten calls, gelu_backward ...)."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import tritonize.ops as ops

CASES = {
    "gelu": (lambda x: ops.gelu(x), F.gelu, lambda g, x, y: ops.gelu_backward(g, x)),
    "gelu tanh": (lambda x: ops.gelu(x, approximate="tanh"), lambda x: F.gelu(x, approximate="tanh"),
                  lambda g, x, y: ops.gelu_backward(g, x, approximate="tanh")),
    "silu": (ops.silu, F.silu, lambda g, x, y: ops.silu_backward(g, x)),
    "sigmoid": (ops.sigmoid, torch.sigmoid, lambda g, x, y: ops.sigmoid_backward(g, y)),
    "tanh": (ops.tanh, torch.tanh, lambda g, x, y: ops.tanh_backward(g, y)),
    "softplus": (lambda x: ops.softplus(x, 2.0, 10.0), lambda x: F.softplus(x, 2.0, 10.0),
                 lambda g, x, y: ops.softplus_backward(g, x, 2.0, 10.0)),
    "mish": (ops.mish, F.mish, None),
    "elu": (ops.elu, F.elu, None),
    "hardswish": (ops.hardswish, F.hardswish, None),
    "leaky_relu": (lambda x: ops.leaky_relu(x, 0.1), lambda x: F.leaky_relu(x, 0.1), None),
}
TOLERANCE = {torch.float32: 2e-5, torch.bfloat16: 2e-2}


def _inputs(dtype, device):
    generator = torch.Generator().manual_seed(11)
    values = torch.randn(301, generator=generator) * 3
    values[:4] = torch.tensor([0.0, -0.0, 1e-3, -1e-3])
    return values.to(dtype).to(device)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("name", sorted(CASES))
def test_library_gradients_match_torch_and_the_library_backward(name, dtype, device):
    ours, theirs, library_backward = CASES[name]
    base = _inputs(dtype, device)
    grad = torch.linspace(-1, 1, base.numel(), device=device).to(dtype)

    x = base.clone().requires_grad_()
    y = ours(x)
    (derived,) = torch.autograd.grad(y, x, grad)
    x_ref = base.clone().requires_grad_()
    (expected,) = torch.autograd.grad(theirs(x_ref), x_ref, grad)
    tol = TOLERANCE[dtype]
    assert derived.dtype == dtype
    torch.testing.assert_close(derived.float(), expected.float(), rtol=tol, atol=tol)
    if library_backward is not None:  # the hand-written formula aten calls agrees with the derived one
        formula = library_backward(grad, base, y.detach())
        torch.testing.assert_close(derived.float(), formula.float(), rtol=tol, atol=tol)


def test_fused_silu_and_mul_gradients(device):
    generator = torch.Generator().manual_seed(12)
    x = torch.randn(5, 16, generator=generator, dtype=torch.float64).to(device).requires_grad_()
    y = torch.randn(5, 16, generator=generator, dtype=torch.float64).to(device).requires_grad_()
    assert torch.autograd.gradcheck(lambda a, b: ops.silu_and_mul(torch.cat([a, b], dim=-1)), (x, y))

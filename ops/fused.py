"""Fused gated activations (the MLP blocks of LLaMA-style models): silu(x) * y and gelu(x) * y
in one pass, and their backward (both input gradients in one pass).

Either two tensors, or one tensor whose last dimension holds x then y (vLLM's convention):

    out = silu_and_mul(x, y)              # silu(x) * y
    out = silu_and_mul(xy)                # xy[..., :d] and xy[..., d:]
    dx, dy = silu_and_mul_backward(grad, x, y)

Called with tensors that require grad, the forward records the gradient the DSL derives from
its source; the explicit backward kernels are for callers that manage their own autograd.
"""
from __future__ import annotations

import torch

from tritonize import pointwise
from tritonize.ops import _common as c
from tritonize.ops.activations import GELU_KAPPA, gelu_of, gelu_tanh_of, silu_of
from tritonize.ops.backward import gelu_grad_of, gelu_tanh_grad_of, silu_grad_of

# -- kernels ------------------------------------------------------------------------------------


@pointwise
def silu_and_mul_kernel(x, y):
    return silu_of(x) * y


@pointwise
def gelu_and_mul_kernel(x, y):
    return gelu_of(x) * y


@pointwise
def gelu_tanh_and_mul_kernel(x, y):
    return gelu_tanh_of(x) * y


@pointwise
def silu_and_mul_backward_kernel(grad, x, y):
    return grad * y * silu_grad_of(x), grad * silu_of(x)


@pointwise
def gelu_and_mul_backward_kernel(grad, x, y):
    return grad * y * gelu_grad_of(x), grad * gelu_of(x)


@pointwise
def gelu_tanh_and_mul_backward_kernel(grad, x, y):
    return grad * y * gelu_tanh_grad_of(x, 3.0 * GELU_KAPPA), grad * gelu_tanh_of(x)


# -- torch-compatible functions ---------------------------------------------------------------


def _halves(x, y, name):
    if y is not None:
        return x, y
    if x.dim() == 0 or x.shape[-1] % 2:
        raise RuntimeError(f"{name}: with one tensor, its last dimension holds x then y and must be even, "
                           f"got shape {tuple(x.shape)}")
    half = x.shape[-1] // 2
    return x[..., :half], x[..., half:]


def _check(name, x, *tensors):
    # as torch's chain: the activation needs a float x, then the product promotes
    c.require_floating(name, c.dtype_of(x))
    c.require_floating(name, c.result_dtype(x, *tensors))


def silu_and_mul(x, y=None, *, out=None):
    """silu(x) * y; with one tensor, x and y are the halves of its last dimension."""
    x, y = _halves(x, y, "silu_and_mul")
    _check("silu_and_mul", x, y)
    return c.run(silu_and_mul_kernel, x, y, out=out)


def _gelu_kernels(approximate):
    if approximate == "none":
        return gelu_and_mul_kernel, gelu_and_mul_backward_kernel
    if approximate == "tanh":
        return gelu_tanh_and_mul_kernel, gelu_tanh_and_mul_backward_kernel
    raise RuntimeError("approximate argument must be either none or tanh.")


def gelu_and_mul(x, y=None, *, approximate="none", out=None):
    """gelu(x, approximate) * y; with one tensor, x and y are the halves of its last dimension."""
    kernel, _ = _gelu_kernels(approximate)
    x, y = _halves(x, y, "gelu_and_mul")
    _check("gelu_and_mul", x, y)
    return c.run(kernel, x, y, out=out)


def _backward(kernel, name, grad, x, y, out):
    if y is None:  # the one-tensor form: one tensor holding dx then dy
        xs, ys = _halves(x, None, name)
        _check(name, xs, ys, grad)
        # two halves of one tensor interleave in memory, which the runtime refuses as outputs
        return torch.cat(kernel(grad, xs, ys), dim=-1, out=out)
    _check(name, x, y, grad)
    return c.run(kernel, grad, x, y, out=out)


def silu_and_mul_backward(grad, x, y=None, *, out=None):
    """(dx, dy) = (grad * y * silu'(x), grad * silu(x)); one tensor [dx | dy] for the one-tensor form."""
    return _backward(silu_and_mul_backward_kernel, "silu_and_mul_backward", grad, x, y, out)


def gelu_and_mul_backward(grad, x, y=None, *, approximate="none", out=None):
    """(dx, dy) = (grad * y * gelu'(x), grad * gelu(x)); one tensor [dx | dy] for the one-tensor form."""
    _, kernel = _gelu_kernels(approximate)
    return _backward(kernel, "gelu_and_mul_backward", grad, x, y, out)

"""Ops that move elements without computing on them: flip, the copy kernel reading a
StridedView whose strides are negated along the flipped dims (torch tensors cannot have
negative strides; a view can). No new kernel: `copy_kernel` is arithmetic.py's identity."""
from __future__ import annotations

import operator

import torch

from tritonize import StridedView, transforms
from tritonize.ops import _common as c
from tritonize.ops.arithmetic import copy_kernel

# the names ATen's out= dtype check prints
_OUT_NAMES = {
    torch.bool: "bool", torch.uint8: "unsigned char", torch.int8: "signed char", torch.int16: "short int",
    torch.int32: "int", torch.int64: "long int", torch.float16: "c10::Half", torch.bfloat16: "c10::BFloat16",
    torch.float32: "float", torch.float64: "double",
}


def flip(input, dims, *, out=None):
    """`input` with the order of its elements reversed along each of `dims` (torch.flip)."""
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"flip(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    dims = _wrap_dims(input, dims)
    if out is None and (input.requires_grad and torch.is_grad_enabled() or transforms.wrapped((input,), {})
                        or torch.autograd.forward_ad._current_level >= 0 and transforms.dual((input,), {}, None)):
        return _DifferentiableFlip.apply(input, dims)
    source = _flipped(input, dims)
    if out is None:
        return copy_kernel(source)
    if out.dtype != input.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {_OUT_NAMES.get(input.dtype, input.dtype)}, but got "
                           f"{_OUT_NAMES.get(out.dtype, out.dtype)} instead")
    c.prepare_out(out, input.shape)
    if out.numel() and input.numel() and out.untyped_storage().data_ptr() == input.untyped_storage().data_ptr():
        # writing into the memory being read would read elements already moved: copy twice
        copy_kernel(copy_kernel(source), out=out)
    else:
        copy_kernel(source, out=out)
    return out


class _DifferentiableFlip(torch.autograd.Function):
    """flip recorded for autograd and torch.func's transforms (a StridedView records no gradient,
    and a transform's tensors have no storage to view): the gradient and the tangent of a flip
    are the same flip of the output's gradient and of the input's tangent; batched, the batch dim
    is moved to the front and stays as it is."""

    @staticmethod
    def forward(input, dims):
        return copy_kernel(_flipped(input, dims))  # autograd runs forward with grad disabled

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.dims = inputs[1]

    @staticmethod
    def backward(ctx, grad_output):
        return flip(grad_output, ctx.dims), None

    @staticmethod
    def jvp(ctx, input_tangent, _):
        return flip(input_tangent, ctx.dims)

    @staticmethod
    def vmap(info, in_dims, input, dims):
        batch_first = input.movedim(in_dims[0], 0)
        if batch_first.dim() == 1:  # each example is 0-d: its flip is a copy
            return copy_kernel(batch_first), 0
        return flip(batch_first, [dim + 1 for dim in dims]), 0


def _wrap_dims(input, dims) -> list:
    """`dims` as non-negative dims of `input`, with torch's errors for out-of-range and repeated ones."""
    if isinstance(dims, int) or not hasattr(dims, "__iter__"):
        raise TypeError(f"flip(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}")
    rank = max(input.dim(), 1)  # a 0-d tensor has one dim to name, as in torch
    wrapped = []
    for position, dim in enumerate(dims):
        try:
            dim = operator.index(dim)
        except TypeError:
            raise TypeError(f"flip(): argument 'dims' (position 2) must be tuple of ints, but found element of "
                            f"type {type(dim).__name__} at pos {position}") from None
        dim = c.wrap_dim(dim, rank)
        if dim in wrapped:
            raise RuntimeError(f"dim {dim} appears multiple times in the list of dims")
        wrapped.append(dim)
    return wrapped


def _flipped(input, dims):
    """A StridedView reading `input` flipped along `dims`: each stride negated, the start moved
    to the last element along it; `input` itself where no dim of size > 1 is flipped."""
    dims = [d for d in dims if input.dim() and input.shape[d] > 1 and input.stride(d) != 0]
    if not dims or input.numel() == 0:
        return input
    strides, offset = list(input.stride()), 0
    for d in dims:
        offset += (input.shape[d] - 1) * strides[d]
        strides[d] = -strides[d]
    return StridedView(input, input.shape, strides, offset)

"""StridedView: an input operand given as a base tensor, sizes, strides and an offset, where
strides may be negative, which a torch tensor's cannot be. A @pointwise call reads it like a
tensor argument; `tritonize.ops.flip` is a copy over one.

    v = tritonize.StridedView(x, x.shape, (-x.stride(0), x.stride(1)), offset=(x.shape[0] - 1) * x.stride(0))
    y = copy_kernel(v)        # x flipped along dim 0

The kernel gets a pointer to the view's first element (index 0, ..., 0) and adds
`sum(i_d * stride_d)`, signed, so every element must lie inside the base's storage: the
constructor checks that, since no later step could.
"""
from __future__ import annotations

import math
import operator

import torch

from tritonize.errors import StridedViewError


class StridedView:
    """The elements of `base`'s storage at `offset + sum(i_d * strides[d])` (in elements, from
    `base`'s first element) for every index i within `shape`; read-only: any @pointwise
    tensor input, not out=."""

    def __init__(self, base: torch.Tensor, shape, strides, offset: int = 0):
        if not isinstance(base, torch.Tensor) or base.layout != torch.strided:
            raise StridedViewError(f"StridedView needs a strided torch.Tensor as its base, got "
                                   f"{type(base).__name__ if not isinstance(base, torch.Tensor) else base.layout}")
        shape, strides, offset = _ints("shape", shape), _ints("strides", strides), _int("offset", offset)
        if len(shape) != len(strides):
            raise StridedViewError(f"StridedView: shape {shape} has {len(shape)} dims but strides {strides} "
                                   f"has {len(strides)}")
        if any(n < 0 for n in shape):
            raise StridedViewError(f"StridedView: shape {shape} has a negative size")
        self.base, self.shape, self._strides, self.offset = base, torch.Size(shape), strides, offset
        self.dtype, self.device = base.dtype, base.device
        self._numel = math.prod(shape)
        start = base.storage_offset() + offset
        detached = base.detach()  # the pointer carries no autograd history
        if self._numel == 0:
            # nothing is read (no launch), so no offset is checked; a valid empty pointer
            self.pointer = detached.as_strided((0,), (1,), base.storage_offset())
        else:
            _check_inside(base, shape, strides, offset, start)
            # what the kernel receives: a 0-d tensor whose data_ptr() is the first element
            # (Triton's interpreter copies the whole storage, so the other elements come too)
            self.pointer = detached.as_strided((), (), start)
        self._data_ptr = self.pointer.data_ptr()
        # what a memoized call's plan depends on (see decorator.signature_key)
        self.key = (StridedView, self.dtype, self.shape, strides, self.device, self._data_ptr & 15 == 0)

    def __repr__(self) -> str:
        return (f"StridedView(shape={tuple(self.shape)}, strides={self._strides}, offset={self.offset}, "
                f"dtype={self.dtype}, device={self.device})")

    # -- what the runtime reads, spelled as torch.Tensor spells it ----------------------------

    def dim(self) -> int:
        return len(self.shape)

    def stride(self, dim: int | None = None):
        return self._strides if dim is None else self._strides[dim]

    def numel(self) -> int:
        return self._numel

    def element_size(self) -> int:
        return self.base.element_size()

    def data_ptr(self) -> int:
        """The address of the first element (index 0, ..., 0), not the lowest one."""
        return self._data_ptr

    def untyped_storage(self):
        return self.base.untyped_storage()

    def storage_offset(self) -> int:
        return self.base.storage_offset() + self.offset

    @property
    def requires_grad(self) -> bool:
        return self.base.requires_grad

    def clone(self) -> torch.Tensor:
        """The elements as a new contiguous tensor, made by torch's own ops (a reference)."""
        if self._numel == 0:
            return torch.empty(self.shape, dtype=self.dtype, device=self.device)
        negative = [d for d, s in enumerate(self._strides) if s < 0]
        lowest = self.storage_offset() + _reach(self.shape, self._strides)[0]
        mirrored = self.base.detach().as_strided(self.shape, [abs(s) for s in self._strides], lowest)
        return mirrored.flip(negative) if negative else mirrored.clone()


def _int(label, value) -> int:
    try:
        return operator.index(value)
    except TypeError:
        raise StridedViewError(f"StridedView: {label} must be an int, got {type(value).__name__}") from None


def _ints(label, values) -> tuple:
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError:
        raise StridedViewError(f"StridedView: {label} must be a sequence of ints, got {values!r}") from None


def _check_inside(base, shape, strides, offset, start):
    """Every element's storage index lies in [0, elements the storage holds)."""
    low, high = (start + reach for reach in _reach(shape, strides))
    held = base.untyped_storage().nbytes() // base.element_size()
    if low < 0 or high >= held:
        raise StridedViewError(
            f"StridedView(shape={shape}, strides={strides}, offset={offset}) reads storage elements {low} to "
            f"{high} (its base starts at storage element {base.storage_offset()}), but the base's storage holds "
            f"elements 0 to {held - 1}: the view would read outside it")


def _reach(shape, strides) -> tuple[int, int]:
    """How far below and above the first element (index 0, ..., 0) the elements lie, in elements."""
    return (sum((n - 1) * s for n, s in zip(shape, strides) if s < 0),
            sum((n - 1) * s for n, s in zip(shape, strides) if s > 0))

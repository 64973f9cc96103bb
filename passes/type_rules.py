"""Torch's type-promotion rules for values inside a scalar function, and dtype spellings.

A value has a torch dtype and a priority that mirrors how `torch.result_type` weighs its
operands: 2 for a tensor with dimensions, 1 for a 0-d tensor, 0 for a Python number (a
"wrapped number": literals, scalar parameters and expressions made only of them). Python
numbers are carried at full width (bool, int64, float64) so that arithmetic among them is
Python's own; they are cast to the promoted dtype where they meet a tensor, as torch does.
"""
from __future__ import annotations

from typing import NamedTuple

import torch

TENSOR, ZERO_DIM, PYTHON = 2, 1, 0

FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
INT_DTYPES = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)
# 8-bit floats are a @pointwise function's inputs and outputs only: torch has few kernels for them, so the op
# library (which refuses what torch refuses) leaves them to torch
FLOAT8_DTYPES = (torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e8m0fnu)
# so are the wide unsigned integers: torch copies them and has bitwise ops, * and == for them, but no +, <,
# shifts, // or %, and promotes them with no other integer dtype
WIDE_UNSIGNED_DTYPES = (torch.uint16, torch.uint32, torch.uint64)
UNSIGNED_DTYPES = (torch.uint8,) + WIDE_UNSIGNED_DTYPES
LIBRARY_DTYPES = FLOAT_DTYPES + INT_DTYPES + (torch.bool,)
SUPPORTED_DTYPES = LIBRARY_DTYPES + FLOAT8_DTYPES + WIDE_UNSIGNED_DTYPES

TRITON_NAMES = {
    torch.bool: "int1", torch.int8: "int8", torch.int16: "int16", torch.int32: "int32",
    torch.int64: "int64", torch.uint8: "uint8", torch.uint16: "uint16", torch.uint32: "uint32",
    torch.uint64: "uint64", torch.float16: "float16",
    torch.bfloat16: "bfloat16", torch.float32: "float32", torch.float64: "float64",
}  # none for 8-bit floats: kernels hold them as their codes (lower_to_triton._cast_float8)
SHORT_NAMES = {
    torch.bool: "b1", torch.int8: "i8", torch.int16: "i16", torch.int32: "i32",
    torch.int64: "i64", torch.uint8: "u8", torch.uint16: "u16", torch.uint32: "u32", torch.uint64: "u64",
    torch.float16: "f16", torch.bfloat16: "bf16",
    torch.float32: "f32", torch.float64: "f64", torch.float8_e4m3fn: "f8e4m3", torch.float8_e5m2: "f8e5m2",
    torch.float8_e8m0fnu: "f8e8m0",
}
BIT_WIDTH = {torch.bool: 1, torch.int8: 8, torch.int16: 16, torch.int32: 32, torch.int64: 64,
             torch.uint8: 8, torch.uint16: 16, torch.uint32: 32, torch.uint64: 64}


class VType(NamedTuple):
    dtype: torch.dtype
    priority: int

    @property
    def is_python(self) -> bool:
        return self.priority == PYTHON

    def __str__(self) -> str:
        kind = {TENSOR: "tensor", ZERO_DIM: "0-d tensor", PYTHON: "Python number"}[self.priority]
        return f"{str(self.dtype).replace('torch.', '')} {kind}"


def python_vtype(value) -> VType:
    if isinstance(value, bool):
        return VType(torch.bool, PYTHON)
    if isinstance(value, int):
        return VType(torch.int64, PYTHON)
    return VType(torch.float64, PYTHON)


def category(dtype: torch.dtype) -> int:
    if dtype == torch.bool:
        return 0
    return 2 if dtype.is_floating_point else 1


def is_float(dtype: torch.dtype) -> bool:
    return dtype.is_floating_point


def is_int(dtype: torch.dtype) -> bool:
    return category(dtype) == 1


def _combine_categories(higher, lower):
    """ATen's combine_categories: a lower-priority group only matters if its kind is higher."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if is_float(higher):
        return higher
    if higher == torch.bool or is_float(lower):
        return _promote_types(higher, lower)
    return higher


class PromotionError(TypeError):
    """Operands whose dtypes torch does not promote (an 8-bit float and any other dtype, a wide unsigned
    integer and another integer dtype)."""


def _promote_types(a: torch.dtype, b: torch.dtype) -> torch.dtype:
    try:
        return torch.promote_types(a, b)
    except RuntimeError:  # torch's "Promotion for Float8 Types is not supported" (or for uint16, ...)
        if a in FLOAT8_DTYPES or b in FLOAT8_DTYPES:
            rule, example = "an 8-bit float with no other dtype", "torch.float32"
        else:
            rule, example = "uint16, uint32 and uint64 with no other integer dtype", "torch.int64"
        raise PromotionError(
            f"{dtype_name(a)} and {dtype_name(b)} do not promote: torch promotes {rule}; read the parameter in "
            f"another dtype (`x: {example}` converts it on load) or convert the tensor before the call") from None


def promote(*vtypes: VType) -> VType:
    """The dtype torch.result_type would give for operands of these kinds (PromotionError where torch
    refuses them)."""
    groups: dict[int, torch.dtype | None] = {TENSOR: None, ZERO_DIM: None, PYTHON: None}
    for vt in vtypes:
        dtype = vt.dtype
        if vt.priority == PYTHON and len({v.priority for v in vtypes}) > 1 and is_float(dtype):
            # a Python float meeting a tensor counts as the default dtype (float32)
            dtype = torch.get_default_dtype()
        prev = groups[vt.priority]
        groups[vt.priority] = dtype if prev is None else _promote_types(prev, dtype)
    dtype = _combine_categories(groups[TENSOR], _combine_categories(groups[ZERO_DIM], groups[PYTHON]))
    return VType(dtype, max(vt.priority for vt in vtypes))


def to_float(vt: VType) -> VType:
    """int/bool -> the default float dtype (Python numbers: float64, i.e. Python's float)."""
    if is_float(vt.dtype):
        return vt
    if vt.is_python:
        return VType(torch.float64, PYTHON)
    return VType(torch.get_default_dtype(), vt.priority)


def compute_dtype(dtype: torch.dtype) -> torch.dtype:
    """fp16/bf16 values are float32 inside a kernel: with opmath they round once on store, without
    it (`promotion="no_opmath"`) after every operation (LowerToTriton.result)."""
    if dtype in (torch.float16, torch.bfloat16) or dtype in FLOAT8_DTYPES:
        return torch.float32
    return dtype


def by_value_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype in which a 0-d tensor of `dtype` passed by value (ParamSpec.by_value) reaches the
    kernel, holding its value exactly: float32 for float32 and 16-bit floats (their compute dtype),
    float64, and int64 for integers and bools."""
    if dtype.is_floating_point:
        return compute_dtype(dtype)
    return torch.int64


def triton_dtype(dtype: torch.dtype) -> str:
    return "tl." + TRITON_NAMES[dtype]


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")

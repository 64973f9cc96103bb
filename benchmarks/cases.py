"""What the benchmark measures: each op as a @pointwise function and as torch eager code,
and the memory layouts its inputs come in."""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import torch
import torch.nn.functional as F

from tritonize import pointwise


@pointwise
def add(a, b):
    return a + b


@pointwise
def mul(a, b):
    return a * b


@pointwise
def gelu(x):
    return 0.5 * x * (1.0 + math.erf(x * 0.7071067811865476))


@pointwise
def silu(x):
    return x / (1.0 + math.exp(-x))


@pointwise
def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


@pointwise
def silu_and_mul(x, y):
    return x / (1.0 + math.exp(-x)) * y


@pointwise
def where(cond, a, b):
    return a if cond else b


@pointwise
def leaky_clip(x, slope: float = 0.01):
    if x < 0:
        return x * slope
    elif x > 6.0:
        return 6.0
    return x


@pointwise
def polar(r, theta):
    return r * math.cos(theta), r * math.sin(theta)


class Op(NamedTuple):
    ours: Callable
    eager: Callable
    arity: int  # tensor inputs
    bool_first: bool = False  # the first input is a condition


OPS = {
    "add": Op(add, torch.add, 2),
    "mul": Op(mul, torch.mul, 2),
    "gelu": Op(gelu, F.gelu, 1),
    "silu": Op(silu, F.silu, 1),
    "sigmoid": Op(sigmoid, torch.sigmoid, 1),
    "silu_and_mul": Op(silu_and_mul, lambda x, y: F.silu(x) * y, 2),
    "where": Op(where, torch.where, 3, bool_first=True),
    "if_else (user)": Op(leaky_clip, lambda x: torch.where(x < 0, x * 0.01, torch.clamp(x, max=6.0)), 1),
    "two outputs (user)": Op(polar, lambda r, t: (r * torch.cos(t), r * torch.sin(t)), 2),
}


def _rows_cols(numel):
    cols = 1024 if numel >= 1024 else numel
    return numel // cols, cols


def make_inputs(case: str, numel: int, arity: int, dtype, device, bool_first=False):
    """Inputs of `numel` output elements in one of the layout cases."""
    m, k = _rows_cols(numel)

    def full(shape):
        return torch.randn(shape, device=device, dtype=torch.float32).to(dtype)

    if case == "contiguous":
        tensors = [full((m, k)) for _ in range(arity)]
    elif case == "row broadcast":
        tensors = [full((m, k))] + [full((k,)) for _ in range(arity - 1)]
    elif case == "column broadcast":
        tensors = [full((m, k))] + [full((m, 1)) for _ in range(arity - 1)]
    elif case == "transposed + contiguous":
        tensors = [full((k, m)).t()] + [full((m, k)) for _ in range(arity - 1)]
    elif case == "strided slices":
        tensors = [full((m, 2 * k))[:, ::2] for _ in range(arity)]
    elif case == "rank-3 permuted":
        a, b, c = 4, m // 4, k
        tensors = [full((c, a, b)).permute(1, 2, 0)] + [full((a, b, c)) for _ in range(arity - 1)]
    elif case == "rank-4 permuted":
        a, b, c, d = 2, 2, m // 4, k
        tensors = [full((a, d, c, b)).permute(0, 3, 2, 1)] + [full((a, b, c, d)) for _ in range(arity - 1)]
    else:
        raise ValueError(case)
    if bool_first:
        tensors[0] = tensors[0] > 0
    return tensors


CASES = ["contiguous", "row broadcast", "column broadcast", "transposed + contiguous", "strided slices",
         "rank-3 permuted", "rank-4 permuted"]


def distinct_elements(inputs, outputs):
    """(tensor, how many distinct elements it holds) for each tensor among them: a broadcast
    (stride-0) dim counts once."""
    for t in list(inputs) + list(outputs):
        if isinstance(t, torch.Tensor):
            yield t, math.prod(n for n, s in zip(t.shape, t.stride()) if s != 0)


def bytes_moved(inputs, outputs) -> int:
    """Bytes read and written, each distinct element once (a broadcast input is read once)."""
    return sum(distinct * t.element_size() for t, distinct in distinct_elements(inputs, outputs))


SECTOR_BYTES = 32  # the unit in which an NVIDIA GPU's L2 reads and writes device memory


def sector_bytes(inputs, outputs) -> int:
    """Bytes device memory moves: as bytes_moved, but an element whose tensor's densest dim
    steps past it reads or writes the rest of its 32-byte sector too (a stride-2 float32 slice
    moves 8 bytes per element, a stride >= 8 one a whole sector)."""
    total = 0
    for t, distinct in distinct_elements(inputs, outputs):
        steps = [abs(s) for n, s in zip(t.shape, t.stride()) if n > 1 and s != 0]
        step = min(steps, default=1) * t.element_size()
        total += distinct * min(step, max(SECTOR_BYTES, t.element_size()))
    return total

"""Hypothesis strategies for tensors: ranks 0-5, sizes 0/1/odd, broadcasts, transposes,
slices with steps, and values, plus an element-by-element plain-Python evaluator."""
from __future__ import annotations

import itertools

import torch
from hypothesis import strategies as st

FLOAT_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
INT_DTYPES = [torch.int8, torch.int32, torch.int64]
ALL_DTYPES = FLOAT_DTYPES + INT_DTYPES + [torch.bool]

# rtol/atol against a float64 reference, per output dtype (FlagGems' tolerances)
TOLERANCE = {
    torch.float16: (1e-3, 1e-3), torch.bfloat16: (1.6e-2, 1e-2),
    torch.float32: (1.3e-6, 1e-5), torch.float64: (1e-9, 1e-12),
}


@st.composite
def shapes(draw, max_rank=5, max_numel=400):
    rank = draw(st.integers(0, max_rank))
    sizes = st.sampled_from([0, 1, 1, 2, 3, 5, 7]) if draw(st.booleans()) else st.sampled_from([1, 2, 3, 5, 7])
    shape = [draw(sizes) for _ in range(rank)]
    while _numel(shape) > max_numel:
        shape[shape.index(max(shape))] = 1
    return tuple(shape)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


@st.composite
def broadcast_shapes(draw, shape, count):
    """`count` shapes that broadcast to `shape`: leading dims dropped, some dims set to 1."""
    out = []
    for _ in range(count):
        drop = draw(st.integers(0, len(shape)))
        sub = list(shape[drop:])
        for i in range(len(sub)):
            if draw(st.integers(0, 3)) == 0:
                sub[i] = 1
        out.append(tuple(sub))
    if count and draw(st.booleans()):
        out[draw(st.integers(0, count - 1))] = tuple(shape)  # usually someone has the full shape
    return out


def make_values(shape, dtype, generator, low=-4, high=4, nonzero=False):
    if dtype == torch.bool:
        values = torch.randint(0, 2, shape, generator=generator).bool()
    elif dtype.is_floating_point:
        values = (torch.rand(shape, generator=generator, dtype=torch.float64) * (high - low) + low).to(dtype)
        if nonzero:
            values = torch.where(values.abs() < 0.25, torch.full_like(values, 0.5), values)
    else:
        values = torch.randint(low, high + 1, shape, generator=generator).to(dtype)
        if nonzero:
            values = torch.where(values == 0, torch.ones_like(values), values)
    return values


@st.composite
def laid_out(draw, values, device):
    """The same values in a random memory layout: contiguous, permuted, or a strided slice."""
    kind = draw(st.sampled_from(["contiguous", "permuted", "sliced", "permuted"]))
    values = values.to(device)
    if kind == "contiguous" or values.dim() == 0:
        return values
    if kind == "permuted":
        perm = draw(st.permutations(range(values.dim())))
        inverse = [perm.index(i) for i in range(values.dim())]
        return values.permute(*perm).contiguous().permute(*inverse)
    # a view with steps into a larger buffer
    big_shape = [2 * s + 1 for s in values.shape]
    buffer = torch.zeros(big_shape, dtype=values.dtype, device=device)
    view = buffer[tuple(slice(1, None, 2) for _ in big_shape)][tuple(slice(0, s) for s in values.shape)]
    view.copy_(values)
    return view


def python_elementwise(fn, args, shape, num_outputs=1):
    """Run the scalar function on Python numbers, element by element (the plain-Python reference)."""
    expanded = [a.expand(shape).to("cpu") if isinstance(a, torch.Tensor) else a for a in args]
    results = [[] for _ in range(num_outputs)]
    for index in itertools.product(*[range(s) for s in shape]):
        scalars = [a[index].item() if isinstance(a, torch.Tensor) else a for a in expanded]
        value = fn(*scalars)
        for k, v in enumerate(value if num_outputs > 1 else (value,)):
            results[k].append(v)
    return results

"""Would a kernel whose two operands are the even and odd elements of one buffer (x[..., ::2] and
x[..., 1::2]: a GPT-J style rotary rotation in place, complex numbers as pairs of reals) move its
bytes faster as one contiguous access of both, split or interleaved in registers? tritonize's flat
kernel loads and stores each at a stride of 2 (experiments/interleaved_out.py: in place it moved
87-89% of its rotation into fresh tensors). Hand-written kernels of the rotation, in place on
(rows, 128) rows, launched with tritonize's blocks and warps, each against float64's result:

- strided: as tritonize generates it (each access at a runtime stride, 2)
- paired loads: one load of both halves, tl.split
- paired stores: one store of both results, tl.interleave
- paired: both
- paired, by a runtime test: both, where an argument says the operands pair (the host's test of
  their pointers and strides; one kernel that also serves unpaired operands)

beside tritonize's own rotation in place and into fresh tensors, and a copy of the same bytes;
us per launch (do_bench median, best of the rounds in turn):

    python -m benchmarks.experiments.paired_access [--rows 131072] [--dtypes bfloat16,float32]
"""
from __future__ import annotations

import argparse

import torch
import triton
import triton.language as tl

from benchmarks.experiments.interleaved_out import rotate
from benchmarks.run import best_in_turn, same_bytes_copy

BLOCK, WARPS = 1024, 4


@triton.jit
def _loads(even_ptr, odd_ptr, even_stride, odd_stride, i, both, PAIRED: tl.constexpr, BLOCK: tl.constexpr):
    if PAIRED:
        a, b = tl.split(tl.reshape(tl.load(even_ptr + both), (BLOCK, 2)))
    else:
        a, b = tl.load(even_ptr + i * even_stride), tl.load(odd_ptr + i * odd_stride)
    return a.to(tl.float32), b.to(tl.float32)


@triton.jit
def _stores(even_ptr, odd_ptr, even_stride, odd_stride, i, both, first, second, PAIRED: tl.constexpr):
    if PAIRED:
        tl.store(even_ptr + both, tl.interleave(first, second))
    else:
        tl.store(even_ptr + i * even_stride, first)
        tl.store(odd_ptr + i * odd_stride, second)


@triton.jit(do_not_specialize=["paired"])
def _rotation(even_ptr, odd_ptr, cos_ptr, sin_ptr, even_stride, odd_stride, pairs, paired,
              PAIRED_LOADS: tl.constexpr, PAIRED_STORES: tl.constexpr, TESTED: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    i = pid * BLOCK + tl.arange(0, BLOCK)
    both = pid * 2 * BLOCK + tl.arange(0, 2 * BLOCK)  # the pairs' elements, both halves in turn
    cos = tl.load(cos_ptr + i).to(tl.float32)
    sin = tl.load(sin_ptr + i).to(tl.float32)
    if TESTED:
        if paired != 0:
            a, b = _loads(even_ptr, odd_ptr, even_stride, odd_stride, i, both, PAIRED_LOADS, BLOCK)
        else:
            a, b = _loads(even_ptr, odd_ptr, even_stride, odd_stride, i, both, False, BLOCK)
    else:
        a, b = _loads(even_ptr, odd_ptr, even_stride, odd_stride, i, both, PAIRED_LOADS, BLOCK)
    first = (a * cos - b * sin).to(even_ptr.dtype.element_ty)
    second = (a * sin + b * cos).to(even_ptr.dtype.element_ty)
    if TESTED:
        if paired != 0:
            _stores(even_ptr, odd_ptr, even_stride, odd_stride, i, both, first, second, PAIRED_STORES)
        else:
            _stores(even_ptr, odd_ptr, even_stride, odd_stride, i, both, first, second, False)
    else:
        _stores(even_ptr, odd_ptr, even_stride, odd_stride, i, both, first, second, PAIRED_STORES)


@triton.jit
def _rotation_rows(even_ptr, odd_ptr, cos_ptr, sin_ptr, row_stride, size1, PAIRED: tl.constexpr,
                   BLOCK: tl.constexpr):
    """The rotation on the even and odd elements of rows with a gap after each (a slice of a fused
    projection's columns): a decoded walk of (rows, size1) pairs, as tritonize's kernel decodes it."""
    t = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    i0, i1 = t // size1, t % size1
    cos = tl.load(cos_ptr + t).to(tl.float32)
    sin = tl.load(sin_ptr + t).to(tl.float32)
    offset = i0 * row_stride + i1 * 2
    if PAIRED:  # each task's two elements, side by side: (BLOCK, 2)
        pairs = offset[:, None] + tl.arange(0, 2)[None, :]
        a, b = tl.split(tl.load(even_ptr + pairs))
    else:
        a, b = tl.load(even_ptr + offset), tl.load(odd_ptr + offset)
    a, b = a.to(tl.float32), b.to(tl.float32)
    first = (a * cos - b * sin).to(even_ptr.dtype.element_ty)
    second = (a * sin + b * cos).to(even_ptr.dtype.element_ty)
    if PAIRED:
        tl.store(even_ptr + pairs, tl.join(first, second))
    else:
        tl.store(even_ptr + offset, first)
        tl.store(odd_ptr + offset, second)


VARIANTS = {
    "strided": (False, False, False),
    "paired loads": (True, False, False),
    "paired stores": (False, True, False),
    "paired": (True, True, False),
    "paired, by a runtime test": (True, True, True),
}


def hand_written(x, cos, sin, loads: bool, stores: bool, tested: bool):
    even, odd = x[..., ::2], x[..., 1::2]
    pairs = cos.numel()
    assert pairs % BLOCK == 0
    paired = int(odd.data_ptr() - even.data_ptr() == x.element_size() and even.stride(-1) == odd.stride(-1) == 2)
    _rotation[(pairs // BLOCK,)](even, odd, cos, sin, 2, 2, pairs, paired, PAIRED_LOADS=loads, PAIRED_STORES=stores,
                                 TESTED=tested, BLOCK=BLOCK, num_warps=WARPS)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=4096 * 32)
    parser.add_argument("--dtypes", default="bfloat16,float32")
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    print(f"# python -m benchmarks.experiments.paired_access ({torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"triton {triton.__version__}): the rotation in place on ({arguments.rows}, 128) rows, us (GB/s)")
    for dtype in [getattr(torch, name) for name in arguments.dtypes.split(",")]:
        x = torch.randn(arguments.rows, 128, device="cuda", dtype=dtype)
        cos, sin = torch.randn(arguments.rows, 64, device="cuda", dtype=dtype), torch.randn(arguments.rows, 64, device="cuda", dtype=dtype)
        even, odd = x[..., ::2].double(), x[..., 1::2].double()
        expected = torch.stack((even * cos.double() - odd * sin.double(), even * sin.double() + odd * cos.double()), -1).flatten(-2)
        systems = {label: (lambda flags=flags: hand_written(x, cos, sin, *flags)) for label, flags in VARIANTS.items()}
        for label, flags in VARIANTS.items():
            copy = x.clone()
            hand_written(copy, cos, sin, *flags)
            torch.testing.assert_close(copy.double(), expected, atol=0.1 if dtype != torch.float32 else 1e-5, rtol=0.02 if dtype != torch.float32 else 1e-5, msg=label)
        # the runtime test's other branch: unpaired operands (two buffers) give the strided kernel's result
        y, z = x.clone(), x.clone()
        _rotation[(cos.numel() // BLOCK,)](y[..., ::2], z[..., 1::2], cos, sin, 2, 2, cos.numel(), 0, PAIRED_LOADS=True,
                                           PAIRED_STORES=True, TESTED=True, BLOCK=BLOCK, num_warps=WARPS)
        w, v = x.clone(), x.clone()
        _rotation[(cos.numel() // BLOCK,)](w[..., ::2], v[..., 1::2], cos, sin, 2, 2, cos.numel(), 0, PAIRED_LOADS=False,
                                           PAIRED_STORES=False, TESTED=False, BLOCK=BLOCK, num_warps=WARPS)
        assert torch.equal(y, w) and torch.equal(z, v)
        systems["tritonize, in place"] = lambda: rotate(x[..., ::2], x[..., 1::2], cos, sin, out=(x[..., ::2], x[..., 1::2]))
        systems["tritonize, fresh outputs"] = lambda: rotate(x[..., ::2], x[..., 1::2], cos, sin)
        moved = (x.numel() + 2 * cos.numel()) * x.element_size() * 2 - 2 * cos.numel() * x.element_size()
        systems["copy of the same bytes"] = same_bytes_copy(moved, "cuda")
        times = best_in_turn({label: lambda fn=fn: triton.testing.do_bench(fn, return_mode="median") * 1e3
                              for label, fn in systems.items()}, arguments.rounds)
        print(f"{str(dtype)[6:]:9s} " + "   ".join(f"{label} {us:.1f} ({moved / us / 1e3:.0f})" for label, us in times.items()),
              flush=True)
        fused_rows(arguments.rows, dtype, arguments.rounds)


def fused_rows(rows: int, dtype: torch.dtype, rounds: int):
    """The rotation in place on the even and odd elements of q, the first 128 columns of a fused (rows, 3 * 128)
    projection: rows with a gap after each, a decoded walk (tritonize paired only flat walks at first), hand-written with
    each half at a stride of 2 and with each task's two elements as one (BLOCK, 2) access."""
    fused = torch.randn(rows, 3 * 128, device="cuda", dtype=dtype)
    q = fused[:, :128]
    cos, sin = torch.randn(rows, 64, device="cuda", dtype=dtype), torch.randn(rows, 64, device="cuda", dtype=dtype)
    even, odd = q[..., ::2].double(), q[..., 1::2].double()
    expected = torch.stack((even * cos.double() - odd * sin.double(), even * sin.double() + odd * cos.double()), -1).flatten(-2)

    def hand(target, paired):
        _rotation_rows[(cos.numel() // BLOCK,)](target[..., ::2], target[..., 1::2], cos, sin, target.stride(0), 64,
                                                PAIRED=paired, BLOCK=BLOCK, num_warps=WARPS)

    for paired in (False, True):
        copy = fused.clone()
        hand(copy[:, :128], paired)
        torch.testing.assert_close(copy[:, :128].double(), expected, atol=0.1 if dtype != torch.float32 else 1e-5,
                                   rtol=0.02 if dtype != torch.float32 else 1e-5)
    systems = {"strided": lambda: hand(q, False), "paired (BLOCK, 2)": lambda: hand(q, True),
               "tritonize, in place": lambda: rotate(q[..., ::2], q[..., 1::2], cos, sin, out=(q[..., ::2], q[..., 1::2]))}
    moved = 2 * (q.numel() + cos.numel()) * q.element_size()
    systems["copy of the same bytes"] = same_bytes_copy(moved, "cuda")
    times = best_in_turn({label: lambda fn=fn: triton.testing.do_bench(fn, return_mode="median") * 1e3
                          for label, fn in systems.items()}, rounds)
    print(f"{str(dtype)[6:]:9s} q of a fused (rows, 384): "
          + "   ".join(f"{label} {us:.1f} ({moved / us / 1e3:.0f})" for label, us in times.items()), flush=True)


if __name__ == "__main__":
    main()

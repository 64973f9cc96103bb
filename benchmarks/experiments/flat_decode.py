"""What a flat rank-2 kernel's index decode costs: tritonize's kernel for a column-broadcast add
(`a + b`, a (m, k) contiguous, b (m, 1): no dims merge, so each element's (i0, i1) comes from
`tid // size1` and `tid % size1` with size1 a runtime argument, and b's stride 0 is a runtime
argument too) copied by hand, against variants: b's zero-stride term dropped (a key that knows
broadcast dims), the division by size1 done as a multiply-high by a precomputed magic number
(CUTLASS's FastDivmod, exact for int32 tasks), both, and size1 a constant (inductor's static
kernels, which divide by shifts). CUDA graphs of launches on rotating inputs, the least of three
rounds, beside tritonize and torch.compile.

    python -m benchmarks.experiments.flat_decode
"""
import torch
import triton
import triton.language as tl

from benchmarks.experiments import header, print_graphed_adds


@triton.jit
def column_add_body(a_ptr, b_ptr, out_ptr, a_stride0, b_stride0, b_stride1, size1, magic, shift, num_tasks,
                    BLOCK: tl.constexpr, MAGIC: tl.constexpr, DROP_ZERO: tl.constexpr):
    tid = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = tid < num_tasks
    if MAGIC:
        t = tid.to(tl.uint32)
        # tl.cast: Triton passes a magic or shift of 1 as a constant int
        i0 = ((tl.umulhi(t, tl.cast(magic, tl.uint32)) + t) >> tl.cast(shift, tl.uint32)).to(tl.int32)
        i1 = tid - i0 * size1
    else:
        i1 = tid % size1
        i0 = tid // size1
    a = tl.load(a_ptr + (i0 * a_stride0 + i1), mask=mask)
    if DROP_ZERO:
        b = tl.load(b_ptr + i0 * b_stride0, mask=mask)
    else:
        b = tl.load(b_ptr + (i0 * b_stride0 + i1 * b_stride1), mask=mask)
    tl.store(out_ptr + (i0 * a_stride0 + i1), a + b, mask=mask)


@triton.jit
def column_add(a_ptr, b_ptr, out_ptr, a_stride0, b_stride0, b_stride1, size1, magic, shift, num_tasks,
               BLOCK: tl.constexpr, MAGIC: tl.constexpr, DROP_ZERO: tl.constexpr):
    column_add_body(a_ptr, b_ptr, out_ptr, a_stride0, b_stride0, b_stride1, size1, magic, shift, num_tasks,
                    BLOCK, MAGIC, DROP_ZERO)


@triton.jit
def column_add_constant(a_ptr, b_ptr, out_ptr, a_stride0: tl.constexpr, b_stride0, b_stride1,
                        size1: tl.constexpr, magic, shift, num_tasks, BLOCK: tl.constexpr, MAGIC: tl.constexpr,
                        DROP_ZERO: tl.constexpr):
    column_add_body(a_ptr, b_ptr, out_ptr, a_stride0, b_stride0, b_stride1, size1, magic, shift, num_tasks,
                    BLOCK, MAGIC, DROP_ZERO)


def magic_numbers(divisor: int) -> tuple[int, int]:
    """(magic, shift) with n // divisor == (umulhi(n, magic) + n) >> shift for 0 <= n < 2^31."""
    shift = (divisor - 1).bit_length()
    return ((1 << 32) * ((1 << shift) - divisor)) // divisor + 1, shift


def launcher(magic=False, drop_zero=False, constant=False, block=1024, warps=4):
    def add(a, b):
        out = torch.empty_like(a)
        size1 = a.shape[1]
        numbers = magic_numbers(size1)  # b's stride 1 is 0: its one column broadcast, as tritonize passes it
        kernel = column_add_constant if constant else column_add
        kernel[(triton.cdiv(a.numel(), block),)](a, b, out, a.stride(0), b.stride(0), 0, size1, *numbers,
                                                 a.numel(), BLOCK=block, MAGIC=magic, DROP_ZERO=drop_zero,
                                                 num_warps=warps)
        return out
    return add


VARIANTS = {
    "as generated": {},
    "zero stride dropped": {"drop_zero": True},
    "magic division": {"magic": True},
    "magic, zero dropped": {"magic": True, "drop_zero": True},
    "constant size": {"constant": True},
    "constant, zero dropped": {"constant": True, "drop_zero": True},
}


def main():
    print(header("flat_decode"))
    case = "column broadcast"
    for dtype in (torch.float32, torch.bfloat16):
        for exponent in (20, 21, 22, 24):
            print_graphed_adds(case, dtype, exponent,
                               lambda inputs: {name: launcher(**flags) for name, flags in VARIANTS.items()},
                               "as generated")


if __name__ == "__main__":
    main()

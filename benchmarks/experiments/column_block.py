"""Why torch.compile's column-broadcast add (`a + b`, a (m, 1024) contiguous, b (m, 1)) beats
tritonize's in 16-bit dtypes: `benchmarks.tune --graph` found 2048-element blocks with 4 warps
5-6% faster than tritonize's 1024 there from 2^21 up (float32: no gain), and inductor loads b
with `evict_last`, drops the mask (its sizes are constants that the block divides) and divides
by a constant. tritonize's generated kernel (b's zero-stride term dropped) copied by hand, with
each of those and their combinations; CUDA graphs of launches on rotating inputs, the least of
three rounds, beside tritonize and torch.compile.

    python -m benchmarks.experiments.column_block
"""
import torch
import triton
import triton.language as tl

from benchmarks.experiments import header, print_graphed_adds


@triton.jit
def column_add(a_ptr, b_ptr, out_ptr, a_stride0, b_stride0, size1, num_tasks, BLOCK: tl.constexpr,
               EVICT_LAST: tl.constexpr, MASKED: tl.constexpr):
    tid = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = tid < num_tasks if MASKED else None
    i1 = tid % size1
    i0 = tid // size1
    a = tl.load(a_ptr + (i0 * a_stride0 + i1), mask=mask)
    if EVICT_LAST:
        b = tl.load(b_ptr + i0 * b_stride0, mask=mask, eviction_policy="evict_last")
    else:
        b = tl.load(b_ptr + i0 * b_stride0, mask=mask)
    tl.store(out_ptr + (i0 * a_stride0 + i1), a + b, mask=mask)


@triton.jit
def column_add_constant(a_ptr, b_ptr, out_ptr, a_stride0: tl.constexpr, b_stride0, size1: tl.constexpr, num_tasks,
                        BLOCK: tl.constexpr, EVICT_LAST: tl.constexpr, MASKED: tl.constexpr):
    column_add(a_ptr, b_ptr, out_ptr, a_stride0, b_stride0, size1, num_tasks, BLOCK, EVICT_LAST, MASKED)


def launcher(block=1024, warps=4, evict_last=False, masked=True, constant=False):
    def add(a, b):
        out = torch.empty_like(a)
        kernel = column_add_constant if constant else column_add
        kernel[(triton.cdiv(a.numel(), block),)](a, b, out, a.stride(0), b.stride(0), a.shape[1], a.numel(),
                                                 BLOCK=block, EVICT_LAST=evict_last, MASKED=masked,
                                                 num_warps=warps)
        return out
    return add


VARIANTS = {
    "as generated": {},
    "2048/4": {"block": 2048},
    "4096/8": {"block": 4096, "warps": 8},
    "evict_last": {"evict_last": True},
    "no mask": {"masked": False},
    "constant": {"constant": True},
    "2048/4 evict_last": {"block": 2048, "evict_last": True},
    "2048/4 no mask": {"block": 2048, "masked": False},
    "2048/4 all three": {"block": 2048, "evict_last": True, "masked": False, "constant": True},
    "1024/4 all three": {"evict_last": True, "masked": False, "constant": True},
}


def main():
    print(header("column_block"))
    case = "column broadcast"
    for dtype in (torch.bfloat16, torch.float32):
        for exponent in (20, 21, 22, 24, 26):
            print_graphed_adds(case, dtype, exponent,
                               lambda inputs: {name: launcher(**flags) for name, flags in VARIANTS.items()},
                               "as generated")


if __name__ == "__main__":
    main()

"""Why is a contiguous bfloat16 add of an odd number of elements (odd_shapes.py: 1031 x 1031,
24001 x 1399) half as fast as eager's and torch.compile's? A flat kernel's mask `i < n`, with n
not a multiple of 16, leaves Triton no proof that the mask is constant over a vector, so every
load and store is split into one-element accesses while the layout keeps 8 contiguous elements
per thread. Hand-written copies of tritonize's flat add: as generated (every block masked), and
every block but the last unmasked (a branch on the program id); beside tritonize, eager and
torch.compile, whose kernel source is printed. CUDA graphs of launches on rotating inputs after
do_bench's flush, the best of 3 rounds taken in turn.

    python -m benchmarks.experiments.ragged_masks
"""
import torch
import triton
import triton.language as tl
from torch._inductor.utils import run_and_get_code

from benchmarks import run
from benchmarks.cases import OPS, bytes_moved
from benchmarks.experiments import header


@triton.jit
def masked_add(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    a = tl.load(a_ptr + i, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + i, mask=mask).to(tl.float32)
    tl.store(out_ptr + i, (a + b).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def split_add(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(0) * BLOCK
    i = start + tl.arange(0, BLOCK)
    if start + BLOCK <= n:  # a whole block: no mask, so loads and stores stay vectors
        a = tl.load(a_ptr + i).to(tl.float32)
        b = tl.load(b_ptr + i).to(tl.float32)
        tl.store(out_ptr + i, (a + b).to(out_ptr.dtype.element_ty))
    else:
        mask = i < n
        a = tl.load(a_ptr + i, mask=mask).to(tl.float32)
        b = tl.load(b_ptr + i, mask=mask).to(tl.float32)
        tl.store(out_ptr + i, (a + b).to(out_ptr.dtype.element_ty), mask=mask)


def hand(kernel, block=1024, warps=4):
    def add(a, b):
        out = torch.empty_like(a)
        n = a.numel()
        kernel[(triton.cdiv(n, block),)](a, b, out, n, BLOCK=block, num_warps=warps)
        return out
    return add


def main():
    print(header("ragged_masks"), flush=True)
    for dtype in (torch.bfloat16, torch.float32):
        for rows, cols in ((1031, 1031), (4097, 1531), (24001, 1399), (4096, 1024)):
            inputs = [torch.randn(rows, cols, device="cuda").to(dtype) for _ in range(2)]
            reference = torch.add(*inputs)
            compiled = run.compile_static(torch.add)
            adds = {"eager": torch.add, "torch.compile": compiled, "tritonize": OPS["add"].ours,
                    "as generated (masked)": hand(masked_add), "whole blocks unmasked": hand(split_add)}
            for name, add in adds.items():
                assert torch.equal(add(*inputs), reference), name
            if rows == 1031 and dtype == torch.bfloat16:
                _, sources = run_and_get_code(compiled, *inputs)
                for source in sources:
                    start = source.find("@triton.jit")
                    print(source[start:source.find("''', device_str=", start)], flush=True)
            moved = bytes_moved(inputs, [reference])
            sets = [inputs] + [[torch.randn(rows, cols, device="cuda").to(dtype) for _ in range(2)]
                               for _ in range(run.rotating_sets(moved) - 1)]
            calls = {name: [lambda x=x, f=add: f(*x) for x in sets] for name, add in adds.items()}
            best = run.graphs_in_turn(calls, run.replay_us)
            print(f"add | contiguous | {str(dtype)[6:]} | {rows}x{cols}: " + ", ".join(
                f"{name} {us:.2f} us" for name, us in best.items()), flush=True)


if __name__ == "__main__":
    main()

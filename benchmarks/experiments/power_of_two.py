"""`2.0 ** x` for a 16-bit tensor x (torch.pow(2.0, x), torch.exp2 in spirit): 0.80x a static
torch.compile in bfloat16 at 2^24 and 0.83x at 2^20 on an H100 (results/experiment_op_library_
compile_h100.txt), at 71% of the peak copy: tritonize calls libdevice's powf, as eager's pow does.
Does exp2 of the float32-widened input round to the same 16-bit value as eager's pow for every
16-bit x? Then a kernel whose x is its own 16-bit input (the result rounded back to that dtype)
can call exp2 instead of pow, with eager's results bit for bit.

Part 1: every bit pattern of bfloat16 and float16, each candidate rounded to the dtype against
torch.pow(2.0, x) on the GPU (NaN counts equal to NaN). Part 2: times as CUDA graphs on rotating
inputs beside eager, torch.compile, tritonize and a copy of the same bytes. Kernels are launched
as tritonize launches its own (no fma contraction, no flush-to-zero, 4 warps).

Part 3 (`--literal-base`): float32 `torch.pow(2.0, x)` through pow_kernel (the base a runtime
number) and through two_to_the_power_kernel (the base a literal, which the lowering sees): the
literal's kernel is smaller, yet it ran 0.4-4% slower on an H200 and 8% slower at 2^20 on an H100
(equal from 2^22), so only bfloat16 takes it.

    python -m benchmarks.experiments.power_of_two [--exponents 20,24] [--literal-base]
"""
import argparse

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

from benchmarks.experiments import header
from tritonize.approximations import every_value
from benchmarks.run import best_in_turn, compile_static, graph_us, rotating_sets, same_bytes_copy

CANDIDATES = {0: "libdevice pow", 1: "libdevice exp2", 2: "tl.exp2"}
LAUNCH = {"enable_reflect_ftz": False, "enable_fp_fusion": False, "num_warps": 4}


@triton.jit
def power_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, CANDIDATE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    if CANDIDATE == 0:
        y = libdevice.pow(2.0, x)
    elif CANDIDATE == 1:
        y = libdevice.exp2(x)
    else:
        y = tl.exp2(x)
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def candidate(index, block=2048, warps=8):
    def launch(x):
        out = torch.empty_like(x)
        power_kernel[(triton.cdiv(x.numel(), block),)](x, out, x.numel(), BLOCK=block, CANDIDATE=index,
                                                       **{**LAUNCH, "num_warps": warps})
        return out
    return launch


def differ(ours, theirs) -> int:
    both_nan = ours.isnan() & theirs.isnan()
    return int(((ours.view(torch.int16) != theirs.view(torch.int16)) & ~both_nan).sum())


def literal_base(exponents):
    """Part 3: float32 pow(2.0, x) with the base a runtime number and a literal, as CUDA graphs."""
    from tritonize.ops import arithmetic

    for exponent in exponents:
        n = 2**exponent
        sets = [torch.rand(n, device="cuda") * 6 - 3 for _ in range(rotating_sets(8 * n))]
        systems = {"pow_kernel": lambda x: arithmetic.pow_kernel(2.0, x),
                   "two_to_the_power_kernel": lambda x: arithmetic.two_to_the_power_kernel(2.0, x)}
        for label, fn in systems.items():
            assert torch.equal(fn(sets[0]), torch.pow(2.0, sets[0])), label
        measures = {label: lambda fn=fn: graph_us([lambda x=x: fn(x) for x in sets]) for label, fn in systems.items()}
        measures["copy"] = lambda: graph_us([same_bytes_copy(8 * n, "cuda", allocate=True) for _ in sets])
        best = best_in_turn(measures, rounds=5)
        print(f"float32 2^{exponent}: " + ", ".join(f"{label} {us:.2f} us" for label, us in best.items()), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exponents", default="20,24")
    parser.add_argument("--literal-base", action="store_true")
    options = parser.parse_args()
    if options.literal_base:
        print(header("power_of_two --literal-base", rounds=5), flush=True)
        return literal_base((20, 22, 24))
    from tritonize import ops

    print(header("power_of_two"), flush=True)
    for dtype in (torch.bfloat16, torch.float16):
        x = every_value(dtype, "cuda")
        eager = torch.pow(2.0, x)
        ours = ops.pow(2.0, x)
        counts = {name: differ(candidate(index)(x), eager) for index, name in CANDIDATES.items()}
        counts["tritonize"] = differ(ours, eager)
        print(f"== every {str(dtype)[6:]} x: results that differ from eager's bit for bit: "
              + ", ".join(f"{name} {count}" for name, count in counts.items()), flush=True)
    generator = torch.Generator(device="cuda").manual_seed(0)
    for exponent in map(int, options.exponents.split(",")):
        n = 2**exponent
        sets = [(torch.rand(n, device="cuda", generator=generator) * 6 - 3).to(torch.bfloat16)
                for _ in range(rotating_sets(4 * n))]
        systems = {"eager": lambda x: torch.pow(2.0, x), "torch.compile": compile_static(lambda x: torch.pow(2.0, x)),
                   "tritonize": lambda x: ops.pow(2.0, x)}
        for index, name in CANDIDATES.items():
            systems[name] = candidate(index)
        measures = {label: lambda fn=fn: graph_us([lambda x=x: fn(x) for x in sets]) for label, fn in systems.items()}
        copies = [same_bytes_copy(4 * n, "cuda", allocate=True) for _ in sets]
        measures["copy"] = lambda: graph_us(copies)
        best = best_in_turn(measures, rounds=3)
        print(f"== bfloat16 2^{exponent}: a copy of the same bytes {best['copy']:.1f} us", flush=True)
        for label in systems:
            print(f"  {label:16s} {best[label]:7.1f} us  {best['torch.compile'] / best[label]:5.2f}x torch.compile",
                  flush=True)


if __name__ == "__main__":
    main()

"""Float floor division (`a // b`, torch.floor_divide, div(rounding_mode="floor")) against a
static torch.compile: 0.40x in bfloat16 and 0.76x in float32 at 2^24, 0.51x at 2^20, where
torch.compile's floor(a / b) divides approximately and is off by one on thousands of inputs
(results/experiment_op_library_compile_h200.txt). tritonize computes c10's div_floor_floating
(fmod, a correctly rounded (a - mod) / b, two corrections), eager's results bit for bit.

Hand-written copies of the kernel (float32 opmath, flat, contiguous), each checked bit for bit
against eager before it is timed, beside tritonize, eager, torch.compile and a copy of the same
bytes, as CUDA graphs on rotating inputs:

- `eager_formula`: tritonize's lowering today (passes/lower_to_triton.py, floor_divide).
- `zero_guard`: the same, with the division's dividend a - mod = 0 (|a| < |b|: half of the op
  tests' inputs) taken out: div.rn.f32's check sends a zero dividend down its slow path, the
  guess this tests. The same results by construction.
- `exact_floor`: floor(q) of the correctly rounded quotient q = a / b, one step down where q is
  an integer that the exact quotient lies below (the sign of fma(-floor(q), b, a)); NaN for an
  infinite dividend, as eager's fmod gives. The exact floor, which is eager's result for
  |q| < 2^22 and from 2^25 up; in [2^22, 2^25) eager's rounding of a - mod differs in float32
  (after rounding to bfloat16 or float16 every pair tested agrees: see below).
- `banded`: exact_floor, and eager's formula for the lanes with |q| in [2^22, 2^25) only, its
  fmod and division fed (1, 1) on the other lanes.
- `banded_without_fmod`: exact_floor, and in the band eager's formula with trunc(a / b) and
  fmod(a, b) derived from exact_floor's residual (band_formula): no fmod, no branch. What the
  git branch `exact-floor-division` lowers float32 `//` to (passes/lower_to_triton.py,
  float32_floor_divide), which waits for this timing and a GPU run of the test suite.

Exactness, checked on the CPU with torch and numpy (`python -m benchmarks.experiments.floor_divide
--exhaustive bfloat16,float16 [--step K] --sampled ROUNDS`): every pair of 16-bit values (every K-th
divisor) and ROUNDS x 2^22 float32 pairs (float32_pairs), the candidates against c10's formula.

    python -m benchmarks.experiments.floor_divide [--exponents 20,24] [--dtypes bfloat16,float32]
"""
from __future__ import annotations

import argparse
import time

import numpy
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

BAND_LOW, BAND_HIGH = 2.0**22, 2.0**25
VARIANTS = ("eager_formula", "zero_guard", "exact_floor", "banded", "banded_without_fmod")


# -- the CPU reference: c10's div_floor_floating and the candidates, in torch float32 --------


def c_fmod(a, b):
    """C's fmodf element by element: torch's vectorized CPU fmod gave NaN for subnormal divisors."""
    with numpy.errstate(all="ignore"):
        return torch.from_numpy(numpy.fmod(a.numpy(), b.numpy()))


def eager_formula(a, b):
    """c10's div_floor_floating in float32, as torch's CUDA kernels compute it."""
    mod = c_fmod(a, b)
    div = (a - mod) / b
    div = torch.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)
    floor = torch.floor(div)
    floor = torch.where(div - floor > 0.5, floor + 1, floor)
    zero = torch.copysign(torch.zeros_like(a), a / b)
    return torch.where(b == 0, a / b, torch.where(div != 0, floor, zero))


def exact_floor(a, b):
    q = a / b
    floor = torch.floor(q)
    # a - floor * b, whose sign fma(-floor, b, a) has: a where floor is 0 (b may be infinite),
    # else exact in float64 for float32 operands
    residual = torch.where(floor == 0, a.double(), a.double() - floor.double() * b.double())
    below = (q == floor) & (residual != 0) & ((residual < 0) != (b < 0))
    return torch.where(a.isinf() & (b != 0), torch.nan, torch.where(below, floor - 1, floor))


def in_band(band_formula):
    """exact_floor, and `band_formula` for the pairs whose |a / b| lies in [2^22, 2^25), fed (1, 1)
    for the others (as a kernel computes both sides of a select)."""
    def banded(a, b):
        q = (a / b).abs()
        band = (q >= BAND_LOW) & (q < BAND_HIGH)
        one = torch.ones_like(a)
        return torch.where(band, band_formula(torch.where(band, a, one), torch.where(band, b, one)), exact_floor(a, b))
    return banded


def band_formula(a, b):
    """c10's formula where |a / b| lies in [2^22, 2^25), without fmod: q = a / b, f = floor(q) and
    r = a - f * b, exact in float32 (|a / b - f| < 1 there: half an ulp of q is at most 1, and the
    exact quotient is never an odd integer past 2^24, which float32 cannot hold). floor(a / b) is f,
    or f - 1 where r's sign is not b's; trunc(a / b) one more where the quotient is negative and not
    whole; then fmod(a, b) = a - trunc * b (exact, from r), and a - fmod, which c10 rounds to
    float32, is trunc * b rounded once (exact in float64 first)."""
    q = a / b
    floor = torch.floor(q)
    residual = (a.double() - floor.double() * b.double()).float()  # fma(-floor, b, a)
    below = (residual != 0) & ((residual < 0) != (b < 0))
    residual_of_floor = torch.where(below, residual + b, residual)
    up = (residual_of_floor != 0) & ((residual_of_floor < 0) != (a < 0))
    mod = torch.where(up, residual_of_floor - b, residual_of_floor)
    n = floor.double() - below.double() + up.double()
    div = (n * b.double()).float() / b
    div = torch.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)
    div_floor = torch.floor(div)
    return torch.where(div - div_floor > 0.5, div_floor + 1, div_floor)


banded, banded_without_fmod = in_band(eager_formula), in_band(band_formula)


# the formulas checked against c10's (eager_formula), by name
CANDIDATES = {"exact_floor": exact_floor, "banded": banded, "banded_without_fmod": banded_without_fmod}


def differ(x, y):
    """Where two results differ bit for bit (any NaN equals any NaN; zeros by their sign)."""
    same = (x == y) & (torch.signbit(x) == torch.signbit(y))
    return ~(same | (x.isnan() & y.isnan()))


def float32_pairs(generator, count: int) -> tuple:
    """(a, b): 2 * count float32 pairs that reach every part of these formulas: random bit patterns
    (specials, subnormals, quotients of every size) and dividends a few ulp from an integer multiple
    of the divisor, with multiples 1..2^27 (the band 2^22..2^25 among them)."""
    bits = torch.randint(-2**31, 2**31, (2, count), generator=generator, dtype=torch.int64).to(torch.int32)
    a, b = bits.view(torch.float32)
    b = torch.where(b.isfinite() & (b != 0), b, torch.ones_like(b))
    multiple = torch.floor(2.0 ** (torch.rand(count, generator=generator, dtype=torch.float64) * 27))
    near = (multiple * (torch.randint(0, 2, (count,), generator=generator) * 2 - 1) * b.double()).float()
    ulps = torch.randint(-2, 3, (count,), generator=generator, dtype=torch.int32)
    near = torch.where(near.isfinite(), (near.view(torch.int32) + ulps).view(torch.float32), near)
    return torch.cat([a, near]), torch.cat([bits[1].view(torch.float32), b])


def sampled(rounds: int) -> None:
    """float32: rounds x 2^22 pairs of float32_pairs through the candidates against c10's formula."""
    generator = torch.Generator().manual_seed(0)
    found, outside, in_band, pairs = dict.fromkeys(CANDIDATES, 0), dict.fromkeys(CANDIDATES, 0), 0, 0
    for _ in range(rounds):
        a, b = float32_pairs(generator, 2**21)
        reference = eager_formula(a, b)
        quotient = (a / b).abs()
        band = (quotient >= BAND_LOW) & (quotient < BAND_HIGH)
        in_band += int(band.sum())
        for name, candidate in CANDIDATES.items():
            wrong = differ(candidate(a, b), reference)
            found[name] += int(wrong.sum())
            outside[name] += int((wrong & ~band).sum())
        pairs += a.numel()
    print(f"float32: {pairs} sampled pairs, {in_band} in the band; differing from c10's formula: {found}; "
          f"of those outside the band: {outside}", flush=True)


def exhaustive(dtype, step: int) -> None:
    """Every pair of dtype values (every step-th divisor) through the candidates and c10's
    formula in float32, each result rounded to dtype: how many differ."""
    values = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(dtype).float()
    started, pairs, found = time.time(), 0, dict.fromkeys(CANDIDATES, 0)
    examples = []
    for first in range(0, 65536, 256 * step):
        b = values[first:first + 256 * step:step].repeat_interleave(65536)
        a = values.repeat(b.numel() // 65536)
        reference = eager_formula(a, b).to(dtype).float()
        for name, candidate in CANDIDATES.items():
            wrong = differ(candidate(a, b).to(dtype).float(), reference)
            found[name] += int(wrong.sum())
            if wrong.any() and len(examples) < 8:
                k = int(wrong.nonzero()[0, 0])
                examples.append((name, a[k].item(), b[k].item()))
        pairs += a.numel()
    print(f"{str(dtype)[6:]}: {pairs} pairs (every {step}. divisor) in {time.time() - started:.0f} s; "
          f"differing from c10's formula: {found}; {examples}", flush=True)


# -- the GPU kernels --------------------------------------------------------------------------


@triton.jit
def eager_steps(a, b, GUARD: tl.constexpr, NONZERO_QUOTIENT: tl.constexpr = False):
    mod = libdevice.fmod(a, b)
    rest = a - mod
    if GUARD:
        div = tl.where(rest == 0, 0.0, tl.math.div_rn(tl.where(rest == 0, 1.0, rest), b))
    else:
        div = tl.math.div_rn(rest, b)
    div = tl.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)
    floor = tl.floor(div)
    floor = tl.where(div - floor > 0.5, floor + 1, floor)
    if NONZERO_QUOTIENT:  # b finite and nonzero, |a / b| >= 1: as the lowering's band
        return floor
    zero = ((a / b).to(tl.int32, bitcast=True) & -2147483648).to(tl.float32, bitcast=True)
    return tl.where(b == 0, a / b, tl.where(div != 0, floor, zero))


@triton.jit
def exact_steps(a, b):
    q = tl.math.div_rn(a, b)
    floor = tl.floor(q)
    residual = tl.where(floor == 0, a, tl.fma(-floor, b, a))
    below = (q == floor) & (residual != 0) & ((residual < 0) != (b < 0))
    return tl.where((tl.abs(a) == float("inf")) & (b != 0), float("nan"), tl.where(below, floor - 1, floor))


@triton.jit
def banded_without_fmod_steps(a, b):
    """exact_steps, and in the band c10's formula from trunc(a / b) and fmod(a, b) derived from the
    exact residual a - floor(q) * b (see band_formula)."""
    q = tl.math.div_rn(a, b)
    floor = tl.floor(q)
    residual = tl.where(floor == 0, a, tl.fma(-floor, b, a))
    below = (residual != 0) & ((residual < 0) != (b < 0))
    exact = tl.where(below, floor - 1, floor)
    exact = tl.where((tl.abs(a) == float("inf")) & (b != 0), float("nan"), tl.where(q == floor, exact, floor))
    band = (tl.abs(q) >= 4194304.0) & (tl.abs(q) < 33554432.0)  # [2^22, 2^25)
    residual_of_floor = tl.where(below, residual + b, residual)
    up = (residual_of_floor != 0) & ((residual_of_floor < 0) != (a < 0))
    mod = tl.where(up, residual_of_floor - b, residual_of_floor)
    n = floor.to(tl.float64) - below.to(tl.float64) + up.to(tl.float64)
    rest = tl.where(band, (n * b.to(tl.float64)).to(tl.float32), 1.0)
    div = tl.math.div_rn(rest, tl.where(band, b, 1.0))
    div = tl.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)
    div_floor = tl.floor(div)
    return tl.where(band, tl.where(div - div_floor > 0.5, div_floor + 1, div_floor), exact)


@triton.jit
def floor_divide_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr, VARIANT: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    a = tl.load(a_ptr + offsets, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=mask).to(tl.float32)
    if VARIANT == 0:
        result = eager_steps(a, b, False)
    elif VARIANT == 1:
        result = eager_steps(a, b, True)
    elif VARIANT == 2:
        result = exact_steps(a, b)
    elif VARIANT == 3:
        quotient = tl.abs(tl.math.div_rn(a, b))
        band = (quotient >= 4194304.0) & (quotient < 33554432.0)  # [2^22, 2^25)
        banded_result = eager_steps(tl.where(band, a, 1.0), tl.where(band, b, 1.0), False, True)
        result = tl.where(band, banded_result, exact_steps(a, b))
    else:
        result = banded_without_fmod_steps(a, b)
    tl.store(out_ptr + offsets, result.to(out_ptr.dtype.element_ty), mask=mask)


def inputs(kind: str, n: int, dtype, generator):
    """(a, b) on the GPU: "op tests" as tests/test_ops_cases.py draws them (a in [-4, 4),
    |b| in [0.25, 4)), "large" (|a / b| up to ~4000), "band" (quotients around 2^22..2^25)."""
    a = torch.rand(n, generator=generator, dtype=torch.float64) * 8 - 4
    b = (torch.rand(n, generator=generator, dtype=torch.float64) * 3.75 + 0.25) * (
        torch.randint(0, 2, (n,), generator=generator) * 2 - 1)
    if kind == "large":
        a = a * 1000
    elif kind == "band":
        b = b * 2.0**-24
    return a.to(dtype).cuda(), b.to(dtype).cuda()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--exponents", default="20,24")
    parser.add_argument("--dtypes", default="bfloat16,float32")
    parser.add_argument("--exhaustive", default="")
    parser.add_argument("--step", type=int, default=1)
    parser.add_argument("--sampled", type=int, default=0, help="rounds of 2^22 float32 pairs")
    options = parser.parse_args()
    if options.sampled:
        sampled(options.sampled)
    if options.exhaustive:
        for name in options.exhaustive.split(","):
            exhaustive(getattr(torch, name), options.step)
    if options.sampled or options.exhaustive:
        return

    from benchmarks.experiments import header
    from benchmarks.run import best_in_turn, compile_static, copy_bandwidth, graph_us, rotating_sets, same_bytes_copy
    from tritonize import ops

    print(header("floor_divide"), flush=True)
    print(f"# peak copy {copy_bandwidth('cuda') / 1e9:.0f} GB/s; columns: us per launch, then eager/that, "
          f"and how many results differ from eager's bit for bit", flush=True)
    generator = torch.Generator().manual_seed(0)
    for name in options.dtypes.split(","):
        dtype = getattr(torch, name)
        for exponent in map(int, options.exponents.split(",")):
            n = 2**exponent
            for kind in ("op tests", "large", "band"):
                a, b = inputs(kind, n, dtype, generator)
                reference = torch.floor_divide(a, b)
                moved = 3 * n * a.element_size()
                sets = [(a, b)] + [inputs(kind, n, dtype, generator) for _ in range(rotating_sets(moved) - 1)]
                systems = {"eager": torch.floor_divide, "torch.compile": compile_static(torch.floor_divide),
                           "tritonize": ops.floor_divide}
                for variant, label in enumerate(VARIANTS):
                    for block, warps in ((1024, 4), (2048, 8)):
                        def launch(x, y, variant=variant, block=block, warps=warps):
                            out = torch.empty_like(x)
                            floor_divide_kernel[(triton.cdiv(n, block),)](x, y, out, n, BLOCK=block, VARIANT=variant,
                                                                          num_warps=warps, enable_fp_fusion=False)
                            return out
                        systems[f"{label} {block}/{warps}"] = launch
                wrong = {label: int(differ(fn(a, b).float().cpu(), reference.float().cpu()).sum())
                         for label, fn in systems.items()}
                measures = {label: lambda fn=fn: graph_us([lambda x=x: fn(*x) for x in sets])
                            for label, fn in systems.items()}
                copies = [same_bytes_copy(moved, "cuda", allocate=True) for _ in sets]
                measures["copy"] = lambda: graph_us(copies)
                best = best_in_turn(measures, rounds=3)
                print(f"== {name} 2^{exponent} {kind}: a copy of the same bytes {best['copy']:.1f} us", flush=True)
                for label in systems:
                    print(f"  {label:22s} {best[label]:8.1f} us  {best['eager'] / best[label]:5.2f}x eager  "
                          f"{wrong[label]} differ", flush=True)
                del sets, copies


if __name__ == "__main__":
    main()

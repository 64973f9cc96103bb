"""A uint32 hash (two multiply-xorshift rounds) in one tritonize kernel against what torch offers a user of
uint32 data, on one GPU: torch has no uint32 shifts, so eager emulates the hash in int64, masking every product
to 32 bits (a dozen kernels), and torch.compile compiles that emulation. us per call (do_bench median of
single launches, the best of three rounds that take the systems in turn), GB/s and the fraction of a copy of
the same bytes; every result checked bit for bit against the emulation first.

    python -m benchmarks.experiments.unsigned_hash [--sizes 20,24,27]
"""
from __future__ import annotations

import argparse

import torch
import triton

from benchmarks.run import best_in_turn, median_us, same_bytes_copy
from tritonize import pointwise

MULTIPLIER = 0x45D9F3B


@pointwise
def hash32(x):
    x = (x ^ (x >> 16)) * MULTIPLIER
    x = (x ^ (x >> 16)) * MULTIPLIER
    return x ^ (x >> 16)


def emulated_hash32(x):
    """hash32 in int64, each product masked to 32 bits, as eager can compute it."""
    y = x.to(torch.int64)
    y = ((y ^ (y >> 16)) * MULTIPLIER) & 0xFFFFFFFF
    y = ((y ^ (y >> 16)) * MULTIPLIER) & 0xFFFFFFFF
    return (y ^ (y >> 16)).to(torch.uint32)


def same_bits(a, b) -> bool:
    return torch.equal(a.view(torch.int32), b.view(torch.int32))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20,24,27", help="powers of two of the element count")
    args = parser.parse_args(argv)
    print(f"# uint32 hash, {torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}")
    compiled = torch.compile(emulated_hash32)
    for exponent in (int(e) for e in args.sizes.split(",")):
        x = torch.randint(-2**31, 2**31, (2**exponent,), device="cuda", dtype=torch.int32).view(torch.uint32)
        reference = emulated_hash32(x)
        assert same_bits(hash32(x), reference), exponent
        systems = {"tritonize": lambda: median_us(lambda: hash32(x)),
                   "eager": lambda: median_us(lambda: emulated_hash32(x))}
        try:
            assert same_bits(compiled(x), reference), exponent
            systems["torch.compile"] = lambda: median_us(lambda: compiled(x))
        except Exception as error:  # inductor may not take uint32 tensors
            print(f"torch.compile of the emulation failed at 2^{exponent}: {type(error).__name__}: {error}"[:300])
        moved = x.numel() * 8
        systems["copy"] = lambda: median_us(same_bytes_copy(moved, "cuda"))
        best = best_in_turn(systems, 3)
        ours = best["tritonize"]
        line = (f"hash32 uint32 2^{exponent:<3d} tritonize {ours:8.1f} us {moved / ours / 1e3:6.0f} GB/s "
                f"({100 * best['copy'] / ours:3.0f}% of copy)  eager (int64 emulation) {best['eager']:8.1f}  "
                f"x{best['eager'] / ours:.2f} eager")
        if "torch.compile" in best:
            line += (f"  torch.compile (of the emulation) {best['torch.compile']:8.1f}  "
                     f"x{best['torch.compile'] / ours:.2f} compile")
        print(line)


if __name__ == "__main__":
    main()

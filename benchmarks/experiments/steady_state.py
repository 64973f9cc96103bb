"""Which copy gives benchmarks.run its back-to-back roofline (steady_us)? A float32 copy of 2^24
to 2^28 elements timed as do_bench's single launches of a memcpy (benchmarks.run's peak copy),
and back to back in a CUDA graph (steady_us) as a memcpy node and as an elementwise kernel
(kernel_copy); then `a + b` on every layout case at 2^24, float32 and bfloat16, as benchmarks.run
times it both ways (measure_row), against the peak copy of each way.

    python -m benchmarks.experiments.steady_state
"""
import torch

from benchmarks import run
from benchmarks.cases import CASES
from benchmarks.experiments import header


def main():
    print(header("steady_state").replace("CUDA graphs, least of 3 rounds", "GB/s read + written"), flush=True)
    for exponent in (24, 25, 26, 27, 28):
        moved = 8 * 2**exponent
        sets = range(run.rotating_sets(moved))
        memcpy = run.median_us(run.same_bytes_copy(moved, "cuda"))
        node = run.steady_us(run.capture([run.same_bytes_copy(moved, "cuda") for _ in sets]))
        kernel = run.steady_us(run.capture([run.kernel_copy(moved, "cuda") for _ in sets]))
        print(f"float32 copy 2^{exponent}: memcpy, single launches {moved / memcpy / 1e3:.0f} GB/s; back to back "
              f"as a memcpy node {moved / node / 1e3:.0f}, as a kernel {moved / kernel / 1e3:.0f}", flush=True)
    peak, steady_peak = run.copy_bandwidth("cuda"), run.copy_bandwidth("cuda", steady=True)
    print(f"peak copy: single launches {peak / 1e9:.0f} GB/s, back to back {steady_peak / 1e9:.0f} GB/s", flush=True)
    print("a + b at 2^24, us of tritonize / eager / torch.compile / a copy of the same bytes; tritonize's % of "
          "the way's peak copy, counting elements used (and 32-byte sectors moved)", flush=True)
    for dtype in (torch.float32, torch.bfloat16):
        for case in CASES:
            row = run.measure_row("add", case, dtype, 24, run.compile_op, peak, "cuda", steady_peak)
            ways = []
            for way, prefix in (("single launches", ""), ("back to back", "steady ")):
                us = " / ".join(f"{row[prefix + key]:.1f}" for key in
                                ("tritonize us", "eager us", "torch.compile us", "same-size copy us"))
                ways.append(f"{way} {us} us, {row[prefix + 'tritonize % copy']:.0f}% "
                            f"({row[prefix + 'tritonize % copy, sectors']:.0f}%)")
            print(f"add | {case} | {row['dtype']} | 2^24: " + "; ".join(ways), flush=True)


if __name__ == "__main__":
    main()

"""The ops whose composites branch per block (portable_math.portable_sides and portable_any: the Bessel
functions J0, J1, Y0 and Y1, digamma, trigamma) through tritonize.ops and torch eager, on 2^24 elements drawn from
domains where every block is on one side, and where most blocks have both: what block-uniform branches buy
where a user's data lies. us per launch (do_bench median, least of 3), float32 and float64; each result
checked against eager (float32 within 1e-4 of max(|f|, 1), float64 1e-5: torch's float64 J and Y are 2.4e-6
of the envelope off between 5 and 10; nan where eager's is; a row says so where not). Another tree is timed by
putting a package of it first on the path (from the repository's root):

    mkdir -p /tmp/base/tritonize && git archive BASE dsl passes ops | tar -x -C /tmp/base
    (cd /tmp/base && cp -r dsl/* tritonize/ && mv passes ops tritonize/)
    for tree in /tmp/base ""; do PYTHONPATH=$tree:. python -m benchmarks.experiments.branch_domains; done

    python -m benchmarks.experiments.branch_domains [op ...]   (some of DOMAINS' ops only)
"""
from __future__ import annotations

import sys

import torch
import triton

import tritonize
import tritonize.ops
from benchmarks.experiments import best_us

DOMAINS = {
    "bessel_j0": ((-2.0, 2.0), (0.0, 2.0), (-30.0, 30.0), (25.0, 400.0)),
    "bessel_j1": ((-2.0, 2.0), (25.0, 400.0)),
    "bessel_y0": ((-2.0, 2.0), (0.0, 2.0), (0.0, 30.0), (25.0, 400.0)),
    "bessel_y1": ((0.0, 2.0), (25.0, 400.0)),
    "digamma": ((0.1, 8.0), (-5.0, 5.0), (1.0, 100.0), (10.0, 1000.0)),
    "trigamma": ((0.1, 8.0), (-5.0, 5.0), (1.0, 100.0), (10.0, 1000.0)),
}
# torch's trigamma is polygamma(1, x)
EAGER = {"trigamma": lambda x: torch.special.polygamma(1, x)}
OURS = {"trigamma": lambda x: tritonize.ops.polygamma(1, x)}


def main():
    print(f"# python -m benchmarks.experiments.branch_domains ({torch.cuda.get_device_name()}, torch "
          f"{torch.__version__.split('+')[0]}, triton {triton.__version__}, tritonize from {tritonize.__file__})",
          flush=True)
    print("# op, dtype, domain: eager us, tritonize us, eager/tritonize")
    generator = torch.Generator(device="cuda").manual_seed(0)
    for name, domains in DOMAINS.items():
        if sys.argv[1:] and name not in sys.argv[1:]:
            continue
        eager = EAGER.get(name) or getattr(torch.special, name)
        ours = OURS.get(name) or getattr(tritonize.ops, name)
        for dtype in (torch.float32, torch.float64):
            for low, high in domains:
                x = (torch.rand(2**24, device="cuda", dtype=torch.float64, generator=generator) * (high - low) + low).to(dtype)
                expected, got = eager(x).double(), ours(x).double()
                both = expected.isfinite() & got.isfinite()
                tolerance = 1e-4 if dtype == torch.float32 else 1e-5
                agree = (torch.equal(expected.isnan(), got.isnan())
                         and bool(((expected - got).abs() <= tolerance * expected.abs().clamp(min=1.0))[both].all()))
                eager_us, ours_us = best_us(lambda: eager(x)), best_us(lambda: ours(x))
                print(f"{name:10} {str(dtype)[6:]:8} [{low:g}, {high:g}]{'':{12 - len(f'{low:g}{high:g}')}} "
                      f"eager {eager_us:7.1f}  tritonize {ours_us:7.1f}  {eager_us / ours_us:6.3f}x"
                      f"{'' if agree else '  DISAGREES with eager'}", flush=True)


if __name__ == "__main__":
    main()

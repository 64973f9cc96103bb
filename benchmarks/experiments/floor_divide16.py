"""Which steps of c10's div_floor_floating does torch round to 16 bits for two float16 or bfloat16
tensors? Each candidate computes c10's formula in float32, rounding to the dtype where its name
says, on random bit patterns of every exponent; counts of results that differ from torch's on the
same device, and tritonize's. Found (results/experiment_floor_divide16.txt): torch's CPU kernels
round every step (`steps`), as c10's 16-bit arithmetic does; its CUDA kernel computes the steps in
float32 (std::fmod returns a float) but rounds floor(div) and floor + 1 to the dtype (`floor, up`),
which for bfloat16 equals the float32 formula on every pair drawn, and for float16 differs from it
in 210 of 2^20. tritonize takes `steps` on the CPU and the float32 formula on CUDA.

    python -m benchmarks.experiments.floor_divide16 [--device cuda]
"""
import argparse

import torch

from benchmarks.experiments.floor_divide import c_fmod
from tritonize.approximations import every_value


def formula(a, b, dtype, rounded):
    """c10's div_floor_floating in float32, each step named in `rounded` rounded to `dtype`:
    'rest' a - mod, 'div' (a - mod) / b, 'less' div - 1, 'floor' floor(div), 'gap' div - floor,
    'up' floor + 1."""
    def r(x, step):
        return x.to(dtype).float() if step in rounded else x
    a, b = a.float(), b.float()
    mod = torch.fmod(a, b) if a.is_cuda else c_fmod(a, b)
    div = r(r(a - mod, "rest") / b, "div")
    div = torch.where((mod != 0) & ((b < 0) != (mod < 0)), r(div - 1, "less"), div)
    floor = r(torch.floor(div), "floor")
    floor = torch.where(r(div - floor, "gap") > 0.5, r(floor + 1, "up"), floor)
    zero = torch.copysign(torch.zeros_like(a), a / b)
    return torch.where(b == 0, a / b, torch.where(div != 0, floor, zero)).to(dtype)


CANDIDATES = {
    "float32": (),
    "steps": ("rest", "div", "less", "floor", "gap", "up"),
    "rest": ("rest",),
    "div": ("div",),
    "rest, div": ("rest", "div"),
    "floor, up": ("floor", "up"),
    "div, less, floor, gap, up": ("div", "less", "floor", "gap", "up"),
    "rest, div, less": ("rest", "div", "less"),
}


def differ(ours, theirs) -> int:
    both_nan = ours.isnan() & theirs.isnan()
    return int(((ours.view(torch.int16) != theirs.view(torch.int16)) & ~both_nan).sum())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda")
    options = parser.parse_args()
    from tritonize import ops

    generator = torch.Generator().manual_seed(0)
    print(f"# python -m benchmarks.experiments.floor_divide16 --device {options.device} "
          f"({torch.cuda.get_device_name() if options.device == 'cuda' else 'CPU'}, torch {torch.__version__})")
    for dtype in (torch.float16, torch.bfloat16):
        every = every_value(dtype, "cpu")
        a = every[torch.randint(0, 2**16, (2**20,), generator=generator)].to(options.device)
        b = every[torch.randint(0, 2**16, (2**20,), generator=generator)].to(options.device)
        theirs = torch.floor_divide(a, b)
        counts = {name: differ(formula(a, b, dtype, rounded), theirs) for name, rounded in CANDIDATES.items()}
        counts["tritonize"] = differ(ops.floor_divide(a, b), theirs)
        print(f"{str(dtype)[6:]}: results that differ from torch's of 2^20: "
              + ", ".join(f"{name} {count}" for name, count in counts.items()), flush=True)


if __name__ == "__main__":
    main()

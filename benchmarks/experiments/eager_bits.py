"""Which ops of the library give results that are not torch eager's bit for bit, and by how
much? Every case of the op tests (tests/test_ops_cases.py) run through tritonize.ops and through
torch on the same inputs (1024 x 1024 by default), each float output compared bit for bit
(a NaN equals any NaN): the share of elements that differ and the largest difference in units
in the last place. Rows that differ are printed most-differing first.

    python -m benchmarks.experiments.eager_bits [--dtypes float32,bfloat16,float16] [--only id,id]
        [--shape ROWSxCOLS] [--device cuda]

Where torch's kernel computes `a + b * c` the compiler contracts it to one fma, which rounds
once; ours rounds the product too unless written with tritonize.math.fma. A few percent of
elements 1 ulp apart is that signature; math functions (libdevice against CUDA's math library)
differ by an ulp or so as well.
"""
from __future__ import annotations

import argparse

import torch

from tests.test_ops_cases import CASES, make_args

_INTEGER_VIEW = {torch.float64: torch.int64, torch.float32: torch.int32, torch.float16: torch.int16,
                 torch.bfloat16: torch.int16}


def ordered(bits: torch.Tensor) -> torch.Tensor:
    """A float's bits as an int64 whose order is the floats' order (so a difference counts ulps)."""
    wide = bits.to(torch.int64)
    return torch.where(wide < 0, -(wide & ~(torch.iinfo(bits.dtype).min)), wide)


def differences(ours: torch.Tensor, theirs: torch.Tensor) -> tuple:
    """(elements, elements that differ, largest ulp difference) of one output."""
    if ours.dtype != theirs.dtype or ours.shape != theirs.shape:
        raise ValueError(f"{ours.dtype}{tuple(ours.shape)} vs {theirs.dtype}{tuple(theirs.shape)}")
    if ours.dtype not in _INTEGER_VIEW:
        return ours.numel(), int((ours != theirs).sum()), 0
    both_nan = ours.isnan() & theirs.isnan()
    a, b = ordered(ours.view(_INTEGER_VIEW[ours.dtype])), ordered(theirs.view(_INTEGER_VIEW[ours.dtype]))
    differ = (a != b) & ~both_nan
    worst = int((a - b).abs()[differ].max()) if bool(differ.any()) else 0
    return ours.numel(), int(differ.sum()), worst


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtypes", default="float32,bfloat16,float16")
    parser.add_argument("--only", default="")
    parser.add_argument("--shape", default="1024x1024")
    parser.add_argument("--device", default="cuda")
    options = parser.parse_args()
    shape = tuple(map(int, options.shape.split("x")))
    wanted = [getattr(torch, name) for name in options.dtypes.split(",")]
    only = set(filter(None, options.only.split(",")))
    device_name = torch.cuda.get_device_name() if options.device == "cuda" else "CPU"
    print(f"# python -m benchmarks.experiments.eager_bits ({device_name}, torch {torch.__version__.split('+')[0]}); "
          f"shape {shape}; columns: case, dtype, share of elements that differ from eager, largest ulp difference",
          flush=True)
    generator = torch.Generator().manual_seed(0)
    rows, same = [], 0
    for case in CASES:
        if only and case.id not in only:
            continue
        for dtype in [d for d in wanted if d in case.floats]:
            args = make_args(case, dtype, generator, device=options.device, shape=shape)
            try:
                ours, theirs = case.ours(*args, **case.kwargs), case.theirs(*args, **case.kwargs)
                outputs = zip(*(r if isinstance(r, tuple) else (r,) for r in (ours, theirs)))
                counts = [differences(a, b) for a, b in outputs]
            except Exception as error:  # noqa: BLE001 - a row that fails says why and the sweep goes on
                print(f"{case.id:28s} {str(dtype)[6:]:9s} failed: {type(error).__name__}: {error}", flush=True)
                continue
            elements = sum(n for n, _, _ in counts)
            differing = sum(d for _, d, _ in counts)
            worst = max(w for _, _, w in counts)
            if differing:
                rows.append((differing / elements, case.id, str(dtype)[6:], worst))
            else:
                same += 1
    for share, case_id, dtype, worst in sorted(rows, reverse=True):
        print(f"{case_id:28s} {dtype:9s} {share:8.3%}  {worst} ulp")
    print(f"# {same} rows bit for bit eager's, {len(rows)} rows differ")


if __name__ == "__main__":
    main()

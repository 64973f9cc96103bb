"""Why torch.compile is ahead on some op-library rows (`op_library.py --compile --graphs`): for each
case, the Triton kernel inductor generates (its math lines) and how many elements of its result
differ from eager's bit for bit, beside tritonize's count, on the 4096 x 4096 inputs op_library
times.

    python -m benchmarks.experiments.compile_math [--only id,id] [--dtypes bfloat16,float32]
"""
from __future__ import annotations

import argparse
import re

import torch
from torch._inductor.utils import run_and_get_code

from benchmarks.experiments.op_library import SHAPE, dtypes_of
from benchmarks.run import compile_static
from tests.test_ops_cases import CASES, make_args

ROWS = "floor_divide,div_floor,pow_scalar_tensor,remainder_scalar_tensor,softplus,selu,logit_backward_eps,ldexp"


def differing(ours, theirs) -> int:
    """Elements whose bits differ (NaNs of any payload count as equal)."""
    ours, theirs = ours.float(), theirs.float()
    same = (ours == theirs) | (ours.isnan() & theirs.isnan())
    same &= ours.signbit() == theirs.signbit()
    return int((~same).sum())


def math_lines(code: str) -> list[str]:
    """The computing lines of inductor's kernels: tmp assignments, less loads and stores."""
    lines = []
    for line in code.splitlines():
        line = line.strip()
        if re.match(r"tmp\d+ = ", line) and "tl.load" not in line:
            lines.append(line)
    return lines


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default=ROWS)
    parser.add_argument("--dtypes", default="bfloat16,float32")
    options = parser.parse_args()
    wanted = [getattr(torch, name) for name in options.dtypes.split(",")]
    only = options.only.split(",")
    print(f"# python -m benchmarks.experiments.compile_math ({torch.cuda.get_device_name()}, torch "
          f"{torch.__version__.split('+')[0]}): elements differing from eager bit for bit, of {SHAPE}", flush=True)
    generator = torch.Generator().manual_seed(0)
    for case in [c for c in CASES if c.id in only]:
        for dtype in dtypes_of(case, wanted):
            args = make_args(case, dtype, generator, device="cuda", shape=SHAPE)
            eager = case.theirs(*args, **case.kwargs)
            ours = case.ours(*args, **case.kwargs)
            compiled = compile_static(lambda *a, fn=case.theirs, kwargs=case.kwargs: fn(*a, **kwargs))
            result, codes = run_and_get_code(compiled, *args)
            print(f"== {case.id} {str(dtype)[6:]}: tritonize {differing(ours, eager)} differ, torch.compile "
                  f"{differing(result, eager)} differ", flush=True)
            for code in codes:
                for line in math_lines(code):
                    print(f"   {line}")
            del args


if __name__ == "__main__":
    main()

"""Does a number, or a 0-d float64 tensor (a wrapped number, promoting weakly), in place of one tensor of
an op compute as torch computes it? Every case of the op tests with two or more tensor arguments, one tensor
replaced by a Python number or a 0-d float64 tensor holding an awkward value (none a 16-bit value), the others
float32, float16 or bfloat16 tensors of 4096 elements, against torch bit for bit on one device; prints the
cases that differ: how many elements over four values, and the largest relative difference (large where the
result cancels to near 0, an ulp of an operand then being most of it).

    python -m benchmarks.experiments.weak_operands [cpu|cuda]

Session 53 found with it that xlogy, xlog1py, logaddexp, logaddexp2, addcmul and addcdiv computed with the
float64 value where torch converts it to the result dtype first (fixed); what remains is known
(benchmarks/results/experiment_weak_operands.txt).
"""
from __future__ import annotations

import sys
import warnings

import torch

sys.path.insert(0, "tests")  # the op cases
from test_ops_cases import CASES, T, make_tensor, seed  # noqa: E402

AWKWARD = [0.10002, 1.0009765, 2.71828, -0.3337]


def arguments(case, dtype, position, form, value, device):
    """The case's arguments: its tensor at `position` made the number `value` or a 0-d float64 tensor of it."""
    generator = torch.Generator().manual_seed(seed(case.id))
    args, k = [], 0
    for a in case.args:
        if isinstance(a, T):
            if k != position:
                args.append(make_tensor(a, dtype, (4096,), generator, device))
            elif form == "number":
                args.append(value)
            else:
                args.append(torch.tensor(value, dtype=torch.float64, device=device))
            k += 1
        else:
            args.append(a)
    return args


def compare(case, dtype, position, form, device):
    """(elements that differ over the values, the largest relative difference), or the error ours raises."""
    total, worst = 0, 0.0
    for value in AWKWARD:
        value = abs(value) if [a for a in case.args if isinstance(a, T)][position].low >= 0 else value
        args = arguments(case, dtype, position, form, value, device)
        try:
            expected = case.theirs(*args, **case.kwargs)
        except Exception:  # noqa: BLE001 - torch refuses the form: nothing to compare
            continue
        try:
            got = case.ours(*args, **case.kwargs)
        except Exception as error:  # noqa: BLE001 - reported
            return error
        if not isinstance(expected, torch.Tensor) or not expected.is_floating_point():
            continue
        bad = ~((got == expected) | (got.isnan() & expected.isnan()))
        if bad.any():
            total += int(bad.sum())
            relative = (got.double() - expected.double()).abs() / expected.double().abs().clamp_min(1e-30)
            worst = max(worst, float(relative[bad].max()))
    return total, worst


def main(device):
    warnings.simplefilter("ignore")
    where = torch.cuda.get_device_name() if device == "cuda" else "the CPU"
    print(f"# weak operands against torch {torch.__version__} on {where}")
    for case in CASES:
        specs = [a for a in case.args if isinstance(a, T)]
        if len(specs) < 2 or any(s.kind in ("bool", "index") for s in specs):
            continue
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            if dtype not in case.floats:
                continue
            for position in range(len(specs)):
                for form in ("number", "tensor"):
                    found = compare(case, dtype, position, form, device)
                    label = f"{case.id:28s} {str(dtype)[6:]:8s} arg {position}"
                    if isinstance(found, Exception):
                        print(f"{label} {form}: ours raises {found!r}"[:160])
                    elif found[0]:
                        print(f"{label} {form:6s} {found[0]:6d} differ, worst relative {found[1]:.3g}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "cuda")

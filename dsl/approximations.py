"""Faster, inexact math where it is exact: checked on every input a kernel can see.

A kernel whose tensor inputs take few values (a bfloat16 or float16 tensor has 65536, an int8 one
256, two int8 ones 65536 pairs) can be run on all of them. For such a kernel on CUDA, tritonize
compiles a variant with Triton's approximate float32 exp (`tl.exp`) and division (`/`, 2 ulp) in
place of libdevice's expf and correctly rounded division, runs both on every input, and keeps
the variant only where all its results equal the exact kernel's bit for bit (NaN payloads and
signed zeros included); failing that, each approximation alone; failing those, none. Rounding a
float32 result to 16 bits hides most of an approximation's error, and the check finds the inputs
where it does not: bfloat16 sigmoid and silu keep both approximations, float16 sigmoid keeps the
exp, float16 silu and exp keep neither (an H100, Triton 3.6;
benchmarks/results/experiment_exhaustive16_h100.txt). So semantics are unchanged: a user sees
the exact kernel's results, from a kernel with inductor's speed.

The verdict is kept for the process and in the cache directory, named by the exact kernel's
module (its code, so the function, the dtypes and the tritonize version), the GPU and the Triton
version: a later process reads it instead of checking again. Calls while a CUDA graph is being
captured use the exact kernel and check nothing. TRITONIZE_APPROXIMATE=0 turns approximation off.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
from typing import Callable, Sequence

import torch

from tritonize import cache
from tritonize.passes import Specialization, approximable

logger = logging.getLogger("tritonize")

# how many values a tensor of each dtype holds (bool tensors hold only False and True)
VALUE_COUNTS = {torch.bool: 2, torch.int8: 2**8, torch.uint8: 2**8, torch.int16: 2**16,
                torch.float16: 2**16, torch.bfloat16: 2**16, torch.float8_e4m3fn: 2**8, torch.float8_e5m2: 2**8,
                torch.float8_e8m0fnu: 2**8}
# the most input combinations a kernel is run on (two 16-bit inputs, 2^32, are too many)
MAX_INPUTS = 2**20

_OFF = {"0", "false", "no", "off"}


def enabled() -> bool:
    return os.environ.get("TRITONIZE_APPROXIMATE", "1").strip().lower() not in _OFF


def checkable(spec) -> bool:
    """Can every input of this specialization be enumerated? Numbers and 0-d tensors cannot
    (a number's values are many; a 0-d tensor is another kernel), nor wide dtypes, nor tensors
    read as another dtype."""
    if spec.device_type != "cuda":
        return False
    combinations = 1
    for param in spec.params:
        # a tensor read as another dtype (ParamSpec.stored) would be enumerated in the wrong one
        if param.vtype.priority != 2 or param.vtype.dtype not in VALUE_COUNTS or param.stored is not None:
            return False
        combinations *= VALUE_COUNTS[param.vtype.dtype]
    # the environment last: reading it costs ~1 us of a new-shape call, where most specializations
    # (float32 tensors, numbers) are answered above
    return combinations <= MAX_INPUTS and enabled()


def every_value(dtype: torch.dtype, device) -> torch.Tensor:
    """Each value of `dtype` once, by its bits (every NaN payload, subnormal and signed zero)."""
    if dtype == torch.bool:
        return torch.tensor([False, True], device=device)
    if VALUE_COUNTS[dtype] == 2**8:
        return torch.arange(256, dtype=torch.int16, device=device).to(torch.uint8).view(dtype)
    return torch.arange(-2**15, 2**15, dtype=torch.int32, device=device).to(torch.int16).view(dtype)


def every_input(dtypes: Sequence[torch.dtype], device) -> list[torch.Tensor]:
    """One 1-D tensor per dtype, together holding each combination of their values once."""
    values = [every_value(d, device) for d in dtypes]
    if len(values) == 1:
        return values
    # meshgrid wants one dtype; the bits' positions are what is combined
    positions = torch.meshgrid(*[torch.arange(v.numel(), device=device) for v in values], indexing="ij")
    return [v[p.reshape(-1)] for v, p in zip(values, positions)]


def same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal bit for bit: -0.0 differs from 0.0, a NaN from a NaN of another payload."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype == torch.bool:
        return torch.equal(a, b)
    as_int = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[a.element_size()]
    return torch.equal(a.view(as_int), b.view(as_int))


def candidates(kinds: Sequence[str]) -> list[tuple[str, ...]]:
    """What to try, fastest first: every approximation together, then each alone."""
    kinds = tuple(sorted(kinds))
    return [kinds] + ([(kind,) for kind in kinds] if len(kinds) > 1 else [])


def choose(kinds: Sequence[str], run: Callable[[tuple], Sequence[torch.Tensor]]) -> tuple[str, ...]:
    """The first candidate whose outputs (`run(candidate)`, over every input) equal the exact
    kernel's (`run(())`) bit for bit; () when none does."""
    exact = run(())
    for candidate in candidates(kinds):
        try:
            results = run(candidate)
        except Exception as error:  # an approximate variant that fails to build must not fail the call
            logger.warning("tritonize: the %s variant failed (%s: %s); using the exact kernel",
                           " and ".join(candidate), type(error).__name__, error)
            continue
        if all(same_bits(a, b) for a, b in zip(exact, results, strict=True)):
            return candidate
    return ()


def verdict_name(module_path, device: torch.device) -> str:
    """The verdict's file name: the exact module's (its code's hash), the GPU and the Triton version."""
    import triton

    properties = torch.cuda.get_device_properties(device)
    machine = f"{properties.name}|{properties.major}.{properties.minor}|triton {triton.__version__}"
    return f"{module_path.stem}.approximations.{hashlib.sha256(machine.encode()).hexdigest()[:12]}.json"


def read_verdict(name: str):
    text = cache.read_note(name)
    if text is None:
        return None
    try:
        found = json.loads(text)["approximate"]
    except (ValueError, KeyError, TypeError):  # damaged: check again, and write it anew
        return None
    return tuple(found) if isinstance(found, list) and all(isinstance(k, str) for k in found) else None


def exact_rank1(spec):
    """The specialization a check runs: `spec`'s element math on 1-D inputs, exact. Only the
    element math is taken over (the libdevice linked is part of it); every launch and layout
    choice (tile, grid, masks, flat index, dependent launch, ...) stays at its default, so that
    one verdict serves every rank and layout."""
    return Specialization(params=spec.params, out_dtypes=spec.out_dtypes, rank=1, index_dtype=torch.int32,
                          device_type=spec.device_type, opmath=spec.opmath, result_dtypes=spec.result_dtypes,
                          toolkit_libdevice=spec.toolkit_libdevice)


def verified(function, spec, device: torch.device):
    """The approximations `function`'s kernel for `spec` may use on `device`: what an earlier
    check found (in this process or on disk), else what a check now finds; None when no check
    can run now (a CUDA graph is being captured)."""
    exact = exact_rank1(spec)
    kinds = approximable(function._ctx, exact)
    if not kinds:
        return ()
    name = verdict_name(function.module_for(exact)[1], device)
    found = read_verdict(name)
    if found is not None:
        return found
    if torch.cuda.is_current_stream_capturing():
        return None
    inputs = every_input([p.vtype.dtype for p in spec.params], device)
    found = choose(kinds, lambda approximate: function.run_on(inputs, spec.out_dtypes, approximate))
    cache.write_note(name, json.dumps({
        "approximate": list(found), "tried": [list(c) for c in candidates(kinds)],
        "inputs": inputs[0].numel(), "device": torch.cuda.get_device_name(device)}, indent=1) + "\n")
    logger.debug("%s: approximations %s, checked on %d inputs", function.__name__, found or "none", inputs[0].numel())
    return found

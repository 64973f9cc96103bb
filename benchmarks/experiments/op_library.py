"""Is any op of the library slower than torch eager's own kernel? Every case of the op tests
(tests/test_ops_cases.py: the same arguments, domains and keyword arguments) run through
tritonize.ops and through torch, on contiguous 4096 x 4096 inputs (2^24 elements), float32 and
bfloat16 for float cases, int32 for the integer-only ones (or the dtypes --dtypes names: float16 and
float64 for float cases, integer dtypes for the others); rows printed slowest first against eager.
This is the speed `tritonize.enable()` gives each aten op, less the host time of a call.

    python -m benchmarks.experiments.op_library [--dtypes float32,bfloat16] [--only id,id] [--contract]
        [--config BLOCK/WARPS] [--compile] [--part K/N] [--graphs] [--shape ROWSxCOLS] [--registers]

`--compile` also times torch.compile of torch's function (static shapes, dynamo reset per row;
agreement is still checked against eager) and sorts and counts rows against it instead: what a
user of `tritonize.enable()` gives up or gains against compiling the same op; `--part K/N` runs
the K-th of N interleaved shares of the rows (compiling every row takes longer than one call);
`--graphs` times each system as CUDA graphs of launches on rotating input sets (more bytes than
the L2 holds), least of 3 rounds in turn, instead of single launches: a compiled function's host
time (guards, ~30-60 us) can exceed a 2^24 bfloat16 kernel's, and do_bench then times the host.

`--contract` compiles with fma contraction (Triton's default) instead of tritonize's
`enable_fp_fusion=False` (benchmarks/experiments/fp_fusion.py): what contraction is worth per op;
`--config` launches every flat walk with that block and warp count (call.LAUNCH_SHAPE_OVERRIDE);
`--shape` times other sizes than 4096 x 4096 (e.g. 2048x2048 for 2^22 elements); `--registers`
ends each row with the registers and spills per thread of the kernels tritonize launched for it.
"""
from __future__ import annotations

import argparse
import math
import time

import torch

from benchmarks.experiments import best_us, header
from benchmarks.run import best_in_turn, compile_static, copy_bandwidth, graph_us, rotating_sets
from tests.test_ops_cases import CASES, T, make_args

SHAPE = (4096, 4096)
# ours against eager: a few ulp of math (libdevice against torch's CUDA math), 1 ulp of bfloat16
CLOSE = {torch.float32: 1e-5, torch.bfloat16: 1.6e-2, torch.float16: 2e-3, torch.float64: 1e-12}


def dtypes_of(case, wanted):
    """The dtypes a case is timed in: the wanted floats it is tested in (float64: every float case that
    tests/test_ops_dtypes.py checks against torch in every dtype); an integer-only case, the wanted
    integer dtypes, else int32."""
    floats = [d for d in wanted if d in case.floats or (d == torch.float64 and case.floats and case.parity)]
    if floats or case.floats:
        return floats
    return [d for d in wanted if not d.is_floating_point and d != torch.bool] or [torch.int32]


def outputs(result):
    return result if isinstance(result, tuple) else (result,)


def agreement(ours, theirs) -> str:
    """'ok' where every output matches eager's (dtype, shape, NaN positions, and each value within
    CLOSE of eager's, relative or absolute), else what differs: for values, the worst relative error
    among those off by both and how many are."""
    for a, b in zip(outputs(ours), outputs(theirs)):
        if a.dtype != b.dtype or a.shape != b.shape:
            return f"{a.dtype}{tuple(a.shape)} vs {b.dtype}{tuple(b.shape)}"
        if not a.dtype.is_floating_point:
            if not torch.equal(a, b):
                return f"{int((a != b).sum())} differ"
            continue
        a64, b64 = a.double(), b.double()
        if not torch.equal(a64.isnan(), b64.isnan()):
            return "NaN positions differ"
        # element by element (an element off relatively and another off absolutely is no difference: a
        # float16 result that eager's chain underflowed to 0 is off relatively only, a large one by an ulp
        # absolutely only); an infinity agrees only with itself
        close = CLOSE[a.dtype]
        infinite = (a64 != b64) & (a64.isinf() | b64.isinf())
        if bool(infinite.any()):
            return f"{int(infinite.sum())} infinities differ"
        difference = (a64 - b64).abs()
        off = (difference > close * b64.abs()) & (difference > close)
        if bool(off.any()):
            worst = float((difference / b64.abs().clamp_min(1e-30))[off].max())
            return f"rel {worst:.1e} on {int(off.sum())}"
    return "ok"


def bytes_moved(args, result) -> int:
    tensors = [a for a in args if isinstance(a, torch.Tensor)] + list(outputs(result))
    return sum(t.numel() * t.element_size() for t in tensors)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dtypes", default="float32,bfloat16")
    parser.add_argument("--only", default="")
    parser.add_argument("--contract", action="store_true")
    parser.add_argument("--config", default="")
    parser.add_argument("--compile", action="store_true")
    parser.add_argument("--part", default="1/1")
    parser.add_argument("--graphs", action="store_true")
    parser.add_argument("--shape", default="x".join(map(str, SHAPE)))
    parser.add_argument("--registers", action="store_true")
    options = parser.parse_args()
    shape = tuple(map(int, options.shape.split("x")))
    if options.config:
        from tritonize import call
        block, warps = map(int, options.config.split("/"))
        call.LAUNCH_SHAPE_OVERRIDE = lambda sizes, tile: ((block,), warps) if tile is None else None
    armed = []  # (registers, spills) of each kernel a recipe armed, for --registers
    if options.registers:
        from tritonize.decorator import LaunchRecipe
        arm = LaunchRecipe.arm

        def arm_and_count(recipe, compiled):
            arm(recipe, compiled)
            armed.append((compiled.n_regs, compiled.n_spills))
        LaunchRecipe.arm = arm_and_count
    if options.contract:
        from benchmarks.experiments.fp_fusion import contract_again
        contract_again()
    wanted = [getattr(torch, name) for name in options.dtypes.split(",")]
    only = set(filter(None, options.only.split(",")))
    print((header("op_library", rounds=3) if options.graphs else
           header("op_library", rounds=1).replace("CUDA graphs", "single launches (do_bench)"))
          + ("; fma contraction on" if options.contract else "")
          + (f"; flat walks in blocks of {options.config}" if options.config else "")
          + (f"; rows of part {options.part}" if options.part != "1/1" else ""), flush=True)
    copy = copy_bandwidth("cuda")
    print(f"# peak copy {copy / 1e9:.0f} GB/s; shape {shape}; columns: case, dtype, tritonize us, eager us, "
          f"eager/tritonize, tritonize % of peak copy, agreement with eager"
          + (", torch.compile us, compile/tritonize, its agreement with eager" if options.compile else ""), flush=True)
    part, parts = map(int, options.part.split("/"))
    rows = []
    generator = torch.Generator().manual_seed(0)
    started = time.time()
    chosen = [(case, dtype) for case in CASES if not only or case.id in only for dtype in dtypes_of(case, wanted)]
    for case, dtype in chosen[part - 1::parts]:
        args = make_args(case, dtype, generator, device="cuda", shape=shape)
        armed.clear()
        ours = lambda: case.ours(*args, **case.kwargs)
        theirs = lambda: case.theirs(*args, **case.kwargs)
        try:
            agrees = agreement(ours(), theirs())
        except Exception as error:  # noqa: BLE001 - a row that fails says why and the sweep goes on
            print(f"{case.id:28s} {str(dtype)[6:]:9s} failed: {type(error).__name__}: {error}", flush=True)
            continue
        moved = bytes_moved(args, theirs())
        systems = {"ours": case.ours, "eager": case.theirs}
        if options.compile:
            compiled = compile_static(lambda *a, fn=case.theirs, kwargs=case.kwargs: fn(*a, **kwargs))
            try:
                compiled_agrees = agreement(compiled(*args), theirs())
                systems["compile"] = lambda *a, **kwargs: compiled(*a)
            except Exception as error:  # noqa: BLE001 - inductor refusing an op is a row too
                compiled_agrees = "failed"
                print(f"# {case.id} {str(dtype)[6:]}: torch.compile failed: {type(error).__name__}: {error}",
                      flush=True)
        if options.graphs:
            sets = [args] + [make_args(case, dtype, generator, device="cuda", shape=shape)
                             for _ in range(rotating_sets(moved) - 1)]
            measures = {name: lambda fn=fn: graph_us([lambda a=a: fn(*a, **case.kwargs) for a in sets])
                        for name, fn in systems.items()}
            best = best_in_turn(measures, rounds=3)
            del sets
        else:
            # in turn, ours first and last: noise only ever adds, so the least of each stands
            best = dict.fromkeys(systems, float("inf"))
            for name in [*systems, "ours"]:
                fn = systems[name]
                best[name] = min(best[name], best_us(lambda: fn(*args, **case.kwargs), rounds=1))
        ours_us, theirs_us = best["ours"], best["eager"]
        compiled_us = best.get("compile", float("nan")) if options.compile else None
        row = (case.id, str(dtype)[6:], ours_us, theirs_us, theirs_us / ours_us,
               moved / (ours_us * 1e-6) / copy, agrees)
        if compiled_us is not None:
            row += (compiled_us, compiled_us / ours_us, compiled_agrees)
        rows.append(row)
        print(line(row) + ("  regs " + ",".join(f"{r}/{s}" for r, s in armed) if options.registers else ""),
              flush=True)
        del args
    against = "torch.compile" if options.compile else "eager"
    ratio_of = (lambda r: r[8]) if options.compile else (lambda r: r[4])
    rows = [r for r in rows if ratio_of(r) == ratio_of(r)]  # a row torch.compile failed on has no ratio
    print(f"# {len(rows)} rows in {time.time() - started:.0f} s; slowest against {against} first:")
    for row in sorted(rows, key=ratio_of):
        print(line(row))
    ratios = [ratio_of(row) for row in rows]
    if ratios:
        print(f"# geometric mean {against}/tritonize {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}x; "
              f"{sum(r < 0.95 for r in ratios)} of {len(ratios)} rows under 0.95x {against}")


def line(row) -> str:
    text = f"{row[0]:28s} {row[1]:9s} {row[2]:8.1f} {row[3]:8.1f} {row[4]:6.3f}x {row[5]:5.0%}  {row[6]}"
    return text + (f"  {row[7]:8.1f} {row[8]:6.3f}x  {row[9]}" if len(row) > 7 else "")


if __name__ == "__main__":
    main()

"""Where the float32 2^20 rows lose 0.3-0.5 us to torch.compile (silu_and_mul, the user's if/else,
the two-output op), and what the 16-bit and 2^24 shortfalls are made of:

1. single launches (`do_bench` median, as benchmarks.run times them) over many interleaved
   rounds, beside the same ops timed as a CUDA graph of launches on rotating input sets (more
   bytes than L2 holds), which averages away the CUDA event's ~0.5 us resolution and the host;
2. what inductor generates for those ops and which launch configs it picked;
3. hand-written copies of our silu_and_mul and polar kernels with inductor's approximate
   division, exp, sin and cos instead of our correctly rounded ones (what the precision costs);
4. copy and add at 2^22..2^26 with do_bench's L2 flush (a memset: the L2 is left full of dirty
   lines that the timed kernel must write back) and with a flush that leaves clean lines;
5. 16-bit ops with 8 and 16 elements per thread, with the compiled kernels' register counts.

    python -m benchmarks.experiments.compile_gap [--dump DIR] [--parts 1,2,3,4,5]
"""
import argparse
import statistics
import traceback
from pathlib import Path

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice
from triton.testing import do_bench

from benchmarks.cases import OPS, bytes_moved, make_inputs
from benchmarks.run import ROTATE_BYTES, check, graph_us, rotating_inputs, rotating_sets, same_bytes_copy
from tritonize import call
from tritonize.decorator import signature_key

ROUNDS = 15


def single_us(fn):
    return do_bench(fn, warmup=5, rep=25, return_mode="median") * 1e3


def rotating(name, dtype, exponent, compiled):
    """Per system, one zero-argument call per input set, the sets together over ROTATE_BYTES."""
    op = OPS[name]
    first = make_inputs("contiguous", 2**exponent, op.arity, dtype, "cuda", op.bool_first)
    reference = op.eager(*first)
    moved = bytes_moved(first, reference if isinstance(reference, tuple) else (reference,))
    sets = rotating_inputs(first, "contiguous", 2**exponent, op, dtype, "cuda", moved)
    copies = [same_bytes_copy(moved, "cuda") for _ in sets]
    return moved, {
        "tritonize": [lambda x=x: op.ours(*x) for x in sets],
        "eager": [lambda x=x: op.eager(*x) for x in sets],
        "torch.compile": [lambda x=x: compiled(*x) for x in sets],
        "copy": copies,
    }


def part_rounds(rows):
    print("## 1. single launches (median and spread over rounds) vs CUDA graphs of rotating sets", flush=True)
    for name, dtype, exponent in rows:
        op = OPS[name]
        compiled = torch.compile(op.eager)
        moved, calls = rotating(name, dtype, exponent, compiled)
        x = make_inputs("contiguous", 2**exponent, op.arity, dtype, "cuda", op.bool_first)
        check(name, op.ours(*x), op.eager(*x), dtype)
        check(name, compiled(*x), op.eager(*x), dtype)
        singles = {s: [] for s in calls}
        for round_ in range(ROUNDS):
            order = list(calls)[round_ % 4:] + list(calls)[:round_ % 4]
            for system in order:
                singles[system].append(single_us(calls[system][0]))
        line = f"{name} {str(dtype)[6:]} 2^{exponent} ({len(calls['copy'])} sets):"
        graphs = {}
        for system in calls:
            try:
                graphs[system] = graph_us(calls[system])
            except Exception as error:  # noqa: BLE001 - report and go on
                graphs[system] = float("nan")
                print(f"  {system}: no CUDA graph: {type(error).__name__}: {error}"[:300], flush=True)
        for system in calls:
            s = singles[system]
            line += (f"\n  {system:13} single min {min(s):5.2f} median {statistics.median(s):5.2f} "
                     f"max {max(s):5.2f} | graph {graphs[system]:6.2f} us")
        ratio = graphs["torch.compile"] / graphs["tritonize"]
        line += f"\n  graph: tritonize {ratio:.3f}x torch.compile, {graphs['copy'] / graphs['tritonize']:.0%} of copy"
        print(line, flush=True)


def part_inductor(rows, dump):
    print("## 2. inductor's code and launch configs", flush=True)
    from torch._inductor.utils import run_and_get_code
    for name, dtype, exponent in rows:
        op = OPS[name]
        torch._dynamo.reset()
        x = make_inputs("contiguous", 2**exponent, op.arity, dtype, "cuda", op.bool_first)
        _, codes = run_and_get_code(torch.compile(op.eager), *x)
        if dump:
            (dump / f"inductor_{name.split()[0]}_{str(dtype)[6:]}_2e{exponent}.py").write_text("\n\n".join(codes))
        kernel_lines = [line.strip() for code in codes for line in code.splitlines()
                        if "tl.store" in line or " = tl.load" in line or "tmp" in line and "=" in line]
        print(f"{name} {str(dtype)[6:]} 2^{exponent}: " + " | ".join(kernel_lines)[:900], flush=True)
    from torch._inductor.runtime.cache_dir_utils import cache_dir
    for path in sorted(Path(cache_dir()).rglob("*.best_config")):
        print(f"  {path.name}: {path.read_text()[:300]}", flush=True)


@triton.jit
def silu_and_mul_variant(x_ptr, y_ptr, o_ptr, n, BLOCK: tl.constexpr, EXACT_DIV: tl.constexpr,
                         EXACT_EXP: tl.constexpr):
    tid = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = tid < n
    x = tl.load(x_ptr + tid, mask=mask)
    y = tl.load(y_ptr + tid, mask=mask)
    if EXACT_EXP:
        e = libdevice.exp(-x)
    else:
        e = tl.exp(-x)
    if EXACT_DIV:
        s = tl.math.div_rn(x, 1.0 + e)
    else:
        s = x / (1.0 + e)
    tl.store(o_ptr + tid, s * y, mask=mask)


@triton.jit
def polar_variant(r_ptr, t_ptr, c_ptr, s_ptr, n, BLOCK: tl.constexpr, EXACT: tl.constexpr):
    tid = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = tid < n
    r = tl.load(r_ptr + tid, mask=mask)
    t = tl.load(t_ptr + tid, mask=mask)
    if EXACT:
        tl.store(c_ptr + tid, r * libdevice.cos(t), mask=mask)
        tl.store(s_ptr + tid, r * libdevice.sin(t), mask=mask)
    else:
        tl.store(c_ptr + tid, r * tl.cos(t), mask=mask)
        tl.store(s_ptr + tid, r * tl.sin(t), mask=mask)


def part_precision(exponents):
    print("## 3. correctly rounded vs approximate math (hand-written copies of our kernels, 1024/4)", flush=True)
    for exponent in exponents:
        n = 2**exponent
        sets = rotating_sets(12 * n)
        xs = [torch.randn(n, device="cuda") for _ in range(sets)]
        ys = [torch.randn(n, device="cuda") for _ in range(sets)]
        outs = [torch.empty(n, device="cuda") for _ in range(sets)]
        line = f"silu_and_mul float32 2^{exponent}:"
        for exact_div, exact_exp in ((True, True), (False, True), (True, False), (False, False)):
            calls = [lambda i=i: silu_and_mul_variant[(n // 1024,)](xs[i], ys[i], outs[i], n, BLOCK=1024,
                                                                    EXACT_DIV=exact_div, EXACT_EXP=exact_exp)
                     for i in range(sets)]
            calls[0]()
            error = (outs[0].double() - (xs[0].double() * torch.sigmoid(xs[0].double()) * ys[0].double())).abs()
            line += (f" div {'rn' if exact_div else 'approx'}/exp {'libdevice' if exact_exp else 'tl'}: "
                     f"graph {graph_us(calls):.2f} single {single_us(calls[0]):.2f} us "
                     f"(max err {error.max().item():.1e});")
        line += f" ours: graph {graph_us([lambda i=i: OPS['silu_and_mul'].ours(xs[i], ys[i]) for i in range(sets)]):.2f}"
        print(line, flush=True)
        line = f"polar float32 2^{exponent}:"
        cs = [torch.empty(n, device="cuda") for _ in range(sets)]
        for exact in (True, False):
            calls = [lambda i=i: polar_variant[(n // 1024,)](xs[i], ys[i], outs[i], cs[i], n, BLOCK=1024, EXACT=exact)
                     for i in range(sets)]
            line += f" {'libdevice' if exact else 'tl'} sin/cos: graph {graph_us(calls):.2f} single {single_us(calls[0]):.2f};"
        line += f" ours: graph {graph_us([lambda i=i: OPS['two outputs (user)'].ours(xs[i], ys[i]) for i in range(sets)]):.2f}"
        print(line, flush=True)


def clean_flush_us(fn, reps=60):
    """Median microseconds of fn after a flush that leaves the L2 holding clean lines."""
    dirty = torch.empty(ROTATE_BYTES // 4, dtype=torch.int32, device="cuda")
    clean = torch.ones(ROTATE_BYTES // 4, dtype=torch.int32, device="cuda")
    fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for start, end in zip(starts, ends):
        dirty.zero_()
        clean.sum()  # reads: evicts the dirty lines before the timed kernel
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends)) * 1e3


def part_flush():
    print("## 4. do_bench's flush (dirty L2) vs a clean-L2 flush, float32", flush=True)
    for exponent in (22, 24, 26):
        n = 2**exponent
        a, b = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
        copy = same_bytes_copy(8 * n, "cuda")
        add = OPS["add"].ours
        for label, fn, moved in (("copy", copy, 8 * n), ("tritonize add", lambda: add(a, b), 12 * n),
                                 ("eager add", lambda: torch.add(a, b), 12 * n)):
            dirty = min(single_us(fn) for _ in range(3))
            clean = min(clean_flush_us(fn) for _ in range(3))
            print(f"2^{exponent} {label:14}: do_bench {dirty:7.2f} us {moved / dirty / 1e3:5.0f} GB/s | "
                  f"clean flush {clean:7.2f} us {moved / clean / 1e3:5.0f} GB/s", flush=True)


def part_blocks():
    print("## 5. 16-bit: 8 vs 16 elements per thread, with register counts", flush=True)
    for name, dtype, exponent in (("gelu", torch.bfloat16, 24), ("gelu", torch.bfloat16, 27),
                                  ("gelu", torch.float16, 27), ("silu", torch.bfloat16, 27),
                                  ("two outputs (user)", torch.bfloat16, 24), ("two outputs (user)", torch.bfloat16, 27),
                                  ("silu_and_mul", torch.bfloat16, 24), ("add", torch.bfloat16, 27),
                                  ("two outputs (user)", torch.float32, 24), ("gelu", torch.float32, 27)):
        op = OPS[name]
        x = make_inputs("contiguous", 2**exponent, op.arity, dtype, "cuda", op.bool_first)
        reference = op.eager(*x)
        line = f"{name} {str(dtype)[6:]} 2^{exponent}: eager {min(single_us(lambda: op.eager(*x)) for _ in range(3)):.1f} |"
        for blocks, warps in (((1024,), 4), ((2048,), 4), ((2048,), 8), ((4096,), 8)):
            call.LAUNCH_SHAPE_OVERRIDE = lambda sizes, tile, b=blocks, w=warps: (b, w)
            op.ours._recipes.clear()
            try:
                check(name, op.ours(*x), reference, dtype)
                us = min(single_us(lambda: op.ours(*x)) for _ in range(3))
                compiled = op.ours._recipes[signature_key(tuple(x))].compiled
            finally:
                call.LAUNCH_SHAPE_OVERRIDE = None
                op.ours._recipes.clear()
            line += f" {blocks[0]}/{warps}: {us:.1f} us ({compiled.n_regs} regs, {compiled.n_spills} spills);"
        print(line, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", type=Path, help="write inductor's generated code here")
    parser.add_argument("--parts", default="1,2,3,4,5", help="which parts to run, comma-separated")
    args = parser.parse_args()
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
    torch._dynamo.config.cache_size_limit = 256
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}", flush=True)
    rows = [(name, torch.float32, e) for e in (20, 22)
            for name in ("add", "silu_and_mul", "if_else (user)", "two outputs (user)")]
    parts = (lambda: part_rounds(rows + [("silu_and_mul", torch.bfloat16, 20), ("two outputs (user)", torch.bfloat16, 20)]),
             lambda: part_inductor([r for r in rows if r[2] == 20], args.dump),
             lambda: part_precision((20, 24)), part_flush, part_blocks)
    for number, part in enumerate(parts, 1):
        if str(number) not in args.parts.split(","):
            continue
        try:
            part()
        except Exception:  # noqa: BLE001 - one part failing must not hide the others
            traceback.print_exc()


if __name__ == "__main__":
    main()

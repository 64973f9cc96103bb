"""The benchmark suite: tritonize against torch eager, torch.compile and the measured copy
bandwidth, in one run on one GPU.

    python -m benchmarks.run            # everything, writes benchmarks/results/
    python -m benchmarks.run --quick    # fewer sizes
    python -m benchmarks.run --resume   # go on with a run that stopped (a device call's time limit)

Every result is checked against torch eager before it is timed. Times are medians of
`triton.testing.do_bench`, the best of ROUNDS rounds that take the systems in turn (a kernel of
a few microseconds varies by ~0.5 us between runs); bandwidth counts each distinct element
read or written once. Beside the peak copy bandwidth (the best of large copies), each row
times a device copy of the same number of bytes: the roofline at that size, which large
copies overstate for small ones (launch, ramp-up and the last wave cost a few microseconds).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import torch
import triton
from triton.testing import do_bench

import tritonize
from benchmarks.cases import CASES, OPS, bytes_moved, make_inputs, sector_bytes

SYSTEMS = ("tritonize", "eager", "torch.compile")
ROUNDS = 3
# rows also timed as CUDA graphs (graph_us): from 2^20, where the targets start, to 2^22, above
# which the CUDA event's ~0.5 us resolution is under 3% of a kernel
GRAPH_SIZES = (2**20, 2**22)
# rows from this size up are also timed back to back (steady_times), as issue 4's bandwidth
# target reads them: do_bench's flush costs a 2^24 bfloat16 add a tenth of its time
STEADY_FROM = 2**24
# results must match eager to these; integer and bool ones (benchmarks.tune --dtypes uint8) exactly
TOLERANCE = {torch.float64: 1e-12, torch.float32: 1e-5, torch.bfloat16: 2e-2, torch.float16: 2e-3}


def log(message):
    print(message, flush=True)


def median_us(fn) -> float:
    return do_bench(fn, warmup=10, rep=40, return_mode="median") * 1e3


# a CUDA graph's launches rotate over input sets of this many bytes in all: well over an H100's
# or H200's L2 (50-60 MiB), so that each launch reads from device memory
ROTATE_BYTES = 256 * 2**20


def rotating_sets(moved: int) -> int:
    """How many input sets of `moved` bytes a CUDA graph rotates over (see graph_us)."""
    return max(1, -(-ROTATE_BYTES // moved))


def rotating_inputs(inputs, case, numel, op, dtype, device, moved) -> list:
    """`inputs` and enough fresh sets like them for a CUDA graph to rotate over (rotating_sets)."""
    return [inputs] + [make_inputs(case, numel, op.arity, dtype, device, op.bool_first)
                       for _ in range(rotating_sets(moved) - 1)]


def best_in_turn(measures: dict, rounds: int) -> dict:
    """The least of `rounds` rounds of each measure (label -> a function returning a time), the
    rounds taking the labels in turn: noise comes and goes, and only ever adds."""
    best = dict.fromkeys(measures, float("inf"))
    labels = list(measures)
    for round_ in range(rounds if labels else 0):
        for label in labels[round_ % len(labels):] + labels[:round_ % len(labels)]:
            best[label] = min(best[label], measures[label]())
    return best


def graph_us(calls) -> float:
    """Microseconds per launch of a CUDA graph that makes each of `calls` once, in turn (each on
    its own inputs, see rotating_sets). Precise where a single launch is not: the CUDA event's
    ~0.5 us resolution averages away, and no host time is measured."""
    return replay_us(capture(calls))


def capture(calls, keep_outputs: bool = False):
    """A CUDA graph that makes each of `calls` once, in turn, and how many calls it makes.
    `keep_outputs`: each call's result is held until the capture ends, so that every call writes
    into memory of its own, not into the block the call before freed, which the L2 may still hold
    (see same_bytes_copy)."""
    for fn in calls:
        fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    kept = []
    with torch.cuda.graph(graph):
        for fn in calls:
            result = fn()
            if keep_outputs:
                kept.append(result)
    return graph, len(calls)


def replay_us(captured) -> float:
    graph, launches = captured
    return do_bench(graph.replay, warmup=5, rep=50, return_mode="median") * 1e3 / launches


# each of steady_us's trials replays its graph for at least this long
STEADY_TRIAL_MS = 2.0


def steady_us(captured, trials: int = 5) -> float:
    """Microseconds per launch of a captured graph (capture) replayed back to back, with nothing
    between the replays: the median of `trials` trials of STEADY_TRIAL_MS or more. Unlike
    do_bench, no L2 flush runs before each replay: do_bench's is a memset that leaves the L2
    full of its dirty lines, which the timed kernel then writes back. Back to back, each launch
    writes back what the launch before left dirty, as in a program's stream of kernels. For
    launches whose input sets rotate over more than the L2 (rotating_sets), nothing is read
    from the L2 either."""
    graph, launches = captured
    graph.replay()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    graph.replay()
    end.record()
    end.synchronize()
    replays = max(1, math.ceil(STEADY_TRIAL_MS / start.elapsed_time(end)))
    times = []
    for _ in range(trials):
        start.record()
        for _ in range(replays):
            graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / (replays * launches))
    return statistics.median(times)


def copy_bandwidth(device, steady: bool = False) -> float:
    """Bytes read + written per second by a plain device copy, the roofline of a pointwise op:
    the best of large copies, single launches (median_us) or `steady` (copy_us)."""
    best = 0.0
    for exponent in (26, 27, 28):
        moved = 2 * 2**exponent * 4  # float32 elements read and written
        us = copy_us(moved, device) if steady else median_us(same_bytes_copy(moved, device))
        best = max(best, moved / (us * 1e-6))
    return best


def copy_us(moved: int, device) -> float:
    """steady_us of copies of `moved` bytes (kernel_copy), each launch on a source and
    destination of its own (rotating_sets of them)."""
    return steady_us(capture([kernel_copy(moved, device) for _ in range(rotating_sets(moved))]))


def same_bytes_copy(moved: int, device, allocate: bool = False):
    """A device copy that reads and writes `moved` bytes in all: the roofline at this size.
    `allocate`: each call allocates its output, as an op's call does. Inside a CUDA graph the
    pool hands each call the block the call before freed, which the L2 still holds: at 2^20-2^22
    bfloat16 elements a copy so timed took 0.26-0.59 us (9-10%) less than one into outputs of
    its own (`experiments/graph_alloc.py`)."""
    src = torch.empty(max(moved // 8, 1), device=device)
    if allocate:
        return lambda: torch.empty_like(src).copy_(src)
    dst = torch.empty_like(src)
    return lambda: dst.copy_(src)


def kernel_copy(moved: int, device):
    """A copy that reads and writes `moved` bytes in all, as an elementwise kernel (`x * 1` into
    an output of its own): same_bytes_copy's memcpy, captured in a CUDA graph, becomes a memcpy
    node, which ran 1-2 GB copies at 80% of the speed of the same copy launched on a stream or of
    this kernel (results/experiment_steady_state_h100.txt)."""
    src = torch.empty(max(moved // 8, 1), device=device)
    dst = torch.empty_like(src)
    return lambda: torch.mul(src, 1.0, out=dst)


def compile_static(eager):
    """torch.compile of `eager` as a model whose shapes never change gets it: static shapes,
    with dynamo's caches reset first so that no earlier row's compile is reused. One compiled
    function called with the rows in turn recompiles with dynamic shapes from its second shape
    on: its generic kernels ran a transposed add at a quarter of a static compile's speed, and
    its growing guard list took longer than small kernels (the benchmarks before 2026-11-23)."""
    torch._dynamo.reset()
    return torch.compile(eager, dynamic=False)


def compile_op(name):
    """torch.compile of an op for one row: compile_static of the op's eager function."""
    return compile_static(OPS[name].eager)


def check(name, ours, reference, dtype):
    ours = ours if isinstance(ours, tuple) else (ours,)
    reference = reference if isinstance(reference, tuple) else (reference,)
    tolerance = TOLERANCE.get(dtype, 0)
    compared = torch.float64 if dtype == torch.float64 else torch.float32  # float64 ulps stay ulps
    for a, b in zip(ours, reference):
        torch.testing.assert_close(a.to(compared), b.to(compared), rtol=tolerance, atol=tolerance,
                                   msg=lambda m: f"{name}: tritonize disagrees with eager: {m}")


def measure_row(name, case, dtype, exponent, compiled, copy_bw, device, steady_copy_bw=None):
    op = OPS[name]
    numel = 2**exponent
    inputs = make_inputs(case, numel, op.arity, dtype, device, op.bool_first)
    ours = lambda: op.ours(*inputs)  # noqa: E731
    eager = lambda: op.eager(*inputs)  # noqa: E731
    fn = compiled(name)
    comp = lambda: fn(*inputs)  # noqa: E731
    reference = eager()
    check(name, ours(), reference, dtype)
    check(name + " (torch.compile)", comp(), reference, dtype)
    outputs = reference if isinstance(reference, tuple) else (reference,)
    moved = bytes_moved(inputs, outputs)
    row = {"op": name, "case": case, "dtype": str(dtype).replace("torch.", ""), "numel": numel, "bytes": moved,
           "sector bytes": sector_bytes(inputs, outputs)}
    runs = dict(zip(SYSTEMS + ("copy",), (ours, eager, comp, same_bytes_copy(moved, device))))
    best = best_in_turn({system: lambda run=run: median_us(run) for system, run in runs.items()}, ROUNDS)
    for system in SYSTEMS:
        row[f"{system} us"] = best[system]
        row[f"{system} GB/s"] = moved / (best[system] * 1e-6) / 1e9
    row["same-size copy us"] = best["copy"]
    row["tritonize % copy"] = 100 * row["tritonize GB/s"] * 1e9 / copy_bw
    row["tritonize % copy, sectors"] = 100 * row["sector bytes"] / (best["tritonize"] * 1e-6) / copy_bw
    row["tritonize % same-size copy"] = 100 * best["copy"] / best["tritonize"]
    row["vs eager"] = row["eager us"] / row["tritonize us"]
    row["vs torch.compile"] = row["torch.compile us"] / row["tritonize us"]
    if GRAPH_SIZES[0] <= numel <= GRAPH_SIZES[1]:
        row.update(graph_times(op, case, dtype, numel, fn, inputs, moved, device))
    if numel >= STEADY_FROM and steady_copy_bw:
        row.update(steady_times(op, case, dtype, numel, fn, inputs, moved, device))
        ours = row["steady tritonize us"] * 1e-6
        row["steady tritonize % copy"] = 100 * moved / ours / steady_copy_bw
        row["steady tritonize % copy, sectors"] = 100 * row["sector bytes"] / ours / steady_copy_bw
        row["steady tritonize % same-size copy"] = 100 * row["steady same-size copy us"] / row["steady tritonize us"]
        row["steady vs torch.compile"] = row["steady torch.compile us"] / row["steady tritonize us"]
    return row


def graph_times(op, case, dtype, numel, compiled_fn, inputs, moved, device) -> dict:
    """Each system as a CUDA graph of launches on rotating inputs (graph_us), the best of ROUNDS
    rounds that replay the systems in turn: microseconds per launch to ~0.05 us, and the ratios."""
    sets = rotating_inputs(inputs, case, numel, op, dtype, device, moved)
    calls = system_calls(op, compiled_fn, sets)
    times = graphs_in_turn(calls, replay_us)
    row = {f"graph {system} us": times[system] for system in SYSTEMS}
    row["graph vs eager"] = times["eager"] / times["tritonize"]
    row["graph vs torch.compile"] = times["torch.compile"] / times["tritonize"]
    return row


def steady_times(op, case, dtype, numel, compiled_fn, inputs, moved, device) -> dict:
    """Each system and a copy of the same bytes (kernel_copy) as a CUDA graph of launches on
    rotating inputs, each launch writing an output of its own, replayed back to back (steady_us),
    the best of ROUNDS rounds taken in turn: microseconds per launch with no L2 flush to pay for."""
    sets = rotating_inputs(inputs, case, numel, op, dtype, device, moved)
    calls = system_calls(op, compiled_fn, sets)
    calls["copy"] = [kernel_copy(moved, device) for _ in sets]
    times = graphs_in_turn(calls, steady_us, keep_outputs=True)
    row = {f"steady {system} us": times[system] for system in SYSTEMS}
    row["steady same-size copy us"] = times["copy"]
    return row


def system_calls(op, compiled_fn, sets) -> dict:
    """system -> its calls of the op, one on each input set of `sets`: what a row's graphs make."""
    return {system: [lambda x=x, f=function: f(*x) for x in sets]
            for system, function in zip(SYSTEMS, (op.ours, op.eager, compiled_fn))}


def graphs_in_turn(calls: dict, timer, keep_outputs: bool = False) -> dict:
    """label -> microseconds per launch of a CUDA graph of that label's calls (capture), timed by
    `timer` (replay_us or steady_us), the best of ROUNDS rounds that take the labels in turn;
    NaN for a label whose calls cannot be captured."""
    graphs = {}
    for label, label_calls in calls.items():
        try:
            graphs[label] = capture(label_calls, keep_outputs=keep_outputs)
        except Exception as error:  # noqa: BLE001 - a system that cannot be captured gets no graph time
            log(f"  {label}: no CUDA graph ({type(error).__name__}: {error})")
    times = best_in_turn({label: lambda g=graph: timer(g) for label, graph in graphs.items()}, ROUNDS)
    return {label: times.get(label, float("nan")) for label in calls}


def host_overhead(device, calls=5000) -> dict:
    """Microseconds per call of a 1K-element add, launched back to back."""
    from tritonize import decorator, pointwise

    x = torch.randn(1024, device=device)
    compiled = torch.compile(torch.add)

    def add_via_runner(a, b):
        return a + b
    decorator.DIRECT_LAUNCH = False  # recipes made now keep Triton's CompiledKernel[grid] runner
    add_via_runner = pointwise(add_via_runner)
    for _ in range(3):
        add_via_runner(x, x)
    decorator.DIRECT_LAUNCH = True
    systems = (("tritonize", OPS["add"].ours), ("eager", torch.add), ("torch.compile", compiled),
               ("tritonize, launched through Triton's runner", add_via_runner))
    result = per_call_us({system: lambda fn=fn: fn(x, x) for system, fn in systems}, calls)
    result.update(host_breakdown(x, calls))
    return result


def host_call_forms(device, calls=5000) -> dict:
    """us per call of a 1K-element op in each form a user writes it, tritonize beside torch eager:
    a @pointwise function (plain, with out=, in place, with a number), the op library called
    directly, and aten ops served by tritonize under `tritonize.enabled()` (what a model or an
    optimizer step calls). Each pair is measured in turn, the fastest of HOST_ROUNDS rounds."""
    import torch.nn.functional as F

    add = OPS["add"].ours
    a, b = torch.randn(1024, device=device), torch.randn(1024, device=device)
    c, d = torch.randn(1024, device=device), torch.randn(1024, device=device)
    forms = {
        "add(a, b)": (lambda: add(a, b), lambda: torch.add(a, b)),
        "add(a, b, out=c)": (lambda: add(a, b, out=c), lambda: torch.add(a, b, out=c)),
        "add(c, b, out=c), in place": (lambda: add(c, b, out=c), lambda: c.add_(b)),
        "ops.add(a, b)": (lambda: tritonize.ops.add(a, b), lambda: torch.add(a, b)),
        "ops.mul(a, 0.5)": (lambda: tritonize.ops.mul(a, 0.5), lambda: torch.mul(a, 0.5)),
        "ops.add_(c, b)": (lambda: tritonize.ops.add_(c, b), lambda: c.add_(b)),
    }
    registered = {
        "enabled: a + b": lambda: a + b,
        "enabled: a * 0.5": lambda: a * 0.5,
        "enabled: F.silu(a)": lambda: F.silu(a),
        "enabled: torch.add(a, b, out=c)": lambda: torch.add(a, b, out=c),
        "enabled: c.add_(b)": lambda: c.add_(b),
        "enabled: c.mul_(0.5)": lambda: c.mul_(0.5),
        "enabled: c.addcmul_(a, b, value=0.1)": lambda: c.addcmul_(a, b, value=0.1),
        "enabled: d.lerp_(a, 0.1)": lambda: d.lerp_(a, 0.1),
    }
    result = {form: {"tritonize": float("inf"), "eager": float("inf")} for form in registered}
    for _ in range(HOST_ROUNDS):  # the registration comes and goes between rounds, not between forms
        timed = {"eager": per_call_us(registered, calls, rounds=1)}
        with tritonize.enabled(devices=(torch.device(device).type,)):
            timed["tritonize"] = per_call_us(registered, calls, rounds=1)
        for system, times in timed.items():
            for form, us in times.items():
                result[form][system] = min(result[form][system], us)
    for form, (mine, theirs) in forms.items():
        timed = per_call_us({"tritonize": mine, "eager": theirs}, calls)
        result[form] = {"tritonize": timed["tritonize"], "eager": timed["eager"]}
    return result


HOST_ROUNDS = 5


def per_call_us(functions: dict, calls, rounds=HOST_ROUNDS) -> dict:
    """Microseconds per call of each function over `calls` calls in a row, waiting for the GPU
    at the end (a loop of tiny ops runs at this rate); the fastest of `rounds` rounds that take
    the functions in turn, since the host's own noise only ever adds and comes and goes."""
    for fn in functions.values():
        for _ in range(200):
            fn()

    def one_round(fn) -> float:
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        return (time.perf_counter() - start) / calls * 1e6

    return best_in_turn({label: lambda fn=fn: one_round(fn) for label, fn in functions.items()}, rounds)


NEW_SHAPE_CALLS = 1000


def new_shape_systems(device) -> dict:
    """The adds host_new_shapes times: tritonize's, eager's, and torch.compile's with dynamic
    shapes (compiled on two lengths first, on two batches beside a bias and on two transposed
    batches, so that its dynamic kernels serve every length and batch)."""
    compiled = torch.compile(torch.add, dynamic=True)
    for n in (1000, 1001):
        compiled(torch.randn(n, device=device), torch.randn(n, device=device))
        compiled(torch.randn(n - 990, NEW_SHAPE_ROW, device=device), torch.randn(NEW_SHAPE_ROW, device=device))
        compiled(torch.randn(NEW_SHAPE_ROW, n - 990, device=device).t(),
                 torch.randn(n - 990, NEW_SHAPE_ROW, device=device))
    return {"tritonize": OPS["add"].ours, "eager": torch.add, "torch.compile (dynamic)": compiled}


NEW_SHAPE_ROW = 64


def host_new_shapes(device, calls=NEW_SHAPE_CALLS, systems=None, row: int | None = None,
                    transposed: bool = False) -> dict:
    """us per call of an add whose length is new on every call (a sequence growing by one, a
    varying batch), launched back to back: each such tritonize call misses the steady path's memo,
    which is keyed by shapes. The inputs are slices of two rows of one buffer, 1024 + k elements,
    every length used once in the whole measurement; the fastest of HOST_ROUNDS rounds that take
    the systems in turn. With `row`, a batch of 16 + k rows of `row` elements and a bias of `row`
    elements (a varying batch beside a bias), every batch size used once; `transposed` too, the
    batch as the transpose of (row, 16 + k) beside a row-major batch (a tiled walk)."""
    systems = systems if systems is not None else new_shape_systems(device)
    first = 1024 if row is None else 16
    count = first + calls * HOST_ROUNDS * len(systems)
    buffer = torch.randn(2, count * (row or 1), device=device)
    lengths = iter(range(first, count, calls))  # each round's first length
    sync = torch.cuda.synchronize if buffer.is_cuda else (lambda: None)

    def one_round(fn) -> float:
        start = next(lengths)
        if row is None:
            pairs = [(buffer[0, :n], buffer[1, :n]) for n in range(start, start + calls)]
        elif transposed:
            pairs = [(buffer[0, :n * row].view(row, n).t(), buffer[1, :n * row].view(n, row))
                     for n in range(start, start + calls)]
        else:
            pairs = [(buffer[0, :n * row].view(n, row), buffer[1, :row]) for n in range(start, start + calls)]
        sync()
        began = time.perf_counter()
        for a, b in pairs:
            fn(a, b)
        sync()
        return (time.perf_counter() - began) / calls * 1e6
    return best_in_turn({label: lambda fn=fn: one_round(fn) for label, fn in systems.items()}, HOST_ROUNDS)


def host_breakdown(x, calls) -> dict:
    """Where a tritonize call's host time goes: the memoized call after its key and lookup,
    the output allocation, and the launch (direct, and through Triton's runner for
    comparison). The key and lookup are the whole call's time less the first part's."""
    from tritonize.decorator import signature_key
    from tritonize.launch import three_dims

    add = OPS["add"].ours
    recipe = add._recipes[signature_key((x, x))]
    out = torch.empty_like(x)
    parts = {
        "tritonize: the call after its key and lookup": lambda: recipe.call((x, x), [x.data_ptr(), x.data_ptr()]),
        "tritonize: allocate the output": lambda: torch.empty_strided((1024,), (1,), device=x.device),
        "tritonize: three data_ptr() calls": lambda: (x.data_ptr(), x.data_ptr(), out.data_ptr()),
    }
    if recipe.fast_kind == "direct":
        parts["tritonize: direct launch"] = lambda: recipe.fast((x.data_ptr(), x.data_ptr(), out.data_ptr(),
                                                                 *recipe.tail))
    if getattr(recipe, "compiled", None) is not None:
        runner = recipe.compiled[three_dims(recipe.grid)]
        parts["Triton: CompiledKernel[grid] launch"] = lambda: runner(x, x, out, *recipe.tail)
    return per_call_us(parts, calls)


FIRST_CALL = textwrap.dedent("""
    import time, torch
    start = time.perf_counter()
    from benchmarks.cases import {op} as op
    imported = time.perf_counter()
    x = torch.randn(1024, device="cuda", dtype=torch.{dtype})
    torch.cuda.synchronize()
    begin = time.perf_counter()
    op(*[x] * {arity})
    torch.cuda.synchronize()
    print(imported - start, time.perf_counter() - begin)
""")


WARM_PROCESSES = 3


def first_call(root, op="add", dtype="float32") -> dict:
    """Seconds to the first result of `op` in a new process: cold caches, then warm on-disk caches
    (the fastest of WARM_PROCESSES processes: a process start's own noise, disk and CPU clocks,
    only ever adds)."""
    script = FIRST_CALL.format(op=op, dtype=dtype, arity=OPS[op].arity)
    with tempfile.TemporaryDirectory() as caches:
        env = dict(os.environ, TRITONIZE_CACHE_DIR=f"{caches}/tritonize", TRITON_CACHE_DIR=f"{caches}/triton")
        runs = []
        for _ in range(1 + WARM_PROCESSES):
            out = subprocess.run([sys.executable, "-c", script], env=env, cwd=root, check=True,
                                 capture_output=True, text=True).stdout.split()
            runs.append((float(out[-1]), float(out[-2])))  # (first call, import)
    (cold_call, cold_import), (warm_call, warm_import) = runs[0], min(runs[1:])
    return {"cold import s": cold_import, "cold first call s": cold_call,
            "warm import s": warm_import, "warm first call s": warm_call}


def size_label(row) -> str:
    """A row's element count as a power of two: '2^24'."""
    return f"2^{row['numel'].bit_length() - 1}"


def lowest(rows, key, unit: str) -> str:
    """The least value of `key` among `rows` (a percentage for unit '%', a ratio for 'x'), and
    the row that has it."""
    row = min(rows, key=key)
    shown = f"{key(row):.0f}%" if unit == "%" else f"{key(row):.3f}x"
    return f"{shown} ({row['op']}, {row['case']}, {row['dtype']}, {size_label(row)})"


def target_lines(results) -> list:
    """A markdown table of issue 4's targets, each as measured in `results` and whether it holds;
    the copy-bandwidth target four ways (of peak copy or of a copy of the same bytes, counting the
    elements used or the 32-byte sectors moved), and two more where rows were timed back to back
    (of the back-to-back peak copy, counting either), since each reading gives another verdict."""
    lines = ["Targets (issue 4), as measured in this run:", "", "| target | measured | holds |", "|---|---|---|"]
    layouts = [r for r in results["rows"] if r["op"] == "add" and r["numel"] >= 2**24]
    readings = (("of peak copy", lambda r: r["tritonize % copy"]),
                ("of peak copy, counting the bytes moved in 32-byte sectors", lambda r: r["tritonize % copy, sectors"]),
                ("of a copy of the same bytes", lambda r: r["tritonize % same-size copy"]),
                ("of a copy of the same bytes, counting the bytes moved in 32-byte sectors",
                 lambda r: r["tritonize % same-size copy"] * r["tritonize % copy, sectors"] / r["tritonize % copy"]))
    if any("steady tritonize % copy" in r for r in layouts):
        readings += (("of peak copy, back to back (CUDA graphs, no L2 flush)", lambda r: r["steady tritonize % copy"]),
                     ("of peak copy, back to back, counting the bytes moved in 32-byte sectors",
                      lambda r: r["steady tritonize % copy, sectors"]))
    for label, percent in readings if layouts else ():
        under = [r for r in layouts if percent(r) < 90]
        lines.append(f"| >= 90% {label} at >= 2^24 elements, every layout case (adds) | lowest "
                     f"{lowest(layouts, percent, '%')}; {len(under)} of {len(layouts)} rows under 90% "
                     f"| {'yes' if not under else 'no'} |")
    compared = [r for r in results["rows"] if r["numel"] >= 2**20]
    if compared:
        def ratio(r):  # graphs where the row was timed so (and captured: NaN where not), else single launches
            graphed = r.get("graph vs torch.compile", float("nan"))
            return r["vs torch.compile"] if math.isnan(graphed) else graphed
        under = [r for r in compared if ratio(r) < 0.95]
        lines.append(f"| >= 0.95x torch.compile at every size from 2^20 up (CUDA graphs where timed) | lowest "
                     f"{lowest(compared, ratio, 'x')}; {len(under)} of {len(compared)} rows under | "
                     f"{'yes' if not under else 'no'} |")
    host = results.get("host overhead us")
    if host:
        lines.append(f"| <= 10 us host time per call, 1K-element add | {host['tritonize']:.1f} us (eager "
                     f"{host['eager']:.1f}, torch.compile {host['torch.compile']:.1f}) | "
                     f"{'yes' if host['tritonize'] <= 10 else 'no'} |")
    first = results.get("first call")
    if first:
        lines.append(f"| < 1 s first call in a new process, warm on-disk cache | {first['warm first call s']:.2f} s | "
                     f"{'yes' if first['warm first call s'] < 1 else 'no'} |")
    return lines + [""]


def write_markdown(results, path):
    lines = ["# tritonize benchmarks", "",
             f"{results['gpu']}, torch {results['torch']}, triton {results['triton']}, "
             f"tritonize {results['tritonize']}, {results['date']}.", "",
             f"Command: `{results['command']}`", "",
             f"Measured copy bandwidth (read + write): **{results['copy GB/s']:.0f} GB/s**"
             + (f"; back to back (CUDA graphs of a copy kernel, no L2 flush): {results['steady copy GB/s']:.0f} GB/s"
                if "steady copy GB/s" in results else "") + ".", ""]
    for part in results.get("resumed", ()):  # rows from here on came from a process run with --resume
        lines += [f"Resumed (`--resume`, a new process on a machine of the same GPU) from row {part['first row'] + 1}; "
                  f"its rows' fractions of copy are of its own measured copy: {part['copy GB/s']:.0f} GB/s, back to "
                  f"back {part['steady copy GB/s']:.0f} GB/s.", ""]
    host = results.get("host overhead us")
    if host:
        lines += ["Host overhead, 1K-element add launched back to back (us per call): "
                  + ", ".join(f"{k} {v:.1f}" for k, v in host.items()) + ".", ""]
    forms = results.get("host call forms us")
    if forms:
        lines += ["Host time per call form, 1K elements, launched back to back (us per call; `enabled:` is the aten "
                  "op with `tritonize.enabled()`, served by tritonize, beside the same op without it):", "",
                  "| form | tritonize us | eager us |", "|---|---:|---:|"]
        lines += [f"| `{form}` | {us['tritonize']:.1f} | {us['eager']:.1f} |" for form, us in forms.items()]
        lines += [""]
    shapes = results.get("host new shapes us")
    if shapes:
        lines += ["A new shape every call (an add of 1024 + k elements, k new on every call, launched back to back; "
                  "us per call): " + ", ".join(f"{k} {v:.1f}" for k, v in shapes.items()) + ".", ""]
    batches = results.get("host new batches with a bias us")
    if batches:
        lines += [f"A new batch every call beside a bias (an add of (16 + k, {NEW_SHAPE_ROW}) and ({NEW_SHAPE_ROW},), k new "
                  "on every call; us per call): " + ", ".join(f"{k} {v:.1f}" for k, v in batches.items()) + ".", ""]
    transposed = results.get("host new transposed batches us")
    if transposed:
        lines += [f"A new transposed batch every call (an add of ({NEW_SHAPE_ROW}, 16 + k).t() and (16 + k, "
                  f"{NEW_SHAPE_ROW}), k new on every call; us per call): "
                  + ", ".join(f"{k} {v:.1f}" for k, v in transposed.items()) + ".", ""]
    first = results.get("first call")
    if first:
        lines += [f"First call in a new process: cold caches {first['cold first call s']:.2f} s, "
                  f"warm on-disk caches {first['warm first call s']:.2f} s "
                  f"(import {first['warm import s']:.2f} s).", ""]
    checked = results.get("first call, bfloat16 sigmoid")
    if checked:  # its kernel's approximations are checked on every input in the cold process
        lines += [f"First call of a bfloat16 sigmoid (cold: its approximations checked on all 65536 inputs): cold "
                  f"caches {checked['cold first call s']:.2f} s, warm on-disk caches {checked['warm first call s']:.2f} s.",
                  ""]
    lines += target_lines(results)
    lines += ["Columns: times in us (best of the rounds' medians of single launches, `do_bench`); `compile us`: "
              "torch.compile with static shapes, compiled afresh for each row (`compile_static`); `copy us`: "
              "a device copy of the same bytes; `% of copy`: of the peak copy bandwidth above; `sectors`: the same "
              "with the bytes device memory moves, whole 32-byte sectors (a stride-2 slice's read moves "
              "twice the bytes it uses; other cases as `% of copy`); `% of same-size "
              "copy`: the copy's time over tritonize's; `vs compile, graphs` (2^20..2^22 only): torch.compile's "
              "time over tritonize's with both timed as CUDA graphs of launches on rotating inputs, which "
              "resolve ~0.05 us where a single launch's CUDA events resolve ~0.5 us.", "",
              "| op | case | dtype | elements | tritonize us | eager us | compile us | copy us | tritonize GB/s "
              "| % of copy | sectors | % of same-size copy | vs eager | vs compile | vs compile, graphs |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results["rows"]:
        graphs = r.get("graph vs torch.compile")
        lines.append(f"| {r['op']} | {r['case']} | {r['dtype']} | {size_label(r)} | "
                     f"{r['tritonize us']:.1f} | {r['eager us']:.1f} | {r['torch.compile us']:.1f} | "
                     f"{r['same-size copy us']:.1f} | {r['tritonize GB/s']:.0f} | {r['tritonize % copy']:.0f}% | "
                     f"{r['tritonize % copy, sectors']:.0f}% | "
                     f"{r['tritonize % same-size copy']:.0f}% | {r['vs eager']:.2f}x | {r['vs torch.compile']:.2f}x | "
                     f"{'' if graphs is None else f'{graphs:.2f}x'} |")
    steady = [r for r in results["rows"] if "steady tritonize us" in r]
    if steady:
        lines += ["", "Rows from 2^24 up, back to back: each system (and a copy kernel moving the same bytes) as a "
                  "CUDA graph of launches on rotating inputs, each launch writing an output of its own, replayed "
                  "back to back with no L2 flush between (`steady_us`; do_bench's flush is a memset whose dirty "
                  "lines the timed kernel writes back). `% of copy` and `sectors` are of the back-to-back peak copy "
                  "above.", "",
                  "| op | case | dtype | elements | tritonize us | eager us | compile us | copy us | tritonize GB/s "
                  "| % of copy | sectors | % of same-size copy | vs eager | vs compile |",
                  "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in steady:
            ours = r["steady tritonize us"]
            lines.append(f"| {r['op']} | {r['case']} | {r['dtype']} | {size_label(r)} | {ours:.1f} | "
                         f"{r['steady eager us']:.1f} | {r['steady torch.compile us']:.1f} | "
                         f"{r['steady same-size copy us']:.1f} | {r['bytes'] / ours / 1e3:.0f} | "
                         f"{r['steady tritonize % copy']:.0f}% | {r['steady tritonize % copy, sectors']:.0f}% | "
                         f"{r['steady tritonize % same-size copy']:.0f}% | {r['steady eager us'] / ours:.2f}x | "
                         f"{r['steady vs torch.compile']:.2f}x |")
    path.write_text("\n".join(lines) + "\n")


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in results["rows"] if r["op"] == "add" and r["dtype"] == "float32"]
    cases = [c for c in CASES if any(r["case"] == c for r in rows)]
    figure, axes = plt.subplots(1, len(cases), figsize=(4 * len(cases), 3.6), sharey=True, squeeze=False)
    for axis, case in zip(axes[0], cases):
        subset = sorted((r for r in rows if r["case"] == case), key=lambda r: r["numel"])
        sizes = [r["numel"] for r in subset]
        for system in SYSTEMS:
            axis.plot(sizes, [r[f"{system} GB/s"] for r in subset], marker="o", label=system)
        axis.plot(sizes, [r["bytes"] / r["same-size copy us"] / 1e3 for r in subset], color="gray",
                  linestyle=":", label="copy, same bytes")
        axis.axhline(results["copy GB/s"], color="gray", linestyle="--", label="copy, peak")
        axis.set_xscale("log", base=2)
        axis.set_title(case, fontsize=10)
        axis.set_xlabel("elements")
    axes[0][0].set_ylabel("GB/s (read + write)")
    axes[0][-1].legend(fontsize=8)
    figure.suptitle(f"a + b, float32, {results['gpu']}")
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def benchmark_plan(quick: bool = False) -> list:
    """The rows to measure, (op, layout case, dtype, log2 of the elements): `a + b` in float32 on
    every layout case from 2^12 to 2^28, in bfloat16 on every non-contiguous one, and every op
    contiguous in float32, bfloat16 and (for add, gelu and silu_and_mul) float16."""
    layout_sizes = range(12, 29, 4) if quick else range(12, 29, 2)
    plan = [("add", case, torch.float32, e) for case in CASES for e in layout_sizes]
    op_sizes = (20, 24, 27) if not quick else (24,)
    # 16-bit layouts: half the bytes per element puts other loads in the way (a broadcast
    # column's value, a gathered slice) in a larger share of the time; 2^22 (timed as graphs
    # too) is where the float32 tile rule would shrink 16-bit tiles below a wave of programs
    # (tune_16bit_tiles_h100.txt), which the 16-bit rule does not (tune_16bit_rule_h100.txt)
    layout16_sizes = (20, 22, 24, 27) if not quick else (24,)
    plan += [("add", case, torch.bfloat16, e) for case in CASES if case != "contiguous" for e in layout16_sizes]
    for name in OPS:
        for dtype in (torch.float32, torch.bfloat16, torch.float16):
            if dtype == torch.float16 and name not in ("add", "gelu", "silu_and_mul"):
                continue
            plan += [(name, "contiguous", dtype, e) for e in op_sizes if (name, dtype) != ("add", torch.float32)]
    return plan


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer sizes and ops")
    parser.add_argument("--resume", action="store_true",
                        help="go on with the run in --out's latest.json: measure only the sections and rows it lacks")
    parser.add_argument("--host-only", action="store_true", help="print the host overhead, write nothing")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results"), help="where results go")
    parser.add_argument("--render", metavar="JSON", help="write the markdown of a committed run's JSON beside it, "
                                                          "measure nothing")
    args = parser.parse_args(argv)
    if args.render:
        source = Path(args.render)
        write_markdown(json.loads(source.read_text()), source.with_suffix(".md"))
        log(f"wrote {source.with_suffix('.md')}")
        return
    device = "cuda"
    if args.host_only:
        for label, us in host_overhead(device).items():
            log(f"{label:45s} {us:6.2f} us")
        for form, us in host_call_forms(device).items():
            log(f"{form:45s} tritonize {us['tritonize']:6.2f} us, eager {us['eager']:6.2f} us")
        return
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = resumed_results(out / "latest.json") if args.resume else None
    if results is None:
        results = {
            "gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__,
            "tritonize": tritonize.__version__, "python": platform.python_version(),
            "date": time.strftime("%Y-%m-%d"),
            "command": "python -m benchmarks.run" + (" --quick" if args.quick else ""), "rows": [],
        }
    # each process measures the copy bandwidth its rows' fractions are of: a resumed run may hold another card
    # of the same kind, and the process's own copy is what its rows were timed beside
    copy_bw, steady_copy_bw = copy_bandwidth(device) / 1e9, copy_bandwidth(device, steady=True) / 1e9
    log(f"copy bandwidth {copy_bw:.0f} GB/s, back to back {steady_copy_bw:.0f} GB/s")
    if "copy GB/s" in results:
        results.setdefault("resumed", []).append({"first row": len(results["rows"]), "copy GB/s": copy_bw,
                                                  "steady copy GB/s": steady_copy_bw})
    else:
        results["copy GB/s"], results["steady copy GB/s"] = copy_bw, steady_copy_bw
    for key, measure in host_sections(device):
        if key not in results:  # a resumed run keeps the sections measured before
            results[key] = measure()
            log(f"{key} {results[key]}")
            (out / "latest.json").write_text(json.dumps(results, indent=1))

    plan = benchmark_plan(args.quick)
    done = {(r["op"], r["case"], r["dtype"], r["numel"]) for r in results["rows"]}
    for index, (name, case, dtype, exponent) in enumerate(plan):
        if (name, case, str(dtype).replace("torch.", ""), 2**exponent) in done:
            continue
        row = measure_row(name, case, dtype, exponent, compile_op, copy_bw * 1e9, device, steady_copy_bw * 1e9)
        results["rows"].append(row)
        log(f"[{index + 1}/{len(plan)}] {name:20s} {case:24s} {row['dtype']:9s} 2^{exponent:<3d} "
            f"{row['tritonize GB/s']:6.0f} GB/s ({row['tritonize % copy']:3.0f}% copy, "
            f"{row['tritonize % same-size copy']:3.0f}% same-size copy) "
            f"x{row['vs eager']:.2f} eager x{row['vs torch.compile']:.2f} compile")
        (out / "latest.json").write_text(json.dumps(results, indent=1))
    write_markdown(results, out / "latest.md")
    plot(results, out / "latest.png")
    log(f"wrote {out}/latest.json, latest.md, latest.png")


def host_sections(device) -> list:
    """The run's sections before its rows, in order: (JSON key, a function that measures it)."""
    root = Path(__file__).parent.parent
    systems = {}

    def new_shapes(**how):
        if not systems:  # torch.compile's dynamic kernel and eager, made once for the three sections
            systems.update(new_shape_systems(device))
        return host_new_shapes(device, systems=systems, **how)

    return [("host overhead us", lambda: host_overhead(device)),
            ("host call forms us", lambda: host_call_forms(device)),
            ("host new shapes us", lambda: new_shapes()),
            ("host new batches with a bias us", lambda: new_shapes(row=NEW_SHAPE_ROW)),
            ("host new transposed batches us", lambda: new_shapes(row=NEW_SHAPE_ROW, transposed=True)),
            ("first call", lambda: first_call(root)),
            ("first call, bfloat16 sigmoid", lambda: first_call(root, "sigmoid", "bfloat16"))]


def resumed_results(path: Path):
    """The results of the run that stopped at `path`, to go on with; None where there is none to resume. A run
    is resumed only on the GPU, torch and Triton it began with."""
    if not path.exists():
        log(f"--resume: no {path}, a new run")
        return None
    results = json.loads(path.read_text())
    here = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton.__version__}
    differs = {key: (results.get(key), value) for key, value in here.items() if results.get(key) != value}
    if differs:
        raise SystemExit(f"--resume: {path} was measured elsewhere ({differs}); move it away for a new run")
    log(f"--resume: {len(results['rows'])} rows measured in {path}")
    return results

if __name__ == "__main__":
    main()

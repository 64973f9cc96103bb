"""The benchmark suite's CPU-checkable parts: every benchmarked op agrees with its eager
twin on every layout case, a row's columns follow from its timings, and the launch-shape
override benchmarks/tune.py sweeps with."""
import ast
import inspect
import json
import math

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from benchmarks import run
from benchmarks.cases import CASES, OPS, bytes_moved, make_inputs, sector_bytes
from tritonize import call


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", list(OPS))
def test_benchmarked_op_matches_eager(name, case):
    op = OPS[name]
    inputs = make_inputs(case, 2**12, op.arity, torch.float32, "cpu", op.bool_first)
    run.check(name, op.ours(*inputs), op.eager(*inputs), torch.float32)


def test_bytes_moved_counts_a_broadcast_input_once():
    inputs = make_inputs("row broadcast", 2**12, 2, torch.float32, "cpu")
    out = inputs[0] + inputs[1]
    assert bytes_moved(inputs, [out]) == (2 * 2**12 + 1024) * 4
    strided = make_inputs("strided slices", 2**12, 1, torch.float32, "cpu")
    assert bytes_moved(strided, [strided[0].clone()]) == 2 * 2**12 * 4


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_sector_bytes_charge_a_slice_for_the_sectors_it_touches(dtype):
    size = torch.finfo(dtype).bits // 8
    for case in CASES:
        inputs = make_inputs(case, 2**12, 2, dtype, "cpu")
        out = torch.empty(64, 64, dtype=dtype)
        if case == "strided slices":  # each read element brings its unused neighbour
            assert sector_bytes(inputs, [out]) == (2 * 2 + 1) * 2**12 * size
        else:  # dense layouts, transposed and permuted ones too, move what they use
            assert sector_bytes(inputs, [out]) == bytes_moved(inputs, [out])
    sparse = torch.zeros(64, 64, dtype=dtype)[:, ::32]  # one element per sector, at most 32 bytes each
    assert sector_bytes([sparse], []) == 64 * 2 * 32
    assert sector_bytes([torch.zeros((), dtype=dtype)], []) == size


def test_row_takes_the_best_round_and_derives_its_columns(monkeypatch):
    """measure_row with do_bench replaced by a clock that answers per system and round: the
    row keeps each system's best round, and its ratios and fractions follow from those."""
    times = {"ours": [9.0, 8.0, 8.5], "eager": [10.0, 12.0, 11.0], "comp": [16.0, 16.0, 15.0],
             "copy": [7.0, 7.5, 6.0]}
    timed = []

    def fake_median_us(fn):
        label = fn()
        timed.append(label)
        return times[label][timed.count(label) - 1]

    # every callable names itself; the correctness check is the other tests' business
    monkeypatch.setitem(OPS, "add", OPS["add"]._replace(ours=lambda *a: "ours", eager=lambda *a: "eager"))
    monkeypatch.setattr(run, "median_us", fake_median_us)
    monkeypatch.setattr(run, "same_bytes_copy", lambda moved, device: lambda: "copy")
    monkeypatch.setattr(run, "check", lambda *a: None)
    row = run.measure_row("add", "contiguous", torch.float32, 12, lambda name: lambda *a: "comp",
                          copy_bw=4e12, device="cpu")
    assert sorted(set(timed)) == ["comp", "copy", "eager", "ours"] and len(timed) == 4 * run.ROUNDS
    assert timed[:4] != timed[4:8]  # the rounds take the systems in turn, not always in one order
    assert (row["tritonize us"], row["eager us"], row["torch.compile us"], row["same-size copy us"]) == \
        (8.0, 10.0, 15.0, 6.0)
    assert row["bytes"] == 2 * 2**12 * 4  # the inputs (the stand-in outputs are not tensors)
    assert row["vs eager"] == pytest.approx(10.0 / 8.0)
    assert row["vs torch.compile"] == pytest.approx(15.0 / 8.0)
    assert row["tritonize % same-size copy"] == pytest.approx(100 * 6.0 / 8.0)
    assert row["tritonize % copy"] == pytest.approx(100 * row["bytes"] / 8e-6 / 4e12)
    assert row["tritonize % copy, sectors"] == pytest.approx(row["tritonize % copy"])  # contiguous
    assert not any(key.startswith("graph") for key in row)  # 2^12: below the graph-timed sizes


def fake_graph_timing(monkeypatch, per_round: dict, timer: str, keep_outputs: bool, sets: int) -> tuple:
    """Patch benchmarks.run so that a row's CUDA graphs only record their launches (label ->
    the id of each launch's first input, or of each copy), `timer` ("replay_us" or "steady_us")
    answers from `per_round` (label -> one time per round), each input set comes `sets` times
    and nothing is checked. Returns (graphs, the labels in the order they were timed)."""
    graphs, timed = {}, []

    def fake_capture(calls, keep_outputs=False):
        assert keep_outputs is expected_keep
        launched = [call() for call in calls]  # (system, id of the first input), or "copy"
        label = launched[0][0] if isinstance(launched[0], tuple) else "copy"
        graphs[label] = [id(c) for c in calls] if label == "copy" else [first for _, first in launched]
        return label

    def fake_timer(label):
        timed.append(label)
        return per_round[label][timed.count(label) - 1]

    expected_keep = keep_outputs
    monkeypatch.setitem(OPS, "add", OPS["add"]._replace(ours=lambda *a: ("ours", id(a[0])),
                                                        eager=lambda *a: ("eager", id(a[0]))))
    monkeypatch.setattr(run, "capture", fake_capture)
    monkeypatch.setattr(run, timer, fake_timer)
    monkeypatch.setattr(run, "rotating_sets", lambda moved: sets)
    monkeypatch.setattr(run, "same_bytes_copy", lambda moved, device: lambda: "copy")
    monkeypatch.setattr(run, "check", lambda *a: None)
    return graphs, timed


def test_rows_from_2e20_to_2e22_are_also_timed_as_graphs(monkeypatch):
    """graph_times: each system's graph launches it once on each of several distinct input
    sets (outputs freed for the next call, as an op's calls in a program), the replays take
    turns over the rounds, and the ratios come from the best rounds."""
    per_round = {"ours": [4.5, 4.0, 4.2], "eager": [6.0, 6.5, 6.1], "comp": [5.2, 5.1, 5.0]}
    graphs, replayed = fake_graph_timing(monkeypatch, per_round, "replay_us", keep_outputs=False, sets=3)
    monkeypatch.setattr(run, "median_us", lambda fn: 1.0)
    row = run.measure_row("add", "contiguous", torch.float32, 20, lambda name: lambda *a: ("comp", id(a[0])),
                          copy_bw=4e12, device="cpu")
    assert sorted(graphs) == ["comp", "eager", "ours"]
    assert all(len(set(firsts)) == 3 for firsts in graphs.values())
    assert len(replayed) == 3 * run.ROUNDS and replayed[:3] != replayed[3:6]  # rounds take turns
    assert (row["graph tritonize us"], row["graph eager us"], row["graph torch.compile us"]) == (4.0, 6.0, 5.0)
    assert row["graph vs torch.compile"] == pytest.approx(5.0 / 4.0)
    assert row["graph vs eager"] == pytest.approx(6.0 / 4.0)


def test_rows_from_2e24_are_also_timed_back_to_back(monkeypatch):
    """steady_times: from STEADY_FROM up, each system and a copy of the row's bytes are captured
    as graphs over distinct input sets, each call keeping its own output, timed by steady_us in
    turns over the rounds; the row's fractions are of the back-to-back peak copy it is given."""
    per_round = {"ours": [40.0, 36.0, 38.0], "eager": [60.0, 61.0, 59.0], "comp": [37.0, 37.5, 38.0],
                 "copy": [35.0, 35.5, 36.0]}
    graphs, timed = fake_graph_timing(monkeypatch, per_round, "steady_us", keep_outputs=True, sets=2)
    monkeypatch.setattr(run, "median_us", lambda fn: 50.0)
    monkeypatch.setattr(run, "make_inputs", lambda case, numel, arity, dtype, device, bool_first=False:
                        [torch.empty(numel // 1024, 1024, dtype=dtype, device="meta") for _ in range(arity)])
    monkeypatch.setattr(run, "kernel_copy", lambda moved, device: lambda: "copy")
    compiled = lambda name: lambda *a: ("comp", id(a[0]))  # noqa: E731
    row = run.measure_row("add", "contiguous", torch.bfloat16, 24, compiled, copy_bw=3e12, device="cpu",
                          steady_copy_bw=2.5e12)
    assert sorted(graphs) == ["comp", "copy", "eager", "ours"]
    assert all(len(set(launches)) == 2 for launches in graphs.values())
    assert len(timed) == 4 * run.ROUNDS and timed[:4] != timed[4:8]
    assert (row["steady tritonize us"], row["steady eager us"], row["steady torch.compile us"],
            row["steady same-size copy us"]) == (36.0, 59.0, 37.0, 35.0)
    assert row["steady tritonize % copy"] == pytest.approx(100 * row["bytes"] / 36e-6 / 2.5e12)
    assert row["steady tritonize % copy, sectors"] == pytest.approx(row["steady tritonize % copy"])
    assert row["steady tritonize % same-size copy"] == pytest.approx(100 * 35.0 / 36.0)
    assert row["steady vs torch.compile"] == pytest.approx(37.0 / 36.0)
    assert row["tritonize us"] == 50.0 and not any(key.startswith("graph") for key in row)
    no_peak = run.measure_row("add", "contiguous", torch.bfloat16, 24, compiled, copy_bw=3e12, device="cpu")
    below = run.measure_row("add", "contiguous", torch.bfloat16, 22, compiled, copy_bw=3e12, device="cpu",
                            steady_copy_bw=2.5e12)
    assert not any(key.startswith("steady") for key in list(no_peak) + list(below))


def test_steady_us_is_the_median_trial_of_back_to_back_replays(monkeypatch):
    """steady_us replays the graph once to warm it, once to size its trials (at least
    STEADY_TRIAL_MS each), then `trials` times that many, and takes the median per launch."""
    clock = {"ms": 0.0}
    per_replay_ms = iter([None, 0.3, *([0.25] * 7 * 3), *([0.5] * 7), *([0.2] * 7)])

    class Graph:
        replays = 0

        def replay(self):
            self.replays += 1
            step = next(per_replay_ms)
            clock["ms"] += step or 0.0

    class Event:
        def __init__(self, enable_timing):
            assert enable_timing

        def record(self):
            self.at = clock["ms"]

        def synchronize(self):
            pass

        def elapsed_time(self, other):
            return other.at - self.at

    monkeypatch.setattr(torch.cuda, "Event", Event)
    graph = Graph()
    us = run.steady_us((graph, 4), trials=5)
    replays = -(-run.STEADY_TRIAL_MS // 0.3)  # 7 for 2 ms
    assert graph.replays == 2 + 5 * replays
    assert us == pytest.approx(250 / 4)  # three trials of 0.25 ms replays, one of 0.5, one of 0.2


@pytest.mark.parametrize("quick", [False, True])
def test_plan_covers_every_case_op_and_dtype(quick):
    """benchmark_plan: float32 adds on every layout case over the sizes (2^12..2^28, every other
    power in full), bfloat16 adds on every non-contiguous case including a graphed size where
    float32 tiles would shrink below a wave, every op contiguous in 32- and 16-bit dtypes, and no
    row twice."""
    plan = run.benchmark_plan(quick)
    assert len(plan) == len(set(plan))
    sizes = {case: sorted(e for n, c, d, e in plan if (n, c, d) == ("add", case, torch.float32)) for case in CASES}
    expected = list(range(12, 29, 4 if quick else 2))
    assert all(found == expected for found in sizes.values()), sizes
    half = {case: {e for n, c, d, e in plan if (n, c, d) == ("add", case, torch.bfloat16)} for case in CASES}
    assert all(half[case] for case in CASES if case != "contiguous")
    if not quick:
        graphed = [e for e in half["transposed + contiguous"] if 2**e in run.GRAPH_SIZES]
        assert 22 in graphed and {20, 24, 27} <= half["rank-4 permuted"]
    for name in OPS:
        dtypes = {d for n, c, d, e in plan if n == name and c == "contiguous"}
        assert {torch.float32, torch.bfloat16} <= dtypes, name
    assert {n for n, c, d, e in plan if d == torch.float16} == {"add", "gelu", "silu_and_mul"}


def test_targets_say_what_holds_and_the_lowest_row(tmp_path):
    """target_lines: each of issue 4's targets with its lowest row and a verdict; the copy target
    four ways. `--render` writes the markdown of a run's JSON, targets included, measuring nothing."""
    def row(case, dtype, exponent, percent, same_size, sector_bytes=300, graph=None, single=1.0):
        found = {"op": "add", "case": case, "dtype": dtype, "numel": 2**exponent, "bytes": 300,
                 "sector bytes": sector_bytes, "tritonize % copy": percent,
                 "tritonize % copy, sectors": percent * sector_bytes / 300, "tritonize % same-size copy": same_size,
                 "vs torch.compile": single}
        return found if graph is None else dict(found, **{"graph vs torch.compile": graph})
    rows = [row("contiguous", "float32", 24, 92, 99), row("strided slices", "float32", 24, 57, 62, sector_bytes=504),
            row("transposed + contiguous", "bfloat16", 20, 50, 80, graph=0.97, single=0.5),
            row("rank-4 permuted", "bfloat16", 24, 84, 97, single=0.96)]
    results = {"rows": rows, "host overhead us": {"tritonize": 9.2, "eager": 7.0, "torch.compile": 33.4},
               "first call": {"warm first call s": 0.64, "cold first call s": 1.3, "warm import s": 0.5}}
    lines = run.target_lines(results)
    table = {line.split(" | ")[0][2:]: line for line in lines if line.startswith("| >=") or line.startswith("| <")}
    assert len(table) == 7
    peak = table[">= 90% of peak copy at >= 2^24 elements, every layout case (adds)"]
    assert "lowest 57% (add, strided slices, float32, 2^24); 2 of 3 rows under 90%" in peak and peak.endswith("| no |")
    sectors = table[">= 90% of a copy of the same bytes, counting the bytes moved in 32-byte sectors at >= 2^24 "
                    "elements, every layout case (adds)"]
    assert "lowest 97% (add, rank-4 permuted, bfloat16, 2^24); 0 of 3" in sectors and sectors.endswith("| yes |")
    compile_ = table[">= 0.95x torch.compile at every size from 2^20 up (CUDA graphs where timed)"]
    assert "lowest 0.960x (add, rank-4 permuted, bfloat16, 2^24); 0 of 4 rows under" in compile_  # graphs, not 0.5
    rows[2]["graph vs torch.compile"] = float("nan")  # a system that could not be captured: single launches
    assert "lowest 0.500x (add, transposed + contiguous, bfloat16, 2^20); 1 of 4" in "".join(run.target_lines(results))
    rows[2]["graph vs torch.compile"] = 0.97
    assert table["<= 10 us host time per call, 1K-element add"].endswith("| yes |")
    assert "0.64 s | yes |" in table["< 1 s first call in a new process, warm on-disk cache"]
    slow = dict(results, **{"host overhead us": {"tritonize": 10.5, "eager": 7.0, "torch.compile": 33.4}})
    assert any(line.startswith("| <= 10 us") and line.endswith("| no |") for line in run.target_lines(slow))
    assert run.target_lines({"rows": []}) == ["Targets (issue 4), as measured in this run:", "",
                                                "| target | measured | holds |", "|---|---|---|", ""]
    saved = dict(results, gpu="GPU", torch="t", triton="tr", tritonize="0", date="d", command="c", **{"copy GB/s": 3000.0})
    for r in rows:
        r.update({"tritonize us": 1.0, "eager us": 1.0, "torch.compile us": 1.0, "same-size copy us": 1.0,
                  "tritonize GB/s": 1.0, "vs eager": 1.0})
    (tmp_path / "run.json").write_text(json.dumps(saved))
    run.main(["--render", str(tmp_path / "run.json")])
    rendered = (tmp_path / "run.md").read_text()
    assert peak in rendered and compile_ in rendered and rendered.count("| add |") == len(rows)


def test_back_to_back_rows_get_their_own_readings_and_table(tmp_path):
    """Rows timed back to back add two readings of the copy target (of the back-to-back peak,
    elements used and sectors moved) and a table of their own; runs without them have neither."""
    def row(case, steady_percent, sector_factor=1.0):
        return {"op": "add", "case": case, "dtype": "bfloat16", "numel": 2**24, "bytes": 3 * 2**25,
                "sector bytes": int(3 * 2**25 * sector_factor), "tritonize us": 40.0, "eager us": 41.0,
                "torch.compile us": 40.0, "same-size copy us": 39.0, "tritonize GB/s": 2500.0,
                "tritonize % copy": 84.0, "tritonize % copy, sectors": 84.0 * sector_factor,
                "tritonize % same-size copy": 97.0, "vs eager": 1.0, "vs torch.compile": 1.0,
                "steady tritonize us": 36.0, "steady eager us": 72.0, "steady torch.compile us": 36.9,
                "steady same-size copy us": 35.5, "steady tritonize % copy": steady_percent,
                "steady tritonize % copy, sectors": steady_percent * sector_factor,
                "steady tritonize % same-size copy": 98.6, "steady vs torch.compile": 36.9 / 36.0}
    rows = [row("contiguous", 93.0), row("strided slices", 70.0, sector_factor=1.6)]
    results = {"gpu": "GPU", "torch": "t", "triton": "tr", "tritonize": "0", "date": "d", "command": "c",
               "copy GB/s": 3000.0, "steady copy GB/s": 2990.0, "rows": rows}
    lines = run.target_lines(results)
    steady = [line for line in lines if "back to back" in line]
    assert len(steady) == 2
    assert "lowest 70% (add, strided slices, bfloat16, 2^24); 1 of 2 rows under 90%" in steady[0]
    assert steady[0].endswith("| no |") and steady[1].endswith("| yes |")
    assert "lowest 93% (add, contiguous, bfloat16, 2^24); 0 of 2" in steady[1]
    path = tmp_path / "latest.md"
    run.write_markdown(results, path)
    text = path.read_text()
    assert "back to back (CUDA graphs of a copy kernel, no L2 flush): 2990 GB/s" in text
    table = [line for line in text.split("Rows from 2^24 up, back to back")[1].splitlines() if line.startswith("| add")]
    assert len(table) == 2 and all(line.count("|") == 15 for line in table)
    assert table[1].startswith("| add | strided slices | bfloat16 | 2^24 | 36.0 | 72.0 | 36.9 | 35.5 | 2796 | 70% | "
                               "112% | 99% | 2.00x | 1.02x |")
    for r in rows:
        for key in [k for k in r if k.startswith("steady")]:
            del r[key]
    del results["steady copy GB/s"]
    assert not any("back to back" in line for line in run.target_lines(results))
    run.write_markdown(results, path)
    assert "back to back" not in path.read_text()


def test_markdown_has_every_row_and_column(tmp_path):
    rows = [{"op": "add", "case": case, "dtype": "float32", "numel": 2**24, "bytes": 3 * 2**26,
             "tritonize us": 50.0, "eager us": 51.0, "torch.compile us": 80.0, "same-size copy us": 49.0,
             "tritonize GB/s": 4000.0, "tritonize % copy": 94.0, "tritonize % copy, sectors": 96.0,
             "tritonize % same-size copy": 98.0,
             "vs eager": 1.02, "vs torch.compile": 1.6} for case in CASES]
    results = {"gpu": "GPU", "torch": "t", "triton": "tr", "tritonize": "0", "date": "d", "command": "c",
               "copy GB/s": 4250.0, "rows": rows}
    path = tmp_path / "latest.md"
    run.write_markdown(results, path)
    table = [line for line in path.read_text().splitlines() if line.startswith("| add |")]
    assert len(table) == len(CASES)
    assert all(line.count("|") == 16 and "| 49.0 |" in line and "| 94% | 96% | 98% |" in line for line in table)
    graphed = dict(rows[0], **{"graph vs torch.compile": 1.23})
    run.write_markdown(dict(results, rows=[graphed]), path)
    assert [line for line in path.read_text().splitlines() if line.startswith("| add |")][0].endswith("| 1.23x |")


def test_launch_shape_override_and_cpu_rule(monkeypatch):
    cpu = torch.device("cpu")
    assert call.launch_shape(cpu, (3000,), None) == ((4096,), 1)
    assert call.launch_shape(cpu, (10,), None) == ((16,), 1)
    assert call.launch_shape(cpu, (128, 128), (0, 1, ())) == (call.tile_blocks((128, 128), (0, 1, ())), 1)
    monkeypatch.setattr(call, "LAUNCH_SHAPE_OVERRIDE", lambda sizes, tile: ((256,), 2))
    assert call.launch_shape(cpu, (3000,), None) == ((256,), 2)


def test_dependent_flat_blocks_grow_until_a_program_moves_6_kib(monkeypatch):
    """call.dependent_block: a flat walk launched as a programmatic dependent doubles its block
    (at most 8 times over) until a program moves 6 KiB; a grown block of vector loads keeps 8
    elements a thread (16 for 1-byte lines), a gathered one keeps its warps; tiles and launches
    that are not dependent keep their shapes."""
    # (block, warps, bytes per element, widest line element, gathered) -> (block, warps)
    cases = {(1024, 4, 4.0, 2, False): (2048, 8),  # bfloat16 unary: 4 KiB programs
             (1024, 4, 4.0002, 2, False): (2048, 8),  # a row-broadcast bfloat16 add
             (1024, 4, 6.0, 2, False): (1024, 4),  # bfloat16 binary: 6 KiB already
             (1024, 4, 8.0, 4, False): (1024, 4),  # float32 unary
             (1024, 4, 5.0, 4, False): (2048, 8),  # float32 -> bool
             (1024, 4, 3.0, 1, False): (2048, 4),  # a uint8 add: one 16-byte vector a thread
             (1024, 4, 2.0, 1, False): (4096, 8),  # bool -> bool
             (1024, 4, 0.5, 1, False): (8192, 16),  # at most 8 times over
             (512, 8, 6.0, 2, True): (1024, 8),  # gathered bfloat16 (strided slices)
             (512, 8, 12.0, 4, True): (512, 8),  # gathered float32
             (1024, 4, 0.0, 2, False): (1024, 4)}  # nothing known: as it was
    monkeypatch.setattr(call, "device_threads", lambda device: 132 * 2048)
    for (block, warps, per_element, width, gathered), expected in cases.items():
        grown = call.dependent_block(block, warps, per_element, width, gathered)
        assert grown == expected, (block, warps, per_element, width, gathered)
        assert grown[0] * per_element >= call.DEPENDENT_PROGRAM_BYTES or grown[0] in (block, 8 * block)
    cuda = torch.device("cuda", 0)
    assert call.launch_shape(cuda, (2**24,), None, element_bytes=2, dependent=True,
                             bytes_per_element=4.0) == ((2048,), 8)
    assert call.launch_shape(cuda, (2**24,), None, element_bytes=2, bytes_per_element=4.0) == ((1024,), 4)
    assert call.launch_shape(cuda, (2**24,), None, gathered=True, element_bytes=2, dependent=True,
                             bytes_per_element=6.0) == ((1024,), 8)
    tile = (0, 1, ())
    assert call.launch_shape(cuda, (4096, 4096), tile, dependent=True, bytes_per_element=4.0) == \
        call.launch_shape(cuda, (4096, 4096), tile)


def test_flat_walks_of_8_byte_elements_take_blocks_of_512(monkeypatch):
    """call.launch_shape: a flat CUDA walk with a float64 or int64 operand (8-byte lines) takes blocks of
    512 with 4 warps, 4 elements a thread; as a dependent launch, one that moves few bytes an element
    (a fill's write, float64 -> bool) grows back to 1024, and narrower walks and tiles keep theirs."""
    monkeypatch.setattr(call, "device_threads", lambda device: 132 * 2048)
    cuda = torch.device("cuda", 0)
    assert call.launch_shape(cuda, (2**20,), None, element_bytes=8) == ((512,), 4)
    assert call.launch_shape(cuda, (2**24,), None, element_bytes=8, dependent=True, bytes_per_element=16.0) == \
        ((512,), 4)  # float64 unary: 8 KB a program
    assert call.launch_shape(cuda, (2**24,), None, element_bytes=8, dependent=True, bytes_per_element=8.0) == \
        ((1024,), 4)  # fill: 4 KB at 512, under DEPENDENT_PROGRAM_BYTES
    assert call.launch_shape(cuda, (2**24,), None, element_bytes=8, dependent=True, bytes_per_element=9.0) == \
        ((1024,), 4)  # isnan
    assert call.launch_shape(cuda, (2**24,), None, element_bytes=4) == ((1024,), 4)
    assert call.launch_shape(cuda, (2**24,), None, element_bytes=8, gathered=True) == \
        ((call.CUDA_GATHER_BLOCK,), call.CUDA_GATHER_WARPS)
    tile = (0, 1, ())
    assert call.launch_shape(cuda, (4096, 4096), tile, element_bytes=8) == \
        call.launch_shape(cuda, (4096, 4096), tile, element_bytes=4)


def test_flat_walks_of_heavy_math_take_small_blocks_at_every_size(monkeypatch):
    """call.launch_shape with `heavy_math` (a kernel calling a math_table.HEAVY_ROWS composite): flat CUDA
    walks take 512 elements for operands of up to 4 bytes and 256 for wider ones, with 4 warps, small or
    large, gathered or not, and a dependent launch does not grow them; tiles and the CPU keep theirs. The
    decorator asks for it where the inlined function calls such a row."""
    monkeypatch.setattr(call, "device_threads", lambda device: 132 * 2048)
    cuda = torch.device("cuda", 0)
    for sizes in ((4096,), (2**20,), (2**24,)):
        for gathered in (False, True):
            assert call.launch_shape(cuda, sizes, None, gathered=gathered, element_bytes=4, heavy_math=True) == \
                ((call.CUDA_HEAVY_BLOCK,), 4) == ((512,), 4)
            assert call.launch_shape(cuda, sizes, None, gathered=gathered, element_bytes=8, heavy_math=True) == \
                ((call.CUDA_HEAVY_WIDE_BLOCK,), 4) == ((256,), 4)
    assert call.launch_shape(cuda, (2**24,), None, element_bytes=4, dependent=True, bytes_per_element=8.0,
                             heavy_math=True) == ((512,), 4)
    assert call.launch_shape(cuda, (2**24,), None, element_bytes=4, dependent=True, bytes_per_element=5.0) == \
        ((2048,), 8)  # without heavy math a float32 -> bool walk grows
    tile = (0, 1, ())
    assert call.launch_shape(cuda, (4096, 4096), tile, heavy_math=True) == call.launch_shape(cuda, (4096, 4096), tile)
    cpu = torch.device("cpu")
    assert call.launch_shape(cpu, (3000,), None, heavy_math=True) == call.launch_shape(cpu, (3000,), None)
    from tritonize.passes.math_table import calls_heavy_math

    assert calls_heavy_math(ast.parse("math.bessel_y0(x) + 1.0")) and not calls_heavy_math(ast.parse("math.i0e(x)"))
    assert calls_heavy_math(ast.parse("math.airy_ai(x)"))  # it spilled at blocks of 1024


def test_flat_cuda_walks_of_branched_heavy_math_cap_their_registers(monkeypatch):
    """call.max_registers: a flat CUDA walk of a kernel that caps its registers (math_table.caps_registers: it
    calls J0 or J1, whose Hankel branch blocks may skip, and no other heavy row) takes
    CAPPED_REGISTERS's cap for its widest element; tiles, the CPU and other kernels take 0 (ptxas chooses)."""
    from tritonize.passes.math_table import caps_registers

    monkeypatch.setattr(call, "CAPPED_REGISTERS", {False: 40, True: 56})
    cuda, cpu = torch.device("cuda", 0), torch.device("cpu")
    assert call.max_registers(cuda, None, 4, True) == 40 and call.max_registers(cuda, None, 2, True) == 40
    assert call.max_registers(cuda, None, 8, True) == 56
    assert call.max_registers(cuda, None, 8, False) == call.max_registers(cpu, None, 8, True) == 0
    assert call.max_registers(cuda, (0, 1, ()), 4, True) == 0
    for source in ("math.bessel_j0(x)", "math.bessel_j1(x) * math.exp(x)", "math.bessel_j1(x) + math.bessel_j0(x)"):
        assert caps_registers(ast.parse(source)), source
    # Y0 and Y1 run fastest unheld (math_table.CAPPED_ROWS)
    for source in ("math.airy_ai(x)", "math.airy_ai(x) + math.bessel_j0(x)", "math.exp(x)", "math.i0e(x)",
                   "math.bessel_y0(x)", "math.bessel_j1(x) + math.bessel_y1(x)"):
        assert not caps_registers(ast.parse(source)), source


def test_dependent_16_bit_blocks_of_wide_thread_math_keep_their_warps(monkeypatch):
    """call.dependent_block with `wide_threads`: a grown 16-bit block keeps 4 warps (16 elements a
    thread) where the kernel's math gains from it (math_table.gains_from_wide_threads); wider
    operands, blocks that do not grow and launches that are not dependent keep their shapes."""
    monkeypatch.setattr(call, "device_threads", lambda device: 132 * 2048)
    # (bytes per element, widest line element) -> (block, warps) with wide_threads
    cases = {(4.0, 2): (2048, 4),  # bfloat16 unary: 16 elements a thread, not 8
             (2.0, 1): (4096, 4),  # bool -> bool: 32 a thread
             (6.0, 2): (1024, 4),  # bfloat16 binary: not grown
             (5.0, 4): (2048, 8)}  # float32 -> bool: 4-byte lines keep 8 a thread
    for (per_element, width), expected in cases.items():
        assert call.dependent_block(1024, 4, per_element, width, False, wide_threads=True) == expected
        assert call.dependent_block(1024, 4, per_element, width, False)[0] == expected[0]
    cuda = torch.device("cuda", 0)
    shape = dict(element_bytes=2, bytes_per_element=4.0, costly_calls=1)
    assert call.launch_shape(cuda, (2**24,), None, dependent=True, wide_threads=True, **shape) == ((2048,), 4)
    assert call.launch_shape(cuda, (2**24,), None, dependent=True, **shape) == ((2048,), 8)
    assert call.launch_shape(cuda, (2**24,), None, wide_threads=True, **shape) == ((1024,), 4)


def test_which_math_gains_from_wide_threads():
    """math_table.gains_from_wide_threads: a call of a WIDE_THREAD_ROWS row (log, sin, erf,
    expm1, ...), exp and exp2 allowed beside it, no other costly math and no pow; the op library's
    kernels measured to gain do, those measured to lose do not."""
    import ast

    from tritonize.ops import activations, math_ops
    from tritonize.passes.math_table import gains_from_wide_threads

    def gains(source):
        return gains_from_wide_threads(ast.parse(source))

    assert gains("math.sin(x)") and gains("math.log1p(math.exp(x)) * 2 + abs(x)")
    assert gains("math.tanh(math.log1p(math.exp(x))) + x ** 2")
    assert not gains("math.exp(x)") and not gains("1 / (1 + math.exp(-x))") and not gains("x + 1")
    assert not gains("math.sin(x) + math.lgamma(x)") and not gains("math.log(x) ** y")
    assert not gains("math.cosh(x)") and not gains("math.erfc(x) + math.erf(x)")
    for kernel in (activations.elu_kernel, activations.gelu_kernel, activations.gelu_tanh_kernel,
                   activations.mish_kernel, activations.softplus_kernel):
        assert kernel._wide_threads, kernel
    for kernel in (activations.silu_kernel, math_ops.sigmoid_kernel):
        assert not kernel._wide_threads, kernel


def test_cuda_launch_shape_rule(monkeypatch):
    """Flat CUDA launches take 1024 with 4 warps, and 512 for costly math while every element
    fits in one wave of the device's threads at 4 per thread; tiles take 4096 elements, fewer
    (down to 1024) while the grid would hold fewer than the 2112 programs of 4 warps that 132
    SMs run at once, and 512 under a quarter of those."""
    monkeypatch.setattr(call, "device_threads", lambda device: 132 * 2048)
    cuda = torch.device("cuda", 0)
    one_wave = 4 * 132 * 2048
    assert call.launch_shape(cuda, (2**20,), None, costly_calls=1) == ((512,), 4)
    assert call.launch_shape(cuda, (one_wave,), None, costly_calls=1) == ((512,), 4)
    assert call.launch_shape(cuda, (one_wave + 1,), None, costly_calls=1) == ((1024,), 4)
    assert call.launch_shape(cuda, (1024, 1024), None, costly_calls=1) == ((512,), 4)
    assert call.launch_shape(cuda, (2**21,), None, costly_calls=1) == ((1024,), 4)
    assert call.launch_shape(cuda, (2**20,), None, costly_calls=0) == ((1024,), 4)
    assert call.launch_shape(cuda, (100,), None) == ((1024,), 4)
    tile = (0, 1, ())
    assert call.launch_shape(cuda, (4096, 4096), tile) == ((64, 64), 4)
    assert call.launch_shape(cuda, (4096, 2048), tile) == ((32, 64), 4)  # 2048 of 64 x 64: under one wave
    assert call.launch_shape(cuda, (2048, 2048), tile) == ((32, 32), 4)  # 4096 programs, not 1024
    assert call.launch_shape(cuda, (2048, 1024), tile) == ((32, 32), 4)  # 2048 programs: under one wave
    assert call.launch_shape(cuda, (1024, 1024), tile, costly_calls=1) == ((32, 32), 4)  # over a quarter
    assert call.launch_shape(cuda, (1024, 512), tile) == ((16, 32), 4)  # 512 of 32 x 32: under a quarter
    assert call.launch_shape(cuda, (512, 512), tile) == ((16, 32), 4)
    assert call.launch_shape(cuda, (4, 1024), tile) == ((4, 128), 4)  # eight programs, not one
    assert call.launch_shape(cuda, (4, 3), tile) == ((4, 4), 4)


def test_16bit_tiles_keep_64x64_with_8_warps_from_2e20(monkeypatch):
    """Tiles whose operands are all 16-bit (or narrower) keep 64 x 64 elements with 8 warps from
    2^20 elements up, where float32 ones halve below a wave; below 2^20 they take float32's
    tiles, but 32 x 32 where those hold 512 elements and both sides are at least 32 long."""
    monkeypatch.setattr(call, "device_threads", lambda device: 132 * 2048)
    cuda, cpu, tile = torch.device("cuda", 0), torch.device("cpu"), (0, 1, ())
    for sizes in ((1024, 1024), (2048, 1024), (2048, 2048), (4096, 2048), (4096, 4096), (4, 512, 512)):
        for element_bytes in (2, 1):
            assert call.launch_shape(cuda, sizes, tile, element_bytes=element_bytes) == \
                (call.tile_blocks(sizes, tile, 4096), 8), (sizes, element_bytes)
        # costly math: 64 x 64 with 8 with one costly call from a quarter wave of 4096-element tiles
        # (528 programs), 32 x 64 with 4 with two from a wave (2112), else float32's tile for costly math
        for calls, full_from, elements, warps in ((1, 528, 4096, 8), (2, 2112, 2048, 4), (3, 2112, 2048, 4)):
            full = math.prod(sizes) // 4096 >= full_from
            below = call.launch_shape(cuda, sizes, tile, 1)  # float32's tile for costly math
            assert call.launch_shape(cuda, sizes, tile, calls, element_bytes=2) == \
                ((call.tile_blocks(sizes, tile, elements), warps) if full else below), (sizes, calls)
    assert call.launch_shape(cuda, (2048, 2048), tile, element_bytes=4) == ((32, 32), 4)
    assert call.launch_shape(cuda, (4096, 4096), tile, element_bytes=8) == ((64, 64), 4)
    # under 2^20: the float32 rule, but 32 x 32 tiles where it gives 512 elements and both sides
    # are at least 32 long
    assert call.launch_shape(cuda, (1024, 512), tile) == ((16, 32), 4)
    assert call.launch_shape(cuda, (1024, 512), tile, element_bytes=2) == ((32, 32), 4)
    assert call.launch_shape(cuda, (512, 512), tile, element_bytes=1) == ((32, 32), 4)
    assert call.launch_shape(cuda, (64, 64), tile, element_bytes=2) == ((32, 32), 4)
    assert call.launch_shape(cuda, (2, 64, 4, 8), (1, 3, ()), element_bytes=2) == ((32, 32), 4)  # 4 x 8 after p
    for sizes, launch_tile in (((4, 1024), tile), ((1024, 16), tile), ((2, 1024, 16), (1, 2, ())), ((4, 3), tile)):
        assert call.launch_shape(cuda, sizes, launch_tile, element_bytes=2) == \
            call.launch_shape(cuda, sizes, launch_tile), sizes  # a side under 32: the float32 tile
    assert call.launch_shape(cuda, (2**22,), None, element_bytes=2) == ((1024,), 4)  # flat: unchanged
    assert call.launch_shape(cpu, (2048, 2048), tile, element_bytes=2) == (call.tile_blocks((2048, 2048), tile), 1)


def test_tiles_of_costly_math_follow_the_number_of_costly_calls(monkeypatch):
    """Tiles of kernels with costly math (exp, sin, ...): 16-bit ones take 64 x 64 with 8 warps
    from a quarter wave of them (528 programs of 4 warps on 132 SMs: 2^22) with one costly call
    per element, 32 x 64 with 4 from a wave (2^24) with two or more, below that 32 x 32 with 4;
    wider ones never take more than 32 x 32 with 4 warps with one call, and take 32 x 16 with 2
    (32 along dim p) at every size with two or more. Tiles without costly math keep their rule."""
    monkeypatch.setattr(call, "device_threads", lambda device: 132 * 2048)
    cuda, tile = torch.device("cuda", 0), (0, 1, ())
    for exponent in range(20, 27):
        sizes = (2**exponent // 1024, 1024)
        one, two = exponent >= 22, exponent >= 24
        assert call.launch_shape(cuda, sizes, tile, 0, element_bytes=2) == ((64, 64), 8), exponent
        assert call.launch_shape(cuda, sizes, tile, 1, element_bytes=2) == (((64, 64), 8) if one else ((32, 32), 4))
        for calls in (2, 3):
            assert call.launch_shape(cuda, sizes, tile, calls, element_bytes=2) == \
                (((32, 64), 4) if two else ((32, 32), 4)), (exponent, calls)
        for element_bytes in (4, 8):
            assert call.launch_shape(cuda, sizes, tile, 1, element_bytes=element_bytes) == ((32, 32), 4), exponent
            for calls in (2, 3):
                assert call.launch_shape(cuda, sizes, tile, calls, element_bytes=element_bytes) == ((32, 16), 2)
    assert call.launch_shape(cuda, (4096, 4096), tile, 0) == ((64, 64), 4)  # no costly math: unchanged
    assert call.launch_shape(cuda, (2048, 4096), tile, 0) == ((32, 64), 4)
    # under 2^20 the usual small tiles, but 2 warps for heavy math; a short side lends its share
    assert call.launch_shape(cuda, (256, 1024), tile, 1) == call.launch_shape(cuda, (256, 1024), tile, 0)
    assert call.launch_shape(cuda, (256, 1024), tile, 2) == ((32, 16), 2)
    assert call.launch_shape(cuda, (8, 2**20), tile, 2) == ((8, 64), 2)
    assert call.launch_shape(cuda, (2**20, 4), tile, 2) == ((128, 4), 2)
    assert call.launch_shape(cuda, (2**18 // 1024, 1024), tile, 1, element_bytes=2) == \
        call.launch_shape(cuda, (2**18 // 1024, 1024), tile, 0, element_bytes=2)  # under 2^20: unchanged
    # tiles without vectors: costly math caps them too (no 32 x 128 from a wave)
    assert call.launch_shape(cuda, (24001, 1399), tile, 0, vectors=False) == ((32, 128), 4)
    assert call.launch_shape(cuda, (24001, 1399), tile, 1, vectors=False) == ((32, 32), 4)
    assert call.launch_shape(cuda, (24001, 1399), tile, 2, vectors=False) == ((32, 16), 2)


def test_tiles_without_vectors_are_full_only_from_a_wave(monkeypatch):
    """Tiles whose lines cannot load vectors (an odd row stride or bound) take 4096 elements where
    a grid of those fills a wave (2112 programs of 4 warps on 132 SMs): 64 x 64 with 8 warps for
    16-bit (or narrower) operands, 32 rows of 128 with 4 warps for wider ones (a shorter inner
    run gives the rows to p); below a wave 32 x 32 with 4 warps (16-bit ones too, which take
    64 x 64 from 2^20 with vectors), and under a quarter wave the usual smaller tiles."""
    monkeypatch.setattr(call, "device_threads", lambda device: 132 * 2048)
    cuda, tile = torch.device("cuda", 0), (0, 1, ())
    for element_bytes in (1, 2, 4, 8):
        for sizes, launch_tile in (((1031, 1031), tile), ((2999, 1001), tile), ((4097, 1531), tile),
                                   ((777, 10007), tile), ((4, 1031, 1031), (1, 2, ()))):
            assert call.launch_shape(cuda, sizes, launch_tile, element_bytes=element_bytes, vectors=False) == \
                ((32, 32), 4), (sizes, element_bytes)
        full = ((64, 64), 8) if element_bytes <= 2 else ((32, 128), 4)
        for sizes in ((24001, 1399), (1399, 24001), (2 * 2112 * 4096 // 1021, 1021), (4097, 4099)):
            assert call.launch_shape(cuda, sizes, tile, element_bytes=element_bytes, vectors=False) == full, \
                (sizes, element_bytes)
        if element_bytes > 2:  # an inner run of 37: 37 -> 64 elements along it, 4096 / 64 rows
            assert call.launch_shape(cuda, (300000, 37), tile, element_bytes=element_bytes, vectors=False) == \
                ((64, 64), 4)
            assert call.launch_shape(cuda, (2**17, 100), tile, element_bytes=element_bytes, vectors=False) == \
                ((32, 128), 4)
        small = call.launch_shape(cuda, (255, 257), tile, element_bytes=element_bytes, vectors=False)
        assert small == call.launch_shape(cuda, (255, 257), tile, element_bytes=element_bytes)
    assert call.launch_shape(cuda, (1031, 1031), tile, element_bytes=2) == ((64, 64), 8)  # with vectors
    assert call.launch_shape(cuda, (24001, 1399), tile, element_bytes=4) == ((64, 64), 4)


def test_tile_vectors_rule():
    """Vectors where every stride between lines and both mask bounds are multiples of 16."""
    tile = (0, 1, ())
    assert call.tile_vectors([1024, 2048], tile, [[1, 1024], [2048, 1], [2048, 1]])
    assert call.tile_vectors([1024, 2048], tile, [[1, 0], [2048, 1], [0, 0]])  # broadcasts
    assert not call.tile_vectors([1031, 1031], tile, [[1, 1031], [1031, 1], [1031, 1]])
    assert not call.tile_vectors([1024, 2048], tile, [[1, 1032], [2048, 1]])  # a row stride of 8
    assert not call.tile_vectors([1024, 2040], tile, [[1, 1024], [2048, 1]])  # a bound of 2040
    assert not call.tile_vectors([1000, 2048], tile, [[1, 1024], [2048, 1]])
    # rank 4, p = 1: the second operand's dims after p are one run, read through its last stride
    permuted = [[2048, 1, 512, 64], [2048, 32, 8, 1]]
    assert call.tile_vectors([3, 64, 4, 8], (1, 3, (False, True)), permuted)
    assert not call.tile_vectors([3, 64, 4, 8], (1, 3, (False, False)), permuted)  # 8 steps between lines
    assert not call.tile_vectors([3, 64, 4, 8], (1, 3, (False, True)), [[2056, 1, 512, 64], [2048, 32, 8, 1]])


def _spy_launch_shape(monkeypatch, parameter: str) -> list:
    """The values of one of call.launch_shape's parameters, a call each, however the caller passes it."""
    seen, real = [], call.launch_shape
    signature = inspect.signature(real)
    monkeypatch.setattr(call, "launch_shape", lambda *args, **kw: seen.append(
        signature.bind(*args, **kw).arguments[parameter]) or real(*args, **kw))
    return seen


def test_plan_tells_launch_shape_whether_tiles_load_vectors(monkeypatch):
    seen = _spy_launch_shape(monkeypatch, "vectors")
    fn = OPS["add"].ours
    for (rows, cols), vectors in (((64, 32), True), ((63, 32), False), ((64, 33), False), ((64, 40), False)):
        fn.plan((torch.randn(cols, rows).t(), torch.randn(rows, cols)), {}, None)
        assert seen[-1] is vectors, (rows, cols)
    fn.plan((torch.randn(63, 33), torch.randn(33)), {}, None)
    assert seen[-1] is True  # flat walks: no tile to judge


@given(sizes=st.lists(st.integers(1, 5000), min_size=2, max_size=4), p=st.integers(0, 2),
       element_bytes=st.sampled_from([1, 2, 4, 8]), costly=st.integers(0, 3))
def test_cuda_tiles_are_powers_of_two_within_the_sizes(sizes, p, element_bytes, costly):
    """Whatever the sizes, dtype and costly math calls, a CUDA tile's edges are powers of two
    (tl.arange needs them), no longer than the next power of two of their side, 4096 elements at
    most, with 2, 4 or 8 warps (2 only for heavy math); and a 16-bit tile never holds fewer
    elements than float32's at the same sizes."""
    real = call.device_threads  # patched by hand: hypothesis runs the body many times per fixture
    call.device_threads = lambda device: 132 * 2048
    try:
        p = min(p, len(sizes) - 2)
        tile, cuda = (p, len(sizes) - 1, ()), torch.device("cuda", 0)
        (block0, block1), warps = call.launch_shape(cuda, tuple(sizes), tile, costly, element_bytes=element_bytes)
        inner = math.prod(sizes[p + 1:])
        assert all(b > 0 and b & (b - 1) == 0 for b in (block0, block1))
        assert block0 <= call._next_power_of_two(sizes[p]) and block1 <= call._next_power_of_two(inner)
        assert block0 * block1 <= 4096 and warps in ((2,) if costly >= 2 and element_bytes > 2 else (4, 8))
        wide = call.launch_shape(cuda, tuple(sizes), tile, costly)[0]
        assert block0 * block1 >= wide[0] * wide[1] or element_bytes > 2
    finally:
        call.device_threads = real


def test_plan_tells_launch_shape_the_widest_element_read_in_lines(monkeypatch):
    """The plan passes the widest element among operands with a nonzero stride: a bfloat16 add
    with a 0-d float32 tensor is 16-bit, one with a float32 tensor output (out=) is not."""
    seen = _spy_launch_shape(monkeypatch, "element_bytes")
    fn = OPS["add"].ours
    a, b = torch.randn(64, 32, dtype=torch.bfloat16).t(), torch.randn(32, 64, dtype=torch.bfloat16)
    for args, out, expected in (((a, b), None, 2), ((a.half(), b.half()), None, 2),
                                ((a, torch.tensor(2.0)), None, 2), ((a, b.float()), None, 4),
                                ((a.to(torch.uint8), b.to(torch.uint8)), None, 1),
                                ((a, b), torch.empty(32, 64), 4), ((a.double(), b.double()), None, 8)):
        fn.plan(args, {}, out)
        assert seen[-1] == expected, (args[0].dtype, args[1].dtype, out)
    assert call.line_bytes([]) == 4


def test_gathered_loads_take_two_elements_per_thread(monkeypatch):
    """A flat CUDA launch whose inputs include one read element by element (innermost stride
    neither 0 nor 1) takes blocks of 512 with 8 warps, costly math or not; the CPU is unchanged."""
    monkeypatch.setattr(call, "device_threads", lambda device: 132 * 2048)
    cuda, cpu = torch.device("cuda", 0), torch.device("cpu")
    assert call.gathers([[2048, 2], [1024, 1]]) and call.gathers([[3]]) and call.gathers([[1], [-1]])
    assert not call.gathers([[2048, 1], [0, 1], [1, 0], [0], []])
    for costly in (False, True):
        assert call.launch_shape(cuda, (2**24,), None, costly, gathered=True) == ((512,), 8)
        assert call.launch_shape(cuda, (2**10,), None, costly, gathered=True) == ((512,), 8)
    assert call.launch_shape(cpu, (3000,), None, gathered=True) == ((4096,), 1)


def test_plan_sees_gathered_loads(monkeypatch):
    seen = _spy_launch_shape(monkeypatch, "gathered")
    fn = OPS["add"].ours
    for case, gathered in (("strided slices", True), ("contiguous", False), ("row broadcast", False),
                           ("column broadcast", False), ("transposed + contiguous", False)):
        fn.plan(make_inputs(case, 2**12, 2, torch.float32, "cpu"), {}, None)
        assert seen[-1] is gathered, case


def test_evict_last_rule(monkeypatch):
    """Loads keep their lines in L2 on tiled CUDA launches of at least one wave (2112 programs of
    4 warps on 132 SMs), never on flat or CPU launches."""
    monkeypatch.setattr(call, "device_threads", lambda device: 132 * 2048)
    cuda, tile = torch.device("cuda", 0), (0, 1, ())

    def evicts(sizes, launch_tile=tile, device=cuda):
        blocks, _ = call.launch_shape(device, sizes, launch_tile)
        return call.evict_last(device, sizes, launch_tile, blocks)
    assert evicts((2048, 2048)) and evicts((4096, 4096)) and evicts((4, 2048, 2048))
    assert not evicts((2048, 1024))  # 2048 programs of 32 x 32: under one wave
    assert not evicts((1024, 1024)) and not evicts((64, 64))
    assert not evicts((2**24,), None)
    assert not evicts((2048, 2048), device=torch.device("cpu"))


def test_tile_blocks_shape_tiles_of_the_asked_elements():
    tile = (0, 1, ())
    assert call.tile_blocks((4096, 4096), tile) == (64, 64)
    assert call.tile_blocks((4096, 4096), tile, 2048) == (32, 64)
    assert call.tile_blocks((4096, 4096), tile, 1024) == (32, 32)
    assert call.tile_blocks((4096, 4096), tile, 512) == (16, 32)
    assert call.tile_blocks((4, 1024), tile) == (4, 1024)  # a short side lends the long one its share
    assert call.tile_blocks((4, 1024), tile, 512) == (4, 128)
    assert call.tile_blocks((1024, 4), tile, 512) == (128, 4)
    assert call.tile_blocks((2, 4, 1024), (0, 2, ()), 1024) == (2, 512)  # the dims after p count as one


def test_plan_tells_launch_shape_how_many_costly_calls(monkeypatch):
    seen = _spy_launch_shape(monkeypatch, "costly_calls")
    x = torch.randn(64)
    for name, calls in (("add", 0), ("gelu", 1), ("silu_and_mul", 1), ("two outputs (user)", 2), ("if_else (user)", 0)):
        fn = OPS[name].ours
        fn.plan(fn._positional((x,) * OPS[name].arity, {}), {}, None, positional=True)
        assert seen[-1] == calls, name


def test_first_call_takes_the_cold_process_then_the_fastest_warm_one(monkeypatch):
    printed = iter(["0.5 2.0", "0.4 0.9", "0.45 0.7", "0.3 0.8"])  # import s, first call s

    class Done:
        def __init__(self):
            self.stdout = next(printed)

    monkeypatch.setattr(run.subprocess, "run", lambda *a, **k: Done())
    assert run.first_call(".") == {"cold import s": 0.5, "cold first call s": 2.0,
                                   "warm import s": 0.45, "warm first call s": 0.7}


def test_host_rounds_take_the_functions_in_turn(monkeypatch):
    monkeypatch.setattr(run.torch.cuda, "synchronize", lambda: None)
    order = []
    functions = {label: (lambda label=label: order.append(label)) for label in "abc"}
    result = run.per_call_us(functions, calls=2, rounds=3)
    assert sorted(result) == ["a", "b", "c"] and all(0 < us < float("inf") for us in result.values())
    timed = order[3 * 200:]  # after each function's warm-up
    rounds = [timed[i:i + 6:2] for i in range(0, len(timed), 6)]
    assert rounds == [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]]


def test_host_call_forms_time_each_form_with_and_without_tritonize(monkeypatch, tmp_path):
    """Each aten form is timed with tritonize's registration in force and without it, the
    direct forms side by side with their eager twins; every form runs (here once, on the CPU)."""
    from tritonize.ops.registry import Registration

    def one_call_each(functions, calls, rounds=run.HOST_ROUNDS):
        serving = Registration._active.get("CPU", 0) > 0
        return {label: (fn(), 2.0 if serving else 1.0)[1] for label, fn in functions.items()}

    monkeypatch.setattr(run, "per_call_us", one_call_each)
    monkeypatch.setattr(run, "HOST_ROUNDS", 1)
    forms = run.host_call_forms("cpu")
    enabled = {form: us for form, us in forms.items() if form.startswith("enabled:")}
    assert len(enabled) >= 5 and all(us == {"tritonize": 2.0, "eager": 1.0} for us in enabled.values())
    direct = {form: us for form, us in forms.items() if not form.startswith("enabled:")}
    assert "add(c, b, out=c), in place" in direct and all(set(us) == {"tritonize", "eager"} for us in direct.values())
    results = {"gpu": "GPU", "torch": "t", "triton": "tr", "tritonize": "0", "date": "d", "command": "c",
               "copy GB/s": 4250.0, "rows": [], "host call forms us": forms}
    run.write_markdown(results, tmp_path / "latest.md")
    table = [line for line in (tmp_path / "latest.md").read_text().splitlines() if line.startswith("| `")]
    assert len(table) == len(forms) and "| `enabled: c.add_(b)` | 2.0 | 1.0 |" in table


def test_host_new_shapes_gives_every_call_a_length_no_call_had(tmp_path):
    """Each system gets contiguous inputs of one shape, every call a length that no call (of any
    system, in any round) had; each system's time is reported, and the markdown shows them."""
    seen = []

    def recording(label):
        def add(a, b):
            assert a.shape == b.shape and a.dim() == 1 and a.is_contiguous() and b.is_contiguous()
            seen.append((label, a.numel()))
            return a + b
        return add

    systems = {label: recording(label) for label in ("tritonize", "eager", "torch.compile (dynamic)")}
    shapes = run.host_new_shapes("cpu", calls=7, systems=systems)
    assert list(shapes) == list(systems) and all(0 < us < float("inf") for us in shapes.values())
    lengths = [n for _, n in seen]
    assert len(lengths) == 7 * run.HOST_ROUNDS * len(systems) and len(set(lengths)) == len(lengths)
    assert {label for label, _ in seen} == set(systems)
    results = {"gpu": "GPU", "torch": "t", "triton": "tr", "tritonize": "0", "date": "d", "command": "c",
               "copy GB/s": 4250.0, "rows": [], "host new shapes us": shapes,
               "host overhead us": {"tritonize": 9.0, "eager": 7.0, "torch.compile": 30.0},
               "first call": {"cold first call s": 1.5, "warm first call s": 0.5, "warm import s": 0.4}}
    run.write_markdown(results, tmp_path / "latest.md")
    text = (tmp_path / "latest.md").read_text().splitlines()
    lines = [line for line in text if line.startswith("A new shape")]
    assert len(lines) == 1 and all(label in lines[0] for label in systems)
    # the targets table runs unbroken from its header to its last row (the first call's)
    start = text.index("| target | measured | holds |")
    rows = text[start:text.index("", start)]
    assert rows[-1].startswith("| < 1 s first call") and all(row.startswith("|") for row in rows)


def test_host_new_shapes_with_a_bias_gives_every_call_a_batch_no_call_had(tmp_path):
    """With `row`, each call adds a contiguous batch of rows of that length, a batch size no call
    had, and a bias of one row; the markdown shows the systems' times."""
    seen = []

    def recording(label):
        def add(a, b):
            assert a.dim() == 2 and a.shape[1] == 8 and a.is_contiguous() and b.shape == (8,)
            seen.append(a.shape[0])
            return a + b
        return add

    systems = {label: recording(label) for label in ("tritonize", "eager", "torch.compile (dynamic)")}
    batches = run.host_new_shapes("cpu", calls=5, systems=systems, row=8)
    assert list(batches) == list(systems) and all(0 < us < float("inf") for us in batches.values())
    assert len(seen) == 5 * run.HOST_ROUNDS * len(systems) and len(set(seen)) == len(seen)
    results = {"gpu": "GPU", "torch": "t", "triton": "tr", "tritonize": "0", "date": "d", "command": "c",
               "copy GB/s": 4250.0, "rows": [], "host new batches with a bias us": batches}
    run.write_markdown(results, tmp_path / "latest.md")
    lines = [line for line in (tmp_path / "latest.md").read_text().splitlines() if line.startswith("A new batch")]
    assert len(lines) == 1 and all(label in lines[0] for label in systems)


def test_host_new_shapes_transposed_gives_every_call_a_transposed_batch_no_call_had(tmp_path):
    """With `row` and `transposed`, each call adds the transpose of a (row, n) tensor to a row-major
    (n, row) one, n new on every call; the markdown shows the systems' times."""
    seen = []

    def recording(label):
        def add(a, b):
            n = a.shape[0]
            assert a.shape == b.shape == (n, 8) and a.stride() == (1, n) and b.is_contiguous()
            seen.append(n)
            return a + b
        return add

    systems = {label: recording(label) for label in ("tritonize", "eager", "torch.compile (dynamic)")}
    transposed = run.host_new_shapes("cpu", calls=5, systems=systems, row=8, transposed=True)
    assert list(transposed) == list(systems) and all(0 < us < float("inf") for us in transposed.values())
    assert len(seen) == 5 * run.HOST_ROUNDS * len(systems) and len(set(seen)) == len(seen)
    results = {"gpu": "GPU", "torch": "t", "triton": "tr", "tritonize": "0", "date": "d", "command": "c",
               "copy GB/s": 4250.0, "rows": [], "host new transposed batches us": transposed}
    run.write_markdown(results, tmp_path / "latest.md")
    text = (tmp_path / "latest.md").read_text().splitlines()
    lines = [line for line in text if line.startswith("A new transposed batch")]
    assert len(lines) == 1 and all(label in lines[0] for label in systems)
    assert not [line for line in text if line.startswith("A new batch")]


def test_op_library_agreement_compares_element_by_element():
    """benchmarks/experiments/op_library.agreement: a value is off only where it is off relatively and
    absolutely (a float16 result eager's chain underflowed to 0, or a large one an ulp apart, agrees);
    infinities agree only with themselves; NaNs must sit where eager's do."""
    from benchmarks.experiments.op_library import agreement
    half = dict(dtype=torch.float16)
    assert agreement(torch.tensor([6e-5, 1000.0, math.inf], **half), torch.tensor([0.0, 1000.5, math.inf], **half)) == "ok"
    assert agreement(torch.tensor([-0.01, 1.0], **half), torch.tensor([-0.0, 1.0], **half)) == "rel 1.0e+28 on 1"
    assert agreement(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.1])) == "rel 4.8e-02 on 1"
    assert agreement(torch.tensor([math.inf]), torch.tensor([-math.inf])) == "1 infinities differ"
    assert agreement(torch.tensor([3e38]), torch.tensor([math.inf])) == "1 infinities differ"
    assert agreement(torch.tensor([math.nan, 1.0]), torch.tensor([1.0, 1.0])) == "NaN positions differ"
    assert agreement(torch.tensor([1, 2]), torch.tensor([1, 3])) == "1 differ"
    assert agreement((torch.tensor([1.0]), torch.tensor([2.0])), (torch.tensor([1.0]), torch.tensor([2.0]))) == "ok"


def test_sass_counts_reads_the_kernel_a_launch_would_compile():
    """benchmarks/experiments/sass_counts: the CUDA kernel of ops.add (float32) and of ops.bessel_j0 (float64),
    generated with no GPU and compiled for sm_90 by Triton's ptxas, as the launch would (its block, warps and
    dependent launch): the add's SASS adds in float32, loads and stores; the float64 J0's blocks are the heavy
    math's 256 elements held to call.CAPPED_REGISTERS's registers, its reduction a barrier, its arithmetic float64.
    `--skip some_far` folds J0's Hankel branch away (fewer instructions), `--maxnreg 48` holds ptxas to 48
    registers in place of the launch's cap (none spilled in that branch: its sine and cosine come from one
    reduction), and `polygamma:1` passes the order first (float64 trigamma's kernel)."""
    import re
    import subprocess
    import sys

    def counts(op, dtype, *options):
        out = subprocess.run([sys.executable, "-m", "benchmarks.experiments.sass_counts", op, dtype, "--numel",
                              str(2**24), "--top", "100", *options], capture_output=True, text=True, check=True).stdout
        first, mix, *rest = out.splitlines()
        return first, dict((name, int(n)) for name, n in (item.split() for item in mix.strip().split(", "))), rest

    def registers(first):
        return int(re.search(r"(\d+) registers", first).group(1))

    first, mix, _ = counts("add", "float32")
    assert "blocks [1024], 4 warps" in first and "registers" in first
    assert mix["FADD"] >= 1 and mix["LDG"] >= 2 and mix["STG"] >= 1 and "DADD" not in mix
    first, mix, _ = counts("bessel_j0", "float64")
    assert "blocks [256], 4 warps" in first
    assert registers(first) <= call.CAPPED_REGISTERS[True]  # the launch's own cap (maxnreg=40)
    assert mix["DMUL"] > 50 and mix["BAR"] >= 1
    skipped, skipped_mix, _ = counts("bessel_j0", "float64", "--skip", "some_far")
    assert "without `if some_far:`" in skipped and sum(skipped_mix.values()) < sum(mix.values()) / 2
    held, _, (_, sites) = counts("bessel_j0", "float64", "--maxnreg", "48")
    assert "maxnreg 48" in held and registers(first) < registers(held) <= 48
    # the Hankel branch's sine and cosine from one reduction (portable_sincos) fit 48 registers: no local loads
    # or stores in that branch (the 4-12 beside it, by ptxas's version, are the slow-path subroutines' frames)
    local, in_branch = map(int, re.search(r"LDL/STL (\d+), (\d+) of them", sites).groups())
    assert in_branch <= 2 and local <= 16
    _, _, (module, *_) = counts("polygamma:1", "float64")
    assert module.strip().startswith("trigamma_kernel_rank1_f64_")


def test_fit_bessel_jy_fits_within_float32_and_rounds_each_coefficient():
    """benchmarks/experiments/fit_bessel_jy.fit on few points and rounds: float32 P1 and R1 within a float32 eps
    (the full fit's 2.7e-8 and 2.2e-8), each coefficient a float32, one more than the degree; and the float64 fit of
    P1 far tighter, its coefficients float64 values that float32 does not hold."""
    import numpy as np

    from benchmarks.experiments import fit_bessel_jy

    for name in ("P1", "R1"):
        coefficients, fitted = fit_bessel_jy.fit(name, "float32", count=300, rounds=20)
        assert len(coefficients) == fit_bessel_jy.DEGREES["float32"][name] + 1
        assert all(float(np.float32(c)) == c for c in coefficients)
        assert fitted < 2.0**-24
    coefficients, fitted = fit_bessel_jy.fit("P1", "float64", count=300, rounds=20)
    assert len(coefficients) == fit_bessel_jy.DEGREES["float64"]["P1"] + 1
    assert fitted < 1e-15 and any(float(np.float32(c)) != c for c in coefficients)


def test_resumed_run_measures_only_what_the_stopped_run_lacks(monkeypatch, tmp_path):
    """`--resume` keeps the sections and rows of the latest.json a stopped run left, measures the rest against the
    new process's own copy bandwidth and says so in the markdown; a run from another GPU is refused."""
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *args: "Some GPU")
    bandwidth = {"GB/s": 3000.0}
    monkeypatch.setattr(run, "copy_bandwidth", lambda device, steady=False: bandwidth["GB/s"] * 1e9)
    measured = []
    monkeypatch.setattr(run, "host_sections", lambda device: [
        (key, lambda key=key: measured.append(key) or {"tritonize": 1.0, "eager": 1.0, "torch.compile": 1.0})
        for key in ("host overhead us", "host new shapes us")])
    plan = [("add", "contiguous", torch.float32, exponent) for exponent in (12, 13, 14)]
    monkeypatch.setattr(run, "benchmark_plan", lambda quick=False: plan)
    rows_left = {"before the stop": 2}

    def measure_row(name, case, dtype, exponent, compiled, copy_bw, device, steady_copy_bw=None):
        if rows_left["before the stop"] == 0:
            raise KeyboardInterrupt  # the device call's time limit
        rows_left["before the stop"] -= 1
        measured.append(exponent)
        return {"op": name, "case": case, "dtype": str(dtype).replace("torch.", ""), "numel": 2**exponent,
                "bytes": 12 * 2**exponent, "sector bytes": 12 * 2**exponent, "tritonize us": 1.0, "eager us": 1.0,
                "torch.compile us": 1.0, "same-size copy us": 1.0, "tritonize GB/s": 1.0,
                "tritonize % copy": 100 * 1e9 / copy_bw, "tritonize % copy, sectors": 100 * 1e9 / copy_bw,
                "tritonize % same-size copy": 100.0, "vs eager": 1.0, "vs torch.compile": 1.0}

    monkeypatch.setattr(run, "measure_row", measure_row)
    monkeypatch.setattr(run, "plot", lambda results, path: None)
    with pytest.raises(KeyboardInterrupt):
        run.main(["--out", str(tmp_path)])
    assert measured == ["host overhead us", "host new shapes us", 12, 13]
    assert not (tmp_path / "latest.md").exists()

    measured.clear()
    rows_left["before the stop"] = 10
    bandwidth["GB/s"] = 2000.0
    run.main(["--out", str(tmp_path), "--resume"])
    assert measured == [14]
    results = json.loads((tmp_path / "latest.json").read_text())
    assert [row["numel"] for row in results["rows"]] == [2**12, 2**13, 2**14]
    assert results["copy GB/s"] == 3000.0
    assert results["resumed"] == [{"first row": 2, "copy GB/s": 2000.0, "steady copy GB/s": 2000.0}]
    assert [row["tritonize % copy"] for row in results["rows"]] == pytest.approx([1 / 30, 1 / 30, 1 / 20])
    assert "Resumed (`--resume`, a new process on a machine of the same GPU) from row 3" in (
        tmp_path / "latest.md").read_text()

    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *args: "Another GPU")
    with pytest.raises(SystemExit, match="measured elsewhere"):
        run.main(["--out", str(tmp_path), "--resume"])


def test_float8_experiment_agrees_with_eager_where_it_checks_bits():
    """benchmarks.experiments.float8 checks its kernels before timing them: bit for bit where one rounding
    gives eager's result (quantize from float32, dequantize), within one 8-bit step from bfloat16."""
    from benchmarks.experiments import float8

    generator = torch.Generator().manual_seed(3)
    x = torch.randn(64, 96, generator=generator) * 100
    scale = torch.tensor(1.7)
    assert torch.equal(float8.codes(float8.quantize(x, scale)), float8.codes(float8.eager_quantize(x, scale)))
    x16 = x.to(torch.bfloat16)
    assert torch.allclose(float8.quantize(x16, scale).float(), float8.eager_quantize(x16, scale).float(), rtol=0.13,
                          atol=2**-9, equal_nan=True)
    q = x.to(float8.E4M3)
    row_scale = torch.rand(64, 1, generator=generator)
    # through codes(), as the experiment compares them: bfloat16 bits, every NaN as one
    assert torch.equal(float8.codes(float8.dequantize(q, row_scale)),
                       float8.codes(float8.eager_dequantize(q, row_scale)))


def test_unsigned_hash_experiment_agrees_with_its_int64_emulation():
    """benchmarks.experiments.unsigned_hash checks its kernel against eager's int64 emulation bit for bit
    before timing: so they agree here, over the whole uint32 range."""
    from benchmarks.experiments import unsigned_hash

    generator = torch.Generator().manual_seed(5)
    x = torch.randint(-2**31, 2**31, (3000,), generator=generator, dtype=torch.int32).view(torch.uint32)
    x[:3] = torch.tensor([0, 1, -1], dtype=torch.int32).view(torch.uint32)
    got = unsigned_hash.hash32(x)
    assert got.dtype == torch.uint32
    assert unsigned_hash.same_bits(got, unsigned_hash.emulated_hash32(x))

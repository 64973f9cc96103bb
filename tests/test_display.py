"""What a person reads: rich display in Jupyter, highlighted source, explain(), logging."""
from __future__ import annotations

import logging
import math
import sys
import types

import pytest
import torch

from tritonize import Promotion, call, pointwise
from tritonize.display import SourceText, _cell_name


@pointwise
def shifted_gelu(x, shift: float = 0.0):
    if x > shift:
        return x * 0.5 * (1.0 + math.erf(x * 0.7071067811865476))
    return x * 0.25


@pointwise(promotion=[Promotion("default", over=("a", "b")), torch.float16])
def sum_and_half(a, b, c):
    return a + b, c * 0.5


def test_source_is_the_file_text_and_displays_highlighted(device):
    x = torch.randn(3, 4, device=device)
    text = shifted_gelu.source(x)
    path = shifted_gelu.source_path(x)
    assert isinstance(text, str) and isinstance(text, SourceText)
    assert text == path.read_text() and str(text) == path.read_text()
    page = text._repr_html_()
    assert str(path) in page
    assert "<span" in page and "store" in page  # highlighted, inline styles
    printed = []
    text._repr_pretty_(types.SimpleNamespace(text=printed.append), False)
    assert printed == [str(text)]  # IPython's plain text is the code, not a quoted repr


def test_source_html_without_pygments(device, monkeypatch):
    monkeypatch.setitem(sys.modules, "pygments", None)  # import pygments now fails
    page = shifted_gelu.source(torch.randn(5, device=device))._repr_html_()
    assert "<pre>" in page and "&lt;" not in page.split("<pre>")[0]
    assert "tl.store(" in page and "<span" not in page


def test_function_display_before_and_after_calls(device):
    @pointwise
    def doubled(x):
        return x * 2

    assert "No specializations generated in this process yet" in doubled._repr_markdown_()
    doubled(torch.randn(4, 5, device=device))
    doubled(torch.arange(6, device=device).reshape(2, 3)[:, :2])  # not contiguous: rank 2
    markdown = doubled._repr_markdown_()
    assert markdown.startswith("**@pointwise** `doubled(x)` (1 output), from `test_display.py:")
    assert "dtype rule: as computed (torch's promotion applied operation by operation)" in markdown
    assert "2 specializations in this process:" in markdown
    assert f"| 1 | x: float32 tensor | float32 | int32 | {device} | `doubled_rank1_f32_" in markdown
    assert f"| 2 | x: int64 tensor | int64 | int32 | {device} | `doubled_rank2_i64_" in markdown
    page = doubled._repr_html_()
    assert "<table>" in page and "<b>@pointwise</b> <code>doubled(x)</code>" in page
    for path in doubled.specializations.values():
        assert f"title='{path}'" in page
    assert "<details><summary>scalar source</summary>" in page


def test_dtype_rules_in_words():
    markdown = sum_and_half._repr_markdown_()
    assert "(2 outputs)" in markdown
    assert ("dtype rule: output 0: torch's 'default' promotion over a, b; output 1: always float16"
            in markdown)


def test_explain_broadcast_layout_coalescing_and_file(device):
    a = torch.randn(8, 1, 6, device=device)
    text = shifted_gelu.explain(a.transpose(0, 2), shift=0.5)
    assert text.startswith("shifted_gelu(x, shift: 'float' = 0.0): how this call is planned\n")
    assert "argument x      float32 tensor, shape (6, 1, 8), strides (1, 6, 6)" in text
    assert "argument shift  Python float 0.5" in text
    assert "broadcast       shape (6, 1, 8), 48 elements" in text
    assert "output          float32, allocated, strides (1, 6, 6)" in text
    assert "the inputs' memory order" in text
    assert "rank 1, sizes (48,) outermost first (from rank 3: 1 size-1 dim dropped, 1 merge" in text
    assert "index width     int32" in text
    path = shifted_gelu.source_path(a.transpose(0, 2), shift=0.5)
    assert f"module          {path}\n" in text
    assert "already generated in this process" in shifted_gelu.explain(a.transpose(0, 2))


def test_explain_given_outputs_and_empty_calls(device):
    a, b, c = torch.randn(4, 3, device=device), torch.randn(3, device=device), torch.randn(4, 3, device=device)
    out = (torch.empty(3, 4, device=device).t(), torch.empty(4, 3, dtype=torch.float16, device=device))
    text = sum_and_half.explain(a, b, c, out=out)
    assert "output out[0]  float32, given by out=, strides (1, 4)" in text
    assert "output out[1]  float16, given by out=, strides (3, 1)" in text
    assert "b strides (1, 0)" in text  # broadcast: stride 0, in the coalesced order
    empty = shifted_gelu.explain(torch.randn(0, 3, device=device))
    assert "0 elements" in empty and "none: a call with no elements launches nothing" in empty


def test_cell_names_come_from_the_running_ipython(monkeypatch):
    names = {"/tmp/ipykernel_1/123.py": ("Cell", "In[7]")}
    shell = types.SimpleNamespace(compile=types.SimpleNamespace(format_code_name=names.get))
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    assert _cell_name("/tmp/ipykernel_1/123.py") == "In[7]"
    assert _cell_name("/elsewhere/module.py") is None


def test_a_debug_line_per_generated_module(device, caplog):
    @pointwise
    def logged(x):
        return x - 1

    x = torch.randn(5, device=device)
    with caplog.at_level(logging.DEBUG, logger="tritonize"):
        logged(x)
        logged(x)  # the same specialization: no second line
    records = [r for r in caplog.records if r.name == "tritonize"]
    assert len(records) == 1 and records[0].levelno == logging.DEBUG
    dependent = "; dependent launch (PDL)" if call.dependent_launch(x.device) else ""  # Hopper GPUs
    assert records[0].getMessage() == (f"logged: generated {logged.source_path(x)} (rank 1, x: float32 tensor; "
                                       f"outputs: float32; int32 indexing; {device}{dependent})")


def test_print_code_prints_each_generated_module(device, monkeypatch, capsys):
    @pointwise
    def printed(x):
        return x + 1

    monkeypatch.setenv("TRITONIZE_PRINT_CODE", "1")
    x = torch.randn(5, device=device)
    printed(x)
    err = capsys.readouterr().err
    path = printed.source_path(x)
    assert err == f"# ---- tritonize: printed -> {path}\n{path.read_text()}\n"
    monkeypatch.setenv("TRITONIZE_PRINT_CODE", "0")
    printed(torch.arange(3, device=device))  # a new specialization
    assert capsys.readouterr().err == ""


def test_logger_is_quiet_unless_configured():
    logger = logging.getLogger("tritonize")
    assert any(isinstance(h, logging.NullHandler) for h in logger.handlers)


@pytest.mark.parametrize("value", ["", "0", "no"])
def test_print_code_off_values(value, monkeypatch):
    from tritonize.log import print_code_enabled

    monkeypatch.setenv("TRITONIZE_PRINT_CODE", value)
    assert not print_code_enabled()


def test_runs_on_says_when_cuda_tiles_load_no_vectors():
    """explain()'s launch line for a CUDA tile says when its lines cannot load vectors (an odd
    row stride), which is what sizes those tiles; aligned tiles and CPU launches say nothing."""
    import dataclasses

    from tritonize import call, display, pointwise

    @pointwise
    def add_tiles(a, b):
        return a + b

    for rows, cols, vectors in ((33, 31, False), (64, 32, True)):
        a, b = torch.randn(cols, rows).t(), torch.randn(rows, cols)
        plan, spec = add_tiles.plan((a, b), {}, None)
        assert spec.tile is not None
        words = "no vector loads in these tiles"
        assert words not in display._runs_on(plan, spec)  # the CPU: the interpreter's tiles
        on_cuda = display._runs_on(dataclasses.replace(plan, device=torch.device("cuda", 0)),
                                   dataclasses.replace(spec, device_type="cuda"))
        assert (words in on_cuda) is not vectors, on_cuda
        assert call.tile_vectors(plan.sizes, spec.tile, [o.strides for o in plan.inputs + plan.outputs]) is vectors


def test_runs_on_says_how_costly_math_sizes_cuda_tiles():
    """explain()'s launch line for a CUDA tile says when the kernel's costly math calls size its
    tiles (one call, or two and more); a kernel without them and CPU launches say nothing."""
    import dataclasses

    from tritonize import display
    from tritonize.passes.math_table import costly_calls

    @pointwise
    def polar_tiles(r, theta):
        return r * math.cos(theta), r * math.sin(theta)

    @pointwise
    def exp_tiles(a, b):
        return math.exp(a) * b

    @pointwise
    def add_tiles(a, b):
        return a + b

    a, b = torch.randn(64, 32).t(), torch.randn(32, 64)
    for fn, calls, words in ((polar_tiles, 2, "2 costly math calls per element"),
                             (exp_tiles, 1, "a costly math call per element"), (add_tiles, 0, None)):
        assert costly_calls(fn._ctx.tree) == calls
        plan, spec = fn.plan((a, b), {}, None)
        assert spec.tile is not None
        on_cpu = display._runs_on(plan, spec, calls)
        on_cuda = display._runs_on(dataclasses.replace(plan, device=torch.device("cuda", 0)),
                                   dataclasses.replace(spec, device_type="cuda"), calls)
        assert "costly math call" not in on_cpu
        assert ("costly math call" in on_cuda) is (words is not None), on_cuda
        assert words is None or words in on_cuda


def test_runs_on_says_when_ptxas_is_held_to_fewer_registers():
    """explain()'s launch line for a CUDA launch with Specialization.max_registers names the cap and why; an
    uncapped launch and the CPU say nothing of it."""
    import dataclasses

    from tritonize import display
    from tritonize.ops import math_ops

    plan, spec = math_ops.bessel_j0_kernel.plan((torch.randn(4096),), {}, None)
    cuda_plan = dataclasses.replace(plan, device=torch.device("cuda", 0))
    capped = display._runs_on(cuda_plan, dataclasses.replace(spec, device_type="cuda", max_registers=40))
    assert "ptxas held to 40 registers a thread (maxnreg)" in capped and "blocks of small arguments skip" in capped
    assert "maxnreg" not in display._runs_on(cuda_plan, dataclasses.replace(spec, device_type="cuda"))
    assert "maxnreg" not in display._runs_on(plan, spec)


def test_runs_on_says_what_a_dependent_flat_block_moves():
    """explain()'s launch line for a flat CUDA walk launched as a programmatic dependent says how
    many bytes a block moves and why blocks grow to 6 KiB; launches that are not dependent, tiles
    and the CPU say nothing of it."""
    import dataclasses

    from tritonize import display

    @pointwise
    def negate(x):
        return -x

    x = torch.randn(4096, dtype=torch.bfloat16)
    plan, spec = negate.plan((x,), {}, None)
    cuda_plan = dataclasses.replace(plan, device=torch.device("cuda", 0), blocks=(2048,), warps=8)
    dependent = display._runs_on(cuda_plan, dataclasses.replace(spec, device_type="cuda", dependent_launch=True))
    assert "a block moves 8.0 KiB" in dependent and "grows to move 6 KiB" in dependent, dependent
    assert "8 elements a thread" in dependent and "gains" not in dependent, dependent
    wide_plan = dataclasses.replace(cuda_plan, warps=4)
    wide = display._runs_on(wide_plan, dataclasses.replace(spec, device_type="cuda", dependent_launch=True), 1, True)
    assert "16 elements a thread (its math gains from more of them" in wide, wide
    plain = display._runs_on(cuda_plan, dataclasses.replace(spec, device_type="cuda"))
    assert "a block moves" not in plain and "a block moves" not in display._runs_on(plan, spec)

    @pointwise
    def constant_like(x):  # reads nothing of x: its block moves only what it writes
        return 2.5

    plan, spec = constant_like.plan((x,), {}, None)
    cuda_plan = dataclasses.replace(plan, device=torch.device("cuda", 0), blocks=(2048,), warps=8)
    dependent = display._runs_on(cuda_plan, dataclasses.replace(spec, device_type="cuda", dependent_launch=True))
    assert "a block moves 8.0 KiB" in dependent, dependent  # 2048 float32 outputs
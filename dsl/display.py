"""What a person reads about a @pointwise function: its rich display in Jupyter, the generated
source with syntax highlighting, and `explain()`, how one call is planned.

Everything here reads PointwiseFunction, CallPlan and Specialization; nothing changes them.
Pygments (which Jupyter brings) highlights code when it is installed; plain text otherwise.
"""
from __future__ import annotations

import html
import inspect
import sys
from pathlib import Path

import torch

from tritonize import call
from tritonize.passes.build_kernel import flat_indexed_labels
from tritonize.passes.context import PAIR_STRIDE
from tritonize.passes.type_rules import dtype_name
from tritonize.view import StridedView


class Text(str):
    """A str that IPython shows as itself (its lines), not as a quoted repr."""

    def _repr_pretty_(self, printer, cycle):
        printer.text(str(self))


class SourceText(Text):
    """A generated module's text (equal to its file's), shown highlighted in Jupyter."""

    def __new__(cls, text: str, path=None):
        self = super().__new__(cls, text)
        self.path = path
        return self

    def _repr_html_(self) -> str:
        header = f"<div style='font-size: 85%; opacity: 0.8'>{html.escape(str(self.path))}</div>" if self.path else ""
        return header + highlight_html(str(self))


def highlight_html(code: str) -> str:
    """Python code as HTML with inline styles (pygments), or as an escaped <pre> without it."""
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer
    except ImportError:
        return f"<pre>{html.escape(code)}</pre>"
    return highlight(code, PythonLexer(), HtmlFormatter(noclasses=True))


# -- a @pointwise function in Jupyter ------------------------------------------------------------

def dtype_rule(function) -> str:
    """The output dtype rule(s), in words."""
    words = [_rule_words(rule) for rule in function.promotion]
    if len(set(words)) == 1:
        return words[0]
    return "; ".join(f"output {k}: {w}" for k, w in enumerate(words))


def _rule_words(rule) -> str:
    if rule.kind is None:
        text = "as computed (torch's promotion applied operation by operation)"
    elif isinstance(rule.kind, torch.dtype):
        text = f"always {dtype_name(rule.kind)}"
    else:
        text = f"torch's {rule.kind!r} promotion"
    if rule.over:
        text += f" over {', '.join(rule.over)}"
    return text


def describe_params(spec) -> str:
    parts = []
    for p in spec.params:
        if p.is_tensor:
            zero_dim = " 0-d" if p.vtype.priority == 1 else ""
            by_value = " by value" if p.by_value else ""
            parts.append(f"{p.name}: {dtype_name(p.loaded_dtype)}{zero_dim} tensor{by_value}{p.read_note}")
        else:
            parts.append(f"{p.name}: Python {_PYTHON_KIND[p.vtype.dtype]}")
    return ", ".join(parts)


_PYTHON_KIND = {torch.float64: "float", torch.int64: "int", torch.bool: "bool"}


def _rows(function) -> list[tuple]:
    """(rank, arguments, outputs, index, device, file) per specialization made in this process."""
    rows = []
    for spec, path in function.specializations.items():
        rows.append((str(spec.rank), describe_params(spec), ", ".join(dtype_name(d) for d in spec.out_dtypes),
                     dtype_name(spec.index_dtype), spec.device_type, str(path)))
    return rows


_HEADERS = ("rank", "arguments", "outputs", "index", "device", "file")
_CELL = "text-align: left; padding: 0.1em 1em 0.1em 0"


def _where(function) -> str:
    ctx = function._ctx
    cell = _cell_name(ctx.filename)
    return f"Cell {cell}, line {ctx.first_line}" if cell else f"{Path(ctx.filename).name}:{ctx.first_line}"


def _cell_name(filename: str) -> str | None:
    """'In[3]' when `filename` is a cell of the running IPython/Jupyter shell."""
    ipython = sys.modules.get("IPython")  # not imported: not in IPython
    shell = ipython.get_ipython() if ipython is not None else None
    format_code_name = getattr(getattr(shell, "compile", None), "format_code_name", None)
    if format_code_name is None:
        return None
    try:
        label = format_code_name(filename)
    except Exception:  # an IPython whose compiler differs: fall back to the file name
        return None
    return label[1] if label else None


def function_markdown(function) -> str:
    outputs = "1 output" if function.num_outputs == 1 else f"{function.num_outputs} outputs"
    lines = [f"**@pointwise** `{function.__name__}{function._signature}` ({outputs}), from `{_where(function)}`",
             "", f"dtype rule: {dtype_rule(function)}", ""]
    rows = _rows(function)
    if not rows:
        lines.append("No specializations generated in this process yet (a call generates one).")
        return "\n".join(lines)
    lines.append(f"{len(rows)} specialization{'s' if len(rows) != 1 else ''} in this process:")
    lines.append("")
    lines.append("| " + " | ".join(_HEADERS) + " |")
    lines.append("|" + "---|" * len(_HEADERS))
    for row in rows:
        cells = [*row[:-1], f"`{Path(row[-1]).name}`"]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def function_html(function) -> str:
    esc = html.escape
    outputs = "1 output" if function.num_outputs == 1 else f"{function.num_outputs} outputs"
    parts = [f"<div><b>@pointwise</b> <code>{esc(function.__name__ + str(function._signature))}</code> "
             f"({outputs}), from <code>{esc(_where(function))}</code><br>",
             f"dtype rule: {esc(dtype_rule(function))}</div>"]
    rows = _rows(function)
    if rows:
        parts.append(f"<div>{len(rows)} specialization{'s' if len(rows) != 1 else ''} in this process:</div>")
        parts.append("<table><tr>" + "".join(f"<th style='{_CELL}'>{h}</th>" for h in _HEADERS) + "</tr>")
        for row in rows:
            cells = [esc(cell) for cell in row[:-1]]
            cells.append(f"<code title='{esc(row[-1])}'>{esc(Path(row[-1]).name)}</code>")
            parts.append("<tr>" + "".join(f"<td style='{_CELL}'>{c}</td>" for c in cells) + "</tr>")
        parts.append("</table>")
    else:
        parts.append("<div>No specializations generated in this process yet (a call generates one).</div>")
    try:
        scalar_source = inspect.getsource(function.scalar_function)
    except (OSError, TypeError):
        scalar_source = None
    if scalar_source:
        parts.append(f"<details><summary>scalar source</summary>{highlight_html(scalar_source)}</details>")
    return "\n".join(parts)


# -- explain -------------------------------------------------------------------------------------

def explain(function, args, kwargs, out) -> Text:
    """How `function(*args, **kwargs, out=out)` is planned, in words."""
    plan, spec = function.plan(args, kwargs, out)
    already = spec in function.specializations
    rows: list[tuple[str, str]] = []

    def row(label, text):
        rows.append((label, text))

    by_value = {p.name for p in spec.params if p.by_value}
    for name, value in plan.kernel_values.items():
        if name in by_value:
            row(f"argument {name}", f"{dtype_name(value.dtype)} 0-d tensor in CPU memory, passed by value (the "
                                    f"kernel takes its value, {value.item()!r}, as a number, and does not "
                                    f"depend on it)")
        elif isinstance(value, torch.Tensor):
            kind = "0-d tensor" if plan.vtypes[name].priority == 1 else "tensor"
            row(f"argument {name}", f"{dtype_name(value.dtype)} {kind}, shape {tuple(value.shape)}, "
                                    f"strides {tuple(value.stride())}")
        elif isinstance(value, StridedView):
            row(f"argument {name}", f"{dtype_name(value.dtype)} StridedView, shape {tuple(value.shape)}, "
                                    f"strides {tuple(value.stride())}, offset {value.offset} (the kernel gets "
                                    f"a pointer to its first element)")
        else:
            row(f"argument {name}", f"Python {type(value).__name__} {value!r} (a kernel argument: "
                                    f"the kernel does not depend on its value)")
    numel = plan.numel
    row("broadcast", f"shape {tuple(plan.shape)}, {numel} element{'s' if numel != 1 else ''}")
    given = out is not None
    for operand in plan.outputs:
        tensor = operand.tensor
        how = "given by out=" if given else "allocated"
        row("output" if function.num_outputs == 1 else f"output {operand.label}",
            f"{dtype_name(tensor.dtype)}, {how}, strides {tuple(tensor.stride())}{_layout_note(plan, tensor, given)}")
    row("dtype rule", dtype_rule(function))
    row("coalesced", _coalesce_words(plan))
    for operand in plan.inputs + plan.outputs:
        row("", f"{operand.label} strides {tuple(operand.strides)}")
    labels = [o.label for o in plan.inputs + plan.outputs]
    for first, second in spec.paired:  # Specialization.paired
        row("paired", f"{labels[first]} and {labels[second]}: {labels[second]}'s elements one past "
                      f"{labels[first]}'s, at a stride of {PAIR_STRIDE}; moved with one access of both (where the "
                      f"pointers pair them on a launch)")
    if spec.index_dtype == torch.int32:
        row("index width", "int32: the element count and every operand's offsets fit in int32")
    else:
        row("index width", "int64: the element count or some operand's offsets do not fit in int32")
    row("runs on", _runs_on(plan, spec, function._costly_calls, function._wide_threads, function._heavy_math))
    row("kernel key", _key_words(spec))
    if numel == 0:
        row("module", "none: a call with no elements launches nothing")
    else:
        _, path = function.module_for(spec)
        row("module", str(path))
        row("", "already generated in this process" if already else "generated now (first use in this process)")
    width = max(len(label) for label, _ in rows) + 2
    lines = [f"{function.__name__}{function._signature}: how this call is planned"]
    lines += [f"  {label:<{width}}{text}" for label, text in rows]
    return Text("\n".join(lines) + "\n")


def _coalesce_words(plan) -> str:
    shape, sizes = tuple(plan.shape), tuple(plan.sizes)
    dropped = sum(1 for n in shape if n == 1)
    merges = len(shape) - dropped - len(sizes)
    how = []
    if dropped:
        how.append(f"{dropped} size-1 dim{'s' if dropped != 1 else ''} dropped")
    if merges > 0:
        how.append(f"{merges} merge{'s' if merges != 1 else ''} of neighbouring dims contiguous in every operand")
    if len(shape) - dropped == 0:
        how = ["a single element"]
    return f"rank {len(sizes)}, sizes {sizes} outermost first (from rank {len(shape)}: {', '.join(how) or 'nothing to merge'})"


def _layout_note(plan, tensor, given) -> str:
    if given or tensor.dim() < 2 or plan.numel == 0:
        return ""
    order = sorted(range(tensor.dim()), key=lambda d: (tensor.stride(d), -d))
    if order == list(range(tensor.dim() - 1, -1, -1)):
        return " (row-major)"
    return f" (dims innermost first {tuple(order)}: the inputs' memory order, as TensorIterator does)"


def _runs_on(plan, spec, costly_calls: int = 0, wide_threads: bool = False, heavy_math: bool = False) -> str:
    launch = ""
    if plan.numel > 0:
        edges = f"tiles of {' x '.join(map(str, plan.blocks))}" if spec.tile else f"BLOCK {plan.blocks[0]}"
        grid = call.launch_grid(plan, spec.tile, spec.two_dimensional_grid)
        launch = f"; {edges}, grid ({', '.join(map(str, grid))}{',' if len(grid) == 1 else ''})"
        if spec.two_dimensional_grid:
            launch += " (tiles along the inner run, rows of tiles)"
        if spec.unmasked:
            launch += " covering the elements exactly, so no masks"
        elif spec.masks_last_block_only:
            launch += "; whole blocks load and store without a mask, only the last block is masked"
        if plan.device.type == "cuda" and spec.tile and not call.tile_vectors(
                plan.sizes, spec.tile, [o.strides for o in plan.inputs + plan.outputs]):
            launch += ("; no vector loads in these tiles (a stride between their lines or a side they walk is not a "
                       "multiple of 16), so 4096-element tiles (64 x 64 for 16-bit operands, 32 x 128 for wider ones) only "
                       "from a wave of them, else 32 x 32")
        if plan.device.type == "cuda" and spec.tile and costly_calls:
            launch += (f"; {costly_calls} costly math calls per element (exp, sin, ...), so tiles sized for "
                       f"the math: 32 x 16 with 2 warps for operands wider than 16 bits, 32 x 32 with 4 (32 x 64 "
                       f"from a wave of 4096-element tiles) for 16-bit ones" if costly_calls >= call.HEAVY_MATH_CALLS
                       else "; a costly math call per element (exp, sin, ...), so tiles of at most 32 x 32 for "
                            "operands wider than 16 bits, and 64 x 64 with 8 warps for 16-bit ones only from a "
                            "quarter wave of them")
        if plan.device.type == "cuda" and not spec.tile and heavy_math:
            launch += (f" ({plan.blocks[0] // (32 * plan.warps)} elements a thread: it calls a composite that keeps "
                       f"many values live, math_table.HEAVY_ROWS)")
        dense = flat_indexed_labels(spec)
        if dense:
            launch += (f"; {', '.join(dense)} {'is' if len(dense) == 1 else 'are'} dense in the walk's order, so "
                       f"addressed by the flat index (vector accesses across rows)")
    if plan.device.type == "cuda":
        kept = "; its loads ask the L2 to keep their lines (evict_last)" if spec.evict_last else ""
        if spec.max_registers:
            kept += (f"; ptxas held to {spec.max_registers} registers a thread (maxnreg): the branch that blocks "
                     f"of small arguments skip would otherwise set the blocks an SM holds")
        if spec.dependent_launch:
            kept += ("; launched as a programmatic dependent (PDL) of the kernel before it, whose writes it "
                     "waits for before its first load")
            if not spec.tile and plan.numel:
                moved = plan.moved_bytes / plan.numel * plan.blocks[0]
                per_thread = plan.blocks[0] // (32 * plan.warps)
                kept += (f"; a block moves {moved / 1024:.1f} KiB (such programs start at most about one per "
                         f"1.25 ns, so a flat block grows to move {call.DEPENDENT_PROGRAM_BYTES // 1024} KiB), "
                         f"{per_thread} elements a thread")
                if wide_threads and per_thread > 8:
                    kept += " (its math gains from more of them: math_table.WIDE_THREAD_ROWS)"
        return (f"{plan.device}, compiled by Triton (at the first launch of this specialization){launch}, "
                f"{plan.warps} warps{kept}")
    return f"the CPU, through Triton's interpreter{launch}"


def _key_words(spec) -> str:
    outs = ", ".join(dtype_name(d) for d in spec.out_dtypes)
    return (f"rank {spec.rank}; {describe_params(spec)}; outputs {outs}; {dtype_name(spec.index_dtype)} indexing; "
            f"{spec.device_type}")

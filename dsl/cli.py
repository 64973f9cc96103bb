"""The command line: `python -m tritonize` and the `tritonize` script.

    tritonize demo                                   run the demo
    tritonize show MODULE:FUNC --shape 4,5 --dtype float32
    tritonize cache path|list|clear
    tritonize ops                                    the op library and the aten overloads it serves

Commands import torch and compile only when they run, so `--help` is quick.
"""
from __future__ import annotations

import argparse
import ast
import functools
import importlib
import importlib.util
import os
import re
import sys
from pathlib import Path

EPILOG = "Each command has its own --help. Generated modules live in `tritonize cache path`."


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except BrokenPipeError:  # `tritonize cache list | head`: the reader has gone; say no more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tritonize", epilog=EPILOG,
                                     description="Element-wise Triton kernels from plain-Python scalar functions.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser(
        "demo", help="define @pointwise functions, run them and check them against torch",
        description="Define @pointwise functions (if/else, a helper, two outputs), run them on the GPU if there "
                    "is one and else on the CPU through Triton's interpreter, check them against torch, and print "
                    "the generated code of one.")
    demo.set_defaults(run=run_demo)

    show = commands.add_parser(
        "show", help="print the generated module of a @pointwise function for given shapes and dtypes",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Print the module that a call of a @pointwise function generates, for tensors of the given "
                    "shapes and dtypes\n(zeros; only their shapes, strides and dtypes matter).\n\n"
                    "examples:\n"
                    "  tritonize show tritonize.demo:gelu --shape 4,5 --dtype float32\n"
                    "  tritonize show my_ops.py:gelu_and_mul --shape x=64,1,8 --shape y=8 --dtype bfloat16\n"
                    "  tritonize show tritonize.demo:softplus --scalar beta=2.0 --explain")
    show.add_argument("target", metavar="MODULE:FUNC",
                      help="an importable module (or a path to a .py file) and a @pointwise function in it")
    show.add_argument("--shape", action="append", default=[], metavar="[NAME=]SIZES",
                      help="tensor shape, comma separated (default 4,5); NAME= sets one parameter's; "
                           "an empty shape (NAME=) is a 0-d tensor")
    show.add_argument("--dtype", action="append", default=[], metavar="[NAME=]DTYPE",
                      help="tensor dtype: float32 (default), bfloat16, int64, bool, ... or f32, bf16, i64, b1; "
                           "NAME= sets one parameter's")
    show.add_argument("--scalar", action="append", default=[], metavar="NAME=VALUE",
                      help="pass a Python number for a parameter (parameters annotated float/int/bool take their "
                           "default, else 1)")
    show.add_argument("--device", help="cuda or cpu (default: cuda if there is a GPU, else cpu)")
    what = show.add_mutually_exclusive_group()
    what.add_argument("--explain", action="store_true", help="print how the call is planned instead")
    what.add_argument("--path", action="store_true", help="print only the module's file")
    show.set_defaults(run=run_show)

    cache = commands.add_parser("cache", help="the cache of generated modules: path, list, clear",
                                description="The directory of generated modules: $TRITONIZE_CACHE_DIR, else "
                                            "$XDG_CACHE_HOME/tritonize, else ~/.cache/tritonize.")
    actions = cache.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("path", help="print the cache directory",
                       description="Print the cache directory.").set_defaults(run=run_cache_path)
    listing = actions.add_parser("list", help="each module with its function, rank, dtypes and size",
                                 description="List the generated modules: function, rank, argument and output "
                                             "dtypes, index width, device, size and file.")
    listing.add_argument("--function", metavar="NAME", help="only this function's modules")
    listing.set_defaults(run=run_cache_list)
    clear = actions.add_parser("clear", help="delete the generated modules",
                               description="Delete the modules tritonize generated (other files in the directory "
                                           "are left alone). Triton's compiled binaries live in Triton's own "
                                           "cache, not here.")
    clear.add_argument("--function", metavar="NAME", help="only this function's modules")
    clear.set_defaults(run=run_cache_clear)

    ops = commands.add_parser("ops", help="list the op library and the aten overloads it serves",
                              description="List the functions of tritonize.ops and the aten overloads each "
                                          "serves under tritonize.enable().")
    ops.set_defaults(run=run_ops)
    return parser


# -- demo ----------------------------------------------------------------------------------------

def run_demo(args) -> int:
    from tritonize.demo import main as demo

    return demo()


# -- show ----------------------------------------------------------------------------------------

class UsageError(Exception):
    """A command line that names something that is not there; printed without a traceback."""


def run_show(args) -> int:
    import tritonize

    try:
        function = load_function(args.target)
        call_args = example_arguments(function, args.shape, args.dtype, args.scalar, args.device)
        if args.explain:
            text = function.explain(**call_args)
        elif args.path:
            text = f"{function.source_path(**call_args)}\n"
        else:
            text = function.source(**call_args)
    except UsageError as exc:
        print(f"tritonize show: error: {exc}", file=sys.stderr)
        return 2
    # a refusal: the decorator's (of a function in the target's file) or the call's
    except (tritonize.DSLError, tritonize.CallError) as exc:
        print(f"tritonize show: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    return 0


def load_function(target: str):
    """`package.module:name` or `path/to/file.py:name` -> the @pointwise function."""
    from tritonize import PointwiseFunction

    where, sep, attr = target.rpartition(":")
    if not sep or not where or not attr:
        raise UsageError(f"expected MODULE:FUNC (like tritonize.demo:gelu or my_ops.py:gelu), got {target!r}")
    try:
        if where.endswith(".py") or os.sep in where or "/" in where:
            module = _import_file(Path(where))
        else:
            if "" not in sys.path and os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())  # like `python -m`: modules in this directory import
            module = importlib.import_module(where)
    except (ImportError, OSError) as exc:
        raise UsageError(f"cannot import {where!r}: {exc}") from None
    try:
        found = functools.reduce(getattr, attr.split("."), module)
    except AttributeError:
        raise UsageError(f"{where!r} has no {attr!r}") from None
    if not isinstance(found, PointwiseFunction):
        raise UsageError(f"{target} is a {type(found).__name__}, not a @pointwise function")
    return found


def _import_file(path: Path):
    if not path.is_file():
        raise OSError(f"no such file: {path}")
    sys.path.insert(0, str(path.resolve().parent))  # its neighbours import as they would for the script
    name = f"tritonize_cli_{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _per_param(options: list[str], what: str, params: list[str]) -> tuple[str | None, dict]:
    """['4,5', 'y=8'] -> ('4,5', {'y': '8'}): a default and per-parameter values."""
    default, named = None, {}
    for option in options:
        name, sep, value = option.partition("=")
        if sep and name.isidentifier():
            if name not in params:
                raise UsageError(f"--{what} {option}: no parameter {name!r}; parameters: {', '.join(params)}")
            named[name] = value
        else:
            default = option
    return default, named


def parse_shape(text: str) -> tuple:
    text = text.strip().strip("()[]").replace("x", ",")
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise UsageError(f"a shape is sizes separated by commas, like 4,5; got {text!r}") from None


def parse_dtype(text: str):
    import torch

    from tritonize.passes.type_rules import SHORT_NAMES

    short = {v: k for k, v in SHORT_NAMES.items()}
    dtype = short.get(text) or getattr(torch, text.removeprefix("torch."), None)
    if not isinstance(dtype, torch.dtype):
        raise UsageError(f"unknown dtype {text!r}; try float32, float16, bfloat16, float64, int32, int64, bool")
    return dtype


def example_arguments(function, shapes: list, dtypes: list, scalars: list, device: str | None) -> dict:
    """One zero tensor (or Python number) per parameter, as `show` describes."""
    import torch

    params = list(function._params)
    default_shape, named_shapes = _per_param(shapes, "shape", params)
    default_dtype, named_dtypes = _per_param(dtypes, "dtype", params)
    numbers = {}
    for option in scalars:
        name, sep, value = option.partition("=")
        if not sep or name not in params:
            raise UsageError(f"--scalar {option}: expected NAME=VALUE with NAME one of {', '.join(params)}")
        try:
            numbers[name] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            raise UsageError(f"--scalar {option}: {value!r} is not a Python number") from None
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    try:
        kind = torch.device(device).type
    except RuntimeError:
        raise UsageError(f"--device {device}: not a device; use cuda or cpu") from None
    if kind == "cuda" and not torch.cuda.is_available():
        raise UsageError(f"--device {device}: this machine has no CUDA GPU (try --device cpu)")
    annotated = function._ctx.scalar_annotations
    defaults = {name: p.default for name, p in function._signature.parameters.items()
                if p.default is not p.empty}
    values = {}
    for name in params:
        if name in numbers:
            values[name] = numbers[name]
        elif name in annotated or (name in defaults and name not in named_shapes and name not in named_dtypes):
            values[name] = defaults.get(name, annotated.get(name, float)(1))
        else:
            shape = parse_shape(named_shapes.get(name, default_shape or "4,5"))
            dtype = parse_dtype(named_dtypes.get(name, default_dtype or "float32"))
            values[name] = torch.zeros(shape, dtype=dtype, device=device)
    return values


# -- cache ---------------------------------------------------------------------------------------

MODULE_NAME = re.compile(r"^(?P<function>.+)_rank(?P<rank>\d+)_.*_(?P<hash>[0-9a-f]{16})\.py$")
HEADER = "# Generated by tritonize"


def run_cache_path(args) -> int:
    from tritonize.cache import cache_dir

    print(cache_dir())
    return 0


def cached_modules(directory: Path) -> list[dict]:
    """The modules tritonize generated in `directory`, described from their header comments."""
    found = []
    for path in sorted(directory.glob("*.py")) if directory.is_dir() else []:
        match = MODULE_NAME.match(path.name)
        try:
            with path.open() as handle:
                head = [handle.readline() for _ in range(3)]
        except (OSError, UnicodeDecodeError):
            continue
        if match is None or not head[0].startswith(HEADER):
            continue
        found.append({"path": path, "size": path.stat().st_size, **describe_header(head, match)})
    return found


def describe_header(head: list[str], match) -> dict:
    """Function, rank, dtypes, index width and device from a module's first lines:
    `# source: file.py:12  gelu()` and `# specialization: rank 1, x: float32 tensor; ...`."""
    info = {"function": match["function"], "rank": match["rank"], "dtypes": "?", "index": "?", "device": "?",
            "source": ""}
    source = re.match(r"# source: (?P<where>.*)\s+(?P<function>[\w.<>]+)\(\)\s*$", head[1])
    if source:
        info["function"], info["source"] = source["function"], Path(source["where"].strip()).name
    spec = re.match(r"# specialization: rank (?P<rank>\d+), (?P<rest>.*)$", head[2].rstrip("\n"))
    if spec:
        # params; outputs: ...; <index> indexing; <device>[; what else the kernel does]
        parts = spec["rest"].split("; ")
        at_outputs = next((k for k, p in enumerate(parts) if p.startswith("outputs: ")), None)
        at_index = next((k for k, p in enumerate(parts) if p.endswith(" indexing")), None)
        params = [p for p in parts[:at_outputs] if p]
        arguments = ", ".join(_short_param(p) for p in params) or "no arguments"
        info["rank"] = spec["rank"]
        outputs = parts[at_outputs].removeprefix("outputs: ") if at_outputs is not None else "?"
        info["dtypes"] = f"{arguments} -> {outputs}"
        if at_index is not None:
            info["index"] = parts[at_index].removesuffix(" indexing")
            info["device"] = parts[at_index + 1] if at_index + 1 < len(parts) else "?"
        elif parts:
            info["device"] = parts[-1]
    return info


def _short_param(text: str) -> str:
    """'x: float32 tensor' -> 'x: float32'; 'x: float32 0-d tensor' -> 'x: float32 (0-d)';
    'beta: float Python number' -> 'beta: float'."""
    return (text.replace(" 0-d tensor", " (0-d)").removesuffix(" tensor").removesuffix(" Python number"))


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB"):
        if n < 1024 or unit == "MiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def run_cache_list(args) -> int:
    from tritonize.cache import cache_dir

    directory = cache_dir()
    modules = [m for m in cached_modules(directory) if args.function in (None, m["function"])]
    total = sum(m["size"] for m in modules)
    what = f" of {args.function}" if args.function else ""
    print(f"{directory}: {len(modules)} module{'s' if len(modules) != 1 else ''}{what}, {_size(total)}")
    if not modules:
        return 0
    columns = [("FUNCTION", lambda m: m["function"]), ("SOURCE", lambda m: m["source"]),
               ("RANK", lambda m: m["rank"]), ("DTYPES", lambda m: m["dtypes"]),
               ("INDEX", lambda m: m["index"]), ("DEVICE", lambda m: m["device"]),
               ("SIZE", lambda m: _size(m["size"])), ("FILE", lambda m: m["path"].name)]
    rows = [[title for title, _ in columns]]
    rows += [[str(cell(m)) for _, cell in columns]
             for m in sorted(modules, key=lambda m: (m["function"], int(m["rank"]), m["path"].name))]
    widths = [max(len(row[k]) for row in rows) for k in range(len(columns))]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    return 0


def run_cache_clear(args) -> int:
    from tritonize.cache import cache_dir

    directory = cache_dir()
    modules = [m for m in cached_modules(directory) if args.function in (None, m["function"])]
    removed = 0
    for module in modules:
        try:
            module["path"].unlink()
            removed += module["size"]
        except FileNotFoundError:
            pass
        for compiled in (directory / "__pycache__").glob(f"{module['path'].stem}.*.pyc"):
            compiled.unlink(missing_ok=True)
    if args.function is None and directory.is_dir():
        for leftover in directory.glob(".*.tmp"):  # interrupted atomic writes
            leftover.unlink(missing_ok=True)
    what = f" of {args.function}" if args.function else ""
    print(f"removed {len(modules)} module{'s' if len(modules) != 1 else ''}{what} ({_size(removed)}) from {directory}")
    return 0


# -- ops -----------------------------------------------------------------------------------------

def run_ops(args) -> int:
    try:
        from tritonize.ops.registry import TABLE
    except ImportError:
        print("no op library is installed: tritonize.ops has no registration table")
        return 0
    served: dict = {}  # tritonize.ops function -> the aten overloads it serves
    for overload, fn in TABLE.items():
        served.setdefault(fn.__name__, []).append(f"aten::{overload}")
    rows = op_rows(served)
    overloads = sum(len(aten) for _, aten in rows)
    print(f"tritonize.ops: {len(rows)} op{'s' if len(rows) != 1 else ''}, serving {overloads} aten overload"
          f"{'s' if overloads != 1 else ''} under tritonize.enable()")
    width = max((len(name) for name, _ in rows), default=0)
    for name, aten in rows:
        print(f"  {name.ljust(width)}  {', '.join(aten) if aten else '-'}")
    return 0


def op_rows(listing) -> list[tuple[str, list[str]]]:
    """(op name, aten overloads) from what registered_ops() returns: a mapping of names to
    overloads, or a sequence of names, (name, overloads) pairs or objects with `name` and
    `aten`/`overloads` attributes."""
    if isinstance(listing, dict):
        items = list(listing.items())
    else:
        items = []
        for entry in listing:
            if isinstance(entry, str):
                items.append((entry, ()))
            elif isinstance(entry, (tuple, list)) and entry:
                items.append((entry[0], entry[1] if len(entry) == 2 else entry[1:]))
            else:
                items.append((entry, None))
    rows = []
    for name, aten in items:
        if aten is None or not isinstance(name, str):
            entry = name
            name = getattr(entry, "name", None) or getattr(entry, "__name__", None) or str(entry)
            aten = next((getattr(entry, a) for a in ("aten", "overloads", "aten_overloads")
                         if getattr(entry, a, None) is not None), ())
        if isinstance(aten, str):
            aten = [aten]
        rows.append((str(name), [str(a) for a in aten]))
    return rows

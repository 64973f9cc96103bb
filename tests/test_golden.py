"""Golden generated modules: unary, broadcast binary, if/else, helper, two outputs, and a rotation of
the even and odd elements of rows with a gap after each (paired operands, a decoded walk).

Refresh after an intended change with `TRITONIZE_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py`
and read the diff. Generated for CUDA (libdevice), so the files show what a GPU runs; the
source path in each header is reduced to the file name.
"""
from __future__ import annotations

import ast
import dataclasses
import os
import re
from pathlib import Path

import pytest
import torch

import golden_functions as g
from tritonize import pointwise
from tritonize.passes import generate_module

GOLDEN = Path(__file__).parent / "golden"

CASES = {
    "unary": (g.unary, lambda: (torch.randn(4, 5),)),
    "broadcast_binary": (g.broadcast_binary, lambda: (torch.randn(4, 5), torch.randn(5))),
    "if_else": (g.if_else, lambda: (torch.randn(6).half(), 2.0)),
    "helper": (g.helper, lambda: (torch.randn(3, 4).t(), torch.randn(4, 3))),
    "two_outputs": (g.two_outputs, lambda: (torch.randint(-9, 9, (8,), dtype=torch.int32), 3)),
    "paired_rotation": (g.rotation, lambda: _halves_of_rows(torch.randn(4, 20)[:, :16]) + (torch.randn(4, 8),) * 2),
}


def _halves_of_rows(rows):
    return rows[:, ::2], rows[:, 1::2]


def generated(name) -> str:
    fn, make_args = CASES[name]
    compiled = pointwise(fn)
    _, spec = compiled.plan(make_args(), {}, None)
    spec = dataclasses.replace(spec, device_type="cuda")
    source = generate_module(compiled._ctx, spec, "GOLDEN")
    return re.sub(r"(# source: )\S*/", r"\1", source)


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_module(name):
    path = GOLDEN / f"{name}.py"
    source = generated(name)
    if os.environ.get("TRITONIZE_UPDATE_GOLDEN"):
        path.write_text(source)
    assert path.exists(), f"no golden file {path}; run with TRITONIZE_UPDATE_GOLDEN=1"
    assert source == path.read_text()


@pytest.mark.parametrize("name", sorted(CASES))
def test_generated_module_imports_only_what_it_reads(name):
    """A reader of ~/.cache/tritonize sees no unused import: libdevice only where the kernel calls it."""
    for device_type in ("cuda", "cpu"):
        fn, make_args = CASES[name]
        compiled = pointwise(fn)
        _, spec = compiled.plan(make_args(), {}, None)
        tree = ast.parse(generate_module(compiled._ctx, dataclasses.replace(spec, device_type=device_type), "GOLDEN"))
        imported = {(alias.asname or alias.name).split(".")[0] for node in ast.walk(tree)
                    if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
        read = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        assert imported - read == set(), (device_type, imported - read)
    uses_libdevice = "libdevice." in generated(name)
    assert ("from triton.language.extra import libdevice" in generated(name)) == uses_libdevice


def test_several_outputs_are_all_computed_before_the_first_store():
    """A kernel with several outputs of 32 bits or more assigns each output's value before any
    store, in both branches of a flat walk's whole-block split and in a tile: a store between
    them kept more registers live (passes/build_kernel.py's stores). 16-bit ones do not."""
    flat = CASES["two_outputs"][1]()
    tiled = (torch.randint(-9, 9, (6, 7), dtype=torch.int32).t(), torch.full((7, 6), 3, dtype=torch.int32))
    for args, walks in ((flat, 2), (tiled, 1)):
        compiled = pointwise(g.two_outputs)
        _, spec = compiled.plan(args, {}, None)
        assert (spec.tile is not None) == (walks == 1)
        tree = ast.parse(generate_module(compiled._ctx, dataclasses.replace(spec, device_type="cuda"), "GOLDEN"))
        kernel = next(node for node in tree.body
                      if isinstance(node, ast.FunctionDef) and node.name.endswith("_kernel"))
        bodies = [kernel.body] + [b for node in ast.walk(kernel) if isinstance(node, ast.If)
                                  for b in (node.body, node.orelse)]
        checked = 0
        for body in bodies:
            stores = [i for i, s in enumerate(body)
                      if isinstance(s, ast.Expr) and ast.unparse(s).startswith("tl.store")]
            values = [i for i, s in enumerate(body)
                      if isinstance(s, ast.Assign) and ast.unparse(s.targets[0]) in ("out0", "out1")]
            if stores:
                assert len(stores) == 2 and len(values) == 2 and max(values) < min(stores), ast.unparse(body)
                assert [ast.unparse(body[i].value.args[1]) for i in stores] == ["out0", "out1"]
                checked += 1
        assert checked == walks, ast.unparse(kernel)
    # 16-bit outputs are stored as they are computed: that order was faster for them on an H100
    compiled = pointwise(g.two_outputs)
    _, spec = compiled.plan((torch.randn(8).bfloat16(), 3.0), {}, None)
    assert spec.out_dtypes == (torch.bfloat16, torch.bfloat16)
    tree = ast.parse(generate_module(compiled._ctx, dataclasses.replace(spec, device_type="cuda"), "GOLDEN"))
    assigned = {ast.unparse(t) for node in ast.walk(tree) if isinstance(node, ast.Assign) for t in node.targets}
    assert not assigned & {"out0", "out1"}

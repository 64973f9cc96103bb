"""The command line as a person runs it: `python -m tritonize ...` (and the `tritonize` script)
in a subprocess with a private cache directory, its output checked.

Each subprocess pays about 2.5 s importing torch, so the commands that do not depend on each
other start together when the module's first test runs and are read by later tests.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest
import torch

from tritonize.cli import describe_header, main, op_rows
from conftest import DEVICE

TRITONIZE = [sys.executable, "-m", "tritonize"]


def _env(cache: Path) -> dict:
    return dict(os.environ, TRITONIZE_CACHE_DIR=str(cache), PYTHONUNBUFFERED="1")


def start(argv, cache: Path, command=TRITONIZE, cwd=None) -> subprocess.Popen:
    return subprocess.Popen([*command, *argv], env=_env(cache), cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def run(argv, cache: Path, cwd=None) -> subprocess.CompletedProcess:
    process = start(argv, cache, cwd=cwd)
    stdout, stderr = process.communicate(timeout=300)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


class Background:
    """Commands running side by side; `result(name)` waits for one. Under pytest-xdist the
    tests that read them may land on different workers, so each starts when first read."""

    def __init__(self, commands: dict, eager: bool):
        self.commands, self.processes, self.done = commands, {}, {}
        if eager:
            for name in commands:
                self.start(name)

    def start(self, name):
        if name not in self.processes and self.commands[name] is not None:
            argv, cache, command = self.commands[name]
            self.processes[name] = start(argv, cache, command=command)

    def result(self, name) -> subprocess.CompletedProcess | None:
        if name not in self.done:
            self.start(name)
            process = self.processes.get(name)
            if process is None:
                return None
            stdout, stderr = process.communicate(timeout=300)
            self.done[name] = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
        return self.done[name]

    def stop(self):
        for process in self.processes.values():
            if process.poll() is None:
                process.kill()
                process.communicate()


@pytest.fixture(scope="module")
def background(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cli-cache")
    script = Path(sys.executable).parent / "tritonize"
    runner = Background({
        "help": (["--help"], cache, TRITONIZE),
        "ops": (["ops"], cache, TRITONIZE),
        "demo": (["demo"], cache, TRITONIZE),
        "script": (["cache", "path"], cache, [str(script)]) if script.exists() else None,
    }, eager="PYTEST_XDIST_WORKER" not in os.environ)
    yield runner
    runner.stop()


def test_help_lists_every_command(background):
    result = background.result("help")
    assert result.returncode == 0, result.stderr
    for command in ("demo", "show", "cache", "ops"):
        assert f"    {command} " in result.stdout
    assert "usage: tritonize" in result.stdout


@pytest.mark.parametrize("argv, expected", [
    (["demo"], "GPU if there is one"),
    (["show"], "--shape [NAME=]SIZES"),
    (["cache"], "path      print the cache directory"),
    (["cache", "path"], "Print the cache directory"),
    (["cache", "list"], "--function NAME"),
    (["cache", "clear"], "Triton's compiled binaries"),
    (["ops"], "aten overloads"),
])
def test_each_command_has_help(argv, expected, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--help"])
    assert exit_.value.code == 0
    assert expected in capsys.readouterr().out


MY_OPS = '''
from tritonize import pointwise


@pointwise
def scale_add(x, y, alpha: float = 2.0):
    return x + alpha * y
'''


def test_show_then_cache_list_then_clear(tmp_path):
    cache = tmp_path / "cache"
    shown = run(["show", "tritonize.demo:gelu", "--shape", "4,5", "--dtype", "float32"], cache)
    assert shown.returncode == 0, shown.stderr
    files = list(cache.glob("gelu_rank1_f32_*.py"))
    assert len(files) == 1
    assert shown.stdout == files[0].read_text()
    assert "# specialization: rank 1, x: float32 tensor; outputs: float32; int32 indexing" in shown.stdout
    assert "@triton.jit" in shown.stdout

    (tmp_path / "my_ops.py").write_text(MY_OPS)
    path = run(["show", "my_ops.py:scale_add", "--shape", "x=3,1,4", "--shape", "y=4", "--dtype", "bf16",
                "--device", DEVICE, "--path"], cache, cwd=tmp_path)
    assert path.returncode == 0, path.stderr
    module = Path(path.stdout.strip())
    assert module.parent == cache and module.name.startswith("scale_add_rank2_bf16_")

    (cache / "notes.txt").write_text("not a generated module")
    listed = run(["cache", "list"], cache)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].startswith(f"{cache}: 2 modules, ")
    assert lines[1].split() == ["FUNCTION", "SOURCE", "RANK", "DTYPES", "INDEX", "DEVICE", "SIZE", "FILE"]
    gelu_row = next(line for line in lines if line.startswith("gelu "))
    assert "demo.py:" in gelu_row and "x: float32 -> float32" in gelu_row and files[0].name in gelu_row
    assert gelu_row.split()[2] == "1" and re.search(r" \d+(\.\d+)? (B|KiB) ", gelu_row)  # a CUDA module can be < 1 KiB
    scale_row = next(line for line in lines if line.startswith("scale_add "))
    assert "my_ops.py:" in scale_row and "x: bfloat16, y: bfloat16, alpha: float -> bfloat16" in scale_row
    assert scale_row.split()[2] == "2" and module.name in scale_row

    cleared = run(["cache", "clear"], cache)
    assert cleared.returncode == 0, cleared.stderr
    assert cleared.stdout.startswith("removed 2 modules (")
    assert not list(cache.glob("*.py"))
    assert (cache / "notes.txt").exists()  # only what tritonize generated is removed


def test_cache_list_reads_headers_of_kernels_that_say_more():
    """What a kernel does besides (broadcast dims, approximations, evict_last) follows the device
    in its header; the listing's columns stay the params, outputs, index width and device."""
    head = ["# Generated by tritonize 0.1.0; do not edit (regenerated from the source).\n",
            "# source: /home/me/my_ops.py:6  scale_add()\n",
            "# specialization: rank 2, x: bfloat16 tensor; y: bfloat16 tensor; alpha: float Python number; "
            "outputs: bfloat16; int32 indexing; cuda; y broadcast along dim 0; approximate division, equal to "
            "the exact kernel on every input; loads kept in L2 (evict_last); no masks (the blocks cover the tasks "
            "exactly)\n"]
    info = describe_header(head, {"function": "?", "rank": "?"})
    assert info == {"function": "scale_add", "source": "my_ops.py:6", "rank": "2", "index": "int32", "device": "cuda",
                    "dtypes": "x: bfloat16, y: bfloat16, alpha: float -> bfloat16"}


def test_cache_path_through_the_tritonize_script(background, tmp_path):
    result = background.result("script")
    if result is None:
        pytest.skip("no `tritonize` script beside this interpreter (not pip-installed)")
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()).name == "cli-cache0"


def test_ops_lists_the_library_and_its_aten_overloads(background):
    import tritonize

    result = background.result("ops")
    assert result.returncode == 0, result.stderr
    overloads = len(tritonize.registered_ops())
    assert result.stdout.startswith("tritonize.ops: ") and f"serving {overloads} aten overloads" in result.stdout
    gelu = next(line for line in result.stdout.splitlines() if line.split()[0] == "gelu")
    assert "aten::gelu" in gelu and "aten::gelu.out" in gelu


def test_demo_runs_and_checks_against_torch(background):
    result = background.result("demo")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("\n  ok   ") == 4 and "FAIL" not in result.stdout
    assert "generated code for gelu(x): " in result.stdout and "@triton.jit" in result.stdout


# -- in-process: error messages and the ops listing ----------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["show", "tritonize.demo"], "expected MODULE:FUNC"),
    (["show", "tritonize.demo:nothing"], "'tritonize.demo' has no 'nothing'"),
    (["show", "tritonize.demo:math"], "is a module, not a @pointwise function"),
    (["show", "no_such_module_here:f"], "cannot import 'no_such_module_here'"),
    (["show", "tritonize.demo:gelu", "--shape", "y=3"], "no parameter 'y'; parameters: x"),
    (["show", "tritonize.demo:gelu", "--dtype", "float7"], "unknown dtype 'float7'"),
    (["show", "tritonize.demo:gelu", "--shape", "4,a"], "a shape is sizes separated by commas"),
])
def test_show_usage_errors(argv, message, capsys, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))  # show puts the working directory on it
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_show_device_errors(capsys):
    assert main(["show", "tritonize.demo:gelu", "--device", "abacus"]) == 2
    assert "--device abacus: not a device" in capsys.readouterr().err
    if not torch.cuda.is_available():
        assert main(["show", "tritonize.demo:gelu", "--device", "cuda"]) == 2
        assert "this machine has no CUDA GPU" in capsys.readouterr().err


def test_show_refusal_from_the_compiler(capsys):
    assert main(["show", "tritonize.demo:gelu_and_mul", "--shape", "x=3", "--shape", "y=4", "--device", "cpu"]) == 1
    assert "BroadcastError: shapes do not broadcast" in capsys.readouterr().err


def test_show_refusal_of_the_targets_file(tmp_path, capsys, monkeypatch):
    """A file whose @pointwise function the decorator refuses: the refusal (file, line, column,
    caret), not a traceback through the command's own frames."""
    monkeypatch.setattr(sys, "path", list(sys.path))  # show puts the file's directory on it
    target = tmp_path / "refused_ops.py"
    target.write_text(textwrap.dedent("""
        from tritonize import pointwise

        @pointwise
        def f(x):
            return x.exp()
    """))
    assert main(["show", f"{target}:f", "--shape", "3", "--device", "cpu"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tritonize show: UnsupportedCall: ") and f"{target}:6:12:" in err, err
    assert "x.exp()" in err and "Traceback" not in err, err


def test_show_explain(capsys):
    assert main(["show", "tritonize.demo:softplus", "--scalar", "beta=2", "--explain", "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert "argument beta" in out and "Python float 2.0" in out and "module" in out


def test_ops_listing_shapes(monkeypatch, capsys):
    entry = types.SimpleNamespace(name="gelu", aten=["aten::gelu", "aten::gelu.out"])
    assert op_rows({"add": ["aten::add.Tensor"], "neg": "aten::neg"}) == [
        ("add", ["aten::add.Tensor"]), ("neg", ["aten::neg"])]
    assert op_rows([entry, ("silu", ("aten::silu",)), "relu"]) == [
        ("gelu", ["aten::gelu", "aten::gelu.out"]), ("silu", ["aten::silu"]), ("relu", [])]
    import tritonize.ops.registry

    def gelu():
        pass

    monkeypatch.setattr(tritonize.ops.registry, "TABLE", {"gelu": gelu, "gelu.out": gelu})
    assert main(["ops"]) == 0
    assert capsys.readouterr().out == ("tritonize.ops: 1 op, serving 2 aten overloads under tritonize.enable()\n"
                                       "  gelu  aten::gelu, aten::gelu.out\n")

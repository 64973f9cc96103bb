"""What does the GPU run for an op, with no GPU at hand? The CUDA kernel tritonize generates for
tritonize.ops.OP on contiguous 1-D tensors (as many as it takes, of one dtype; host_python_cpu's stand-in
CUDA device: the module is generated and imported as on a GPU, nothing launched), compiled for sm_90 by
Triton's own ptxas with the block, warps and options the call would launch with, and read back with
cuobjdump: registers, stack (spills and the frames of calls to slow paths), SASS instructions per element
and the most frequent opcodes. A kernel's instructions count both sides of its block-uniform branches
(portable_any, portable_sides), which a block may skip. The local Triton's ptxas may allocate otherwise
than the GPU machine's (float32 J0: 64 registers here with Triton 3.9, 56 on the H100 with 3.6). Made to
decide where to spend device time (session 45: float32 Y0's float64 YP came out as 40 DMUL, 28 DADD and
16 F2F in 1944 instructions); times come only from the GPU (op_library, branch_domains).

    python -m benchmarks.experiments.sass_counts OP DTYPE [--numel N] [--top K]   e.g. bessel_y0 float32
    python -m benchmarks.experiments.sass_counts polygamma:1 float64   (OP:N passes the integer N first)
    python -m benchmarks.experiments.sass_counts bessel_j0 float64 --maxnreg 56 --skip some_far
        (ptxas held to 56 registers; the branch `if some_far:` folded away: what a block that skips it could hold)
    python -m benchmarks.experiments.sass_counts --survey float32,float64

`--survey` reads every op of the op tests (tests/test_ops_cases.py) whose arguments are float tensors only,
one line each (blocks, warps, registers, stack, instructions an element), those with stack first: a kernel
that spills is the first place to look.
"""
from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import tempfile

POINTER = {"float32": "fp32", "float64": "fp64", "bfloat16": "bf16", "float16": "fp16", "int32": "i32",
           "int64": "i64", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "i1"}


def generate(op: str, dtype: str, numel: int) -> dict:
    """In a process of its own (the stand-in CUDA device patches torch): the generated module's path,
    the launch's blocks and warps and the outputs' dtypes of tritonize.ops.OP on `numel` elements."""
    import torch

    from benchmarks.experiments.host_python_cpu import pose_as_cuda
    pose_as_cuda()
    import tritonize.ops
    from tritonize import decorator

    seen = {}
    module_for, recipe_init = decorator.PointwiseFunction.module_for, decorator.LaunchRecipe.__init__

    def spy_module_for(self, spec):
        module, path = module_for(self, spec)
        seen["path"] = str(path)
        return module, path

    def spy_recipe(self, **fields):
        seen.update(blocks=list(fields["blocks"]), warps=fields["warps"])
        recipe_init(self, **fields)

    decorator.PointwiseFunction.module_for = spy_module_for
    decorator.LaunchRecipe.__init__ = spy_recipe
    # OP:N passes the integer N first (polygamma:1 is trigamma)
    op, *leading = op.split(":")
    leading = [int(n) for n in leading]
    for arity in (1, 2, 3):  # unary, binary or ternary: as many tensors of the dtype as the op takes
        try:
            result = getattr(tritonize.ops, op)(*leading, *[torch.rand(numel, dtype=getattr(torch, dtype))
                                                           for _ in range(arity)])
            break
        except TypeError:
            continue
    results = result if isinstance(result, tuple) else (result,)
    seen["out_dtypes"] = [str(r.dtype).removeprefix("torch.") for r in results]
    return seen


def compile_for_sm90(path: str, in_dtype: str, out_dtypes: list, blocks: list, warps: int, maxnreg: int = 0):
    """The module's kernel compiled for sm_90 as the launch would compile it (with ptxas held to `maxnreg`
    registers, if given): (registers, spills, SASS)."""
    import triton
    from triton.backends.compiler import GPUTarget

    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # triton.jit finds its function's module again
    spec.loader.exec_module(module)
    # the generated kernel is the scalar function's name and "_kernel"; the math helpers beside it are named
    # portable_* and f32_*
    (kernel,) = [v for name, v in vars(module).items()
                 if name.endswith("_kernel") and isinstance(v, triton.runtime.jit.JITFunction)]
    signature, constants, block_values = {}, {}, iter(blocks)
    for param in kernel.params:
        if param.is_constexpr:
            signature[param.name], constants[param.name] = "constexpr", next(block_values)
        elif param.name.endswith("_ptr"):
            output = re.fullmatch(r"out(\d+)_ptr", param.name)
            signature[param.name] = "*" + POINTER[out_dtypes[int(output.group(1))] if output else in_dtype]
        else:  # a number the kernel takes as annotated (a float scalar's `tl.float64`), else a size or stride
            signature[param.name] = param.annotation or "i32"
    launch_source = open(path).read()
    options = {"num_warps": warps, "enable_fp_fusion": "enable_fp_fusion=False" not in launch_source,
               "launch_pdl": "launch_pdl=True" in launch_source}
    held = re.search(r"maxnreg=(\d+)", launch_source)  # the launch's own cap (Specialization.max_registers)
    if maxnreg or held:
        options["maxnreg"] = maxnreg or int(held.group(1))
    compiled = triton.compile(triton.compiler.ASTSource(kernel, signature=signature, constexprs=constants),
                              target=GPUTarget("cuda", 90, 32), options=options)
    tools = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as cubin:
        cubin.write(compiled.asm["cubin"])
    sass = subprocess.run([os.path.join(tools, "cuobjdump"), "-sass", cubin.name], capture_output=True, text=True,
                          check=True).stdout
    usage = subprocess.run([os.path.join(tools, "cuobjdump"), "-res-usage", cubin.name], capture_output=True,
                           text=True, check=True).stdout
    os.unlink(cubin.name)
    registers = int(re.search(r"REG:(\d+)", usage).group(1))
    spills = int(re.search(r"STACK:(\d+)", usage).group(1)) if "STACK:" in usage else 0
    return registers, spills, sass


def spill_sites(sass: str) -> tuple:
    """(local loads and stores, how many of them lie in the longest forward jump after the block's last barrier):
    the body of a block-uniform branch (portable_sides), which the blocks that skip it never run. Spills beside
    it sit in the slow-path subroutines (a division's, libdevice's) that follow the kernel's body."""
    instructions = [(int(m.group(1), 16), m.group(2)) for m in re.finditer(r"/\*([0-9a-f]{4,5})\*/\s+([^;]*);", sass)]
    barriers = [address for address, text in instructions if text.startswith("BAR.SYNC")]
    jumps = [(address, int(m.group(1), 16)) for address, text in instructions
             if barriers and address > barriers[-1] and "BRA" in text
             for m in [re.search(r"BRA\S*\s+(?:\S+,\s*)?(0x[0-9a-f]+)", text)] if m]
    start, end = max(jumps, key=lambda jump: jump[1] - jump[0], default=(0, 0))
    local = [address for address, text in instructions if re.match(r"(LDL|STL)\b", text)]
    return len(local), sum(start < address < end for address in local)


def opcodes(sass: str) -> collections.Counter:
    """The SASS instructions' opcodes (predicates and modifiers left out: `@!P0 FFMA.FTZ` is FFMA)."""
    found = re.findall(r"/\*[0-9a-f]{4,5}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", sass)
    return collections.Counter(found)


def without_branch(path: str, name: str) -> str:
    """A copy of the generated module whose block-uniform branch `if NAME:` is never taken (`if False:`, which
    Triton folds away): what the kernel's registers would be without the code a block may skip."""
    source = open(path).read()
    if source.count(f" if {name}:") != 1:
        raise RuntimeError(f"no single `if {name}:` in {os.path.basename(path)}")
    variant = path[:-3] + f"_without_{name}.py"
    with open(variant, "w") as file:
        file.write(source.replace(f" if {name}:", " if False:"))
    return variant


def read(op: str, dtype: str, numel: int, maxnreg: int = 0, skip: str = "") -> tuple:
    """(what the call launches, registers, stack bytes, opcode counts) of tritonize.ops.OP on DTYPE, ptxas held
    to `maxnreg` registers if given, the branch `if SKIP:` folded away if given (without_branch)."""
    child = subprocess.run([sys.executable, "-m", "benchmarks.experiments.sass_counts", op, dtype,
                            "--numel", str(numel), "--generate"], capture_output=True, text=True)
    if child.returncode:
        raise RuntimeError(f"tritonize.ops.{op} on {dtype} tensors: {child.stderr.strip().splitlines()[-1]}")
    seen = json.loads(child.stdout.strip().splitlines()[-1])
    path = without_branch(seen["path"], skip) if skip else seen["path"]
    registers, spills, sass = compile_for_sm90(path, dtype, seen["out_dtypes"], seen["blocks"], seen["warps"], maxnreg)
    return seen, registers, spills, opcodes(sass), spill_sites(sass)


def per_thread(seen: dict) -> float:
    return math.prod(seen["blocks"]) / (32 * seen["warps"])


def survey(dtypes: list, numel: int):
    """One line per op of the op tests with float tensor arguments only, in each dtype; those with stack first."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
    from tests.test_ops_cases import CASES, T

    import tritonize.ops
    names = sorted({case.fn for case in CASES if case.floats and not case.kwargs and hasattr(tritonize.ops, case.fn)
                    and all(isinstance(arg, T) for arg in case.args)})
    rows = []
    for dtype in dtypes:
        for op in names:
            try:
                seen, registers, spills, counts, _ = read(op, dtype, numel)
            except RuntimeError:
                continue  # an op whose tensors must be of another kind (where's condition)
            rows.append((spills, registers, f"{op:28} {dtype:8} blocks {str(seen['blocks']):12} {seen['warps']} warps  "
                         f"{registers:3} registers {spills:4} B stack  "
                         f"{sum(counts.values()) / per_thread(seen):5.0f} instructions an element"))
    for _, _, line in sorted(rows, key=lambda row: (-row[0], -row[1])):
        print(line, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("op", nargs="?")
    parser.add_argument("dtype", nargs="?")
    parser.add_argument("--survey", help="dtypes, comma-separated: every float op of the op tests")
    parser.add_argument("--numel", type=int, default=2**24)
    parser.add_argument("--top", type=int, default=16)
    parser.add_argument("--maxnreg", type=int, default=0, help="hold ptxas to this many registers a thread")
    parser.add_argument("--skip", default="", help="fold the branch `if SKIP:` away (e.g. some_far)")
    parser.add_argument("--generate", action="store_true", help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args()
    if args.generate:
        print(json.dumps(generate(args.op, args.dtype, args.numel)))
        return
    os.environ.setdefault("TRITONIZE_CACHE_DIR", tempfile.mkdtemp(prefix="sass_counts_"))
    if args.survey:
        survey(args.survey.split(","), args.numel)
        return
    try:
        seen, registers, spills, counts, (local, in_branch) = read(args.op, args.dtype, args.numel, args.maxnreg,
                                                                   args.skip)
    except RuntimeError as error:
        sys.exit(str(error))
    elements = per_thread(seen)
    held = f", maxnreg {args.maxnreg}" if args.maxnreg else ""
    skipped = f", without `if {args.skip}:`" if args.skip else ""
    print(f"{args.op} {args.dtype}{held}{skipped}, {args.numel} elements: blocks {seen['blocks']}, {seen['warps']} warps "
          f"({elements:g} elements a thread); {registers} registers, {spills} bytes of stack; "
          f"{sum(counts.values())} SASS instructions, {sum(counts.values()) / elements:.0f} an element")
    print("  " + ", ".join(f"{name} {n}" for name, n in counts.most_common(args.top)))
    print(f"  {os.path.basename(seen['path'])}")
    if local:
        print(f"  LDL/STL {local}, {in_branch} of them in the longest forward branch after the block's last barrier "
              f"(a block-uniform branch's body; the rest in slow-path subroutines)")


if __name__ == "__main__":
    main()

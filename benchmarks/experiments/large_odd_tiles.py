"""Why the float32 `a.t() + b` at 24001 x 1399 (odd_shapes.py: 32 Mi elements, odd row strides, so
tiles that load no vectors) measured 149 us (1.025x torch.compile) in one run and 162 us (0.947x)
in a later one, with the same launch (64 x 64 tiles, 8 warps, evict_last, dependent launch) and
torch.compile at 153 us in both. tritonize's plan for the row, varied one choice at a time, each a
fresh @pointwise function planned under that choice: as planned; without dependent launch; without
evict_last; on the 1D decode; and the tile configs that were within 2% of the best in the first
run (odd_tiles.py: 64x128/8, 32x128/4, 32x64/4). Beside torch.compile, as CUDA graphs after a
flush and back to back, the best of as many rounds as there are labels, taken in turn.

    python -m benchmarks.experiments.large_odd_tiles
    python -m benchmarks.experiments.large_odd_tiles sweep   # other odd shapes from a wave, other configs
"""
import contextlib
import os

import torch

from benchmarks import run
from benchmarks.cases import bytes_moved
from benchmarks.experiments import header
from benchmarks.experiments.odd_shapes import odd_inputs
from tritonize import call, pointwise


def add(a, b):
    return a + b


@contextlib.contextmanager
def planning_with(env=None, **attributes):
    """call's module attributes and environment variables set while a function plans."""
    saved = {name: getattr(call, name) for name in attributes}
    saved_env = {name: os.environ.get(name) for name in env or {}}
    for name, value in attributes.items():
        setattr(call, name, value)
    os.environ.update(env or {})
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(call, name, value)
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


VARIANTS = {
    "as planned": {},
    "no dependent launch": {"env": {"TRITONIZE_DEPENDENT_LAUNCH": "0"}},
    "no evict_last": {"evict_last": lambda *args: False},
    "1D decode": {"MAX_GRID_ROWS": 0},
    "64x128/8": {"LAUNCH_SHAPE_OVERRIDE": lambda sizes, tile: ((64, 128), 8)},
    "32x128/4": {"LAUNCH_SHAPE_OVERRIDE": lambda sizes, tile: ((32, 128), 4)},
    "32x64/4": {"LAUNCH_SHAPE_OVERRIDE": lambda sizes, tile: ((32, 64), 4)},
}


# no-vector tiles from a wave of 64 x 64 ones (call.tile_vectors): other odd shapes, other configs
SWEEP_SHAPES = [(4097, 4099), (8191, 1531), (3001, 10007), (24001, 1399), (16001, 4001)]
SWEEP = {
    "as planned": {},
    "64x128/8": VARIANTS["64x128/8"],
    "32x128/4": VARIANTS["32x128/4"],
    "32x256/8": {"LAUNCH_SHAPE_OVERRIDE": lambda sizes, tile: ((32, 256), 8)},
    "128x64/8": {"LAUNCH_SHAPE_OVERRIDE": lambda sizes, tile: ((128, 64), 8)},
}


def main():
    import sys

    if sys.argv[1:] == ["sweep"]:
        print(header("large_odd_tiles sweep", rounds=len(SWEEP) + 1))
        for dtype in (torch.float32, torch.bfloat16):
            for rows, cols in SWEEP_SHAPES:
                measure(rows, cols, dtype, SWEEP)
        return
    print(header("large_odd_tiles", rounds=len(VARIANTS) + 1))
    for dtype in (torch.float32, torch.bfloat16, torch.float32):  # float32 again: not the process's first row
        measure(24001, 1399, dtype, VARIANTS)


def measure(rows, cols, dtype, variants):
    """The transposed add at rows x cols, each of `variants` (name -> choices while it plans)
    beside torch.compile, as graphs after a flush and back to back."""
    inputs = odd_inputs("transposed + contiguous", rows, cols, dtype)
    reference = torch.add(*inputs)
    adds, described = {}, {}
    for name, choices in variants.items():
        function = pointwise(add)
        with planning_with(**choices):
            plan, spec = function.plan(tuple(inputs), {}, None)
            assert torch.equal(function(*inputs), reference), name
        adds[name] = function
        described[name] = (f"{'x'.join(map(str, plan.blocks))}/{plan.warps}"
                           f"{', 2D grid' if spec.two_dimensional_grid else ''}"
                           f"{', evict_last' if spec.evict_last else ''}"
                           f"{', dependent launch' if spec.dependent_launch else ''}")
    adds["torch.compile"] = run.compile_static(torch.add)
    described["torch.compile"] = "static"
    assert torch.equal(adds["torch.compile"](*inputs), reference)
    sets = [inputs] + [odd_inputs("transposed + contiguous", rows, cols, dtype)
                       for _ in range(run.rotating_sets(bytes_moved(inputs, [reference])) - 1)]
    calls = {name: [lambda x=x, f=f: f(*x) for x in sets] for name, f in adds.items()}
    run.ROUNDS, rounds = len(adds), run.ROUNDS
    try:
        graphs = run.graphs_in_turn(calls, run.replay_us)
        steady = run.graphs_in_turn(calls, run.steady_us, keep_outputs=True)
    finally:
        run.ROUNDS = rounds
    print(f"add | transposed + contiguous | {str(dtype)[6:]} | {rows}x{cols}: graphs after a flush | back to back")
    for name in adds:
        print(f"  {name:22} {described[name]:44} {graphs[name]:8.2f} us "
              f"({graphs['torch.compile'] / graphs[name]:.3f}x compile) | {steady[name]:8.2f} us "
              f"({steady['torch.compile'] / steady[name]:.3f}x compile)", flush=True)


if __name__ == "__main__":
    main()

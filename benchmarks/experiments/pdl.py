"""Would programmatic dependent launch (PDL) lower the fixed cost each launch pays back to back?
A hand-written flat add (`a + b`, b a broadcast row or a full tensor), launched back to back as
in benchmarks.run's steady_times, without PDL and with it: every variant waits (gdc_wait) for the
launch before it to finish before touching memory, and differs in when it lets the next launch
start (gdc_launch_dependents): only at its end (implicitly), after its loads, or at its start.
Then tritonize's own add with TRITONIZE_DEPENDENT_LAUNCH=1 (its kernels launch as dependents on
Hopper, call.dependent_launch) and without.

    python -m benchmarks.experiments.pdl
"""
import torch
import triton
import triton.language as tl
from triton.language.extra import cuda as tl_cuda

from benchmarks import cases, run
from benchmarks.experiments import header, planned

BLOCK = 1024


@triton.jit
def flat_add(a, b, out, n, b_period, BLOCK: tl.constexpr, WAIT: tl.constexpr, TRIGGER: tl.constexpr):
    if WAIT:
        tl_cuda.gdc_wait()
    if TRIGGER == 1:
        tl_cuda.gdc_launch_dependents()
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(a + offsets, mask=mask)
    y = tl.load(b + offsets % b_period, mask=mask)
    if TRIGGER == 2:
        tl_cuda.gdc_launch_dependents()
    tl.store(out + offsets, (x.to(tl.float32) + y.to(tl.float32)).to(out.dtype.element_ty), mask=mask)


# name -> (launch_pdl, WAIT, TRIGGER): TRIGGER 0 = at the end (implicit), 1 = at the start, 2 = after the loads
VARIANTS = {"no PDL": (False, False, 0), "PDL, next starts at our end": (True, True, 0),
            "PDL, next starts after our loads": (True, True, 2), "PDL, next starts at our start": (True, True, 1)}


def main():
    print(header("pdl").replace("least of 3 rounds", "back to back (steady_us), least of 3 rounds"), flush=True)
    for case, dtype, exponent in (("row broadcast", torch.bfloat16, 20), ("row broadcast", torch.bfloat16, 22),
                                  ("row broadcast", torch.bfloat16, 24), ("contiguous", torch.bfloat16, 24),
                                  ("contiguous", torch.float32, 24)):
        n = 2**exponent
        width = 1024 if case == "row broadcast" else n
        moved = (2 * n + width) * torch.tensor([], dtype=dtype).element_size()
        sets = [(torch.randn(n, device="cuda").to(dtype), torch.randn(width, device="cuda").to(dtype),
                 torch.empty(n, device="cuda", dtype=dtype)) for _ in range(run.rotating_sets(moved))]
        grid = (triton.cdiv(n, BLOCK),)
        graphs = {}
        for name, (pdl, wait, trigger) in VARIANTS.items():
            def launch(a, b, out, pdl=pdl, wait=wait, trigger=trigger):
                flat_add[grid](a, b, out, n, width, BLOCK=BLOCK, WAIT=wait, TRIGGER=trigger, num_warps=4,
                               launch_pdl=pdl)
            for a, b, out in sets:
                out.zero_()
                launch(a, b, out)
                assert torch.equal(out, (a.float() + b.float().repeat(n // width)).to(dtype)), name
            graphs[name] = run.capture([lambda s=s, launch=launch: launch(*s) for s in sets])
        best = run.best_in_turn({name: lambda g=g: run.steady_us(g) for name, g in graphs.items()}, run.ROUNDS)
        print(f"add | {case} | {str(dtype)[6:]} | 2^{exponent}: " + ", ".join(
            f"{name} {us:.2f} us ({best['no PDL'] / us:.3f}x)" for name, us in best.items()), flush=True)
        tritonize_adds(sets, n, width)


def tritonize_adds(sets, n, width):
    """tritonize's own add on the same inputs, with its dependent launch and without
    (TRITONIZE_DEPENDENT_LAUNCH=0 while its first call plans it): back to back, and as
    benchmarks.run's single launches (do_bench, after its L2 flush)."""
    adds = {}
    for name, on in (("tritonize, dependent launch", True), ("tritonize, TRITONIZE_DEPENDENT_LAUNCH=0", False)):
        adds[name] = add = planned(cases.add.__wrapped__, on, (sets[0][0].view(-1, width), sets[0][1]))[0]
        for a, b, _ in sets:
            assert torch.equal(add(a.view(-1, width), b), (a.float().view(-1, width) + b.float()).to(a.dtype))
    measures = {}
    for name, add in adds.items():
        graph = run.capture([lambda a=a, b=b, add=add: add(a.view(-1, width), b) for a, b, _ in sets], keep_outputs=True)
        measures[name, "back to back"] = lambda graph=graph: run.steady_us(graph)
        a, b, _ = sets[0]
        measures[name, "single"] = lambda add=add, a=a, b=b: run.median_us(lambda: add(a.view(-1, width), b))
    best = run.best_in_turn(measures, run.ROUNDS)
    for way in ("back to back", "single"):
        off = best["tritonize, TRITONIZE_DEPENDENT_LAUNCH=0", way]
        print(f"  {way}: " + ", ".join(f"{name} {best[name, way]:.2f} us ({off / best[name, way]:.3f}x)"
                                       for name in adds), flush=True)


if __name__ == "__main__":
    main()

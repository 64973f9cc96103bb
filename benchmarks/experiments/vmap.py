"""torch.func.vmap over @pointwise calls (dsl/transforms.py): the batch run as one call, beside the
same call on the unbatched tensors, torch.vmap of torch's own ops (eager) and torch.compile of that,
and the example-by-example path a batched 0-d tensor takes where it would promote differently
(a float32 per-example number beside float16 tensors). Also per-example gradients (vmap over
grad). Each result is checked against the reference first; us per call, do_bench medians (least
of three rounds), single launches.

    python -m benchmarks.experiments.vmap
"""
import torch
import torch.nn.functional as F

from benchmarks.cases import gelu, mul
from benchmarks.experiments import best_us
from benchmarks.run import compile_static


def gelu_loss(row):
    return gelu(row).square().sum()


def torch_gelu_loss(row):
    return F.gelu(row).square().sum()


def rows(batch: int, width: int, device: str = "cuda") -> list:
    """(label, tritonize's vmap, torch.vmap of torch's ops, tritonize unbatched (the same values
    without vmap: one call, a loop of calls, or autograd), tolerance)."""
    x = torch.randn(batch, width, device=device)
    middle = torch.randn(width // 64, batch, 64, device=device)  # the batch dim in the middle
    scale = torch.randn(batch, device=device)
    halves, scale32 = x.half(), scale.float()
    tracked = x.clone().requires_grad_()
    return [
        ("gelu, batch dim 0", lambda: torch.func.vmap(gelu)(x), lambda: torch.func.vmap(F.gelu)(x),
         lambda: gelu(x), 1e-6),
        ("gelu, batch dim 1", lambda: torch.func.vmap(gelu, in_dims=1)(middle),
         lambda: torch.func.vmap(F.gelu, in_dims=1)(middle), lambda: gelu(middle).movedim(1, 0), 1e-6),
        ("x * s, per-example s", lambda: torch.func.vmap(mul)(x, scale),
         lambda: torch.func.vmap(torch.mul)(x, scale), lambda: x * scale[:, None], 1e-6),
        ("x * s, float16 x, float32 s (example by example)", lambda: torch.func.vmap(mul)(halves, scale32),
         lambda: torch.func.vmap(torch.mul)(halves, scale32),
         lambda: torch.stack([mul(halves[i], scale32[i]) for i in range(batch)]), 0),
        ("per-example gradients of sum(gelu(x)^2)", lambda: torch.func.vmap(torch.func.grad(gelu_loss))(x),
         lambda: torch.func.vmap(torch.func.grad(torch_gelu_loss))(x),
         lambda: torch.autograd.grad(gelu(tracked).square().sum(), tracked)[0], 1e-5),
    ]


def main():
    print(f"# python -m benchmarks.experiments.vmap ({torch.cuda.get_device_name()}, torch "
          f"{torch.__version__.split('+')[0]}): us per call, least of 3 do_bench medians")
    print(f"{'row':58s} {'batch x width':>14s} {'tritonize':>10s} {'unbatched':>10s} {'torch.vmap':>11s} "
          f"{'compiled':>9s}")
    for batch, width in ((64, 4096), (256, 65536)):
        for label, ours, theirs, unbatched, tolerance in rows(batch, width):
            expected = unbatched()
            torch.testing.assert_close(ours(), expected, rtol=tolerance, atol=tolerance)
            compiled = compile_static(theirs)
            torch.testing.assert_close(compiled().to(expected.dtype), expected, rtol=1e-2, atol=1e-2)
            times = [best_us(f) for f in (ours, unbatched, theirs, compiled)]
            print(f"{label:58s} {f'{batch} x {width}':>14s} " + " ".join(f"{t:10.1f}" for t in times))


if __name__ == "__main__":
    main()

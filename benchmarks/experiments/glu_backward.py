"""glu_backward (the gradient of F.glu) against eager's on one GPU: a (4096, 8192) input halved along its last
dim, float32 and bfloat16, us per call (do_bench median, single launches), each result checked first. Ours is one
two-output kernel writing both halves of the gradient; eager's CUDA kernel is one too.

    python -m benchmarks.experiments.glu_backward
"""
from __future__ import annotations

import torch
import triton

import tritonize.ops as tops


def main():
    aten = torch.ops.aten
    print(f"# glu_backward at (4096, 8192) -> halves along the last dim, {torch.cuda.get_device_name()}, "
          f"torch {torch.__version__}, triton {triton.__version__}; us (do_bench median)")
    for dtype in (torch.float32, torch.bfloat16):
        x = torch.randn(4096, 8192, device="cuda", dtype=dtype)
        grad = torch.randn(4096, 4096, device="cuda", dtype=dtype)
        assert torch.allclose(tops.glu_backward(grad, x, -1).float(), aten.glu_backward(grad, x, -1).float(),
                              rtol=1e-2, atol=1e-3)
        ours = triton.testing.do_bench(lambda: tops.glu_backward(grad, x, -1), return_mode="median") * 1e3
        eager = triton.testing.do_bench(lambda: aten.glu_backward(grad, x, -1), return_mode="median") * 1e3
        moved = x.numel() * x.element_size() * 2 + grad.numel() * grad.element_size()  # x read, gradient written
        print(f"{str(dtype)[6:]:9s} tritonize {ours:8.1f}  eager {eager:8.1f}  eager/tritonize {eager / ours:.3f}x  "
              f"bytes {moved / 1e6:.0f} MB")


if __name__ == "__main__":
    main()

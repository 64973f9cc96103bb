"""Are inductor's approximations (tl.exp, Triton's 2-ulp `/`) exact once the result is rounded to
16 bits? A 16-bit input has 65536 values, so the question has a complete answer: for each of
sigmoid, silu and exp in bfloat16 and float16, every input through each variant of exp16.py's kernel,
compared bit for bit with the exact variant (libdevice expf, div_rn) and with eager.

    python -m benchmarks.experiments.exhaustive16
"""
import torch
import torch.nn.functional as F
import triton

from benchmarks.experiments.exp16 import LAUNCH, activation_kernel, exp_kernel

VARIANTS = {"exact": (0, 0), "tl.exp": (1, 0), "div.full": (0, 2), "tl.exp + div.full": (1, 2)}


def every_value(dtype):
    return torch.arange(-2**15, 2**15, device="cuda", dtype=torch.int32).to(torch.int16).view(dtype)


def bits(t):
    return t.view(torch.int16)


def main():
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}")
    for dtype in (torch.bfloat16, torch.float16):
        x = every_value(dtype)
        n = x.numel()
        for name, eager in (("sigmoid", torch.sigmoid), ("silu", F.silu), ("exp", torch.exp)):
            results = {}
            for label, (exp, div) in VARIANTS.items():
                out = torch.empty_like(x)
                if name == "exp":
                    if div:
                        continue
                    y = torch.empty(n, device="cuda", dtype=torch.float32)
                    exp_kernel[(triton.cdiv(n, 1024),)](x.float(), y, n, BLOCK=1024, EXP=exp, **LAUNCH)
                    out = y.to(dtype)
                else:
                    activation_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024, SILU=name == "silu",
                                                              EXP=exp, DIV=div, **LAUNCH)
                results[label] = out
            reference = eager(x)
            for label, out in results.items():
                differ = (bits(out) != bits(results["exact"])).nonzero().flatten()
                from_eager = (bits(out) != bits(reference)).sum().item()
                shown = ", ".join(f"{x[i].item()!r}: {out[i].item()!r} vs {results['exact'][i].item()!r}"
                                  for i in differ[:3].tolist())
                print(f"{name} {str(dtype)[6:]} {label:18}: differs from exact on {differ.numel()} of {n}, "
                      f"from eager on {from_eager}{'  e.g. ' + shown if shown else ''}", flush=True)


if __name__ == "__main__":
    main()

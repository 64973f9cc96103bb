"""How does eager read a CPU scalar (a Python number or a 0-d CPU tensor), and a 0-d GPU tensor, that meets
a float16 or bfloat16 tensor: exactly, in float32 opmath, or as the 16-bit value? And does tritonize.ops
read it the same way? One line per op, dtype, scalar kind and position (xs: tensor first, sx: scalar
first): `eager:` R where eager equals torch with the scalar pre-rounded to the 16-bit dtype (given as a 0-d
tensor of that dtype), E where it equals the float32 computation with the scalar exact (lower case: it
does not; `-`: no such reference), then how many of the ~5000 elements tritonize.ops gives otherwise.
The inputs sit around and at 0.1001's 16-bit value (0.10009765625) and 2048, where the reading shows.

    python -m benchmarks.experiments.scalar_rounding     (DEV=cpu: the same on the CPU)
"""
import os

import torch

import tritonize.ops as O

DEV = os.environ.get("DEV", "cuda")
S = 0.1001  # not a float16 or bfloat16 value
OPS = {  # name: (torch's, ours, forms: "xs" tensor first, "sx" scalar first)
    "add": (torch.add, O.add, "xs sx"), "sub": (torch.sub, O.sub, "xs sx"), "mul": (torch.mul, O.mul, "xs sx"),
    "div": (torch.div, O.div, "xs sx"), "floor_divide": (torch.floor_divide, O.floor_divide, "xs sx"),
    "remainder": (torch.remainder, O.remainder, "xs sx"), "fmod": (torch.fmod, O.fmod, "xs"),
    "pow": (torch.pow, O.pow, "xs sx"), "atan2": (torch.atan2, O.atan2, "xs sx"),
    "hypot": (torch.hypot, O.hypot, "xs sx"), "copysign": (torch.copysign, O.copysign, "xs sx"),
    "nextafter": (torch.nextafter, O.nextafter, "xs sx"), "maximum": (torch.maximum, O.maximum, "xs sx"),
    "fmax": (torch.fmax, O.fmax, "xs sx"), "logaddexp": (torch.logaddexp, O.logaddexp, "xs sx"),
    "logaddexp2": (torch.logaddexp2, O.logaddexp2, "xs sx"), "xlogy": (torch.xlogy, O.xlogy, "xs sx"),
    "xlog1py": (torch.special.xlog1py, O.xlog1py, "xs sx"), "lt": (torch.lt, O.lt, "xs sx"),
    "le": (torch.le, O.le, "xs"), "eq": (torch.eq, O.eq, "xs sx"), "ne": (torch.ne, O.ne, "xs"),
    "gt": (torch.gt, O.gt, "xs"), "ge": (torch.ge, O.ge, "xs"),
    "clamp_min": (lambda x, s: torch.clamp(x, min=s), lambda x, s: O.clamp(x, min=s), "xs"),
    "clamp_max": (lambda x, s: torch.clamp(x, max=s), lambda x, s: O.clamp(x, max=s), "xs"),
    "rsub": (torch.rsub, O.rsub, "xs"), "true_divide": (torch.true_divide, O.true_divide, "xs sx"),
    "where": (lambda x, s: torch.where(x > 0, x, s), lambda x, s: O.where(x > 0, x, s), "xs"),
    "lerp": (lambda x, s: torch.lerp(x, x * 2, s), lambda x, s: O.lerp(x, x * 2, s), "xs"),
    "heaviside": (torch.heaviside, O.heaviside, "xs"),
}


def inputs(dtype):
    base = torch.linspace(-4, 4, 4001)
    near = torch.tensor([S]).to(dtype).float() + torch.linspace(-0.002, 0.002, 401)
    return torch.cat([base, near, -near, near * 1000, torch.tensor([2048., 2049., 2050.])]).to(dtype).to(DEV)


def scalars():
    """(kind, the scalar): numbers, 0-d CPU tensors and 0-d tensors on the device."""
    return [("number", S), ("cpu0d_f32", torch.tensor(S)), ("cpu0d_f64", torch.tensor(S, dtype=torch.float64)),
            ("cuda0d_f32", torch.tensor(S, device=DEV)), ("cpu0d_i64", torch.tensor(2049)), ("number_int", 2049),
            ("cuda0d_i64", torch.tensor(2049, device=DEV))]


def differing(a, b) -> int:
    if a.is_floating_point():
        return int((~((a == b) | (a.isnan() & b.isnan()))).sum())
    return int((a != b).sum())


def same(a, b) -> bool:
    return a.dtype == b.dtype and differing(a, b) == 0


def row(name, dtype, kind, s, form) -> str | None:
    theirs, ours, _ = OPS[name]
    x = inputs(dtype)
    if name in ("xlogy", "pow"):
        x = x.abs() + 0.001
    value = s.item() if isinstance(s, torch.Tensor) else s
    rounded = torch.tensor(value, dtype=torch.float32).to(dtype)  # c10: double -> float -> 16 bits

    def call(f, v, w=None):
        w = x if w is None else w
        return f(w, v) if form == "xs" else f(v, w)

    try:
        want = call(theirs, s)
    except Exception:  # torch takes no such call
        return None
    # the references: s as the 16-bit value (a 0-d CPU tensor of the dtype, which every kernel reads
    # exactly), and s exact in a float32 computation on the widened x, rounded to the result's dtype
    try:
        as_16_bit = "R" if same(want, call(theirs, rounded)) else "r"
        exact = "E" if same(want, call(theirs, torch.tensor(float(value)), x.float()).to(want.dtype)) else "e"
    except Exception:
        as_16_bit = exact = "-"
    try:
        got = call(ours, s)
        diff = differing(got, want) if got.dtype == want.dtype else f"dtype {got.dtype}"
    except Exception as error:
        diff = f"ERR {type(error).__name__} {str(error)[:60]}"
    return f"{name:12} {str(dtype)[6:]:8} {kind:11} {form}  eager: {as_16_bit}{exact}  ours differ: {diff}"


def main():
    if DEV == "cuda":
        import triton
        print(f"# python -m benchmarks.experiments.scalar_rounding ({torch.cuda.get_device_name()}, torch "
              f"{torch.__version__.split('+')[0]}, triton {triton.__version__})")
    for name, (_, _, forms) in OPS.items():
        for dtype in (torch.float16, torch.bfloat16):
            for kind, s in scalars():
                for form in forms.split():
                    line = row(name, dtype, kind, s, form)
                    if line:
                        print(line, flush=True)


if __name__ == "__main__":
    main()

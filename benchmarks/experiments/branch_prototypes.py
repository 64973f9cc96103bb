"""Session 45's prototypes of the block-uniform branches, timed before they were written into the helpers:
one block reduction for both tests of J0/J1/Y0/Y1 (portable_sides), the rational run in every block
(`near_always`), Y's YP polynomial in float32 taken about a shifted point (`yp32@z0`, with its float32
accuracy in eps of max(|f|, envelope) against the float64 composite), and digamma's asymptotic series and
reflection as block-uniform branches (`branches`); each helper copied as the code generator copies it and
edited as text, beside the helper as it was, eager and tritonize.ops, on 2^24 elements. The edits are those
of the helpers at 3e8c600 (each asserts that it applies), so run it with a package of that tree first on the
path (from the repository's root; as branch_domains builds one):

    mkdir -p /tmp/base/tritonize && git archive 3e8c600 dsl passes ops | tar -x -C /tmp/base
    (cd /tmp/base && cp -r dsl/* tritonize/ && mv passes ops tritonize/)
    PYTHONPATH=/tmp/base:. python -m benchmarks.experiments.branch_prototypes

Output: benchmarks/results/experiment_branch_domains_h100.txt (part 1).
"""
from __future__ import annotations

import re
from fractions import Fraction

import torch
import triton

import tritonize.ops
from benchmarks.experiments import best_us
from benchmarks.experiments.bessel_branches import envelope_eps, helper_kernel, launcher


def best_us2(fn):
    """The least of 2 do_bench medians, in us (fewer rounds than best_us: many variants to time)."""
    return best_us(fn, rounds=2)


SIDES = '''

@triton.jit
def portable_sides(mask):
    widened = mask.to(tl.int32) + tl.full([1], 0, tl.int32)
    count = tl.reduce(widened, None, tl.standard._sum_combine)
    return count > 0, count < widened.numel
'''
ANY = '''

@triton.jit
def portable_any(mask):
    return tl.reduce(mask.to(tl.int32) + tl.full([1], 0, tl.int32), None, tl.standard._elementwise_max) > 0
'''
YP = {"y0": [15592.436785523574, -14663929.59039716, 5435264770.518765, -982136065717.9115, 87590639439536.7,
             -3466283033847297.0, 4.4273326857256984e+16, -1.8495080043698668e+16],
      "y1": [1263204747.9017804, -647355876379.1603, 114509511541823.73, -8127702555013251.0, 2.024394757135949e+17,
             -7.788771962659501e+17]}


def shifted(c, z0):
    a = [Fraction(x) for x in c]
    for i in range(len(a)):
        for j in range(1, len(a) - i):
            a[j] += a[j - 1] * Fraction(z0)
    return [float(x) for x in a]


def yp32(order, z0):
    c = shifted(YP[order], z0)
    lines = [f"        u = z - {float(z0)!r}", f"        yp = tl.math.fma(u, {c[0]!r}, {c[1]!r})"]
    lines += [f"        yp = tl.math.fma(yp, u, {ck!r})" for ck in c[2:]]
    return "\n".join(lines) + "\n"


def edit_yp(text, order, z0):
    new, k = re.subn(r"        wide = x\.to\(tl\.float64\) \* x\.to\(tl\.float64\)\n(        yp = .*\n)+?(        yp = \(+yp \* wide .*\.to\(tl\.float32\)\n)",
                     lambda m: yp32(order, z0), text)
    assert k == 1, order
    return new


SIDES_EDIT = [("    if portable_any(near):\n", "    some_near, some_far = portable_sides(near)\n    if some_near:\n"),
              ("    if portable_any(near == 0):\n", "    if some_far:\n")]
NEAR_ALWAYS = [("    if portable_any(near):\n", "    if True:\n")]
DIGAMMA_EDIT = [
    ("    zz = quot * quot\n", "    r = g * 0.9955816268920898 + quot\n    if portable_any(low == 0):\n        zz = quot * quot\n"),
    ("    asy = zz", "        asy = zz"),
    ("    r = tl.where(low, g * 0.9955816268920898 + quot, tl.math.log(v) - 0.5 * quot - asy)\n",
     "        r = tl.where(low, r, tl.math.log(v) - 0.5 * quot - asy)\n    if portable_any(neg):\n"),
    ("    u = tl.where(t > 0.5", "        u = tl.where(t > 0.5"),
    ("    near = u > 0.25\n", "        near = u > 0.25\n"),
    ("    y = 3.14", "        y = 3.14"), ("    z = y * y\n", "        z = y * y\n"), ("    tp = z", "        tp = z"),
    ("    tq = (((z", "        tq = (((z"), ("    tn = y", "        tn = y"), ("    ct = tl.where(near", "        ct = tl.where(near"),
    ("    ct = tl.where(t > 0.5", "        ct = tl.where(t > 0.5"), ("    r = tl.where(neg, r + 3.14", "        r = tl.where(neg, r + 3.14"),
]


def kernel(helper, name, edits=(), func=None):
    """bessel_branches' kernel of `helper` with this script's portable_sides (and 3e8c600's portable_any where
    the helper calls none) beside it, its text edited by `edits` (old, new) and then `func`."""
    def edit(text):
        text += SIDES
        if "portable_any" not in text:
            text += ANY
        for old, new in edits:
            assert old in text, (name, old)
            text = text.replace(old, new)
        return func(text) if func else text
    return helper_kernel(helper, edit=edit, name=name)


def main():
    print(f"# python -m benchmarks.experiments.branch_prototypes ({torch.cuda.get_device_name()}, torch {torch.__version__.split('+')[0]}, triton {triton.__version__})", flush=True)
    n = 2**24
    g = torch.Generator(device="cuda").manual_seed(0)
    plans = []
    for order in ("j0", "y0", "y1"):
        for dtype, prefix, blocks in ((torch.float32, "f32", (512, 256)), (torch.float64, "portable", (256, 512))):
            if order == "y1" and dtype == torch.float64:
                continue
            helper = f"{prefix}_bessel_{order}"
            variants = {"cur": kernel(helper, f"{helper}_cur")}
            if order != "y1":
                variants.update(sides=kernel(helper, f"{helper}_sides", SIDES_EDIT), near_always=kernel(helper, f"{helper}_near", NEAR_ALWAYS))
            if prefix == "f32" and order in ("y0", "y1"):
                for z0 in ((12.5, 15.0) if order == "y0" else (5.0, 2.5)):
                    variants[f"yp32@{z0}"] = kernel(helper, f"{helper}_yp{int(z0 * 10)}", (), lambda t, o=order, z=z0: edit_yp(t, o, z))
                    variants[f"yp32@{z0}+sides"] = kernel(helper, f"{helper}_yps{int(z0 * 10)}", SIDES_EDIT, lambda t, o=order, z=z0: edit_yp(t, o, z))
            domains = {"[-2, 2]": (-2.0, 2.0), "[0, 2]": (0.0, 2.0), "[25, 400]": (25.0, 400.0)}
            plans.append((f"bessel_{order}", dtype, variants, blocks, domains))
    for dtype in (torch.float64, torch.float32):
        helper = "portable_digamma" if dtype == torch.float64 else "f32_digamma"
        variants = {"cur": kernel(helper, f"{helper}_cur")}
        if dtype == torch.float64:
            variants["branches"] = kernel(helper, f"{helper}_branches", DIGAMMA_EDIT)
        plans.append(("digamma", dtype, variants, (512, 256), {"[0.1, 8]": (0.1, 8.0), "[-5, 5]": (-5.0, 5.0), "[1, 100]": (1.0, 100.0)}))
    # float32 accuracy of the YP variants (eps of max(|f|, envelope)) against the float64 composite
    x = torch.cat([torch.linspace(1e-3, 5, 2_000_001, device="cuda"), torch.rand(2_000_000, generator=g, device="cuda") * 30]).clamp(min=1e-30)
    for name, dtype, variants, blocks, _ in plans:
        if dtype != torch.float32 or not name.startswith("bessel_y"):
            continue
        exact = getattr(tritonize.ops, name)(x.double())
        line = f"# accuracy {name} float32 on (0, 5] and [0, 30]:"
        for label, k in variants.items():
            out = torch.empty_like(x)
            launcher(k, x, out, 512)()
            line += f" {label} {envelope_eps(out, exact, x):.2f}"
        print(line, flush=True)
    for name, dtype, variants, blocks, domains in plans:
        for label, (low, high) in domains.items():
            x = (torch.rand(n, device="cuda", dtype=torch.float64, generator=g) * (high - low) + low).to(dtype)
            eager = getattr(torch.special, name)
            ref = torch.empty_like(x)
            launcher(variants["cur"], x, ref, blocks[0])()
            line = f"{name:10} {str(dtype)[6:]:8} {label:10} eager {best_us2(lambda: eager(x)):6.1f} ops {best_us2(lambda: getattr(tritonize.ops, name)(x)):6.1f} |"
            for vlabel, k in variants.items():
                out = torch.empty_like(x)
                launcher(k, x, out, blocks[0])()
                same = torch.equal(out.view(torch.int64 if dtype == torch.float64 else torch.int32), ref.view(torch.int64 if dtype == torch.float64 else torch.int32))
                times = " ".join(f"{best_us2(launcher(k, x, out, b)):6.1f}" for b in blocks)
                line += f" {vlabel} {times}{'' if same else ' (differs)'} |"
            print(line, flush=True)


if __name__ == "__main__":
    main()

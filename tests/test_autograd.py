"""Gradients derived from the scalar source: gradcheck and gradgradcheck in float64 on
functions with if/else, helpers, scalar arguments, two outputs, broadcast and non-contiguous
inputs; torch's conventions at ties; float32/bfloat16 gradients against torch's own."""
from __future__ import annotations

import math

import pytest
import torch
from torch.autograd import gradcheck, gradgradcheck

import tritonize
import tritonize.math as tm
from tritonize import pointwise


@pointwise
def softplus(x, beta: float = 1.0, threshold: float = 20.0):
    if x * beta > threshold:
        return x
    return math.log1p(math.exp(x * beta)) / beta


def gelu_scalar(v):
    return 0.5 * v * (1.0 + math.erf(v * 0.7071067811865476))


@pointwise
def gelu_and_mul(x, y):
    return gelu_scalar(x) * y


@pointwise
def polar(r, theta):
    return r * math.cos(theta), r * math.sin(theta)


@pointwise
def mixed(a, b, n):
    t = a * b + math.tanh(a) / (b * b + 1.0)
    if n > 0:
        t = t * math.sqrt(abs(b) + 1.0) - a ** 3
    elif a < b:
        return math.atan2(a, b) + math.hypot(a, b)
    return t + math.exp(-a * a) * float(n)


@pointwise
def extrema(a, b):
    return max(a, b) + min(a, b) * 2 + abs(a)


def _double(*shape, device="cpu", seed=0):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=generator, dtype=torch.float64).to(device).requires_grad_()


def test_first_and_second_derivatives_through_if_else_and_scalars(device):
    x = (_double(24, device=device) * 8).detach().requires_grad_()
    assert gradcheck(lambda t: softplus(t, 2.0), (x,))
    assert gradgradcheck(lambda t: softplus(t, 2.0), (x,))
    x.grad = None
    softplus(x, 2.0).sum().backward()
    expected, = torch.autograd.grad(torch.nn.functional.softplus(x, 2.0).sum(), x)
    torch.testing.assert_close(x.grad, expected)


def test_helpers_broadcast_and_non_contiguous(device):
    x = _double(5, 6, device=device)
    y = _double(6, device=device, seed=1)  # broadcast along dim 0: its gradient is summed back
    assert gradcheck(gelu_and_mul, (x, y))
    assert gradgradcheck(gelu_and_mul, (x, y))
    xt = _double(6, 5, device=device, seed=2).detach().t().requires_grad_()  # transposed
    assert gradcheck(gelu_and_mul, (xt, y))


def test_two_outputs_and_unused_outputs(device):
    r, theta = _double(7, device=device), _double(7, device=device, seed=3)
    assert gradcheck(polar, (r, theta))
    assert gradgradcheck(polar, (r, theta))
    re, _ = polar(r, theta)  # only one output takes part
    re.sum().backward()
    torch.testing.assert_close(r.grad, torch.cos(theta).detach())


def test_branches_math_and_integer_arguments_carry_no_gradient(device):
    a, b = _double(30, device=device), _double(30, device=device, seed=4)
    n = torch.randint(-2, 3, (30,), device=device)
    assert gradcheck(lambda a, b: mixed(a, b, n), (a, b))
    assert gradgradcheck(lambda a, b: mixed(a, b, n), (a, b))
    assert gradcheck(lambda a: mixed(a, 0.75, 2), (a,))  # a Python number gets no gradient


def test_zero_dim_tensor_gets_its_gradient_reduced(device):
    x = _double(4, 3, device=device)
    s = torch.tensor(1.5, dtype=torch.float64, device=device, requires_grad=True)
    assert gradcheck(gelu_and_mul, (x, s))


def test_a_0d_cpu_tensor_gets_its_gradient_where_it_lies(device):
    """A 0-d tensor in CPU memory beside tensors on the device (passed to the kernel by value) gets
    its gradient, reduced, in CPU memory, as torch's autograd gives a CPU scalar's."""
    x = _double(4, 3, device=device)
    s = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    assert gradcheck(gelu_and_mul, (x, s))
    gelu_and_mul(x, s).sum().backward()
    assert s.grad.device.type == "cpu" and s.grad.shape == ()
    torch.testing.assert_close(s.grad, torch.nn.functional.gelu(x.detach()).sum().cpu())  # d/ds of gelu(x) * s


def test_ties_follow_torch(device):
    a = torch.tensor([1.0, 2.0, 3.0, 0.0, -1.0], dtype=torch.float64, device=device, requires_grad=True)
    b = torch.tensor([1.0, 1.0, 4.0, 0.0, -1.0], dtype=torch.float64, device=device, requires_grad=True)
    extrema(a, b).sum().backward()
    a2, b2 = a.detach().clone().requires_grad_(), b.detach().clone().requires_grad_()
    (torch.maximum(a2, b2) + torch.minimum(a2, b2) * 2 + torch.abs(a2)).sum().backward()
    torch.testing.assert_close(a.grad, a2.grad)
    torch.testing.assert_close(b.grad, b2.grad)


@pytest.mark.parametrize("dtype, rtol", [(torch.float32, 1e-5), (torch.bfloat16, 2e-2)])
def test_low_precision_gradients_match_torch(dtype, rtol, device):
    @pointwise
    def silu(v):
        return v / (1.0 + math.exp(-v))

    generator = torch.Generator().manual_seed(5)
    base = torch.randn(257, generator=generator).to(device)
    for ours, theirs in ((silu, torch.nn.functional.silu),
                         (lambda v: gelu_and_mul(v, 1.0), torch.nn.functional.gelu)):
        x = base.to(dtype).requires_grad_()
        ours(x).sum().backward()
        x2 = base.to(dtype).requires_grad_()
        theirs(x2).sum().backward()
        assert x.grad.dtype == dtype
        torch.testing.assert_close(x.grad.float(), x2.grad.float(), rtol=rtol, atol=rtol)


def test_backward_source_is_readable_python():
    x = torch.randn(3, dtype=torch.float64)
    text = softplus.backward_source(x, 2.0)
    assert text.startswith("def softplus_backward(x, beta: float, threshold: float, grad_out0):")
    assert "math.exp(" in text and "if cond else" in text
    compile(text, "<backward>", "exec")  # plain Python


def test_out_refuses_autograd(device):
    x = _double(3, device=device)
    with pytest.raises(tritonize.CallError, match="does not support automatic differentiation"):
        softplus(x, out=torch.empty(3, dtype=torch.float64, device=device))
    with torch.no_grad():
        softplus(x, out=torch.empty(3, dtype=torch.float64, device=device))  # fine without grad


def test_lgamma_differentiates_to_digamma(device):
    @pointwise
    def lg(x):
        return math.lgamma(x) * 2

    x = (_double(9, device=device).abs() * 3 + 0.2).detach().requires_grad_()
    assert gradcheck(lg, (x,))
    lg(x).sum().backward()
    torch.testing.assert_close(x.grad, 2 * torch.digamma(x.detach()))


def test_erfinv_differentiates_like_torch(device):
    @pointwise
    def probit(p):
        return 1.4142135623730951 * tm.erfinv(2.0 * p - 1.0)

    p = (torch.rand(16, dtype=torch.float64, generator=torch.Generator().manual_seed(5)) * 0.98 + 0.01)
    p = p.to(device).requires_grad_()
    assert gradcheck(probit, (p,))
    assert gradgradcheck(probit, (p,))  # d/dx erfinv = sqrt(pi)/2 exp(erfinv(x)^2): erfinv again
    assert "0.886226925452758 * math.exp(" in probit.backward_source(p)
    probit(p).sum().backward()
    theirs = p.detach().clone().requires_grad_()
    (1.4142135623730951 * torch.special.erfinv(2.0 * theirs - 1.0)).sum().backward()
    torch.testing.assert_close(p.grad, theirs.grad)


def test_erfcx_and_ndtri_differentiate_like_torch(device):
    """d/dx erfcx = 2 x erfcx(x) - 2/sqrt(pi) and d/dp ndtri = sqrt(2 pi) exp(ndtri(p)^2 / 2): each its own
    function again, so second derivatives too."""
    @pointwise
    def tails(p, x):
        return tm.ndtri(p) * 2.0 + tm.erfcx(x)

    generator = torch.Generator().manual_seed(8)
    p = (torch.rand(16, dtype=torch.float64, generator=generator) * 0.98 + 0.01).to(device).requires_grad_()
    # erfcx(x) grows as 2 exp(x^2) below 0: keep it near ndtri's size, which a sum would otherwise round away
    x = (torch.randn(16, dtype=torch.float64, generator=generator) * 1.5 + 1.0).to(device).requires_grad_()
    assert gradcheck(tails, (p, x)) and gradgradcheck(tails, (p, x))
    tails(p, x).sum().backward()
    theirs = [t.detach().clone().requires_grad_() for t in (p, x)]
    (torch.special.ndtri(theirs[0]) * 2.0 + torch.special.erfcx(theirs[1])).sum().backward()
    torch.testing.assert_close(p.grad, theirs[0].grad)
    torch.testing.assert_close(x.grad, theirs[1].grad)


def test_bessel_functions_differentiate_like_torch(device):
    """torch's formulas: i0' = i1, i0e' = i1e - sgn(x) i0e, i1' = i0 - i1/x and i1e' = i0e - i1e (sgn(x) + 1/x),
    1/2 at 0 for both of order 1 (and i0e's kink at 0 taken as torch's sgn(0) = 0); second derivatives too."""
    @pointwise
    def mix(x):
        return tm.i0(x) + tm.i0e(x) * 2.0 + tm.i1(x) * 3.0 + tm.i1e(x) * 0.5

    x = torch.tensor([-9.0, -2.5, -0.3, 0.2, 1.0, 4.0, 8.5, 12.0], dtype=torch.float64, device=device)
    x.requires_grad_()
    assert gradcheck(mix, (x,)) and gradgradcheck(mix, (x,))
    at_zero = torch.tensor([-9.0, 0.0, 3.0], dtype=torch.float64, device=device, requires_grad=True)
    for point in (x, at_zero):
        mix(point).sum().backward()
        theirs = point.detach().clone().requires_grad_()
        special = torch.special
        (special.i0(theirs) + special.i0e(theirs) * 2.0 + special.i1(theirs) * 3.0 + special.i1e(theirs) * 0.5).sum().backward()
        torch.testing.assert_close(point.grad, theirs.grad)


def test_bessel_jy_differentiate(device):
    """J0' = -J1, J1' = J0 - J1/x (1/2 at 0), Y0' = -Y1, Y1' = Y0 - Y1/x, which torch lacks (its Bessel J and Y
    have no derivative): gradcheck and gradgradcheck on both branches (|x| <= 5 and above), and the formulas
    against the functions themselves, at 0 too."""
    @pointwise
    def first_kind(x):
        return tm.bessel_j0(x) + tm.bessel_j1(x) * 3.0

    @pointwise
    def second_kind(x):
        return tm.bessel_y0(x) * 2.0 + tm.bessel_y1(x)

    x = torch.tensor([-9.0, -2.5, -0.3, 0.2, 1.0, 4.0, 5.5, 12.0, 30.0], dtype=torch.float64, device=device)
    positive = x[x > 0].clone().requires_grad_()
    x.requires_grad_()
    assert gradcheck(first_kind, (x,)) and gradgradcheck(first_kind, (x,))
    assert gradcheck(second_kind, (positive,)) and gradgradcheck(second_kind, (positive,))
    at_zero = torch.tensor([-9.0, 0.0, 3.0, 7.0], dtype=torch.float64, device=device, requires_grad=True)
    first_kind(at_zero).sum().backward()
    second_kind(positive).sum().backward()
    ops = tritonize.ops
    v, p = at_zero.detach(), positive.detach()
    j1_slope = torch.where(v == 0, 0.5, ops.bessel_j0(v) - ops.bessel_j1(v) / v)
    torch.testing.assert_close(at_zero.grad, -ops.bessel_j1(v) + 3.0 * j1_slope)
    torch.testing.assert_close(positive.grad, -2.0 * ops.bessel_y1(p) + ops.bessel_y0(p) - ops.bessel_y1(p) / p)


def test_bessel_k_functions_differentiate(device):
    """K0' = -K1, K1' = -K0 - K1/x, (e^x K0)' = e^x (K0 - K1), (e^x K1)' = e^x (K1 (1 - 1/x) - K0), which torch
    lacks: gradcheck (and second derivatives) on both tables (x <= 2 and above), and the first derivative
    against mpmath's numerical one."""
    @pointwise
    def mix(x):
        return (tm.modified_bessel_k0(x) + tm.modified_bessel_k1(x) * 0.5 + tm.scaled_modified_bessel_k0(x) * 2.0
                + tm.scaled_modified_bessel_k1(x) * 3.0)

    x = torch.tensor([0.05, 0.3, 1.0, 1.9, 2.1, 4.0, 8.5, 30.0], dtype=torch.float64, device=device)
    x.requires_grad_()
    assert gradcheck(mix, (x,)) and gradgradcheck(mix, (x,))
    mix(x).sum().backward()
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.prec = 100

    def true_mix(t):
        k0, k1, e = mpmath.besselk(0, t), mpmath.besselk(1, t), mpmath.exp(t)
        return k0 + k1 * 0.5 + e * k0 * 2 + e * k1 * 3

    expected = torch.tensor([float(mpmath.diff(true_mix, mpmath.mpf(v))) for v in x.tolist()], dtype=torch.float64)
    torch.testing.assert_close(x.grad.cpu(), expected, rtol=1e-13, atol=0.0)


def test_rsqrt_differentiates_like_torch(device):
    @pointwise
    def inverse_norm(x, y):
        return tm.rsqrt(x * x + y * y)

    x, y = (torch.randn(16, dtype=torch.float64, generator=torch.Generator().manual_seed(s)).to(device)
            .requires_grad_() for s in (6, 7))
    assert gradcheck(inverse_norm, (x, y)) and gradgradcheck(inverse_norm, (x, y))
    inverse_norm(x, y).sum().backward()
    theirs = [t.detach().clone().requires_grad_() for t in (x, y)]
    torch.rsqrt(theirs[0] ** 2 + theirs[1] ** 2).sum().backward()
    torch.testing.assert_close(x.grad, theirs[0].grad)
    torch.testing.assert_close(y.grad, theirs[1].grad)


def test_digamma_differentiates_to_trigamma_and_lgamma_twice(device):
    """d/dx digamma is trigamma (torch.polygamma(1, x)), so lgamma has a second derivative; x < 0 too."""
    @pointwise
    def psi(x):
        return tm.digamma(x) * 3

    @pointwise
    def lg(x):
        return math.lgamma(x)

    x = torch.tensor([0.3, 1.0, 1.4616, 2.5, 7.0, 40.0, -0.5, -1.7, -3.2], dtype=torch.float64, device=device)
    x.requires_grad_()
    assert gradcheck(psi, (x,))
    psi(x).sum().backward()
    torch.testing.assert_close(x.grad, 3 * torch.polygamma(1, x.detach()), rtol=1e-8, atol=0)
    (first,) = torch.autograd.grad(lg(x).sum(), x, create_graph=True)
    (second,) = torch.autograd.grad(first.sum(), x)
    torch.testing.assert_close(second, torch.polygamma(1, x.detach()), rtol=1e-8, atol=0)
    assert "math.trigamma(" in psi.backward_source(x)


def test_a_function_without_derivative_says_where(device):
    @pointwise
    def psi(x):
        return tm.digamma(x) * 2

    x = _double(3, device=device).abs().detach().requires_grad_()
    (first,) = torch.autograd.grad(psi(x).sum(), x, create_graph=True)
    with pytest.raises(tritonize.ScalarTypeError, match="tritonize.math.trigamma has no derivative") as info:
        first.sum().backward()  # the second derivative of digamma needs polygamma(2, x)
    line = psi.scalar_function.__code__.co_firstlineno + 2  # the decorator, the def, the return
    assert f"{__file__}:{line}:" in str(info.value)

"""The backward formulas aten's autograd calls, and the fused gated activations with their
backward: torch's autograd under `enabled()` runs tritonize's backward kernels and gets torch's
gradients; silu_and_mul / gelu_and_mul match torch's unfused chain, forward and backward."""
from __future__ import annotations

import pytest
import torch

import tritonize
import tritonize.ops as tops
from test_ops_cases import TOLERANCE
from test_ops_registry import kernel_calls  # noqa: F401 - fixture

F = torch.nn.functional

AUTOGRAD = [
    ("gelu", F.gelu, "gelu_backward_kernel"),
    ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"), "gelu_tanh_backward_kernel"),
    ("silu", F.silu, "silu_backward_kernel"),
    ("sigmoid", torch.sigmoid, "sigmoid_backward_kernel"),
    ("tanh", torch.tanh, "tanh_backward_kernel"),
    ("relu", torch.relu, "threshold_backward_kernel"),
    ("elu", lambda x: F.elu(x, 1.3), "elu_backward_kernel"),
    ("elu_inplace", lambda x: F.elu(x * 1, 1.3, inplace=True), "elu_backward_from_result_kernel"),
    ("hardtanh", lambda x: F.hardtanh(x, -1.0, 1.5), "hardtanh_backward_kernel"),
    ("hardsigmoid", F.hardsigmoid, "hardsigmoid_backward_kernel"),
    ("hardswish", F.hardswish, "hardswish_backward_kernel"),
    ("leaky_relu", lambda x: F.leaky_relu(x, 0.2), "leaky_relu_backward_kernel"),
    ("softplus", lambda x: F.softplus(x, 2.0, 3.0), "softplus_backward_kernel"),
    ("logit", lambda x: torch.logit(torch.sigmoid(x)), "logit_backward_kernel"),
    ("logit_eps", lambda x: torch.logit(torch.sigmoid(x), eps=0.1), "logit_backward_eps_kernel"),
    ("prelu", lambda x: F.prelu(x, torch.tensor([0.25], device=x.device)), "prelu_backward_kernel"),
    ("hardshrink", lambda x: F.hardshrink(x, 0.7), "shrink_backward_kernel"),
    ("softshrink", lambda x: F.softshrink(x, 0.7), "shrink_backward_kernel"),
    # its CPU kernel reads the forward's buffer of exp(-|x|), its CUDA kernel computes it anew
    ("logsigmoid", F.logsigmoid, {"cpu": "log_sigmoid_backward_buffer_kernel", "cuda": "log_sigmoid_backward_kernel"}),
    ("mish", F.mish, "mish_backward_kernel"),
    # its CPU kernel stores the sigmoid in a's half first, its CUDA kernel computes both halves in one
    ("glu", lambda x: F.glu(torch.cat([x, x * 0.5]), 0), {"cpu": "glu_backward_second_half_kernel", "cuda": "glu_backward_kernel"}),
]


@pytest.mark.parametrize("name, fn, kernel", AUTOGRAD, ids=[a[0] for a in AUTOGRAD])
def test_autograd_calls_tritonize_backward_kernels(name, fn, kernel, device, kernel_calls):  # noqa: F811
    x = torch.randn(4, 9, generator=torch.Generator().manual_seed(5)).to(device) * 3
    grad = torch.randn(4, 9, generator=torch.Generator().manual_seed(6)).to(device)
    leaf = x.clone().requires_grad_()
    fn(leaf).backward(grad)
    expected = leaf.grad
    leaf = x.clone().requires_grad_()
    with tritonize.enabled(devices=(device,)):
        fn(leaf).backward(grad)
    kernel = kernel[device] if isinstance(kernel, dict) else kernel
    assert kernel in kernel_calls, f"{name}: {kernel} did not run ({sorted(set(kernel_calls))})"
    torch.testing.assert_close(leaf.grad, expected, rtol=1.3e-6, atol=1e-5)


def test_prelu_per_channel_forward_and_both_gradients(device, kernel_calls):  # noqa: F811
    """F.prelu with a weight per channel (dim 1) runs tritonize's _prelu_kernel and its backward under
    enabled(), and the weight's gradient comes out summed to its shape; tops.prelu checks as torch does."""
    generator = torch.Generator().manual_seed(8)
    x = torch.randn(2, 3, 4, 5, generator=generator).to(device)
    weight = torch.tensor([0.1, -0.2, 0.3], device=device)
    grad = torch.randn(2, 3, 4, 5, generator=generator).to(device)
    leaves = [t.clone().requires_grad_() for t in (x, weight)]
    F.prelu(*leaves).backward(grad)
    expected = [F.prelu(x, weight)] + [t.grad for t in leaves]
    leaves = [t.clone().requires_grad_() for t in (x, weight)]
    with tritonize.enabled(devices=(device,)):
        out = F.prelu(*leaves)
        out.backward(grad)
    assert {"prelu_kernel", "prelu_backward_kernel"} <= set(kernel_calls)
    for got, want in zip([out] + [t.grad for t in leaves], expected):
        torch.testing.assert_close(got, want, rtol=1.3e-6, atol=1e-5)
    torch.testing.assert_close(tops.prelu(x, weight), expected[0])
    torch.testing.assert_close(tops.prelu(x, weight[:1]), F.prelu(x, weight[:1]))  # one weight for all
    grad_input, grad_weight = tops.prelu_backward(grad, x, weight.reshape(1, 3, 1, 1))
    assert grad_weight.shape == x.shape  # of the broadcast shape, as aten's
    torch.testing.assert_close(grad_weight.sum((0, 2, 3)), expected[2], rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers and input channel size"):
        tops.prelu(x, torch.ones(4, device=device))
    with pytest.raises(RuntimeError, match="Expected `weight` to be a scalar or 1D tensor"):
        tops.prelu(x, torch.ones(3, 1, device=device))


LOSSES = [("mse", lambda x, y, reduction: F.mse_loss(x, y, reduction=reduction), "mse_loss_backward_kernel"),
          ("huber", lambda x, y, reduction: F.huber_loss(x, y, reduction=reduction, delta=0.7),
           {"cpu": "huber_loss_backward_clamped_kernel", "cuda": "huber_loss_backward_kernel"}),
          ("smooth_l1", lambda x, y, reduction: F.smooth_l1_loss(x, y, reduction=reduction, beta=0.6),
           "smooth_l1_loss_backward_kernel")]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name, loss, kernel", LOSSES, ids=[loss[0] for loss in LOSSES])
def test_loss_gradients_run_tritonize_kernels(name, loss, kernel, reduction, device, kernel_calls):  # noqa: F811
    """F.mse_loss and F.huber_loss: under enabled() autograd's mse_loss_backward / huber_loss_backward
    (for the input and, with the operands swapped, the target) are tritonize's, with torch's gradients."""
    generator = torch.Generator().manual_seed(9)
    x, y = (torch.randn(4, 9, generator=generator).to(device) for _ in range(2))
    grad = torch.randn(4, 9, generator=generator).to(device) if reduction == "none" else None
    leaves = [t.clone().requires_grad_() for t in (x, y)]
    loss(*leaves, reduction).backward(grad)
    expected = [t.grad for t in leaves]
    leaves = [t.clone().requires_grad_() for t in (x, y)]
    with tritonize.enabled(devices=(device,)):
        loss(*leaves, reduction).backward(grad)
    assert kernel_calls.count(kernel[device] if isinstance(kernel, dict) else kernel) == 2, kernel_calls
    for got, want in zip([t.grad for t in leaves], expected):
        torch.testing.assert_close(got, want, rtol=1.3e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64], ids=lambda d: str(d)[6:])
def test_loss_backward_in_each_dtype_and_what_goes_to_torch(dtype, device):
    """Each float dtype against aten's own kernel (bit for bit on CUDA and in float64); mixed dtypes and a
    result torch would resize are left to torch's kernel (Unsupported, which the registered kernel hands
    over)."""
    generator = torch.Generator().manual_seed(10)
    x, y = (torch.randn(6, 7, generator=generator).to(device, dtype) for _ in range(2))
    g = torch.tensor(0.3, dtype=dtype, device=device)
    rtol, atol = TOLERANCE[dtype]
    for reduction in (0, 1, 2):
        grad = torch.randn(6, 7, generator=generator).to(device, dtype) if reduction == 0 else g
        torch.testing.assert_close(tops.mse_loss_backward(grad, x, y, reduction),
                                   torch.ops.aten.mse_loss_backward(grad, x, y, reduction), rtol=rtol, atol=atol)
        torch.testing.assert_close(tops.huber_loss_backward(grad, x, y, reduction, 0.5),
                                   torch.ops.aten.huber_loss_backward(grad, x, y, reduction, 0.5), rtol=rtol, atol=atol)
        torch.testing.assert_close(tops.smooth_l1_loss_backward(grad, x, y, reduction, 0.5),
                                   torch.ops.aten.smooth_l1_loss_backward(grad, x, y, reduction, 0.5), rtol=rtol,
                                   atol=atol)
        if dtype == torch.float64 or device == "cuda":
            # ATen's CUDA kernels round norm and delta to the dtype and each operation to it, as these do
            # (its CPU kernels compute 16-bit huber in float32)
            assert torch.equal(tops.mse_loss_backward(grad, x, y, reduction),
                               torch.ops.aten.mse_loss_backward(grad, x, y, reduction))
            assert torch.equal(tops.huber_loss_backward(grad, x, y, reduction, 0.5),
                               torch.ops.aten.huber_loss_backward(grad, x, y, reduction, 0.5))
            assert torch.equal(tops.smooth_l1_loss_backward(grad, x, y, reduction, 0.5),
                               torch.ops.aten.smooth_l1_loss_backward(grad, x, y, reduction, 0.5))
    out = torch.empty_like(x)
    assert tops.mse_loss_backward(g, x, y, 1, out=out) is out
    with pytest.raises(RuntimeError, match="takes tensors of one dtype"):
        tops.mse_loss_backward(g.float() if dtype != torch.float32 else g.double(), x, y, 1)
    with pytest.raises(RuntimeError, match="writes a result of the input's shape"):
        tops.huber_loss_backward(g, x[:1], y, 1, 0.5)
    with pytest.raises(NotImplementedError):
        tops.mse_loss_backward(g.long(), x.long(), y.long(), 1)
    with pytest.raises(RuntimeError, match="takes beta > 0"):
        tops.smooth_l1_loss_backward(g, x, y, 1, 0.0)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_binary_cross_entropy_gradient_runs_a_tritonize_kernel(reduction, weighted, device, kernel_calls):  # noqa: F811
    """F.binary_cross_entropy: under enabled() autograd's binary_cross_entropy_backward (the input's
    gradient) is tritonize's, with torch's gradients; the target's is a composite of other aten ops."""
    generator = torch.Generator().manual_seed(11)
    x, y = (torch.rand(4, 9, generator=generator).to(device) for _ in range(2))
    weight = torch.rand(9, generator=generator).to(device) if weighted else None
    grad = torch.randn(4, 9, generator=generator).to(device) if reduction == "none" else None
    leaves = [t.clone().requires_grad_() for t in (x, y)]
    F.binary_cross_entropy(*leaves, weight=weight, reduction=reduction).backward(grad)
    expected = [t.grad for t in leaves]
    leaves = [t.clone().requires_grad_() for t in (x, y)]
    with tritonize.enabled(devices=(device,)):
        F.binary_cross_entropy(*leaves, weight=weight, reduction=reduction).backward(grad)
    assert kernel_calls.count("binary_cross_entropy_backward_kernel") == 1, kernel_calls
    for got, want in zip([t.grad for t in leaves], expected):
        torch.testing.assert_close(got, want, rtol=1.3e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64],
                         ids=lambda d: str(d)[6:])
def test_binary_cross_entropy_backward_is_atens_bit_for_bit(dtype, device):
    """Each step rounded as ATen's (the epsilon 1e-12 in the dtype: 0 in float16), the weight's product
    and the mean's division (by the reciprocal on CUDA) included, at 0 and 1 too; a weight of another
    dtype or shape goes to torch's kernel."""
    generator = torch.Generator().manual_seed(12)
    x, y = (torch.rand(37, 11, generator=generator, dtype=torch.float64).to(device, dtype) for _ in range(2))
    x[0, :3] = torch.tensor([0.0, 1.0, 0.5])
    y[0, 2] = 1.0
    weight = torch.rand(11, generator=generator, dtype=torch.float64).to(device, dtype)
    for reduction in (0, 1, 2):
        grad = (torch.randn(37, 11, generator=generator, dtype=torch.float64).to(device, dtype) if reduction == 0
                else torch.tensor(0.7, dtype=dtype, device=device))
        for w in (None, weight):
            got = tops.binary_cross_entropy_backward(grad, x, y, w, reduction)
            assert torch.equal(got, torch.ops.aten.binary_cross_entropy_backward(grad, x, y, w, reduction))
    out = torch.empty_like(x)
    assert tops.binary_cross_entropy_backward(grad, x, y, weight, 1, out=out) is out
    with pytest.raises(RuntimeError, match="takes a weight of the input's dtype"):
        tops.binary_cross_entropy_backward(grad, x, y, weight.double() if dtype != torch.float64 else weight.float())
    with pytest.raises(RuntimeError, match="takes a weight of the input's dtype"):
        tops.binary_cross_entropy_backward(grad, x, y, torch.ones(2, 37, 11, dtype=dtype, device=device))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64],
                         ids=lambda d: str(d)[6:])
def test_shrink_lambd_is_rounded_to_the_dtype_and_nan_passes_the_gradient(dtype, device):
    """hardshrink and the shrink backward compare with lambd rounded to the dtype (ATen's
    Scalar::to<scalar_t>()): 0.10002 is float16's 0.10004, whose hardshrink is then 0. At a NaN input the
    gradient passes, as ATen's per-element formula and its CUDA kernel give it (its vectorized CPU loop gives 0
    there, its per-element tail the gradient: torch is compared on the other elements)."""
    lambd = 0.10002
    rounded = torch.tensor(lambd, dtype=torch.float64).to(dtype).to(device)
    above = torch.nextafter(rounded, torch.tensor(1.0, dtype=dtype, device=device))
    x = torch.stack([rounded, -rounded, above, -above, rounded * 0, torch.full_like(rounded, float("nan"))])
    grad = torch.arange(1, 7, dtype=dtype, device=device)
    zero = torch.zeros((), dtype=dtype, device=device)
    torch.testing.assert_close(tops.hardshrink(x, lambd), torch.stack([zero, zero, above, -above, zero, x[5]]),
                               equal_nan=True, rtol=0, atol=0)
    passed = torch.stack([zero, zero, grad[2], grad[3], zero, grad[5]])
    for ours, theirs in ((tops.hardshrink_backward, torch.ops.aten.hardshrink_backward),
                         (tops.softshrink_backward, torch.ops.aten.softshrink_backward)):
        got = ours(grad, x, lambd)
        assert torch.equal(got, passed), f"{got} != {passed}"
        expected = theirs(grad, x, lambd)
        compared = slice(None) if device == "cuda" else slice(0, 5)
        assert torch.equal(got[compared], expected[compared])
    assert torch.equal(tops.hardshrink(x[:5], lambd), F.hardshrink(x[:5], lambd))
    # softshrink: torch's CUDA kernel rounds lambd to the dtype too and gives +0.0 within, its CPU kernel
    # compares with lambd in float32 and keeps the input's sign of zero
    got, expected = tops.softshrink(x, lambd), F.softshrink(x, lambd)
    torch.testing.assert_close(got, expected, equal_nan=True, rtol=0, atol=0)
    assert torch.equal(got.signbit(), expected.signbit())


def test_log_sigmoid_and_mish_backward_dtypes_and_refusals(device):
    """log_sigmoid_backward takes tensors of one dtype (ATen's kernels do; others go to torch's), and on the
    CPU reads the forward's buffer as ATen's CPU kernel does; mish_backward computes in the promoted dtype and
    returns the input's, as ATen's."""
    generator = torch.Generator().manual_seed(13)
    x, grad = (torch.randn(4, 9, generator=generator).to(device) * 3 for _ in range(2))
    _, buffer = torch.ops.aten.log_sigmoid_forward(x)
    assert torch.equal(tops.log_sigmoid_backward(grad, x, buffer), torch.ops.aten.log_sigmoid_backward(grad, x, buffer))
    if device == "cpu":
        halved = buffer / 2  # the CPU kernels read whatever the buffer holds
        torch.testing.assert_close(tops.log_sigmoid_backward(grad, x, halved),
                                   torch.ops.aten.log_sigmoid_backward(grad, x, halved))
    with pytest.raises(RuntimeError, match="takes tensors of one dtype"):
        tops.log_sigmoid_backward(grad.double(), x, buffer)
    with pytest.raises(NotImplementedError):
        tops.log_sigmoid_backward(grad.long(), x.long(), buffer.long())
    for grad_dtype, input_dtype in ((torch.float64, torch.float32), (torch.float32, torch.float16),
                                    (torch.float16, torch.bfloat16)):
        got = tops.mish_backward(grad.to(grad_dtype), x.to(input_dtype))
        expected = torch.ops.aten.mish_backward(grad.to(grad_dtype), x.to(input_dtype))
        assert got.dtype == expected.dtype == input_dtype
        rtol, atol = TOLERANCE[input_dtype]
        torch.testing.assert_close(got, expected, rtol=rtol, atol=atol)
    with pytest.raises(RuntimeError, match="writes a floating input's dtype"):
        tops.mish_backward(grad, x.long())


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=lambda d: str(d)[6:])
def test_16_bit_logit_and_smooth_l1_backward_round_as_each_devices_kernel(dtype, device):
    """16-bit logit and logit_backward: torch's CPU kernels round every step to the dtype, eps and 1 - eps
    too (eps 1.0009765 is bfloat16's 1, so 1 - eps is 0 and the results infinite, not NaN), its CUDA kernels
    compute in float32; 16-bit smooth_l1_loss_backward on the CPU computes in float32 (CUDA: in the dtype).
    Bit for bit torch's, over 4096 elements (a multiple of the CPU's vector widths: its loops' scalar tails
    order smooth l1's product otherwise)."""
    generator = torch.Generator().manual_seed(14)
    x = torch.rand(4096, generator=generator).to(device, dtype)
    x[:4] = torch.tensor([0.0, 1.0, 0.05, 0.97])
    grad = torch.randn(4096, generator=generator).to(device, dtype)
    for eps in (None, 0.1, 0.10002, 0.3337, 1.0009765):
        for got, expected in ((tops.logit(x, eps), torch.logit(x, eps)),
                              (tops.logit_backward(grad, x, eps), torch.ops.aten.logit_backward(grad, x, eps))):
            same = (got == expected) | (got.isnan() & expected.isnan())
            assert bool(same.all()), f"eps {eps}: ours {got[~same][:4]}, torch {expected[~same][:4]}"
    target = torch.randn(4096, generator=generator).to(device, dtype) * 2
    for reduction in (0, 1, 2):
        g = grad if reduction == 0 else torch.tensor(0.7, dtype=dtype, device=device)
        for beta in (0.5, 0.3337, 2.71828):
            assert torch.equal(tops.smooth_l1_loss_backward(g, x * 4, target, reduction, beta),
                               torch.ops.aten.smooth_l1_loss_backward(g, x * 4, target, reduction, beta))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64],
                         ids=lambda d: str(d)[6:])
def test_glu_backward_fills_both_halves_as_torch(dtype, device):
    """aten::glu_backward along each dim: sigmoid(b) grad and (1 - sigmoid(b)) sigmoid(b) a grad in the two
    halves of a new contiguous tensor of input's shape (transposed input too), or of out= resized to it; 16-bit
    bit for bit torch's (on the CPU its steps: the sigmoid rounded to the dtype first), float32 and float64
    within an ulp; torch's errors for an odd or missing dim and a 0-d input."""
    generator = torch.Generator().manual_seed(17)
    x = (torch.randn(4, 6, 8, generator=generator) * 3).to(device, dtype)
    for input, dim in ((x, 0), (x, 1), (x, -1), (x[:, :, 0].t(), 0)):
        shape = list(input.shape)
        shape[dim] //= 2
        grad = torch.randn(shape, generator=generator).to(device, dtype)
        got, expected = tops.glu_backward(grad, input, dim), torch.ops.aten.glu_backward(grad, input, dim)
        assert got.stride() == expected.stride() == torch.empty(input.shape).stride()
        if dtype in (torch.float16, torch.bfloat16):
            assert torch.equal(got, expected)
        else:
            rtol, atol = TOLERANCE[dtype]
            torch.testing.assert_close(got, expected, rtol=rtol, atol=atol)
    out = torch.empty(0, dtype=dtype, device=device)
    assert tops.glu_backward(grad, input, 0, out=out) is out and torch.equal(out, got)
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        tops.glu_backward(grad, x[:, :5], 1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        tops.glu_backward(grad, x, 3)
    with pytest.raises(RuntimeError, match="0-dimensional"):
        tops.glu_backward(grad, x[0, 0, 0], 0)
    with pytest.raises(RuntimeError, match="must match the size"):
        tops.glu_backward(torch.ones(3, 5, device=device, dtype=dtype), x[0], 0)


def test_glu_forward_mode_derivative_runs_glu_jvp(device, kernel_calls):  # noqa: F811
    """torch.func.jvp of F.glu under enabled(): autograd's forward formula calls aten::glu_jvp, which runs
    tritonize's kernel and gives torch's tangent; tops.glu_jvp along each dim and into out= as torch's, and
    torch's error where its CPU kernel has no 16-bit instance."""
    generator = torch.Generator().manual_seed(18)
    x, dx = (torch.randn(6, 8, generator=generator).to(device) * 2 for _ in range(2))
    expected = torch.func.jvp(lambda t: F.glu(t, 0), (x,), (dx,))
    with tritonize.enabled(devices=(device,)):
        got = torch.func.jvp(lambda t: F.glu(t, 0), (x,), (dx,))
    assert "glu_jvp_kernel" in kernel_calls
    for ours, theirs in zip(got, expected):
        torch.testing.assert_close(ours, theirs, rtol=1.3e-6, atol=1e-5)
    for dtype in (torch.float32, torch.float64):
        for dim in (0, 1, -1):
            glu = F.glu(x.to(dtype), dim)
            args = (glu, x.to(dtype), dx.to(dtype), dim)
            torch.testing.assert_close(tops.glu_jvp(*args), torch.ops.aten.glu_jvp(*args), rtol=1.3e-6, atol=1e-6)
    out = torch.empty(0, device=device)
    assert tops.glu_jvp(F.glu(x, 1), x, dx, 1, out=out) is out
    torch.testing.assert_close(out, torch.ops.aten.glu_jvp(F.glu(x, 1), x, dx, 1), rtol=1.3e-6, atol=1e-6)
    half = (F.glu(x, 0).bfloat16(), x.bfloat16(), dx.bfloat16(), 0)
    if device == "cpu":
        for fn in (tops.glu_jvp, torch.ops.aten.glu_jvp):
            with pytest.raises(NotImplementedError, match="glu_jvp_cpu"):
                fn(*half)
    else:
        torch.testing.assert_close(tops.glu_jvp(*half), torch.ops.aten.glu_jvp(*half), rtol=1.6e-2, atol=1e-2)


def test_inplace_backward_with_a_negative_slope_is_refused_as_in_torch(device):
    x, g = torch.randn(5, device=device), torch.randn(5, device=device)
    with pytest.raises(RuntimeError, match="negative slope"):
        tops.leaky_relu_backward(g, x, -0.1, True)
    with pytest.raises(RuntimeError, match="negative slope"):
        tops.elu_backward(g, -1.0, 1.0, 1.0, True, x)
    with pytest.raises(RuntimeError, match="approximate"):
        tops.gelu_backward(g, x, approximate="erf")


# -- fused gated activations --------------------------------------------------------------------

FUSED = [
    ("silu", tops.silu_and_mul, tops.silu_and_mul_backward, F.silu, {}),
    ("gelu", tops.gelu_and_mul, tops.gelu_and_mul_backward, F.gelu, {}),
    ("gelu_tanh", tops.gelu_and_mul, tops.gelu_and_mul_backward, lambda x: F.gelu(x, approximate="tanh"),
     {"approximate": "tanh"}),
]


def _inputs(dtype, device, shape=(6, 40)):
    g = torch.Generator().manual_seed(11)
    return [(torch.randn(shape, generator=g, dtype=torch.float64) * 2).to(dtype).to(device) for _ in range(3)]


@pytest.mark.parametrize("name, forward, backward, activation, kwargs", FUSED, ids=[f[0] for f in FUSED])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32], ids=lambda d: str(d)[6:])
def test_fused_forward_and_backward_against_float64(name, forward, backward, activation, kwargs, dtype, device):
    x, y, grad = _inputs(dtype, device)
    rtol, atol = TOLERANCE[dtype]
    x64, y64 = x.double().requires_grad_(), y.double().requires_grad_()
    out64 = activation(x64) * y64
    out64.backward(grad.double())
    out = forward(x, y, **kwargs)
    assert out.dtype == dtype and out.shape == x.shape
    torch.testing.assert_close(out.double(), out64.detach(), rtol=rtol, atol=atol)
    dx, dy = backward(grad, x, y, **kwargs)
    assert dx.dtype == dy.dtype == dtype
    torch.testing.assert_close(dx.double(), x64.grad, rtol=rtol, atol=atol)
    torch.testing.assert_close(dy.double(), y64.grad, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name, forward, backward, activation, kwargs", FUSED, ids=[f[0] for f in FUSED])
def test_fused_one_tensor_form_and_derived_autograd(name, forward, backward, activation, kwargs, device):
    x, y, grad = _inputs(torch.float32, device, shape=(5, 24))
    xy = torch.cat([x, y], dim=-1)
    torch.testing.assert_close(forward(xy, **kwargs), forward(x, y, **kwargs))
    dxdy = backward(grad, xy, **kwargs)
    dx, dy = backward(grad, x, y, **kwargs)
    torch.testing.assert_close(dxdy, torch.cat([dx, dy], dim=-1))
    # the forward is differentiable on its own (the gradient the DSL derives from its source)
    xl, yl = x.clone().requires_grad_(), y.clone().requires_grad_()
    forward(xl, yl, **kwargs).backward(grad)
    torch.testing.assert_close(xl.grad, dx, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(yl.grad, dy, rtol=1e-5, atol=1e-6)


def test_fused_errors(device):
    with pytest.raises(RuntimeError, match="even"):
        tops.silu_and_mul(torch.ones(3, 5, device=device))
    with pytest.raises(NotImplementedError):
        tops.silu_and_mul(torch.ones(3, 4, dtype=torch.int32, device=device), torch.ones(3, 4, device=device))
    with pytest.raises(RuntimeError, match="approximate"):
        tops.gelu_and_mul(torch.ones(3, 4, device=device), approximate="erf")
    out = torch.empty(3, 2, device=device)
    assert tops.silu_and_mul(torch.zeros(3, 4, device=device), out=out) is out

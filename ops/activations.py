"""Activations: relu, relu6, leaky_relu, elu, celu, selu, gelu (exact and tanh), silu, mish,
softplus, softsign, hardtanh, hardsigmoid, hardswish, hardshrink, softshrink, tanhshrink,
logsigmoid, threshold, glu and prelu, with ATen's formulas (so NaN, inf and -0.0 come out as in torch)."""
from __future__ import annotations

import math

import torch

import tritonize.math
from tritonize import PointwiseFunction, Promotion, pointwise
from tritonize.ops import _common as c
from tritonize.ops.math_ops import sigmoid_of

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
SQRT1_2 = 0.7071067811865476  # 1 / sqrt(2)
SQRT_2_OVER_PI = 0.7978845608028654  # sqrt(2 / pi)
GELU_KAPPA = 0.044715
ONE_SIXTH_FLOAT32 = 0.1666666716337204  # ATen's CUDA constant 1.0f / 6.0f

# -- scalar helpers (inlined wherever they are called, also by the fused and backward ops) ------


def gelu_of(x):
    return x * 0.5 * (1.0 + math.erf(x * SQRT1_2))


def gelu_tanh_of(x):
    # ATen's x + kappa * x^3, contracted into one fma by its compilers
    return 0.5 * x * (1.0 + math.tanh(SQRT_2_OVER_PI * tritonize.math.fma(GELU_KAPPA, x * x * x, x)))


def silu_of(x):
    return x / (1.0 + math.exp(-x))


# -- kernels ------------------------------------------------------------------------------------


@pointwise
def relu_kernel(input):
    return 0 if input <= 0 else input  # NaN passes through


@pointwise
def leaky_relu_kernel(input, negative_slope):
    return input if input > 0 else input * negative_slope


@pointwise
def prelu_kernel(input, weight):
    return input if input > 0 else weight * input


@pointwise
def elu_kernel(input, alpha, scale, input_scale):
    return math.expm1(input * input_scale) * (alpha * scale) if input <= 0 else input * scale


@pointwise
def gelu_kernel(input):
    return gelu_of(input)


@pointwise
def gelu_tanh_kernel(input):
    return gelu_tanh_of(input)


@pointwise
def silu_kernel(input):
    return silu_of(input)


@pointwise
def mish_kernel(input):
    return input * math.tanh(math.log1p(math.exp(input)))


@pointwise
def softplus_kernel(input, beta, threshold):
    if input * beta > threshold:
        return input
    return math.log1p(math.exp(input * beta)) / beta


@pointwise
def softplus_scaled_kernel(input, beta, inverse_beta, threshold):
    # for a power-of-two beta: dividing by it is multiplying by its inverse, exactly (one rounding
    # of the same real number either way), without a correctly rounded division per element
    if input * beta > threshold:
        return input
    return math.log1p(math.exp(input * beta)) * inverse_beta


@pointwise
def softsign_kernel(input):
    return input / (1 + abs(input))


# The piecewise activations are selects rather than min/max, so that the gradient the DSL
# derives (through the taken branch) is torch's at the kinks: 0 at min_val and max_val.
@pointwise(promotion=Promotion("default", over=("input",)))
def hardtanh_kernel(input, min_val, max_val):
    clamped = min_val if input <= min_val else (max_val if input >= max_val else input)
    return min(clamped, max_val)  # min_val > max_val gives max_val, as clamp does


# ATen's formulas, min(max(x + 3, 0), 6) / 6 and x * min(max(x + 3, 0), 6) / 6, by branches whose
# derivatives are its backward's (0 at -3, and for hardswish the gradient itself at 3): its CPU
# kernels divide by 6, its CUDA kernels multiply by 1/6 rounded to float32, which differs from the
# quotient on 20-26% of float32 elements (kept for float64 too, 3e-8 off: tritonize divides there)
@pointwise
def hardsigmoid_kernel(input):
    if input <= -3.0:
        return 0.0
    if input >= 3.0:
        return 1.0
    return (input + 3.0) / 6.0


@pointwise
def hardsigmoid_one_sixth_kernel(input):
    if input <= -3.0:
        return 0.0
    if input >= 3.0:
        return 1.0  # 6 * 1/6 in float32, and in the 16-bit dtypes
    return (input + 3.0) * ONE_SIXTH_FLOAT32


@pointwise
def hardswish_kernel(input):
    if input <= -3.0:
        return input * 0.0  # -0.0 below -3, NaN at -inf, as torch's x * 0 / 6
    # one division for both branches (selects compute every branch, and a float64 division is a dozen
    # instructions: two made float64 hardswish 0.90x eager on an H200); x * 6 / 6 is not always x in float32
    scaled = input * 6.0 if input >= 3.0 else input * (input + 3.0)
    return scaled / 6.0


@pointwise
def hardswish_one_sixth_kernel(input):
    if input <= -3.0:
        return input * 0.0
    if input >= 3.0:
        return input * 6.0 * ONE_SIXTH_FLOAT32
    return input * (input + 3.0) * ONE_SIXTH_FLOAT32


def _sixth_kernels(divides, multiplies):
    """The kernel of torch's formula for a tensor: multiplying by the float32 1/6 on CUDA (but
    float64), dividing by 6 elsewhere."""
    return lambda input: multiplies if c.on_cuda(input) and input.dtype != torch.float64 else divides


@pointwise
def hardshrink_kernel(input, lambd):
    return 0 if -lambd <= input <= lambd else input


@pointwise
def softshrink_kernel(input, lambd):
    if input > lambd:
        return input - lambd
    if input < -lambd:
        return input + lambd
    return input * 0  # zero with input's sign; NaN stays NaN


@pointwise
def softshrink_cuda_kernel(input, lambd):
    # ATen's CUDA kernel: +0.0 within [-lambd, lambd], where its CPU kernel keeps the input's sign
    if input > lambd:
        return input - lambd
    if input < -lambd:
        return input + lambd
    return input if math.isnan(input) else 0.0


@pointwise
def tanhshrink_kernel(input):
    return input - math.tanh(input)


@pointwise
def logsigmoid_kernel(input):
    return min(input, 0) - math.log1p(math.exp(-abs(input)))


@pointwise
def log_sigmoid_forward_kernel(input):
    # ATen's CPU kernel keeps exp(-|x|) for the backward
    z = math.exp(-abs(input))
    return min(input, 0) - math.log1p(z), z


@pointwise(promotion=Promotion("default", over=("input",)))
def threshold_kernel(input, threshold, value):
    return value if input <= threshold else input


@pointwise
def glu_kernel(a, b):
    return a * sigmoid_of(b)


# -- torch-compatible functions ---------------------------------------------------------------


def _pair(name, kernel, check, args_of):
    """`name(input, ...)` and `name_(input, ...)`: `args_of(input, *args)` gives the kernel's
    extra arguments after checking them. `kernel` is a @pointwise function, or a function of the
    input that chooses one (where torch's CPU and CUDA kernels compute differently)."""
    kernel_for = (lambda input: kernel) if isinstance(kernel, PointwiseFunction) else kernel

    def op(input, *args, out=None, **kwargs):
        check(input)
        return c.run(kernel_for(input), input, *args_of(input, *args, **kwargs), out=out)

    def op_(input, *args, **kwargs):
        check(input)
        return c.run(kernel_for(input), input, *args_of(input, *args, **kwargs), inplace=input)

    for fn, fn_name in ((op, name), (op_, name + "_")):
        fn.__name__ = fn.__qualname__ = fn_name
        fn.__doc__ = f"torch.{fn_name} as a tritonize kernel."
    return op, op_


def _floating(name):
    return lambda input: c.require_floating(name, input.dtype)


def _no_args(input):
    return ()


def _relu_check(input):
    if input.dtype == torch.bool:
        raise RuntimeError("Boolean inputs not supported for relu")


relu, relu_ = _pair("relu", relu_kernel, _relu_check, _no_args)


def _leaky_args(input, negative_slope=0.01):
    return (negative_slope,)


leaky_relu, leaky_relu_ = _pair("leaky_relu", leaky_relu_kernel, _floating("leaky_relu"), _leaky_args)


def prelu(input, weight):
    """torch.prelu: one weight, or one per channel (dim 1), with torch's checks; then aten::_prelu_kernel."""
    if weight.dim() not in (0, 1):
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() >= 2 else 1
        if channels != weight.numel():
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {channels}.")
    if input.dim() >= 2:
        weight = weight.reshape([1, weight.numel()] + [1] * (input.dim() - 2) if weight.numel() != 1 else [1])
    return _prelu_kernel(input, weight)


def _prelu_kernel(input, weight):
    """aten::_prelu_kernel: input where positive, weight * input elsewhere, weight broadcast as given."""
    c.require_floating("prelu", input.dtype)
    return c.run(prelu_kernel, input, weight)


def _elu_args(input, alpha=1.0, scale=1.0, input_scale=1.0):
    return alpha, scale, input_scale


elu, elu_ = _pair("elu", elu_kernel, _floating("elu"), _elu_args)


def _celu_args(input, alpha=1.0):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return alpha, 1.0, 1.0 / alpha


celu, celu_ = _pair("celu", elu_kernel, _floating("elu"), _celu_args)


def _selu_args(input):
    return SELU_ALPHA, SELU_SCALE, 1.0


selu, selu_ = _pair("selu", elu_kernel, _floating("elu"), _selu_args)


def _gelu_kernel(approximate):
    if approximate == "none":
        return gelu_kernel
    if approximate == "tanh":
        return gelu_tanh_kernel
    raise RuntimeError("approximate argument must be either none or tanh.")


def gelu(input, *, approximate="none", out=None):
    kernel = _gelu_kernel(approximate)
    c.require_floating("GeluKernelImpl", input.dtype)
    return c.run(kernel, input, out=out)


def gelu_(input, *, approximate="none"):
    kernel = _gelu_kernel(approximate)
    c.require_floating("GeluKernelImpl", input.dtype)
    return c.run(kernel, input, inplace=input)


silu, silu_ = _pair("silu", silu_kernel, _floating("silu"), _no_args)
mish, mish_ = _pair("mish", mish_kernel, _floating("mish"), _no_args)


def _softplus(input, beta, threshold):
    """The kernel and its extra arguments: beta = 1 (the default), 2, 0.5, ... multiply by 1 / beta."""
    c.require_floating("softplus", input.dtype)
    if _exact_inverse(beta):
        return softplus_scaled_kernel, (beta, 1.0 / beta, threshold)
    return softplus_kernel, (beta, threshold)


def _exact_inverse(value) -> bool:
    """Is `value` a number whose inverse is exact where the kernel computes (float32 or float64):
    a power of two from 2^-13 to 2^13?"""
    if type(value) not in (int, float) or not math.isfinite(value) or value == 0:
        return False
    mantissa, exponent = math.frexp(value)
    return abs(mantissa) == 0.5 and -12 <= exponent <= 14


def softplus(input, beta=1.0, threshold=20.0, *, out=None):
    """torch.nn.functional.softplus as a tritonize kernel."""
    kernel, args = _softplus(input, beta, threshold)
    return c.run(kernel, input, *args, out=out)


def _softplus_(input, beta=1.0, threshold=20.0):
    kernel, args = _softplus(input, beta, threshold)
    return c.run(kernel, input, *args, inplace=input)


def softsign(input, *, out=None):
    """input / (1 + |input|) (torch.nn.functional.softsign)."""
    c.require_not_bool_on_cpu("abs", input)
    return c.run(softsign_kernel, input, out=out)


def _hardtanh_check(input):
    if input.dtype == torch.bool:
        raise RuntimeError("Bool inputs not supported for hardtanh")


def _hardtanh_args(input, min_val=-1.0, max_val=1.0):
    if not input.dtype.is_floating_point:  # ATen: integer bounds, no type promotion
        min_val, max_val = int(min_val), int(max_val)
        if input.dtype == torch.uint8 and (min_val < 0 or max_val < 0):
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return min_val, max_val


hardtanh, hardtanh_ = _pair("hardtanh", hardtanh_kernel, _hardtanh_check, _hardtanh_args)


def _relu6_args(input):
    return _hardtanh_args(input, 0.0, 6.0)


relu6, relu6_ = _pair("relu6", hardtanh_kernel, _hardtanh_check, _relu6_args)
hardsigmoid, hardsigmoid_ = _pair("hardsigmoid", _sixth_kernels(hardsigmoid_kernel, hardsigmoid_one_sixth_kernel),
                                  _floating("hardsigmoid"), _no_args)
hardswish, hardswish_ = _pair("hardswish", _sixth_kernels(hardswish_kernel, hardswish_one_sixth_kernel),
                              _floating("hardswish"), _no_args)


def _hardshrink_args(input, lambd=0.5):
    # ATen compares with lambd.to<scalar_t>(): rounded to a 16-bit input's dtype, where 0.10002 is
    # float16's 0.10004 and hardshrink(0.10004) is 0
    return c.as_scalar_t(input, lambd)[1:]


hardshrink, _hardshrink_ = _pair("hardshrink", hardshrink_kernel, _floating("hardshrink"), _hardshrink_args)


def _softshrink_args(input, lambd=0.5):
    limit = torch.finfo(input.dtype).max
    if not 0 <= lambd <= limit:
        raise RuntimeError(f"lambda must be in range [0, {limit:g}] for input dtype "
                           f"{c.TYPE_NAMES[input.dtype]}, but found {lambd:g}")
    # ATen's CUDA kernel takes lambd.to<scalar_t>() (rounded to a 16-bit dtype), its CPU kernel a float
    return c.as_scalar_t(input, lambd)[1:] if c.on_cuda(input) else (lambd,)


softshrink, _softshrink_ = _pair("softshrink", lambda input: softshrink_cuda_kernel if c.on_cuda(input)
                                 else softshrink_kernel, _floating("softshrink_check"), _softshrink_args)


def tanhshrink(input, *, out=None):
    """input - tanh(input) (torch.nn.functional.tanhshrink)."""
    if input.dtype == torch.bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")
    return c.run(tanhshrink_kernel, input, out=out)


def logsigmoid(input, *, out=None):
    """log(sigmoid(input)) = min(input, 0) - log1p(exp(-|input|))."""
    c.require_floating("log_sigmoid", input.dtype)
    return c.run(logsigmoid_kernel, input, out=out)


def log_sigmoid_forward(input, *, output=None, buffer=None):
    """aten::log_sigmoid_forward: (log_sigmoid(input), buffer); the buffer holds exp(-|input|)
    on the CPU (ATen's CPU backward reads it) and is empty elsewhere, as in ATen."""
    c.require_floating("log_sigmoid", input.dtype)
    if input.device.type != "cpu":
        if output is None:
            output = logsigmoid_kernel(input)
        else:
            c.call(logsigmoid_kernel, input, out=output)
        if buffer is None:
            buffer = torch.empty(0, dtype=input.dtype, device=input.device)
        else:
            buffer.resize_(0)
        return output, buffer
    if output is None or buffer is None:
        return log_sigmoid_forward_kernel(input)
    c.call(log_sigmoid_forward_kernel, input, out=(output, buffer))
    return output, buffer


def _threshold_args(input, threshold, value):
    if not input.dtype.is_floating_point:  # ATen converts both to the input's dtype
        return c.scalar_for(input.dtype, threshold), c.scalar_for(input.dtype, value)
    if c.on_cuda(input):  # ATen's CUDA kernel compares with threshold.to<scalar_t>(), its CPU kernel in float32
        return c.as_scalar_t(input, threshold)[1], value
    return threshold, value


threshold, threshold_ = _pair("threshold", threshold_kernel, lambda input: c.require_not_bool("threshold", input.dtype),
                              _threshold_args)


def _glu_halves(input, dim):
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = dim + input.dim() if dim < 0 else dim
    size = input.shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    c.require_floating("glu", input.dtype)
    return input.narrow(dim, 0, size // 2), input.narrow(dim, size // 2, size // 2)


def glu(input, dim=-1, *, out=None):
    """a * sigmoid(b), where a and b are the halves of `input` along `dim`."""
    return c.call(glu_kernel, *_glu_halves(input, dim), out=out)

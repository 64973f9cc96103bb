"""The backward formulas ATen's autograd calls for the activations (gelu_backward, ...), prelu, dropout and the
mse, smooth l1 and huber losses, with ATen's formulas; the result dtype is the promotion of grad_output and the
saved tensor (the losses': their one dtype)."""
from __future__ import annotations

import math

import torch

import tritonize.math
from tritonize import Promotion, pointwise
from tritonize.ops import _common as c
from tritonize.ops import arithmetic as ar
from tritonize.ops.activations import GELU_KAPPA, ONE_SIXTH_FLOAT32, SQRT1_2, SQRT_2_OVER_PI
from tritonize.ops.math_ops import logit_bounds, logit_rounds_steps, sigmoid_kernel, sigmoid_of

GELU_PDF_SCALE = 0.3989422804014327  # 1 / sqrt(2 pi)

# -- scalar helpers (the fused ops' backward uses them too) -----------------------------------


# The helpers follow ATen's CUDA formulas step by step, with tritonize.math.fma where its compiler
# contracts a product and a sum into one fma (found by comparing each form with eager's results:
# benchmarks/experiments/eager_bits.py); the rounded product and sum differed on 11-48% of float32
# elements.


def gelu_grad_of(x):
    """d/dx x * Phi(x) = Phi(x) + x * phi(x), the sum uncontracted as in eager's results."""
    cdf = 0.5 * (1.0 + math.erf(x * SQRT1_2))
    pdf = GELU_PDF_SCALE * math.exp(x * x * -0.5)
    return cdf + x * pdf


def gelu_tanh_grad_of(x, kappa_times_3):
    """`kappa_times_3`: ATen's 3 * kappa is a product in the compute dtype (gelu_backward passes it),
    float32's 0.13414499 where the constant would fold to float64's 0.134145."""
    x_sq = x * x
    t = math.tanh(SQRT_2_OVER_PI * tritonize.math.fma(GELU_KAPPA, x_sq * x, x))
    left_derivative = 0.5 * (1.0 + t)
    inner_derivative = SQRT_2_OVER_PI * tritonize.math.fma(kappa_times_3, x_sq, 1.0)
    return left_derivative + 0.5 * x * tritonize.math.fma(-t, t, 1.0) * inner_derivative


def silu_grad_of(x):
    s = sigmoid_of(x)
    return s * tritonize.math.fma(x, 1.0 - s, 1.0)


# -- kernels ------------------------------------------------------------------------------------


@pointwise(promotion=Promotion("default", over=("grad_output", "input")))
def gelu_backward_kernel(grad_output, input):
    return grad_output * gelu_grad_of(input)


@pointwise(promotion=Promotion("default", over=("grad_output", "input")))
def gelu_tanh_backward_kernel(grad_output, input, kappa_times_3: float):
    return grad_output * gelu_tanh_grad_of(input, kappa_times_3)


@pointwise(promotion=Promotion("default", over=("grad_output", "input")))
def silu_backward_kernel(grad_output, input):
    s = sigmoid_of(input)
    return grad_output * s * tritonize.math.fma(input, 1.0 - s, 1.0)  # ATen's (dy * s) * (...)


@pointwise(promotion=Promotion("default", over=("grad_output", "output")))
def sigmoid_backward_kernel(grad_output, output):
    return grad_output * (1 - output) * output


@pointwise(promotion=Promotion("default", over=("grad_output", "output")))
def tanh_backward_kernel(grad_output, output):
    return grad_output * tritonize.math.fma(-1.0 * output, output, 1)  # not -output: output may be bool


# ATen's CUDA kernels (and its CPU sigmoid_backward for float16) compute these two in the 16-bit
# dtype itself, c10's arithmetic rounding every step: 30-36% of 16-bit results differ from one
# rounding of the float32 formula
@pointwise(promotion="no_opmath")
def sigmoid_backward_rounded_kernel(grad_output, output):
    return grad_output * (1 - output) * output


@pointwise(promotion="no_opmath")
def tanh_backward_rounded_kernel(grad_output, output):
    return grad_output * (1 - output * output)


@pointwise(promotion=Promotion("default", over=("grad_output", "input")))
def threshold_backward_kernel(grad_output, input, threshold):
    return 0 if input <= threshold else grad_output


@pointwise(promotion=Promotion("default", over=("grad_output", "input")))
def elu_backward_kernel(grad_output, input, negcoef, poscoef, negiptcoef):
    if input <= 0:
        return grad_output * negiptcoef * negcoef * math.exp(input * negiptcoef)
    return grad_output * poscoef


@pointwise(promotion=Promotion("default", over=("grad_output", "result")))
def elu_backward_from_result_kernel(grad_output, result, negcoef, poscoef, negiptcoef):
    # the forward's result y = negcoef * (exp(x * negiptcoef) - 1) where x <= 0
    if result <= 0:
        return grad_output * negiptcoef * (result + negcoef)
    return grad_output * poscoef


@pointwise(promotion=Promotion("default", over=("grad_output", "input")))
def hardtanh_backward_kernel(grad_output, input, min_val, max_val):
    return 0 if input <= min_val or input >= max_val else grad_output


@pointwise(promotion=Promotion("default", over=("grad_output", "input")))
def hardsigmoid_backward_kernel(grad_output, input):
    # ATen multiplies by 1/6 rounded to float32, for every dtype
    return grad_output * ONE_SIXTH_FLOAT32 if -3.0 < input < 3.0 else 0


@pointwise(promotion=Promotion("default", over=("grad_output", "input")))
def hardswish_backward_kernel(grad_output, input):
    if input <= -3.0:  # ATen's boundaries: 0 at -3, grad at 3
        return 0
    if input < 3.0:
        return grad_output * (input / 3.0 + 0.5)
    return grad_output


@pointwise(promotion=Promotion("default", over=("grad_output", "input")))
def leaky_relu_backward_kernel(grad_output, input, negative_slope):
    return grad_output if input > 0 else grad_output * negative_slope


# ATen's loss backward kernels compute in the tensors' own dtype (c10::Half arithmetic rounds each
# operation to 16 bits) with norm and delta converted to it first: no_opmath, and the wrappers round
@pointwise(promotion="no_opmath")
def mse_loss_backward_kernel(grad_output, input, target, norm):
    return norm * (input - target) * grad_output


@pointwise(promotion="no_opmath")
def smooth_l1_loss_backward_kernel(grad_output, input, target, norm, beta):
    x = input - target
    if x < -beta:
        return -norm * grad_output
    if x > beta:
        return norm * grad_output
    return norm * x * grad_output / beta


@pointwise
def smooth_l1_loss_backward_float_kernel(grad_output, input, target, norm, beta):
    # ATen's CPU kernel for 16-bit tensors computes in float32 (norm and beta float32's), in its vectorized
    # loop as here (the loop's scalar tail, a few elements of a size that is no multiple of the vector
    # width, rounds norm * x * grad / beta in another order)
    x = input - target
    if abs(x) >= beta:
        return norm * (1.0 if x > 0 else -1.0) * grad_output
    return norm * (x / beta) * grad_output


@pointwise(promotion="no_opmath")
def huber_loss_backward_kernel(grad_output, input, target, norm, delta):
    x = input - target
    if x < -delta:
        return -norm * grad_output * delta
    if x > delta:
        return norm * grad_output * delta
    return norm * x * grad_output


@pointwise(promotion="no_opmath")
def huber_loss_backward_clamped_kernel(grad_output, input, target, norm, delta):
    # ATen's CPU kernel, as its vectorized loop computes it: x clamped to [-delta, delta], then
    # norm * x * grad_output (its CUDA kernel's norm * grad_output * delta outside rounds in another order)
    x = input - target
    clamped = -delta if x <= -delta else (delta if x >= delta else x)
    return norm * clamped * grad_output


@pointwise(promotion="no_opmath")
def binary_cross_entropy_backward_kernel(grad_output, input, target, weight, epsilon, scale, divide: bool):
    # ATen's steps, each rounded to the dtype: the gradient, times the weight (its grad_input.mul_),
    # then the mean's grad_input.div_(numel), a division on the CPU and a product with the reciprocal on
    # CUDA (a weight of 1 and a scale of 1 change nothing)
    gradient = grad_output * (input - target) / max((1 - input) * input, epsilon) * weight
    return gradient / scale if divide else gradient * scale


@pointwise(promotion=(Promotion("default", over=("input",)), Promotion("default", over=("weight",))))
def prelu_backward_kernel(grad_output, input, weight):
    # aten::_prelu_kernel_backward's two gradients, both of the broadcast shape (autograd sums the
    # weight's back to its own shape)
    if input > 0:
        return grad_output, 0.0
    return weight * grad_output, input * grad_output


@pointwise(promotion=Promotion("default", over=("grad_output", "input")))
def softplus_backward_kernel(grad_output, input, beta, threshold):
    z = math.exp(input * beta)
    return grad_output if input * beta > threshold else grad_output * z / (z + 1.0)


@pointwise(promotion=Promotion("default", over=("grad_output", "input")))
def logit_backward_kernel(grad_output, input):
    if input < 0 or input > 1:
        return math.nan
    return grad_output / (input * (1 - input))


@pointwise(promotion=Promotion("default", over=("grad_output", "input")))
def logit_backward_eps_kernel(grad_output, input, low: float, high: float):
    return 0 if input < low or input > high else grad_output / (input * (1 - input))


@pointwise(promotion="no_opmath")
def logit_backward_rounded_kernel(grad_output, input):
    # ATen's CPU kernel for 16-bit tensors: each step rounded to their dtype, as its logit's
    if input < 0 or input > 1:
        return math.nan
    return grad_output / (input * (1 - input))


@pointwise(promotion="no_opmath")
def logit_backward_eps_rounded_kernel(grad_output, input, low: float, high: float):
    return 0 if input < low or input > high else grad_output / (input * (1 - input))


@pointwise
def glu_backward_kernel(grad_output, a, b):
    # ATen's CUDA kernel: both halves' gradients from one sigmoid in the compute dtype
    sigmoid = sigmoid_of(b)
    return sigmoid * grad_output, (1.0 - sigmoid) * sigmoid * grad_output * a


@pointwise
def glu_backward_second_half_kernel(sigmoid, a, grad_output):
    # ATen's CPU kernel: b's gradient from the sigmoid it stored (rounded to the dtype) in a's half first
    return (1.0 - sigmoid) * sigmoid * a * grad_output


@pointwise
def glu_jvp_kernel(glu, b, da, db):
    # F.glu's forward-mode derivative, as ATen's kernels: in the compute dtype
    sigmoid = sigmoid_of(b)
    return da * sigmoid + glu * (db - sigmoid * db)


@pointwise
def dropout_backward_kernel(grad_output, mask, scale: float):
    return grad_output * mask * scale


@pointwise(promotion=Promotion("default", over=("grad_output", "input")))
def shrink_backward_kernel(grad_output, input, lambd):
    # hardshrink's and softshrink's: 0 (never -0.0) within [-lambd, lambd], NaN's gradient passed on
    return 0 if -lambd <= input <= lambd else grad_output


@pointwise(promotion=Promotion("default", over=("grad_output", "input")))
def log_sigmoid_backward_kernel(grad_output, input):
    # ATen's CUDA kernel computes exp(-|x|) anew (the forward leaves its buffer empty there)
    z = math.exp(-abs(input))
    share = z / (1.0 + z)
    return grad_output * (1.0 - share if input < 0 else share)


@pointwise(promotion=Promotion("default", over=("grad_output", "input", "buffer")))
def log_sigmoid_backward_buffer_kernel(grad_output, input, buffer):
    # ATen's CPU kernel reads exp(-|x|) from the forward's buffer
    share = buffer / (1.0 + buffer)
    return grad_output * (1.0 - share if input < 0 else share)


@pointwise(promotion=Promotion("default", over=("grad_output", "input")))
def mish_backward_kernel(grad_output, input):
    sigmoid = 1.0 / (1.0 + math.exp(-input))
    tanh_softplus = math.tanh(math.log1p(math.exp(input)))
    return grad_output * (tanh_softplus + input * sigmoid * (1.0 - tanh_softplus * tanh_softplus))


# -- torch-compatible functions ---------------------------------------------------------------


def _floating(name, *tensors):
    c.require_floating(name, c.result_dtype(*tensors))


def gelu_backward(grad_output, input, *, approximate="none", out=None):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _floating("GeluBackwardKernelImpl", grad_output, input)
    if approximate == "none":
        return c.run(gelu_backward_kernel, *c.in_result_dtype(grad_output, input), out=out)
    dtype = c.result_dtype(grad_output, input)
    kappa_times_3 = c.opmath_number(dtype, 3.0 * c.opmath_number(dtype, GELU_KAPPA))
    return c.run(gelu_tanh_backward_kernel, *c.in_result_dtype(grad_output, input), kappa_times_3, out=out)


def silu_backward(grad_output, input, *, out=None):
    _floating("silu_backward", grad_output, input)
    return c.run(silu_backward_kernel, *c.in_result_dtype(grad_output, input), out=out)


def _rounded_steps(grad_output, output, devices) -> bool:
    """Does torch compute this backward in the 16-bit result dtype on this device?"""
    dtype = c.result_dtype(grad_output, output)
    device = output.device.type if isinstance(output, torch.Tensor) else "cpu"
    return device in devices.get(dtype, ())


def sigmoid_backward(grad_output, output, *, out=None):
    _floating("sigmoid_backward", grad_output, output)
    rounded = _rounded_steps(grad_output, output, {torch.float16: ("cpu", "cuda"), torch.bfloat16: ("cuda",)})
    kernel = sigmoid_backward_rounded_kernel if rounded else sigmoid_backward_kernel
    return c.run(kernel, *c.in_result_dtype(grad_output, output), out=out)


def tanh_backward(grad_output, output, *, out=None):
    _floating("tanh_backward", grad_output, output)
    rounded = _rounded_steps(grad_output, output, {torch.float16: ("cuda",), torch.bfloat16: ("cuda",)})
    kernel = tanh_backward_rounded_kernel if rounded else tanh_backward_kernel
    return c.run(kernel, *c.in_result_dtype(grad_output, output), out=out)


def threshold_backward(grad_output, input, threshold, *, out=None):
    dtype = c.result_dtype(grad_output, input)
    c.require_not_bool("threshold", dtype)
    if not dtype.is_floating_point:
        threshold = c.scalar_for(dtype, threshold)
    elif dtype in (torch.float16, torch.bfloat16) and c.on_cuda(input):
        # ATen's CUDA kernel compares with threshold.to<scalar_t>(), rounded to the 16-bit dtype (its CPU
        # kernel compares in float32)
        threshold = c.sixteen_bit_number(dtype, threshold)
    return c.run(threshold_backward_kernel, *c.in_result_dtype(grad_output, input), threshold, out=out)


def elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result, *, out=None):
    if is_result and alpha < 0:
        raise RuntimeError("In-place elu backward calculation is triggered with a negative slope which is not "
                           "supported. This is caused by calling in-place forward function with a negative slope, "
                           "please call out-of-place version instead.")
    _floating("elu_backward", grad_output, self_or_result)
    kernel = elu_backward_from_result_kernel if is_result else elu_backward_kernel
    # ATen's coefficients, each number and alpha * scale rounded to the compute dtype: float32's
    # 1.5 * 1.2 is 1.8000001, where the product in float64 rounds to 1.7999999
    dtype = c.result_dtype(grad_output, self_or_result)
    alpha, scale, input_scale = (c.opmath_number(dtype, x) for x in (alpha, scale, input_scale))
    return c.run(kernel, *c.in_result_dtype(grad_output, self_or_result), c.opmath_number(dtype, alpha * scale), scale,
                 input_scale, out=out)


def hardtanh_backward(grad_output, input, min_val, max_val, *, out=None):
    _floating("hardtanh_backward", grad_output, input)
    return c.run(hardtanh_backward_kernel, *c.in_result_dtype(grad_output, input), min_val, max_val, out=out)


def hardsigmoid_backward(grad_output, input, *, out=None):
    _floating("hardsigmoid_backward", grad_output, input)
    return c.run(hardsigmoid_backward_kernel, *c.in_result_dtype(grad_output, input), out=out)


def hardswish_backward(grad_output, input, *, out=None):
    _floating("hardswish_backward", grad_output, input)
    return c.run(hardswish_backward_kernel, *c.in_result_dtype(grad_output, input), out=out)


def leaky_relu_backward(grad_output, input, negative_slope, self_is_result, *, out=None):
    if self_is_result and negative_slope < 0:
        raise RuntimeError("In-place leakyReLu backward calculation is triggered with a negative slope which is "
                           "not supported. This is caused by calling in-place forward function with a negative "
                           "slope, please call out-of-place version instead. File an issue at "
                           "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu "
                           "backward calculation with negative slope")
    _floating("leaky_relu_backward", grad_output, input)
    return c.run(leaky_relu_backward_kernel, *c.in_result_dtype(grad_output, input), negative_slope, out=out)


MEAN = 1  # at::Reduction::Mean (0 is none, 2 is sum)


def _loss_operands(name, grad_output, input, target):
    """ATen's loss backward runs on one dtype, into a result of the input's shape: anything else (its
    TensorIterator casts grad_output, and resizes the result with a warning) is left to torch's kernel."""
    c.require_floating(name, input.dtype)
    if not grad_output.dtype == input.dtype == target.dtype:
        raise c.Unsupported(f"tritonize's {name} takes tensors of one dtype, got {grad_output.dtype}, "
                            f"{input.dtype} and {target.dtype}")
    if c.broadcast_shape(grad_output, input, target) != tuple(input.shape):
        raise c.Unsupported(f"tritonize's {name} writes a result of the input's shape {tuple(input.shape)}")


def _in_dtype(value: float, dtype: torch.dtype) -> float:
    """`value` as ATen's Scalar::to<scalar_t> gives it to the kernel: rounded to the dtype. float32 and
    float64 through c.opmath_number (its cached rounding: 0.14 us where a tensor's conversion took 4.6,
    twice a huber or smooth l1 backward call), 16 bits through torch's own conversion."""
    if dtype in (torch.float16, torch.bfloat16):
        return torch.tensor(value, dtype=torch.float64).to(dtype).item()
    return c.opmath_number(dtype, value)


def _norm(reduction, input, scale):
    return scale / input.numel() if reduction == MEAN and input.numel() else scale


def mse_loss_backward(grad_output, input, target, reduction, *, out=None):
    """aten::mse_loss_backward: 2 (input - target) grad_output, over input's numel for a mean."""
    _loss_operands("mse_loss_backward", grad_output, input, target)
    norm = _in_dtype(_norm(reduction, input, 2.0), input.dtype)
    return c.run(mse_loss_backward_kernel, grad_output, input, target, norm, out=out)


def smooth_l1_loss_backward(grad_output, input, target, reduction, beta, *, out=None):
    """aten::smooth_l1_loss_backward: grad_output where |input - target| > beta (signed), (input - target) /
    beta grad_output within, over input's numel for a mean."""
    if beta <= 0:
        # beta = 0 divides by zero in CUDA's kernel (0/0 at input == target) and not in the CPU's: left to
        # the device's own (F.smooth_l1_loss with beta = 0 is l1_loss, which never calls this)
        raise c.Unsupported("tritonize's smooth_l1_loss_backward takes beta > 0")
    _loss_operands("smooth_l1_loss_backward", grad_output, input, target)
    if input.device.type == "cpu" and input.dtype in (torch.float16, torch.bfloat16):
        return c.run(smooth_l1_loss_backward_float_kernel, grad_output, input, target, _norm(reduction, input, 1.0),
                     float(beta), out=out)
    norm = _in_dtype(_norm(reduction, input, 1.0), input.dtype)
    return c.run(smooth_l1_loss_backward_kernel, grad_output, input, target, norm, _in_dtype(beta, input.dtype),
                 out=out)


def huber_loss_backward(grad_output, input, target, reduction, delta, *, out=None):
    """aten::huber_loss_backward: (input - target) grad_output, clipped to +-delta, over input's numel for
    a mean."""
    _loss_operands("huber_loss_backward", grad_output, input, target)
    norm = _in_dtype(_norm(reduction, input, 1.0), input.dtype)
    kernel = huber_loss_backward_clamped_kernel if input.device.type == "cpu" else huber_loss_backward_kernel
    return c.run(kernel, grad_output, input, target, norm, _in_dtype(delta, input.dtype), out=out)


BCE_EPSILON = c.opmath_number(torch.float32, 1e-12)  # ATen's `constexpr float EPSILON = 1e-12`


def binary_cross_entropy_backward(grad_output, input, target, weight=None, reduction=MEAN, *, out=None):
    """aten::binary_cross_entropy_backward: grad_output (input - target) / max((1 - input) input, 1e-12),
    times the weight, over input's numel for a mean; the epsilon in the dtype (0 in float16), as ATen's."""
    _loss_operands("binary_cross_entropy_backward", grad_output, input, target)
    if weight is None:
        weight = 1
    elif weight.dtype != input.dtype or c.broadcast_shape(weight, input) != tuple(input.shape):
        raise c.Unsupported("tritonize's binary_cross_entropy_backward takes a weight of the input's dtype "
                            "that broadcasts to its shape")
    if out is not None and out.shape != input.shape:
        # ATen resizes it, on the CPU through a squeezed view that leaves the weight's product a mismatch
        raise c.Unsupported("tritonize's binary_cross_entropy_backward writes into a grad_input of the input's "
                            "shape")
    mean = reduction == MEAN and input.numel() > 0
    # torch's 16-bit division by a number computes in float32: its own pass after the kernel, as torch's div_
    # is; in float32 and float64 the kernel takes it, ATen's div_ by a CPU scalar: a product with the
    # reciprocal on CUDA (ar.cuda_reciprocal says why), a division on the CPU
    separate_mean = mean and input.dtype in (torch.float16, torch.bfloat16)
    scale, divide = 1, False
    if mean and not separate_mean:
        scale, divide = (ar.cuda_reciprocal(input, input.numel()), False) if input.is_cuda else (input.numel(), True)
    result = c.run(binary_cross_entropy_backward_kernel, grad_output, input, target, weight,
                   _in_dtype(BCE_EPSILON, input.dtype), scale, divide, out=out)
    return ar.div_(result, input.numel()) if separate_mean else result


def prelu_backward(grad_output, input, weight):
    """aten::_prelu_kernel_backward: (the input's gradient, the weight's), of the broadcast shape."""
    _floating("prelu_backward", grad_output, input)
    return prelu_backward_kernel(grad_output, input, weight)


def softplus_backward(grad_output, input, beta, threshold, *, out=None):
    _floating("softplus_backward", grad_output, input)
    return c.run(softplus_backward_kernel, *c.in_result_dtype(grad_output, input), beta, threshold, out=out)


def logit_backward(grad_output, input, eps=None, *, out=None):
    dtype = c.result_dtype(grad_output, input)
    c.require_floating("logit_backward", dtype)
    rounded = logit_rounds_steps(dtype, input)
    operands = c.in_result_dtype(grad_output, input, dtype=dtype)
    if eps is None or eps < 0:
        return c.run(logit_backward_rounded_kernel if rounded else logit_backward_kernel, *operands, out=out)
    kernel = logit_backward_eps_rounded_kernel if rounded else logit_backward_eps_kernel
    return c.run(kernel, *operands, *logit_bounds(eps, dtype, rounded), out=out)


def native_dropout_backward(grad_output, mask, scale):
    """aten::native_dropout_backward: grad_output * mask * scale, the scale in float32 where grad_output is
    float32 or 16-bit (ATen's CUDA kernel's float accscalar_t; its CPU kernel rounds it to a 16-bit
    grad_output's dtype first), of the broadcast shape. A floating grad_output and a bool mask, as ATen's
    CUDA kernel takes them; anything else is left to torch's kernel."""
    if not grad_output.dtype.is_floating_point or mask.dtype != torch.bool:
        raise c.Unsupported(f"tritonize's native_dropout_backward takes a floating grad_output and a bool mask, got "
                            f"{grad_output.dtype} and {mask.dtype}")
    return dropout_backward_kernel(grad_output, mask, float(scale))


def _shrink_backward(name, grad_output, input, lambd, out):
    """ATen's shrink_backward kernel, which hardshrink_backward and softshrink_backward share: lambd rounded
    to the result dtype (Scalar::to<scalar_t>(), 16 bits included) as the forwards' hardshrink does."""
    _floating(name, grad_output, input)
    grad_output, input, lambd = c.as_scalar_t(*c.in_result_dtype(grad_output, input), lambd)
    return c.run(shrink_backward_kernel, grad_output, input, lambd, out=out)


def hardshrink_backward(grad_out, input, lambd, *, out=None):
    """aten::hardshrink_backward: grad_out outside [-lambd, lambd], 0 within."""
    return _shrink_backward("shrink_backward", grad_out, input, lambd, out)


def softshrink_backward(grad_output, input, lambd, *, out=None):
    """aten::softshrink_backward: grad_output outside [-lambd, lambd], 0 within."""
    return _shrink_backward("shrink_backward", grad_output, input, lambd, out)


def log_sigmoid_backward(grad_output, input, buffer, *, out=None):
    """aten::log_sigmoid_backward: grad_output * (1 - z / (1 + z)) below 0, grad_output * z / (1 + z) elsewhere,
    z = exp(-|input|): on the CPU the forward's `buffer` (ATen's CPU kernel reads it), elsewhere computed anew
    (the forward leaves the buffer empty). Tensors of one dtype, as ATen's kernels take them."""
    tensors = (grad_output, input, buffer) if input.device.type == "cpu" else (grad_output, input)
    if len({t.dtype for t in tensors}) > 1:
        raise c.Unsupported("tritonize's log_sigmoid_backward takes tensors of one dtype, got "
                            + ", ".join(str(t.dtype) for t in tensors))
    c.require_floating("log_sigmoid_backward", input.dtype)
    if input.device.type == "cpu":
        return c.run(log_sigmoid_backward_buffer_kernel, grad_output, input, buffer, out=out)
    return c.run(log_sigmoid_backward_kernel, grad_output, input, out=out)


def mish_backward(grad_output, input):
    """aten::mish_backward: grad_output * (t + input * sigmoid(input) * (1 - t^2)), t = tanh(softplus(input)),
    of the input's dtype, as ATen's: computed in the promoted dtype on the CPU, in the input's on CUDA."""
    dtype = c.result_dtype(grad_output, input)
    c.require_floating("mish_backward", dtype)
    if not input.dtype.is_floating_point:
        raise c.Unsupported(f"tritonize's mish_backward writes a floating input's dtype, got {input.dtype}")
    if dtype != input.dtype and c.on_cuda(input):
        # ATen's CUDA kernel computes in its result's dtype (iter.dtype(), the input's), reading grad_output
        # converted to it: with a float16 grad_output and a 0-d float64 input, in float64
        if isinstance(grad_output, torch.Tensor):
            grad_output = ar.to_copy(grad_output, dtype=input.dtype)
        return mish_backward_kernel(grad_output, input)
    # ATen's CPU kernel computes in the promoted dtype, which its TensorIterator casts to the input's
    result = mish_backward_kernel(*c.in_result_dtype(grad_output, input, dtype=dtype))
    return result if result.dtype == input.dtype else result.to(input.dtype)


def glu_backward(grad_output, input, dim, *, out=None):
    """aten::glu_backward: the gradient of input's halves a and b along `dim` (glu is a * sigmoid(b)),
    sigmoid(b) * grad_output and (1 - sigmoid(b)) sigmoid(b) a grad_output, in a new contiguous tensor of
    input's shape (or `out`, resized to it), as ATen's: on CUDA from one two-output kernel, on the CPU in ATen's CPU steps (the
    sigmoid stored in a's half, rounded to the dtype, then b's half, then a's half times grad_output)."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support 0-dimensional tensors")
    dim = c.wrap_dim(dim, input.dim())
    size = input.shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    c.require_floating("glu_backward", input.dtype)
    half = size // 2
    a, b = input.narrow(dim, 0, half), input.narrow(dim, half, half)
    if grad_output.shape != a.shape or grad_output.dtype != input.dtype:
        c.broadcast_shape(a, grad_output)  # torch's error for shapes that do not broadcast
        raise c.Unsupported(f"tritonize's glu_backward takes a grad_output of input's dtype and half its shape "
                            f"{tuple(a.shape)}, got {grad_output.dtype} {tuple(grad_output.shape)}")
    if out is None:
        grad_input = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    elif out.dtype != input.dtype or out.device != input.device:
        raise c.Unsupported(f"tritonize's glu_backward writes a grad_input of input's dtype and device, got "
                            f"{out.dtype} on {out.device}")
    else:
        grad_input = out.resize_(input.shape) if out.shape != input.shape else out  # ATen's resize_as_
    grad_a, grad_b = grad_input.narrow(dim, 0, half), grad_input.narrow(dim, half, half)
    if input.device.type == "cpu":
        sigmoid_kernel(b, out=grad_a)
        glu_backward_second_half_kernel(grad_a, a, grad_output, out=grad_b)
        ar.mul_(grad_a, grad_output)
    else:
        glu_backward_kernel(grad_output, a, b, out=(grad_a, grad_b))
    return grad_input


def glu_jvp(glu, input, dx, dim, *, out=None):
    """aten::glu_jvp (F.glu's forward-mode derivative): the tangent of glu(x) along dx, da sigmoid(b) +
    glu (db - sigmoid(b) db), where b is the second half of input (aten's x) and da, db dx's halves along
    `dim`. ATen's CPU kernel has no 16-bit instances: its error there."""
    dim = c.wrap_dim(dim, input.dim())
    size = glu.shape[dim]
    if not glu.dtype == input.dtype == dx.dtype:
        raise c.Unsupported(f"tritonize's glu_jvp takes tensors of one dtype, got {glu.dtype}, {input.dtype} and {dx.dtype}")
    c.require_floating("glu_jvp", glu.dtype)
    b, da, db = input.narrow(dim, size, size), dx.narrow(dim, 0, size), dx.narrow(dim, size, size)
    if glu.device.type == "cpu" and glu.dtype in (torch.float16, torch.bfloat16):
        c.not_implemented("glu_jvp_cpu", glu.dtype)
    return c.run(glu_jvp_kernel, glu, b, da, db, out=out)

"""tritonize.ops: torch-compatible element-wise ops, every kernel a @pointwise scalar function.

    import tritonize.ops as tops
    y = tops.gelu(x, approximate="tanh")
    tops.add_(x, y, alpha=2)

`tritonize.enable()` / `tritonize.enabled()` register them as the implementation of the aten
overloads listed by `tritonize.registered_ops()` (see registry.py).
"""
from tritonize.ops.activations import (celu, celu_, elu, elu_, gelu, gelu_, glu, hardshrink, hardsigmoid,
                                       hardsigmoid_, hardswish, hardswish_, hardtanh, hardtanh_, leaky_relu,
                                       leaky_relu_, log_sigmoid_forward, logsigmoid, mish, mish_, prelu, relu, relu6,
                                       relu6_, relu_, selu, selu_, silu, silu_, softplus, softshrink, softsign,
                                       tanhshrink, threshold, threshold_)
from tritonize.ops.arithmetic import (abs, abs_, absolute, absolute_, add, add_, addcdiv, addcdiv_, addcmul,
                                      addcmul_, arctan2, arctan2_, atan2, atan2_, clamp, clamp_, clamp_max,
                                      clamp_max_, clamp_min, clamp_min_, clip, clip_, conj_physical, copy, copy_,
                                      copysign, copysign_, div, div_, divide, divide_, fill, fill_, float_power,
                                      float_power_, floor_divide, floor_divide_, fmax, fmin, fmod, fmod_,
                                      heaviside, heaviside_, hypot, hypot_, ldexp, ldexp_, lerp, lerp_,
                                      logaddexp, logaddexp2, masked_fill, masked_fill_, maximum, minimum, mul,
                                      mul_, multiply, multiply_, nan_to_num, nan_to_num_, neg, neg_, negative,
                                      negative_, nextafter, nextafter_, positive, pow, pow_, reciprocal,
                                      reciprocal_, remainder, remainder_, rsub, sgn, sgn_, sign, sign_, square,
                                      square_, sub, sub_, subtract, subtract_, to_copy, true_divide,
                                      true_divide_, where, xlog1py, xlogy, xlogy_)
from tritonize.ops.bitwise import (bitwise_and, bitwise_and_, bitwise_left_shift, bitwise_left_shift_,
                                   bitwise_not, bitwise_not_, bitwise_or, bitwise_or_, bitwise_right_shift,
                                   bitwise_right_shift_, bitwise_xor, bitwise_xor_)
from tritonize.ops.comparison import (eq, eq_, ge, ge_, greater, greater_, greater_equal, greater_equal_, gt,
                                      gt_, isclose, isfinite, isinf, isnan, isneginf, isposinf, le, le_, less,
                                      less_, less_equal, less_equal_, logical_and, logical_and_, logical_not,
                                      logical_not_, logical_or, logical_or_, logical_xor, logical_xor_, lt, lt_,
                                      ne, ne_, not_equal, not_equal_, signbit)
from tritonize.ops.math_ops import (acos, acos_, acosh, acosh_, airy_ai, angle, arccos, arccos_, arccosh, arccosh_, arcsin,
                                    arcsin_, arcsinh, arcsinh_, arctan, arctan_, arctanh, arctanh_, asin, asin_,
                                    asinh, asinh_, atan, atan_, atanh, atanh_, bessel_j0, bessel_j1, bessel_y0,
                                    bessel_y1, ceil, ceil_, cos, cos_, cosh,
                                    cosh_, deg2rad, deg2rad_, digamma, digamma_, entr, erf, erf_, erfc, erfc_, erfcx, erfinv,
                                    erfinv_, exp, exp2, exp2_, exp_, expm1, expm1_, fix, fix_, floor, floor_,
                                    frac, frac_, frexp, i0, i0_, i0e, i1, i1e, lgamma, lgamma_, log, log1p, log1p_, log2, log2_, log10,
                                    log10_, log_, log_ndtr, logit, logit_, modified_bessel_i0, modified_bessel_i1,
                                    modified_bessel_k0, modified_bessel_k1, ndtr, ndtri, polygamma, polygamma_, rad2deg, rad2deg_, round, round_, rsqrt,
                                    rsqrt_, scaled_modified_bessel_k0, scaled_modified_bessel_k1, sigmoid, sigmoid_, sin, sin_, sinc, sinc_, sinh, sinh_, spherical_bessel_j0, sqrt, sqrt_, tan, tan_,
                                    tanh, tanh_, trunc, trunc_)
from tritonize.ops.backward import (binary_cross_entropy_backward, elu_backward, gelu_backward, glu_backward,
                                    glu_jvp, hardshrink_backward, hardsigmoid_backward, hardswish_backward,
                                    hardtanh_backward, huber_loss_backward, leaky_relu_backward, log_sigmoid_backward,
                                    logit_backward, mish_backward, mse_loss_backward, native_dropout_backward,
                                    prelu_backward, sigmoid_backward, silu_backward, smooth_l1_loss_backward,
                                    softplus_backward, softshrink_backward, tanh_backward, threshold_backward)
from tritonize.ops.fused import gelu_and_mul, gelu_and_mul_backward, silu_and_mul, silu_and_mul_backward
from tritonize.ops.layout import flip

"""The op library's test cases: each case calls one tritonize.ops function and its torch
counterpart on the same arguments, described once (argument domains, constants, keyword
arguments) and shared by the accuracy, dtype, layout, edge-value and registration tests."""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Callable

import torch

import tritonize.ops as tops

F = torch.nn.functional
FLOATS = (torch.float16, torch.bfloat16, torch.float32)
ALL_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
              torch.float16, torch.bfloat16, torch.float32, torch.float64]
INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]

# rtol/atol against a float64 reference (FlagGems' tolerances), per result dtype
TOLERANCE = {
    torch.float16: (1e-3, 1e-3), torch.bfloat16: (1.6e-2, 1e-2),
    torch.float32: (1.3e-6, 1e-5), torch.float64: (1e-9, 1e-12),
}


@dataclass(frozen=True)
class T:
    """A tensor argument with values in [low, high); kind "nonzero" keeps |x| >= 0.25 (random
    sign), "int" draws integers (so equality and zero occur), "bool" draws a bool mask,
    "index" an int32 tensor of integers in [low, high] whatever the case's dtype."""

    low: float = -4.0
    high: float = 4.0
    kind: str = "float"


NZ = T(0.25, 4.0, "nonzero")
SMALL_INT = T(-2, 2, "int")
MASK = T(0, 1, "bool")


@dataclass
class Case:
    id: str
    fn: str  # the tritonize.ops function (torch's too, unless `ref` is given)
    args: tuple  # T(...) for tensors, anything else is passed as is
    ref: Callable | None = None  # the torch function with the same arguments
    kwargs: dict = field(default_factory=dict)
    floats: tuple = FLOATS  # dtypes of the accuracy test
    exact: bool = False  # compare with torch in the same dtype, bit for bit (rounding, comparisons)
    same_dtype_ref: bool = False  # compare with torch in the same dtype (discontinuous ops)
    api: Callable | None = None  # how torch users call it (for the registered path); default: ref
    inplace: bool = True  # tritonize.ops has `fn_`, and torch has `Tensor.fn_`
    shape: tuple = (5, 37)
    parity: bool = True  # part of the dtype-parity tests
    mixed: bool = True  # part of the mixed-dtype value test (a fused op rounds less than torch's chain)
    aten: bool = True  # torch's API for it reaches registered aten overloads
    tol_scale: float = 1.0

    @property
    def ours(self) -> Callable:
        return getattr(tops, self.fn)

    @property
    def theirs(self) -> Callable:
        if self.ref is not None:
            return self.ref
        return getattr(torch, self.fn)

    @property
    def tensor_count(self) -> int:
        return sum(isinstance(a, T) for a in self.args)


def seed(text: str) -> int:
    return zlib.crc32(text.encode())


def make_tensor(spec: T, dtype: torch.dtype, shape, generator, device="cpu") -> torch.Tensor:
    if spec.kind == "bool":
        return (torch.rand(shape, generator=generator) < 0.5).to(device)
    if spec.kind == "index":
        return torch.randint(int(spec.low), int(spec.high) + 1, shape, generator=generator).to(torch.int32).to(device)
    if spec.kind == "int" or not dtype.is_floating_point:
        if dtype == torch.bool:
            values = torch.rand(shape, generator=generator) < 0.5
            return (values | torch.tensor(spec.kind == "nonzero")).to(device)
        low, high = int(spec.low), int(spec.high)
        if spec.kind == "nonzero":
            low, high = 1, max(int(spec.high), 2)
        if dtype == torch.uint8:
            low = max(low, 0)
        values = torch.randint(low, high + 1, shape, generator=generator)
        if spec.kind == "nonzero" and dtype != torch.uint8:
            values = values * (torch.randint(0, 2, shape, generator=generator) * 2 - 1)
        return values.to(dtype).to(device)
    values = torch.rand(shape, generator=generator, dtype=torch.float64) * (spec.high - spec.low) + spec.low
    if spec.kind == "nonzero":
        values = values * (torch.randint(0, 2, shape, generator=generator) * 2 - 1)
    return values.to(dtype).to(device)


def make_args(case: Case, dtype, generator, device="cpu", shape=None):
    shape = case.shape if shape is None else shape
    return [make_tensor(a, dtype, shape, generator, device) if isinstance(a, T) else a for a in case.args]


def unary(id, fn=None, domain=T(), **kw):
    return Case(id, fn or id, (domain,), **kw)


def binary(id, fn=None, a=T(), b=T(), **kw):
    return Case(id, fn or id, (a, b), **kw)


ARITHMETIC = [
    binary("add"),
    binary("add_alpha", "add", kwargs={"alpha": 2}),
    binary("add_scalar", "add", b=0.75, kwargs={"alpha": 2}, inplace=True),
    binary("sub"),
    binary("sub_alpha", "sub", kwargs={"alpha": 3}),
    binary("rsub", inplace=False),
    binary("rsub_scalar", "rsub", b=1.5, kwargs={"alpha": 2}, inplace=False),
    binary("mul"),
    binary("mul_scalar", "mul", b=-2.5),
    binary("div", b=NZ),
    binary("div_trunc", "div", b=NZ, kwargs={"rounding_mode": "trunc"}, same_dtype_ref=True),
    binary("div_floor", "div", b=NZ, kwargs={"rounding_mode": "floor"}, same_dtype_ref=True),
    binary("true_divide", b=NZ),
    binary("floor_divide", b=NZ, same_dtype_ref=True),
    binary("remainder", b=NZ, same_dtype_ref=True),
    Case("remainder_scalar_tensor", "remainder", (2.5, NZ), same_dtype_ref=True, inplace=False),
    binary("fmod", b=NZ, same_dtype_ref=True),
    binary("pow", a=T(0.1, 3.0), b=T(-3.0, 3.0)),
    binary("pow_tensor_scalar", "pow", a=T(0.1, 3.0), b=2.5),
    binary("pow_tensor_cube", "pow", a=T(-3.0, 3.0), b=3),  # ATen's x * x * x (see test_ops_edge)
    binary("pow_tensor_sqrt", "pow", a=T(0.0, 3.0), b=0.5),  # ATen's sqrt
    binary("pow_square", "pow", b=2),
    Case("pow_scalar_tensor", "pow", (2.0, T(-3.0, 3.0)), inplace=False),
    binary("float_power", a=T(0.1, 3.0), b=T(-2.0, 2.0), inplace=False),  # float_power_ needs float64
    unary("neg"),
    unary("negative"),
    unary("reciprocal", domain=NZ),
    unary("square"),
    unary("abs"),
    unary("sign", exact=True),
    unary("sgn", exact=True),
    Case("addcmul", "addcmul", (T(), T(), T()), kwargs={"value": 0.5}),
    Case("addcmul_inexact_value", "addcmul", (T(), T(), T()), kwargs={"value": 0.3}),  # where fma's form shows
    Case("addcdiv", "addcdiv", (T(), T(), NZ), kwargs={"value": -1.5}),
    Case("lerp", "lerp", (T(), T(), 0.3)),
    Case("lerp_big_weight", "lerp", (T(), T(), 0.8)),
    Case("lerp_tensor", "lerp", (T(), T(), T(-0.5, 1.5))),
    Case("clamp", "clamp", (T(), -0.5, 2.0), exact=True),
    Case("clamp_max_only", "clamp", (T(),), kwargs={"max": 1.0}, exact=True),
    Case("clamp_tensor", "clamp", (T(), T(-3.0, 0.0), T(0.0, 3.0)), exact=True),
    Case("clamp_min", "clamp_min", (T(), 0.5), exact=True),
    Case("clamp_max", "clamp_max", (T(), T()), exact=True),
    binary("maximum", exact=True, inplace=False),
    binary("minimum", exact=True, inplace=False),
    binary("fmax", exact=True, inplace=False),
    binary("fmin", exact=True, inplace=False),
    binary("copysign"),
    binary("hypot"),
    binary("atan2"),
    binary("logaddexp", inplace=False),
    binary("logaddexp2", inplace=False),
    binary("xlogy", a=T(-2.0, 2.0), b=T(0.1, 4.0)),
    Case("xlogy_scalar_self", "xlogy", (2.0, T(0.1, 4.0)), inplace=False),
    binary("xlog1py", a=T(-2.0, 2.0), b=T(-0.9, 4.0), ref=torch.special.xlog1py, inplace=False),
    Case("xlog1py_scalar_self", "xlog1py", (2.0, T(-0.9, 4.0)), ref=torch.special.xlog1py, inplace=False),
    binary("heaviside", a=SMALL_INT, b=T(), exact=True),
    binary("ldexp", b=T(-3, 3, "int")),
    Case("ldexp_int_exponent", "ldexp", (T(), T(-3, 3, "index"))),
    binary("nextafter", exact=True),
    Case("where", "where", (MASK, T(), T()), exact=True, inplace=False),
    Case("where_scalar", "where", (MASK, T(), 0.5), exact=True, inplace=False),
    Case("masked_fill", "masked_fill", (T(), MASK, 2.5), ref=lambda x, m, v: x.masked_fill(m, v), exact=True),
    Case("nan_to_num", "nan_to_num", (T(),), kwargs={"nan": 1.0, "posinf": 2.0}, exact=True),
    Case("fill", "fill", (T(), 2.5), exact=True),
]

MATH = [
    unary("exp", domain=T(-5.0, 5.0)),
    unary("exp2", domain=T(-5.0, 5.0)),
    unary("expm1", domain=T(-3.0, 3.0)),
    unary("log", domain=T(0.01, 10.0)),
    unary("log2", domain=T(0.01, 10.0)),
    unary("log10", domain=T(0.01, 10.0)),
    unary("log1p", domain=T(-0.9, 10.0)),
    unary("sqrt", domain=T(0.0, 10.0)),
    unary("rsqrt", domain=T(0.01, 10.0)),
    unary("sin", domain=T(-6.0, 6.0)),
    unary("cos", domain=T(-6.0, 6.0)),
    unary("tan", domain=T(-1.4, 1.4)),
    unary("asin", domain=T(-1.0, 1.0)),
    unary("acos", domain=T(-1.0, 1.0)),
    unary("atan", domain=T(-5.0, 5.0)),
    unary("sinh", domain=T(-5.0, 5.0)),
    unary("cosh", domain=T(-5.0, 5.0)),
    unary("tanh", domain=T(-5.0, 5.0)),
    unary("asinh", domain=T(-5.0, 5.0)),
    unary("acosh", domain=T(1.0, 5.0)),
    unary("atanh", domain=T(-0.95, 0.95)),
    unary("erf", domain=T(-3.0, 3.0)),
    unary("erfc", domain=T(-3.0, 3.0)),
    unary("erfinv", domain=T(-0.99, 0.99)),
    unary("ceil", exact=True),
    unary("floor", exact=True),
    unary("round", exact=True),
    Case("round_decimals", "round", (T(),), kwargs={"decimals": 2}, same_dtype_ref=True),
    Case("round_negative_decimals", "round", (T(-400.0, 400.0),), kwargs={"decimals": -1}, same_dtype_ref=True),
    unary("trunc", exact=True),
    unary("fix", exact=True),
    unary("frac", exact=True),
    unary("deg2rad"),
    unary("rad2deg"),
    unary("sigmoid", domain=T(-8.0, 8.0)),
    unary("logit", domain=T(0.01, 0.99)),
    Case("logit_eps", "logit", (T(0.0, 1.0), 0.1)),
    unary("lgamma", domain=T(0.1, 6.0)),
    unary("digamma", domain=T(0.1, 8.0)),
    # polygamma_(input, n) takes its arguments in another order: tested in test_ops_edge
    Case("polygamma_0", "polygamma", (0, T(0.1, 8.0)), inplace=False),
    Case("polygamma_1", "polygamma", (1, T(0.1, 8.0)), inplace=False),
    Case("polygamma_1_negative", "polygamma", (1, T(-0.9, -0.1)), inplace=False),
    unary("sinc", domain=T(-3.0, 3.0)),
    # float32 only: torch's CUDA angle has no 16-bit kernel (test_ops_edge holds the CPU's, every 16-bit value)
    unary("angle", exact=True, inplace=False, floats=(torch.float32,)),
    unary("entr", domain=T(-0.5, 4.0), ref=torch.special.entr, inplace=False),
    unary("ndtr", domain=T(-6.0, 6.0), ref=torch.special.ndtr, inplace=False),
    unary("i0", domain=T(-12.0, 12.0)),
    unary("i0e", domain=T(-20.0, 20.0), ref=torch.special.i0e, inplace=False),
    unary("i1", domain=T(-12.0, 12.0), ref=torch.special.i1, inplace=False),
    unary("i1e", domain=T(-20.0, 20.0), ref=torch.special.i1e, inplace=False),
    # torch has no 16-bit kernels of these four (the dtype tests hold tritonize to its error)
    unary("ndtri", domain=T(0.001, 0.999), ref=torch.special.ndtri, inplace=False, floats=(torch.float32,)),
    unary("log_ndtr", domain=T(-12.0, 6.0), ref=torch.special.log_ndtr, inplace=False, floats=(torch.float32,)),
    unary("erfcx", domain=T(-3.0, 12.0), ref=torch.special.erfcx, inplace=False, floats=(torch.float32,)),
    unary("spherical_bessel_j0", domain=T(-12.0, 12.0), ref=torch.special.spherical_bessel_j0, inplace=False,
          floats=(torch.float32,)),
    # torch's float64 J and Y are 1e-6 off between 5 and 10 (ATen drops Cephes' leading coefficients) and lose
    # the phase x - pi/4 above 1000: each on |x| <= 2 and on [25, 400], where torch's are within 5e-14
    # (test_portable_math.py holds them to the true value everywhere); Y's nan below 0 and -inf at 0 included
    *[Case(f"{name}{suffix}", name, (domain,), ref=getattr(torch.special, name), inplace=False, floats=(torch.float32,))
      for name in ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1")
      for suffix, domain in (("", T(-2.0, 2.0)), ("_far", T(25.0, 400.0)))],
    # torch.special's modified_bessel_* and scaled_modified_bessel_*: float32 and float64 only as well; K is
    # defined for x > 0 (+inf at 0, nan below: the dtype tests' integers reach both)
    unary("modified_bessel_i0", domain=T(-12.0, 12.0), ref=torch.special.modified_bessel_i0, inplace=False,
          floats=(torch.float32,)),
    unary("modified_bessel_i1", domain=T(-12.0, 12.0), ref=torch.special.modified_bessel_i1, inplace=False,
          floats=(torch.float32,)),
    unary("modified_bessel_k0", domain=T(0.0, 12.0), ref=torch.special.modified_bessel_k0, inplace=False,
          floats=(torch.float32,)),
    unary("modified_bessel_k1", domain=T(0.0, 12.0), ref=torch.special.modified_bessel_k1, inplace=False,
          floats=(torch.float32,)),
    unary("scaled_modified_bessel_k0", domain=T(0.0, 30.0), ref=torch.special.scaled_modified_bessel_k0,
          inplace=False, floats=(torch.float32,)),
    unary("scaled_modified_bessel_k1", domain=T(0.0, 30.0), ref=torch.special.scaled_modified_bessel_k1,
          inplace=False, floats=(torch.float32,)),
    # from -2: torch's Ai drops Cephes' leading 1s between -8 and -2.09 (test_ops_edge, test_portable_math)
    unary("airy_ai", domain=T(-2.0, 8.0), ref=torch.special.airy_ai, inplace=False, floats=(torch.float32,)),
]

COMPARISON = [
    *[binary(name, a=SMALL_INT, b=SMALL_INT, exact=True) for name in ("eq", "ne", "lt", "le", "gt", "ge")],
    binary("lt_scalar", "lt", b=0.5, exact=True),
    # float32 only: torch rounds |rtol * other| + atol to a half type, tritonize keeps float32
    Case("isclose", "isclose", (T(), T()), kwargs={"rtol": 0.5, "atol": 0.1}, exact=True, inplace=False,
         floats=(torch.float32,)),
    *[unary(name, exact=True, inplace=False) for name in ("isnan", "isinf", "isfinite", "isposinf", "isneginf",
                                                          "signbit")],
    *[binary(name, a=SMALL_INT, b=SMALL_INT, exact=True) for name in ("logical_and", "logical_or", "logical_xor")],
    unary("logical_not", domain=SMALL_INT, exact=True),
]

BITWISE = [  # integer and bool only: the dtype tests cover them
    *[binary(name, a=T(-50, 50, "int"), b=T(-50, 50, "int"), floats=(), exact=True)
      for name in ("bitwise_and", "bitwise_or", "bitwise_xor")],
    binary("bitwise_and_scalar", "bitwise_and", a=T(-50, 50, "int"), b=6, floats=(), exact=True),
    unary("bitwise_not", domain=T(-50, 50, "int"), floats=(), exact=True),
    binary("bitwise_left_shift", a=T(-50, 50, "int"), b=T(0, 9, "int"), floats=(), exact=True),
    binary("bitwise_right_shift", a=T(-50, 50, "int"), b=T(0, 9, "int"), floats=(), exact=True),
]

ACTIVATIONS = [
    unary("relu", exact=True),
    unary("relu6", ref=F.relu6, domain=T(-8.0, 8.0), exact=True),
    Case("leaky_relu", "leaky_relu", (T(), 0.2), ref=F.leaky_relu),
    Case("elu", "elu", (T(), 1.5), ref=F.elu),
    Case("celu", "celu", (T(), 0.7), ref=F.celu),
    unary("selu", ref=F.selu),
    unary("gelu", ref=F.gelu),
    Case("gelu_tanh", "gelu", (T(),), kwargs={"approximate": "tanh"}, ref=F.gelu),
    unary("silu", ref=F.silu),
    unary("mish", ref=F.mish),
    Case("softplus", "softplus", (T(), 2.0, 5.0), ref=F.softplus, inplace=False),
    unary("softsign", ref=F.softsign, inplace=False),
    Case("hardtanh", "hardtanh", (T(), -2.0, 2.5), ref=F.hardtanh, exact=True),
    unary("hardsigmoid", ref=F.hardsigmoid, domain=T(-5.0, 5.0)),
    unary("hardswish", ref=F.hardswish, domain=T(-5.0, 5.0)),
    Case("hardshrink", "hardshrink", (T(), 1.0), ref=F.hardshrink, exact=True, inplace=False),
    Case("softshrink", "softshrink", (T(), 1.0), ref=F.softshrink, inplace=False),
    unary("tanhshrink", ref=F.tanhshrink, inplace=False),
    unary("logsigmoid", ref=F.logsigmoid, inplace=False),
    Case("threshold", "threshold", (T(), 0.5, -3.0), ref=F.threshold, exact=True),
    Case("glu", "glu", (T(),), ref=F.glu, shape=(5, 36), inplace=False),
    Case("glu_dim0", "glu", (T(), 0), ref=F.glu, shape=(6, 7), inplace=False),
]

def _silu_and_mul_halves(xy):
    if xy.dim() == 0 or xy.shape[-1] % 2:
        raise RuntimeError("the last dimension must be even")
    half = xy.shape[-1] // 2
    return F.silu(xy[..., :half]) * xy[..., half:]


A = torch.ops.aten
BACKWARD = [
    # not mixed: torch's CPU gelu_backward fails inside oneDNN for mixed dtypes
    Case("gelu_backward", "gelu_backward", (T(), T()), ref=A.gelu_backward, inplace=False, mixed=False),
    Case("gelu_backward_tanh", "gelu_backward", (T(), T()), kwargs={"approximate": "tanh"}, ref=A.gelu_backward,
         inplace=False, mixed=False),
    Case("silu_backward", "silu_backward", (T(), T()), ref=A.silu_backward, inplace=False),
    Case("sigmoid_backward", "sigmoid_backward", (T(), T(0.0, 1.0)), ref=A.sigmoid_backward, inplace=False),
    Case("tanh_backward", "tanh_backward", (T(), T(-1.0, 1.0)), ref=A.tanh_backward, inplace=False),
    Case("threshold_backward", "threshold_backward", (T(), T(), 0.5), ref=A.threshold_backward, exact=True,
         inplace=False),
    Case("elu_backward", "elu_backward", (T(), 1.5, 1.2, 0.8, False, T()), ref=A.elu_backward, inplace=False),
    Case("elu_backward_result", "elu_backward", (T(), 1.5, 1.0, 1.0, True, T(-1.5, 4.0)), ref=A.elu_backward,
         inplace=False),
    Case("hardtanh_backward", "hardtanh_backward", (T(), T(), -1.0, 1.5), ref=A.hardtanh_backward, exact=True,
         inplace=False),
    Case("hardsigmoid_backward", "hardsigmoid_backward", (T(), T(-5.0, 5.0)), ref=A.hardsigmoid_backward,
         inplace=False),
    Case("hardswish_backward", "hardswish_backward", (T(), T(-5.0, 5.0)), ref=A.hardswish_backward, inplace=False),
    Case("leaky_relu_backward", "leaky_relu_backward", (T(), T(), 0.1, False), ref=A.leaky_relu_backward,
         inplace=False),
    Case("softplus_backward", "softplus_backward", (T(), T(), 2.0, 3.0), ref=A.softplus_backward, inplace=False),
    Case("logit_backward", "logit_backward", (T(), T(0.01, 0.99)), ref=A.logit_backward, inplace=False),
    Case("logit_backward_eps", "logit_backward", (T(), T(0.0, 1.0), 0.1), ref=A.logit_backward, inplace=False),
    # lambd 0.7 rounds in every dtype (to float16's 0.7002, bfloat16's 0.69922): ATen compares with the rounded one
    Case("hardshrink_backward", "hardshrink_backward", (T(), T(-1.0, 1.0), 0.7), ref=A.hardshrink_backward, exact=True,
         inplace=False),
    Case("softshrink_backward", "softshrink_backward", (T(), T(-1.0, 1.0), 0.7), ref=A.softshrink_backward, exact=True,
         inplace=False),
    Case("mish_backward", "mish_backward", (T(), T()), ref=A.mish_backward, inplace=False),
    # the buffer: exp(-|input|) from the forward, which ATen's CPU kernel reads (any values: both read it) and its
    # CUDA kernel computes anew; tensors of one dtype only, as ATen's kernels take them (not part of the parity tests)
    Case("log_sigmoid_backward", "log_sigmoid_backward", (T(), T(), T(0.0, 1.0)), ref=A.log_sigmoid_backward,
         inplace=False, parity=False, mixed=False),
    # a float32 scale (1 / 0.9 rounds) where grad_output is float32 or 16-bit, as ATen's CUDA kernel; torch's CPU
    # kernel rounds it to a 16-bit grad_output's dtype (floating grad_outputs only: not part of the parity tests)
    Case("native_dropout_backward", "native_dropout_backward", (T(), MASK, 1 / 0.9), ref=A.native_dropout_backward,
         inplace=False, parity=False),
]

FUSED = [  # not aten ops: compared with torch's unfused chain
    Case("silu_and_mul", "silu_and_mul", (T(), T()), ref=lambda x, y: F.silu(x) * y, inplace=False, mixed=False,
         aten=False),
    Case("gelu_and_mul", "gelu_and_mul", (T(), T()), ref=lambda x, y, approximate="none": F.gelu(
        x, approximate=approximate) * y, inplace=False, mixed=False, aten=False),
    Case("gelu_tanh_and_mul", "gelu_and_mul", (T(), T()), kwargs={"approximate": "tanh"},
         ref=lambda x, y, approximate="none": F.gelu(x, approximate=approximate) * y, inplace=False, mixed=False,
         aten=False),
    Case("silu_and_mul_one_tensor", "silu_and_mul", (T(),), shape=(5, 36), inplace=False, aten=False, parity=False,
         ref=lambda xy: _silu_and_mul_halves(xy)),
]

LAYOUT = [  # copies over a StridedView: exact in every dtype
    Case("flip", "flip", (T(), [0, -1]), exact=True, inplace=False),
    Case("flip_dim0", "flip", (T(), (0,)), exact=True, inplace=False),
]

CASES = ARITHMETIC + MATH + COMPARISON + BITWISE + ACTIVATIONS + BACKWARD + FUSED + LAYOUT
BY_ID = {case.id: case for case in CASES}
assert len(BY_ID) == len(CASES), "case ids must be unique"


# functions tested by name outside the cases (test_ops_registry, test_ops_backward, test_ops_edge)
TESTED_ELSEWHERE = {"copy_", "copy", "to_copy", "log_sigmoid_forward", "frexp", "float_power_", "silu_and_mul_backward",
                    "gelu_and_mul_backward", "positive", "conj_physical", "glu_backward", "glu_jvp", "polygamma_", "prelu", "prelu_backward",
                    "mse_loss_backward", "huber_loss_backward", "smooth_l1_loss_backward",
                    "binary_cross_entropy_backward"}


def test_every_function_of_the_library_is_tested():
    """Each public function of tritonize.ops (aliases included) is some case's function or its
    in-place form, or is tested by name elsewhere."""
    import inspect
    covered = {id(getattr(tops, name)) for name in TESTED_ELSEWHERE}
    for case in CASES:
        covered.add(id(case.ours))
        if case.inplace and hasattr(tops, case.fn + "_"):
            covered.add(id(getattr(tops, case.fn + "_")))
    public = {name: fn for name, fn in vars(tops).items()
              if not name.startswith("_") and callable(fn) and not inspect.ismodule(fn)}
    untested = sorted(name for name, fn in public.items() if id(fn) not in covered)
    assert not untested, f"no test calls {untested}"

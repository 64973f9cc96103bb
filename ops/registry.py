"""Registration: the op library as the implementation of aten overloads, through torch.library.

    tritonize.enable(devices=("cuda",))       # until tritonize.disable()
    with tritonize.enabled(devices=("cpu",)):  # restored on exit; nesting works
        y = torch.nn.functional.gelu(x)        # runs tritonize's gelu kernel
    tritonize.registered_ops()                 # ["aten::abs", "aten::abs.out", ...]

Each overload in TABLE (the forward ops, their .out and in-place forms, and the backward
formulas autograd calls, gelu_backward ...) gets a kernel on the dispatch key of every chosen
device (CUDA, CPU). The kernel binds aten's arguments by their schema names and calls the
tritonize.ops function, below autograd (torch's own derivative formulas record the graph);
a call the library does not run (a dtype tritonize has no kernels for, a copy between devices,
a CPU call made from inside Triton's interpreter) goes to the kernel that was registered
before. Overloads that ATen implements as CompositeImplicitAutograd (square, true_divide,
relu6, selu, ...) are not registered: they decompose into overloads that are, and a backend
kernel for them would hide their autograd formula.
"""
from __future__ import annotations

import contextlib
import inspect
import threading
import warnings

import torch

import tritonize.decorator as _decorator
from tritonize.errors import without_internal_frames
from tritonize.ops import _common as c
from tritonize.ops import activations as act
from tritonize.ops import arithmetic as ar
from tritonize.ops import backward as bwd
from tritonize.ops import bitwise as bw
from tritonize.ops import comparison as cmp
from tritonize.ops import layout as lay
from tritonize.ops import math_ops as mth
from tritonize.passes.type_rules import LIBRARY_DTYPES

DISPATCH_KEYS = {"cuda": "CUDA", "cpu": "CPU"}

# aten argument names that tritonize.ops functions spell differently
# x: special_spherical_bessel_j0's, special_scaled_modified_bessel_k0's and _k1's, special_airy_ai's
_RENAMED = {"self": "input", "grad_input": "out", "x": "input"}


def _overloads(spec: str, fn) -> dict:
    """'add.{Tensor,out}' -> {'add.Tensor': fn, 'add.out': fn}; 'exp{,.out}' -> {'exp': fn,
    'exp.out': fn} (a bare name is the default overload)."""
    if "{" not in spec:
        return {spec: fn}
    head, rest = spec.split("{")
    return {head + variant: fn for variant in rest.rstrip("}").split(",")}


def _unary(name: str, fn, fn_) -> dict:
    return {name: fn, f"{name}.out": fn, f"{name}_": fn_}


def _build_table() -> dict:
    table: dict = {}

    def add(spec, fn):
        table.update(_overloads(spec, fn))

    # arithmetic
    for name in ("add", "sub"):
        add(f"{name}.{{Tensor,Scalar,out,Scalar_out}}", getattr(ar, name))
        add(f"{name}_.{{Tensor,Scalar}}", getattr(ar, name + "_"))
    add("rsub.{Tensor,Scalar,Tensor_out,Scalar_out}", ar.rsub)
    add("mul.{Tensor,Scalar,out,Scalar_out}", ar.mul)
    add("mul_.{Tensor,Scalar}", ar.mul_)
    add("div.{Tensor,Scalar,Tensor_mode,Scalar_mode,out,out_mode,Scalar_out,Scalar_mode_out}", ar.div)
    add("div_.{Tensor,Scalar,Tensor_mode,Scalar_mode}", ar.div_)
    add("floor_divide", ar.floor_divide)
    add("floor_divide.{Scalar,out,Scalar_out}", ar.floor_divide)
    add("floor_divide_.{Tensor,Scalar}", ar.floor_divide_)
    add("remainder.{Tensor,Scalar,Scalar_Tensor,Tensor_out,Scalar_out,Scalar_Tensor_out}", ar.remainder)
    add("remainder_.{Tensor,Scalar}", ar.remainder_)
    add("fmod.{Tensor,Scalar,Tensor_out,Scalar_out}", ar.fmod)
    add("fmod_.{Tensor,Scalar}", ar.fmod_)
    add("pow.{Tensor_Tensor,Tensor_Scalar,Scalar,Tensor_Tensor_out,Tensor_Scalar_out,Scalar_out}", ar.pow)
    add("pow_.{Tensor,Scalar}", ar.pow_)
    for name in ("neg", "reciprocal", "abs", "sign", "sgn", "addcmul", "addcdiv", "hypot", "atan2", "heaviside",
                 "nextafter", "nan_to_num"):
        table.update(_unary(name, getattr(ar, name), getattr(ar, name + "_")))
    add("lerp.{Scalar,Tensor,Scalar_out,Tensor_out}", ar.lerp)
    add("lerp_.{Scalar,Tensor}", ar.lerp_)
    for name in ("clamp", "clamp_min", "clamp_max"):
        add(f"{name}", getattr(ar, name))
        add(f"{name}.{{Tensor,out,Tensor_out}}", getattr(ar, name))
        add(f"{name}_", getattr(ar, name + "_"))
        add(f"{name}_.Tensor", getattr(ar, name + "_"))
    for name in ("maximum", "minimum", "fmax", "fmin", "logaddexp", "logaddexp2"):
        add(f"{name}{{,.out}}", getattr(ar, name))
    add("copysign.{Tensor,Scalar,out,Scalar_out}", ar.copysign)
    add("copysign_.{Tensor,Scalar}", ar.copysign_)
    add("xlogy.{Tensor,Scalar_Self,Scalar_Other,OutTensor,OutScalar_Self,OutScalar_Other}", ar.xlogy)
    add("xlogy_.{Tensor,Scalar_Other}", ar.xlogy_)
    add("ldexp.{Tensor,out}", ar.ldexp)
    add("ldexp_", ar.ldexp_)
    add("special_xlog1py{,.other_scalar,.self_scalar,.out,.self_scalar_out,.other_scalar_out}", ar.xlog1py)
    add("where.{self,self_out}", ar.where)
    add("masked_fill.{Scalar,Tensor,Scalar_out,Tensor_out}", ar.masked_fill)
    add("masked_fill_.{Scalar,Tensor}", ar.masked_fill_)
    add("fill.{Scalar,Tensor,Scalar_out,Tensor_out}", ar.fill)
    add("fill_.{Scalar,Tensor}", ar.fill_)
    add("conj_physical.out", ar.conj_physical)  # conj_physical and conj_physical_ return a real input itself
    add("copy_", ar.copy_)
    add("copy", ar.copy)
    add("_to_copy", ar.to_copy)

    # math
    for name in ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan",
                 "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc",
                 "erfinv", "ceil", "floor", "trunc", "frac", "deg2rad", "rad2deg", "sigmoid", "lgamma", "digamma",
                 "logit", "i0"):
        table.update(_unary(name, getattr(mth, name), getattr(mth, name + "_")))
    table.update(_unary("sinc", mth.sinc, mth.sinc_))
    add("special_entr{,.out}", mth.entr)
    add("special_ndtri{,.out}", mth.ndtri)
    add("special_log_ndtr{,.out}", mth.log_ndtr)
    add("special_erfcx{,.out}", mth.erfcx)
    add("special_i0e{,.out}", mth.i0e)
    add("special_i1{,.out}", mth.i1)
    add("special_i1e{,.out}", mth.i1e)
    add("special_spherical_bessel_j0{,.out}", mth.spherical_bessel_j0)
    for name in ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
                 "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
                 "airy_ai"):
        add(f"special_{name}{{,.out}}", getattr(mth, name))
    add("angle{,.out}", mth.angle)
    add("frexp.{Tensor,Tensor_out}", mth._frexp_aten)
    add("polygamma{,.out}", mth.polygamma)
    add("polygamma_", mth.polygamma_)
    add("round.{decimals,out,decimals_out}", mth.round)
    add("round", mth.round)
    add("round_", mth.round_)
    add("round_.decimals", mth.round_)

    # comparison and logic
    for name in ("eq", "ne", "lt", "le", "gt", "ge"):
        add(f"{name}.{{Tensor,Scalar,Tensor_out,Scalar_out}}", getattr(cmp, name))
        add(f"{name}_.{{Tensor,Scalar}}", getattr(cmp, name + "_"))
    for name in ("isnan", "isinf", "isposinf", "isneginf", "signbit"):
        add(name, getattr(cmp, name))
        add(f"{name}.out", getattr(cmp, name))
    for name in ("logical_and", "logical_or", "logical_xor", "logical_not"):
        table.update(_unary(name, getattr(cmp, name), getattr(cmp, name + "_")))

    # bitwise
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        add(f"{name}.{{Tensor,Scalar,Scalar_Tensor,Tensor_out,Scalar_out,Scalar_Tensor_out}}", getattr(bw, name))
        add(f"{name}_.{{Tensor,Scalar}}", getattr(bw, name + "_"))
    table.update(_unary("bitwise_not", bw.bitwise_not, bw.bitwise_not_))
    for name, short in (("bitwise_left_shift", "lshift"), ("bitwise_right_shift", "rshift")):
        fn, fn_ = getattr(bw, name), getattr(bw, name + "_")
        add(f"{name}.{{Tensor,Tensor_Scalar,Scalar_Tensor,Tensor_out,Tensor_Scalar_out,Scalar_Tensor_out}}", fn)
        add(f"{name}_.{{Tensor,Tensor_Scalar}}", fn_)
        add(f"__{short}__.{{Tensor,Scalar}}", fn)
        add(f"__i{short}__.{{Tensor,Scalar}}", fn_)

    # activations
    for name in ("relu", "leaky_relu", "elu", "celu", "gelu", "silu", "mish", "hardtanh", "hardsigmoid", "hardswish",
                 "threshold"):
        table.update(_unary(name, getattr(act, name), getattr(act, name + "_")))
    for name in ("softplus", "hardshrink", "softshrink", "glu"):
        add(name, getattr(act, name))
        add(f"{name}.out", getattr(act, name))
    add("log_sigmoid_forward{,.output}", act.log_sigmoid_forward)
    add("_prelu_kernel", act._prelu_kernel)

    # the backward formulas autograd calls
    for name in ("gelu_backward", "silu_backward", "sigmoid_backward", "tanh_backward", "threshold_backward",
                 "elu_backward", "hardtanh_backward", "hardsigmoid_backward", "leaky_relu_backward",
                 "softplus_backward", "logit_backward", "hardshrink_backward", "softshrink_backward",
                 "log_sigmoid_backward"):
        add(f"{name}{{,.grad_input}}", getattr(bwd, name))
    add("hardswish_backward{,.out}", bwd.hardswish_backward)
    add("_prelu_kernel_backward", bwd.prelu_backward)
    add("native_dropout_backward", bwd.native_dropout_backward)
    add("mish_backward", bwd.mish_backward)
    add("glu_backward{,.grad_input}", bwd.glu_backward)
    add("glu_jvp{,.out}", bwd.glu_jvp)
    add("mse_loss_backward{,.grad_input}", bwd.mse_loss_backward)
    add("huber_loss_backward{,.out}", bwd.huber_loss_backward)
    add("smooth_l1_loss_backward{,.grad_input}", bwd.smooth_l1_loss_backward)
    add("binary_cross_entropy_backward{,.grad_input}", bwd.binary_cross_entropy_backward)

    # layout
    add("flip{,.out}", lay.flip)
    return table


TABLE = _build_table()


def registered_ops() -> list[str]:
    """The aten overloads that `enable()` serves with tritonize kernels, e.g. 'aten::add.Tensor'."""
    return [f"aten::{name}" for name in TABLE]


# -- kernels registered with the dispatcher -----------------------------------------------------


class _Schema:
    """What one overload's kernel needs from its schema: argument names (renamed to the
    tritonize.ops spelling) and which positions hold Tensors."""

    def __init__(self, overload: str):
        name, _, variant = overload.partition(".")
        op = getattr(getattr(torch.ops.aten, name), variant or "default")
        arguments = op._schema.arguments
        self.names = [_RENAMED.get(a.name, a.name) for a in arguments]
        self.tensor_positions = [i for i, a in enumerate(arguments) if str(a.type) in ("Tensor", "Optional[Tensor]")]
        # the dispatcher passes the arguments before `*` by position and the rest by keyword
        self.positional = [name for name, a in zip(self.names, arguments) if not a.kwarg_only]
        self.renamed_keywords = any(a.kwarg_only and a.name in _RENAMED for a in arguments)
        # an out= tensor among the keywords (the .out overloads); others' keywords are numbers and strings
        self.keyword_tensors = any(a.kwarg_only and i in self.tensor_positions for i, a in enumerate(arguments))

    def takes_as_is(self, fn) -> bool:
        """Can `fn` take the dispatcher's arguments as they come: its first parameters the
        positional ones, by the same names, and no keyword to rename?"""
        parameters = [p for p in inspect.signature(fn).parameters.values()
                      if p.kind == inspect.Parameter.POSITIONAL_OR_KEYWORD]
        return not self.renamed_keywords and [p.name for p in parameters[:len(self.positional)]] == self.positional


def _interpreter_busy() -> bool:
    lock = getattr(_decorator, "_INTERPRETER_LOCK", None)
    return lock is not None and lock.locked()


_is_grad_enabled, _set_grad_enabled, _Tensor = torch.is_grad_enabled, torch._C._set_grad_enabled, torch.Tensor
_is_fwd_grad_enabled, _set_fwd_grad_enabled = torch._C._is_fwd_grad_enabled, torch._C._set_fwd_grad_enabled
_forward_ad = torch.autograd.forward_ad
_SUPPORTED = frozenset(LIBRARY_DTYPES)  # a hashed lookup on each tensor of each call


def _make_kernel(fn, schema: _Schema, original, device_type: str):
    names, tensor_positions, keyword_tensors = schema.names, schema.tensor_positions, schema.keyword_tensors
    as_is = schema.takes_as_is(fn)
    interpreted = device_type == "cpu"
    # the keyset the dispatcher hands a kernel on this key, which the kernel registered before
    # takes: built here, since a kernel registered with_keyset=True costs every call ~0.35 us more
    keyset = torch._C.DispatchKeySet(getattr(torch._C.DispatchKey, DISPATCH_KEYS[device_type]))

    def fallback(args, kwargs):
        # numbers that arrived for Tensor arguments (wrapped numbers) go back as tensors
        args = [torch.tensor(a) if i in tensor_positions and not isinstance(a, torch.Tensor) else a
                for i, a in enumerate(args)]
        return original.call_boxed(keyset, *args, **kwargs)

    def kernel(*args, **kwargs):
        # one pass over the tensors: a dtype tritonize has no kernels for goes to the kernel registered
        # before; one that requires grad needs grad mode off (below autograd, torch's own formula
        # records the graph, so tritonize must not)
        recording = False
        for value in (*args, *kwargs.values()) if kwargs and keyword_tensors else args:
            if isinstance(value, _Tensor):
                if value.dtype not in _SUPPORTED and original is not None:
                    return fallback(args, kwargs)
                if value.requires_grad:
                    recording = True
        if interpreted and original is not None and _interpreter_busy():
            return fallback(args, kwargs)
        # forward mode's formulas pass autograd's zero tensors, which have no memory (a data pointer of 0):
        # torch's kernels take those
        forward_level = _forward_ad._current_level >= 0
        if forward_level and original is not None and any(
                type(v) is _Tensor and v._is_zerotensor() for v in (*args, *kwargs.values())):
            return fallback(args, kwargs)
        positional, keywords = args, kwargs
        if not as_is:
            keywords = {_RENAMED.get(key, key): value for key, value in kwargs.items()}
            keywords.update(zip(names, args))
            positional = ()
        # grad mode is switched directly: `with torch.no_grad()` cost 1.5 us of a ~10 us call
        recording = recording and _is_grad_enabled()
        if recording:
            _set_grad_enabled(False)
        # likewise forward mode: below autograd, aten's formula computes the tangent, and a dual tensor's
        # primal can no longer be read here (unpack_dual reaches _fw_primal's kernel, which asserts)
        forward = forward_level and _is_fwd_grad_enabled()
        if forward:
            _set_fwd_grad_enabled(False)
        try:
            return fn(*positional, **keywords)
        except c.Unsupported:
            if original is None:
                raise
        except Exception as error:  # noqa: BLE001 - torch's errors for the call, raised again from here, as
            # the aten op's own come from the op: without the op library's frames
            raise without_internal_frames(error)
        finally:
            if recording:
                _set_grad_enabled(True)
            if forward:
                _set_fwd_grad_enabled(True)
        # outside the handler: an error of the kernel registered before is its own, not one raised
        # "during handling of" tritonize's refusal
        return fallback(args, kwargs)

    kernel.__name__ = kernel.__qualname__ = f"tritonize_{fn.__name__}"
    return kernel


def _original_kernel(overload: str, key: str):
    get = getattr(torch.library, "get_kernel", None)
    if get is None:
        return None
    try:
        return get(f"aten::{overload}", key)
    except Exception:  # noqa: BLE001 - no kernel for this key (e.g. CUDA in a CPU-only build)
        return None


class Registration:
    """One set of registrations (a torch.library.Library); `close()` removes them, which gives
    the dispatcher back the kernels that were there before.

    A registration nested inside another for the same device registers nothing: the outer
    one's kernels already serve, and torch 2.11 refuses a second Python kernel for an
    overload and dispatch key (later versions warn and override)."""

    _active: dict = {}  # dispatch key -> registrations open for it
    _lock = threading.Lock()

    def __init__(self, devices):
        if isinstance(devices, str):
            devices = (devices,)
        unknown = [d for d in devices if d not in DISPATCH_KEYS]
        if unknown:
            raise ValueError(f"tritonize registers for devices {sorted(DISPATCH_KEYS)}, got {unknown}")
        self.devices = tuple(devices)
        self.keys = [DISPATCH_KEYS[d] for d in dict.fromkeys(self.devices)]
        self.library = torch.library.Library("aten", "IMPL")
        with Registration._lock:
            fresh = [key for key in self.keys if not Registration._active.get(key)]
            for key in self.keys:
                Registration._active[key] = Registration._active.get(key, 0) + 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Overriding a previously registered kernel ..."
            for device in self.devices:
                key = DISPATCH_KEYS[device]
                if key not in fresh:
                    continue
                for overload, fn in TABLE.items():
                    kernel = _make_kernel(fn, _schema(overload), _original_kernel(overload, key), device)
                    self.library.impl(overload, kernel, key)

    def close(self):
        if self.library is not None:
            self.library._destroy()
            self.library = None
            with Registration._lock:
                for key in self.keys:
                    Registration._active[key] -= 1


_SCHEMAS: dict = {}


def _schema(overload: str) -> _Schema:
    found = _SCHEMAS.get(overload)
    if found is None:
        found = _SCHEMAS[overload] = _Schema(overload)
    return found


_GLOBAL: Registration | None = None
_GLOBAL_LOCK = threading.Lock()


def enable(devices=("cuda",)):
    """Serve the aten overloads of `registered_ops()` with tritonize kernels on these devices
    ("cuda", "cpu") until `disable()`. Calling it again replaces the previous registration."""
    global _GLOBAL
    with _GLOBAL_LOCK:
        if _GLOBAL is not None:
            _GLOBAL.close()
        _GLOBAL = Registration(devices)


def disable():
    """Undo `enable()`: the dispatcher gets the kernels it had before."""
    global _GLOBAL
    with _GLOBAL_LOCK:
        if _GLOBAL is not None:
            _GLOBAL.close()
            _GLOBAL = None


def is_enabled() -> bool:
    return _GLOBAL is not None


@contextlib.contextmanager
def enabled(devices=("cuda",)):
    """`with tritonize.enabled(devices=("cpu",)):` registers for the block only; registrations
    made before (an outer `enabled()` or `enable()`) are back in force on exit."""
    registration = Registration(devices)
    try:
        yield registration
    finally:
        registration.close()

"""What the thin op wrappers share: torch's result dtype for a call, torch's errors for bad
input, scalars cast to a tensor's dtype as ATen casts them, and `out=` handled like torch
(resized to the result shape when it differs). No kernels here: those are @pointwise functions."""
from __future__ import annotations

import math
import struct
import warnings

import torch

from tritonize.call import result_strides
from tritonize.errors import BroadcastError, CallError, LayoutError, OutDtypeError
from tritonize.passes.type_rules import PYTHON, TENSOR, ZERO_DIM, VType, promote

# the names ATen's dispatch macros print ("frac_cpu" not implemented for 'Long')
TYPE_NAMES = {
    torch.bool: "Bool", torch.uint8: "Byte", torch.int8: "Char", torch.int16: "Short", torch.int32: "Int",
    torch.int64: "Long", torch.float16: "Half", torch.bfloat16: "BFloat16", torch.float32: "Float",
    torch.float64: "Double",
}
# the C++ names ATen's checked scalar conversion prints
C_NAMES = {
    torch.bool: "bool", torch.uint8: "uint8_t", torch.int8: "int8_t", torch.int16: "int16_t",
    torch.int32: "int", torch.int64: "int64_t", torch.float16: "c10::Half", torch.bfloat16: "c10::BFloat16",
    torch.float32: "float", torch.float64: "double",
}


def vtype(value) -> VType:
    if isinstance(value, torch.Tensor):
        return VType(value.dtype, TENSOR if value.dim() else ZERO_DIM)
    if isinstance(value, bool):
        return VType(torch.bool, PYTHON)
    if isinstance(value, int):
        return VType(torch.int64, PYTHON)
    return VType(torch.float64, PYTHON)


def dtype_of(value) -> torch.dtype:
    """A tensor's dtype, or the dtype ATen wraps a Python number in."""
    return vtype(value).dtype


def result_dtype(*values) -> torch.dtype:
    """torch.result_type over tensors and Python numbers (None is skipped)."""
    # the commonest calls first, in one pass: tensors of one dtype with numbers that cannot lift
    # it (bools; ints beside a non-bool dtype; floats beside a floating one) give that dtype
    # (0.3 us, where the lookups below took 0.4-1.0)
    common, numbers = None, 0
    for value in values:
        if isinstance(value, torch.Tensor):
            if common is None:
                common = value.dtype
            elif value.dtype is not common:
                common = False
                break
        elif type(value) is float:
            numbers |= 2
        elif type(value) is int:
            numbers |= 1
        elif value is not None and type(value) is not bool:
            common = False
            break
    if common and (not numbers or common.is_floating_point or (numbers == 1 and common is not torch.bool)):
        return common
    if len(values) == 2:
        first, second = values
        if (isinstance(first, torch.Tensor) and (isinstance(second, torch.Tensor) or type(second) in _NUMBERS)
                or isinstance(second, torch.Tensor) and type(first) in _NUMBERS):
            return torch.result_type(first, second)  # the same rule, in C++
    # the answer depends on each value's dtype and weakness alone: keyed so, it is a dict lookup
    # (promote() in Python took 3 us, a third of a tiny registered call)
    key = (torch.get_default_dtype(), *[(v.dtype, v.dim() != 0) if isinstance(v, torch.Tensor) else type(v)
                                        for v in values if v is not None])
    found = _RESULT_DTYPES.get(key)
    if found is None:
        result = promote(*[vtype(v) for v in values if v is not None])
        found = torch.get_default_dtype() if result.priority == PYTHON and result.dtype == torch.float64 \
            else result.dtype
        _RESULT_DTYPES[key] = found
    return found


_RESULT_DTYPES: dict = {}
_NUMBERS = (bool, int, float)


def is_floating(dtype: torch.dtype) -> bool:
    return dtype.is_floating_point


def is_integral(dtype: torch.dtype, include_bool: bool) -> bool:
    return not dtype.is_floating_point and (include_bool or dtype != torch.bool)


def not_implemented(name: str, dtype: torch.dtype):
    """The error ATen's dispatch macros raise for a dtype a kernel has no instance for."""
    raise NotImplementedError(f'"{name}" not implemented for \'{TYPE_NAMES.get(dtype, dtype)}\'')


def require_floating(name: str, dtype: torch.dtype):
    if not dtype.is_floating_point:
        not_implemented(name, dtype)


def require_not_bool(name: str, dtype: torch.dtype):
    if dtype == torch.bool:
        not_implemented(name, dtype)


def require_not_bool_on_cpu(name: str, tensor):
    """Refuse bool where torch's CPU kernel has no bool instance; its CUDA kernel has one."""
    if isinstance(tensor, torch.Tensor) and tensor.dtype == torch.bool and tensor.device.type == "cpu":
        not_implemented(name, torch.bool)


def require_integral(name: str, dtype: torch.dtype):
    if dtype.is_floating_point:
        not_implemented(name, dtype)


def scalar_for(dtype: torch.dtype, value):
    """`value` (a Python number or a 0-d tensor) converted to `dtype` the way ATen's
    `Scalar::to<T>()` does (c10::checked_convert): floats truncate to integers, and a value out
    of the dtype's range is an error (negative ints may wrap into uint8; inf and nan pass into
    floats)."""
    if isinstance(value, torch.Tensor):
        value = value.item()
    if dtype == torch.bool:
        return bool(value)
    if dtype.is_floating_point:
        value = float(value)
        if math.isfinite(value) and dtype != torch.float64 and abs(value) > torch.finfo(dtype).max:
            _overflow(dtype)
        return value
    info = torch.iinfo(dtype)
    if isinstance(value, float):
        if value != value or not info.min <= value <= info.max:
            _overflow(dtype)
        return int(value)
    value = int(value)
    if dtype == torch.uint8 and -info.max <= value < 0:
        return value % 256
    if not info.min <= value <= info.max:
        _overflow(dtype)
    return value


def on_cuda(value) -> bool:
    """Is `value` a CUDA tensor? Ops whose torch kernels compute differently on the CPU and on
    CUDA choose their kernel by it."""
    return isinstance(value, torch.Tensor) and value.device.type == "cuda"


def keep(memo: dict, key, value):
    """`value`, stored under `key` in one of the op library's memos of a number's conversions (a training
    loop passes the same few numbers every step), which is emptied when it reaches 1024 entries."""
    if len(memo) >= 1024:
        memo.clear()
    memo[key] = value
    return value


def opmath_number(dtype: torch.dtype, value: float) -> float:
    """A number as torch's float kernels hold it for a computation in `dtype` (`Scalar::to<opmath_t>()`):
    rounded to float32, the compute dtype of float32 and 16-bit tensors, and kept for float64."""
    if dtype == torch.float64:
        return float(value)
    # kept per Python number: an optimizer step passes the same few (its rate, betas, weight decay)
    # on every call, and packing took ~0.35 us of a ~6 us in-place addcmul_ on the CPU machine; a
    # zero is rounded anew, since -0.0 and 0.0 are one key, and other kinds of value (a 0-d tensor,
    # a NumPy scalar) are not kept
    kept = value and type(value) in (float, int)
    found = _FLOAT32_ROUNDED.get(value) if kept else None
    if found is None:
        try:
            found = struct.unpack("f", struct.pack("f", value))[0]
        except OverflowError:  # rounds past float32's largest value: inf, as the C cast gives
            found = math.copysign(math.inf, value)
        if kept:
            keep(_FLOAT32_ROUNDED, value, found)
    return found


_FLOAT32_ROUNDED: dict = {}  # opmath_number's: a number -> float32's nearest value, as a Python float


def _overflow(dtype):
    raise RuntimeError(f"value cannot be converted to type {C_NAMES[dtype]} without overflow")


def as_scalar_t(*values):
    """The arguments as ATen's kernels whose functors take scalar_t (remainder, fmod, pow, atan2,
    hypot, xlogy, the comparisons, the dividend of div) read them where the result is 16-bit: a
    Python number or a 0-d tensor in CPU memory (gpu_kernel_with_scalars's CPU scalar) as the float16
    or bfloat16 value, where the arithmetic kernels (add, mul, a divisor) read it exactly in float32,
    as tritonize's kernels do. torch.remainder(x_f16, 0.1001) is x % 0.10009765625 on either device."""
    # the commonest calls first, in one pass: a 16-bit tensor and a number (whose result dtype is the
    # tensor's), tensors with dims only (no scalar to convert), or a wider float tensor with dims (no
    # 16-bit result); result_dtype (0.6 us) only for the rest
    scalars = sixteen_bit = False
    for value in values:
        if isinstance(value, torch.Tensor):
            dtype = value.dtype
            if dtype is torch.float16 or dtype is torch.bfloat16:
                sixteen_bit = True
            elif (dtype is torch.float32 or dtype is torch.float64) and value.dim():
                return values
            if not value.dim():
                scalars = True
        else:
            scalars = True
    if not (scalars and sixteen_bit):
        return values
    if len(values) == 2:
        first, second = values
        if type(second) in _NUMBERS and isinstance(first, torch.Tensor) and first.dim():
            return first, sixteen_bit_number(first.dtype, second)
        if type(first) in _NUMBERS and isinstance(second, torch.Tensor) and second.dim():
            return sixteen_bit_number(second.dtype, first), second
    dtype = result_dtype(*values)
    if dtype is not torch.float16 and dtype is not torch.bfloat16:
        return values
    return tuple([sixteen_bit_number(dtype, v) if type(v) in _NUMBERS else _tensor_as(dtype, v) for v in values])


def _tensor_as(dtype, value):
    """A 0-d CPU tensor of another dtype as a 0-d CPU tensor of the 16-bit `dtype`, which promotes as the
    original did; any other value unchanged."""
    if not isinstance(value, torch.Tensor) or value.dim() or value.dtype in (dtype, torch.bool) \
            or value.device.type != "cpu":
        return value
    return value.to(dtype)


def sixteen_bit_number(dtype, value):
    """A Python number as its 16-bit `dtype` value: c10 converts a double to float16 or bfloat16 through
    float32. Bools, zeros (of either sign), infinities and NaN are exact; an integer stays one (pow's
    kernels look for integer exponents)."""
    key = (dtype, type(value), value)  # 1, 1.0 and True are one key without their type
    found = _SCALAR_T.get(key)
    if found is not None:
        return found
    if type(value) is bool or not value or not math.isfinite(value):
        return value  # never kept: -0.0 and 0.0 are one key, and a NaN never meets its own
    found = torch.tensor(float(value), dtype=torch.float32).to(dtype).item()
    if type(value) is int and math.isfinite(found):
        found = int(found)
    return keep(_SCALAR_T, key, found)


_SCALAR_T: dict = {}  # sixteen_bit_number's: (16-bit dtype, type, a number) -> its 16-bit value, as a Python number


def in_result_dtype(*values, dtype=None):
    """The arguments, with tensors converted to the result dtype where ATen converts every input to
    it first and the kernels, which promote operation by operation, would compute with other values:
    log(int8) would be computed in float32 before it meets a float64 operand, and log of an integer
    or of a 0-d float32 tensor in float32 before it meets a bfloat16 one (ATen rounds them to bfloat16
    first). `dtype`: their result dtype, where the caller has it already (a lookup less per call)."""
    dtype = result_dtype(*values) if dtype is None else dtype
    if dtype is torch.float64:
        converts = [isinstance(v, torch.Tensor) and v.dtype is not dtype for v in values]
    elif dtype is torch.float16 or dtype is torch.bfloat16:  # bools are exact in any dtype
        converts = [isinstance(v, torch.Tensor) and v.dtype is not dtype and v.dtype is not torch.bool
                    for v in values]
    else:
        return values
    if not any(converts):
        return values
    from tritonize.ops.arithmetic import to_copy  # the cast kernels live with copy_
    return tuple(to_copy(v, dtype=dtype) if convert else v for v, convert in zip(values, converts))


def zero_dim_in(dtype, *values):
    """The arguments, with 0-d tensors of another dtype (a float64 wrapped number, which promotes weakly)
    converted to the result dtype, as ATen's TensorIterator converts them before its kernel reads them:
    a kernel would otherwise compute with the float64 value (logaddexp's sum cancels near 0)."""
    if not any(isinstance(v, torch.Tensor) and not v.dim() and v.dtype is not dtype for v in values):
        return values
    return tuple(v.to(dtype) if isinstance(v, torch.Tensor) and not v.dim() and v.dtype is not dtype and
                 v.dtype is not torch.bool else v for v in values)


def wrap_dim(dim: int, rank: int) -> int:
    """`dim` as a non-negative dim of a tensor of `rank` dims, with torch's error where it is out of range."""
    if not -rank <= dim < rank:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {dim})")
    return dim % rank


def broadcast_shape(*values) -> tuple:
    """The broadcast shape of the tensors among `values`, with torch's error if there is none."""
    shape: list = []
    for value in values:
        if not isinstance(value, torch.Tensor):
            continue
        other = list(value.shape)
        if len(other) > len(shape):
            shape = [1] * (len(other) - len(shape)) + shape
        other = [1] * (len(shape) - len(other)) + other
        for i, (a, b) in enumerate(zip(shape, other)):
            if a != b and a != 1 and b != 1:
                raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                                   f"non-singleton dimension {i}")
            if a == 1:
                shape[i] = b
    return tuple(shape)


def prepare_out(out: torch.Tensor, shape: tuple, like: tuple = ()) -> torch.Tensor:
    """Resize `out` to `shape` as ATen's `resize_output` does (warning if it had elements). A resized out
    takes the layout a new result would have, following the tensors among `like` (TensorIterator's
    set_output_raw_strided restrides it: exp(x.t(), out=torch.empty(0)) is transposed as x.t() is)."""
    if tuple(out.shape) != tuple(shape):
        if out.numel() != 0:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape {list(out.shape)}, which "
                f"does not match the required output shape {list(shape)}. This behavior is deprecated, and in a "
                f"future PyTorch release outputs will not be resized unless they have zero elements. You can "
                f"explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
                UserWarning, stacklevel=3)
        out.resize_(shape)
        out.as_strided_(shape, result_strides(shape, [t for t in like if isinstance(t, torch.Tensor)]))
    return out


def call(fn, *args, out=None):
    """Run a @pointwise function, allocating its result or writing into `out` like torch's
    `out=` (resized to the broadcast shape of the tensor arguments if it differs)."""
    if out is None:
        return fn(*args)
    if isinstance(out, torch.Tensor):
        # an out= of the broadcast shape is written as it is; a call tritonize refuses (out of
        # another shape among its reasons) writes nothing, and the steps below resize out as
        # torch would and raise torch's error for what remains wrong
        try:
            fn(*args, out=out)
            return out
        except LayoutError:
            raise  # no resizing mends a sparse or nested tensor (whose shape a nested one cannot even give)
        except CallError:
            pass
    shape = broadcast_shape(*args)
    for o in out if isinstance(out, tuple) else (out,):
        prepare_out(o, shape, like=args)
    try:
        fn(*args, out=out)
    except OutDtypeError as error:
        raise cast_error(error) from None
    return out


def cast_error(error: OutDtypeError) -> RuntimeError:
    """torch's words for an out= (or in-place self) the result type can't be cast to."""
    return RuntimeError(f"result type {TYPE_NAMES[error.result_dtype]} can't be cast to the desired output type "
                        f"{TYPE_NAMES[error.out_dtype]}")


class Unsupported(RuntimeError):
    """Inputs the op library does not run (another device, layout or dtype); the registered
    kernels hand such calls to the kernel they replaced."""


def run(kernel, *args, out=None, inplace=None):
    """The functional (`out=None`), out= or in-place (`inplace=self`) form of a kernel call.
    Shapes that do not broadcast, an in-place self that is not the broadcast shape, and a self
    or out= the result type can't be cast to raise torch's errors (tritonize's own name the
    parameters, which aten's callers never see)."""
    # torch's errors are raised after the handler of tritonize's: raised inside it, they would show
    # tritonize's error above theirs ("During handling of the above exception, another ...")
    if inplace is not None:
        try:
            kernel(*args, out=inplace)
            return inplace
        except LayoutError:
            raise  # a sparse or nested self or argument: torch's shape checks below cannot read it
        except CallError as error:
            refused = error
        shape = broadcast_shape(*args)
        if shape != tuple(inplace.shape):
            raise RuntimeError(f"output with shape {list(inplace.shape)} doesn't match the broadcast shape "
                               f"{list(shape)}")
        if isinstance(refused, OutDtypeError):
            raise cast_error(refused)
        raise refused
    if out is None:
        try:
            return kernel(*args)
        except BroadcastError as error:
            refused = error
        broadcast_shape(*args)
        raise refused
    return call(kernel, *args, out=out)

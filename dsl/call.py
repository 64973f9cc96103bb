"""Plan one call: classify arguments, broadcast, validate or allocate outputs (laid out like
the inputs, as TensorIterator does), coalesce dims, choose the index width.

Everything here is host-side Python on shapes and strides; no tensor is touched except to
allocate outputs. An input may be a StridedView (strides of any sign): it answers the same
questions as a tensor (shape, stride(), data_ptr() of its first element, ...), and the rules
below compare strides by magnitude where their sign does not matter.
"""
from __future__ import annotations

import functools
import math
import numbers
import sys
import os
from dataclasses import dataclass

import torch

from tritonize.errors import (BroadcastError, CallError, DeviceError, DtypeError, LayoutError, OutArgumentError,
                              OutDtypeError)
from tritonize.overlap import apart_at_every_size, elements_overlap, layout_of, tensor_overlaps_itself
from tritonize.passes.context import PAIR_STRIDE
from tritonize.passes.type_rules import PYTHON, SUPPORTED_DTYPES, TENSOR, ZERO_DIM, VType, dtype_name
from tritonize.view import StridedView

INT32_LIMIT = 2**31 - 1


@dataclass
class Operand:
    """A tensor (or StridedView input) taking part in the kernel, with its strides over the
    broadcast shape."""

    label: str
    tensor: torch.Tensor | StridedView
    strides: list


@dataclass
class CallPlan:
    shape: tuple  # the broadcast shape of the call (the outputs' shape)
    device: torch.device
    vtypes: dict  # param -> VType
    kernel_values: dict  # param -> tensor or Python number as the kernel takes it
    inputs: list  # Operand for every input tensor with dims
    outputs: list  # Operand, one per output
    sizes: tuple = ()  # coalesced sizes, outermost first
    index_dtype: torch.dtype = torch.int32
    blocks: tuple = ()  # BLOCK (flat), or the tile's (BLOCK0, BLOCK1)
    warps: int = 1
    moved_bytes: int = 0  # what the launch reads and writes at least (moved_bytes, inputs the function reads)

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def rank(self) -> int:
        return len(self.sizes)


def refuse_unstrided(tensor: torch.Tensor, described: str, name: str | None = None):
    """A LayoutError where `tensor` keeps no strided storage (sparse, mkldnn, nested), saying which argument
    (`name`) or output (`name` None) it is: a kernel reads and writes a pointer and strides, which such a
    tensor has not (its data_ptr() raises, and its strides, where it has some, describe no memory)."""
    nested = tensor.is_nested
    if not nested and tensor.layout is torch.strided:
        return
    kind = "a nested tensor" if nested else f"a {str(tensor.layout).removeprefix('torch.')} tensor"
    if name is None:
        raise LayoutError(f"{described} is {kind}: tritonize kernels write strided tensors (a pointer and "
                          f"strides); out= takes a strided tensor")
    hint = (f"call it on each component, or on {name}.to_padded_tensor(0.0)" if nested
            else f"pass {name}.to_dense()")
    raise LayoutError(f"{described} is {kind}: tritonize kernels read strided tensors (a pointer and strides); {hint}")


def classify(label: str, value, annotation=None, read_as=None):
    """(VType, value for the kernel) of one argument; refuses what no kernel can take. A 0-d
    StridedView is its one element, a 0-d tensor; other views stay views until launch.
    `read_as`: the parameter's dtype annotation, which a tensor takes (its loads convert) and a
    number the Python kind of (float(), int(), bool())."""
    if isinstance(value, (torch.Tensor, StridedView)):
        if annotation is not None:
            raise CallError(f"argument '{label}' is annotated `{annotation.__name__}`, so it must be a "
                            f"Python number, got a tensor of shape {tuple(value.shape)}")
        # refuse_unstrided's own test, inline: a class launch (a new shape) classifies every tensor, and the
        # call would cost it ~0.1 us each where the two attribute reads cost half that
        if isinstance(value, torch.Tensor) and (value.layout is not torch.strided or value.is_nested):
            refuse_unstrided(value, f"argument '{label}'", label)
        if value.dtype not in SUPPORTED_DTYPES:
            supported = ", ".join(dtype_name(d) for d in SUPPORTED_DTYPES)
            raise DtypeError(f"argument '{label}' has dtype {dtype_name(value.dtype)}, which tritonize kernels "
                             f"do not support; supported: {supported}")
        dtype = value.dtype if read_as is None else read_as
        if value.dim() == 0:
            return VType(dtype, ZERO_DIM), value.pointer if isinstance(value, StridedView) else value
        return VType(dtype, TENSOR), value
    if isinstance(value, numbers.Number) and not isinstance(value, complex):
        if hasattr(value, "item"):  # numpy scalars
            value = value.item()
        number_type = converted_number_type(annotation, read_as)
        if number_type is not None:
            value = convert_number(label, value, number_type)
        if isinstance(value, bool):
            return VType(torch.bool, PYTHON), value
        if isinstance(value, int):
            if not -2**63 <= value < 2**63:
                raise CallError(f"argument '{label}' = {value} does not fit in int64")
            return VType(torch.int64, PYTHON), value
        if isinstance(value, float):
            return VType(torch.float64, PYTHON), value
    if _is_numpy_bool(value):  # numpy's bool is no numbers.Number: a Python bool (checked only here, off the
        return classify(label, value.item(), annotation, read_as)  # path of every number)
    kind = type(value)
    raise CallError(f"argument '{label}' must be a tensor or a Python number (int, float, bool), "
                    f"got {kind.__name__ if kind.__module__ == 'builtins' else f'{kind.__module__}.{kind.__name__}'}")


def _is_numpy_bool(value) -> bool:
    """Is `value` a numpy.bool_ (numpy imported only where the caller's program has)?"""
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.bool_)


def converted_number_type(annotation, read_as):
    """What a number for a parameter is converted to (None: taken as it comes): its scalar
    annotation, else the Python kind of its dtype annotation (float, int or bool)."""
    if annotation is None and read_as is not None:
        return float if read_as.is_floating_point else bool if read_as == torch.bool else int
    return annotation


def int64_bits(value) -> int:
    """A uint64 0-d tensor's value as the int64 of the same bits (from 2^63 up it fits no int64)."""
    return int(value.view(torch.int64))


def convert_number(label: str, value, annotation):
    """`value` as its parameter's annotation makes it (int(2.7) == 2), or a CallError naming
    the argument where no such number exists (int(nan), int(inf), float(2**2000))."""
    try:
        converted = annotation(value)
    except (ValueError, OverflowError) as error:
        raise CallError(f"argument '{label}' = {value!r} cannot be converted to "
                        f"`{annotation.__name__}` as its annotation asks: {error}") from None
    if isinstance(converted, int) and not isinstance(converted, bool) and not -2**63 <= converted < 2**63:
        raise CallError(f"argument '{label}' = {value!r} converted to `{annotation.__name__}` is "
                        f"{converted}, which does not fit in int64")
    return converted


def common_device(tensors: dict) -> torch.device:
    """The device the kernel runs on; 0-d CPU tensors may join tensors on a GPU, as in torch."""
    devices = {}
    for label, tensor in tensors.items():
        if tensor.dim() == 0 and tensor.device.type == "cpu":
            continue
        devices.setdefault(tensor.device, label)
    if len(devices) > 1:
        described = ", ".join(f"'{label}' on {device}" for device, label in devices.items())
        raise DeviceError(f"expected all tensors on one device, got {described}")
    device = next(iter(devices), torch.device("cpu"))
    if device.type not in ("cuda", "cpu"):
        raise DeviceError(f"tritonize runs on CUDA (compiled) and CPU (Triton's interpreter) tensors, "
                          f"not on {device}")
    return device


def broadcast_shape(shapes: dict) -> tuple:
    result: list = []
    owners: list = []
    for label, shape in shapes.items():
        shape = tuple(shape)
        pad = len(shape) - len(result)
        if pad > 0:
            result = [1] * pad + result
            owners = [None] * pad + owners
        offset = len(result) - len(shape)
        for i, size in enumerate(shape):
            j = offset + i
            if result[j] == size or size == 1:
                continue
            if result[j] == 1:
                result[j], owners[j] = size, label
                continue
            raise BroadcastError(f"shapes do not broadcast: '{owners[j]}' has shape {tuple(shapes[owners[j]])} "
                                 f"and '{label}' has shape {shape} (size {result[j]} vs {size} at dim {j - len(result)})")
        for j in range(offset, len(result)):
            if owners[j] is None and shape[j - offset] != 1:
                owners[j] = label
    return tuple(result)


def broadcast_runs(shapes: list) -> tuple | None:
    """(shape, runs) of tensors of these shapes broadcast together: the shape, and its dims of two
    elements or more grouped into runs of neighbours along which the same tensors are broadcast,
    each run (mask, dims): which tensors are broadcast along it (size 1 there, or missing), and its
    dims, outermost first. None where the shapes do not broadcast or hold a size 0."""
    rank = max(map(len, shapes))
    padded = [(1,) * (rank - len(own)) + tuple(own) for own in shapes]
    shape, runs = [], []
    for dim, column in enumerate(zip(*padded)):  # each dim's sizes, a tensor's each
        size = max(column)
        if not {1, size}.issuperset(column) or size == 0:
            return None
        shape.append(size)
        if size == 1:
            continue
        mask = tuple([n == 1 for n in column])
        if runs and runs[-1][0] == mask:
            runs[-1][1].append(dim)
        else:
            runs.append((mask, [dim]))
    return tuple(shape), runs


def expanded_strides(tensor: torch.Tensor, shape: tuple) -> list:
    """Strides of `tensor` broadcast to `shape` (0 where it is broadcast), in elements."""
    pad = len(shape) - tensor.dim()
    strides = [0] * pad
    for size, stride, target in zip(tensor.shape, tensor.stride(), shape[pad:]):
        strides.append(0 if size == 1 and target != 1 else stride)
    return strides


def layout_permutation(shape: tuple, stride_lists: list) -> list:
    """Dims innermost first, ordered by the inputs' strides (TensorIterator's reorder_dimensions);
    by magnitude, so that a flipped operand orders its dims as the unflipped one."""
    ndim = len(shape)
    perm = list(range(ndim - 1, -1, -1))

    def should_swap(dim0, dim1):
        for strides in stride_lists:
            s0, s1 = abs(strides[dim0]), abs(strides[dim1])
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[dim0] > shape[dim1]:
                return 1
        return 0

    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    return perm


def allocation_strides(shape: tuple, perm: list) -> list:
    strides = [0] * len(shape)
    running = 1
    for dim in perm:
        strides[dim] = running
        running *= shape[dim]
    return strides


def result_strides(shape: tuple, tensors) -> list:
    """The strides of a new result of `shape` for a call on `tensors`: their physical order
    (TensorIterator's), row-major where they have none or the result has no elements (torch.empty's
    strides then, as allocation_strides' products of a 0 would be broadcast strides)."""
    if 0 in shape:
        strides, running = [], 1
        for size in reversed(shape):
            strides.append(running)
            running *= max(size, 1)
        return strides[::-1]
    return allocation_strides(shape, layout_permutation(shape, [expanded_strides(t, shape) for t in tensors]))


def row_major_strides(shape: tuple) -> tuple:
    """torch.empty(shape)'s strides where no size is 0: row-major, the last dim innermost
    (allocation_strides of the dims innermost first; its own loop, as a class launch asks this
    several times a call)."""
    strides, running = [], 1
    for size in reversed(shape):
        strides.append(running)
        running *= size
    return tuple(reversed(strides))


def is_row_major(tensor) -> bool:
    """Are the tensor's strides torch.empty's of its shape, a size-1 dim's too? is_contiguous() reads
    a flag torch keeps (most tensors take no more), but says nothing of a size-1 dim's stride, which
    the outputs' layout follows."""
    shape = tensor.shape
    return tensor.is_contiguous() and (1 not in shape or tensor.stride() == row_major_strides(tuple(shape)))


def coalesce(shape: tuple, perm: list, stride_lists: list) -> tuple[list, list]:
    """Drop size-1 dims and merge neighbours that are contiguous in every operand.

    Returns sizes outermost first, and each operand's strides in that order. The test is
    signed: dims of strides (-12, -4) with sizes (2, 3) merge into stride -4, while (12, -4)
    do not merge.
    """
    groups = coalesced_dims(shape, perm, stride_lists)
    if not groups:  # a single element: one dim of size 1
        return [1], [[0] for _ in stride_lists]
    # a merged dim's stride is its innermost dim's
    return ([math.prod([shape[d] for d in group]) for group in groups],
            [[strides[group[-1]] for group in groups] for strides in stride_lists])


def coalesced_dims(shape: tuple, perm: list, stride_lists: list) -> list:
    """The dims of `shape` (outermost first, in `perm`'s order, size-1 dims dropped) that coalesce
    merges into each of its dims: each next dim joins the one before where every operand steps
    over the one before's elements in its stride."""
    groups: list = []
    for d in reversed(perm):
        size = shape[d]
        if size == 1:
            continue
        if groups:
            inner = groups[-1][-1]
            if all(strides[inner] == strides[d] * shape[d] for strides in stride_lists):
                groups[-1].append(d)
                continue
        groups.append([d])
    return groups


def fits_int32(sizes: list, stride_lists: list, block: int) -> bool:
    if math.prod(sizes) + block > INT32_LIMIT:
        return False
    for strides in stride_lists:
        span = 0  # the operand's farthest element; loops rather than sum() of a generator: ~0.5 us a call
        for n, s in zip(sizes, strides):
            span += (n - 1) * (s if s >= 0 else -s)
        if span > INT32_LIMIT:
            return False
    return True


def memory_span(tensor: torch.Tensor) -> tuple[int, int]:
    """[lowest byte, highest byte + 1) that the tensor's (or view's) elements occupy."""
    size = tensor.element_size()
    low = high = tensor.data_ptr()
    for n, s in zip(tensor.shape, tensor.stride()):
        if n == 0:
            return low, low
        reach = (n - 1) * s * size
        if reach < 0:
            low += reach
        else:
            high += reach
    return low, high + size


def check_output(label: str, out, shape: tuple, dtype: torch.dtype, device: torch.device):
    if isinstance(out, StridedView):
        raise OutArgumentError(f"{label} is a StridedView, which is a read-only input; out= takes a tensor")
    if not isinstance(out, torch.Tensor):
        raise OutArgumentError(f"{label} must be a tensor, got {type(out).__name__}")
    refuse_unstrided(out, label)
    # device and dtype first, as torch checks them: a zero-element out of the wrong shape is one that a
    # call resizes (PointwiseFunction._resize_empty) unless these refuse it
    if out.device != device:
        raise OutArgumentError(f"{label} is on {out.device}, but the inputs are on {device}")
    if not torch.can_cast(dtype, out.dtype):
        raise OutDtypeError(f"{label} has dtype {dtype_name(out.dtype)}, and the result type "
                            f"{dtype_name(dtype)} can't be cast to it", dtype, out.dtype)
    if out.dtype not in SUPPORTED_DTYPES:
        raise DtypeError(f"{label} has dtype {dtype_name(out.dtype)}, which tritonize kernels do not support")
    if tuple(out.shape) != shape:
        raise OutArgumentError(f"{label} has shape {tuple(out.shape)}, but the result has shape {shape}")
    if any(n > 1 and s == 0 for n, s in zip(out.shape, out.stride())):
        raise OutArgumentError(f"{label} has a broadcast (stride-0) dim: more than one element would be "
                               f"written to a single memory location")
    folded = tensor_overlaps_itself(out)
    if folded is not False:
        raise OutArgumentError(
            f"{label} (shape {tuple(out.shape)}, strides {tuple(out.stride())}) "
            + ("has elements at the same memory location" if folded else
               "may have elements at the same memory location (tritonize could not rule it out)")
            + ": the result would depend on the order of writes (use a tensor whose elements are apart)")


def check_overlap(outputs: list, inputs: list):
    """An output may alias an input exactly (in place) but not partly: that would read
    elements already overwritten. Views whose spans overlap but whose elements lie apart
    (interleaved, like x[..., ::2] and x[..., 1::2]) are apart."""
    for i, out in enumerate(outputs):
        if out.tensor.numel() == 0:
            continue
        out_span = memory_span(out.tensor)
        for other in inputs + outputs[:i]:
            t = other.tensor
            if t.numel() == 0 or t.untyped_storage().data_ptr() != out.tensor.untyped_storage().data_ptr():
                continue
            same_view = (t.data_ptr() == out.tensor.data_ptr() and t.dtype == out.tensor.dtype
                         and same_walk(out.tensor.shape, other.strides, out.strides))
            if same_view and other in inputs:
                continue
            span = memory_span(t)
            if not (span[0] < out_span[1] and out_span[0] < span[1]):
                continue
            shared = elements_overlap(layout_of(out.tensor), layout_of(t), t.data_ptr() - out.tensor.data_ptr())
            if shared is False:
                continue
            what = "another output" if other in outputs else f"input '{other.label}'"
            how = "" if shared else " (tritonize could not prove their elements apart)"
            raise OutArgumentError(f"{out.label} overlaps {what} in memory without being the same view{how}; "
                                   f"the result would depend on the order of writes (use a separate "
                                   f"output or clone the input)")


def writes_apart(inputs: list, outputs: list, shape: tuple, device, dense: bool = False) -> bool:
    """May these out= tensors be written with no more checks than this: each of the call's shape
    and device, with no stride-0 dim and no two elements at one address, its elements apart from
    every input's and every earlier output's of its storage (_elements_meet: the residue test of
    two non-contiguous tensors' strides, then memory_span, then elements_overlap where the spans
    meet), but where it is exactly one of the inputs (the same pointer, dtype, shape and strides:
    in place)? check_overlap's rule, less its same-walk views of other shapes: False sends the
    call to the planner, which allows those and says what overlaps or is refused. `dense`: the
    caller found every output dense (a permutation of a row-major tensor: class_walks.dense_order),
    whose elements lie apart from each other (asking overlaps_itself of a transposed output took
    ~1.5 us of a ~45 us in-place class launch on the CPU machine)."""
    written, stored, spans, layouts, apart = [], None, {}, {}, set()
    for out in outputs:
        # check_output refuses another shape or device, a stride-0 dim of two elements or more,
        # and elements that share an address
        if out.shape != shape or out.device != device or 0 in out.stride() or (
                not dense and tensor_overlaps_itself(out) is not False):
            return False
        if stored is None:  # each input's storage, asked once (untyped_storage() makes an object)
            stored = [(tensor, tensor.untyped_storage().data_ptr()) for tensor in inputs]
        storage = out.untyped_storage().data_ptr()
        for tensor, tensor_storage in stored:
            # an output that is an input's very object is that input, in place
            if tensor is out or tensor_storage != storage or (
                    tensor.data_ptr() == out.data_ptr() and tensor.stride() == out.stride()
                    and tensor.dtype == out.dtype and tensor.shape == out.shape):
                continue
            if _elements_meet(out, tensor, spans, layouts, apart):
                return False
        for other, other_storage in written:
            if other_storage == storage and _elements_meet(out, other, spans, layouts, apart):
                return False
        written.append((out, storage))
    return True


def _elements_meet(tensor, other, spans: dict, layouts: dict, apart: set) -> bool:
    """Do two tensors of one storage share a byte (or may they)? `spans` and `layouts`: the
    memory_span and layout_of of tensors asked before in this call, by id (all are alive for the
    call): a rotation in place on the even and odd halves of rows asked each of its views' twice.
    `apart`: the pairs of ids found apart in this call, each in the order it is asked next (the
    rotation's halves, in place, are asked as output and input, and as output and earlier output:
    three asks of one pair)."""
    if (id(tensor), id(other)) in apart:
        return False
    if _elements_apart(tensor, other, spans, layouts):
        apart.add((id(other), id(tensor)))
        return False
    return True


def _elements_apart(tensor, other, spans: dict, layouts: dict) -> bool:
    """_elements_meet's answer, negated, where no earlier ask of the pair gave it."""
    # the even and odd elements of rows (a rotation in place): their spans meet, and the residue
    # test of their strides alone tells them apart at every size of two or more along each dim
    # (elements_overlap's first test); asked first, it spares both spans and layouts (~2 us of a
    # ~3 us check on the CPU machine). Not of a contiguous tensor, whose neighbouring elements
    # leave no gap for another's (the residue test cannot tell it apart): tensors of one buffer
    # side by side are told apart by their spans
    if not tensor.is_contiguous() and not other.is_contiguous() and apart_at_every_size(
            tensor.element_size(), tensor.shape, tensor.stride(), other.element_size(), other.shape, other.stride(),
            other.data_ptr() - tensor.data_ptr()):
        return True
    low, high = spans.get(id(tensor)) or spans.setdefault(id(tensor), memory_span(tensor))
    other_low, other_high = spans.get(id(other)) or spans.setdefault(id(other), memory_span(other))
    if not (other_low < high and low < other_high):
        return True
    first = layouts.get(id(tensor)) or layouts.setdefault(id(tensor), layout_of(tensor))
    second = layouts.get(id(other)) or layouts.setdefault(id(other), layout_of(other))
    return elements_overlap(first, second, other.data_ptr() - tensor.data_ptr()) is False


def same_walk(sizes, strides, other_strides) -> bool:
    """Do two operands of these sizes, from one pointer, visit the same elements in the same
    order? Strides of size-1 dims never move, so they may differ."""
    return all(a == b for n, a, b in zip(sizes, strides, other_strides) if n != 1)


class WriteGuard:
    """What check_overlap found for a call with out=, kept for the calls after it with the same
    signature (shapes, strides, dtypes), which differ only in their pointers: an output may be
    written where its elements lie apart from every other operand's (their spans apart, or
    elements_overlap says so for these pointers), or it is the very view of an input (the same
    pointer, strides and dtype) that the checked call could alias. Anything else goes back to
    check_overlap, which says what overlaps. `sizes`: the (coalesced) sizes that the operands'
    strides walk."""

    def __init__(self, sizes, inputs: list, outputs: list):
        self.empty = any(o.tensor.numel() == 0 for o in outputs)
        operands = inputs + outputs
        spans = [_relative_span(o.tensor) for o in operands]
        layouts = [layout_of(o.tensor) for o in operands]
        # per output: its position among the pointers (inputs', then outputs'), its span and
        # layout, and each operand it must not overlap: position, span, whether equal pointers
        # are in place (an input that could be one view with it), and layout
        self.checks = []
        for k, out in enumerate(outputs):
            position = len(inputs) + k
            others = [(j, *spans[j], i.tensor.dtype == out.tensor.dtype and same_walk(sizes, i.strides, out.strides),
                       layouts[j]) for j, i in enumerate(inputs)]
            others += [(len(inputs) + j, *spans[len(inputs) + j], False, layouts[len(inputs) + j]) for j in range(k)]
            self.checks.append((position, *spans[position], layouts[position], tuple(others)))

    def allows(self, pointers) -> bool:
        """May the outputs be written, the operands at these pointers (inputs', then outputs')?"""
        if self.empty:
            return True
        for position, low, high, layout, others in self.checks:
            pointer = pointers[position]
            low, high = pointer + low, pointer + high
            for j, a, b, in_place, other_layout in others:
                other = pointers[j]
                if other + a < high and low < other + b and not (in_place and other == pointer) \
                        and elements_overlap(layout, other_layout, other - pointer) is not False:
                    return False
        return True


def _relative_span(tensor) -> tuple[int, int]:
    """memory_span from the tensor's first element: the same for every tensor of its signature."""
    low, high = memory_span(tensor)
    return low - tensor.data_ptr(), high - tensor.data_ptr()


def choose_tile(sizes: list, input_strides: list):
    """(dim p, innermost dim) for a 2D tile (p x the dims after p) when an input reads lines
    along p while the kernel walks the innermost dim (a transposed or permuted operand);
    None when a flat walk already reads every input in lines (or broadcasts it there)."""
    rank = len(sizes)
    if rank < 2:
        return None
    inner = rank - 1
    for strides in input_strides:
        if strides[inner] == 0 or abs(strides[inner]) == 1:
            continue
        unit = [d for d in range(rank - 1) if abs(strides[d]) == 1 and sizes[d] > 1]
        if unit:
            return (unit[0], inner)
    return None


def broadcast_dims(inputs: list) -> tuple:
    """(label, dims) for each input with stride 0 along some dims and not along others."""
    found = []
    for operand in inputs:
        zeros = tuple(d for d, stride in enumerate(operand.strides) if stride == 0)
        if zeros and len(zeros) < len(operand.strides):
            found.append((operand.label, zeros))
    return tuple(found)


def flat_indexed(sizes: list, stride_lists: list, tile) -> tuple:
    """For a decoded walk (rank 2 or more, no tile): whether each operand's strides are the dense
    row-major strides of `sizes`, so that the kernel may address it by the flat task id; () for
    other walks, or where no operand is dense."""
    # benchmarks/experiments/odd_tiles.py on an H100, bfloat16 broadcast adds of 1031 x 1031 and
    # 4097 x 1531: the decoded address i0 * 1031 + i1 gives Triton no vectors; the flat one with
    # only the last block masked took 12-17% off (3.68 -> 3.22 us, 12.60 -> 10.45)
    if tile is not None or len(sizes) < 2:
        return ()
    dense = row_major_strides(tuple(sizes))
    if 1 in sizes:  # a size-1 dim's stride is any
        found = tuple(all(s == t for n, s, t in zip(sizes, strides, dense) if n != 1) for strides in stride_lists)
    else:  # the common case (coalesced walks have no size-1 dims), ~1.5 us less
        found = tuple(tuple(strides) == dense for strides in stride_lists)
    return found if any(found) else ()


def runs_together(sizes: list, strides: list, p: int) -> bool:
    """Do the dims after p form one evenly strided run in this operand (so that the tile's
    combined index addresses it directly, and Triton sees the contiguity)?"""
    return all(strides[d] == strides[d + 1] * sizes[d + 1] for d in range(p + 1, len(sizes) - 1))


CUDA_BLOCK, CUDA_WARPS = 1024, 4
# a tile's elements on CUDA: at most, below a full wave, below a quarter wave (see tile_elements)
CUDA_TILE_ELEMENTS, CUDA_MID_TILE_ELEMENTS, CUDA_SMALL_TILE_ELEMENTS = 4096, 1024, 512
# tiles whose every operand is NARROW_ELEMENT_BYTES wide or narrower (16-bit), from
# NARROW_FULL_TILE_FROM elements up: 64 x 64 with 8 warps (see tile_elements); below it 32 x 32
# rather than 512 elements (see tile_shape). Tiles without vectors: 4096 elements from a wave of
# them, else 32 x 32 (see tile_elements); those 4096 are 64 x 64 with 8 warps for 16-bit
# operands and 32 rows of NO_VECTOR_TILE_RUN elements with 4 warps for wider ones (see tile_shape)
NARROW_ELEMENT_BYTES, NARROW_FULL_TILE_FROM, FULL_TILE_WARPS = 2, 2**20, 8
NO_VECTOR_TILE_RUN = 128
# the flat block for costly math (exp, erf, sin, ...) when every element fits in one wave of the
# device's threads at 4 elements per thread (see launch_shape)
CUDA_SMALL_COSTLY_BLOCK = 512
# the flat block and warps where an input's loads are gathered (its innermost stride is neither
# 0 nor 1): two elements per thread (see launch_shape)
CUDA_GATHER_BLOCK, CUDA_GATHER_WARPS = 512, 8
# the flat block where some operand is WIDE_ELEMENT_BYTES wide (float64, int64): 4 elements per thread
# with CUDA_WARPS, the bytes a thread of CUDA_BLOCK moves in float32 (see launch_shape)
WIDE_ELEMENT_BYTES, CUDA_WIDE_ELEMENT_BLOCK = 8, 512
# the flat block of kernels that call a heavy composite (math_table.HEAVY_ROWS), for operands of at most 4
# bytes and for wider ones: 4 and 2 elements per thread with CUDA_WARPS (see launch_shape)
CUDA_HEAVY_BLOCK, CUDA_HEAVY_WIDE_BLOCK = 512, 256
# tiles of kernels that make HEAVY_MATH_CALLS or more costly math calls per element (a sin and a
# cos), whose operands are wider than 16 bits: 32 x 16 elements with 2 warps at every size; 16-bit
# ones: 32 x 32 with 4 below a wave, 32 x 64 with 4 from it (see tile_elements and tile_shape)
HEAVY_MATH_CALLS, HEAVY_TILE_EDGE, HEAVY_TILE_WARPS = 2, 32, 2
CPU_MAX_BLOCK = 4096
# the least bytes a flat program of a dependent launch moves (see dependent_block), and the most
# times its block may double to get there
DEPENDENT_PROGRAM_BYTES, DEPENDENT_BLOCK_GROWTH = 6 * 1024, 8
# benchmarks/tune.py sets this to sweep launch shapes: (sizes, tile) -> (blocks, warps) or None
LAUNCH_SHAPE_OVERRIDE = None


def launch_shape(device: torch.device, sizes: tuple, tile, costly_calls: int = 0,
                 gathered: bool = False, element_bytes: int = 4, vectors: bool = True,
                 dependent: bool = False, bytes_per_element: float = 0.0,
                 wide_threads: bool = False, heavy_math: bool = False) -> tuple[tuple, int]:
    """(blocks, warps) of a launch: BLOCK for a flat walk or the tile's edges, and num_warps.
    `costly_calls`: how many calls of exp, erf, sin, ... (math_table's costly rows) the kernel
    makes per element (math_table.costly_calls); `gathered`: some input's innermost stride is
    neither 0 nor 1 (see gathers); `element_bytes`: the widest element among the operands read or
    written in lines (see line_bytes); `vectors`: a tile's lines can be read and written in
    vectors (see tile_vectors); `dependent`: the launch is a programmatic dependent (see
    dependent_launch), whose flat programs move at least DEPENDENT_PROGRAM_BYTES, at
    `bytes_per_element` (moved_bytes over the element count; see dependent_block); `wide_threads`:
    its math gains from more elements a thread (math_table.gains_from_wide_threads); `heavy_math`: it
    calls a heavy composite (math_table.calls_heavy_math), whose flat blocks take CUDA_HEAVY_BLOCK or
    CUDA_HEAVY_WIDE_BLOCK at every size, a dependent launch's too."""
    if LAUNCH_SHAPE_OVERRIDE is not None:
        chosen = LAUNCH_SHAPE_OVERRIDE(sizes, tile)
        if chosen is not None:
            return chosen
    if tile is not None:
        if device.type != "cuda":
            return tile_blocks(sizes, tile), 1
        # benchmarks/tune.py on an H100 and an H200: no warp count beats 4 for float32, and no tile
        # edges beat the ones tile_elements sizes (single launches at 2^20..2^24 could not tell
        # tiles apart; CUDA graphs could: see tile_elements). 16-bit tiles and kernels with
        # costly math: see tile_elements
        elements = tile_elements(device, math.prod(sizes), element_bytes, vectors, costly_calls)
        if heavy_wide_tiles(element_bytes, costly_calls):
            warps = HEAVY_TILE_WARPS
        elif elements == CUDA_TILE_ELEMENTS and element_bytes <= NARROW_ELEMENT_BYTES:
            warps = FULL_TILE_WARPS
        else:
            warps = CUDA_WARPS
        return tile_shape(sizes, tile, elements, element_bytes, vectors, costly_calls), warps
    if device.type == "cuda":
        # benchmarks/tune.py on an H100 and an H200, 2^20..2^27 elements: 1024 with 4 warps is
        # within noise of the best for light ops; blocks of 2048 lift 16-bit gelu by 5-7% but
        # cost a sin/cos op with two outputs 23-40% (register pressure). Timed as CUDA graphs
        # (`tune.py --graph`, H200, 2^16..2^21): where the elements fit in one wave of the
        # device's threads at 4 per thread (up to ~2^20 on 132 SMs), blocks of 512 lift kernels
        # with costly math 2-16% (twice the threads share the math) and cost light ones 0-2%;
        # one size up they cost everything 1-12%.
        # `tune.py --graph`, an add of stride-2 slices: a thread's gathered loads are one
        # instruction per element, and two elements per thread (256 with 4 warps, 512 with 8)
        # took 0.4-4% off float32 and 0.7-9% off bfloat16 at 2^18..2^26 on an H100, 512 with 8
        # the same as 256 with 4 there; on an H200 512 with 8 beat 256 with 4 by up to 4% and
        # 1024 with 4 by 0.4-12%, but for bfloat16 at 2^24 (1.3% slower; tune_gather_h*.txt)
        # benchmarks/experiments/op_library.py on an H200, float64 and int64 (experiment_float64_h200.txt):
        # blocks of 512 against 1024, both with 4 warps, took the library's 168 rows 2.3% faster at 2^24
        # (digamma 21%, floor_divide 19%, log, tanh and expm1 6%; gelu 3% slower), ten rows 5% at 2^20
        # and 4% at 2^26. Write-only and narrow-output kernels (fill, isnan), 26% and 3% slower at 512
        # as dependent launches, grow back to 1024 there (dependent_block)
        if heavy_math:
            # a program of heavy math takes long enough that programs start often enough at any block
            wide = element_bytes >= WIDE_ELEMENT_BYTES
            return (CUDA_HEAVY_WIDE_BLOCK if wide else CUDA_HEAVY_BLOCK,), CUDA_WARPS
        if gathered:
            block, warps = CUDA_GATHER_BLOCK, CUDA_GATHER_WARPS
        elif small_costly_blocks(device, sizes, costly_calls > 0):
            block, warps = CUDA_SMALL_COSTLY_BLOCK, CUDA_WARPS
        elif element_bytes >= WIDE_ELEMENT_BYTES:
            block, warps = CUDA_WIDE_ELEMENT_BLOCK, CUDA_WARPS
        else:
            block, warps = CUDA_BLOCK, CUDA_WARPS
        if dependent:
            block, warps = dependent_block(block, warps, bytes_per_element, element_bytes, gathered,
                                           wide_threads)
        return (block,), warps
    return (min(CPU_MAX_BLOCK, max(16, _next_power_of_two(math.prod(sizes)))),), 1


# the registers a thread of a flat CUDA launch of a kernel whose heavy branch blocks may skip
# (math_table.caps_registers: J0 and J1), by whether some operand is WIDE_ELEMENT_BYTES wide (0: ptxas chooses).
# benchmarks/experiments/register_caps.py on an H100 at 2^24 (results/experiment_register_caps_h100.txt), with
# the Hankel branch's sine and cosine from one reduction (f32_sincos, portable_sincos): float64 J0 takes 48
# registers unheld, 40 ran blocks below 5 2.7% faster (J0 on [-2, 2] 101.7 -> 99.0 us, 0.955x eager; J1 103.5
# -> 98.7) and blocks above it within 0.2% (J0) and 3% (J1) as fast; 64, the cap before that branch shared
# its reduction, now runs slower below 5 (107.0). float32 kernels take 40 unheld, and a cap of 40 or 48 made
# nothing faster.
CAPPED_REGISTERS = {False: 0, True: 40}


def max_registers(device: torch.device, tile, element_bytes: int, caps: bool) -> int:
    """Specialization.max_registers of a launch: CAPPED_REGISTERS's for flat CUDA launches of kernels that cap
    their registers (`caps`: math_table.caps_registers), 0 (ptxas chooses) for the rest."""
    if not caps or tile is not None or device.type != "cuda":
        return 0
    return CAPPED_REGISTERS[element_bytes >= WIDE_ELEMENT_BYTES]


def dependent_block(block: int, warps: int, bytes_per_element: float, element_bytes: int,
                    gathered: bool, wide_threads: bool = False) -> tuple[int, int]:
    """(block, warps) of a flat walk launched as a programmatic dependent: `block` doubled (at most
    DEPENDENT_BLOCK_GROWTH times over) until a program moves DEPENDENT_PROGRAM_BYTES, at
    `bytes_per_element`. A grown block of loads in vectors keeps the elements each thread had:
    one 16-byte vector of a 1-byte operand, 8 elements of wider ones (CUDA_BLOCK's 8 with 4 warps);
    a gathered walk keeps its warps (more elements per thread), and so does a 16-bit one whose math
    gains from more elements a thread (`wide_threads`: see math_table.WIDE_THREAD_ROWS)."""
    # An H200 starts the programs of a dependent launch at most about one per 1.25 ns (half as
    # many as without PDL): 2^26 elements in blocks of 1024 and of 512 took 83.6 and 162 us, in
    # bfloat16 and float32 alike. Its copy bandwidth (4.25 TB/s) needs programs of 5.3 KB at that
    # rate: at 4 KB (bfloat16 sigmoid, blocks of 1024) dependent launches ran 0.80-0.87x of plain
    # ones in every way of timing them, at 3 KB (a uint8 add) 0.65x; with programs of 6 KB and
    # more (bfloat16 adds, float32 ops) they kept plain launches' time, and 2048 with 8 warps gave
    # bfloat16 sigmoid it back (results/experiment_pdl_programs_h200.txt)
    grown = block
    while bytes_per_element and grown * bytes_per_element < DEPENDENT_PROGRAM_BYTES \
            and grown < block * DEPENDENT_BLOCK_GROWTH:
        grown *= 2
    if grown == block or gathered or (wide_threads and element_bytes <= NARROW_ELEMENT_BYTES):
        return grown, warps
    elements_per_thread = max(8, 16 // element_bytes)
    return grown, max(warps, grown // (32 * elements_per_thread))


def gathers(input_strides: list, paired=()) -> bool:
    """Does some input load elements one by one: an innermost stride neither 0 (broadcast: one
    value) nor 1 (contiguous: vector loads)? `paired`: the positions of inputs that pair
    (paired_operands), which load in vectors, two at a time."""
    return any(strides and strides[-1] not in (0, 1) and k not in paired for k, strides in enumerate(input_strides))


def paired_operands(sizes: tuple, tile, inputs: list, outputs: list, read) -> tuple:
    """Specialization.paired of a walk (sizes and operands after coalescing, the tile): where it is
    not tiled, the pairs (first, second) among the inputs the function reads (`read`: their labels),
    and among the outputs, whose elements interleave: the same dtype and strides, the last
    PAIR_STRIDE, the second's first element one element past the first's (x[..., ::2] and
    x[..., 1::2]). Positions are among the inputs, then the outputs."""
    # benchmarks/experiments/paired_access.py on an H200, the rotation in place on (131072, 128)
    # rows: one contiguous access of both (split, or interleaved) took it from 35.1 to 28.4 us in
    # bfloat16 and from 66.0 to 51.8 in float32, the time of a copy of the same bytes; with the
    # kernel's own test of the pointers, 28.8 and 52.1. On q of a fused (rows, 3 * 128) projection
    # (rows with a gap after each: a decoded walk), tritonize's kernel took 35.0 -> 30.5 and
    # 62.6 -> 54.2 (a copy 28.2, 52.6) with each row's pairs one run (32.8 in bfloat16 with each
    # task's two elements as one (BLOCK, 2) access)
    if tile is not None:
        return ()
    pairs = []
    for operands, first_position in (([o if o.label in read else None for o in inputs], 0), (outputs, len(inputs))):
        at = {o.tensor.data_ptr(): k for k, o in enumerate(operands) if o is not None and o.strides[-1:] == [PAIR_STRIDE]}
        taken = set()
        for k, operand in enumerate(operands):
            if operand is None or operand.strides[-1:] != [PAIR_STRIDE] or k in taken:
                continue
            second = at.get(operand.tensor.data_ptr() + operand.tensor.element_size())
            if second is not None and second not in taken and operands[second].tensor.dtype == operand.tensor.dtype \
                    and operands[second].strides == operand.strides:
                taken.update((k, second))
                pairs.append((first_position + k, first_position + second))
    return tuple(pairs)


@functools.lru_cache(maxsize=None)
def device_threads(device: torch.device) -> int:
    """Threads the device runs at once: its multiprocessors times the threads each holds."""
    properties = torch.cuda.get_device_properties(device)
    return properties.multi_processor_count * properties.max_threads_per_multi_processor


def small_costly_blocks(device: torch.device, sizes: tuple, costly_math: bool) -> bool:
    """Does a flat CUDA launch of a kernel with costly math take CUDA_SMALL_COSTLY_BLOCK: its
    elements fit in one wave of the device's threads at 4 per thread?"""
    return costly_math and math.prod(sizes) <= 4 * device_threads(device)


def dependent_launch(device: torch.device, sizes: tuple = (), tile=None, costly_math: bool = False,
                     gathered: bool = False, element_bytes: int = 4, moved_bytes: int = 0) -> bool:
    """Whether a launch's kernel starts as a programmatic dependent (PDL) of the kernel before it
    in the stream, on CUDA devices of compute capability 9 and up (Hopper on) whose Triton has the
    grid-dependency ops. Such a kernel may start while the one before it finishes, waits for that
    one's writes before its first load, and lets the next one start after its last
    (passes/build_kernel.py). By default for launches that move more bytes than the device's L2
    holds (`moved_bytes`, see moved_bytes); TRITONIZE_DEPENDENT_LAUNCH=1 asks for it at every size,
    =0 turns it off. Not for 16-bit kernels with costly math in small blocks (small_costly_blocks)
    over more than half a wave of programs."""
    # benchmarks/experiments/pdl_sweep.py on an H100, tritonize's kernels as CUDA graphs of
    # launches back to back (results/experiment_pdl_sweep_h100.txt): adds, sigmoid, gelu and
    # silu_and_mul in float32 and 16-bit ran 1.25-1.30x as fast at 2^16, 1.09-1.16x at 2^19,
    # 1.04-1.14x at 2^21, 1.02-1.05x at 2^22 and 1.00-1.02x at 2^24; at 2^20 1.07-1.11x, but
    # 16-bit sigmoid and gelu (2048 blocks of 512, about one wave) 0.92-0.93x, which this rule
    # leaves out. Below the L2's size it is a trade: bfloat16 broadcast adds at 2^22 ran 4.6%
    # faster back to back but 4.3% slower as benchmarks.run's graphs, whose outputs reuse the
    # block the launch before freed (experiment_pdl_broadcast_h100.txt, pdl_reuse_h100.txt).
    # Above it no launch keeps lines in the L2 for the next, and pdl_large.py found no way of
    # timing that loses beyond noise: launches of 2^23..2^25 elements moving more than the L2
    # holds ran 0.996-1.022x back to back, 0.999-1.026x as graphs after a flush, 0.986-1.004x as
    # single launches after a flush and 0.987-1.028x right after a torch kernel; at 64 MB it is
    # what gets a 16-bit broadcast add past 90% of the peak copy back to back, which no launch
    # shape does (experiment_pdl_large_h100.txt, experiment_launch_tail_h100.txt)
    if device.type != "cuda":
        return False
    asked = dependent_launch_setting()
    if asked is False or (asked is None and moved_bytes <= l2_bytes(device)):
        return False
    if (tile is None and not gathered and element_bytes <= NARROW_ELEMENT_BYTES
            and small_costly_blocks(device, sizes, costly_math) and math.prod(sizes) > 2 * device_threads(device)):
        return False
    return _hopper_with_grid_dependency_ops(device)


# Every plan and class launch reads TRITONIZE_DEPENDENT_LAUNCH, which is mostly unset: os.environ.get
# then raises and catches two KeyErrors (0.6 us of a ~17 us class launch's Python on the CPU machine).
# The mapping os.environ keeps its encoded names in answers a missing one at once; os.environ's own
# reads and writes go through it, so a value set through os.environ (monkeypatch.setenv) is seen.
_ENVIRON_NAMES = getattr(os.environ, "_data", None) if hasattr(os.environ, "encodekey") else None
_DEPENDENT_LAUNCH_NAME = os.environ.encodekey("TRITONIZE_DEPENDENT_LAUNCH") if _ENVIRON_NAMES is not None else None


def dependent_launch_setting():
    """TRITONIZE_DEPENDENT_LAUNCH: True for "1" (every launch), False for "0" (none), None where
    it is unset or empty (launches larger than the L2, see dependent_launch)."""
    if _ENVIRON_NAMES is not None:
        raw = _ENVIRON_NAMES.get(_DEPENDENT_LAUNCH_NAME)
        value = "" if raw is None else os.environ.decodevalue(raw).strip()
    else:
        value = os.environ.get("TRITONIZE_DEPENDENT_LAUNCH", "").strip()
    if value not in ("", "0", "1"):
        raise ValueError(f"TRITONIZE_DEPENDENT_LAUNCH={value!r}: use 1 (dependent launch for every kernel), 0 (for "
                         f"none) or leave it unset (for launches that move more bytes than the L2 holds)")
    return {"": None, "0": False, "1": True}[value]


def moved_bytes(sizes: tuple, operands: list) -> int:
    """Bytes a launch reads and writes at least: each operand's distinct elements (a dim it is
    broadcast along, stride 0, counts once) times its element size."""
    return sum(o.tensor.dtype.itemsize * math.prod(n for n, stride in zip(sizes, o.strides) if stride)
               for o in operands)


@functools.lru_cache(maxsize=None)
def l2_bytes(device: torch.device) -> int:
    """The device's L2 cache, in bytes."""
    return torch.cuda.get_device_properties(device).L2_cache_size


@functools.lru_cache(maxsize=None)
def _hopper_with_grid_dependency_ops(device: torch.device) -> bool:
    if torch.version.hip is not None:  # ROCm's "cuda" devices report capabilities of 9 too (gfx9xx)
        return False
    try:
        from triton.language.extra import cuda as triton_cuda
    except ImportError:
        return False
    return (torch.cuda.get_device_capability(device)[0] >= 9
            and hasattr(triton_cuda, "gdc_wait") and hasattr(triton_cuda, "gdc_launch_dependents"))


def line_bytes(operands: list) -> int:
    """The widest element among the operands that the kernel reads or writes along some dim (a
    0-d tensor, one value for every element, does not count); 4 when there is none."""
    return max((o.tensor.dtype.itemsize for o in operands if any(o.strides)), default=4)


def narrow_full_tiles(numel: int, element_bytes: int, vectors: bool = True) -> bool:
    """Do tiles of 16-bit (or narrower) operands keep 64 x 64 elements and 8 warps at this size
    (where their lines load in vectors)?"""
    return element_bytes <= NARROW_ELEMENT_BYTES and numel >= NARROW_FULL_TILE_FROM and vectors


# Triton marks an integer argument as divisible by 16 when it is, and proves vector accesses
# from that alone
TRITON_DIVISIBILITY = 16


def tile_vectors(sizes: list, tile, stride_lists: list) -> bool:
    """Can a tile's lines be read and written in vectors? Only where every stride that steps
    between lines, and the two bounds that the tile's mask compares to, are multiples of 16:
    an odd row stride (a 1031 x 1031 tensor) starts each row off a 16-byte boundary, and Triton
    then moves one element per access whatever the tile."""
    p, runs = tile[0], tile[2] or (False,) * len(stride_lists)
    bounds = (sizes[p], math.prod(sizes[p + 1:]))
    if any(bound % TRITON_DIVISIBILITY for bound in bounds):
        return False
    for strides, run in zip(stride_lists, runs):
        # an operand whose dims after p are one run is addressed through its last stride alone
        steps = strides[:p + 1] + strides[-1:] if run else strides
        walked = sizes[:p + 1] + sizes[-1:] if run else sizes
        if any(stride % TRITON_DIVISIBILITY for size, stride in zip(walked, steps) if size != 1 and abs(stride) != 1):
            return False
    return True


def tile_elements(device: torch.device, numel: int, element_bytes: int = 4, vectors: bool = True,
                  costly_calls: int = 0) -> int:
    """Elements per tile of a CUDA launch: 4096 (64 x 64), halved down to 1024 while the grid
    would hold fewer programs than the device runs at once (4 warps each), and to 512 while it
    would hold fewer than a quarter of those. Tiles of 16-bit operands stay at 4096 from 2^20
    elements up where their lines load in vectors; for a kernel with one costly math call per
    element only from a quarter wave of them, and with more take 2048 from a wave (below those,
    the float32 rule's). Tiles without vectors (tile_vectors) stay at 4096 where those fill a wave,
    else take 1024 (and see tile_shape). Otherwise kernels with costly math take 1024 at most,
    and those with HEAVY_MATH_CALLS or more whose operands are wider than 16 bits 512."""
    # benchmarks/experiments/small_tiles.py on an H100, transposed and permuted adds at 2^12..2^20:
    # a kernel of a few 4096-element programs lasts as long as one program does (0.71-0.91x
    # eager at 2^12..2^16); 512-element tiles run those sizes 15-30% faster, at 1.0-1.1x eager.
    # `benchmarks.tune --graph` on an H200: at 2^22, where 64 x 64 tiles fill half the device,
    # 32 x 32 ones are 4% faster (tune_tiles_graph_h200.txt); at 2^20 and 2^21, where 32 x 32
    # tiles fill half of it, they are 4.5% faster than 16 x 32 ones (tune_tiles_2e20_h200.txt).
    # From 2^23 up all are even. Warps other than 4 bought nothing.
    # All of that was float32, where a 32-element edge is one 128-byte line. In 16-bit dtypes
    # it takes a 64-element edge: `benchmarks.tune --graph` on an H100, bfloat16 transposed and
    # rank-4 permuted adds, 64 x 64 tiles with 8 warps against the halved ones: 6-7% faster at
    # 2^23, 3% at 2^22, within noise at 2^20 and 2^21 (tune_16bit_tiles_h100.txt). uint8 adds
    # take it too: 11-12% faster at 2^22, 2-6% slower at 2^20 and 2^23 (tune_8bit_tiles_h100.txt)
    # benchmarks/experiments/odd_tiles.py on an H100, `a.t() + b` with odd row strides (so no
    # vectors), CUDA graphs: bfloat16 from 1031 x 1031 to 777 x 10007 (under a wave of 4096-element
    # tiles), 64 x 64 tiles with 8 warps 0.90-0.98x torch.compile, with 4 warps 0.75-0.84x, and
    # 32 x 32 with 4 warps 0.97-1.05x; at 24001 x 1399 (four waves) 32 x 32 0.94x, 64 x 64 with 8
    # warps 1.00x, and float32 there 64 x 64 with 8 warps 1.03x against 0.96x with 4 (on later
    # machines 0.94x, where 32 x 128 with 4 warps ran 1.02x: see tile_shape)
    # benchmarks/experiments/tiled_costly.py on an H100, the two-output sin/cos op and silu_and_mul
    # on transposed and rank-4 permuted bfloat16 inputs at 2^20 and 2^22, CUDA graphs: 32 x 32 tiles
    # with 4 warps (the float32 rule there) the best of nine configs in all four rows, 0.99-1.21x
    # torch.compile, where 64 x 64 with 8 warps ran 0.94-1.03x.
    # tiled_costly.py's large, narrow and rule runs on an H100 (2^20..2^26, float32 and bfloat16,
    # transposed and rank-4 permuted, eight to thirteen configs a row): float32 tiles of the
    # two-output op (a sin and a cos per element) ran 0.71-0.73x torch.compile from a wave with
    # 64 x 64 and 4 warps (32 elements a thread) and 0.93x with 32 x 32 below it; 32 x 16 with 2
    # warps ran 0.964-1.04x at every size, the best or within 2.5% of it in five of six rows.
    # silu_and_mul (one exp per element) wants larger tiles: in float32 32 x 32 with 4 warps ran
    # 0.97-1.04x at 2^20-2^24 (64 x 64 with 4 at most 2% faster from a wave, 32 x 16 with 2 up
    # to 3% slower), in bfloat16 64 x 64 with 8 warps 0.968-1.031x from 2^22 (32 x 32 with 4:
    # 0.90-1.01x), where the two-output op keeps 32 x 32 with 4 up to 2^23 (1.02-1.24x) and
    # from a wave ran 0.984-0.988x with 64 x 64 and 8, 1.027-1.044x with 32 x 64 and 4. With this
    # rule every row of those runs was at 0.960x torch.compile or better
    # (results/experiment_tiled_costly_h100.txt, sixth run; 32 x 64 from a wave: ninth run)
    elements, wave = CUDA_TILE_ELEMENTS, programs_at_once(device)
    programs = numel // elements  # of 4096-element tiles
    full_from = 0 if not costly_calls else wave // 4 if costly_calls < HEAVY_MATH_CALLS else wave
    if narrow_full_tiles(numel, element_bytes, vectors) and programs >= full_from:
        # heavy math from a wave: 32 x 64 with 4 warps (see above)
        return elements // 2 if costly_calls >= HEAVY_MATH_CALLS else elements
    if heavy_wide_tiles(element_bytes, costly_calls):
        return CUDA_SMALL_TILE_ELEMENTS
    if costly_calls or (not vectors and programs < wave):
        elements = CUDA_MID_TILE_ELEMENTS
    while elements > CUDA_MID_TILE_ELEMENTS and numel // elements < wave:
        elements //= 2
    while elements > CUDA_SMALL_TILE_ELEMENTS and numel // elements < wave // 4:
        elements //= 2
    return elements


def heavy_wide_tiles(element_bytes: int, costly_calls: int) -> bool:
    """Do a kernel's tiles take 32 x 16 elements with 2 warps: it makes HEAVY_MATH_CALLS or more
    costly math calls per element, and its operands are wider than 16 bits?"""
    return costly_calls >= HEAVY_MATH_CALLS and element_bytes > NARROW_ELEMENT_BYTES


def tile_shape(sizes: tuple, tile, elements: int, element_bytes: int = 4, vectors: bool = True,
               costly_calls: int = 0) -> tuple:
    """The tile edges of a CUDA launch of `elements` per tile (tile_elements): tile_blocks, but
    where 16-bit (or narrower) operands would get 512-element tiles, 32 x 32 ones when both sides
    are that long; full tiles of wider operands that load no vectors (tile_vectors) run
    NO_VECTOR_TILE_RUN elements along the inner run (32 x 128); and heavy math's tiles
    (heavy_wide_tiles) run HEAVY_TILE_EDGE along dim p (32 x 16)."""
    # tiled_costly.py's rule run on an H100, float32 two-output op: 32 x 16 tiles with 2 warps
    # 0.964-1.014x torch.compile from 2^22 up, 16 x 32 ones 0.907-0.991x (but 1.126x against
    # 1.040x at 2^20)
    if heavy_wide_tiles(element_bytes, costly_calls):
        p = tile[0]
        block0 = min(_next_power_of_two(sizes[p]), HEAVY_TILE_EDGE)
        block1 = min(_next_power_of_two(math.prod(sizes[p + 1:])), elements // block0)
        return min(_next_power_of_two(sizes[p]), elements // block1), block1
    # benchmarks/experiments/large_odd_tiles.py on an H100, float32 `a.t() + b` with odd row
    # strides at 12.5-64 Mi elements, CUDA graphs: 64 x 64 tiles with 8 warps ran 0.906-0.942x
    # torch.compile on four of five shapes (1.053x on the fifth), 32 x 128 with 4 warps 0.993-1.145x,
    # the best or within 1% of it on every shape (64 x 128 with 8 close behind, 128 x 64 worst);
    # bfloat16 keeps 64 x 64 with 8 warps, the best there on every shape (32 x 128: 0.95-0.99x)
    if not vectors and element_bytes > NARROW_ELEMENT_BYTES and elements == CUDA_TILE_ELEMENTS:
        p = tile[0]
        block1 = min(_next_power_of_two(math.prod(sizes[p + 1:])), NO_VECTOR_TILE_RUN)
        return min(_next_power_of_two(sizes[p]), elements // block1), block1
    # `benchmarks.tune --graph` on an H100, bfloat16 transposed and rank-4 permuted adds at
    # 2^15..2^19: 32 x 32 tiles 1-5% faster than 16 x 32 or 32 x 16 ones; where a side is shorter
    # (a 16-element inner run at 2^15), a 1024-element tile (64 x 16) was 13% slower than 32 x 16
    # (tune_16bit_small_h100.txt)
    if element_bytes <= NARROW_ELEMENT_BYTES and elements == CUDA_SMALL_TILE_ELEMENTS:
        square = tile_blocks(sizes, tile, CUDA_MID_TILE_ELEMENTS)
        if min(square) >= 32:
            return square
    return tile_blocks(sizes, tile, elements)


def programs_at_once(device: torch.device) -> int:
    """Programs of CUDA_WARPS warps the device runs at once: one wave."""
    return device_threads(device) // (32 * CUDA_WARPS)


def evict_last(device: torch.device, sizes: tuple, tile, blocks: tuple) -> bool:
    """Whether a launch's loads should ask the L2 to keep their lines (as inductor's tiled
    kernels do): tiled CUDA launches of at least one wave of programs."""
    # benchmarks/experiments/tile_evict.py on an H200, `a.t() + b` as CUDA graphs: evict_last
    # on both loads took 3.1% off at 2^22 (4096 programs), 1.3-1.5% at 2^23 and 2^24, 0.6% at
    # 2^21 (2048 programs, under the 2112 of one wave) and added 8% at 2^20
    return (tile is not None and device.type == "cuda"
            and tile_grid(sizes, tile, blocks) >= programs_at_once(device))


def unmasked(sizes: tuple, tile, blocks: tuple) -> bool:
    """Whether a launch's blocks cover its tasks exactly, so that its kernel needs no masks: a
    flat launch of a multiple of BLOCK elements."""
    # benchmarks/experiments/column_block.py on an H200, a column-broadcast add (b's loads are
    # one per element) as CUDA graphs: no masks took 6-7% off bfloat16 at 2^21..2^26 (torch.compile's
    # time, whose static kernels have none) and 0-2.4% off float32; contiguous adds, where
    # the mask is one predicate per vector, moved within noise (experiment_masks_h200.txt)
    numel = math.prod(sizes)
    return tile is None and numel > 0 and numel % blocks[0] == 0


def tile_blocks(sizes: list, tile, elements: int = 4096) -> tuple:
    """Tile edges of about `elements` (a power of two, 4096 = 64 x 64): up to its square root
    along each side, and longer along one side when the other is short."""
    p = tile[0]
    inner = math.prod(sizes[p + 1:])
    side = 1 << (elements.bit_length() - 1) // 2
    block0 = min(side, _next_power_of_two(sizes[p]))
    block1 = min(_next_power_of_two(inner), max(side, elements // block0))
    block0 = min(_next_power_of_two(sizes[p]), max(block0, elements // block1))
    return block0, block1


def launch_grid(plan: CallPlan, tile, two_dimensional: bool = False) -> tuple:
    """The plan's launch grid (walk_grid's)."""
    return walk_grid(plan.sizes, plan.numel, plan.blocks, tile, two_dimensional)


def walk_grid(sizes, numel: int, blocks: tuple, tile, two_dimensional: bool = False) -> tuple:
    """The launch grid of a walk of these sizes (after coalescing): (tiles along the inner run,
    tile rows) for a tile kernel on a two-dimensional grid, else (programs,): its tiles, or
    BLOCK-sized runs of its elements."""
    if tile and two_dimensional:
        return tile_columns(sizes, tile, blocks), tile_rows(sizes, tile, blocks)
    if tile:
        return (tile_grid(sizes, tile, blocks),)
    return (-(-numel // blocks[0]),)


def tile_columns(sizes: list, tile, blocks) -> int:
    """Tiles across the dims after p (the inner run), BLOCK1 elements each."""
    return -(-math.prod(sizes[tile[0] + 1:]) // blocks[1])


def tile_rows(sizes: list, tile, blocks) -> int:
    """Rows of tiles: BLOCK0 along dim p, times every index of the dims before it."""
    p = tile[0]
    return -(-sizes[p] // blocks[0]) * math.prod(sizes[:p])


def tile_grid(sizes: list, tile, blocks) -> int:
    return tile_columns(sizes, tile, blocks) * tile_rows(sizes, tile, blocks)


# CUDA's limit on a grid's second dimension (gridDim.y)
MAX_GRID_ROWS = 65535


def two_dimensional_grid(sizes: tuple, tile, blocks: tuple) -> bool:
    """Whether a tiled launch takes its tile's column from program_id(0) and its row from
    program_id(1), as inductor's tiled kernels do, rather than one program id split by a
    division and a remainder: all tiled launches whose rows fit the grid's second dimension."""
    # benchmarks/experiments/tile_grid.py on an H100, the transposed and rank-4 permuted adds
    # as CUDA graphs (bfloat16 2^20-2^22, float32 2^20 and 2^22): tritonize on 2D grids against
    # its 1D decode, in two A/B pairs, was faster in all ten rows of both, by 0.4-4.8%
    return tile is not None and tile_rows(sizes, tile, blocks) <= MAX_GRID_ROWS


def _next_power_of_two(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()

"""A new shape's class key and walk from its structure, without the planner's sort and coalescing.

A call whose shape is new launches by its class (PointwiseFunction._class_key), whose key and
walk come from the planner's steps: order the dims by stride (call.layout_permutation), merge
neighbours (call.coalesced_dims), choose a tile, mark broadcast dims. Each step compares strides
(which is larger, does one step over another's elements, is it 0 or 1) and, where two strides
tie, sizes. Two kinds of calls make the same comparisons at every size of one structure, so the
walk of one call of it serves all: its dims' groups, multiplied out of each call's shape.

- Dense tensors (each a permutation of a row-major tensor, size-1 dims aside: dense_order), of
  any sizes (dense_structure): each stride is the product of the sizes of the dims inside its
  dim in its tensor's own order, and sizes of 2 or more make those products differ wherever the
  sets of dims differ.
- Tensors of any strides whose sizes are fixed but for the leading dim's (leading_structure: a
  column slice or a strided slice of rows of a new count), where the leading dim is the walk's
  outermost and no tie of strides involves it: the size of the outermost dim enters none of the
  comparisons.

Either way the broadcast shape may have no size-1 dim (the outputs' layout would follow those
dims' strides). The class key of a new batch beside a bias took 3.9 us of Python where it took
7.3, a new transposed batch's 5.7 where it took 9.0 (the CPU machine;
results/experiment_new_shape_classes_h100.txt).

Calls whose signatures differ only in their leading size (a growing sequence, a varying batch,
transposed or not) take their class key and walk from that size alone, with no structure made:
LeadingWalk, kept by leading_key.
"""
from __future__ import annotations

import math

import torch

from tritonize import call


def dense_structure(tensors: list, parts: list, device) -> tuple | None:
    """What the walk of these tensors (a call's, with its class key's `parts`: each tensor's dtype
    and alignment, each number's type) depends on where they are dense: None where one is not.
    Each tensor gives its dim count, its size-1 dims (None where it has none) and its dims in the
    order of their strides (None for a row-major tensor)."""
    layout = []
    for tensor in tensors:
        shape = tensor.shape
        if call.is_row_major(tensor):
            order = None
        else:
            order = dense_order(shape, tensor.stride())
            if order is None:
                return None
        layout.append((len(shape), tuple([n == 1 for n in shape]) if 1 in shape else None, order))
    return "dense", tuple(parts), device, tuple(layout)


def dense_order(shape, strides) -> tuple | None:
    """A tensor's dims in the order of their strides where it is dense (each stride, size-1 dims
    aside, the product of the sizes of the dims before it in that order: a permuted row-major
    tensor), else None."""
    order = tuple(sorted(range(len(strides)), key=strides.__getitem__))
    expected = 1
    for dim in order:
        size = shape[dim]
        if size != 1:
            if strides[dim] != expected:
                return None
            expected *= size
    return order


def leading_structure(tensors: list, parts: list, device) -> tuple:
    """What the walk of these tensors depends on where their leading dim is the walk's outermost
    (ClassWalk checks that): the class key's `parts`, and each tensor's dim count, size-1 dims,
    strides and sizes, less the leading dim's size for tensors of the call's rank."""
    rank = max([t.dim() for t in tensors])
    layout = []
    for tensor in tensors:
        shape = tensor.shape
        layout.append((len(shape), tuple([n == 1 for n in shape]) if 1 in shape else None, tensor.stride(),
                       shape[1:] if len(shape) == rank else shape))
    return "leading", tuple(parts), device, tuple(layout)


def out_structure(tensors: list, outputs: list, parts: list, device) -> tuple:
    """The structure of a call with out= tensors of its shape: the inputs' and the outputs' dense
    structures where all are dense, else their leading structures. An output that is one of the
    inputs (in place: the same object) is named by that input's position, whose layout the
    structure holds already."""
    index_of = {id(tensor): k for k, tensor in enumerate(tensors)}
    positions = [index_of.get(id(out)) for out in outputs]
    others = [out for out, position in zip(outputs, positions) if position is None]
    dense = dense_structure(tensors, parts, device)
    if dense is not None:
        written = dense_structure(others, (), device) if others else dense
        if written is not None:
            return (*dense, _named(positions, written[3] if others else ()))
    return (*leading_structure(tensors, parts, device),
            _named(positions, leading_structure(others, (), device)[3] if others else ()))


def _named(positions: list, layouts: tuple) -> tuple:
    """The outputs' part of a structure: an input's position for each output that is that input,
    and the next of `layouts` (the other outputs') for each other."""
    rest = iter(layouts)
    return tuple([next(rest) if position is None else position for position in positions])


class ClassWalk:
    """The class key and walk of the calls of one structure (dense_structure's or
    leading_structure's), made from one call's: the class key, its walk's kind ("broadcast" or
    "layout"), the result's dims by where their sizes come from, and the dims' groups, each one
    dim of the walk. A call with out= tensors (out_structure's) walks its inputs alone where its
    outputs are laid out as the planner would allocate them, else its inputs and its outputs
    (`writes`)."""

    def __init__(self, classed: tuple, tensors: list, structure: tuple, outputs: list | None = None):
        key, shape, _, walk = classed
        self.key, self.kind, self.rank = key, walk[0], len(shape)
        self.writes = self.kind == "layout" and walk[5] is not None
        tensors_layout = structure[3]
        # each dim of the result takes its size from the first tensor not broadcast along it; the
        # others not broadcast along it must have that size
        self.sources, self.checks = [], []
        for dim in range(self.rank):
            owners = []
            for index, (count, ones, *_) in enumerate(tensors_layout):
                own = dim - (self.rank - count)
                if own >= 0 and not (ones and ones[own]):
                    owners.append((index, own))
            self.sources.append(owners[0])
            self.checks += [(index, own, dim) for index, own in owners[1:]]
        # every tensor of the result's shape: none is broadcast, each keeps its strides
        self.one_shape = all(count == self.rank and ones is None for count, ones, *_ in tensors_layout)
        self.compared = []  # every stride list the planner's steps compare (outputs' first)
        if self.kind == "broadcast":
            self.masks = walk[2]
            self.groups = [dims for _, dims in call.broadcast_runs([t.shape for t in tensors])[1]]
        else:
            self.tile = walk[3]
            expanded = self._expanded(tensors, shape)
            # the planner orders the dims by the outputs' strides first where they are walked
            self.compared = [list(o.stride()) for o in outputs] + expanded if self.writes else expanded
            self.perm = call.layout_permutation(shape, self.compared)
            self.groups = call.coalesced_dims(shape, self.perm, self.compared)
            # whether the outputs are walked follows the inputs' own order (the allocation's)
            self.inputs_perm = call.layout_permutation(shape, expanded) if self.writes else self.perm
        # a merged dim's stride is its innermost dim's (call.coalesce)
        self.inner = [dims[-1] for dims in self.groups]
        self.merged = any(len(dims) > 1 for dims in self.groups)
        # a LeadingWalk of its calls is kept by their leading key, else by its scaled form (_keep_leading)
        self.any_leading_size = any_leading_size(structure)
        self.with_outputs = len(structure) > 4  # out_structure's

    def leading_outermost(self) -> bool:
        """Does this layout walk take the leading dim outermost, ordered before every other dim by
        strides alone (no tensor ties the leading dim's stride with another's, where
        layout_permutation would compare sizes)? Then the leading size enters no step of it."""
        if self.kind != "layout" or self.perm[-1] != 0 or self.inputs_perm[-1] != 0:
            return False
        for strides in self.compared:
            leading = abs(strides[0])
            if leading and any(abs(stride) == leading for stride in strides[1:]):
                return False
        return True

    def layout_of(self, tensors: list, outputs: list | None = None) -> tuple:
        """What the structure of these tensors (and out= tensors), made as this walk's was, holds but
        the class key's parts and the device."""
        if self.with_outputs:
            structure = out_structure(tensors, outputs, (), None)
        else:
            structure = dense_structure(tensors, (), None) or leading_structure(tensors, (), None)
        return structure[0], structure[3:]

    def classed(self, tensors: list, device, outputs: list | None = None) -> tuple | None:
        """The class key, shape, device and walk of a call of this structure (its tensors, and its
        out= tensors where it has them), as PointwiseFunction._class_key gives them (its key less
        the outputs' dtypes); None where its shapes do not broadcast or hold a size 0 (the planner
        says why, or launches nothing)."""
        shapes = [t.shape for t in tensors]
        shape = tuple([shapes[index][own] for index, own in self.sources])
        for index, own, dim in self.checks:
            if shapes[index][own] != shape[dim]:
                return None
        if 0 in shape:
            return None
        if self.merged:
            sizes = tuple([math.prod([shape[d] for d in dims]) for dims in self.groups])
        else:  # each dim of the walk one of the shape's (a transposed batch)
            sizes = tuple([shape[d] for d in self.inner])
        if self.kind == "broadcast":
            walk = ("broadcast", sizes, self.masks, None, call.row_major_strides(shape))
        else:
            inner = self.inner
            walked = [[strides[d] for d in inner] for strides in self._expanded(tensors, shape)]
            if self.writes:
                written = [[strides[d] for d in inner] for strides in [o.stride() for o in outputs]]
                walk = ("layout", sizes, walked, self.tile, None, written)
            else:
                walk = ("layout", sizes, walked, self.tile, call.allocation_strides(shape, self.perm), None)
        return self.key, shape, device, walk

    def _expanded(self, tensors: list, shape: tuple) -> list:
        """Each tensor's strides broadcast to the shape, as the planner's walk takes them."""
        if self.one_shape:
            return [t.stride() for t in tensors]
        return [call.expanded_strides(t, shape) for t in tensors]


def class_walk(classed: tuple, tensors: list, structure: tuple, device, outputs: list | None = None) -> ClassWalk | None:
    """The ClassWalk of `classed` (the planner's class key and walk of a call of these tensors, and
    these out= tensors where given, of this structure), where its walk is one a ClassWalk makes: a
    broadcast or a layout walk (with the outputs in it only where they are given), of a shape
    without size-1 dims, and for a leading structure a layout walk that takes the leading dim
    outermost; kept only where it gives this call's answer."""
    _, shape, _, walk = classed
    if walk[0] not in ("broadcast", "layout") or 1 in shape or (walk[0] == "layout" and walk[5] is not None
                                                                and outputs is None):
        return None
    made = ClassWalk(classed, tensors, structure, outputs)
    if structure[0] == "leading" and not made.leading_outermost():
        return None
    return made if made.classed(tensors, device, outputs) == classed else None


def leading_key(key: tuple, scaled: bool = False) -> tuple | None:
    """(`key` less its leading size, the leading size) of a call's signature key (decorator.signature_key's
    entries: each tensor's (dtype, shape, strides, device, aligned), each number's type, and the out=
    tensors' after them): each tensor of the call's rank has its entry's shape replaced by the rest of
    its shape and whether its leading size is 1 (broadcast along it); the others keep theirs. None
    where the tensors of the call's rank differ in their leading sizes of two or more, or have none.
    `scaled`: those of the leading size have their strides as scaled_strides gives them (a transposed
    batch's hold the leading size), so that calls of one layout at every leading size share the key."""
    rank = size = 0  # the call's rank, and the leading size of two or more of its first tensor of it that has one
    for entry in key:
        if type(entry) is tuple and len(entry) == 5:
            shape = entry[1]
            if len(shape) > rank:
                rank, size = len(shape), shape[0] if shape[0] != 1 else 0
            elif not size and len(shape) == rank and rank and shape[0] != 1:
                size = shape[0]
    if size < 2:
        return None
    entries = []
    for entry in key:
        if type(entry) is tuple and len(entry) == 5 and len(entry[1]) == rank:
            shape = entry[1]
            if shape[0] == 1:
                entries.append((entry[0], shape[1:], True, entry[2], entry[3], entry[4]))
            elif shape[0] != size:
                return None  # a broadcast error: the planner's
            else:
                entries.append((entry[0], shape[1:], False, scaled_strides(entry[2], size) if scaled else entry[2],
                                entry[3], entry[4]))
        else:
            entries.append(entry)
    return tuple(entries), size


def scaled_strides(strides, size: int) -> tuple:
    """Strides with each multiple of `size` (the leading size) written as minus its factor: (1, -1) for a
    transposed (n, 64) batch's (1, n) at every n. torch's strides are never negative, so each call's
    strides are its key's again at its own size (at_size), and two layouts of one size never share one."""
    return tuple([-(stride // size) if not stride % size else stride for stride in strides])


def at_size(numbers, size: int) -> list:
    """Sizes or strides written as scaled_strides writes them, at a leading size."""
    return [number if number >= 0 else -number * size for number in numbers]


def any_leading_size(structure: tuple) -> bool:
    """Does a kept ClassWalk of this structure give the walk of its calls at any leading size, their
    strides fixed? One of a leading structure does (class_walk keeps one only where the leading dim is
    the walk's outermost, ordered by strides alone: ClassWalk.leading_outermost). One of a dense
    structure does where each tensor of the call's rank orders its leading dim outermost (row-major,
    or its inner dims permuted) or has a leading size of 1: their strides do not hold the leading size,
    so they are dense in the same order at every leading size (the same structure)."""
    if structure[0] == "leading":
        return True
    written = structure[4] if len(structure) > 4 else ()  # out_structure's: an input's position, or a layout
    layouts = [*structure[3], *[layout for layout in written if type(layout) is tuple]]
    rank = max([count for count, _, _ in layouts])
    return all(order is None or count < rank or (ones and ones[0]) or order[-1] == 0 for count, ones, order in layouts)


class LeadingWalk:
    """The class key and walk of the calls whose leading_key is one call's (its scaled form, where their
    strides hold the leading size), where a kept ClassWalk gives them at any leading size: made from
    the leading size alone, with no structure and no look at the tensors. Each size and stride of such
    a call's walk (and of its outputs' allocation) is a constant or a multiple of the leading size
    (its leading dim's, times the sizes of the dims merged with it; a transposed batch's strides), held
    as scaled_strides holds them; its masks and tile are the same at every size. `dense`:
    writes_apart's flag for its out= tensors, as PointwiseFunction._out_class_key asks it; `positions`:
    those of the call's arguments that are the tensors it checks them against."""

    def __init__(self, classed: tuple, sizes: tuple, numbers: tuple, positions: tuple, dense: bool):
        self.key, shape, self.device, walk = classed
        self.rest, self.kind, self.positions, self.dense = tuple(shape[1:]), walk[0], positions, dense
        # most walks scale their outermost size alone: (size * outermost, *inner) takes ~0.1 us less than
        # at_size's; others keep `scaled_sizes`
        outermost_alone = sizes[0] < 0 and min(sizes[1:], default=0) >= 0
        self.scaled_sizes = None if outermost_alone else sizes
        self.outermost, self.inner_sizes = -sizes[0], sizes[1:]
        if self.kind == "broadcast":  # masks, and row-major strides of the shape (no leading size: fitted_walk)
            self.masks, (self.standard,) = walk[2], numbers
        else:  # each tensor's strides, the tile, and the outputs' allocation or strides
            self.walked, self.allocated, self.written = numbers
            self.tile = walk[3]
            # (a walk whose strides hold no leading size copies them: ~0.4 us less than at_size's)
            self.scaled = any(min(numbers, default=0) < 0 for numbers in (*self.walked, self.allocated or (),
                                                                          *(self.written or ())))

    def classed(self, size: int) -> tuple:
        """The class key, shape, device and walk of a call of this leading size."""
        if self.scaled_sizes is None:
            sizes = (size * self.outermost, *self.inner_sizes)
        else:
            sizes = tuple(at_size(self.scaled_sizes, size))
        if self.kind == "broadcast":
            walk = ("broadcast", sizes, self.masks, None, self.standard)
        elif self.scaled:  # fresh lists, as ClassWalk.classed makes them
            walk = ("layout", sizes, [at_size(strides, size) for strides in self.walked], self.tile,
                    None if self.allocated is None else at_size(self.allocated, size),
                    None if self.written is None else [at_size(strides, size) for strides in self.written])
        else:
            walk = ("layout", sizes, [list(strides) for strides in self.walked], self.tile,
                    None if self.allocated is None else list(self.allocated),
                    None if self.written is None else [list(strides) for strides in self.written])
        return self.key, (size, *self.rest), self.device, walk

    def out_classed(self, args, outputs: list, size: int) -> tuple | None:
        """classed() of a call with out= tensors, where they may be written (call.writes_apart);
        else None (the planner checks the call)."""
        classed = self.classed(size)
        tensors = [args[k] for k in self.positions]
        return classed if call.writes_apart(tensors, outputs, classed[1], self.device, dense=self.dense) else None


class _Unfitted(Exception):
    """A walk's size or stride that is neither a constant nor a multiple of the leading size."""


def _neither(first, second) -> bool:
    """Are both of a walk's parts at two leading sizes None (nothing to fit)? _Unfitted where one is
    None and the other is not, or their lengths differ."""
    if first is None and second is None:
        return True
    if first is None or second is None or len(first) != len(second):
        raise _Unfitted
    return False


def _fitted(first, second, size: int, other: int) -> tuple | None:
    """Sizes or strides of a walk at two leading sizes (`first` at `size`, `second` at `other`; None at
    both: none) as scaled_strides writes them: each a constant where both are the same, else minus its
    factor where both are that multiple of their leading size; _Unfitted where one is neither."""
    if _neither(first, second):
        return None
    fitted = []
    for number, there in zip(first, second):
        if number == there and number >= 0:
            fitted.append(number)
        elif number > 0 and not number % size and there == number // size * other:
            fitted.append(-(number // size))
        else:
            raise _Unfitted
    return tuple(fitted)


def _fitted_lists(first, second, size: int, other: int) -> tuple | None:
    """_fitted of each of several tensors' strides (None at both: none)."""
    if _neither(first, second):
        return None
    return tuple([_fitted(mine, theirs, size, other) for mine, theirs in zip(first, second)])


def fitted_walk(classed: tuple, size: int, there: tuple, other: int, positions: tuple,
                dense: bool) -> LeadingWalk | None:
    """The LeadingWalk of a call's class key and walk (`classed`, at leading size `size`) and of the same
    layout's at another (`there`, at `other`; its key may lack the outputs' dtypes), where each of their
    sizes and strides is a constant or a multiple of the leading size, and the rest is the same."""
    (_, shape, _, walk), (_, there_shape, _, there_walk) = classed, there
    if (walk[0] not in ("broadcast", "layout") or there_walk[0] != walk[0] or walk[3] != there_walk[3]
            or shape[0] != size or there_shape[0] != other or tuple(shape[1:]) != tuple(there_shape[1:])):
        return None
    try:
        sizes = _fitted(walk[1], there_walk[1], size, other)
        if walk[0] == "broadcast":  # its masks, and no expanded strides (a shape without size-1 dims)
            if walk[2] != there_walk[2]:
                return None
            numbers = (_fitted(walk[4], there_walk[4], size, other),)
            if min(numbers[0], default=0) < 0:
                return None
        else:  # its tile (compared above), each tensor's strides, the outputs' allocation or strides
            numbers = (_fitted_lists(walk[2], there_walk[2], size, other),
                       _fitted(walk[4], there_walk[4], size, other),
                       _fitted_lists(walk[5], there_walk[5], size, other))
    except _Unfitted:
        return None
    return LeadingWalk(classed, sizes, numbers, positions, dense)


def leading_walk(classed: tuple, walk: ClassWalk, size: int, args, positions: tuple, outputs: list | None,
                 dense: bool, scaled: bool = False) -> LeadingWalk | None:
    """The LeadingWalk of a call (`classed`, from its kept `walk`; its leading size `size`; `positions`:
    those of its tensor arguments the walk holds; `scaled`: its key is leading_key's scaled form), where
    it gives the walk's answer at this size and at two others: tensors of the meta device of those
    sizes, with the strides of the call's key there, that are of the walk's structure. Each size and
    stride of the walk's answer is a product of the tensors' sizes and strides, of which only the
    leading size may change, at most once a product: a constant or a multiple of it (as the fit at two
    sizes finds it), the same at a third and at every size where the structure is the same. A dense
    structure's layout is each tensor's order of dims by strides: where the strides hold the leading
    size, the same at every size of two or more (no two strides of dims of two or more tie), so long as
    no size-1 dim's stride, which the order places too, sits among them."""
    if classed[3][0] not in ("broadcast", "layout"):
        return None
    tensors = [args[k] for k in positions]
    operands = [*tensors, *(outputs or ())]
    rank = max([t.dim() for t in operands])
    if scaled and any(t.dim() == rank and t.shape[0] == size and 1 in t.shape
                      and any(stride and not stride % size for stride in t.stride()) for t in operands):
        return None
    own = walk.layout_of(tensors, outputs)  # the call's structure, less its parts and device

    def there(other):
        """The walk's answer for the call's layout at leading size `other`, or None where the tensors
        there are not of the walk's structure."""
        resized = {}  # by id: an output that is an input (in place) stays that input
        for tensor in operands:
            if id(tensor) not in resized:
                shape, strides = tensor.shape, tensor.stride()
                if tensor.dim() == rank and shape[0] != 1:
                    shape = (other, *shape[1:])
                    if scaled:
                        strides = at_size(scaled_strides(strides, size), other)
                resized[id(tensor)] = torch.empty_strided(shape, strides, dtype=tensor.dtype, device="meta")
        metas = [resized[id(t)] for t in tensors]
        outs = None if outputs is None else [resized[id(o)] for o in outputs]
        if walk.layout_of(metas, outs) != own:
            return None
        found = walk.classed(metas, classed[2], outs)
        # out= tensors that the walk does not hold are laid out as the call allocates (_out_class_key)
        allocated = None if found is None or outs is None else found[3][4]
        if allocated is not None and not all(call.same_walk(found[1], o.stride(), allocated) for o in outs):
            return None
        return found

    first, second = size + 3, 2 * size + 1
    found = there(first)
    made = None if found is None else fitted_walk(classed, size, found, first, positions, dense)
    if made is None or made.classed(size) != classed:
        return None
    # (the walk's key is the class key less the outputs' dtypes, which a call with out= adds)
    found = there(second)
    return made if found is not None and found[1:] == made.classed(second)[1:] else None

"""Whether strided operands share memory element by element, not only span by span.

Two views of one storage whose spans overlap may still hold no byte in common: the even and
the odd elements of a row (`x[..., ::2]` and `x[..., 1::2]`, a rotary embedding written in
place), two column blocks of a matrix. torch writes such out= calls (its overlap check gives
up on views with gaps and lets them through, overlapping or not); tritonize answers exactly:
an element of one at the same bytes as an element of the other is a bounded linear equation
in the indices, solved below by a search that prunes on reach and divisibility, as NumPy's
`may_share_memory` does. A search that runs past its budget answers None (not proven apart).

A layout is (element size, sizes, strides), sizes and strides in elements, as
`tensor.element_size(), tensor.shape, tensor.stride()` give them; strides may be negative
(StridedView).
"""
from __future__ import annotations

import functools
import math

# Nodes a search may visit: the layouts users write (nested strides) take a few per dim; a
# search past this gives up (~0.1 s of Python at most) rather than stall the call.
SEARCH_BUDGET = 100_000


class _GaveUp(Exception):
    pass


def layout_of(tensor) -> tuple:
    """(element size, sizes, strides) of a tensor or StridedView."""
    return tensor.element_size(), tuple(tensor.shape), tuple(tensor.stride())


def elements_overlap(first: tuple, second: tuple, offset: int) -> bool | None:
    """Does a byte of an element of `second` (a layout whose first element lies `offset` bytes
    after `first`'s first element) lie in an element of `first`? None where the search gave up.
    Answers are kept: a call of the same tensors' layouts comes again with the same offsets (the
    even and odd halves of each new tensor), and is then a lookup (~0.15 us of Python)."""
    # where every dim of both holds two elements or more, the residue test (apart_by_step) reads
    # strides alone: it answers calls whose sizes change every call (a rotation in place over a
    # growing sequence) with no search and nothing kept
    if apart_at_every_size(first[0], first[1], first[2], second[0], second[1], second[2], offset):
        return False
    return _kept_overlap(first, second, offset, SEARCH_BUDGET)


def apart_at_every_size(first_size: int, first_shape, first_strides, second_size: int, second_shape,
                        second_strides, offset: int) -> bool:
    """apart_by_step of two layouts (element size, shape, strides) where every dim of both holds two
    elements or more: a dim of one element may have any stride, which must not enter the step, and
    an empty layout holds no element to be apart."""
    return (0 not in first_shape and 1 not in first_shape and 0 not in second_shape and 1 not in second_shape
            and apart_by_step(first_size, first_strides, second_size, second_strides, offset))


def apart_by_step(first_size: int, first_strides: tuple, second_size: int, second_strides: tuple,
                  offset: int) -> bool:
    """Every element of either layout (element sizes, strides of the dims that hold two elements
    or more) starts a multiple of `step` bytes from its first element, `step` the gcd of their byte
    strides: where the bytes of the one and of the other fall in different parts of each step (the
    even and the odd elements of rows), they never meet, whatever the sizes."""
    # not kept: it takes as long as a cache's lookup (~0.3 us), and a cache kept an entry for each
    # new stride (a transposed batch of a new length every call writes_apart asks), objects that
    # the garbage collector tracks
    step = 0
    for stride in first_strides:
        step = math.gcd(step, stride * first_size)
    for stride in second_strides:
        step = math.gcd(step, stride * second_size)
    return bool(step) and first_size <= offset % step <= step - second_size


@functools.lru_cache(maxsize=4096)
def _kept_overlap(first: tuple, second: tuple, offset: int, budget: int) -> bool | None:
    """elements_overlap's answer, kept per layouts, offset and budget."""
    if 0 in first[1] or 0 in second[1]:
        return False  # an empty layout holds no element
    # the residue test first (no search, ~5 us of Python less), on the dims that move
    if apart_by_step(first[0], tuple([s for n, s in zip(first[1], first[2]) if n > 1]),
                     second[0], tuple([s for n, s in zip(second[1], second[2]) if n > 1]), offset):
        return False
    first_size, first_terms, first_low = _positive_terms(first)
    second_size, second_terms, second_low = _positive_terms(second)
    # An element of each at the same byte: first_low + sum(x * a) + u == offset + second_low +
    # sum(y * b) + v, with 0 <= u < first_size, 0 <= v < second_size. Counting y and v down from
    # their tops (y' = top - y) leaves positive coefficients only.
    target = offset + second_low - first_low + sum(b * top for b, top in second_terms) + second_size - 1
    terms = first_terms + second_terms + [(1, first_size + second_size - 2)]
    return _solvable(terms, target, budget)


def tensor_overlaps_itself(tensor) -> bool | None:
    """overlaps_itself of a tensor's layout; False at once for a contiguous one, and for one whose
    strides nest from its last dim out (each dim steps past every element of the dims after it:
    a column slice, the even elements of rows), the commonest strided out= tensors, without
    overlaps_itself's sort (~1 us of a ~1.4 us check on the CPU machine)."""
    if tensor.is_contiguous():
        return False
    reach = 0
    for n, stride in zip(reversed(tensor.shape), reversed(tensor.stride())):
        if n > 1:
            if stride <= reach:  # a stride of 0, a negative one, or one within the inner dims' reach
                return overlaps_itself(layout_of(tensor))
            reach += stride * (n - 1)
    return False


def overlaps_itself(layout: tuple) -> bool | None:
    """Do two elements of one layout lie at the same address (an as_strided view that folds
    back onto itself, a stride-0 dim of two elements or more)? None where the search gave up."""
    _, sizes, strides = layout
    dims = sorted((abs(s), n) for n, s in zip(sizes, strides) if n > 1)
    if any(n == 0 for n in sizes) or not dims:
        return False
    if dims[0][0] == 0:
        return True
    # nested strides (each dim steps past all the elements inside it): no two elements meet
    reach = 0
    for stride, n in dims:
        if stride <= reach:
            break
        reach += stride * (n - 1)
    else:
        return False
    # Two indices differ by z != 0, |z_d| < n_d, sum(z_d * stride_d) == 0. Take dim m the first
    # where z is nonzero and (z and -z are alike) z_m > 0; count the later dims' z from their bottoms.
    for m, (stride, n) in enumerate(dims):
        later = dims[m + 1:]
        terms = [(stride, n - 2)] + [(s, 2 * (k - 1)) for s, k in later]
        found = _solvable(terms, sum(s * (k - 1) for s, k in later) - stride, SEARCH_BUDGET)
        if found is not False:
            return found
    return False


def _positive_terms(layout: tuple):
    """(element size, [(byte stride, top index)] of the dims that move, lowest byte offset from
    the first element) of a layout with elements (_kept_overlap answers empty ones first)."""
    size, sizes, strides = layout
    low, terms = 0, []
    for n, stride in zip(sizes, strides):
        if n > 1 and stride != 0:
            if stride < 0:
                low += (n - 1) * stride * size
            terms.append((abs(stride) * size, n - 1))
    return size, terms, low


def _solvable(terms: list, target: int, budget: int) -> bool | None:
    """Are there integers w with sum(c * w) == target and 0 <= w <= top, for each (c, top) in
    `terms` (c > 0)? None where the search ran past `budget` nodes."""
    merged: dict = {}
    for coefficient, top in terms:
        if top > 0:  # equal coefficients add up: c*w1 + c*w2 takes every c*w for w up to top1 + top2
            merged[coefficient] = merged.get(coefficient, 0) + top
    ordered = sorted(merged.items(), reverse=True)
    count = len(ordered)
    # reach[i]: the most terms i.. add up to; divisor[i]: the gcd of their coefficients
    reach, divisor = [0] * (count + 1), [0] * (count + 1)
    for i in range(count - 1, -1, -1):
        coefficient, top = ordered[i]
        reach[i] = reach[i + 1] + coefficient * top
        divisor[i] = math.gcd(divisor[i + 1], coefficient)
    budget = [budget]

    def search(i: int, remainder: int) -> bool:
        if remainder == 0:
            return True
        if i == count or remainder < 0 or remainder > reach[i] or remainder % divisor[i]:
            return False
        budget[0] -= 1
        if budget[0] < 0:
            raise _GaveUp
        coefficient, top = ordered[i]
        # the values of this term that leave a remainder the later terms can reach
        lowest = max(0, -(-(remainder - reach[i + 1]) // coefficient))
        for value in range(min(top, remainder // coefficient), lowest - 1, -1):
            if search(i + 1, remainder - coefficient * value):
                return True
        return False

    try:
        return search(0, target)
    except _GaveUp:
        return None

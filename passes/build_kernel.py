"""Wrap the lowered body in a rank-specialized, tuple-free Triton kernel: a pointer and one
stride argument per dim for every tensor (a 0-d tensor in CPU memory: its value, a number
argument), one size argument per dim, a flat task id decoded
to a multi-index right to left, masked loads and stores (no masks where the blocks cover the
tasks exactly, nor in the whole blocks of a flat walk); tensors dense in the walk's order are
addressed by the task id itself. Leaves the body as it is.
"""
from __future__ import annotations

import ast
import copy
from typing import NamedTuple

import torch

from tritonize.passes.ast_tools import NameAllocator, assign, comment, expr, name, names_read, stmt
from tritonize.passes.lower_to_triton import Lowered, cast_value
from tritonize.passes.context import MAX_PAIRED_TASKS, PAIR_STRIDE
from tritonize.passes.type_rules import by_value_dtype, compute_dtype, dtype_name, triton_dtype

# names the generated module defines at top level; user variables are renamed around them
MODULE_NAMES = {"tl", "triton", "libdevice", "tl_cuda", "InterpretedFunction", "launch", "math"}

# Python bools travel as ints: Triton 3.6's interpreter cannot take a bool argument
_SCALAR_ANNOTATION = {torch.float64: "tl.float64", torch.int64: "tl.int64", torch.bool: "tl.int64"}


class KernelArgs(NamedTuple):
    """The kernel's parameter names in order, grouped the way the launcher passes them."""

    tensors: list  # (param or output name, pointer arg, [stride args]) ; 0-d inputs have no strides
    scalars: list  # (param name, arg name)
    sizes: list  # size args: dims 1..rank-1 (flat) or every dim (tiled)
    names: list  # every parameter, in signature order


class BuildKernel:
    """
    >>> # rank 2, x: float32 tensor  ->
    >>> # def f_kernel(x_ptr, out0_ptr, x_stride0, x_stride1, out0_stride0, out0_stride1, size1, num_tasks, BLOCK: tl.constexpr):
    >>> #     tid = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK); mask = tid < num_tasks
    >>> #     i1 = tid % size1; i0 = tid // size1
    >>> #     x = tl.load(x_ptr + (i0 * x_stride0 + i1 * x_stride1), mask=mask)
    """

    def __init__(self, ctx, spec, names: NameAllocator):
        self.ctx, self.spec, self.names = ctx, spec, names

    def run(self, body) -> tuple[ast.FunctionDef, KernelArgs]:
        spec, fresh = self.spec, self.names.fresh
        rank = spec.rank
        self.group_index = None
        tensors, scalars = [], []
        for param in spec.params:
            if param.is_pointer:
                has_strides = spec.has_strides(param)
                strides = [fresh(f"{param.name}_stride{d}") for d in range(rank)] if has_strides else []
                tensors.append((param.name, fresh(f"{param.name}_ptr"), strides))
            else:
                scalars.append((param.name, fresh(f"{param.name}_arg")))
        outputs = []
        for k in range(len(spec.out_dtypes)):
            out = fresh(f"out{k}")
            outputs.append((out, fresh(f"{out}_ptr"), [fresh(f"{out}_stride{d}") for d in range(rank)]))
        # a flat kernel decodes dims 1..r-1 from the task id; a tiled one needs every size
        sizes = [fresh(f"size{d}") for d in range(0 if spec.tile else 1, rank)]
        num_tasks = fresh("num_tasks")
        pid, mask = fresh("pid"), fresh("mask")
        index = self.index = [fresh(f"i{d}") for d in range(rank)]
        self.tensor_labels = [label for label, _, _ in tensors]

        statements = [assign(pid, expr("tl.program_id(0)"))]
        if spec.index_dtype == torch.int64:
            statements.append(comment("int64 indexing: some offset does not fit in int32"))
            statements.append(assign(pid, expr("pid.to(tl.int64)", pid=name(pid))))
        self.tid = None
        if spec.tile:
            statements += self.decode_tile(pid, index, sizes, mask)
        else:
            tid = self.tid = fresh("tid")
            statements.append(assign(tid, expr("pid * BLOCK + tl.arange(0, BLOCK)", pid=name(pid))))
            if spec.unmasked:
                statements.append(comment("no mask: the blocks cover the tasks exactly"))
                mask = None
            else:
                statements.append(assign(mask, expr("tid < n", tid=name(tid), n=name(num_tasks))))
            statements += self.decode(tid, index, sizes)
        statements += self.pair_tests(tensors + outputs, sizes, num_tasks, pid, mask)
        # a mask `tid < num_tasks` whose bound Triton cannot prove a multiple of the vector width
        # splits each load and store into one-element accesses (a rank-1 bfloat16 add ran at
        # half of eager's speed: benchmarks/experiments/ragged_masks.py); the whole blocks of a
        # flat walk need no mask
        whole = fresh("whole_block") if spec.masks_last_block_only else None
        if whole:
            statements.append(comment("a whole block loads and stores without the mask, in vectors"))
            statements.append(assign(whole, expr("pid * BLOCK + BLOCK <= n", pid=name(pid), n=name(num_tasks))))

        if spec.dependent_launch:
            statements.append(comment("dependent launch: the kernel before this one may still be running; wait "
                                      "until its writes are visible before the first load"))
            statements.append(stmt("tl_cuda.gdc_wait()"))
        runs = spec.tile[2] if spec.tile else [False] * (len(tensors) + len(outputs))
        flat = spec.flat_indexed or [False] * (len(tensors) + len(outputs))
        if any(flat):
            statements.append(comment(f"{', '.join(flat_indexed_labels(spec))}: dense in the walk's order, so "
                                      f"addressed by tid, which Triton sees run on across rows"))
        # a tensor the function never reads (fill's input: its shape and dtype only) is not loaded
        read = names_read(*body.statements, *(value.node for value in body.outputs))
        unread = [param for param, _, _ in tensors if param not in read]
        if unread:
            whose = "its" if len(unread) == 1 else "their"
            statements.append(comment(f"{', '.join(unread)}: not read by the function (only {whose} shape and dtype "
                                      f"count), so not loaded"))
        statements += self.split(whole, lambda m: self.loads(tensors, index, runs, flat, m, read), mask)
        if spec.dependent_launch:
            statements.append(comment("every load is issued: a dependent launch after this one may start; "
                                      "it waits for these stores in its own gdc_wait"))
            statements.append(stmt("tl_cuda.gdc_launch_dependents()"))
        by_value = [p for p in spec.params if p.by_value]
        if by_value:
            statements.append(comment(f"{', '.join(p.name for p in by_value)}: 0-d tensor{'s' * (len(by_value) > 1)} "
                                      f"in CPU memory, passed by value"))
        for (param, arg) in scalars:
            param_spec = next(p for p in spec.params if p.name == param)
            if param_spec.by_value:
                statements.append(assign(param, self.by_value(param_spec, arg)))
                continue
            # Python numbers keep full width (float64/int64), as Python computes with them
            statements.append(assign(param, self.full(param_spec.vtype.dtype, arg)))

        statements += body.statements
        statements += self.split(whole, lambda m: self.stores(outputs, body.outputs, index, runs[len(tensors):],
                                                              flat[len(tensors):], m), mask)

        arg_names = ([p for _, p, _ in tensors] + [p for _, p, _ in outputs] + [a for _, a in scalars]
                     + [s for _, _, strides in tensors + outputs for s in strides] + sizes + [num_tasks])
        args = [ast.arg(arg=a) for a in arg_names]
        for (_, arg), param in zip(scalars, [p for p in spec.params if not p.is_pointer]):
            arrives = by_value_dtype(param.loaded_dtype) if param.by_value else param.vtype.dtype
            args[arg_names.index(arg)].annotation = expr(_SCALAR_ANNOTATION.get(arrives) or triton_dtype(arrives))
        args += [ast.arg(arg=block, annotation=expr("tl.constexpr")) for block in spec.block_names]
        kernel = ast.FunctionDef(
            name=fresh(f"{self.ctx.function_name}_kernel"),
            args=ast.arguments(posonlyargs=[], args=args, vararg=None, kwonlyargs=[], kw_defaults=[],
                               kwarg=None, defaults=[]),
            body=statements, decorator_list=[], returns=None, type_params=[], lineno=1, col_offset=0)
        kernel_args = KernelArgs(tensors + outputs, scalars, sizes, arg_names + [num_tasks])
        return ast.fix_missing_locations(kernel), kernel_args

    def full(self, dtype, arg) -> ast.expr:
        """A number argument as a value of `dtype` in the kernel's scalar shape (bools arrive as ints)."""
        shape = expr(self.spec.scalar_shape)
        if dtype == torch.bool:
            return expr("tl.full(shape, v, tl.int64) != 0", shape=shape, v=name(arg))
        return expr("tl.full(shape, v, D)", shape=shape, v=name(arg), D=expr(triton_dtype(dtype)))

    def by_value(self, param, arg) -> ast.expr:
        """A 0-d tensor passed by value (ParamSpec.by_value) as a load of it would give it: in its
        dtype (16-bit floats in float32, as loads widen them), or read as its parameter's dtype.
        Its value arrives exactly (by_value_dtype), so no conversion here rounds."""
        stored = param.loaded_dtype
        value = self.full(compute_dtype(stored), arg)
        if param.stored is None:
            return value
        return self.as_read(value, param, compute_dtype(stored))

    def as_read(self, value, param, stored) -> ast.expr:
        """A tensor's value of dtype `stored` as the kernel computes with it: converted to its
        parameter's dtype annotation (if any), and 16-bit floats in float32."""
        read_as = param.vtype.dtype
        if stored != read_as:  # a parameter annotated with a dtype
            value = self.converted(value, param, stored)
        if compute_dtype(read_as) != read_as:  # half types compute in float32
            value = cast_value(Lowered(value, param.vtype, read_as), compute_dtype(read_as), spec=self.spec)
        return value

    def split(self, whole, accesses, mask) -> list:
        """accesses(mask), or where `whole` names the whole-block flag, an if that runs
        accesses(None) in whole blocks and accesses(mask) in the last."""
        if whole is None:
            return accesses(mask)
        unmasked = accesses(None)
        # the two branches share the body's value nodes: the masked one gets copies of its own
        return [ast.If(test=name(whole), body=unmasked, orelse=copy.deepcopy(accesses(mask)))] if unmasked else []

    def pair_tests(self, operands, sizes, num_tasks, pid, mask) -> list:
        """For a walk with paired operands (Specialization.paired): the block's pairs as one run of
        both halves in turn (2 * BLOCK elements: `pair_index`, and its mask), decoded to each element's
        index in the dims before the last and its place in its row of pairs (`pair_column`: both
        halves of a row are one contiguous run, where Triton sees vectors); and for each pair a flag
        that this launch's pointers and strides pair them (the planned call's did; a later call of
        its signature or class may not)."""
        self.pairs = {}  # position of a pair's first operand -> (its second's, the flag's name)
        if not self.spec.paired:
            return []
        fresh, rank = self.names.fresh, self.spec.rank
        self.pair_index, self.pair_mask = fresh("pair_index"), None if mask is None else fresh("pair_mask")
        statements = [comment("the block's pairs, both halves of each in turn (paired operands)"),
                      assign(self.pair_index, expr("pid * (2 * BLOCK) + tl.arange(0, 2 * BLOCK)", pid=name(pid)))]
        if self.pair_mask:
            statements.append(assign(self.pair_mask, expr("i < 2 * n", i=name(self.pair_index), n=name(num_tasks))))
        self.pair_dims, self.pair_column = [], self.pair_index
        if rank > 1:  # decoded as tid is, the last dim's size doubled
            self.pair_dims, self.pair_column = [fresh(f"pair_i{d}") for d in range(rank - 1)], fresh("pair_column")
            doubled = expr("2 * s", s=name(sizes[-1]))
            statements += self.decode(self.pair_index, [*self.pair_dims, self.pair_column], [*sizes[:-1], doubled],
                                      rest="pair_rest")
        for first, second in self.spec.paired:
            (label, pointer, strides), (other, other_pointer, other_strides) = operands[first], operands[second]
            flag = fresh(f"{label}_{other}_paired")
            test = expr("(q.to(tl.int64) == (p + 1).to(tl.int64)) & (s == S) & (t == S)", p=name(pointer),
                        q=name(other_pointer), s=name(strides[-1]), t=name(other_strides[-1]), S=PAIR_STRIDE)
            for stride, other_stride in zip(strides[:-1], other_strides[:-1]):  # rows of pairs: one row stride
                test = expr("a & (s == t)", a=test, s=name(stride), t=name(other_stride))
            if self.spec.index_dtype == torch.int32:  # the pair index stays within int32
                test = expr("a & (n <= M)", a=test, n=name(num_tasks), M=MAX_PAIRED_TASKS)
            statements.append(comment(f"{label} and {other} pair where {other}'s elements lie one past {label}'s, both "
                                      f"at a stride of {PAIR_STRIDE} (the even and odd elements of rows): one "
                                      f"access of both"))
            statements.append(assign(flag, test))
            self.pairs[first] = (second, flag)
        return statements

    def pair_address(self, pointer, strides):
        """The addresses of the block's pairs of an operand pair whose first operand has these
        strides: its rows' starts, plus the place in the row (pair_tests)."""
        offset = name(self.pair_column)
        for i, s in reversed(list(zip(self.pair_dims, strides[:-1]))):
            offset = ast.BinOp(left=expr("i * s", i=name(i), s=name(s)), op=ast.Add(), right=offset)
        return expr("p + o", p=name(pointer), o=offset)

    def paired_access(self, first: int, paired, single) -> ast.If:
        """if <the pair's flag>: paired; else: single (statements, each)."""
        return ast.If(test=name(self.pairs[first][1]), body=paired, orelse=single)

    def loads(self, tensors, index, runs, flat, mask, read) -> list:
        """param = tl.load(...) for each tensor parameter in `read` (masked unless `mask` is None);
        a pair's two (Specialization.paired) by one load of both where the pair's flag says so."""
        spec, statements = self.spec, []
        broadcast = dict(spec.broadcast_dims)
        seconds = {second: first for first, (second, _) in self.pairs.items()}
        for position, ((param, pointer, strides), run, at_tid) in enumerate(zip(tensors, runs, flat)):
            if param not in read or position in seconds:
                continue
            if position in self.pairs:
                statements += self.paired_loads(tensors, position, mask)
                continue
            param_spec = next(p for p in spec.params if p.name == param)
            address = self.address(pointer, strides, index, run, broadcast.get(param, ()), at_tid)
            # a tile's indices before dim p are one value per program (always in bounds): an input
            # broadcast along p and every dim after it is one value per program too, loaded
            # without the tile's mask (Triton refuses a block mask on a single pointer)
            one_value = spec.tile is not None and set(range(spec.tile[0], spec.rank)) <= set(broadcast.get(param, ()))
            load = _load(address, None if not strides or one_value else mask)
            if strides and spec.evict_last:
                load.keywords.append(ast.keyword(arg="eviction_policy", value=ast.Constant("evict_last")))
            statements.append(assign(param, self.as_read(load, param_spec, param_spec.loaded_dtype)))
        return statements

    def paired_loads(self, tensors, first, mask) -> list:
        """The loads of a pair of inputs: both halves in one load, split, where the pair's flag says
        so, else one load each; then each converted as its parameter reads it."""
        second = self.pairs[first][0]
        (param, pointer, strides), (other, _, _) = tensors[first], tensors[second]
        address = self.pair_address(pointer, strides)
        load = _load(address, self.pair_mask)
        both = stmt("a, b = tl.split(tl.reshape(v, (BLOCK, 2)))", a=name(param, store=True), b=name(other, store=True),
                    v=load)
        single = []
        for label, label_pointer, strides in (tensors[first], tensors[second]):
            address = self.address(label_pointer, strides, self.index)
            single.append(assign(label, _load(address, mask)))
        statements = [self.paired_access(first, [both], single)]
        for label in (param, other):
            param_spec = next(p for p in self.spec.params if p.name == label)
            read = self.as_read(name(label), param_spec, param_spec.loaded_dtype)
            if not (isinstance(read, ast.Name) and read.id == label):
                statements.append(assign(label, read))
        return statements

    def converted(self, load, param, stored) -> ast.expr:
        """A tensor's value of dtype `stored` as its parameter's annotation reads it: as `x.to(dtype)`
        gives it, through cast_value (which stores use too: bool as x != 0, the interpreter's
        bfloat16 rounding)."""
        if stored == torch.float64 and param.vtype.dtype in (torch.float16, torch.bfloat16):
            # torch converts double to a half type through float (c10's Half and BFloat16 take a
            # float): rounding twice, where one cast would round once
            load, stored = expr("v.to(tl.float32)", v=load), torch.float32
        return cast_value(Lowered(load, param.vtype, stored), param.vtype.dtype, spec=self.spec)

    def stores(self, outputs, values, index, runs, flat, mask) -> list:
        """tl.store(...) of each output's value (masked unless `mask` is None)."""
        spec, computed, statements = self.spec, [], []
        results = spec.result_dtypes or spec.out_dtypes
        together = len(outputs) > 1 and all(dtype.itemsize >= 4 for dtype in spec.out_dtypes)
        # a pair's two values (Specialization.paired) are computed before either store: one store
        # takes both
        count = len(self.tensor_labels)
        paired = {position - count for pair in spec.paired for position in pair if position >= count}
        named = {}
        for k, ((out, pointer, strides), value, dtype, result, run, at_tid) in enumerate(
                zip(outputs, values, spec.out_dtypes, results, runs, flat)):
            if result != dtype:  # a float16 result in a float32 out= is rounded to float16 first
                value = Lowered(cast_value(value, result, spec=spec), value.vtype, result)
            stored = cast_value(value, dtype, spec=spec)
            if k in paired and not together:
                computed.append(assign(out, stored))
                named[k] = name(out)
                continue
            # several outputs of 32 bits or more: every value is computed before the first
            # store, as inductor's kernels do. A tile's store moves its value between layouts
            # through shared memory, and math left after that store kept more registers live
            # (the float32 sin/cos op with two outputs, 32 x 32 tiles: 93 registers a thread
            # against 80 in Triton 3.9's build for sm_90). An A/B on an H100 (Triton 3.6,
            # tiled_costly.py outputs, twice): its float32 tiled rows 2.3-3.2% faster as planned
            # and 7-9% with 32 x 32 tiles, to inductor's time; but its bfloat16 tiled rows 4-5.5%
            # slower, so 16-bit outputs are stored as they are computed (not explained)
            if together:
                if not computed:
                    computed.append(comment("every output is computed before the first store: fewer registers "
                                            "stay live across the stores"))
                computed.append(assign(out, stored))
                stored = name(out)
            if k in paired:
                named[k] = stored
                continue
            address = self.address(pointer, strides, index, run, at_tid=at_tid)
            statements.append(_store(address, stored, mask))
        for first, (second, _) in sorted(self.pairs.items()):
            if first >= count:
                statements.append(self.paired_stores(outputs, first - count, second - count, named, mask))
        return computed + statements

    def paired_stores(self, outputs, first, second, values, mask) -> ast.If:
        """The stores of a pair of outputs: both values interleaved, in one store, where the pair's
        flag says so, else one store each."""
        _, pointer, strides = outputs[first]
        # tl.interleave, spelled in the builtins it is made of (a @triton.jit function, which the
        # interpreter cannot call from a kernel it runs); a value that reads no tensor is a scalar on
        # the GPU, broadcast to the block
        both = expr("tl.reshape(tl.join(tl.broadcast_to(a, [BLOCK]), tl.broadcast_to(b, [BLOCK])), [2 * BLOCK])",
                    a=values[first], b=values[second])
        address = self.pair_address(pointer, strides)
        paired = _store(address, both, self.pair_mask)
        single = []
        for k in (first, second):
            address = self.address(outputs[k][1], outputs[k][2], self.index)
            single.append(_store(address, values[k], mask))
        return self.paired_access(len(self.tensor_labels) + first, [paired], single)

    def decode(self, tid, index, sizes, rest="rest"):
        """i_{r-1} = tid % size_{r-1}; tid //= size_{r-1}; ...; i_0 = what is left. `sizes`: the
        names of dims 1..r-1's sizes, or expressions (copied at each use); `rest`: the quotients' names."""
        rank = len(index)
        statements, left = [], tid
        for d in range(rank - 1, 0, -1):
            size = sizes[d - 1]
            statements.append(assign(index[d], expr("t % s", t=name(left), s=_size_node(size))))
            quotient = index[0] if d == 1 else self.names.fresh(f"{rest}{d}")
            statements.append(assign(quotient, expr("t // s", t=name(left), s=_size_node(size))))
            left = quotient
        if rank == 1:
            statements.append(assign(index[0], name(tid)))
        return statements

    def decode_tile(self, pid, index, sizes, mask):
        """A 2D tile over (dim p) x (the dims after p, as one combined index): an operand
        contiguous along p and one contiguous along the later dims both read whole lines;
        Triton moves the tile between the two layouts through shared memory. On a 2D grid
        the tile's column is program_id(0) and its row program_id(1); else both come from one
        program id. The dims before p come from the row."""
        p = self.spec.tile[0]
        rank, fresh = len(index), self.names.fresh
        group = list(range(p + 1, rank))
        others = list(range(p - 1, -1, -1))
        group_size = fresh("group_size") if len(group) > 1 else sizes[group[0]]
        tiles_inner, tiles_p = fresh("tiles_inner"), fresh("tiles_p")
        tile_inner, tile_p, rest = fresh("tile_inner"), fresh("tile_p"), fresh("rest")
        statements = []
        if len(group) > 1:
            product = name(sizes[group[0]])
            for d in group[1:]:
                product = ast.BinOp(left=product, op=ast.Mult(), right=name(sizes[d]))
            statements.append(assign(group_size, product))
        row = rest if others else tile_p  # the row of tiles; with dims before p, it holds them too
        if self.spec.two_dimensional_grid:
            row_id = expr("tl.program_id(1)")
            if self.spec.index_dtype == torch.int64:
                row_id = expr("r.to(tl.int64)", r=row_id)
            statements += [comment("a 2D grid: program_id(0) is the tile's column, program_id(1) its row"),
                           assign(tile_inner, name(pid)), assign(row, row_id)]
        else:
            statements += [
                assign(tiles_inner, expr("(s + BLOCK1 - 1) // BLOCK1", s=name(group_size))),
                assign(tile_inner, expr("pid % n", pid=name(pid), n=name(tiles_inner))),
                assign(row, expr("pid // n", pid=name(pid), n=name(tiles_inner))),
            ]
        if others:
            statements += [
                assign(tiles_p, expr("(s + BLOCK0 - 1) // BLOCK0", s=name(sizes[p]))),
                assign(tile_p, expr("r % n", r=name(rest), n=name(tiles_p))),
                assign(rest, expr("r // n", r=name(rest), n=name(tiles_p))),
            ]
        for position, d in enumerate(others):
            if position == len(others) - 1:
                statements.append(assign(index[d], name(rest)))
            else:
                statements.append(assign(index[d], expr("r % s", r=name(rest), s=name(sizes[d]))))
                statements.append(assign(rest, expr("r // s", r=name(rest), s=name(sizes[d]))))
        inner = fresh("inner") if len(group) > 1 else index[group[0]]
        self.group_index = inner if len(group) > 1 else None
        statements += [
            assign(inner, expr("t * BLOCK1 + tl.arange(0, BLOCK1)[None, :]", t=name(tile_inner))),
            assign(index[p], expr("t * BLOCK0 + tl.arange(0, BLOCK0)[:, None]", t=name(tile_p))),
            assign(mask, expr("(a < sa) & (b < sb)", a=name(inner), sa=name(group_size),
                              b=name(index[p]), sb=name(sizes[p]))),
        ]
        if len(group) > 1:  # the combined index, decoded right to left
            remaining = inner
            for position, d in enumerate(reversed(group)):
                if position == len(group) - 1:
                    statements.append(assign(index[d], name(remaining)))
                else:
                    statements.append(assign(index[d], expr("r % s", r=name(remaining), s=name(sizes[d]))))
                    quotient = fresh("inner")
                    statements.append(assign(quotient, expr("r // s", r=name(remaining), s=name(sizes[d]))))
                    remaining = quotient
        return statements

    def address(self, pointer, strides, index, run=False, broadcast_dims=(), at_tid=False):
        """pointer + sum(i_d * stride_d), leaving out the dims where the stride is 0; pointer + tid
        for a tensor dense in the walk's order (`at_tid`)."""
        if not strides:
            return name(pointer)
        if at_tid:
            return expr("p + t", p=name(pointer), t=name(self.tid))
        terms = list(enumerate(zip(index, strides)))  # (dim, (index, stride))
        if run and self.group_index is not None:
            # the dims after p are one run here: the combined index times the last stride,
            # which Triton's contiguity analysis can follow (the decoded indices it cannot);
            # a run whose last stride is 0 has 0 for every stride
            p = self.spec.tile[0]
            terms = terms[:p + 1] + [(len(strides) - 1, (self.group_index, strides[-1]))]
        offset = None
        for i, s in [index_stride for d, index_stride in terms if d not in broadcast_dims]:
            term = expr("i * s", i=name(i), s=name(s))
            offset = term if offset is None else ast.BinOp(left=offset, op=ast.Add(), right=term)
        return expr("p + o", p=name(pointer), o=offset)



def _load(address: ast.expr, mask: str | None) -> ast.expr:
    """tl.load at `address`, masked by the name `mask` unless it is None."""
    return expr("tl.load(p)", p=address) if mask is None else expr("tl.load(p, mask=m)", p=address, m=name(mask))


def _store(address: ast.expr, value: ast.expr, mask: str | None) -> ast.stmt:
    """tl.store of `value` at `address`, masked by the name `mask` unless it is None."""
    return stmt("tl.store(p, v)", p=address, v=value) if mask is None else \
        stmt("tl.store(p, v, mask=m)", p=address, v=value, m=name(mask))


def _size_node(size) -> ast.expr:
    """A size for decode: a name, or a copy of an expression (a node is spliced in one place only)."""
    return name(size) if isinstance(size, str) else copy.deepcopy(size)


def describe_spec(spec) -> str:
    parts = []
    for p in spec.params:
        kind = {2: "tensor", 1: "0-d tensor", 0: "Python number"}[p.vtype.priority]
        parts.append(f"{p.name}: {dtype_name(p.loaded_dtype) if p.is_tensor else _python_kind(p.vtype.dtype)} "
                     f"{kind}{' by value' if p.by_value else ''}{p.read_note}")
    outs = ", ".join(dtype_name(d) for d in spec.out_dtypes)
    if spec.result_dtypes:  # set only where out= tensors hold other dtypes
        outs += " (results of " + ", ".join(dtype_name(d) for d in spec.result_dtypes) + ", then cast)"
    approximated = (f"; approximate {' and '.join(spec.approximate)}, equal to the exact kernel on every input"
                    if spec.approximate else "")
    broadcast = "".join(f"; {param} broadcast along dim{'s' if len(dims) > 1 else ''} {', '.join(map(str, dims))}"
                        for param, dims in spec.broadcast_dims)
    kept = "; loads kept in L2 (evict_last)" if spec.evict_last else ""
    unmasked = "; no masks (the blocks cover the tasks exactly)" if spec.unmasked else ""
    dependent = "; dependent launch (PDL)" if spec.dependent_launch else ""
    grid = "; tiles on a 2D grid" if spec.two_dimensional_grid else ""
    libdevice = "; a CUDA toolkit's libdevice" if spec.toolkit_libdevice else ""
    capped = f"; at most {spec.max_registers} registers a thread" if spec.max_registers else ""
    dense = flat_indexed_labels(spec)
    flat = f"; {', '.join(dense)} at the flat index" if dense else ""
    labels = operand_labels(spec)
    paired = "".join(f"; {labels[first]} and {labels[second]} paired (one access of both where their pointers pair)"
                     for first, second in spec.paired)
    # dsl/cli.py's `cache list` reads this line back: the params, outputs, index width and
    # device come first, in this order
    return (f"rank {spec.rank}, {'; '.join(parts)}; outputs: {outs}; "
            f"{dtype_name(spec.index_dtype)} indexing; {spec.device_type}{broadcast}{approximated}{kept}{unmasked}"
            f"{flat}{paired}{grid}{libdevice}{capped}{dependent}")


def operand_labels(spec) -> list:
    """The tensors the kernel takes pointers to, as the generated code names them: the parameters,
    then out0, out1, ..."""
    return [p.name for p in spec.params if p.is_pointer] + [f"out{k}" for k in range(len(spec.out_dtypes))]


def flat_indexed_labels(spec) -> list:
    """The tensors that the kernel addresses by the flat task id."""
    return [label for label, flat in zip(operand_labels(spec), spec.flat_indexed) if flat]


def _python_kind(dtype):
    return {torch.float64: "float", torch.int64: "int", torch.bool: "bool"}[dtype]

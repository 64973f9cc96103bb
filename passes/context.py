"""The objects the passes hand each other: what a function is, and what a call specializes."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

import torch

from tritonize.errors import SourceLocation
from tritonize.passes.ast_tools import NameAllocator
from tritonize.passes.type_rules import VType, dtype_name


@dataclass
class FrontendContext:
    """Everything the untyped passes know about one scalar function, passed explicitly."""

    fn: object
    filename: str
    function_name: str
    globals: dict
    closure: dict
    params: list[str] = field(default_factory=list)
    scalar_annotations: dict[str, type] = field(default_factory=dict)
    # parameters annotated with a torch dtype (`x: torch.float64`): read as that dtype, as
    # `x.to(dtype)` would give them, converted on load instead of by a copy beforehand
    read_as: dict[str, torch.dtype] = field(default_factory=dict)
    defaults: dict[str, object] = field(default_factory=dict)
    constants_read: dict[str, object] = field(default_factory=dict)
    helper_sources: dict[str, str] = field(default_factory=dict)
    helper_stack: tuple = ()
    names: NameAllocator = field(default_factory=NameAllocator)
    num_outputs: int = 1
    first_line: int = 0
    tree: object = None

    def location(self, node: ast.AST) -> SourceLocation | None:
        if not hasattr(node, "lineno"):
            return None
        return SourceLocation(getattr(node, "tz_file", self.filename), node.lineno, node.col_offset)


@dataclass(frozen=True)
class ParamSpec:
    """How one parameter arrives in this call: a tensor (its dtype, 0-d or not) or a number."""

    name: str
    vtype: VType
    # the tensor's own dtype where the parameter reads it as another (FrontendContext.read_as),
    # else None: the kernel loads this dtype and converts it to vtype's
    stored: torch.dtype | None = None
    # a 0-d tensor in CPU memory: the kernel takes its value, a number (by_value_dtype), as
    # TensorIterator passes CPU scalars to CUDA kernels. No copy to the GPU before each launch
    # (a GPU kernel cannot read CPU memory), no pointer; promotion still sees a 0-d tensor
    by_value: bool = False

    @property
    def is_tensor(self) -> bool:
        return self.vtype.priority > 0

    @property
    def is_pointer(self) -> bool:
        """Does the kernel take it through a pointer (a tensor not passed by value)?"""
        return self.vtype.priority > 0 and not self.by_value

    @property
    def loaded_dtype(self) -> torch.dtype:
        """The dtype a load of this tensor gives, before any conversion."""
        return self.stored or self.vtype.dtype

    @property
    def read_note(self) -> str:
        """' read as float64' (the header's and explain()'s words) where the tensor is read as
        another dtype, else ''."""
        return f" read as {dtype_name(self.vtype.dtype)}" if self.stored is not None else ""


# Specialization.paired: the stride at which paired operands' elements lie (in elements), and the
# most tasks an int32-indexed kernel takes its paired accesses for (they index 2 * num_tasks
# elements and a block past them, which must stay within int32)
PAIR_STRIDE, MAX_PAIRED_TASKS = 2, 2**29


@dataclass(frozen=True)
class Specialization:
    """What the generated module depends on. Never raw sizes or strides."""

    params: tuple[ParamSpec, ...]
    out_dtypes: tuple[torch.dtype, ...]  # what each output tensor holds
    rank: int
    index_dtype: torch.dtype
    device_type: str
    opmath: bool = True
    # a 2D tile when operands disagree on layout: (dim p, innermost dim, for each operand
    # (inputs, then outputs) whether the dims after p are one run in it)
    tile: tuple | None = None
    # approximations (kinds of LowerToTriton.approximable: "division", "exp") this kernel uses
    # in place of exact math: only where dsl/approximations.py found them exact on every input
    approximate: tuple[str, ...] = ()
    # the dtypes of the results where out= tensors of other dtypes hold them (else ()): each
    # result is rounded to its own dtype first, then cast, as torch computes then copies
    result_dtypes: tuple[torch.dtype, ...] = ()
    # loads ask the L2 to keep their lines (`eviction_policy="evict_last"`), as inductor's tiled
    # kernels do: the runtime sets it for tiled CUDA launches of at least a wave (call.evict_last)
    evict_last: bool = False
    # (input, dims) where that input's stride is 0 (broadcast) and some other dim's is not: its
    # address leaves those terms out, so Triton sees the load repeat along them (one load per
    # run of equal addresses); the stride arguments stay, unused
    broadcast_dims: tuple[tuple[str, tuple[int, ...]], ...] = ()
    # a flat launch whose blocks cover its tasks exactly (their number a multiple of BLOCK):
    # loads and stores take no mask, as inductor's kernels for sizes its block divides
    unmasked: bool = False
    # launched as a programmatic dependent (PDL) of the kernel before it in the stream: waits
    # for that kernel's writes before its first load, and lets the next kernel start launching
    # after its last load (call.dependent_launch: Hopper and later)
    dependent_launch: bool = False
    # for each tensor (inputs, then outputs) of a decoded walk (rank 2 or more, no tile), whether
    # its strides are the dense row-major strides of the walk's sizes: it is addressed by the
    # flat task id, whose contiguity Triton sees across rows (the decoded sum i0 * s0 + i1 * s1
    # it cannot follow where the inner size is not a multiple of 16); else ()
    flat_indexed: tuple[bool, ...] = ()
    # a tiled launch on a 2D grid: the tile's column is program_id(0), its row (and the dims
    # before p) program_id(1), with no division by the number of columns; else one program id,
    # split (call.two_dimensional_grid: all tiles whose rows fit the grid's second dimension)
    two_dimensional_grid: bool = False
    # the CUDA kernel links a CUDA toolkit's libdevice (dsl/launch.toolkit_libdevice), not Triton's:
    # where there is one and the function is faster with it, or gives eager's results with it
    # (math_table.prefers_toolkit_libdevice); math_table.LIBDEVICE_WITH_A_TOOLKIT's composites then
    # give way to libdevice's own functions
    toolkit_libdevice: bool = False
    # pairs (first, second) of operands (positions among the inputs, then the outputs) of a walk
    # without a tile whose elements interleave: the second's one element past the first's, both of
    # the same strides, the last 2 (x[..., ::2] and x[..., 1::2]: a rotary rotation in place, complex
    # numbers as pairs of reals), as the planned call's pointers had them (call.paired_operands). The
    # kernel tests that on each launch (pointers and strides) and then moves both with one access,
    # split (loads) or interleaved (stores) in registers: the block's pairs, both halves of each in
    # turn, decoded so that each row of pairs is one contiguous run; else one access each
    paired: tuple[tuple[int, int], ...] = ()
    # the registers a thread that ptxas may allocate (Triton's `maxnreg`), 0 where it chooses: flat
    # CUDA launches of kernels whose heavy branch blocks may skip (call.max_registers), so that the
    # branch's registers do not set the blocks an SM holds where the blocks skip it
    max_registers: int = 0

    @property
    def float32_tensors(self) -> bool:
        """Does the kernel load or store a float32 tensor (so it runs at float32's copy speed)?"""
        return torch.float32 in self.out_dtypes or any(p.is_pointer and p.loaded_dtype == torch.float32
                                                       for p in self.params)

    @property
    def masks_last_block_only(self) -> bool:
        """A flat walk whose blocks do not cover its tasks: whole blocks load and store without
        the mask, in vectors, and only the last block is masked (passes/build_kernel.py)."""
        return self.tile is None and not self.unmasked

    @property
    def block_names(self) -> tuple:
        return ("BLOCK0", "BLOCK1") if self.tile else ("BLOCK",)

    @property
    def scalar_shape(self) -> str:
        """The shape scalars take in the kernel: true scalars on the GPU, blocks on the CPU."""
        if not self.scalars_as_blocks:
            return "[]"
        return "[" + ", ".join(self.block_names) + "]"

    @property
    def scalars_as_blocks(self) -> bool:
        # Triton's interpreter (3.9) records a scalar comparison's result with its operands'
        # dtype, so broadcasting it later gives garbage; on the CPU, scalars are full blocks.
        return self.device_type != "cuda"

    def has_strides(self, param: ParamSpec) -> bool:
        """0-d tensors are loaded once as scalars on the GPU; everything else is indexed."""
        return param.vtype.priority == 2 or (param.is_pointer and self.scalars_as_blocks)

    @property
    def portable_math(self) -> bool:
        # Triton's interpreter cannot call libdevice, so CPU kernels use tl.math composites.
        return self.device_type != "cuda"

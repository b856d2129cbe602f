"""Tracing PyPTO-style kernels into ``pto`` dialect IR.

A kernel runs once, on symbolic handles: every ``pypto.*`` call records an op
(with the Python file:line:col it came from), ``pypto.loop`` records a
``pto.loop`` and runs its body once, and the ambient ``set_*`` state becomes
attributes (``vec_tile``, ``cube_tile``) and regions (``pto.scope``) on the ops
it governs, as docs/Rationale.md maps it.
"""

from __future__ import annotations

from . import dtypes as dt
from .graph import Block, Location, Op, Value, insert_op
from .handles import Condition, TensorHandle, Tile, _whole, tensor_type, tile_type
from .literals import _constant_text
from .symbolic import Comparison, Scalar, arith_op
from .trace_context import _error, _user_frame, current_tracer, user_location

# The op modules import the handles and the context from here.
__all__ = ["Condition", "Frame", "TensorHandle", "Tile", "Tracer", "current_tracer", "tensor_type",
           "tile_type", "user_location"]


class Frame:
    """The body of the kernel or of one pto.loop, with its ambient state."""

    def __init__(self, block: Block, loop_op: Op | None, parent: "Frame | None",
                 anchor: Op | None = None):
        self.block = block
        self.loop_op = loop_op
        self.anchor = anchor if anchor is not None else loop_op   # the op holding the body
        self.vec_tile = parent.vec_tile if parent else None
        self.cube_tile = parent.cube_tile if parent else None
        self.scope = parent.scope if parent else None          # (id, par, cross, loc)
        self.ooo_scope = parent.ooo_scope if parent else None  # 950 OoO task id
        self.semantic_label = parent.semantic_label if parent else None
        self.open_scope: Op | None = None
        self.idx_names = set(parent.idx_names) if parent else set()
        if loop_op is not None:
            self.idx_names.add(loop_op.fields["idx_name"])
        self.index: Scalar | None = None


class Tracer:
    def __init__(self, arch: str):
        self.arch = arch
        self.kernel_body = Block(None)
        self.frames = [Frame(self.kernel_body, None, None)]
        self.constants: dict = {}
        self.num_constants = 0
        self.combine_axis = None
        self.pass_option_overrides: dict = {}
        # Group keys of kernel-level merge settings that PyPTO names by its
        # own graph (func keys, semantic labels): carried unmodelled.
        self.unmodelled_pass_options: dict = {}
        self.aborted_loop = None
        self.loop_count = 0
        self.finished = False
        self.dims: dict = {}

    # -- names ---------------------------------------------------------------------

    def name_locals(self) -> None:
        """Names values after the Python variables holding them (``q_i``,
        ``s1_loop``), so the printed IR reads like the kernel. Called as each
        op is recorded, when the previous statement's results are bound."""
        frame = _user_frame()
        if frame is None:
            return
        for name, obj in frame.f_locals.items():
            if isinstance(obj, (Tile, TensorHandle)):
                value = obj.value
                if value.op is not None and not value.user_named:
                    value.hint, value.user_named = name, True
            elif isinstance(obj, Scalar) and not obj.user_named:
                obj.user_named = True
                if obj.kind == "value":
                    value = obj.args[0]
                    if value.op is not None and not value.user_named:
                        value.hint, value.user_named = name, True
                else:
                    obj.hint = name

    # -- positions ---------------------------------------------------------------

    @property
    def frame(self) -> Frame:
        return self.frames[-1]

    def location(self) -> Location:
        return user_location()

    def scalar_block(self) -> Block:
        return self.frame.block

    def _frame_index(self, block: Block) -> int | None:
        for i, frame in enumerate(self.frames):
            if frame.block is block:
                return i
        return None

    def _scalar_insert_index(self, k: int) -> int | None:
        """Where scalar ops go in frame ``k``'s block: before the op that
        holds the current position (a nested loop or the open scope)."""
        frame = self.frames[k]
        if k == len(self.frames) - 1:
            anchor = frame.open_scope
        else:
            anchor = self.frames[k + 1].anchor
        return None if anchor is None else frame.block.ops.index(anchor)

    def insert_scalar_op(self, op: Op, k: int | None = None) -> Op:
        if k is None:
            k = len(self.frames) - 1
        return insert_op(self.frames[k].block, op, self._scalar_insert_index(k))

    def insert_op(self, op: Op) -> Op:
        """Inserts a tile-level op at the current position, inside the
        pto.scope the ambient sg_set_scope asks for."""
        frame = self.frame
        wanted = frame.scope
        if frame.open_scope is not None and (wanted is None or
                                             frame.open_scope.fields["key"] != wanted[:3]):
            frame.open_scope = None
        if wanted is not None and frame.open_scope is None:
            scope_id, par, cross, loc = wanted
            flags = ""
            if par:
                flags += ", allow_parallel_merge = true"
            if cross:
                flags += ", allow_cross_scope_merge = true"
            scope = Op("pto.scope", {"attr": f"#pto.scope<id = {scope_id}{flags}>",
                                     "key": wanted[:3]}, loc=loc, has_body=True)
            insert_op(frame.block, scope)
            frame.open_scope = scope
        if frame.ooo_scope is not None:
            op.fields["discardable"] = [f"pto.ooo_scope = {frame.ooo_scope} : i64"]
        if frame.semantic_label is not None and op.kind not in ("pto.loop", "pto.scope",
                                                                "scf.if"):
            label = frame.semantic_label.replace("\\", "\\\\").replace('"', '\\"')
            op.fields.setdefault("discardable", []).append(f'pto.semantic_label = "{label}"')
        target = frame.open_scope.body if frame.open_scope is not None else frame.block
        return insert_op(target, op)

    # -- values ---------------------------------------------------------------------

    def constant(self, value, type: str = "index", loc: Location | None = None) -> Value:
        """A constant, hoisted to the kernel entry and uniqued."""
        text = _constant_text(value, type)
        key = (text, type)
        if key not in self.constants:
            if type == "index":
                hint = f"c{value}" if value >= 0 else f"c_m{-value}"
            else:
                hint = "cst"
            op = Op("arith.constant", {"value": text}, [type], hint, loc or self.location())
            insert_op(self.kernel_body, op, self.num_constants)
            self.num_constants += 1
            self.constants[key] = op.result
        return self.constants[key]

    def _visible(self, value: Value) -> bool:
        block = value.block
        if value.scope is not None:
            block = value.scope.block
        return block is not None and block.is_ancestor_of(self.frame.block)

    @property
    def in_loop(self) -> bool:
        return any(frame.loop_op is not None for frame in self.frames)

    def _where(self, block: Block) -> str:
        op = block.parent_op
        while op is not None and op.kind not in ("pto.loop", "scf.if"):
            op = op.block.parent_op
        if op is None:
            return "the kernel body"
        if op.kind == "scf.if":
            branch = "then" if block is op.body else "else"
            return f"the {branch} branch of the run-time `if {op.fields['text']}` ({op.loc})"
        return f"pypto.loop '{op.fields['name']}' (index {op.fields['idx_name']}, {op.loc})"

    def _ends(self, block: Block) -> str:
        """What ends the region ``block`` is in, and the fix, for a value
        of it used outside."""
        op = block.parent_op
        while op is not None and op.kind not in ("pto.loop", "scf.if"):
            op = op.block.parent_op
        if op is not None and op.kind == "scf.if":
            return ("that `if` ends; a run-time `if` carries past its end only the tiles "
                    "assigned to a variable in its branches (same shape and dtype in both): "
                    "assign it to a variable in both branches (or before the `if`), or write "
                    "it to a tensor (assemble) in the branch")
        return ("that loop ends; pypto.loop bodies are separate functions: write it to a "
                "tensor (assemble/atomic_add) instead")

    def index_value(self, x, what: str) -> Value:
        """The index SSA value of an int or symbolic scalar, materialised in
        the block where the expression was written."""
        if isinstance(x, bool) or not isinstance(x, (int, Scalar)):
            from .if_results import check_value
            check_value(x)
            raise _error(f"{what} must be an int or a symbolic scalar, got "
                         f"{type(x).__name__} {x!r}")
        if isinstance(x, int):
            return self.constant(x)
        return self._materialize(x, what)

    def _materialize(self, s: Scalar, what: str) -> Value:
        if s.kind == "value":
            value = s.args[0]
            if not self._visible(value):
                raise _error(f"{what}: '{s.hint or 'value'}' was computed in "
                             f"{self._where(value.block)} and is used after "
                             f"{self._ends(value.block)}")
            return value
        k = self._frame_index(s.block)
        if k is None:
            raise _error(f"{what}: a symbolic value computed in {self._where(s.block)} is "
                         f"used after that loop ends; compute it where it is used")
        for j in range(k, -1, -1):
            cached = self.frames[j].block.memo.get(s.key)
            if cached is not None:
                return cached
        if s.kind == "dim":
            handle, i = s.args
            op = Op("pto.dim", {"source": handle.value, "dim": i}, ["index"],
                    s.hint, s.hint_loc)
        else:
            operands = []
            for arg in s.args:
                if isinstance(arg, int):
                    operands.append(self.constant(arg, "index", s.hint_loc))
                else:
                    if arg.kind != "value":
                        j = self._frame_index(arg.block)
                        if j is None or j > k:
                            raise _error(f"{what}: part of this expression was computed in "
                                         f"{self._where(arg.block)} and is used outside it")
                    operands.append(self._materialize(arg, what))
            op = Op(arith_op(s.kind), {"lhs": operands[0], "rhs": operands[1]}, ["index"],
                    s.hint or s.kind, s.hint_loc)
        open_scope = self.frames[k].open_scope if k == len(self.frames) - 1 else None
        if open_scope is not None and any(getattr(v, "scope", None) is open_scope
                                          for v in op.fields.values()):
            # An operand is computed in the open pto.scope (a tile's valid
            # extent): scalar ops otherwise go before the scope, ahead of it.
            insert_op(open_scope.body, op)
        else:
            self.insert_scalar_op(op, k)
        self.frames[k].block.memo[s.key] = op.result
        return op.result

    def dim_scalar(self, handle: TensorHandle, i: int) -> Scalar:
        key = (id(handle.value), i)
        if key not in self.dims:
            s = Scalar("dim", (handle, i), self.kernel_body
                       if handle.value.op is None else handle.value.block,
                       f"{handle.name}_dim{i}")
            s.hint_loc = self.location()
            self.dims[key] = s
        return self.dims[key]

    def use_tile(self, tile, what: str) -> Tile:
        if isinstance(tile, TensorHandle):
            return self.whole_view(tile, what)
        if isinstance(tile, Tile) and getattr(tile, "if_result", None) is not None:
            # A tile assigned in both branches of a run-time `if`, read after
            # it: the branch's value through its storage (if_results.py).
            # Read after the pypto.loop holding the `if`: the value the
            # last iteration left.
            return self.whole_view(tile.if_result.storage(self.frame.block), what)
        if not isinstance(tile, Tile):
            from .if_results import check_value
            check_value(tile)
            raise _error(f"{what} takes a tile, got {type(tile).__name__} {tile!r}")
        if not self._visible(tile.value) and getattr(tile, "carried_state", None) is not None:
            # A loop-carried tile (move.py) read after its loop: its storage.
            return self.whole_view(tile.carried_state, what)
        if not self._visible(tile.value):
            raise _error(f"{what}: this tile was computed in {self._where(tile.value.block)} "
                         f"and is used after {self._ends(tile.value.block)}")
        return tile

    def use_tensor(self, tensor, what: str) -> TensorHandle:
        if not isinstance(tensor, TensorHandle):
            raise _error(f"{what} takes a GM tensor (a kernel argument or a reshape of one), "
                         f"got {type(tensor).__name__} {tensor!r}")
        if tensor.value.op is not None and not self._visible(tensor.value):
            raise _error(f"{what}: tensor '{tensor.name}' was reshaped in "
                         f"{self._where(tensor.value.block)} and is used after that loop ends")
        return tensor

    # -- tensors as tiles -------------------------------------------------------------

    def whole_view(self, tensor: TensorHandle, what: str) -> Tile:
        """A GM tensor used where a tile is expected (``db + x``,
        ``pypto.cast(w, ...)``): a view of the whole tensor, read where it
        is used (so a tensor written in earlier iterations is read fresh)."""
        tensor = self.use_tensor(tensor, what)
        if None in tensor.static_shape:
            dims = [("?" if d is None else str(d)) for d in tensor.static_shape]
            raise _error(f"{what}: GM tensor '{tensor.name}' [{', '.join(dims)}] is used as a "
                         f"tile operand, which views the whole tensor, but it has dynamic dims; "
                         f"tile shapes are static: take pypto.view(...) or a slice with static "
                         f"extents of it")
        shape = tuple(tensor.static_shape)
        return self.record_view(tensor, shape, [0] * tensor.ndim,
                                self.tensor_view_valid(tensor, shape, [0] * tensor.ndim, None),
                                f"{tensor.name}_all")

    def tensor_view_valid(self, tensor: TensorHandle, shape, offsets, explicit):
        """The ``valid`` operands of a view of ``tensor``: the explicit ones,
        or, for a tensor a reshape gave a valid shape, that shape clipped to
        the window (docs/Frontend.md). A whole view of a workspace takes the
        valid shape of the value last moved into it (``ws[:] = v``) on the
        path to the view, resolved after tracing (valid_flow.py)."""
        if explicit is None and tensor.value.op is not None and \
                tensor.value.op.kind == "pto.workspace" and \
                tuple(shape) == tuple(tensor.static_shape) and \
                all(isinstance(o, int) and o == 0 for o in offsets):
            from .valid_flow import MovedValid
            return MovedValid(tensor.value)
        if tensor.valid_shape is None:
            return explicit if explicit is None else self.mixed(explicit, "view(valid_shape)")
        from .shape_ops import tensor_valid_view_extents
        extents = tensor_valid_view_extents(self, tensor, shape, offsets, explicit)
        return self.mixed(extents, "view(valid_shape)")

    def record_view(self, source, shape, offsets, valid, hint) -> Tile:
        if isinstance(source, TensorHandle):
            offsets = source.at(offsets)
        fields = {"source": source.value, "offsets": self.mixed(offsets, "view(offsets)"),
                  "valid": valid}
        op = Op("pto.view", fields, [tile_type(shape, source.dtype)], hint, self.location())
        self.insert_op(op)
        return Tile(op.result, shape, source.dtype)

    def _slices(self, tensor, index, what: str, for_write: bool = False) -> list:
        """(start, extent) per dim of ``tensor[index]`` (a GM tensor or a
        tile); extent None when the slice has no static extent (``a:`` on a
        dynamic dim)."""
        static_shape = tensor.static_shape if isinstance(tensor, TensorHandle) else tensor.shape
        label = tensor.name if isinstance(tensor, TensorHandle) else "the tile"
        items = list(index) if isinstance(index, tuple) else [index]
        if Ellipsis in items:
            at = items.index(Ellipsis)
            if Ellipsis in items[at + 1:]:
                raise _error(f"{what}: at most one '...' in a tensor index")
            fill = len(static_shape) - (len(items) - 1)
            items = items[:at] + [slice(None)] * max(fill, 0) + items[at + 1:]
        if len(items) > len(static_shape):
            raise _error(f"{what}: '{label}' has rank {len(static_shape)}, indexed with "
                         f"{len(items)} entries")
        items += [slice(None)] * (len(static_shape) - len(items))
        result = []
        dropped = self._dropped_dims = []
        for dim, item in enumerate(items):
            if not isinstance(item, slice):
                # An integer index is the slice i:i + 1 whose dim the
                # caller then drops (PyPTO/torch indexing).
                if isinstance(item, bool) or not isinstance(item, (int, Scalar)):
                    raise _error(f"{what}: entry {dim} is {item!r}; index with a slice `a:b` "
                                 f"or an int / symbolic scalar per dim")
                if isinstance(item, int) and item < 0:
                    if static_shape[dim] is None:
                        raise _error(f"{what}: negative index {item} in dynamic dim {dim}")
                    item += static_shape[dim]
                if isinstance(item, int) and static_shape[dim] is not None and \
                        not 0 <= item < static_shape[dim]:
                    raise _error(f"{what}: index {item} is out of range for dim {dim} of size "
                                 f"{static_shape[dim]}")
                dropped.append(dim)
                result.append((item, 1))
                continue
            if item.step not in (None, 1):
                raise _error(f"{what}: entry {dim} has step {item.step!r}; only contiguous "
                             f"slices (step 1) are views")
            start = 0 if item.start is None else item.start
            for label, bound in (("start", start), ("stop", item.stop)):
                if bound is not None and (isinstance(bound, bool)
                                          or not isinstance(bound, (int, Scalar))):
                    raise _error(f"{what}: slice {label} of dim {dim} must be an int or a "
                                 f"symbolic scalar, got {type(bound).__name__} {bound!r}")
            if isinstance(start, int) and start < 0:
                raise _error(f"{what}: negative slice start {start} in dim {dim}")
            stop = item.stop
            size = static_shape[dim]
            if stop is None and for_write:
                # dst[off:, ...] = t: PyPTO assembles t at the starts, so
                # the written tile, not the slice, gives the extent.
                result.append((start, None))
                continue
            if stop is None:
                stop = size          # None for a dynamic dim
            if stop is None:
                extent = None
            else:
                extent = _static_difference(stop, start)
                if extent is not None and extent <= 0:
                    raise _error(f"{what}: dim {dim} slice is empty (extent {extent})")
            if stop is not None and extent is None:
                raise _error(f"{what}: the extent of dim {dim} ({stop!r} - {start!r}) is not a "
                             f"compile-time constant; tile shapes are static: write the slice "
                             f"as `i:i + n` with a Python int n (or use pypto.view with "
                             f"valid_shape=)")
            result.append((start, extent))
        return result

    def slice_view(self, tensor, index) -> Tile:
        """``x[a:b, :]`` of a GM tensor or of a tile: a view."""
        if isinstance(tensor, Tile):
            what = "tile[...]"
            tensor = self.use_tile(tensor, what)
            parts = self._slices(tensor, index, what)
            dropped = self._dropped_dims
            if all(isinstance(s, int) and s == 0 and e == n
                   for (s, e), n in zip(parts, tensor.shape)):
                view = tensor      # the whole tile: the same value
            else:
                view = self.record_view(tensor, tuple(e for _, e in parts),
                                        [s for s, _ in parts], None, "tile_slice")
            return self._drop(view, dropped)
        what = f"{tensor.name}[...]"
        tensor = self.use_tensor(tensor, what)
        parts = self._slices(tensor, index, what)
        for dim, (_, extent) in enumerate(parts):
            if extent is None:
                raise _error(f"{what}: dim {dim} of '{tensor.name}' is dynamic and the slice "
                             f"has no stop; give a static extent (`a:a + n`)")
        dropped = self._dropped_dims
        shape, starts = tuple(e for _, e in parts), [s for s, _ in parts]
        view = self.record_view(tensor, shape, starts,
                                self.tensor_view_valid(tensor, shape, starts, None),
                                f"{tensor.name}_slice")
        return self._drop(view, dropped)

    def _drop(self, tile: Tile, dims) -> Tile:
        if not dims:
            return tile
        from .shape_ops import drop_dims
        return drop_dims(self, tile, dims)

    def slice_assign(self, tensor, index, value, what: str | None = None) -> None:
        """``tensor[slices] = value``: assembles the tile (or the whole-tensor
        view of a tensor) at the slices' starts."""
        from . import ops
        if not isinstance(tensor, TensorHandle):  # pragma: no cover - only TensorHandle calls
            raise _error("only GM tensors can be assigned to")
        what = what or f"{tensor.name}[...] = value"
        tensor = self.use_tensor(tensor, what)
        parts = self._slices(tensor, index, what, for_write=True)
        from .if_results import check_value
        check_value(value)
        if isinstance(value, TensorHandle):
            value = self.whole_view(value, what)
        if not isinstance(value, Tile):
            raise _error(f"{what}: the value must be a tile or a GM tensor, got "
                         f"{type(value).__name__} {value!r} (fill tiles with pypto.full)")
        dropped = self._dropped_dims
        if dropped and value.ndim == tensor.ndim - len(dropped):
            # dst[k, :] = t: the tile gains the indexed dims back (size 1).
            from .shape_ops import regroup, valid_extents
            shape, valid = list(value.shape), valid_extents(self, value)
            for d in dropped:
                shape.insert(d, 1)
                valid.insert(d, 1)
            value = regroup(self, value, shape, valid, "indexed")
        if _whole(index) and value.ndim != tensor.ndim:
            # PyPTO's t[:] = v is t.move(v): a workspace takes v's shape.
            from .move import rebind_workspace
            if rebind_workspace(self, tensor, value, what):
                parts = [(0, size) for size in value.shape]
        if value.ndim != tensor.ndim:
            raise _error(f"{what}: a rank-{value.ndim} tile {list(value.shape)} cannot be "
                         f"written into the rank-{tensor.ndim} tensor '{tensor.name}'; reshape "
                         f"one of them")
        for dim, ((_, extent), size) in enumerate(zip(parts, value.shape)):
            if extent is not None and extent != size and extent < size:
                raise _error(f"{what}: dim {dim} of the slice has extent {extent} but the "
                             f"tile has {size}")
        ops.assemble(value, [s for s, _ in parts], tensor)
        if _whole(index) and tuple(value.shape) == tuple(tensor.static_shape) and \
                tensor.value.op is not None and tensor.value.op.kind == "pto.workspace":
            # PyPTO's move: the workspace now is the value, valid shape too
            # (a [5, 1] tail moved into pypto.tensor([8, 1]) reads as [5, 1]);
            # read by later whole views of it on the same path (valid_flow.py).
            from .valid_flow import record_move
            record_move(self, tensor.value, value.value, tensor.static_shape)

    def workspace(self, shape, dtype: dt.DataType, name: str) -> TensorHandle:
        """``pypto.tensor(shape, dtype, name)``: a GM workspace tensor of the
        current body (a fresh one per iteration of the enclosing loops)."""
        op = Op("pto.workspace", {}, [tensor_type(shape, dtype)], name, self.location())
        self.insert_scalar_op(op)
        return TensorHandle(self, op.result, shape, dtype, name)

    # -- run-time conditions -----------------------------------------------------------

    def loop_condition(self, kind: str, index, what: str) -> Condition:
        """``pypto.is_loop_begin(i)`` / ``is_loop_end(i)`` of an enclosing
        loop's index."""
        if not isinstance(index, Scalar) or index.kind != "value" or \
                not any(f.index is index or (f.index is not None and
                                             f.index.args[0] is index.args[0])
                        for f in self.frames):
            raise _error(f"{what} takes the index of an enclosing pypto.loop (the loop "
                         f"variable itself), got {index!r}")
        value = index.args[0]
        op = Op(kind, {"index": value}, ["i1"], f"{kind.split('.')[1][3:]}_{value.hint}",
                self.location())
        self.insert_scalar_op(op)
        return Condition(op.result, f"{what}")

    def compare(self, comparison: Comparison, text: str) -> Condition:
        """The i1 value of a symbolic comparison, at the current position."""
        what = f"`if {text}`"
        lhs = self.index_value(comparison.lhs, what)
        rhs = self.index_value(comparison.rhs, what)
        op = Op("arith.cmpi", {"predicate": comparison.predicate, "lhs": lhs, "rhs": rhs},
                ["i1"], "cond", self.location())
        self.insert_scalar_op(op)
        return Condition(op.result, text)

    def open_if(self, cond: Condition, loc: Location) -> Op:
        parent = self.frame
        parent.open_scope = None      # scopes never contain control flow
        op = Op("scf.if", {"cond": cond.value, "text": cond.text}, loc=loc, has_body=True)
        op.else_body = Block(op)
        insert_op(parent.block, op)
        return op

    def enter_branch(self, op: Op, then: bool) -> Frame:
        frame = Frame(op.body if then else op.else_body, None, self.frame, anchor=op)
        frame.index = None
        self.frames.append(frame)
        return frame

    def leave_branch(self, frame: Frame) -> None:
        if self.finished or frame not in self.frames:
            return
        while self.frames[-1] is not frame:
            self.frames.pop()
        self.frames.pop()
        self.frame.open_scope = None

    def mixed(self, items, what: str) -> list:
        return [x if isinstance(x, int) and not isinstance(x, bool)
                else self.index_value(x, f"{what}[{i}]") for i, x in enumerate(items)]

    # -- reads ------------------------------------------------------------------------

    def read(self, tensor: TensorHandle, index) -> Scalar:
        what = f"{tensor.name}[...]"
        if tensor.dtype.is_float:
            raise _error(f"{what}: scalar reads are supported from integer tensors only "
                         f"('{tensor.name}' is {tensor.dtype!r}); read tiles with pypto.view")
        indices = index if isinstance(index, tuple) else (index,)
        if len(indices) != tensor.ndim:
            raise _error(f"{what}: '{tensor.name}' has rank {tensor.ndim}, indexed with "
                         f"{len(indices)} indices; give one index per dim")
        for i in indices:
            if isinstance(i, slice):
                raise _error(f"{what}: slicing a GM tensor is not supported; use pypto.view "
                             f"with a static shape and offsets")
        self.use_tensor(tensor, what)
        values = [self.index_value(i, f"{what} index {n}")
                  for n, i in enumerate(tensor.at(indices))]
        loc = self.location()
        op = Op("pto.read", {"tensor": tensor.value, "indices": values}, ["index"],
                f"{tensor.name}_at", loc)
        self.insert_scalar_op(op)
        s = Scalar("value", (op.result,), self.frame.block, f"{tensor.name}[...]")
        return s

    # -- loops ------------------------------------------------------------------------

    def open_loop(self, fields: dict, loc: Location) -> Frame:
        parent = self.frame
        parent.open_scope = None      # scopes never contain loops
        op = Op("pto.loop", fields, loc=loc, has_body=True)
        insert_op(parent.block, op)
        iv = Value("index", fields["idx_name"], block=op.body)
        op.body.args.append(iv)
        frame = Frame(op.body, op, parent)
        frame.index = Scalar("value", (iv,), op.body, fields["idx_name"])
        self.frames.append(frame)
        return frame

    def close_loop(self, frame: Frame, completed: bool) -> None:
        if self.finished or frame not in self.frames:
            return
        if not completed and self.aborted_loop is None:
            self.aborted_loop = frame.loop_op
        while self.frames[-1] is not frame:
            self.frames.pop()
        self.frames.pop()
        self.frame.open_scope = None


def _static_difference(stop, start):
    """``stop - start`` when it is a compile-time int (``i + n`` minus ``i``)."""
    from .symbolic import _split_offset
    if isinstance(stop, int) and isinstance(start, int):
        return stop - start
    base_stop, off_stop = _split_offset(stop)
    base_start, off_start = _split_offset(start)
    if isinstance(base_stop, Scalar) and isinstance(base_start, Scalar) and \
            base_stop.key == base_start.key:
        return off_stop - off_start
    return None

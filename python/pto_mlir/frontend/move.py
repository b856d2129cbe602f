"""``ws[:] = value`` / ``ws.move(value)`` of a ``pypto.tensor`` workspace
with a value of another rank.

PyPTO's ``t[:] = v`` is ``t.move(v)`` (hicann/pypto ``python/pypto/tensor.py``:
``__setitem__`` with an empty slice calls ``move``, which moves ``v``'s tensor
into ``t``): afterwards ``t`` *is* ``v``, with ``v``'s shape. A kernel may so
keep a ``[1, 1]`` running maximum in a ``pypto.tensor([1], DT_FP32)`` and use
it as a ``[1, 1]`` operand after the first move.

For a workspace the front end gives the same meaning: the name is rebound to
a fresh ``pto.workspace`` of the value's shape, created next to the original
(same block, so it lives as long and per-iteration the same way), and the
value is assembled into it. Reads traced before the move keep the original
storage, as in PyPTO. A value of the same rank but a smaller shape is still
assembled at offset 0 of the workspace (the shape is kept; kernels use this
for partial writes), which is where this differs from PyPTO's move. A
kernel argument's shape is the caller's, so writing a value of another rank
into one stays an error; so does a move whose shape change would depend on a
run-time ``if`` (the name's shape after the ``if`` would depend on the
branch taken).

A tile (``pypto.full``, the result of an op) moved into, ``t[:] = v``, is
rebound the same way: ``t`` now holds ``v``'s value, shape and dtype, in
the same block (liger_cross_entropy keeps a running minimum so across a
Python-unrolled loop). A tile created outside the ``pypto.loop`` or run-time
``if`` the move is in is loop-carried or branch-dependent state, which PyPTO
keeps in the tensor's storage (gated_delta_rule's ``state = full(...)``,
``state[:] = new_state`` per chunk): the tile then lives in a workspace
created before that loop or ``if``, holding its value from there, and every
read of it inside reads the workspace where it happens (the reads already
traced are rewritten), each move stores into it, and reads after the region
view it. Such a state keeps its shape and dtype. A partial index
(``t[0:4, :] = v``) is an error at the line.
"""

from __future__ import annotations

from .errors import TraceError
from .graph import Op, insert_op
from .tracer import TensorHandle, Tile, tensor_type, tile_type, user_location


def _error(message: str) -> TraceError:
    return TraceError(message, user_location())


def _workspace_op(tensor: TensorHandle) -> Op | None:
    op = tensor.value.op
    return op if op is not None and op.kind == "pto.workspace" else None


def rebind_workspace(tracer, tensor: TensorHandle, value: Tile, what: str) -> bool:
    """Rebinds the workspace ``tensor`` to fresh storage of ``value``'s shape
    when a whole-tensor move changes its shape; True when it did. The caller
    then assembles ``value`` at offset 0."""
    origin = _workspace_op(tensor)
    if origin is None:
        return False
    if len(tensor.static_shape) == value.ndim:
        return False
    block = tracer.frame.block
    while block is not None and block is not origin.block:
        parent = block.parent_op
        if parent is not None and parent.kind == "scf.if":
            raise _error(f"{what}: moving a {list(value.shape)} value into the "
                         f"{list(tensor.static_shape)} pypto.tensor '{tensor.name}' changes its "
                         f"shape inside a run-time `if`, so its shape after the `if` would "
                         f"depend on the branch; not supported yet: give the pypto.tensor the "
                         f"value's shape {list(value.shape)} where it is created")
        block = block.parent_block
    if block is None:   # pragma: no cover - a workspace's block encloses its uses
        return False
    op = Op("pto.workspace", {}, [tensor_type(tuple(value.shape), value.dtype)], tensor.name,
            tracer.location())
    insert_op(origin.block, op, origin.block.ops.index(origin) + 1)
    tensor.value = op.result
    tensor.static_shape = tuple(value.shape)
    tensor._dims = None
    tensor.valid_shape = None
    return True


def _whole(index) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return all(i is Ellipsis or (isinstance(i, slice) and i == slice(None)) for i in items)


def _replace_uses(block, old, make_view) -> None:
    """Every op nested in ``block`` that reads ``old`` reads a fresh view
    made just before it instead (``make_view(block, index)``)."""
    def swap(x, fresh):
        if x is old:
            return fresh
        if isinstance(x, list):
            return [swap(y, fresh) for y in x]
        if isinstance(x, tuple):
            return tuple(swap(y, fresh) for y in x)
        return x

    for op in list(block.ops):
        if any(v is old for v in op.operand_values()):
            fresh = make_view(block, block.ops.index(op))
            op.fields = {k: swap(v, fresh) for k, v in op.fields.items()}
        for body in (op.body, op.else_body):
            if body is not None:
                _replace_uses(body, old, make_view)


def _promote(tracer, tile: Tile, control) -> TensorHandle:
    """Keeps ``tile`` in a workspace from before ``control`` (the outermost
    ``pto.loop`` / ``scf.if`` between its definition and a move into it):
    its value is stored there first, and every read of it already traced
    inside ``control`` reads the workspace where it happens, as PyPTO reads
    a tensor's storage."""
    from .op_support import _vec_tile_attr
    outer = control.block
    at = outer.ops.index(control)
    shape, dtype, old = tile.shape, tile.dtype, tile.value
    ws = Op("pto.workspace", {}, [tensor_type(shape, dtype)], f"{old.hint}_state", control.loc)
    insert_op(outer, ws, at)
    zeros = [0] * len(shape)
    store = Op("pto.assemble", {"src": old, "dst": ws.result, "offsets": zeros,
                                "attrs": _vec_tile_attr(tracer)}, (), "", control.loc)
    insert_op(outer, store, at + 1)

    def make_view(block, index):
        view = Op("pto.view", {"source": ws.result, "offsets": zeros, "valid": None},
                  [tile_type(shape, dtype)], old.hint, control.loc)
        insert_op(block, view, index)
        return view.result

    for body in (control.body, control.else_body):
        if body is not None:
            _replace_uses(body, old, make_view)
    return TensorHandle(tracer, ws.result, shape, dtype, f"{old.hint}_state")


def move_tile(tracer, tile: Tile, index, value) -> None:
    """``tile[:] = value``: rebinds ``tile`` to ``value`` (PyPTO's move). A
    tile created outside the ``pypto.loop`` / run-time ``if`` of the move
    becomes workspace-backed (``_promote``): the move also stores the value
    there, and reads after that region ends view it (``Tracer.use_tile``)."""
    from .view_ops import _store_tile
    what = "tile[:] = value"
    if not _whole(index):
        raise _error(f"{what}: a tile is a value; only a whole move (`t[:] = v`) rebinds it, "
                     f"got index {index!r}: write a part into a tensor (pypto.assemble, "
                     f"`dst[...] = tile`) instead")
    if not isinstance(value, (Tile, TensorHandle)):
        raise _error(f"{what}: moves a tile or tensor, got {type(value).__name__} {value!r} "
                     f"(use pypto.full for a constant tile)")
    moved = tracer.use_tile(value, what)
    if getattr(tile, "if_result", None) is not None:
        # the result of a run-time `if`, read here as a plain tile
        tile.value = tracer.use_tile(tile, what).value
        tile.if_result = None
    state = getattr(tile, "carried_state", None)
    if state is None:
        block = tracer.frame.block
        home = tile.value.scope.block if tile.value.scope is not None else tile.value.block
        control = None
        while block is not None and block is not home:
            parent = block.parent_op
            if parent is not None and parent.kind in ("pto.loop", "scf.if"):
                control = parent
            block = block.parent_block
        if control is not None:
            if moved.shape != tile.shape or moved.dtype != tile.dtype:
                raise _error(f"{what}: moves a {list(moved.shape)} {moved.dtype!r} value into a "
                             f"{list(tile.shape)} {tile.dtype!r} tile kept across "
                             f"{control.kind} ({control.loc}); loop-carried state keeps its "
                             f"shape and dtype (cast or reshape the value first)")
            state = tile.carried_state = _promote(tracer, tile, control)
    if state is not None:
        if moved.shape != tile.shape or moved.dtype != tile.dtype:
            raise _error(f"{what}: moves a {list(moved.shape)} {moved.dtype!r} value into a "
                         f"{list(tile.shape)} {tile.dtype!r} loop-carried tile; it keeps its "
                         f"shape and dtype (cast or reshape the value first)")
        _store_tile(tracer, "assemble", moved, [0] * moved.ndim, state)
    tile.value, tile.shape, tile.dtype = moved.value, moved.shape, moved.dtype

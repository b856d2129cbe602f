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
"""

from __future__ import annotations

from .errors import TraceError
from .graph import Op, insert_op
from .tracer import TensorHandle, Tile, tensor_type, user_location


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

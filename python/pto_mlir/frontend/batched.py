"""Batched ``pypto.matmul``: operands of rank 3 or 4.

PyPTO (https://github.com/hicann/pypto/blob/master/docs/api/operation/pypto-matmul.md) takes 2-, 3-
and 4-D operands of equal rank; the last two dims are the matrices
(``a_trans`` / ``b_trans`` transpose those), the leading ones are batch dims,
and a batch dim of size 1 broadcasts against the other operand's (its
example: ``(1, 32, 64) @ (3, 64, 16) -> (3, 32, 16)``).

Here it is the documented composition of 2-D ``pto.matmul``s over GM
workspaces (docs/Frontend.md, "Batched matmul"): each operand is assembled
into a workspace and viewed, in place, as ``[batch * rows, cols]``; a
``pto.loop`` per batch dim runs over the valid batch extent and multiplies
one 2-D matrix pair per iteration, assembling it at its rows of the result
workspace ``[batch * M, N]``; the result is the whole-workspace view as
``[..., M, N]`` with the valid extents of the operands. Every op is an
ordinary ``pto`` op, so the interpreter, the tile graph, the ISA lowering
and C++ emission handle it as they handle a 2-D matmul in a loop.
"""

from __future__ import annotations

from .errors import TraceError
from .graph import Op
from .symbolic import Scalar
from .tracer import TensorHandle, Tile, tensor_type, user_location


def _error(message: str) -> TraceError:
    return TraceError(message, user_location())


def _batch_shape(a: Tile, b: Tile) -> list:
    """The broadcast batch dims of ``a`` and ``b`` (equal, or one is 1)."""
    shape = []
    for i, (x, y) in enumerate(zip(a.shape[:-2], b.shape[:-2])):
        if x != y and 1 not in (x, y):
            raise _error(f"matmul: batch dim {i} is {x} in input {list(a.shape)} and {y} in "
                         f"mat2 {list(b.shape)}; batch dims must be equal or 1 (broadcast)")
        shape.append(max(x, y))
    return shape


def _flat(tracer, tile: Tile, hint: str) -> tuple:
    """``tile`` in a workspace seen in place as ``[batch * rows, cols]``,
    with its valid extents (per dim)."""
    from .shape_ops import _store, valid_extents
    valid = valid_extents(tracer, tile)
    ws = tracer.workspace(tuple(tile.shape), tile.dtype, f"{hint}_ws")
    _store(tracer, tile, [0] * tile.ndim, ws)
    rows = 1
    for s in tile.shape[:-1]:
        rows *= s
    flat_shape = (rows, tile.shape[-1])
    op = Op("pto.reshape", {"source": ws.value, "shape": list(flat_shape), "inplace": True},
            [tensor_type(flat_shape, tile.dtype)], f"{hint}_flat", tracer.location())
    tracer.insert_op(op)
    return TensorHandle(tracer, op.result, flat_shape, tile.dtype, f"{hint}_flat"), valid


def _batch_row(index: list, batch: tuple, rows: int):
    """The first row of batch ``index`` in ``[prod(batch) * rows, cols]``;
    a batch dim of size 1 is broadcast (always its element 0)."""
    offset = 0
    for i, size in zip(index, batch):
        offset = offset * size + (0 if size == 1 else i)
    return offset * rows if isinstance(offset, int) else Scalar.make("mul", offset, rows)


def batched_matmul(tracer, a: Tile, b: Tile, out_dtype, a_trans: bool, b_trans: bool,
                   cube_tile) -> Tile:
    """``pypto.matmul`` of rank-3/4 tiles (module docstring); ``a`` and
    ``b`` are checked for rank, K and dtype by the caller."""
    from . import ops
    from .op_support import _record
    from .shape_ops import _store
    batch = _batch_shape(a, b)
    m = a.shape[-1] if a_trans else a.shape[-2]
    n = b.shape[-2] if b_trans else b.shape[-1]
    fa, va = _flat(tracer, a, "mm_lhs")
    fb, vb = _flat(tracer, b, "mm_rhs")
    out_shape = tuple(batch) + (m, n)
    out = tracer.workspace(out_shape, out_dtype, "mm_out")
    flat_out_shape = (_product(batch) * m, n)
    op = Op("pto.reshape", {"source": out.value, "shape": list(flat_out_shape),
                            "inplace": True},
            [tensor_type(flat_out_shape, out_dtype)], "mm_out_flat", tracer.location())
    tracer.insert_op(op)
    flat_out = TensorHandle(tracer, op.result, flat_out_shape, out_dtype, "mm_out_flat")

    # The valid batch extent per dim: the operand's that is not broadcast
    # (both's smaller one when neither is).
    valid_batch = []
    for d, size in enumerate(batch):
        sides = [v[d] for t, v in ((a, va), (b, vb)) if t.shape[d] != 1]
        extent = sides[0] if sides else 1
        for other in sides[1:]:
            extent = Scalar.make("min", extent, other)
        valid_batch.append(extent)

    index = []
    loops = []
    tracer.loop_count += 1
    tag = tracer.loop_count
    completed = False
    try:
        for d, extent in enumerate(valid_batch):
            loop = ops.loop(0, extent, 1, name=f"matmul_batch_{tag}_{d}",
                            idx_name=f"mm_b{tag}_{d}")
            index.append(next(loop))
            loops.append(loop)
        # 2-D pieces under no vector tile: the kernel's is set for its own
        # (3-/4-D) tiles.
        tracer.frame.vec_tile = None
        rows_a, cols_a = a.shape[-2:]
        rows_b, cols_b = b.shape[-2:]
        lhs = tracer.record_view(fa, (rows_a, cols_a),
                                 [_batch_row(index, a.shape[:-2], rows_a), 0],
                                 tracer.mixed([va[-2], va[-1]], "matmul(input valid)"),
                                 "mm_lhs_b")
        rhs = tracer.record_view(fb, (rows_b, cols_b),
                                 [_batch_row(index, b.shape[:-2], rows_b), 0],
                                 tracer.mixed([vb[-2], vb[-1]], "matmul(mat2 valid)"),
                                 "mm_rhs_b")
        fields = {"lhs": lhs.value, "rhs": rhs.value, "a_trans": a_trans,
                  "b_trans": b_trans, "cube_tile": cube_tile}
        product = _record(tracer, "pto.matmul", fields, (m, n), out_dtype, "matmul")
        _store(tracer, product, [_batch_row(index, tuple(batch), m), 0], flat_out)
        completed = True
    finally:
        for loop in reversed(loops):
            if completed:
                _finish(loop)
            else:
                loop.close()

    valid = list(valid_batch)
    valid.append(va[-1] if a_trans else va[-2])
    valid.append(vb[-2] if b_trans else vb[-1])
    return tracer.record_view(out, out_shape, [0] * len(out_shape),
                              tracer.mixed(valid, "matmul(valid)"), "matmul")


def _product(batch) -> int:
    total = 1
    for s in batch:
        total *= s
    return total


def _finish(loop) -> None:
    """Ends a traced loop body normally (as a ``for`` statement would)."""
    try:
        next(loop)
    except StopIteration:
        return
    raise _error("internal: a pypto.loop body yielded twice")

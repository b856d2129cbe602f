"""PyPTO's indexed writes into GM, ``pypto.index_put_`` and
``pypto.index_add_`` (hicann/pypto/docs/api/operation/``pypto-indexput_.md``,
``pypto-index_add_.md``), traced to ``pto.index_put``: each row of a tile
goes to the GM row a run-time index tile names, written or accumulated."""

from __future__ import annotations

from . import dtypes as dt
from .graph import Op
from .op_support import _error, _is_int, _vec_tile_attr
from .ops import mul
from .tracer import TensorHandle, Tile, current_tracer


def _index_tile(tracer, index, what: str) -> Tile:
    tile = tracer.use_tile(index, what)
    if tile.ndim != 1:
        raise _error(f"{what} is a {list(tile.shape)} tile; PyPTO takes a 1-D index tensor "
                     f"(one row index per source row): reshape an [n, 1] index tensor to "
                     f"[n] first")
    if tile.dtype != dt.DT_INT32:
        raise _error(f"{what} is {tile.dtype!r}; pto.index_put takes DT_INT32 row indices "
                     f"(pto-isa's MSCATTER on A2/A3): cast them to DT_INT32")
    return tile


def _record_index_put(tracer, name: str, dst: TensorHandle, index: Tile, src: Tile,
                      accumulate: bool) -> None:
    if src.ndim != dst.ndim:
        raise _error(f"{name}: the source is rank {src.ndim} but '{dst.name}' is rank "
                     f"{dst.ndim}; with one index tensor PyPTO takes a source of the "
                     f"destination's rank")
    if dst.ndim != 2:
        raise _error(f"{name} into the rank-{dst.ndim} tensor '{dst.name}' is not supported "
                     f"yet: pto.index_put indexes the rows of 2-D tensors; reshape "
                     f"'{dst.name}' and the source to 2-D")
    if src.dtype != dst.dtype:
        raise _error(f"{name} writes a {src.dtype!r} tile into '{dst.name}' ({dst.dtype!r}); "
                     f"cast the tile first")
    if index.shape[0] != src.shape[0]:
        raise _error(f"{name}: {index.shape[0]} indices for a source of {src.shape[0]} rows; "
                     f"give one index per source row")
    cols = dst.static_shape[1]
    if cols is not None and src.shape[1] != cols:
        raise _error(f"{name}: source rows have {src.shape[1]} columns but '{dst.name}' rows "
                     f"have {cols}; PyPTO writes whole rows")
    fields = {"src": src.value, "dst": dst.value, "indices": index.value,
              "offsets": [0, 0], "accumulate": accumulate, "attrs": _vec_tile_attr(tracer)}
    tracer.insert_op(Op("pto.index_put", fields, (), "", tracer.location()))


def index_put_(input, indices, values, accumulate: bool = False) -> None:
    """``pypto.index_put_(dst, (rows,), src, accumulate)``: ``dst[rows[i]] =
    src[i]`` (``+=`` with ``accumulate``) for each row ``i`` of ``src``."""
    tracer = current_tracer("pypto.index_put_")
    dst = tracer.use_tensor(input, "index_put_(input)")
    from .subtensor import refuse
    refuse(dst, "index_put_")
    if not isinstance(indices, (tuple, list)):
        raise _error(f"index_put_(indices) must be a tuple of index tensors, got "
                     f"{type(indices).__name__}; write (rows,)")
    if len(indices) != 1:
        raise _error(f"index_put_ with {len(indices)} index tensors (element-wise indexing) "
                     f"is not supported yet: pto.index_put indexes rows with one tensor")
    if not isinstance(accumulate, bool):
        raise _error(f"index_put_(accumulate={accumulate!r}) takes a bool")
    index = _index_tile(tracer, indices[0], "index_put_(indices[0])")
    src = tracer.use_tile(values, "index_put_(values)")
    _record_index_put(tracer, "index_put_", dst, index, src, accumulate)


def index_add_(input, dim, index, source, *, alpha=1) -> TensorHandle:
    """``pypto.index_add_(dst, 0, rows, src, alpha=a)``: ``dst[rows[i]] +=
    a * src[i]`` for each row ``i`` of ``src``; returns ``dst``."""
    tracer = current_tracer("pypto.index_add_")
    dst = tracer.use_tensor(input, "index_add_(input)")
    from .subtensor import refuse
    refuse(dst, "index_add_")
    if not _is_int(dim) or not -dst.ndim <= dim < dst.ndim:
        raise _error(f"index_add_(dim={dim!r}) must be an int in [{-dst.ndim}, {dst.ndim}) "
                     f"for the rank-{dst.ndim} tensor '{dst.name}'")
    if dim % dst.ndim != 0:
        raise _error(f"index_add_(dim={dim}) is not supported yet: pto.index_put indexes "
                     f"rows (dim 0); transpose the data so that the indexed dim comes first")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        raise _error(f"index_add_(alpha={alpha!r}) must be a Python number")
    idx = _index_tile(tracer, index, "index_add_(index)")
    src = tracer.use_tile(source, "index_add_(source)")
    if alpha != 1:
        src = mul(src, alpha)
    _record_index_put(tracer, "index_add_", dst, idx, src, True)
    return input

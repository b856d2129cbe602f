"""PyPTO's ``logical_not``, ``scatter_`` and ``gather`` on tiles, recorded as
exact compositions of compare / where / sum (the way ``composed.py`` builds
``amin`` and ``clip``).

``logical_not(x)``
(https://github.com/hicann/pypto/blob/master/docs/api/operation/pypto-logical_not.md)
is ``x == 0`` (a DT_BOOL tile); of a DT_BOOL mask, ``where(x, 1, 0) == 0``.

``scatter_(x, -1, index, value)`` with a scalar ``value``
(https://github.com/hicann/pypto/blob/master/docs/api/operation/pypto-scatter_.md),
2-D, last dim: ``x[i][index[i][k]] = value``. Each index column ``k`` is
compared with the column numbers (``arange`` of the row width, cast to
DT_FP32: exact below 2^24) and the matching elements replaced.

``gather(x, -1, index)``
(https://github.com/hicann/pypto/blob/master/docs/api/operation/pypto-gather.md),
2-D, last dim: ``out[i][k] = x[i][index[i][k]]``. Column ``k`` is the row
sum of ``where(columns == index[:, k], x, 0)``: one element plus zeros,
exact (a -0.0 element comes out +0.0; a NaN or inf elsewhere in the row is
masked out). Both cost one compare per index column on the whole tile: fine
for the few columns of a top-k; an index outside the row matches nothing
(``scatter_`` writes nothing, ``gather`` gives 0) where PyPTO leaves it
undefined.
"""

from __future__ import annotations

from . import dtypes as dt
from .masks import eq, where
from .op_support import _error, _is_int
from .ops import add, cast, full, sum, view
from .sequence import arange
from .shape_ops import concat
from .tracer import TensorHandle, Tile, current_tracer

_FLOATS = (dt.DT_FP32, dt.DT_FP16, dt.DT_BF16)


def logical_not(input) -> Tile:
    tracer = current_tracer("pypto.logical_not")
    x = tracer.use_tile(input, "logical_not(input)")
    if x.dtype == dt.DT_BOOL:
        x = where(x, 1.0, 0.0)
    elif x.dtype not in _FLOATS + (dt.DT_INT32,):
        raise _error(f"logical_not(input) is {x.dtype!r}; supported here: DT_FP32, DT_FP16, "
                     f"DT_BF16, DT_INT32, DT_BOOL (cast first)")
    return eq(x, 0.0 if x.dtype in _FLOATS else 0)


def _last_dim_setup(name: str, input, dim, index):
    tracer = current_tracer(f"pypto.{name}")
    x = tracer.use_tile(input, f"{name}(input)")
    idx = tracer.use_tile(index, f"{name}(index)")
    if x.ndim != 2 or idx.ndim != 2:
        raise _error(f"{name} of a rank-{x.ndim} input with a rank-{idx.ndim} index is not "
                     f"supported yet: 2-D tiles along the last dim (reshape first)")
    if not _is_int(dim) or dim % 2 != 1:
        raise _error(f"{name}(dim={dim!r}) is not supported yet: the last dim (-1) of 2-D "
                     f"tiles; transpose the data so that the indexed dim is last")
    if x.dtype not in _FLOATS:
        raise _error(f"{name}(input) is {x.dtype!r}; supported here: DT_FP32, DT_FP16, "
                     f"DT_BF16")
    if idx.dtype != dt.DT_INT32:
        raise _error(f"{name}(index) is {idx.dtype!r}; cast the index to DT_INT32")
    if idx.shape[0] != x.shape[0]:
        raise _error(f"{name}: index has {idx.shape[0]} rows but input has {x.shape[0]}; "
                     f"PyPTO does not broadcast them")
    rows, cols = x.shape
    # Column numbers of every element, as DT_FP32 (exact below 2^24).
    columns = add(full([rows, cols], 0.0, dt.DT_FP32),
                  cast(_column_numbers(tracer, cols), dt.DT_FP32))
    index_f = cast(idx, dt.DT_FP32)
    return x, idx, columns, index_f


def _column_numbers(tracer, n: int) -> Tile:
    """``[[0, 1, ..., n - 1]]`` as DT_INT32, under its own 1-D vector tile."""
    from .ops import reshape
    frame = tracer.frame
    ambient = frame.vec_tile
    frame.vec_tile = [n]
    try:
        seq = arange(n)
        frame.vec_tile = [1, n]
        return reshape(seq, [1, n])
    finally:
        frame.vec_tile = ambient


def scatter_(input, dim, index, src, *, reduce=None) -> Tile:
    tracer = current_tracer("pypto.scatter_")
    if reduce is not None:
        raise _error(f"scatter_(reduce={reduce!r}) is not supported yet (replacement only)")
    if isinstance(src, bool) or not isinstance(src, (int, float)):
        raise _error("scatter_ with a tensor src is not supported yet: a scalar value "
                     "(PyPTO's Element / float form)")
    x, idx, columns, index_f = _last_dim_setup("scatter_", input, dim, index)
    result = x
    for k in range(idx.shape[1]):
        hit = eq(columns, view(index_f, [idx.shape[0], 1], [0, k]))
        result = where(hit, float(src), result)
    return result


def gather(input, dim, index) -> Tile:
    x, idx, columns, index_f = _last_dim_setup("gather", input, dim, index)
    parts = []
    for k in range(idx.shape[1]):
        hit = eq(columns, view(index_f, [idx.shape[0], 1], [0, k]))
        parts.append(sum(where(hit, x, 0.0), -1, keepdim=True))
    return parts[0] if len(parts) == 1 else concat(parts, -1)

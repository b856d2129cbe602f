"""PyPTO's ``pypto.arange`` and ``pypto.scatter_update``.

``arange(start=0, end, step=1)``
(https://github.com/hicann/pypto/blob/master/docs/api/operation/pypto-arange.md)
is a 1-D tile of ``ceil((end - start) / step)`` elements ``start + i *
step``, DT_INT32 when every bound is an int and DT_FP32 otherwise; traced to
``pto.arange``, cut by a 1-D vector tile.

``scatter_update(input, -2, index, src)``
(https://github.com/hicann/pypto/blob/master/docs/api/operation/pypto-scatter_update.md),
the 2-D form: row ``index[i][j]`` of ``input`` becomes row ``i * s + j`` of
``src`` (``index`` is ``[b, s]``, ``src`` ``[b * s, d]``), in place; the
updated ``input`` is returned. On a GM tensor it is ``pto.index_put``
(written, not accumulated) with the index tile read row-major as ``[b *
s]``. On a tile (a ``pypto.view`` of GM is a tile here) the tile is stored
into a GM workspace, the rows scattered into it, and the workspace read
back: the same ops, so every later column runs it.
"""

from __future__ import annotations

import math

from . import dtypes as dt
from .literals import _f64_literal
from .op_support import _error, _is_int, _record, _vec_tile_attr
from .ops import assemble, reshape, view
from .scatter import _record_index_put
from .subtensor import refuse
from .tracer import TensorHandle, Tile, current_tracer


def arange(*args, **kwargs) -> Tile:
    """``pypto.arange(end)``, ``arange(start, end)``, ``arange(start, end, step)``."""
    tracer = current_tracer("pypto.arange")
    names = ("start", "end", "step")
    if len(args) > 3 or any(k not in names for k in kwargs):
        raise _error(f"arange takes (start, end, step); got {len(args)} positional and "
                     f"{sorted(kwargs)} keyword arguments")
    given = dict(zip(("end",) if len(args) == 1 else names, args))
    for k, v in kwargs.items():
        if k in given:
            raise _error(f"arange got '{k}' twice")
        given[k] = v
    if "end" not in given:
        raise _error("arange needs end (PyPTO: it cannot be left out)")
    start, end, step = given.get("start", 0), given["end"], given.get("step", 1)
    for name, v in (("start", start), ("end", end), ("step", step)):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise _error(f"arange({name}={v!r}) must be a Python number; a run-time "
                         f"(symbolic) bound is not supported yet")
    if abs(step) <= 1e-8:
        raise _error(f"arange(step={step!r}): PyPTO requires |step| > 1e-8")
    if (end - start) / step <= 0:
        raise _error(f"arange({start}, {end}, {step}) is empty: PyPTO requires "
                     f"(end - start) / step > 0")
    integral = all(_is_int(v) for v in (start, end, step))
    if integral and not all(-2**31 <= v < 2**31 for v in (start, end, step)):
        raise _error(f"arange({start}, {end}, {step}): int bounds must be within int32 "
                     f"(PyPTO's rule)")
    n = math.ceil((end - start) / step)
    dtype = dt.DT_INT32 if integral else dt.DT_FP32
    vec = tracer.frame.vec_tile
    if vec and len(vec) != 1:
        raise _error(f"arange under the vector tile {list(vec)}: its tile is 1-D like the "
                     f"result; call pypto.set_vec_tile_shapes(t) first")
    fields = {"start": _f64_literal(float(start)), "step": _f64_literal(float(step)),
              "attrs": _vec_tile_attr(tracer)}
    return _record(tracer, "pto.arange", fields, [n], dtype, "arange")


def scatter_update(input, dim, index, src):
    """``pypto.scatter_update(input, -2, index, src)`` (module docstring)."""
    tracer = current_tracer("pypto.scatter_update")
    if not isinstance(input, (Tile, TensorHandle)):
        raise _error(f"scatter_update(input) must be a tensor or a tile, got {input!r}")
    rank = input.ndim
    if rank == 4:
        return _scatter_update_4d(tracer, input, dim, index, src)
    if rank != 2:
        raise _error(f"scatter_update(input) is rank {rank}; PyPTO takes 2-D "
                     f"[blockNum * blockSize, d] (or 4-D) inputs")
    if not _is_int(dim) or dim not in (-2, 0):
        raise _error(f"scatter_update(dim={dim!r}): PyPTO's dim is -2 (keep the default)")
    idx = tracer.use_tile(index, "scatter_update(index)")
    values = tracer.use_tile(src, "scatter_update(src)")
    if idx.ndim != 2:
        raise _error(f"scatter_update(index) is a {list(idx.shape)} tile; PyPTO takes a "
                     f"2-D [b, s] index")
    if idx.dtype != dt.DT_INT32:
        raise _error(f"scatter_update(index) is {idx.dtype!r}; pto.index_put takes "
                     f"DT_INT32 row indices: cast the index to DT_INT32")
    if values.ndim != 2 or values.shape[0] != idx.shape[0] * idx.shape[1]:
        raise _error(f"scatter_update(src) is {list(values.shape)} for a "
                     f"{list(idx.shape)} index; PyPTO takes src [b * s, d] = "
                     f"[{idx.shape[0] * idx.shape[1]}, d]")
    if values.dtype != input.dtype:
        raise _error(f"scatter_update(src) is {values.dtype!r} but input is "
                     f"{input.dtype!r}; cast src first")
    flat = reshape(idx, [idx.shape[0] * idx.shape[1]])
    if isinstance(input, TensorHandle):
        dst = tracer.use_tensor(input, "scatter_update(input)")
        refuse(dst, "scatter_update")
        _record_index_put(tracer, "scatter_update", dst, flat, values, False)
        return input
    tile = tracer.use_tile(input, "scatter_update(input)")
    workspace = tracer.workspace(tuple(tile.shape), tile.dtype, "scattered")
    assemble(tile, [0, 0], workspace)
    _record_index_put(tracer, "scatter_update", workspace, flat, values, False)
    return view(workspace, list(tile.shape), [0, 0], valid_shape=tile.valid_shape)


def _scatter_update_4d(tracer, input, dim, index, src):
    """The 4-D form: ``input`` ``[blockNum, blockSize, 1, d]`` (a paged
    cache), ``src`` ``[b, s, 1, d]``: row ``index[i][j]`` of the
    ``blockNum * blockSize`` rows gets ``src[i, j, 0]``, which is the 2-D
    form on both reshaped to rows of ``d`` (PyPTO's example in
    pypto-scatter_update.md); the updated 4-D ``input`` is returned."""
    shape = list(input.shape)
    if not _is_int(dim) or dim not in (-2, 2):
        raise _error(f"scatter_update(dim={dim!r}): PyPTO's dim is -2 (keep the default)")
    if not _is_int(shape[2]) or shape[2] != 1 or not _is_int(shape[3]):
        raise _error(f"scatter_update(input) is {_dims(shape)}; the 4-D form is "
                     f"[blockNum, blockSize, 1, d] (a static d, dim 2 of size 1): reshape a "
                     f"cache with several heads to [blockNum, blockSize * n, 1, d] or use "
                     f"the 2-D form")
    values = tracer.use_tile(src, "scatter_update(src)")
    if values.ndim != 4 or values.shape[2] != 1 or values.shape[3] != shape[3]:
        raise _error(f"scatter_update(src) is {list(values.shape)} for the 4-D input "
                     f"{_dims(shape)}; PyPTO takes src [b, s, 1, {shape[3]}]")
    idx = tracer.use_tile(index, "scatter_update(index)")
    if idx.ndim != 2 or tuple(idx.shape) != tuple(values.shape[:2]):
        raise _error(f"scatter_update(index) is {list(idx.shape)} for src "
                     f"{list(values.shape)}; PyPTO takes a 2-D [b, s] index "
                     f"= {list(values.shape[:2])}")
    rows = [shape[0] * shape[1], shape[3]]
    flat_src = reshape(values, [values.shape[0] * values.shape[1], shape[3]])
    flat_input = reshape(input, rows, inplace=True) if isinstance(input, TensorHandle) \
        else reshape(input, rows)
    # A 4-D vector tile (PyPTO's applies to src) cuts the rows of d as the
    # 2-D one of its leading dims' product.
    frame = tracer.frame
    vec = frame.vec_tile
    if vec and len(vec) == 4:
        frame.vec_tile = (vec[0] * vec[1] * vec[2], vec[3])
    try:
        flat = scatter_update(flat_input, -2, idx, flat_src)
    finally:
        frame.vec_tile = vec
    return input if isinstance(input, TensorHandle) else reshape(flat, shape)


def _dims(shape) -> str:
    return "[" + ", ".join(str(d) if _is_int(d) else "?" for d in shape) + "]"

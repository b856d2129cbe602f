"""Tensors, views and data movement: ``pypto.reshape``, ``tensor``,
``view``, ``assemble``, ``atomic_add``, ``transpose``, ``gathermask``,
``deinterleave``."""

from __future__ import annotations

from . import dtypes as dt
from .graph import Op
from .op_support import _error, _is_int, _record, _static_list, _vec_tile_attr
from .symbolic import Scalar
from .trace_context import _state as _tracer_state
from .tracer import TensorHandle, Tile, current_tracer, tensor_type


def reshape(input, shape, *, valid_shape=None, inplace: bool = False) -> TensorHandle:
    """``pypto.reshape(x, [total, N * D], inplace=True)`` of a GM tensor."""
    tracer = current_tracer("pypto.reshape")
    if isinstance(input, Tile):
        return _reshape_tile(tracer, input, shape, valid_shape)
    tensor = tracer.use_tensor(input, "reshape(input)")
    from .subtensor import SubTensor, refuse
    if isinstance(tensor, SubTensor) and not inplace:
        # PyPTO's copying reshape of the view: of its value here and now.
        return _reshape_tile(tracer, tracer.whole_view(tensor, "reshape(input)"), shape,
                             valid_shape)
    refuse(tensor, "reshape(..., inplace=True)")
    try:
        dims = list(shape)
    except TypeError:
        raise _error(f"reshape(shape) must be a list, got {type(shape).__name__}")
    for i, d in enumerate(dims):
        if isinstance(d, bool) or not isinstance(d, (int, Scalar)):
            raise _error(f"reshape(shape)[{i}] must be an int or a symbolic scalar, got {d!r}")
    dynamic = [i for i, d in enumerate(dims) if isinstance(d, Scalar)]
    if -1 in [d for d in dims if _is_int(d)]:
        if dynamic or None in tensor.static_shape:
            raise _error("reshape(shape) with -1 needs every dim static; with dynamic dims "
                         "give every dim (x.shape[i] works)")
        known = 1
        for d in dims:
            if d != -1:
                known *= d
        total = 1
        for d in tensor.static_shape:
            total *= d
        dims = [total // known if d == -1 else d for d in dims]
    if dynamic and not inplace:
        raise _error("reshape with dynamic dims needs inplace=True (PyPTO: inplace=False "
                     "supports static shapes only)")
    if not dynamic and None not in tensor.static_shape:
        old = 1
        for d in tensor.static_shape:
            old *= d
        new = 1
        for d in dims:
            new *= d
        if old != new:
            raise _error(f"reshape of '{tensor.name}' {list(tensor.static_shape)} into {dims} "
                         f"changes the element count ({old} -> {new})")
    static = tuple(None if isinstance(d, Scalar) else d for d in dims)
    fields = {"source": tensor.value, "shape": tracer.mixed(dims, "reshape(shape)"),
              "inplace": inplace}
    op = Op("pto.reshape", fields, [tensor_type(static, tensor.dtype)], f"{tensor.name}_2d",
            tracer.location())
    tracer.insert_op(op)
    result = TensorHandle(tracer, op.result, static, tensor.dtype, f"{tensor.name}_r",
                          dims=tuple(dims))
    if valid_shape is not None:
        # PyPTO: the valid shape of the result; every view of it (a slice,
        # pypto.view, its use as a tile) is clipped to it.
        from .shape_ops import _valid_list
        result.valid_shape = _valid_list(tracer, valid_shape, len(dims), "reshape(valid_shape)")
    return result


def _reshape_tile(tracer, tile: Tile, shape, valid_shape) -> Tile:
    """A reshape of a computed tile: through GM like PyPTO's copying
    reshape (write the tile to a workspace, reshape the workspace in place,
    view the whole of it). The tile must be fully valid; a read of an
    unwritten workspace element is a fault in pto-run."""
    tile = tracer.use_tile(tile, "reshape(input)")
    dims = list(_static_list(shape, "reshape(shape) of a tile", positive=False))
    if dims.count(-1) > 1:
        raise _error(f"reshape(shape={dims}) has more than one -1")
    total = 1
    for d in tile.shape:
        total *= d
    known = 1
    for d in dims:
        if d != -1:
            if d <= 0:
                raise _error(f"reshape(shape={dims}): dims must be positive (or one -1)")
            known *= d
    if -1 in dims:
        if total % known:
            raise _error(f"reshape of a {list(tile.shape)} tile into {dims}: {total} elements "
                         f"do not divide by {known}")
        dims = [total // known if d == -1 else d for d in dims]
    new_total = 1
    for d in dims:
        new_total *= d
    if new_total != total:
        raise _error(f"reshape of a {list(tile.shape)} tile into {dims} changes the element "
                     f"count ({total} -> {new_total})")
    from .valid_flow import known_whole
    if valid_shape is None and [d for d in dims if d != 1] == [d for d in tile.shape if d != 1] \
            and not known_whole(tile.value):
        # Unit dims added or dropped keep the elements' order, so a valid
        # region stays a box: [1, s, d] valid [1, n, d] is [s, d] valid [n, d]
        # (compressor's scatter_update_3d); the whole view would read the
        # unwritten rest of the workspace.
        from .shape_ops import valid_extents
        extents = iter([e for e, d in zip(valid_extents(tracer, tile), tile.shape) if d != 1])
        valid_shape = [1 if d == 1 else next(extents) for d in dims]
    if valid_shape is not None:
        from .shape_ops import reshape_tile_valid
        return reshape_tile_valid(tracer, tile, dims, valid_shape)
    ws = tracer.workspace(tuple(tile.shape), tile.dtype, "reshape_ws")
    _store_tile(tracer, "assemble", tile, [0] * tile.ndim, ws)
    fields = {"source": ws.value, "shape": tracer.mixed(dims, "reshape(shape)"),
              "inplace": True}
    op = Op("pto.reshape", fields, [tensor_type(tuple(dims), tile.dtype)], "reshaped",
            tracer.location())
    tracer.insert_op(op)
    reshaped = TensorHandle(tracer, op.result, tuple(dims), tile.dtype, "reshaped")
    return tracer.whole_view(reshaped, "reshape(input)")


def tensor(shape=None, dtype=None, name: str = ""):
    """``pypto.tensor(shape, dtype, name)``: a local tensor in GM workspace
    (``pto.workspace``), written with ``t[:] = tile`` / assemble and read
    with views; one per iteration of the enclosing loops.

    Outside a trace (a parameter annotation such as ``x: pypto.tensor()``)
    it is the annotation ``pypto.Tensor(shape, dtype)``: PyPTO's
    ``pypto.tensor`` is its ``Tensor`` class (hicann/pypto
    ``python/pypto/tensor.py``), so an annotation without a shape or dtype
    takes them from the argument."""
    if getattr(_tracer_state, "tracer", None) is None:
        return dt.Tensor(shape, dtype)
    tracer = current_tracer("pypto.tensor")
    if shape is None or dtype is None:
        raise _error("pypto.tensor(shape, dtype, name) inside a kernel makes a workspace and "
                     "needs its shape and dtype, e.g. pypto.tensor([16, 64], pypto.DT_FP32, "
                     "\"ws\"); without them it is only a parameter annotation")
    dims = _static_list(shape, "tensor(shape)")
    if not isinstance(dtype, dt.DataType):
        raise _error(f"tensor(dtype) must be a pypto dtype such as DT_FP32, got {dtype!r}")
    if not isinstance(name, str):
        raise _error(f"tensor(name={name!r}) must be a string")
    hint = name if name and name[0].isalpha() else "ws"
    return tracer.workspace(tuple(dims), dtype, hint)


def view(input, shape=None, offsets=None, *, valid_shape=None, dtype=None) -> Tile:
    """``pypto.view(x, [T, D], [off0, off1], valid_shape=[a, D])``: a static
    window at (possibly symbolic) offsets with a (possibly symbolic) valid
    shape. ``pypto.view(x, dtype=DT_INT8)``: the whole of ``x`` read as
    another dtype (``pto.bitcast``)."""
    tracer = current_tracer("pypto.view")
    if dtype is not None:
        return _view_dtype(tracer, input, shape, offsets, valid_shape, dtype)
    if shape is None or offsets is None:
        raise _error("view(input, shape, offsets) needs the window's shape and offsets (only "
                     "view(input, dtype=...) reinterprets the whole input without them)")
    if isinstance(input, Tile):
        source = tracer.use_tile(input, "view(input)")
        rank = source.ndim
    else:
        source = tracer.use_tensor(input, "view(input)")
        rank = source.ndim
    shape = _static_list(shape, "view(shape)")
    if len(shape) != rank:
        raise _error(f"view(shape) has {len(shape)} dims but the input has rank {rank}; give "
                     f"one static size per dim")
    offsets = list(offsets) if isinstance(offsets, (list, tuple)) else [offsets]
    if len(offsets) != rank:
        raise _error(f"view(offsets) has {len(offsets)} entries but the input has rank "
                     f"{rank}; give one offset per dim, e.g. [s1_off, h_ofs]")
    valid = None
    if valid_shape is not None:
        valid = list(valid_shape) if isinstance(valid_shape, (list, tuple)) else [valid_shape]
        if len(valid) != rank:
            example = ", ".join(["a_s1"] + [str(d) for d in shape[1:]])
            raise _error(f"view(valid_shape=...) has {len(valid)} entries but the view has "
                         f"rank {rank}; give one valid extent per dim, e.g. "
                         f"valid_shape=[{example}]")
    if isinstance(source, TensorHandle) and source.valid_shape is not None:
        valid = tracer.tensor_view_valid(source, shape, offsets, valid)
    elif valid is not None:
        valid = tracer.mixed(valid, "view(valid_shape)")
    if isinstance(source, TensorHandle):
        offsets = source.at(offsets)
    fields = {"source": source.value, "offsets": tracer.mixed(offsets, "view(offsets)"),
              "valid": valid}
    return _record(tracer, "pto.view", fields, shape, source.dtype, "view")


def _view_dtype(tracer, input, shape, offsets, valid_shape, dtype) -> Tile:
    """PyPTO's ``view(x, dtype=dt)`` (https://github.com/hicann/pypto/blob/master/docs/api/operation/pypto-view.md):
    the bytes of all of ``x`` read as ``dt``; the last dim (and its valid
    extent) scaled by ``itemsize(x) / itemsize(dt)``. PyPTO's
    ``python/pypto/operation.py`` then ignores ``shape``, ``offsets`` and
    ``valid_shape``; here they are accepted only where they name the whole
    input, so a window meant to be reinterpreted is not silently dropped."""
    if not isinstance(dtype, dt.DataType):
        raise _error(f"view(dtype={dtype!r}) must be a pypto dtype such as DT_INT8")
    a = tracer.use_tile(input, "view(input)")
    if offsets is not None and not isinstance(offsets, (list, tuple)):
        offsets = [offsets]
    if shape is not None and list(_static_list(shape, "view(shape)")) != list(a.shape) or \
            offsets is not None and any(not (isinstance(o, int) and o == 0) for o in offsets) or \
            valid_shape is not None:
        raise _error("view(..., dtype=...) reinterprets the whole input: PyPTO ignores shape, "
                     "offsets and valid_shape when dtype is given, so a window here would be "
                     "lost; take the window first (v = pypto.view(x, shape, offsets, "
                     "valid_shape=...)), then pypto.view(v, dtype=...)")
    if dtype == a.dtype:
        return a
    if dt.DT_BOOL in (a.dtype, dtype):
        raise _error(f"view({a.dtype!r} -> {dtype!r}, dtype=...): a DT_BOOL mask is packed bits "
                     f"on chip, not bytes; use pypto.cast or pypto.where instead")
    last = a.shape[-1] if a.shape else 1
    if (last * a.dtype.itemsize) % dtype.itemsize != 0:
        raise _error(f"view(dtype={dtype!r}): the last dim {last} x {a.dtype.itemsize} B "
                     f"({a.dtype!r}) is not a whole number of {dtype.itemsize}-byte "
                     f"{dtype!r} elements; PyPTO requires last dim x factor to be an integer "
                     f"(factor = {a.dtype.itemsize} / {dtype.itemsize})")
    shape = tuple(a.shape[:-1]) + (last * a.dtype.itemsize // dtype.itemsize,)
    fields = {"input": a.value, "attrs": _vec_tile_attr(tracer)}
    return _record(tracer, "pto.bitcast", fields, shape, dtype, "viewed")


def _store(kind: str, src, offsets, dst) -> None:
    tracer = current_tracer(f"pypto.{kind}")
    _store_tile(tracer, kind, src, offsets, dst)


def _store_tile(tracer, kind: str, src, offsets, dst) -> None:
    src = tracer.use_tile(src, f"{kind}(src)")
    dst = tracer.use_tensor(dst, f"{kind}(dst)")
    offsets = list(offsets) if isinstance(offsets, (list, tuple)) else [offsets]
    if len(offsets) != dst.ndim:
        raise _error(f"{kind}(offsets) has {len(offsets)} entries for the rank-{dst.ndim} "
                     f"tensor '{dst.name}'; give one offset per dim")
    if src.dtype != dst.dtype:
        raise _error(f"{kind} writes a {src.dtype!r} tile into '{dst.name}' ({dst.dtype!r}); "
                     f"cast the tile first")
    from .subtensor import SubTensor
    if isinstance(dst, SubTensor):
        dst.check_store(src.shape, offsets, kind)
    fields = {"src": src.value, "dst": dst.value,
              "offsets": tracer.mixed(dst.at(offsets), f"{kind}(offsets)"),
              "attrs": _vec_tile_attr(tracer)}
    tracer.insert_op(Op(f"pto.{kind}", fields, (), "", tracer.location()))


def atomic_add(src, offsets, dst) -> None:
    """``pypto.atomic_add(tile, [off0, off1], dst)``: adds the tile's valid
    region into GM."""
    _store("atomic_add", src, offsets, dst)


def assemble(src, offsets, dst) -> None:
    """``pypto.assemble(tile, [off0, off1], dst)``: writes the tile's valid
    region into GM."""
    _store("assemble", src, offsets, dst)


def transpose(input, dim0, dim1) -> Tile:
    """``pypto.transpose(x, d0, d1)``: ``pto.transpose`` (data and valid
    extents of the two dims exchanged); negative dims count from the end."""
    tracer = current_tracer("pypto.transpose")
    a = tracer.use_tile(input, "transpose(input)")
    dims = []
    for label, d in (("dim0", dim0), ("dim1", dim1)):
        if not _is_int(d):
            raise _error(f"transpose({label}) must be an int, got {d!r}")
        if not -a.ndim <= d < a.ndim:
            raise _error(f"transpose({label}={d}) is out of range for a rank-{a.ndim} tile")
        dims.append(d % a.ndim)
    shape = list(a.shape)
    shape[dims[0]], shape[dims[1]] = shape[dims[1]], shape[dims[0]]
    fields = {"input": a.value, "dim0": dims[0], "dim1": dims[1],
              "attrs": _vec_tile_attr(tracer)}
    return _record(tracer, "pto.transpose", fields, tuple(shape), a.dtype, "transpose")


_GATHERMASK_STRIDE = {1: 2, 2: 2, 3: 4, 4: 4, 5: 4, 6: 4, 7: 1}


def gathermask(input, pattern_mode) -> Tile:
    """``pypto.gathermask(x, pattern_mode)``: ``pto.gathermask``, the last-dim
    elements a fixed pattern keeps (1: ``0::2``, 2: ``1::2``, 3..6: ``0::4``
    .. ``3::4``, 7: all); the last dim shrinks by the stride."""
    tracer = current_tracer("pypto.gathermask")
    a = tracer.use_tile(input, "gathermask(input)")
    if not _is_int(pattern_mode) or pattern_mode not in _GATHERMASK_STRIDE:
        raise _error(f"gathermask(pattern_mode={pattern_mode!r}) must be an int in 1..7 (1: "
                     f"elements 0::2, 2: 1::2, 3..6: 0::4 .. 3::4, 7: all)")
    stride = _GATHERMASK_STRIDE[pattern_mode]
    if a.shape[-1] % stride:
        raise _error(f"gathermask(pattern_mode={pattern_mode}) keeps one of every {stride} "
                     f"elements of the last dim, but the input's last dim is {a.shape[-1]}; "
                     f"it must be a multiple of {stride}")
    shape = (*a.shape[:-1], a.shape[-1] // stride)
    fields = {"input": a.value, "pattern_mode": pattern_mode, "attrs": _vec_tile_attr(tracer)}
    return _record(tracer, "pto.gathermask", fields, shape, a.dtype, "gathered")


def deinterleave(input) -> tuple:
    """``even, odd = pypto.deinterleave(x)``: the elements ``0::2`` and ``1::2``
    of the last dim, as pto-isa's one-source ``TDEINTERLEAVE(dst1, dst0,
    src)`` splits them (``include/pto/cpu/TDeinterleave.hpp``); recorded as
    the two ``pto.gathermask`` (patterns 1 and 2) that select the same
    elements."""
    current_tracer("pypto.deinterleave")
    return gathermask(input, 1), gathermask(input, 2)

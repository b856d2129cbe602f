"""PyPTO's shape operations on tiles (``unsqueeze``, ``t[:, k, :]``,
``reshape(..., valid_shape=)``, ``concat``, ``expand_clone``,
``Tile.valid_shape``), recorded as compositions of ``pto`` ops.

A tile has no layout to re-interpret, so a change of shape goes through GM,
as PyPTO's copying reshape does: the tile is assembled into a
``pto.workspace``, the workspace is reshaped in place (``pto.reshape ...
inplace``) and viewed whole. Only the valid region is written, and the final
view's valid shape says which part of the new shape holds it, so a
partially valid tile (the tail of a dynamic loop) keeps its valid extents:
those are read at run time with ``pto.valid_dim``. Reading an element the
composition did not write is a fault in ``pto-run`` (an uninitialised
workspace read), never a silent value. docs/Frontend.md lists the
compositions."""

from __future__ import annotations

from .errors import TraceError
from .graph import Op
from .symbolic import Scalar
from .tracer import TensorHandle, Tile, current_tracer, tensor_type, user_location


def _error(message: str) -> TraceError:
    return TraceError(message, user_location())


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def valid_extent(tracer, tile: Tile, d: int) -> Scalar:
    """The run-time valid extent of dim ``d`` of ``tile`` (``pto.valid_dim``,
    recorded once per tile and dim, next to the current position)."""
    cache = tracer.__dict__.setdefault("_valid_dims", {})
    key = (id(tile.value), d)
    cached = cache.get(key)
    # A cached extent recorded in a branch that has ended is out of reach.
    if cached is not None and cached[0] is tile.value and \
            tracer._visible(cached[1].args[0]):
        return cached[1]
    op = Op("pto.valid_dim", {"source": tile.value, "dim": d}, ["index"],
            f"{tile.value.hint or 'tile'}_valid{d}", tracer.location())
    tracer.insert_op(op)
    extent = Scalar("value", (op.result,), op.block, op.result.hint)
    cache[key] = (tile.value, extent)
    return extent


def valid_extents(tracer, tile: Tile, skip=()) -> list:
    """``valid_extent`` of every dim (None for the dims in ``skip``)."""
    return [None if d in skip else valid_extent(tracer, tile, d) for d in range(tile.ndim)]


def _store(tracer, tile: Tile, offsets, dst) -> None:
    """Assembles ``tile`` into a composition's workspace under the ambient
    vector tile, or under none when that has fewer dims than the tile (a
    kernel that set a 2-D vector tile and indexes a 3-D tile)."""
    from .view_ops import _store_tile
    frame = tracer.frame
    ambient = frame.vec_tile
    if ambient is not None and len(ambient) < tile.ndim:
        frame.vec_tile = None
    try:
        _store_tile(tracer, "assemble", tile, offsets, dst)
    finally:
        frame.vec_tile = ambient


def regroup(tracer, tile: Tile, shape, valid, hint: str) -> Tile:
    """``tile``'s elements (row-major) as a tile of ``shape`` with the given
    valid extents: workspace, assemble, in-place reshape, whole view."""
    ws = tracer.workspace(tuple(tile.shape), tile.dtype, f"{hint}_ws")
    _store(tracer, tile, [0] * tile.ndim, ws)
    fields = {"source": ws.value, "shape": tracer.mixed(list(shape), "reshape(shape)"),
              "inplace": True}
    op = Op("pto.reshape", fields, [tensor_type(tuple(shape), tile.dtype)], f"{hint}_r",
            tracer.location())
    tracer.insert_op(op)
    reshaped = TensorHandle(tracer, op.result, tuple(shape), tile.dtype, f"{hint}_r")
    valid = None if valid is None else tracer.mixed(list(valid), f"{hint}(valid_shape)")
    return tracer.record_view(reshaped, tuple(shape), [0] * len(shape), valid, hint)


def _norm_dim(dim, rank: int, what: str) -> int:
    if not _is_int(dim) or not -rank <= dim < rank:
        raise _error(f"{what}={dim!r} must be an int in [{-rank}, {rank - 1}]")
    return dim % rank


# ----------------------------------------------------------------------------
# unsqueeze and dropping indexed dims
# ----------------------------------------------------------------------------

def unsqueeze(input, dim) -> Tile | TensorHandle:
    """``pypto.unsqueeze(x, dim)``: a size-1 dim inserted at ``dim``
    (``-rank - 1 <= dim <= rank``, as in torch). A GM tensor is reshaped in
    place (``pto.reshape ... inplace``, dynamic dims kept); a tile is
    regrouped through GM with its valid extents (1 in the new dim)."""
    tracer = current_tracer("pypto.unsqueeze")
    if isinstance(input, TensorHandle):
        tensor = tracer.use_tensor(input, "unsqueeze(input)")
        d = _norm_dim(dim, tensor.ndim + 1, "unsqueeze(dim)")
        from . import ops
        dims = list(tensor.shape)
        dims.insert(d, 1)
        return ops.reshape(tensor, dims, inplace=True)
    tile = tracer.use_tile(input, "unsqueeze(input)")
    d = _norm_dim(dim, tile.ndim + 1, "unsqueeze(dim)")
    if tile.ndim + 1 > 4:
        raise _error(f"unsqueeze of a rank-{tile.ndim} tile gives rank {tile.ndim + 1}; tiles "
                     f"have at most 4 dims")
    shape = list(tile.shape)
    shape.insert(d, 1)
    valid = valid_extents(tracer, tile)
    valid.insert(d, 1)
    return regroup(tracer, tile, shape, valid, "unsqueezed")


def drop_dims(tracer, tile: Tile, dims) -> Tile:
    """``tile`` (size 1 in each of ``dims``) without those dims: what an
    integer index does after the slice it stands for (``t[:, k, :]``)."""
    if len(dims) == tile.ndim:
        raise _error("indexing every dim of a tile with an integer gives a scalar; scalar "
                     "element reads are not supported (keep one dim as a slice)")
    valid = valid_extents(tracer, tile, skip=dims)
    shape = [s for i, s in enumerate(tile.shape) if i not in dims]
    valid = [v for i, v in enumerate(valid) if i not in dims]
    return regroup(tracer, tile, shape, valid, "indexed")


# ----------------------------------------------------------------------------
# reshape with a valid shape
# ----------------------------------------------------------------------------

def _valid_list(tracer, valid_shape, rank: int, what: str) -> list:
    try:
        valid = list(valid_shape)
    except TypeError:
        raise _error(f"{what} must be a list, got {type(valid_shape).__name__}")
    if len(valid) != rank:
        raise _error(f"{what} has {len(valid)} entries for a rank-{rank} result; give one "
                     f"valid extent per dim")
    for i, v in enumerate(valid):
        if isinstance(v, bool) or not isinstance(v, (int, Scalar)):
            raise _error(f"{what}[{i}] must be an int or a symbolic scalar, got {v!r}")
        if _is_int(v) and v < 0:
            raise _error(f"{what}[{i}] = {v} is negative")
    return valid


def reshape_tile_valid(tracer, tile: Tile, shape: list, valid_shape) -> Tile:
    """``pypto.reshape(tile, shape, valid_shape=v)``: the tile regrouped to
    ``shape`` whose valid region is ``v`` (PyPTO: the valid shape of the
    output). Elements of ``v`` that the input's valid region did not write
    are uninitialised workspace: a fault when read."""
    valid = _valid_list(tracer, valid_shape, len(shape), "reshape(valid_shape)")
    for i, (v, s) in enumerate(zip(valid, shape)):
        if _is_int(v) and v > s:
            raise _error(f"reshape(valid_shape)[{i}] = {v} exceeds the dim's size {s}")
    return regroup(tracer, tile, shape, valid, "reshaped")


def tensor_valid_view_extents(tracer, tensor: TensorHandle, shape, offsets, explicit):
    """The valid extents of a view of a GM tensor that a reshape gave a
    valid shape: ``min(max(valid - offset, 0), size)`` per dim, intersected
    with the view's own ``valid_shape``."""
    result = []
    for i, (v, off, size) in enumerate(zip(tensor.valid_shape, offsets, shape)):
        left = v - off
        if _is_int(left):
            extent = min(max(left, 0), size)
        else:
            extent = left.max(0).min(size)
        if explicit is not None:
            e = explicit[i]
            if _is_int(extent) and _is_int(e):
                extent = min(extent, e)
            else:
                extent = Scalar.make("min", extent, e)
        result.append(extent)
    return result


# ----------------------------------------------------------------------------
# concat and expand_clone
# ----------------------------------------------------------------------------

def concat(tensors, dim: int = 0) -> Tile:
    """``pypto.concat([a, b, ...], dim)``: the tiles joined along ``dim``
    (``hicann/pypto/docs/api/operation/pypto-concat.md``: equal dtypes and
    ranks, equal sizes off ``dim``; 2 to 128 inputs). Each input is
    assembled into a workspace at its offset along ``dim`` and the whole is
    viewed back; the valid extent along ``dim`` ends where the last input's
    valid part ends (earlier inputs must be valid along ``dim``, else the
    gap is an uninitialised read), off ``dim`` it is the smallest input's."""
    tracer = current_tracer("pypto.concat")
    if not isinstance(tensors, (list, tuple)) or not tensors:
        raise _error(f"concat(tensors) takes a non-empty list of tiles, got {tensors!r}")
    if len(tensors) > 128:
        raise _error(f"concat takes at most 128 tensors (PyPTO's limit), got {len(tensors)}")
    tiles = [tracer.use_tile(t, f"concat(tensors[{i}])") for i, t in enumerate(tensors)]
    first = tiles[0]
    d = _norm_dim(dim, first.ndim, "concat(dim)")
    for i, t in enumerate(tiles[1:], 1):
        if t.dtype != first.dtype:
            raise _error(f"concat(tensors[{i}]) is {t.dtype!r} but tensors[0] is "
                         f"{first.dtype!r}; cast them to one dtype")
        if t.ndim != first.ndim:
            raise _error(f"concat(tensors[{i}]) has rank {t.ndim} but tensors[0] has rank "
                         f"{first.ndim}")
        for k, (a, b) in enumerate(zip(first.shape, t.shape)):
            if k != d and a != b:
                raise _error(f"concat(tensors[{i}]) {list(t.shape)} differs from tensors[0] "
                             f"{list(first.shape)} in dim {k}, which is not the concat dim {d}")
    shape = list(first.shape)
    shape[d] = 0
    offsets = []
    for t in tiles:
        offsets.append(shape[d])
        shape[d] += t.shape[d]
    ws = tracer.workspace(tuple(shape), first.dtype, "concat_ws")
    for t, off in zip(tiles, offsets):
        at = [0] * len(shape)
        at[d] = off
        _store(tracer, t, at, ws)
    valid = []
    for k in range(len(shape)):
        if k == d:
            last = valid_extent(tracer, tiles[-1], k)
            valid.append(Scalar.make("add", offsets[-1], last) if offsets[-1] else last)
        else:
            extent = valid_extent(tracer, tiles[0], k)
            for t in tiles[1:]:
                extent = Scalar.make("min", extent, valid_extent(tracer, t, k))
            valid.append(extent)
    return tracer.record_view(ws, tuple(shape), [0] * len(shape),
                              tracer.mixed(valid, "concat(valid)"), "concat")


def expand_clone(input, shape, *, valid_shape=None) -> Tile:
    """``pypto.expand_clone(x, shape)``: ``x`` broadcast along its one size-1
    dim that ``shape`` widens
    (``hicann/pypto/docs/api/operation/pypto-expand_clone.md``), a new tile. Recorded as
    ``pto.mul`` of ``x`` with a ``pto.full`` of ones of ``shape``: the
    binary op's size-1 broadcast, and multiplying by one is exact (signed
    zeros, infinities and NaNs included); the ones are viewed with ``x``'s
    valid extents off the broadcast dim. ``valid_shape`` views the result
    with that valid shape."""
    tracer = current_tracer("pypto.expand_clone")
    from . import ops
    from .op_support import _static_list
    x = tracer.use_tile(input, "expand_clone(input)")
    target = list(_static_list(shape, "expand_clone(shape)"))
    if len(target) != x.ndim:
        raise _error(f"expand_clone(shape={target}) has {len(target)} dims but the input "
                     f"{list(x.shape)} has {x.ndim}")
    widened = [i for i, (a, b) in enumerate(zip(x.shape, target)) if a != b]
    for i in widened:
        if x.shape[i] != 1:
            raise _error(f"expand_clone: dim {i} of the input is {x.shape[i]}, not 1, and "
                         f"cannot be broadcast to {target[i]}")
    if len(widened) > 1:
        raise _error(f"expand_clone broadcasts one dim (PyPTO's rule), but shape {target} "
                     f"widens dims {widened} of {list(x.shape)}")
    if not widened:
        result = x
    else:
        # Off the broadcast dim, elementwise operands share valid extents:
        # the ones take x's (a tail of a dynamic loop stays a tail).
        # (through a workspace: the ISA lowering views GM, not tiles).
        valid = [target[d] if d in widened else valid_extent(tracer, x, d)
                 for d in range(x.ndim)]
        ws = tracer.workspace(tuple(target), x.dtype, "ones_ws")
        _store(tracer, ops.full(target, 1, x.dtype), [0] * x.ndim, ws)
        ones = tracer.record_view(ws, tuple(target), [0] * x.ndim,
                                  tracer.mixed(valid, "expand_clone(valid)"), "ones")
        result = ops.mul(ones, x)
    if valid_shape is not None:
        valid = _valid_list(tracer, valid_shape, len(target), "expand_clone(valid_shape)")
        result = ops.view(result, target, [0] * len(target), valid_shape=valid)
    return result


def valid_shape(tile: Tile) -> list:
    """``t.valid_shape``: the run-time valid extent of each dim, as symbolic
    scalars (``pto.valid_dim``)."""
    tracer = current_tracer("Tile.valid_shape")
    tile = tracer.use_tile(tile, "valid_shape")
    return valid_extents(tracer, tile)


"""The PyPTO operations (``pypto.view``, ``pypto.matmul``, ...) as recorded
by the tracer. Each checks what it can before the MLIR verifier sees the IR
and raises a ``TraceError`` at the user's line naming the argument and the
fix; everything else (tile capacities, alignments, arch rules) is left to the
verifiers, whose diagnostics point at the same line through the op's
location."""

from __future__ import annotations

import math
import re
import struct
import warnings

from . import dtypes as dt
from .errors import TraceError
from .graph import Op
from .symbolic import Scalar
from .tracer import (Condition, TensorHandle, Tile, current_tracer, tensor_type, tile_type,
                     user_location)
from .tracer import _state as _tracer_state


_IDX_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_$.]*$")


def _error(message: str) -> TraceError:
    return TraceError(message, user_location())


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _static_list(values, what: str, positive: bool = True) -> tuple:
    if isinstance(values, (int, Scalar)) and not isinstance(values, bool):
        values = [values]
    try:
        items = list(values)
    except TypeError:
        raise _error(f"{what} must be a list of ints, got {type(values).__name__} {values!r}")
    for i, v in enumerate(items):
        if isinstance(v, Scalar):
            raise _error(f"{what}[{i}] is a symbolic (run-time) value: tile shapes are "
                         f"compile-time constants; compute them from Python ints (tile "
                         f"configs, static dims)")
        if not _is_int(v):
            raise _error(f"{what}[{i}] must be an int, got {type(v).__name__} {v!r}")
        if positive and v <= 0:
            raise _error(f"{what}[{i}] must be positive, got {v}")
    return tuple(items)


def _vec_tile_attr(tracer) -> list:
    tile = tracer.frame.vec_tile
    return [f"vec_tile = #pto.vec_tile<[{', '.join(map(str, tile))}]>"] if tile else []


def _record(tracer, kind, fields, shape, dtype, hint) -> Tile:
    op = Op(kind, fields, [tile_type(shape, dtype)], hint, tracer.location())
    tracer.insert_op(op)
    return Tile(op.result, shape, dtype)


# ----------------------------------------------------------------------------
# Ambient state
# ----------------------------------------------------------------------------

def set_vec_tile_shapes(*dims) -> None:
    """``pypto.set_vec_tile_shapes(d0, d1, ...)``: the vector tile of the
    vector ops recorded after it (in this loop body and nested ones)."""
    tracer = current_tracer("pypto.set_vec_tile_shapes")
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = tuple(dims[0])
    dims = _static_list(dims, "set_vec_tile_shapes(dims)")
    if not 1 <= len(dims) <= 4:
        raise _error(f"set_vec_tile_shapes takes 1 to 4 dims, got {len(dims)}")
    tracer.frame.vec_tile = dims


def set_cube_tile_shapes(m, k, n, enable_split_k: bool = False) -> None:
    """``pypto.set_cube_tile_shapes(m=[mL0, mL1], k=[kL0, kL1], n=[nL0, nL1])``:
    the cube tile of the matmuls recorded after it."""
    tracer = current_tracer("pypto.set_cube_tile_shapes")
    lists = []
    for name, value in (("m", m), ("k", k), ("n", n)):
        items = _static_list(value, f"set_cube_tile_shapes({name})")
        if name == "k" and len(items) == 3:
            raise _error("set_cube_tile_shapes(k=[kL0, kAL1, kBL1]): separate A/B L1 depths "
                         "are not modelled by the pto dialect; give k=[kL0, kL1]")
        if len(items) != 2:
            raise _error(f"set_cube_tile_shapes({name}) must be [{name}L0, {name}L1], got "
                         f"{list(items)}")
        lists.append(items)
    if not isinstance(enable_split_k, bool):
        raise _error("set_cube_tile_shapes(enable_split_k) must be a bool")
    text = (f"#pto.cube_tile<m = [{lists[0][0]}, {lists[0][1]}], k = [{lists[1][0]}, "
            f"{lists[1][1]}], n = [{lists[2][0]}, {lists[2][1]}]"
            + (", split_k" if enable_split_k else "") + ">")
    tracer.frame.cube_tile = text


_MERGE_SETTINGS = ("vec_nbuffer_setting", "cube_l1_reuse_setting", "cube_nbuffer_setting")
_UNMODELLED_PASS_OPTIONS = ("auto_mix_partition", "ooo_sched_mode",
                            "sg_set_tunevf_mode")


def set_pass_options(**options) -> None:
    """``pypto.set_pass_options(sg_set_scope=...)``: ``sg_set_scope=id`` (or
    ``(id, allow_parallel_merge, allow_cross_scope_merge)``) puts the ops
    recorded after it into a ``pto.scope``; ``-1`` ends it. Merge settings
    given at kernel level (outside loops) override ``@jit(pass_options=...)``."""
    tracer = current_tracer("pypto.set_pass_options")
    loc = tracer.location()
    for key, value in options.items():
        if key == "sg_set_scope":
            if _is_int(value):
                scope = (value, False, False)
            elif isinstance(value, (tuple, list)) and len(value) == 3 and _is_int(value[0]) \
                    and all(isinstance(v, bool) for v in value[1:]):
                scope = tuple(value)
            else:
                raise _error(f"set_pass_options(sg_set_scope={value!r}): give an int id or "
                             f"(id, allow_parallel_merge, allow_cross_scope_merge)")
            if scope[0] < -1:
                raise _error(f"set_pass_options(sg_set_scope={scope[0]}): ids are >= 0, and "
                             f"-1 ends the scope")
            if scope[0] == -1:
                if scope[1] or scope[2]:
                    raise _error("set_pass_options(sg_set_scope=(-1, ...)): -1 (no scope) "
                                 "requires both flags False")
                tracer.frame.scope = None
            else:
                tracer.frame.scope = (*scope, loc)
        elif key == "sg_set_ooo_scope":
            # PyPTO (950): adjacent ops with one id form one out-of-order
            # task inside a MIX subgraph, a scheduling hint. Carried as
            # pto.ooo_scope on the ops recorded while it is set.
            if not _is_int(value) or not (value == -1 or 1 <= value <= 100000):
                raise _error(f"set_pass_options(sg_set_ooo_scope={value!r}): give -1 (none) or "
                             f"an int id in 1..100000")
            tracer.frame.ooo_scope = None if value == -1 else value
        elif key in _MERGE_SETTINGS:
            if len(tracer.frames) > 1:
                raise _error(f"set_pass_options({key}=...) inside a pypto.loop or run-time "
                             f"`if`: the pto "
                             f"dialect carries merge settings per kernel; set it at kernel "
                             f"level or in @jit(pass_options=...)")
            from .jit import OptionRemark, merge_setting_text, split_merge_setting
            modelled, unmodelled = split_merge_setting(key, value)
            if unmodelled:
                # PyPTO's func keys and labels name groups of its own graph;
                # carried in pto.pypto_options as @jit carries them.
                loc = tracer.location()
                warnings.warn_explicit(
                    f"set_pass_options({key}=...) group keys {sorted(unmodelled)} (func keys, "
                    f"semantic labels of PyPTO's graph): not modelled by pto-mlir; carried in "
                    f"pto.pypto_options and ignored", OptionRemark, loc.file, loc.line)
                tracer.unmodelled_pass_options.setdefault(key, {}).update(unmodelled)
            tracer.pass_option_overrides[key] = merge_setting_text(key, modelled)
        elif key in _UNMODELLED_PASS_OPTIONS:
            raise _error(f"set_pass_options({key}=...) is not modelled by the pto dialect yet "
                         f"(950 OoO/MIX scheduling)")
        else:
            raise _error(f"set_pass_options: unknown option '{key}' (supported: sg_set_scope, "
                         f"sg_set_ooo_scope, {', '.join(_MERGE_SETTINGS)})")


def set_semantic_label(label) -> None:
    """``pypto.set_semantic_label("name")``: PyPTO names the ops recorded after
    it (their subgraphs' labels, which merge-setting label keys and
    swimlanes refer to). Carried as ``pto.semantic_label`` on those ops in
    this body and nested ones; no pass reads it (label keys of merge
    settings are carried and ignored, docs/Frontend.md)."""
    tracer = current_tracer("pypto.set_semantic_label")
    if not isinstance(label, str) or not label:
        raise _error(f"set_semantic_label({label!r}) takes a non-empty string")
    tracer.frame.semantic_label = label


class experimental:
    """``pypto.experimental``."""

    @staticmethod
    def set_operation_options(*, combine_axis=None) -> None:
        """``set_operation_options(combine_axis=True)``: the kernel's
        ``combine_axis`` (last-axis broadcasts inlined with brcb)."""
        tracer = current_tracer("pypto.experimental.set_operation_options")
        if combine_axis is None:
            return
        if not isinstance(combine_axis, bool):
            raise _error(f"set_operation_options(combine_axis={combine_axis!r}) takes a bool")
        if len(tracer.frames) > 1:
            raise _error("set_operation_options(combine_axis=...) inside a pypto.loop or "
                         "run-time `if`: the "
                         "pto dialect carries it per kernel; call it as the first statement "
                         "of the kernel body")
        tracer.combine_axis = combine_axis

    @staticmethod
    def auto_mix_partition(value) -> None:
        """``auto_mix_partition(1)``: PyPTO's switch for merging cube and vector
        ops into MIX subgraphs, its ``set_options(pass_options=
        {'auto_mix_partition': value})``. Not modelled (MIX forms are chosen
        by the partitioner here): carried in ``pto.pypto_options`` with a
        remark, as the same key of ``@jit(pass_options=...)`` is."""
        tracer = current_tracer("pypto.experimental.auto_mix_partition")
        if isinstance(value, bool) or not isinstance(value, int) or value not in (0, 1):
            raise _error(f"experimental.auto_mix_partition({value!r}): PyPTO takes 0 (off) or "
                         f"1 (on)")
        from .jit import OptionRemark
        loc = tracer.location()
        warnings.warn_explicit(
            f"experimental.auto_mix_partition({value}) (950 automatic MIX subgraphs): not "
            f"modelled by pto-mlir; carried in pto.pypto_options and ignored", OptionRemark,
            loc.file, loc.line)
        tracer.unmodelled_pass_options["auto_mix_partition"] = value


# ----------------------------------------------------------------------------
# Tensors
# ----------------------------------------------------------------------------

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


# ----------------------------------------------------------------------------
# Compute
# ----------------------------------------------------------------------------

def matmul(input, mat2, out_dtype, *, a_trans: bool = False, b_trans: bool = False,
           c_matrix_nz: bool = False, extend_params=None) -> Tile:
    """``pypto.matmul(a, b, DT_FP32, a_trans=..., b_trans=...)``: op(A)·op(B)
    on the cube, under the current ``set_cube_tile_shapes``."""
    tracer = current_tracer("pypto.matmul")
    a = tracer.use_tile(input, "matmul(input)")
    b = tracer.use_tile(mat2, "matmul(mat2)")
    if not isinstance(out_dtype, dt.DataType):
        raise _error(f"matmul(out_dtype) must be a pypto dtype such as DT_FP32, got "
                     f"{out_dtype!r}")
    if c_matrix_nz:
        raise _error("matmul(c_matrix_nz=True) is not supported (PyPTO supports only ND "
                     "output)")
    if extend_params:
        raise _error("matmul(extend_params=...) (bias, scales, relu) is not modelled by the "
                     "pto dialect yet")
    if a.ndim != b.ndim or a.ndim not in (2, 3, 4):
        raise _error(f"matmul takes 2-, 3- or 4-D operands of equal rank (PyPTO's rule), got "
                     f"ranks {a.ndim} and {b.ndim}")
    m, ka = (a.shape[-1], a.shape[-2]) if a_trans else a.shape[-2:]
    kb, n = (b.shape[-1], b.shape[-2]) if b_trans else b.shape[-2:]
    if ka != kb:
        raise _error(f"matmul contracts K = {ka} of input {list(a.shape)}"
                     f"{' (a_trans)' if a_trans else ''} with K = {kb} of mat2 "
                     f"{list(b.shape)}{' (b_trans)' if b_trans else ''}; check a_trans/b_trans")
    if a.dtype != b.dtype:
        raise _error(f"matmul operands have dtypes {a.dtype!r} and {b.dtype!r}; they must "
                     f"match (cast one)")
    if tracer.frame.cube_tile is None:
        raise _error("matmul needs set_cube_tile_shapes(m=[mL0, mL1], k=[kL0, kL1], "
                     "n=[nL0, nL1]) before it")
    if a.ndim > 2:
        from .batched import batched_matmul
        return batched_matmul(tracer, a, b, out_dtype, a_trans, b_trans,
                              tracer.frame.cube_tile)
    fields = {"lhs": a.value, "rhs": b.value, "a_trans": a_trans, "b_trans": b_trans,
              "cube_tile": tracer.frame.cube_tile}
    return _record(tracer, "pto.matmul", fields, (m, n), out_dtype, "matmul")


def _scalar_operand(tracer, tile: Tile, value, what: str):
    if isinstance(value, dt.Element):
        if value.dtype != tile.dtype:
            raise _error(f"{what}: {value!r} with a {tile.dtype!r} tile; PyPTO requires one "
                         f"dtype (make the Element {tile.dtype!r} or cast the tile)")
        return tracer.constant(value.value, tile.dtype.mlir)
    if isinstance(value, Scalar):
        raise _error(f"{what}: a symbolic (run-time) scalar cannot be a tile operand; "
                     f"only compile-time Python numbers can (e.g. a folded scale)")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _error(f"{what} must be a tile or a Python number, got "
                     f"{type(value).__name__} {value!r}")
    if not tile.dtype.is_float and isinstance(value, float):
        raise _error(f"{what}: a float scalar with a {tile.dtype!r} tile; use an int or cast "
                     f"the tile")
    return tracer.constant(value, tile.dtype.mlir)


def _broadcast(a: Tile, b: Tile, what: str) -> tuple:
    if a.ndim != b.ndim:
        raise _error(f"{what}: operands of rank {a.ndim} and {b.ndim}; elementwise ops take "
                     f"equal ranks (size-1 dims broadcast)")
    shape = []
    for i, (x, y) in enumerate(zip(a.shape, b.shape)):
        if x != y and 1 not in (x, y):
            raise _error(f"{what}: shapes {list(a.shape)} and {list(b.shape)} differ in dim "
                         f"{i} ({x} vs {y}) and neither is 1")
        shape.append(max(x, y))
    return tuple(shape)


def _right_operand(tracer, a: Tile, other, name: str, what: str, dtype_fix: str):
    """The right operand of a binary op whose left operand is the tile ``a``:
    a tile or tensor of ``a``'s dtype (broadcast against ``a``) or a number.
    Returns the result shape and the operand's value."""
    if isinstance(other, (Tile, TensorHandle)):
        b = tracer.use_tile(other, f"{name}(other)")
        if a.dtype != b.dtype:
            raise _error(f"{what}: dtypes {a.dtype!r} and {b.dtype!r} differ; {dtype_fix}")
        return _broadcast(a, b, what), b.value
    return a.shape, _scalar_operand(tracer, a, other, f"{name}(other)")


def _binary(name: str, kind: str, input, other, extra_attrs=()) -> Tile:
    tracer = current_tracer(f"pypto.{name}")
    what = f"{name}(input, other)"
    if not isinstance(input, (Tile, TensorHandle)) and isinstance(other, (Tile, TensorHandle)):
        raise _error(f"{what}: the first operand must be a tile; put the scalar second")
    from .broadcast import align_ranks
    input, other = align_ranks([input, other], what)
    a = tracer.use_tile(input, f"{name}(input)")
    shape, rhs = _right_operand(tracer, a, other, name, what, "cast one operand (pypto.cast)")
    attrs = list(extra_attrs) + _vec_tile_attr(tracer)
    fields = {"lhs": a.value, "rhs": rhs, "attrs": attrs}
    return _record(tracer, kind, fields, shape, a.dtype, name)


def _precision_attr(precision_type, what: str) -> str:
    if not isinstance(precision_type, dt.PrecisionType):
        raise _error(f"{what}(precision_type={precision_type!r}): use "
                     f"pypto.PrecisionType.INTRINSIC or HIGH_PRECISION")
    return f"precision = #pto.precision<{precision_type.value}>"


def add(input, other) -> Tile:
    return _binary("add", "pto.add", input, other)


def sub(input, other) -> Tile:
    return _binary("sub", "pto.sub", input, other)


def mul(input, other) -> Tile:
    return _binary("mul", "pto.mul", input, other)


def div(input, other, precision_type=dt.PrecisionType.HIGH_PRECISION) -> Tile:
    """``pypto.div``; like PyPTO it defaults to HIGH_PRECISION, which
    DAV_2201 does not support (the verifier says so at this line)."""
    return _binary("div", "pto.div", input, other, [_precision_attr(precision_type, "div")])


def rsub(input, other) -> Tile:
    """``other - input`` for a Python number ``other`` (``1.0 - t``):
    ``-input + other``, which IEEE arithmetic makes the same value."""
    tracer = current_tracer("pypto.sub")
    a = tracer.use_tile(input, "sub(other, input)")
    _scalar_operand(tracer, a, other, "sub(scalar, tile)")
    return add(neg(a), other)


def rdiv(input, other) -> Tile:
    """``other / input`` for a Python number ``other``: ``reciprocal(input)``
    scaled by ``other`` (exactly the reciprocal when ``other`` is 1)."""
    tracer = current_tracer("pypto.div")
    a = tracer.use_tile(input, "div(other, input)")
    _scalar_operand(tracer, a, other, "div(scalar, tile)")
    r = reciprocal(a)
    return r if other == 1 else mul(r, other)


def maximum(input, other) -> Tile:
    return _binary("maximum", "pto.max", input, other)


def minimum(input, other) -> Tile:
    return _binary("minimum", "pto.min", input, other)


def _unary(name: str, kind: str, input, extra_attrs=()) -> Tile:
    tracer = current_tracer(f"pypto.{name}")
    a = tracer.use_tile(input, f"{name}(input)")
    fields = {"input": a.value, "attrs": list(extra_attrs) + _vec_tile_attr(tracer)}
    return _record(tracer, kind, fields, a.shape, a.dtype, name)


def exp(input, precision_type=dt.PrecisionType.INTRINSIC) -> Tile:
    return _unary("exp", "pto.exp", input, [_precision_attr(precision_type, "exp")])


def neg(input) -> Tile:
    return _unary("neg", "pto.neg", input)


def abs(input) -> Tile:  # noqa: A001 - the PyPTO name
    return _unary("abs", "pto.abs", input)


def sqrt(input) -> Tile:
    return _unary("sqrt", "pto.sqrt", input)


def rsqrt(input) -> Tile:
    return _unary("rsqrt", "pto.rsqrt", input)


def reciprocal(input) -> Tile:
    return _unary("reciprocal", "pto.reciprocal", input)


def _float_unary(name: str, input, extra_attrs=()) -> Tile:
    """An elementwise op PyPTO defines on DT_FP16, DT_BF16 and DT_FP32 only:
    another dtype is an error at the line naming the fix."""
    tracer = current_tracer(f"pypto.{name}")
    a = tracer.use_tile(input, f"{name}(input)")
    if a.dtype not in (dt.DT_FP16, dt.DT_BF16, dt.DT_FP32):
        raise _error(f"{name}(input) is {a.dtype!r}; PyPTO's {name} takes DT_FP16, DT_BF16 or "
                     f"DT_FP32 (cast first)")
    return _unary(name, f"pto.{name}", a, extra_attrs)


def log(input, precision_type=dt.PrecisionType.INTRINSIC) -> Tile:
    """``pypto.log``: the natural logarithm (https://github.com/hicann/pypto/blob/master/docs/api/operation/pypto-log.md)."""
    return _float_unary("log", input, [_precision_attr(precision_type, "log")])


def tanh(input) -> Tile:
    """``pypto.tanh`` (https://github.com/hicann/pypto/blob/master/docs/api/operation/pypto-tanh.md)."""
    return _float_unary("tanh", input)


def _reduce(name: str, input, dim, keepdim: bool) -> Tile:
    tracer = current_tracer(f"pypto.{name}")
    a = tracer.use_tile(input, f"{name}(input)")
    if not _is_int(dim):
        raise _error(f"{name}(dim) must be an int, got {dim!r}")
    if not -a.ndim <= dim < a.ndim:
        raise _error(f"{name}(dim={dim}) is out of range for a rank-{a.ndim} tile")
    dim = dim % a.ndim
    shape = list(a.shape)
    if keepdim:
        shape[dim] = 1
    else:
        del shape[dim]
    if not shape:
        raise _error(f"{name} of a rank-1 tile without keepdim gives a scalar; use "
                     f"keepdim=True")
    fields = {"input": a.value, "dim": dim, "keepdim": bool(keepdim),
              "attrs": _vec_tile_attr(tracer)}
    return _record(tracer, f"pto.{name}", fields, tuple(shape), a.dtype, name)


def sum(input, dim, keepdim: bool = False) -> Tile:  # noqa: A001 - the PyPTO name
    return _reduce("sum", input, dim, keepdim)


def amax(input, dim, keepdim: bool = False) -> Tile:
    return _reduce("amax", input, dim, keepdim)


def cast(input, dtype, mode=dt.CastMode.CAST_NONE, satmode=dt.SaturationMode.OFF) -> Tile:
    """``pypto.cast(x, DT_BF16)``. ``CAST_NONE`` is written as the pair's
    default mode (RINT for FP32 -> BF16) so the IR shows the rounding."""
    tracer = current_tracer("pypto.cast")
    a = tracer.use_tile(input, "cast(input)")
    if not isinstance(dtype, dt.DataType):
        raise _error(f"cast(dtype) must be a pypto dtype such as DT_BF16, got {dtype!r}")
    if not isinstance(mode, dt.CastMode):
        raise _error(f"cast(mode={mode!r}): use pypto.CastMode.CAST_RINT, ...")
    if not isinstance(satmode, dt.SaturationMode):
        raise _error(f"cast(satmode={satmode!r}): use pypto.SaturationMode.ON or OFF")
    if dtype == a.dtype and mode == dt.CastMode.CAST_NONE and satmode == dt.SaturationMode.OFF:
        # PyPTO returns the input itself (hicann/pypto python/pypto/op/math.py,
        # cast): no f32 -> f32 rounding to integral behind the user's back.
        return a
    if mode == dt.CastMode.CAST_NONE:
        mode = dt.default_cast_mode(a.dtype, dtype, tracer.arch)
    attrs = [] if mode == dt.CastMode.CAST_NONE else [f"mode = #pto.round_mode<{mode.value}>"]
    if satmode == dt.SaturationMode.ON:
        # Clamp out-of-range values (the default OFF wraps on the pairs
        # PyPTO wraps, pto.cast's description lists them).
        attrs.append("satmode = #pto.sat_mode<ON>")
    fields = {"input": a.value, "attrs": attrs + _vec_tile_attr(tracer)}
    return _record(tracer, "pto.cast", fields, a.shape, dtype, "cast")


def _f64_literal(value: float) -> str:
    """An MLIR f64 attribute literal of ``value``."""
    text = repr(value)
    if not math.isfinite(value):
        # MLIR has no inf/nan float literal: the f64 bits (-inf: the running max's start)
        return f"0x{struct.unpack('<Q', struct.pack('<d', value))[0]:016X}"
    if "e" in text and "." not in text:   # MLIR float literals need a "." (1e+30 -> 1.0e+30)
        text = text.replace("e", ".0e")
    return text


def full(size, fill_value, dtype, *, valid_shape=None) -> Tile:
    """``pypto.full([M, N], value, dtype)``: a fully valid constant tile;
    with ``valid_shape=[m, N]`` (ints or symbolic scalars, PyPTO's dynamic
    tails) its zero-offset view of that valid shape."""
    tracer = current_tracer("pypto.full")
    shape = _static_list(size, "full(size)")
    if not isinstance(dtype, dt.DataType):
        raise _error(f"full(dtype) must be a pypto dtype, got {dtype!r}")
    if isinstance(fill_value, bool) or not isinstance(fill_value, (int, float)):
        raise _error(f"full(fill_value) must be a Python number, got {fill_value!r}")
    fields = {"value": _f64_literal(float(fill_value)), "attrs": _vec_tile_attr(tracer)}
    tile = _record(tracer, "pto.full", fields, shape, dtype, "full")
    if valid_shape is None:
        return tile
    if not isinstance(valid_shape, (list, tuple)) or len(valid_shape) != len(shape):
        raise _error(f"full(valid_shape={valid_shape!r}) needs one entry per dim of size "
                     f"{list(shape)}")
    return view(tile, shape, [0] * len(shape), valid_shape=list(valid_shape))


# ----------------------------------------------------------------------------
# Symbolic helpers and loops
# ----------------------------------------------------------------------------

def min(a, b):  # noqa: A001 - the PyPTO name
    """``pypto.min(a, b)`` on ints and symbolic scalars."""
    if _is_int(a) and _is_int(b):
        return a if a <= b else b
    return Scalar.make("min", a, b)


def max(a, b):  # noqa: A001 - the PyPTO name
    if _is_int(a) and _is_int(b):
        return a if a >= b else b
    return Scalar.make("max", a, b)


def _loop_bounds(what: str, bounds) -> tuple:
    """(start, stop, step) of ``what(stop)``, ``what(start, stop)`` or
    ``what(start, stop, step)``, each an int or a symbolic scalar."""
    if not 1 <= len(bounds) <= 3:
        raise _error(f"{what} takes (stop), (start, stop) or (start, stop, step), got "
                     f"{len(bounds)} positional arguments")
    start, stop, step = {1: (0, bounds[0], 1), 2: (*bounds, 1), 3: bounds}[len(bounds)]
    for label, value in (("start", start), ("stop", stop), ("step", step)):
        if isinstance(value, bool) or not isinstance(value, (int, Scalar)):
            raise _error(f"{what}({label}) must be an int or a symbolic scalar, got "
                         f"{type(value).__name__} {value!r}")
    return start, stop, step


def loop(*bounds, name: str | None = None, idx_name: str | None = None, unroll_list=None,
         submit_before_loop: bool = False, parallel: bool = False, unroll: bool = False):
    """``for i in pypto.loop(stop, name=..., idx_name=...)`` (or
    ``loop(start, stop, step)``): a run-time loop; the body is traced once.
    ``unroll`` is accepted and has no effect, as in PyPTO (its ``loop`` reads
    only the other keywords; docs/Frontend.md)."""
    tracer = current_tracer("pypto.loop")
    loc = tracer.location()
    start, stop, step = _loop_bounds("loop", bounds)
    if not isinstance(unroll, bool):
        raise _error(f"loop(unroll={unroll!r}) must be True or False (PyPTO ignores it; give "
                     f"unroll_list=[...] to unroll a loop)")
    if _is_int(step) and step <= 0:
        raise _error(f"loop(step={step}) must be positive")
    tracer.loop_count += 1
    n = tracer.loop_count
    name = f"loop_{n}" if name is None else name
    idx_name = f"loop_idx_{n}" if idx_name is None else idx_name
    if not isinstance(name, str):
        raise _error(f"loop(name={name!r}) must be a string")
    if not isinstance(idx_name, str) or not _IDX_RE.match(idx_name):
        raise _error(f"loop(idx_name={idx_name!r}) must be an identifier (it names the index "
                     f"in the IR)")
    if idx_name in tracer.frame.idx_names:
        raise _error(f"loop(idx_name='{idx_name}') reuses the index name of an enclosing "
                     f"loop; give nested loops distinct idx_names")
    if unroll_list is not None:
        unroll_list = list(_static_list(unroll_list, "loop(unroll_list)"))
    fields = {"lb": tracer.index_value(start, "loop(start)"),
              "ub": tracer.index_value(stop, "loop(stop)"),
              "step": tracer.index_value(step, "loop(step)"),
              "name": name, "idx_name": idx_name, "unroll_list": unroll_list,
              "submit_before_loop": bool(submit_before_loop), "parallel": bool(parallel)}
    return _loop_body(tracer, fields, loc)


def _loop_body(tracer, fields, loc):
    frame = tracer.open_loop(fields, loc)
    completed = False
    try:
        yield frame.index
        completed = True
    finally:
        tracer.close_loop(frame, completed)



def ceildiv(a, b):
    """``pypto.ceildiv(a, b)``: the ceiling of a / b on ints and symbolic
    scalars."""
    if _is_int(a) and _is_int(b):
        if b == 0:
            raise _error("ceildiv by zero")
        return -((-a) // b)
    for label, x in (("a", a), ("b", b)):
        if isinstance(x, bool) or not isinstance(x, (int, Scalar)):
            raise _error(f"ceildiv({label}) must be an int or a symbolic scalar, got "
                         f"{type(x).__name__} {x!r}")
    return Scalar.make("ceildiv", a, b)


def is_loop_begin(index) -> Condition:
    """``if pypto.is_loop_begin(i):`` true in the first iteration of the
    loop whose index is ``i`` (``pto.is_loop_begin``; the ``if`` becomes an
    ``scf.if``)."""
    tracer = current_tracer("pypto.is_loop_begin")
    name = getattr(index, "hint", None) or "i"
    return tracer.loop_condition("pto.is_loop_begin", index, f"pypto.is_loop_begin({name})")


def is_loop_end(index) -> Condition:
    """``if pypto.is_loop_end(i):`` true in the last iteration."""
    tracer = current_tracer("pypto.is_loop_end")
    name = getattr(index, "hint", None) or "i"
    return tracer.loop_condition("pto.is_loop_end", index, f"pypto.is_loop_end({name})")


def cond(condition):
    """``if pypto.cond(i < n):``: marks a run-time condition (a comparison of
    symbolic scalars or is_loop_begin/end); a plain ``if`` on it is the same."""
    current_tracer("pypto.cond")
    from .symbolic import Comparison
    if not isinstance(condition, (Comparison, Condition)):
        raise _error(f"pypto.cond takes a comparison of symbolic scalars or "
                     f"is_loop_begin/is_loop_end, got {type(condition).__name__} "
                     f"{condition!r}; for a Python value use a plain `if`")
    return condition


def loop_unroll(*bounds, name: str | None = None, idx_name: str | None = None,
                unroll_list=None, submit_before_loop: bool = False, parallel: bool = False):
    """``for idx, k in pypto.loop_unroll(start, stop, step, unroll_list=[...])``:
    PyPTO's unrolled loop. Factors are deduplicated, sorted descending and 1
    is added; each factor k is its own loop path that advances by k steps
    (the body, traced once per k with ``k`` a Python int, handles k
    iterations), covering what the larger factors left: the k-path runs
    while at least k iterations remain, the 1-path takes the rest."""
    tracer = current_tracer("pypto.loop_unroll")
    loc = tracer.location()
    start, stop, step = _loop_bounds("loop_unroll", bounds)
    if not _is_int(step) or step <= 0:
        raise _error(f"loop_unroll(step={step!r}) must be a positive Python int (the unrolled "
                     f"paths advance by k * step)")
    factors = [1] if unroll_list is None else \
        list(_static_list(unroll_list, "loop_unroll(unroll_list)"))
    factors = sorted(set(factors) | {1}, reverse=True)
    tracer.loop_count += 1
    n = tracer.loop_count
    name = f"loop_{n}" if name is None else name
    idx_name = f"loop_idx_{n}" if idx_name is None else idx_name
    if not isinstance(name, str):
        raise _error(f"loop_unroll(name={name!r}) must be a string")
    if not isinstance(idx_name, str) or not _IDX_RE.match(idx_name):
        raise _error(f"loop_unroll(idx_name={idx_name!r}) must be an identifier")
    if idx_name in tracer.frame.idx_names:
        raise _error(f"loop_unroll(idx_name='{idx_name}') reuses the index name of an "
                     f"enclosing loop; give nested loops distinct idx_names")
    return _unrolled_paths(tracer, loc, start, stop, step, factors, name, idx_name,
                           bool(submit_before_loop), bool(parallel))


def _unrolled_paths(tracer, loc, start, stop, step, factors, name, idx_name, submit, parallel):
    current = start
    for k in factors:
        if k == 1:
            end = stop
        else:
            remaining = stop - current
            if _is_int(remaining):
                remaining = remaining if remaining > 0 else 0
            else:
                remaining = remaining.max(0)
            trips = remaining if step == 1 else ceildiv(remaining, step)
            end = current + (trips // k) * (k * step)
        fields = {"lb": tracer.index_value(current, "loop_unroll(start)"),
                  "ub": tracer.index_value(end, "loop_unroll(stop)"),
                  "step": tracer.index_value(k * step, "loop_unroll(step)"),
                  "name": name, "idx_name": idx_name, "unroll_list": None,
                  "submit_before_loop": submit and k == factors[0], "parallel": parallel}
        for index in _loop_body(tracer, fields, loc):
            yield index, k
        current = end


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


def sigmoid(input) -> Tile:
    """``pypto.sigmoid(x)``: ``1 / (1 + exp(-x))``
    (``hicann/pypto/docs/api/operation/pypto-sigmoid.md``), recorded at this
    line as ``pto.neg``, ``pto.exp``, ``pto.add``, ``pto.reciprocal``: pto-isa
    has no sigmoid instruction. Computed in FP32: an FP16/BF16 input is cast
    to FP32 and the result back, as PyPTO's own definition of sigmoid does."""
    tracer = current_tracer("pypto.sigmoid")
    a = tracer.use_tile(input, "sigmoid(input)")
    if a.dtype not in _HALF_OR_FP32:
        raise _error(f"sigmoid(input) is {a.dtype!r}; PyPTO's sigmoid takes floating-point "
                     f"tiles (computed in DT_FP32)")
    x = cast(a, dt.DT_FP32)
    return cast(reciprocal(add(exp(neg(x)), 1.0)), a.dtype)


def relu(input) -> Tile:
    """``pypto.relu(x)``: ``max(0, x)`` (``hicann/pypto/docs/api/operation/
    pypto-relu.md``: DT_FP16, DT_FP32, DT_BF16; NaN and inf inputs are not
    supported there), recorded at this line as ``pto.max`` with the scalar 0."""
    tracer = current_tracer("pypto.relu")
    a = tracer.use_tile(input, "relu(input)")
    if a.dtype not in (dt.DT_FP16, dt.DT_FP32, dt.DT_BF16):
        raise _error(f"relu(input) is {a.dtype!r}; PyPTO's relu takes DT_FP16, DT_FP32 or "
                     f"DT_BF16")
    return maximum(a, 0.0)


def softmax(input, dim) -> Tile:
    """``pypto.softmax(x, dim)``: ``exp(x - max) / sum(exp(x - max))`` along
    ``dim`` (``hicann/pypto/docs/api/operation/pypto-softmax.md``), recorded
    at this line as ``pto.amax``, ``pto.sub``, ``pto.exp``, ``pto.sum``,
    ``pto.div`` (keepdim reductions broadcast back); in FP32, an FP16/BF16
    input cast to FP32 and the result back, as PyPTO's definition does."""
    tracer = current_tracer("pypto.softmax")
    a = tracer.use_tile(input, "softmax(input)")
    if a.dtype not in _HALF_OR_FP32:
        raise _error(f"softmax(input) is {a.dtype!r}; PyPTO's softmax takes floating-point "
                     f"tiles (computed in DT_FP32)")
    if not _is_int(dim) or not -a.ndim <= dim < a.ndim:
        raise _error(f"softmax(dim={dim!r}) must be an int in [{-a.ndim}, {a.ndim - 1}] for a "
                     f"rank-{a.ndim} tile")
    x = cast(a, dt.DT_FP32)
    shifted = exp(sub(x, amax(x, dim, keepdim=True)))
    return cast(div(shifted, sum(shifted, dim, keepdim=True)), a.dtype)


_HALF_OR_FP32 = (dt.DT_FP16, dt.DT_BF16, dt.DT_FP32)


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


def _online_softmax(scores, scale):
    """``p, m, l = pypto.experimental.online_softmax(scores, scale)``: the
    local statistics of an online softmax over axis 0 (PyPTO: "axis-0 online
    softmax local statistics", hicann/pypto python/pypto/experimental/
    operation.py), decomposed into pto ops at this line: ``m = amax(scores,
    0) * scale``, ``p = exp(scores * scale - m)``, ``l = sum(p, 0)``; ``p`` is
    returned in BF16 for the following matmul."""
    tracer = current_tracer("pypto.experimental.online_softmax")
    s = tracer.use_tile(scores, "online_softmax(scores)")
    if s.ndim != 2 or s.dtype != dt.DT_FP32:
        raise _error(f"online_softmax(scores) takes a 2-D FP32 tile, got {list(s.shape)} "
                     f"{s.dtype!r}")
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or scale <= 0:
        raise _error(f"online_softmax(scale) must be a positive Python number, got {scale!r}")
    m = mul(amax(s, 0, keepdim=True), scale)
    p = exp(sub(mul(s, scale), m))
    l_sum = sum(p, 0, keepdim=True)
    return cast(p, dt.DT_BF16), m, l_sum


def _online_softmax_update(previous_max, previous_sum, previous_output, current_max,
                           current_sum, current_output):
    """``m, l, o = pypto.experimental.online_softmax_update(m0, l0, o0, m1, l1,
    o1)``: merges a block's statistics into the running ones (the statistics
    are per column, axis 0 reduced, as online_softmax gives them):
    ``m = max(m0, m1)``, ``l = exp(m0 - m) * l0 + exp(m1 - m) * l1``,
    ``o = o0 * exp(m0 - m) + o1 * exp(m1 - m)``."""
    tracer = current_tracer("pypto.experimental.online_softmax_update")
    names = ("previous_max", "previous_sum", "previous_output", "current_max", "current_sum",
             "current_output")
    tiles = [tracer.use_tile(t, f"online_softmax_update({n})")
             for n, t in zip(names, (previous_max, previous_sum, previous_output, current_max,
                                     current_sum, current_output))]
    m0, l0, o0, m1, l1, o1 = tiles
    for n, t in zip(names, tiles):
        if t.dtype != dt.DT_FP32:
            raise _error(f"online_softmax_update({n}) must be FP32, got {t.dtype!r}")
    m = maximum(m0, m1)
    a0 = exp(sub(m0, m))
    a1 = exp(sub(m1, m))
    l_new = add(mul(a0, l0), mul(a1, l1))
    o_new = add(mul(o0, a0), mul(o1, a1))
    return m, l_new, o_new


experimental.online_softmax = staticmethod(_online_softmax)
experimental.online_softmax_update = staticmethod(_online_softmax_update)

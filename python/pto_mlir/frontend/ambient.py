"""The ambient state of a trace: ``pypto.set_vec_tile_shapes``,
``set_cube_tile_shapes``, ``set_pass_options``, ``set_semantic_label`` and
``pypto.experimental``'s kernel options. They record no op; they set what
the ops recorded after them carry (docs/Rationale.md)."""

from __future__ import annotations

import warnings

from .op_support import _error, _is_int, _static_list
from .tracer import current_tracer


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

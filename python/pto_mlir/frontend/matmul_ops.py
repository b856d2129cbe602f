"""``pypto.matmul``: the cube's op(A)·op(B); 3- and 4-D operands go
through frontend/batched.py."""

from __future__ import annotations

from . import dtypes as dt
from .op_support import _error, _record
from .tracer import Tile, current_tracer


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

"""A PyPTO-flavoured front end: write kernels the way PyPTO kernels are
written and trace them to ``pto`` dialect IR::

    import pto_mlir.frontend as pypto

    @pypto.jit(runtime_options={"device_sched_mode": 3})
    def scale_rows(x: pypto.Tensor([pypto.DYN, 64], pypto.DT_FP32),
                   y: pypto.Tensor([pypto.DYN, 64], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(16, 64)
        rows = x.shape[0]
        for i in pypto.loop((rows + 15) // 16, name="LOOP_rows", idx_name="i"):
            valid = (rows - i * 16).min(16)
            t = pypto.view(x, [16, 64], [i * 16, 0], valid_shape=[valid, 64])
            pypto.atomic_add(pypto.mul(t, 2.0), [i * 16, 0], y)

    traced = scale_rows.trace(x=(pypto.DYN, 64), y=(pypto.DYN, 64))
    print(traced.mlir)               # pto IR, every op located at its Python line
    traced.module().check_skeleton() # through pto_mlir.ir (the native bindings)
    scale_rows(x_array, y_array)     # trace + run in the reference interpreter

Ambient state maps to the dialect as docs/Rationale.md describes:
``set_vec_tile_shapes`` / ``set_cube_tile_shapes`` become ``vec_tile`` /
``cube_tile`` on the ops recorded after them, ``sg_set_scope`` becomes a
``pto.scope`` region, ``set_operation_options(combine_axis=...)`` and the
``@jit`` options become kernel attributes. Symbolic scalars (dynamic dims,
loop indices, ``actual_q[b]`` reads, ``.min``) become ``arith`` ops on
``index``. Misuse raises ``TraceError`` at the offending Python line.
"""

from . import dtypes as _dtypes
from .dtypes import (DT_BF16, DT_BOOL, DT_FP8E4M3, DT_FP8E5M2, DT_FP16, DT_FP32, DT_INT8, DT_INT16,
                     DT_INT32, DT_INT64, DYN, DYNAMIC, CastMode, DataType, Element, PrecisionType,
                     SaturationMode, Tensor, TileOpFormat)
from .errors import TraceError
from .jit import JitFunction, TracedKernel, jit, platform
from .ops import (abs, add, amax, assemble, atomic_add, cast, ceildiv, cond, deinterleave, div,
                  exp, experimental, full, gathermask, is_loop_begin, is_loop_end, log, loop,
                  loop_unroll,
                  matmul, max, maximum, min, minimum, mul, neg, reciprocal, reshape, rsqrt,
                  set_cube_tile_shapes, set_pass_options, set_semantic_label, set_vec_tile_shapes,
                  relu, sigmoid, softmax, sqrt, sub, sum, tanh, tensor, transpose, view)
from .composed import amin, clip
from .norm import rms_norm
from .masks import eq, ge, gt, le, lt, ne, where
from .scatter import index_add_, index_put_
from .sequence import arange, scatter_update
from .indexing import gather, logical_not, scatter_
from .shape_ops import concat, expand_clone, unsqueeze
from .sort import topk
from .symbolic import Scalar as SymbolicScalar
from .tracer import TensorHandle, Tile

from .control import function as _function

frontend = type("frontend", (), {"jit": staticmethod(jit),
                                 "dynamic": _dtypes.NamedDynamic,
                                 "function": staticmethod(_function)})  # pypto.frontend.jit spelling

__all__ = [
    "CastMode", "DT_BF16", "DT_BOOL", "DT_FP16", "DT_FP32", "DT_FP8E4M3", "DT_FP8E5M2", "DT_INT16",
    "DT_INT32", "DT_INT64", "DT_INT8", "DYN", "DYNAMIC", "DataType", "Element", "JitFunction",
    "PrecisionType", "SaturationMode", "SymbolicScalar", "Tensor", "TensorHandle", "Tile",
    "TileOpFormat",
    "TraceError", "TracedKernel", "abs", "arange", "scatter_update", "gather", "logical_not", "scatter_", "add", "amax", "amin", "assemble", "atomic_add", "cast",
    "ceildiv", "clip", "concat", "cond", "deinterleave", "div", "exp", "expand_clone", "experimental",
    "frontend", "full", "gathermask", "index_add_", "index_put_",
    "is_loop_begin",
    "is_loop_end", "jit", "log", "loop", "loop_unroll", "matmul", "max", "maximum", "min", "minimum",
    "mul", "neg", "platform", "reciprocal", "relu", "reshape", "rms_norm", "rsqrt",
    "set_cube_tile_shapes",
    "set_pass_options", "set_semantic_label", "set_vec_tile_shapes", "sigmoid", "softmax", "sqrt", "sub", "sum",
    "tanh", "tensor", "topk", "transpose", "unsqueeze", "view",
    "eq", "ne", "lt", "le", "gt", "ge", "where",
]
del _dtypes

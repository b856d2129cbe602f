"""The PyPTO operations (``pypto.view``, ``pypto.matmul``, ...) as recorded
by the tracer. Each checks what it can before the MLIR verifier sees the IR
and raises a ``TraceError`` at the user's line naming the argument and the
fix; everything else (tile capacities, alignments, arch rules) is left to the
verifiers, whose diagnostics point at the same line through the op's
location.

One module per family, gathered here (``pto_mlir.frontend`` and the
``Tile`` / ``Tensor`` methods import them from this module):

- ambient.py: ``set_vec_tile_shapes``, ``set_cube_tile_shapes``,
  ``set_pass_options``, ``set_semantic_label``, ``experimental``;
- view_ops.py: tensors, views and data movement;
- elementwise_ops.py: binary and unary elementwise ops, ``cast``, ``full``;
- reduce_ops.py: ``sum``, ``amax``;
- matmul_ops.py: ``matmul``;
- activations.py: ``sigmoid``, ``relu``, ``softmax``, the online softmax;
- loops.py: ``loop``, ``loop_unroll``, run-time conditions, ``ceildiv``,
  ``min``, ``max``;
- op_support.py: the argument checks and op recording they share.
"""

from .activations import relu, sigmoid, softmax
from .ambient import (experimental, set_cube_tile_shapes, set_pass_options, set_semantic_label,
                      set_vec_tile_shapes)
from .elementwise_ops import (abs, add, cast, div, exp, full, log, maximum, minimum, mul, neg,
                              rdiv, reciprocal, rsqrt, rsub, sqrt, sub, tanh)
from .loops import ceildiv, cond, is_loop_begin, is_loop_end, loop, loop_unroll, max, min
from .matmul_ops import matmul
from .reduce_ops import amax, sum
from .view_ops import (assemble, atomic_add, deinterleave, gathermask, reshape, tensor, transpose,
                       view)

__all__ = [
    "abs", "add", "amax", "assemble", "atomic_add", "cast", "ceildiv", "cond", "deinterleave",
    "div", "exp", "experimental", "full", "gathermask", "is_loop_begin", "is_loop_end", "log",
    "loop", "loop_unroll", "matmul", "max", "maximum", "min", "minimum", "mul", "neg", "rdiv",
    "reciprocal", "relu", "reshape", "rsqrt", "rsub", "set_cube_tile_shapes", "set_pass_options",
    "set_semantic_label", "set_vec_tile_shapes", "sigmoid", "softmax", "sqrt", "sub", "sum",
    "tanh", "tensor", "transpose", "view",
]

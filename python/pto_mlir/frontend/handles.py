"""The values a kernel holds while it is traced: ``TensorHandle`` (a tensor
in global memory), ``Tile`` (a value-semantic tile), ``Condition`` (a
run-time boolean), with PyPTO's Tensor methods and operators, which record
the ops of frontend/ops.py."""

from __future__ import annotations

from . import dtypes as dt
from .graph import Value
from .symbolic import Scalar
from .trace_context import _error, current_tracer


def tensor_type(shape, dtype: dt.DataType) -> str:
    dims = "x".join("?" if d is None else str(d) for d in shape)
    return f"!pto.tensor<{dims}x{dtype.mlir}>" if shape else f"!pto.tensor<{dtype.mlir}>"


def tile_type(shape, dtype: dt.DataType) -> str:
    return f"!pto.tile<{'x'.join(str(d) for d in shape)}x{dtype.mlir}>"


class Shape(list):
    """``t.shape``: a list, as PyPTO's ``Tensor.shape`` returns
    (``shape(self) -> List[SymInt]``,
    https://github.com/hicann/pypto/blob/master/docs/api/tensor/pypto-Tensor-shape.md),
    so a kernel may change its copy (``shape[-1] //= 2``). Each access gives
    a fresh one. The front end's own code compares, hashes and concatenates
    shapes as tuples, which this list also does (equal to the tuple of its
    items, the same hash, ``+`` with a tuple, slices that are ``Shape``s)."""

    __slots__ = ()

    def __eq__(self, other):
        if isinstance(other, tuple):
            return tuple(self) == other
        return list.__eq__(self, other)

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self):
        return hash(tuple(self))

    def __getitem__(self, index):
        item = list.__getitem__(self, index)
        return Shape(item) if isinstance(index, slice) else item

    def __add__(self, other):
        if isinstance(other, tuple):
            return tuple(self) + other
        return Shape(list.__add__(self, other))

    def __radd__(self, other):
        if isinstance(other, tuple):
            return other + tuple(self)
        return NotImplemented


class _ValueMethods:
    """PyPTO's Tensor methods, on tiles and on GM tensors used as tiles."""

    @property
    def dim(self) -> int:
        """The rank, as PyPTO's ``Tensor.dim`` (hicann/pypto ``python/pypto/tensor.py``)."""
        return self.ndim

    def sum(self, dim, keepdim: bool = False):
        from . import ops
        return ops.sum(self, dim, keepdim)

    def amax(self, dim, keepdim: bool = False):
        from . import ops
        return ops.amax(self, dim, keepdim)

    def amin(self, dim, keepdim: bool = False):
        from .composed import amin
        return amin(self, dim, keepdim)

    def exp(self):
        from . import ops
        return ops.exp(self)

    def sqrt(self):
        from . import ops
        return ops.sqrt(self)

    def log(self):
        from . import ops
        return ops.log(self)

    def tanh(self):
        from . import ops
        return ops.tanh(self)

    def sigmoid(self):
        from . import ops
        return ops.sigmoid(self)

    def rsqrt(self):
        from . import ops
        return ops.rsqrt(self)

    def abs(self):
        from . import ops
        return ops.abs(self)

    def reshape(self, shape, *, valid_shape=None, inplace: bool = False):
        from . import ops
        return ops.reshape(self, shape, valid_shape=valid_shape, inplace=inplace)

    def transpose(self, dim0, dim1):
        from . import ops
        return ops.transpose(self, dim0, dim1)

    def unsqueeze(self, dim):
        from . import shape_ops
        return shape_ops.unsqueeze(self, dim)

    # PyPTO's Tensor comparison operators (DT_BOOL masks, masks.py); == and
    # != keep Python's identity meaning here.
    def __lt__(self, other):
        from . import masks
        return masks.lt(self, other)

    def __le__(self, other):
        from . import masks
        return masks.le(self, other)

    def __gt__(self, other):
        from . import masks
        return masks.gt(self, other)

    def __ge__(self, other):
        from . import masks
        return masks.ge(self, other)

    def cast(self, dtype, mode=None, satmode=None):
        from . import ops
        kwargs = {} if satmode is None else {"satmode": satmode}
        return ops.cast(self, dtype, **kwargs) if mode is None else \
            ops.cast(self, dtype, mode, **kwargs)


class TensorHandle(_ValueMethods):
    """A tensor in global memory: a kernel argument or an in-place reshape of
    one. ``shape`` has ints for static dims and symbolic scalars for dynamic
    ones; integer tensors can be indexed (``actual_q[b_idx]``)."""

    def __init__(self, tracer, value: Value, shape: tuple, dtype: dt.DataType, name: str,
                 dims=None):
        self._tracer = tracer
        self.value = value
        self.static_shape = tuple(shape)      # None for dynamic dims
        self.dtype = dtype
        self.name = name
        self._dims = dims                    # symbolic dims given by a reshape
        self.valid_shape = None              # reshape(..., valid_shape=): what views see

    @property
    def shape(self) -> "Shape":
        result = []
        for i, d in enumerate(self.static_shape):
            if d is not None:
                result.append(d)
            elif self._dims is not None and isinstance(self._dims[i], Scalar):
                result.append(self._dims[i])
            else:
                result.append(self._tracer.dim_scalar(self, i))
        return Shape(result)

    @property
    def ndim(self) -> int:
        return len(self.static_shape)

    def __getitem__(self, index):
        """``t[b]`` on an integer tensor reads a scalar; ``x[i:i + n, :]``
        is a view (static extents, possibly symbolic starts)."""
        from .subtensor import gm_subtensor, subtensor_prefix
        prefix = subtensor_prefix(index, self.ndim)
        if prefix:
            # x[b, n] / x[b, n, :, :] of a 4-D tensor: a GM sub-tensor, read
            # and written through.
            return gm_subtensor(self._tracer, self, prefix)
        if _has_slice(index):
            return self._tracer.slice_view(self, index)
        items = index if isinstance(index, tuple) else (index,)
        if len(items) < self.ndim:
            # x[b, n] of a 4-D tensor: a GM sub-tensor, read and written through.
            from .subtensor import gm_subtensor
            return gm_subtensor(self._tracer, self, items)
        return self._tracer.read(self, index)

    def at(self, offsets) -> list:
        """Offsets into this tensor as offsets into ``value`` (the same here;
        a GM sub-tensor shifts them to its window)."""
        return list(offsets)

    def __setitem__(self, index, value):
        """``dst[off:, 0:] = tile`` and ``dst[:] = expr`` assemble the value
        into the tensor at the slices' starts (PyPTO's ``t[:] = ...``)."""
        self._tracer.slice_assign(self, index, value)

    def move(self, src) -> None:
        """``dst.move(src)``: writes ``src`` over the whole tensor (an
        assemble at offset 0)."""
        self._tracer.slice_assign(self, slice(None), src, what=f"{self.name}.move(src)")

    # A GM tensor used as a tile operand is a view of the whole tensor.
    def __add__(self, other):
        from . import ops
        return ops.add(self, other)

    def __radd__(self, other):
        from . import ops
        return ops.add(self, other)

    def __sub__(self, other):
        from . import ops
        return ops.sub(self, other)

    def __rsub__(self, other):
        from . import ops
        return ops.rsub(self, other)

    def __mul__(self, other):
        from . import ops
        return ops.mul(self, other)

    def __rmul__(self, other):
        from . import ops
        return ops.mul(self, other)

    def __truediv__(self, other):
        from . import ops
        return ops.div(self, other)

    def __neg__(self):
        from . import ops
        return ops.neg(self)

    def __repr__(self) -> str:
        return f"Tensor('{self.name}': {self.value.type})"

    def __bool__(self):
        raise _error(f"a tensor ('{self.name}') has no truth value at trace time")


class Tile(_ValueMethods):
    """A value-semantic tile: the result of a view or a compute op."""

    def __init__(self, value: Value, shape: tuple, dtype: dt.DataType):
        self.value = value
        self.shape = shape
        self.dtype = dtype

    @property
    def shape(self) -> Shape:
        return Shape(self._shape)

    @shape.setter
    def shape(self, shape) -> None:
        self._shape = tuple(shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def valid_shape(self) -> list:
        """The run-time valid extent of each dim (``pto.valid_dim``)."""
        from . import shape_ops
        return shape_ops.valid_shape(self)

    def __add__(self, other):
        from . import ops
        return ops.add(self, other)

    def __sub__(self, other):
        from . import ops
        return ops.sub(self, other)

    def __mul__(self, other):
        from . import ops
        return ops.mul(self, other)

    def __truediv__(self, other):
        from . import ops
        return ops.div(self, other)

    def __neg__(self):
        from . import ops
        return ops.neg(self)

    def __radd__(self, other):
        from . import ops
        return ops.add(self, other)

    def __rmul__(self, other):
        from . import ops
        return ops.mul(self, other)

    def __getitem__(self, index):
        """``t[0:8, :]``: a view of part of the tile (static extents)."""
        items = index if isinstance(index, tuple) else (index,)
        if not _has_slice(index) and len(items) >= self.ndim:
            raise _error("index a tile with slices (`t[i:i + n, :]`, `t[:, k, :]`); scalar "
                         "element reads are not supported")
        return current_tracer("tile slicing").slice_view(self, index)

    def __setitem__(self, index, value):
        """``t[:] = v``: PyPTO's move (this Python object now holds ``v``);
        a partial index is an error (move.py)."""
        from .move import move_tile
        move_tile(current_tracer("tile assignment"), self, index, value)

    def __rsub__(self, other):
        """``1.0 - t``: a scalar minus a tile (PyPTO's reflected sub)."""
        from . import ops
        return ops.rsub(self, other)

    def __rtruediv__(self, other):
        """``1.0 / t``: a scalar divided by a tile (``reciprocal`` times it)."""
        from . import ops
        return ops.rdiv(self, other)

    def axpy_(self, other, alpha=1.0):
        """``t.axpy_(x, alpha)``: ``t = t + alpha * x`` in place (this Python
        object now holds the new value)."""
        from . import ops
        result = ops.add(self, ops.mul(other, alpha) if alpha != 1.0 else other)
        self.value, self.shape, self.dtype = result.value, result.shape, result.dtype
        return self

    def __bool__(self):
        raise _error("a tile has no truth value at trace time")

    def __repr__(self) -> str:
        return f"Tile({self.value.type})"


def _whole(index) -> bool:
    """True for ``[:]``, ``[...]`` and ``[:, :]``: the whole tensor."""
    items = index if isinstance(index, tuple) else (index,)
    return all(i is Ellipsis or (isinstance(i, slice) and i == slice(None)) for i in items)


def _has_slice(index) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return any(isinstance(i, slice) or i is Ellipsis for i in items)


class Condition:
    """A run-time boolean (``pypto.is_loop_begin(i)``): only a Python ``if``
    in a ``@jit`` kernel can branch on it, which becomes an ``scf.if``."""

    def __init__(self, value: Value, text: str):
        self.value = value
        self.text = text

    def __bool__(self):
        raise _error(f"{self.text} is a run-time condition: branch on it with a plain `if` "
                     f"statement in the @jit kernel's body or in a helper function of the "
                     f"kernel's file (or a @pypto.frontend.function), whose test may combine "
                     f"conditions with and/or/not; `c = a and b` / `not a` there make "
                     f"another run-time condition (not in a helper of another file, a "
                     f"`while`, an `assert`, or a conditional expression)")

    def __repr__(self) -> str:
        return f"Condition({self.text})"

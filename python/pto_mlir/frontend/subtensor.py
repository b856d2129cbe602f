"""GM sub-tensors: ``x[b, n]`` of a 4-D GM tensor, read and written through.

In PyPTO an integer index of a tensor is a view of it with the indexed dims
dropped (``hicann/pypto``, ``docs/api/tensor/pypto-Tensor-getitem.md``:
``a[1, 1:3]`` is ``view(a, [1, 2], [1, 1])`` reshaped to ``[2]``), and a
view of a GM tensor is GM: reading it later sees what was written since, and
writing it (``s[:] = tile``) writes the tensor.

Here ``x[i0, ..., ik]`` and ``x[i0, ..., ik, :, ...]`` (integers or symbolic
scalars on leading dims, the rest of the dims whole) are a ``SubTensor``:
the tensor reshaped in place (``pto.reshape ... inplace``) so that the
indexed dims merge with the first remaining one,
``[d0 * ... * dk * s, rest...]``, plus the row where the
window starts, ``((i0 * d1 + i1) ... + ik) * s``. Every view of it
(``pypto.view``, slices, its use as a tile) and every store into it
(``s[:] = t``, ``assemble``, ``atomic_add``) is an ordinary op on the
reshaped tensor at offsets shifted by that row, and views are clipped to the
window (its static shape), so no access leaves it through a view. Stores
must fit the window statically (a tile of static shape at static offsets).
"""

from __future__ import annotations

from .errors import TraceError
from .symbolic import Scalar
from .tracer import TensorHandle, user_location


def _error(message: str) -> TraceError:
    return TraceError(message, user_location())


class SubTensor(TensorHandle):
    """A window of a GM tensor whose leading dims were indexed with
    integers; ``value`` is the in-place reshape it lives in, ``origin`` the
    window's first row there (module docstring)."""

    def __init__(self, tracer, flat: TensorHandle, shape: tuple, origin, name: str):
        super().__init__(tracer, flat.value, shape, flat.dtype, name)
        self.origin = origin
        # Views of the window are clipped to it (the reshape-valid rule).
        self.valid_shape = list(shape)

    def at(self, offsets) -> list:
        """Window offsets as offsets into the reshaped tensor."""
        offsets = list(offsets)
        first = offsets[0]
        if isinstance(first, int) and isinstance(self.origin, int):
            offsets[0] = first + self.origin
        else:
            offsets[0] = Scalar.make("add", self.origin, first) if first != 0 else self.origin
        return offsets

    def __getitem__(self, index):
        if subtensor_prefix(index, self.ndim):
            raise _error(f"{self.name}[...]: integer indices of a GM sub-tensor (a sub-tensor "
                         f"of a sub-tensor) are not supported yet; index the original tensor "
                         f"with all the integer indices at once")
        return super().__getitem__(index)

    def check_store(self, tile_shape, offsets, what: str) -> None:
        """A store must stay inside the window (a view clips; a store into
        the reshaped tensor would not)."""
        for d, (size, off, extent) in enumerate(zip(tile_shape, offsets, self.static_shape)):
            if not isinstance(off, int) or isinstance(off, bool):
                raise _error(f"{what}: a store into the GM sub-tensor '{self.name}' at a "
                             f"run-time offset (dim {d}) is not supported yet: its bound "
                             f"cannot be checked against the window; store at a static "
                             f"offset or into the original tensor")
            if off + size > extent:
                raise _error(f"{what}: a {list(tile_shape)} tile at offset {list(offsets)} "
                             f"leaves the GM sub-tensor '{self.name}' {list(self.static_shape)} "
                             f"in dim {d} ({off} + {size} > {extent})")


def subtensor_prefix(index, rank: int) -> tuple:
    """The integer indices of ``x[index]`` when it is a GM sub-tensor: one
    or more ints / symbolic scalars on leading dims, fewer than ``rank``, then
    only whole-dim slices (``:``) or one ``...``; () otherwise."""
    items = index if isinstance(index, tuple) else (index,)
    prefix = []
    for item in items:
        if isinstance(item, slice) or item is Ellipsis:
            break
        prefix.append(item)
    rest = items[len(prefix):]
    whole = all(item is Ellipsis or item == slice(None) for item in rest) and \
        sum(item is Ellipsis for item in rest) <= 1
    if not prefix or not whole or len(prefix) >= rank or \
            len(prefix) + sum(item is not Ellipsis for item in rest) > rank:
        return ()
    return tuple(prefix)


def refuse(tensor, what: str) -> None:
    """Ops that address a tensor other than by views and stores at offsets
    (reshape, index_put) do not take a sub-tensor yet."""
    if isinstance(tensor, SubTensor):
        raise _error(f"{what} of the GM sub-tensor '{tensor.name}' is not supported yet; "
                     f"apply it to the original tensor")


def gm_subtensor(tracer, tensor: TensorHandle, items: tuple) -> SubTensor:
    """``tensor[i0, ..., ik]`` (k + 1 < rank): the window of the remaining
    dims (module docstring)."""
    from . import ops
    what = f"{tensor.name}[...]"
    tensor = tracer.use_tensor(tensor, what)
    for n, item in enumerate(items):
        if isinstance(item, bool) or not isinstance(item, (int, Scalar)):
            raise _error(f"{what}: index {n} is {item!r}; a GM sub-tensor takes ints or "
                         f"symbolic scalars on its leading dims")
        size = tensor.static_shape[n]
        if isinstance(item, int) and (item < 0 or (size is not None and item >= size)):
            raise _error(f"{what}: index {item} is out of range for dim {n} of size "
                         f"{'?' if size is None else size}")
    if tensor.valid_shape is not None:
        raise _error(f"{what}: a GM sub-tensor of a tensor reshaped with valid_shape= is not "
                     f"supported yet; view it with pypto.view(..., valid_shape=) instead")
    rest = tensor.static_shape[len(items):]
    if None in rest:
        raise _error(f"{what}: the GM sub-tensor keeps dynamic dims "
                     f"({['?' if d is None else d for d in rest]}); tile shapes are static, "
                     f"so only the indexed leading dims may be dynamic")
    shape = tensor.shape
    lead = shape[0]
    for d in shape[1:len(items)]:
        lead = lead * d
    flat = ops.reshape(tensor, [lead * rest[0], *rest[1:]], inplace=True)
    index = items[0]
    for item, size in zip(items[1:], shape[1:len(items)]):
        index = index * size + item
    origin = index * rest[0]
    return SubTensor(tracer, flat, tuple(rest), origin, f"{tensor.name}_sub")

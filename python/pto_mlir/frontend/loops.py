"""Loops, run-time conditions and symbolic-scalar helpers: ``pypto.loop``,
``loop_unroll``, ``is_loop_begin``, ``is_loop_end``, ``cond``, ``ceildiv``,
``min`` and ``max``."""

from __future__ import annotations

import re

from .op_support import _error, _is_int, _static_list
from .symbolic import Scalar
from .tracer import Condition, current_tracer


_IDX_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_$.]*$")


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
                  "submit_before_loop": submit and k == factors[0], "parallel": parallel,
                  "unrolled_path": len(factors) > 1}
        for index in _loop_body(tracer, fields, loc):
            yield index, k
        current = end

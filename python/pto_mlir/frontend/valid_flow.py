"""The valid shape a workspace move carries, along the kernel's control flow.

PyPTO's ``ws[:] = v`` is ``ws.move(v)``: the tensor takes ``v``'s logical
tensor, whose dynamic valid shape comes with it (hicann/pypto
``framework/src/interface/tensor/tensor.cpp``: ``TensorMove`` is ``dst =
std::move(src)``, and ``Tensor::AssignStorage`` gives ``dst`` the storage
of ``src``, the ``LogicalTensor`` whose ``dynValidShape_`` is declared in
``logical_tensor.h``). A later whole read of ``ws`` therefore has the valid
shape of the value last moved into it *on the path that reached the read*:
the previous iteration's move for a read at the top of a loop body (a
``dq_acc[:] = dq_acc + dq_tile`` accumulator), the move of whichever branch
ran for a read after a run-time ``if``, and never a move of the other branch.

The tracer records the two ends and leaves the path to this pass, run once
the kernel is traced:

- a whole move of a ``pto.workspace`` (``ws[:] = v``, same shape) records a
  ``MOVE_MARK`` op after its assemble;
- a whole view of a workspace without an explicit valid shape gets the
  placeholder ``MovedValid`` as its ``valid`` operands.

``resolve`` walks the kernel in program order with the valid extents of each
moved workspace (``None``: fully valid, never moved or moved a value known to
be whole): a mark becomes ``pto.valid_dim`` ops of the moved value; a
placeholder takes the extents reaching it; an ``scf.if`` whose branches leave
different extents yields them (its results are the extents after it); a
``pto.loop`` whose body moves a workspace from outside carries its extents as
``iter_args`` (initially those before the loop; the results are those after
it). So the extents are ordinary SSA values of the program and every stage
below the front end (verifier, ``pto-run``, tile graph, ISA, C++) sees only
``index`` values of loops and ``if``s.
"""

from __future__ import annotations

from .graph import Block, Op, Value, insert_op, walk_ops

MOVE_MARK = "frontend.moved_valid"

# Ops whose result is whole when their tile operands are.
_WHOLE_IF_OPERANDS = ("pto.add", "pto.sub", "pto.mul", "pto.div", "pto.max", "pto.min",
                      "pto.exp", "pto.neg", "pto.abs", "pto.sqrt", "pto.rsqrt",
                      "pto.reciprocal", "pto.log", "pto.tanh", "pto.cast", "pto.matmul",
                      "pto.sum", "pto.amax")


class MovedValid:
    """The ``valid`` operands of a whole view of ``workspace``: the extents
    of the value last moved into it on the path to the view."""

    __slots__ = ("workspace",)

    def __init__(self, workspace: Value):
        self.workspace = workspace


def _is_tile(value) -> bool:
    return isinstance(value, Value) and value.type.startswith("!pto.tile<")


def _static_dims(type_text: str) -> list:
    body = type_text[type_text.index("<") + 1:type_text.rindex(">")]
    return [int(d) if d.isdigit() else None for d in body.split("x")[:-1]]


def known_whole(value: Value, moved_whole=lambda workspace: False, depth: int = 0) -> bool:
    """True when ``value`` is a tile whose valid shape is its whole shape by
    construction (a full, a view of a static tensor inside its bounds, ops
    of such tiles). Only an economy: a move of such a tile carries nothing,
    so kernels whose moves are all whole keep loops without iter_args."""
    op = value.op
    if op is None or depth > 64:
        return False
    if op.kind == "pto.full":
        return True
    if op.kind == "pto.view":
        f = op.fields
        shape = _static_dims(value.type)
        if isinstance(f["valid"], MovedValid):
            return moved_whole(f["valid"].workspace)
        if isinstance(f["valid"], list):
            return all(isinstance(v, int) and v >= s for v, s in zip(f["valid"], shape))
        if f["valid"] is not None:
            return False
        source = f["source"]
        dims = _static_dims(source.type)
        if None in dims or not all(isinstance(o, int) for o in f["offsets"]):
            return False
        inside = all(o + s <= d for o, s, d in zip(f["offsets"], shape, dims))
        if not inside:
            return False
        return not _is_tile(source) or known_whole(source, moved_whole, depth + 1)
    if op.kind in _WHOLE_IF_OPERANDS:
        tiles = [v for v in op.operand_values() if _is_tile(v)]
        return bool(tiles) and all(known_whole(v, moved_whole, depth + 1) for v in tiles)
    return False


def record_move(tracer, workspace: Value, moved: Value, shape) -> None:
    """After ``ws[:] = v`` (the assemble just recorded): ``ws`` now has
    ``v``'s valid shape."""
    tracer.insert_op(Op(MOVE_MARK, {"workspace": workspace, "tile": moved,
                                    "shape": tuple(shape)}, (), "", tracer.location()))


class _Flow:
    def __init__(self, tracer):
        self.tracer = tracer
        self.shapes: dict = {}       # workspace -> static shape (from its marks)
        self.created: list = []      # the pto.valid_dim ops made from marks
        self.used: set = set()       # values a view, yield or init reads

    def full(self, workspace: Value) -> list:
        return [self.tracer.constant(s) for s in self.shapes[workspace]]

    def values(self, state: dict, workspace: Value) -> list:
        extents = state.get(workspace)
        if extents is None:
            return self.full(workspace)
        self.used.update(extents)
        return list(extents)

    def mark(self, block: Block, op: Op, state: dict) -> None:
        f = op.fields
        ws, tile = f["workspace"], f["tile"]
        self.shapes[ws] = f["shape"]
        at = block.ops.index(op)
        block.ops.pop(at)
        if known_whole(tile):
            state[ws] = None
            return
        extents = []
        for d in range(len(f["shape"])):
            dim = Op("pto.valid_dim", {"source": tile, "dim": d}, ["index"],
                     f"{ws.hint}_valid{d}", op.loc)
            insert_op(block, dim, at + d)
            self.created.append(dim)
            extents.append(dim.result)
        state[ws] = tuple(extents)

    def walk(self, block: Block, state: dict) -> None:
        for op in list(block.ops):
            kind = op.kind
            if kind == MOVE_MARK:
                self.mark(block, op, state)
            elif kind == "pto.workspace":
                state.pop(op.result, None)       # a fresh one: never moved into
            elif kind == "pto.view" and isinstance(op.fields["valid"], MovedValid):
                extents = state.get(op.fields["valid"].workspace)
                op.fields["valid"] = None if extents is None else list(extents)
                self.used.update(extents or ())
            elif kind == "pto.scope":
                self.walk(op.body, state)
            elif kind == "scf.if":
                self.branches(op, state)
            elif kind == "pto.loop":
                self.loop(op, state)

    @staticmethod
    def _outside(workspace: Value, op: Op) -> bool:
        return workspace.block is not None and workspace.block.is_ancestor_of(op.block)

    def _results(self, op: Op, workspace: Value) -> tuple:
        results = []
        for d in range(len(self.shapes[workspace])):
            result = Value("index", f"{workspace.hint}_valid{d}", op=op, block=op.block)
            op.results.append(result)
            results.append(result)
        return tuple(results)

    def branches(self, op: Op, state: dict) -> None:
        """The extents after the ``if``: the same on both paths, or the
        ``if``'s results, each branch yielding its own."""
        then_state, else_state = dict(state), dict(state)
        self.walk(op.body, then_state)
        self.walk(op.else_body, else_state)
        for ws in dict.fromkeys([*then_state, *else_state]):
            if not self._outside(ws, op):
                continue
            then_extents, else_extents = then_state.get(ws), else_state.get(ws)
            if then_extents == else_extents:
                state[ws] = then_extents
                continue
            op.fields.setdefault("then_yield", []).extend(self.values(then_state, ws))
            op.fields.setdefault("else_yield", []).extend(self.values(else_state, ws))
            state[ws] = self._results(op, ws)

    def loop(self, op: Op, state: dict) -> None:
        """A workspace from outside moved in the body has, at the top of an
        iteration, the extents the previous one left (iter_args), unless it
        is whole before the loop and every move in it is of a whole value."""
        marks = [inner for inner in walk_ops(op.body) if inner.kind == MOVE_MARK]
        for mark in marks:
            self.shapes[mark.fields["workspace"]] = mark.fields["shape"]
        # Optimistic fixpoint: a whole read of a workspace is whole unless
        # the workspace is partial before the loop or gets a partial move.
        partial = {ws for ws in (m.fields["workspace"] for m in marks)
                   if state.get(ws) is not None}
        changed = True
        while changed:
            changed = False
            for mark in marks:
                ws = mark.fields["workspace"]
                if ws not in partial and not known_whole(
                        mark.fields["tile"],
                        lambda w: w not in partial and state.get(w) is None):
                    partial.add(ws)
                    changed = True
        carried = [ws for ws in dict.fromkeys(m.fields["workspace"] for m in marks)
                   if ws in partial and self._outside(ws, op)]
        if not carried:
            self.walk(op.body, state)
            return
        inits = op.fields.setdefault("inits", [])
        body_state = dict(state)
        for ws in carried:
            inits += self.values(state, ws)
            args = []
            for d in range(len(self.shapes[ws])):
                arg = Value("index", f"{ws.hint}_valid{d}", block=op.body)
                op.body.args.append(arg)
                args.append(arg)
            body_state[ws] = tuple(args)
        self.walk(op.body, body_state)
        yields = op.fields.setdefault("yields", [])
        for ws in carried:
            yields += self.values(body_state, ws)
            state[ws] = self._results(op, ws)


def resolve(tracer) -> None:
    """Resolves the marks and placeholders of ``tracer``'s kernel (see the
    module docstring); the extents nothing reads are dropped."""
    flow = _Flow(tracer)
    flow.walk(tracer.kernel_body, {})
    for dim in flow.created:
        if dim.result not in flow.used:
            dim.block.ops.remove(dim)

//===- Passes.td - pto_isa passes --------------------------*- tablegen -*-===//
#ifndef PTOISA_TRANSFORMS_PASSES_TD
#define PTOISA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RollPiecesPass : Pass<"pto-isa-roll-pieces"> {
  let summary = "Rolls repeated piece sequences of a leaf into scf.for loops";
  let description = [{
    `pto-expand-tiles` cuts ops into pieces and `pto-lower-to-isa` lowers
    each piece into the same instruction sequence, so a leaf holds K copies
    of one group of ops that differ only in scalars (GM offsets and valid
    extents, often leaf arguments). In every function holding `pto_isa`
    instructions, the pass replaces each such run of K groups in a block by
    `scf.for %i = 0 to K step 1` whose body is the first group, then looks
    again in the block and in the new loop bodies (a grid of pieces gives
    nested loops):

    * groups are found by signature (op name, attributes, result types):
      the candidate periods are the distances between consecutive ops of
      equal signature, and one linear scan per period finds where op n and
      op n + period agree. Each such stretch is tried from its first ops,
      from the phase whose last group ends where the stretch ends, and each
      of these one group later: a first piece that also loads tiles the
      later pieces reuse is longer than they are, so the stretch may start
      inside it or one period before the second piece. The candidate saving
      the most ops that passes the exact check is rolled;
    * exact check, op by op against the first group: the same op (name,
      attributes, properties, result types); each operand is the value
      defined at the same place of its own group, or one value from before
      the run (or the same side-effect-free computation, e.g. `pto.dim`),
      or a scalar (index, integer, float) from before the run that differs
      per group. Tiles and tensors never differ. No value of the run is used
      after it or by a later group;
    * a scalar that differs per group is `base + %i * step` when the groups
      use integer constants in arithmetic progression, else element `%i` of
      a `tensor.from_elements` built before the loop (`tensor.extract`; the
      C++ emitter prints a local array);
    * only groups holding a `pto_isa` instruction, and runs that save at
      least `min-saved-ops` ops, are rolled; a run is not rolled when the
      tiles its groups read from before it (live across the whole loop)
      plus the peak of one group's own tiles exceed a buffer's capacity
      (straight-line, `pto-isa-plan-memory` may reload such tiles instead);
    * groups holding L0C tiles of at most half of L0C (an accumulator that
      is not all of it) are rolled two per iteration, an odd last group
      staying after the loop, and runs of fewer than four such groups stay
      straight-line. The body then holds two accumulators, which
      `pto-isa-plan-memory` places at two offsets, so the store of one
      overlaps the matmul of the other, within an iteration and across
      (ping-pong on the iteration parity; `pto-isa-insert-sync` gives each
      half its own loop-carried flag). Each half of such a body is rolled
      further on its own, never the two together.

    Each iteration executes the ops of one group in their order, so the
    instructions, their operands and their order are those of the input.
    Run it before `pto-isa-plan-memory` (a tile of the body has one offset
    in every iteration) and `pto-isa-insert-sync` (which synchronises the
    loop: loop-carried flags primed before it, drained after it).

    The pass reads and writes each function on its own, so it runs on any
    op: on a module it takes every function in it, and the Ascend pipeline
    nests it on `func.func`, where it runs on one leaf at a time.
  }];
  let options = [
    Option<"minSavedOps", "min-saved-ops", "unsigned", /*default=*/"8",
           "Roll only runs that save at least this many ops">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def PlanMemoryPass : Pass<"pto-isa-plan-memory"> {
  let summary = "Places every pto_isa tile in its on-chip buffer (TASSIGN offsets)";
  let description = [{
    For every function holding `pto_isa.alloc_tile`s, sets `at` (the byte
    offset `TASSIGN` binds) on each of them, per memory space (ub, l1, l0a,
    l0b, l0c), against the capacity of the function's architecture
    (`pto::getArchFor`, the platform table):

    - live range of a tile: from its first use to its last use; a use inside
      a region (an `scf.for` body, ...) counts as a use of the whole region
      op in the alloc's block, so a tile read in a loop is live across it;
    - placement: in program order of first use, first fit by offset,
      aligned to `PlatformInfo::bufferAlignBytes`; tiles whose live ranges
      are disjoint share bytes (buffer reuse). Offsets already present are
      replaced;
    - L0C ping-pong: an L0C tile avoids the bytes of the L0C tile that died
      last when it fits elsewhere, so consecutive accumulators alternate
      between offsets and a `TMATMUL` need not wait for the previous
      accumulator's `TSTORE` (FIX overlaps M). Dropped when that alone
      makes L0C overflow;
    - only when a space overflows so: in-place reuse, where the destination
      of an elementwise instruction takes the bytes of a source of the same
      tile type that dies at that instruction;
    - only when L1 still overflows: L1 tiles that one `tload` fills from a
      GM tensor the function does not write, and that are only read
      afterwards, are dropped between reads and loaded again (a clone of
      their alloc and `tload`) before the later read, the one read again
      furthest ahead first, until the live bytes fit;
    - DAV_2201 keeps UB `[184 KiB, 192 KiB)` free by default
      (`reserve-ub-scratch`): pto-isa's A2/A3 mode-1 row-broadcast ops
      without a tmp tile and some TCVT paths use it as implicit scratch
      (docs/AscendTarget.md#on-chip-buffers). pto-lower-to-isa emits mode-2 row broadcasts
      only, but TCVT f32 -> bf16 is on the list of uncertain users.

    A function whose tiles do not fit gets an error naming the function, the
    space, the bytes needed and the capacity, the tiles live at the peak
    (type and bytes, with a note at each alloc) and the fix. With `report`,
    each planned function gets a remark with the peak live bytes and the
    bytes used per space.

    Functions are planned one by one and each on its own: the pass runs on
    any op (on a module, every function in it; the Ascend pipeline nests it
    on `func.func`).
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark per function with peak and used bytes per space">,
    Option<"reserveUbScratch", "reserve-ub-scratch", "bool", /*default=*/"true",
           "Keep the architecture's implicit UB scratch area free">,
  ];
}

def SplitMixPass : Pass<"pto-isa-split-mix", "::mlir::ModuleOp"> {
  let summary = "Splits each MIX leaf into its AIC part and its AIV part";
  let description = [{
    A MIX leaf (`pto.leaf = #pto.core<mix>`, DAV_3510) lowered by
    `pto-lower-to-isa` holds cube instructions, vector instructions and the
    L0C -> UB `tmov`s that hand accumulators to the vector part. This pass,
    run after `pto-isa-plan-memory` (one plan gives both parts the same UB
    offsets for the moved tiles) and before `pto-isa-insert-sync`:

    * keeps the cube instructions and the `tmov`s in the leaf (the AIC's
      code) and moves the vector instructions into a new vector leaf
      `@<leaf>_aiv` with the same arguments (`pto.mix_aic = @<leaf>`; the
      leaf gets `pto.mix_aiv = @<leaf>_aiv`); index arithmetic and tiles go
      with the instructions that use them;
    * after the k-th `tmov` (in program order) puts
      `pto_isa.set_intra_block FIX, k` (FIX runs in order, so it fires once
      the move has completed), and in the AIV part
      `pto_isa.wait_intra_block S, k` right before the first op that reads
      the moved tile (the scalar unit waits, so every later instruction of
      the AIV is ordered after the move). Each flag is set and waited once:
      at most 16 moves per leaf (AIV 0's flag ids), an error otherwise.

    The vector part is divided between AIV 0 and AIV 1 by the
    `pto_isa.subblock` of the UB tiles each instruction touches (set by
    `pto-lower-to-isa`; unmarked groups of instructions sharing tiles run on
    AIV 0): AIV 1's instructions go to `@<leaf>_aiv1` (`pto.mix_aiv1` on the
    leaf), each AIV has its own ring slots and flags, and the AIC sets and
    waits AIV 1's flags as id + 16 (pto-isa A5 TSync.hpp). With no
    AIV 1 work the emitted AIV kernel returns at once on AIV 1. Tiles of
    both AIVs in one instruction group, a `tmov` into AIV 1's UB, a `tmov` inside a
    region, a region op holding both cube and vector instructions, and a
    vector instruction writing what a cube instruction reads (the AIC never
    waits for the AIV) are errors.
  }];
}

def InsertSyncPass : Pass<"pto-isa-insert-sync"> {
  let summary = "Inserts set_flag/wait_flag and pipe barriers for every hazard";
  let description = [{
    Orders the pto_isa instructions of every function that holds some (leaf
    kernels, before or after `pto-isa-plan-memory`) under this model, which
    the host emulation's hazard checker implements too:

    * each pipe executes its instructions in issue order; instructions on
      different pipes run concurrently unless a flag orders them:
      `set_flag Q -> P, id` fires once everything issued on Q so far has
      completed (and carries what Q itself had waited for), `wait_flag`
      holds P until then;
    * on the vector pipe a dependent instruction also needs
      `pipe_barrier V` after the earlier one; `pipe_barrier ALL` orders
      everything issued before it before everything after it;
    * an instruction reads the operands marked MemRead and writes the one
      marked MemWrite. A planned tile occupies `[at, at + bytes)` of its
      space (allocs that share bytes conflict); before planning every
      `alloc_tile` is its own buffer; a tile of unknown origin, or a planned
      tile beside an unplanned one in the same space, conflicts with the
      whole space. GM tensors conflict when they are the same tensor after
      looking through `pto.reshape`, unless both windows are constant on
      the same tensor value and disjoint.

    Every RAW, WAR and WAW pair on different pipes gets a flag, set right
    after the earlier instruction and waited right before the later one;
    same-pipe pairs on V get `pipe_barrier V`. A flag is omitted when the
    later pipe already waited, possibly through a chain of earlier flags,
    for a point after the earlier instruction, and one flag from Q covers
    every hazard of the later instruction with Q's instructions up to the
    set.

    Control flow (`scf.if`, `scf.for`). A flag is placed in the block that
    issued the earlier access: set right after it (or right after the region
    op holding it) and waited right before the later instruction or, when
    that sits inside a region op, right before that op. So flags pair up
    inside one block on every path. The exception is the loop-carried hazard
    of `scf.for` (an access of iteration i against an earlier-placed access
    of iteration i + 1, e.g. a load overwriting a buffer the vector pipe read
    in the previous iteration): its flag is set after the access in the body
    and waited before the conflicting one, primed by a `set_flag` before the
    loop and drained by a `wait_flag` after it (double buffering,
    docs/AscendTarget.md#synchronisation), which also holds for a loop that runs zero
    times. Same-pipe V hazards get `pipe_barrier V` right before the later
    instruction, wherever it is. Other region ops (`scf.while`, ...) get
    `pipe_barrier ALL` before them, at the start of each of their blocks and
    after them; a call gets `pipe_barrier ALL` before and after it (the
    callee is synchronised on its own).

    Event ids: a flag takes the lowest id of 0..7 whose triple
    (src, dst, id) is free over the flag's whole interval, counting the
    triples used inside any region op the interval spans and the intervals
    of enclosing blocks that span it; a loop-carried flag holds its triple
    over the whole loop. When all eight are in flight the set moves later,
    right after the wait of an in-flight flag of the pair; when that cannot
    help either, `pipe_barrier ALL` replaces the flag. A triple is never set
    twice without a wait in between, and no flag is pending at the end of
    the function.

    The pass owns synchronisation: `set_flag`, `wait_flag` and
    `pipe_barrier` ops already present are removed and recomputed, so the
    pass is idempotent. `pto-isa-verify-sync` checks the result.

    Functions are synchronised one by one and each on its own: the pass runs
    on any op (on a module, every function in it). `mix-leaves` picks the
    functions: `all`; `skip` leaves MIX leaves (`pto.leaf = #pto.core<mix>`)
    and their AIV parts (`pto.mix_aic`) alone, for a run before
    `pto-isa-split-mix`; `only` synchronises just those, after it, without
    reading the other functions. The Ascend pipeline nests the `skip` run on
    `func.func`, right after each leaf's memory plan, and runs `only` on the
    module after the split.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark per function with the number of flags (and of "
           "loop-carried ones), barriers and hazards resolved">,
    Option<"mixLeaves", "mix-leaves", "std::string", /*default=*/"\"all\"",
           "Which functions: all; skip (not MIX leaves and their AIV parts, "
           "before pto-isa-split-mix); only (those alone, after it)">,
  ];
  let dependentDialects = ["::mlir::ptoisa::PTOISADialect"];
}

def VerifySyncPass : Pass<"pto-isa-verify-sync", "::mlir::ModuleOp"> {
  let summary = "Checks the synchronisation of pto_isa functions by simulation";
  let description = [{
    An independent checker for `pto-isa-insert-sync` (it shares only the
    buffer model: what an instruction reads and writes and which buffers
    overlap). It executes every function symbolically with the emulator's
    vector clocks on every path: both sides of each `scf.if`, zero to three
    iterations of each `scf.for` (or the constant trip count when it is
    smaller) and of each `scf.while`, and reports

    * a `set_flag` of a triple that is still pending,
    * a `wait_flag` without a pending `set_flag` of its triple,
    * a flag still pending at the end of the function,
    * a pair of conflicting instructions (RAW, WAR, WAW) on different pipes
      that no chain of flags orders, or on the vector pipe without a
      `pipe_barrier V` (or ALL) in between.

    Other region ops are not simulated (an error names them). The pass
    fails on the first function with an error.
  }];
  let options = [
    Option<"maxPaths", "max-paths", "unsigned", /*default=*/"4096",
           "Give up (with an error) when a function has more paths than this">,
  ];
}

#endif // PTOISA_TRANSFORMS_PASSES_TD

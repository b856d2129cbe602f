//===- Passes.td - pto passes ------------------------------*- tablegen -*-===//
#ifndef PTO_TRANSFORMS_PASSES_TD
#define PTO_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TestValidShapePass : Pass<"pto-test-valid-shape"> {
  let summary = "Reifies the valid shape of every tile value (test pass)";
  let description = [{
    For every op producing a `!pto.tile`, reifies the valid extents of each
    tile result through `ValidShapeInferenceOpInterface`, materialising the
    `arith` ops right after the op, and emits a remark spelling the extents
    symbolically (`min(max(a_s1 - 0, 0), 2048)` style: kernel arguments and
    loop indices by name, other values by their defining op). Lets lit tests
    pin down every valid-shape rule.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def SummaryPass : Pass<"pto-summary", "::mlir::ModuleOp"> {
  let summary = "Prints what each pto.kernel contains";
  let description = [{
    A read-only report, one block per `pto.kernel`: architecture and options,
    arguments, the loop nest (names and index names), views (and how many
    carry a valid shape), matmuls with their cube tiles, vector ops, casts by
    dtype pair, scopes with their op counts and core kind, scalar reads and
    atomic adds with their destinations. The IR is left unchanged. Written to
    stdout, or to the file given by `output`.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the summary ('-' = stdout)">
  ];
}

def CheckSkeletonPass : Pass<"pto-check-skeleton", "::mlir::ModuleOp"> {
  let summary = "Checks every pto.kernel against a skeleton's coding rules (SK-16)";
  let description = [{
    Conformance checker for the rules that make a skeleton fast and correct.
    `skeleton=sk16` (the only skeleton so far, and the default) checks the
    14 SK-16 coding rules of docs/SK16.md#coding-rules plus docs/SK16.md#cross-attention-reshape.
    Every finding names the rule, points at the op (with a note at the
    related op) and says the fix:

    ```
    k.mlir:98:18: error: [SK16-R9] pto.div uses HIGH_PRECISION, which DAV_2201
      does not support; fix: set precision = #pto.precision<INTRINSIC> ...
    k.mlir:88:16: note: ...
    ```

    Rules (`SK16-SIG` first checks the signature, docs/SK16.md#signature, by
    argument name; the kernel's structure is recognised semantically: Q·Kᵀ is
    the matmul of a view of `q` and a view of `k`, loop levels are found from
    the loop indices feeding the view offsets). Each rule states a property
    of the computation, not of its spelling:

    * offsets, extents, strides and row counts are compared by value: each
      index value is normalised to a polynomial over kernel arguments, loop
      indices, `pto.dim` sizes and `pto.read` values (constants fold, sums and
      products commute and distribute, divisions of exact multiples cancel),
      so `D·n` and `n·D`, a hoisted or re-materialised `D`, `n·64 + n·64` and
      a `pto.dim` of a reshape (its given size) compare equal; column offsets
      identify loops by their bounds and step, so a second nest with other
      loop names covers the same heads;
    * tiles are traced to their producers through vector ops, casts, views
      of tiles, GM workspaces (a view of a `pto.workspace` reads the tiles
      stored into it) and scope results, so a mask or a zero reaches a tile
      however it is copied; tensors through in-place reshapes to the kernel
      argument.

    | id | severity | semantic claim checked |
    |---|---|---|
    | SK16-R1 | error | every Q/O/dO and K/V tile of one head is swept by one loop nest only (single pass); dP, the C2 matmuls and the dq/dk/dv writes happen in the s2 loop that computes Q·Kᵀ |
    | SK16-R2 | error | Q·Kᵀ of a (q columns, k columns) pair is computed once per (s1, s2) block pair, whichever views, reshapes or index arithmetic name those columns |
    | SK16-R3 | error | the row maximum and softmax denominator of the scores come from `m_input`/`l_input`: no amax, or sum over exp, of the scores (or of a view or cast of them) when the input statistics are broadcast against them, and both inputs are applied to the scores |
    | SK16-R4 | error | batch, head, s1 and s2 are four distinct dynamic `pto.loop`s, none missing, replicated, fused or an scf.for |
    | SK16-R5 | error | dq, dk, dv only accumulate (`atomic_add`) into host-zeroed outputs: no assemble, no constant tile written (through casts or views), no read-back |
    | SK16-R6 | error | tails come only from the views' valid shapes: no tile chosen by a run-time condition, no elementwise op with a constant tile (through casts, views and scopes), no score tile combined with a tile of a tensor outside the signature; a view moving with a dynamic loop, affinely, has a valid extent on that dim |
    | SK16-R7 | error | the scores and the dQ/dK products are scaled by a compile-time scalar: no multiply or divide by a run-time scalar or by a tensor tile |
    | SK16-R8 | error | tile configs are compile-time constants and consistent: vec_tile on every vector op, fitting UB; trip counts divide by a constant; each offset advances per iteration (its coefficient of the loop index times the loop step) by exactly the tile extent |
    | SK16-R9 | error on DAV_2201, else warning | pto.div uses INTRINSIC |
    | SK16-R10 | error | the 3-D inputs are used only through in-place [total, N·D] / [total, N] aliases made at kernel entry (possibly in several in-place steps: the alias the kernel uses is judged) |
    | SK16-R11 | error (warning: rounding mode) | dS and P are cast to BF16 (RINT) before the C2 matmuls; matmuls take BF16 operands (or FP16 throughout: the FP16 variant, docs/SK16.md#fp16-variant) |
    | SK16-R12 | error | V1 in scope 1, V2 in scope 2, scope 1 closed before V2, no matmul in a scope on DAV_2201; on architectures with mixed scopes V1 and V2 may instead share Q·Kᵀ's one cube+vector MIX scope (docs/SK16.md#the-950-variant) |
    | SK16-R13 | error if false, warning if absent | `combine_axis = true` |
    | SK16-R14 | warning | mandated runtime and pass options (A3 values on DAV_2201, the 950 kernel's on DAV_3510), stating the recommended value |
    | SK16-P8.1 | error | the row count of a K/V-side reshape (k, v; dk, dv) is computed from no Q-side tensor's rows (q, o, do, l_input, m_input, dq), and vice versa (docs/SK16.md#cross-attention-reshape) |

    One finding per violation: an offset shared by several views is reported
    once, at the first view it places.

    Tile configs that do not fit the architecture (cube tile capacity and
    alignment, vector tile alignment, the reduction tile limit) and
    HIGH_PRECISION on DAV_2201 are rejected by the op verifiers, so such IR
    never reaches this pass; SK16-R8 checks presence, constness, UB fit of
    the clamped vector tile and stride consistency.

    The pass fails if an error-severity rule fires; warnings alone do not
    fail it. The IR is left unchanged. It checks program-level IR; scopes
    may be `pto.scope` regions or, after `pto-flatten-scopes`, per-op
    `pto.scope` stamps.

    Invocation: `--pto-check-skeleton=sk16` (a bare word names the
    skeleton), `--pto-check-skeleton="skeleton=sk16 json=out.json"`, or
    `--pass-pipeline="builtin.module(pto-check-skeleton{skeleton=sk16})"`.
    `json` writes the diagnostics as a JSON array of `{rule, severity, file,
    line, column, message, fix, notes}` (`-` = stdout; combine with
    `-o /dev/null`). With `-split-input-file` each chunk rewrites the file.
  }];
  let options = [
    Option<"skeleton", "skeleton", "std::string", /*default=*/"\"sk16\"",
           "The skeleton whose rules to check (sk16)">,
    Option<"json", "json", "std::string", /*default=*/"\"\"",
           "Also write the diagnostics as JSON to this file ('-' = stdout)">
  ];
}

def LintPass : Pass<"pto-lint", "::mlir::ModuleOp"> {
  let summary = "Checks every pto.kernel against the rules that hold for any kernel";
  let description = [{
    The skeleton-independent subset of the conformance rules, with the same
    diagnostic format (`[LINT-...] message; fix: ...`, notes at related ops):

    | id | severity | rule |
    |---|---|---|
    | LINT-MASK | error | manual masks: arith.select or scf.if producing a tile (branches on pto.is_loop_begin/is_loop_end are allowed), an elementwise op with a pto.full tile operand |
    | LINT-STATIC-LOOP | error | a loop other than pto.loop (scf.for, ...) around pto ops: statically replicated by tracing |
    | LINT-REPLICATED | warning | views of one tensor repeating each other up to constant offset shifts: a loop level written out by hand |
    | LINT-TILE-CONFIG | error | vector ops without vec_tile (except a pto.full that only initialises loop-carried accumulators), a clamped vector tile over UB, run-time tile sizes in trip counts or offset strides, offsets not advancing by the tile extent |
    | LINT-TAIL-VALID | error (varlen) / warning | a view moving with a loop of dynamic trip count without an explicit valid extent on that dim; an error when the offset is read from a tensor (varlen) |
    | LINT-RECOMPUTED-STATS | error | amax, or sum over exp, of a matmul's scores when [M, 1] views of kernel inputs are already broadcast against them |
    | LINT-SCOPE-PURITY | error / warning | a scope mixing cube and vector ops on DAV_2201 (error; also a verifier error); a pto.reshape inside a scope (warning) |

    The pass fails if an error-severity rule fires. `json` as for
    `pto-check-skeleton`.
  }];
  let options = [
    Option<"json", "json", "std::string", /*default=*/"\"\"",
           "Also write the diagnostics as JSON to this file ('-' = stdout)">
  ];
}

def LegalizePass : Pass<"pto-legalize"> {
  let summary = "Rewrites what PyPTO legalizes into what the target supports";
  let description = [{
    The op verifiers accept some forms that PyPTO compiles by rewriting them;
    this pass does the same rewrites, so that every later pass sees only
    forms the architecture runs, and says what it did in a remark at the op
    (docs/Legalization.md lists the rules and their public sources):

    - elementwise arithmetic on bf16 where the vector unit has none
      (DAV_2201): the bf16 operands are widened with `pto.cast` (exact), the
      op computes in f32 and its result is rounded back to bf16 (`pto.cast`,
      RINT), as PyPTO's AutoCast pass does;
    - `precision = HIGH_PRECISION` on `pto.div` / `pto.exp` where the
      architecture has no high-precision mode (DAV_2201, whose PyPTO `div`
      has no precision choice): INTRINSIC;
    - a `sum`/`amax` vector tile over the reduction tile limit (64 KiB):
      its outer dims are halved until it fits (the pieces' partial results
      are combined by `pto-expand-tiles` as for any tiled reduction);
    - a vector tile whose last dim is not 32-byte aligned but covers the
      op's whole last dim (an f32 `[N, 1]` column): the last dim is padded to
      one 32-byte block, which is what the UB row holds anyway;

    (`unroll_list` on a loop that is not innermost needs no rewrite: the
    verifier accepts it, nothing here unrolls.) What PyPTO rejects stays a
    verifier error (a reduction whose last dim
    alone is over 64 KiB, a vector tile splitting a dim at an unaligned
    size). The pass is idempotent; `pto-run` runs it after verification, and
    it is the first pass of `--pto-tile-graph-pipeline`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numWidened", "widened-ops", "bf16 ops computed in f32">,
    Statistic<"numPrecision", "precision-changed", "HIGH_PRECISION made INTRINSIC">,
    Statistic<"numRetiled", "retiled-reductions", "reduction vector tiles shrunk">,
    Statistic<"numPadded", "padded-vec-tiles", "vector tiles padded to 32 B">
  ];
}

def FlattenScopesPass : Pass<"pto-flatten-scopes"> {
  let summary = "Dissolves pto.scope regions into per-op scope stamps";
  let description = [{
    PyPTO stamps every op recorded under `sg_set_scope` with the scope
    (docs/PyPTOModel.md#scopes-and-merge-settings). This pass does the same: each op inside a
    `pto.scope` region moves in front of the region and carries the
    discardable attribute `pto.scope = #pto.scope<...>`; uses of the scope's
    results use the yielded values. The tile-graph passes read the stamps:
    expansion copies them onto the tile ops it creates, partitioning groups
    by them.
  }];
}

def ExpandTilesPass : Pass<"pto-expand-tiles"> {
  let summary = "Expands program-level tile ops into hardware-sized tile ops";
  let description = [{
    Rewrites each matmul by its `cube_tile` (one `mL0 x nL0` output block per
    piece, K stepped by `kL0` through `pto.matmul` / `pto.matmul_acc`) and each
    vector op by its `vec_tile` (clamped to the shape; a static tail gets a
    smaller static tile; reductions step the reduced dim and combine the
    partial results). Every program-level intermediate tile is stored in a
    `pto.workspace` piece by piece (`pto.assemble` at static offsets); its
    consumers read pieces with `pto.view`s whose explicit valid extents are
    `max(valid - offset, 0)` of the reified valid shape, so dynamic valid
    extents flow through unchanged. A piece of a view of a GM tensor is one
    view of that tensor (offsets composed); a piece of any other tile is a
    view of the tile, whose valid extents the view rule derives at run time.
    A matmul result whose only use is a plain `assemble` in the same block
    gets no workspace: each output block is assembled into the destination
    at the composed offsets, where the assemble was (so the cube task stores
    it and no vector task copies it).
    Stores (`atomic_add`, `assemble`) are split along the pieces their source
    was computed in (so partitioning can forward them), otherwise by their
    own `vec_tile`. A vector tile whose piece (operands + result) does not
    fit the unified buffer is halved along its outer dims until it does.
    The ops of one scope connected by data edges in one block become one
    vector task whose leaf keeps several pieces in UB at once: their vector
    tile is halved together until the pieces live at once (first to last
    use in program order, plus a reduction's scratch) fit UB less the
    architecture's implicit scratch (SK-16's V1 at the A3 config: 64 -> 32
    rows).
    Scope stamps (`pto-flatten-scopes`) are copied onto every new op.
    Run `pto-flatten-scopes` first.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numMatmulPieces", "matmul-pieces", "Cube ops created (matmul and matmul_acc)">,
    Statistic<"numVectorPieces", "vector-pieces", "Vector tile ops created">,
    Statistic<"numWorkspaces", "workspaces", "Workspace tensors created">,
    Statistic<"numRetiled", "retiled-vector-ops", "Vector ops whose tile was halved to fit UB">
  ];
}

def PartitionPass : Pass<"pto-partition"> {
  let summary = "Groups tile ops into cube and vector tasks";
  let description = [{
    Forms `pto.task` regions following PyPTO's GraphPartition semantics
    (docs/PyPTOModel.md#scopes-and-merge-settings, docs/PyPTOModel.md#partitioning): ops of one scope id merge along data edges
    (all of them with `allow_parallel_merge`), unscoped ops of one core kind
    merge along data edges and are absorbed into an adjacent scope with
    `allow_cross_scope_merge`, different scope ids never merge, cube and
    vector ops never share a task on DAV_2201 (one MIX task on DAV_3510
    when a scope mixes them), and no merge creates a cycle. Data edges are
    SSA uses and workspace pieces (an `assemble` and a `view` of overlapping
    static regions of one workspace). Views of GM are copied into every task
    that reads them. A workspace round trip inside one task (a piece
    assembled and read back by the same task) is forwarded and dead
    workspaces are removed, so what remains in GM is exactly the data cube
    and vector tasks exchange. Families are named by core kind and stage:
    SK-16 comes out as C1, V1, C2, V2.
  }];
  let statistics = [
    Statistic<"numCubeTasks", "cube-tasks", "Cube tasks formed">,
    Statistic<"numVectorTasks", "vector-tasks", "Vector tasks formed">,
    Statistic<"numMixTasks", "mix-tasks", "MIX tasks formed (DAV_3510)">,
    Statistic<"numForwarded", "forwarded-pieces", "Workspace round trips forwarded inside a task">,
    Statistic<"numWorkspacesLeft", "workspaces-left", "Workspaces left between tasks">
  ];
}

def NBufferMergePass : Pass<"pto-nbuffer-merge"> {
  let summary = "Merges N isomorphic vector tasks into one bigger task (vec_nbuffer_setting)";
  let description = [{
    PyPTO's NBufferMerge (docs/PyPTOModel.md#merging-passes), on partitioned IR
    (docs/TileGraph.md): fewer, bigger vector tasks, so that a call task's
    fixed dispatch cost is paid once for N pieces of work and one core
    streams them back to back.

    In every block, the vector tasks form isomorphism groups (bodies equal
    up to offsets and valid extents, as in `pto-l1-reuse`), numbered 0, 1,
    ... in order of first appearance. The merge count N of group k is
    `vec_nbuffer_setting` of the kernel's `pass_options`: key k, else key
    -1 (key -2, PyPTO's switch for multi-input/output merging, changes
    nothing here: any task may have several inputs and outputs). N = 1
    leaves the group alone, so `{-1 : 1}` switches the pass off. Without a
    value (PyPTO's `{}`, "automatic, by vector core count") N is
    floor(group size / vector cores): every vector core still gets a task
    of the group, so groups no larger than the core count stay as they are.

    Visiting a group's tasks in order, a task joins the earliest merge
    target that holds fewer than N tasks, touches no common GM region with
    it (one of them writing) and can move to it, by the rules of
    `pto-l1-reuse` (the merged task takes the later position if nothing in
    between conflicts with the earlier one, else the earlier position if
    nothing in between conflicts with the later one and it uses no value
    defined in between). The merged body is the members' bodies in program
    order; nothing else changes, so the outputs stay bitwise equal. A task
    yielding values stays alone.

    Statistics count vector tasks per block instance before and after.
    With `report=true` each group gets a remark with its merge count and
    the tasks left, and each kernel one with the totals. IR without vector
    tasks is left unchanged.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit remarks: the merge of each group and vector tasks per kernel">
  ];
  let statistics = [
    Statistic<"numTasksBefore", "vector-tasks-before", "Vector tasks before the pass (per block instance)">,
    Statistic<"numTasksAfter", "vector-tasks-after", "Vector tasks after the pass (per block instance)">
  ];
}

def L1ReusePass : Pass<"pto-l1-reuse"> {
  let summary = "Merges cube tasks that load identical GM blocks into L1 and removes the duplicate copy-ins; then n-buffers cube tasks (cube_nbuffer_setting)";
  let description = [{
    PyPTO's L1CopyInReuseMerge, phases 1 and 2 (docs/PyPTOModel.md#merging-passes), on partitioned IR (docs/TileGraph.md). A cube task's GM->L1 copy-ins are its
    `pto.view`s of `!pto.tensor`s (kernel tensors, reshapes of them,
    workspaces); two copy-ins are identical when source, offsets, explicit
    valid extents and tile type are equal (index values compared by
    structure: equal constants, equal pure expressions of equal values).
    A copy-in's side is A when it feeds the lhs of a `matmul`/`matmul_acc`,
    B when it feeds the rhs.

    In every block, the cube tasks with copy-ins form isomorphism groups
    (bodies equal up to offsets and valid extents: op names, attributes,
    types, internal use-def structure), numbered 0, 1, ... in order of first
    appearance (PyPTO's hash order). The merge count N of group k is
    `cube_l1_reuse_setting` of the kernel's `pass_options`: key k, else key
    -1; `(N, "left")` / `(N, "right")` restrict sharing and deduplication to
    A-side / B-side copy-ins, `(N, "auto")` takes whichever of both sides,
    A only or B only removes the most bytes. N = 1 leaves the group alone,
    so `{-1 : 1}` switches the pass off.

    Visiting a group's tasks in order, a task joins the earlier merge target
    with which it shares the most copy-in bytes (at least one identical
    copy-in on an allowed side) provided that the target holds fewer than N
    tasks, that the merged task still fits L1 (per K step, i.e. position in a
    matmul/matmul_acc chain, the bytes of its distinct copy-ins plus those
    feeding no matmul stay within the architecture's L1, Platform.h), that
    the two touch no common GM region with one of them writing, and that one
    of them can move to the other: the merged task takes the task's position
    if no op between them conflicts with the target (reads what it writes,
    or writes what it reads or writes), else the target's position if no op
    between conflicts with the task and the task uses no value defined after
    the target. GM regions are compared by tensor and static or `base + c`
    offsets; anything unknown conflicts. The merged body is the members'
    bodies in program order; then each duplicate copy-in is replaced by the
    first identical one and index arithmetic left unused is erased.

    Without a value for the group (no setting, or a setting without key k
    and -1) the choice is automatic and cost-driven: every N from 2 to
    floor(group size / cube cores) (no merged task larger than one core's
    share of the group) is simulated with the same greedy rule, merging only
    while the group keeps at least min(group size, 2 x cube cores) tasks
    (two per core, so that loads overlap compute; like PyPTO's
    floor(size / (2 x AIC cores)), groups of at most 2 x cube cores are not
    merged), with both sides, A only and B only shared, and the plan removing
    the most copy-in bytes wins (the smallest N, then that order, on ties).

    Phase 2 is PyPTO's CubeNBuffer (`cube_nbuffer_setting`, off without a
    value, as PyPTO's default `{"DEFAULT": 1}`): the groups left by phase 1
    are formed again and N isomorphic cube tasks (key k, else -1) merge by
    the same rules without sharing anything, provided that the copy-ins of
    the merged task fit L1 per K step; a group gets the remark
    `n-buffer group k (...): merge count N (cube_nbuffer_setting), M tasks
    after`. Bigger cube tasks pay the call-task cost once and overlap one
    member's copy-ins with another's matmuls.

    Statistics count GM->L1 bytes (static tile bytes of the copy-ins of all
    cube tasks, per block instance) before and after, merged tasks and
    removed copy-ins (`-mlir-pass-statistics` shows them when LLVM is built
    with statistics; Debian's release LLVM is not). With `report=true` each kernel gets a remark
    `GM->L1 bytes per block instance: before X, after Y (saved Z%)` and each
    group one with its merge count and result. IR without cube tasks is left
    unchanged.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit remarks: GM->L1 bytes per kernel and the merge of each group">
  ];
  let statistics = [
    Statistic<"numBytesBefore", "gm-to-l1-bytes-before", "GM->L1 copy-in bytes of cube tasks before the pass (per block instance)">,
    Statistic<"numBytesAfter", "gm-to-l1-bytes-after", "GM->L1 copy-in bytes of cube tasks after the pass (per block instance)">,
    Statistic<"numTasksMerged", "tasks-merged", "Cube tasks merged into another task">,
    Statistic<"numLoadsRemoved", "loads-removed", "Duplicate GM->L1 copy-ins removed">
  ];
}

def OutlinePass : Pass<"pto-outline", "::mlir::ModuleOp"> {
  let summary = "Outlines tasks into leaf functions and runs of tasks into root functions";
  let description = [{
    Input: partitioned IR (`docs/TileGraph.md`, "After `pto-partition`").
    Output: the execute-graph level ("After `pto-outline`").

    **Leaves.** Every `pto.task` becomes a leaf
    `func.func private @<kernel>_leaf_<family>_<n>(...) attributes
    {pto.leaf = #pto.core<...>, pto.family = "..."}` whose body is the
    task body. The values the task captures become the arguments, in order
    of first use (pre-order walk of the body); captured constants are cloned
    into the leaf instead. The static offsets of the leaf's views and stores
    become trailing index arguments (the launch passes them as constants), as
    PyPTO passes piece offsets in a leaf's parameter block: tasks that differ
    only in where their pieces sit share one leaf. Isomorphic tasks share one
    leaf: two tasks are
    isomorphic when they have the same core kind and family and their leaf
    bodies are structurally equal (`OperationEquivalence`, locations
    ignored) once captured values are renamed to argument positions.
    Candidates are bucketed by a structural hash first. Leaves of a
    non-default architecture carry `pto.arch`.

    **Roots.** Each maximal run of tasks in a block (kernel body, `pto.loop`
    body, `scf.if` branch; index arithmetic, `pto.dim`, `pto.reshape` and
    `pto.workspace` between tasks do not end a run and are moved above it)
    becomes a root `func.func private @<kernel>_root_<loop>[_<n>](...)
    attributes {pto.root}`, `<loop>` being the enclosing `pto.loop`'s name
    (`main` outside loops). Its body allocates the run's workspaces and
    issues one `pto.launch` per task, in task order, then returns. The run is
    replaced by `pto.root_call @root(args)`; the arguments are the values the
    tasks capture (first use order), minus constants and moved workspaces.

    **Workspaces.** A `pto.workspace` in the run's block whose uses all lie
    in tasks of that run moves into the root (one copy per root instance).
    Any other workspace (used by tasks of several roots, like a hoisted
    `Dvec`, used outside tasks, or defined in an outer block) stays in the
    control program and is passed to the roots that use it.

    **Dependencies.** `pto.launch ... after [...]` lists the launches each
    one must wait for, transitively reduced. Launch B depends on an earlier
    launch A when they access overlapping GM regions and one of them writes:
    read after write, write after read or write, and readers after
    `atomic_add` writers (and atomic writers after readers); atomic writers
    do not depend on each other (atomics commute). Regions are exact for
    accesses of the same tensor value at static offsets (workspace pieces);
    any access of the same tensor with a dynamic offset, through a
    different reshape, or a scalar `pto.read`, overlaps conservatively.

    The control program (loops, index arithmetic, scalar reads, root calls,
    shared workspaces) stays explicit in the kernel. Tasks that yield values
    are rejected (tasks communicate through GM). `report` emits a remark per
    kernel with the counts.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark per kernel: tasks, leaves after deduplication, roots, workspace placement">
  ];
  let statistics = [
    Statistic<"numTasks", "tasks", "Tasks outlined">,
    Statistic<"numLeaves", "leaves", "Leaf functions after deduplication">,
    Statistic<"numRoots", "roots", "Root functions">,
    Statistic<"numRootWorkspaces", "root-workspaces", "Workspaces moved into roots">,
    Statistic<"numSharedWorkspaces", "shared-workspaces", "Workspaces left in the control program">
  ];
}

def PlanStitchPass : Pass<"pto-plan-stitch", "::mlir::ModuleOp"> {
  let summary = "Plans how many root instances one device task stitches";
  let description = [{
    Input: outlined IR (`pto-outline`). For every `pto.root_call` attaches
    `stitch = #pto.stitch_plan<depth = D, workspace_bytes = W, launches = L,
    mode = "memory"|"count">` (docs/PyPTOModel.md#runtime-options, docs/PyPTOModel.md#stitching):

    - `W`: the GM workspace one root instance needs: every `pto.workspace`
      allocated in the root (and in the leaves it launches, once per launch),
      each rounded up to 32 KiB;
    - `L`: the `pto.launch`es (call tasks) of one instance;
    - **memory mode** when `max_workspace_kb` is set (non-zero) and above the
      kernel's minimum runnable workspace
      `P * (F + max over root calls of W)` (`P` = `device_sched_parallelism`,
      default 1; `F` = the 32 KiB-aligned workspaces of the control program,
      shared by all instances): `D` is the largest depth whose workspace fits,
      `floor((max_workspace_kb * 1024 - P * F) / (P * W))` (1024 when
      `W = 0`); `stitch_function_max_num` no longer limits it;
    - **count mode** otherwise: `D = stitch_function_max_num` (default 128),
      or the hard cap alone inside a `parallel` `pto.loop`;
    - in both modes `D <= 1024` (hard cap) and `D * L <= 60000` (call tasks
      per device task), and `D >= 1`.

    A `max_workspace_kb` at or below the minimum is an error that states the
    minimum and the fix (as PyPTO does, docs/PyPTOModel.md#runtime-options).

    **`ready_on_host_tensors`.** Every scalar `pto.read` of the control
    program (outside leaves and tasks) whose tensor is, through in-place
    reshapes, a kernel argument listed in `ready_on_host_tensors` gets the
    unit attribute `pto.host_ready`: the control AICPU may read it before the
    AI cores start. Any other read loses the attribute (it waits for
    `WaitAicoreStart`).

    `report` emits remarks: per root call its numbers, per kernel the minimum
    workspace and the `max_workspace_kb` that would give the count-mode depth
    (the suggested value), per control-program read whether it is host-ready.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit remarks with the workspace per root instance, launches and stitch depth">
  ];
  let statistics = [
    Statistic<"numRootCalls", "root-calls", "Root calls planned">,
    Statistic<"numMemoryMode", "memory-mode", "Root calls stitched by max_workspace_kb">,
    Statistic<"numHostReady", "host-ready-reads", "Control-program reads marked pto.host_ready">
  ];
}

def HoistInvariantsPass : Pass<"pto-hoist-invariants"> {
  let summary = "Hoists loop-invariant ops out of pto.loop bodies";
  let description = [{
    Program level, after `pto-flatten-scopes` (docs/TileGraph.md). Moves an
    op from a `pto.loop` body to just before the loop when:

    1. every operand is defined outside the loop (ops hoisted earlier
       count as outside); ops with regions, terminators and ops without
       results stay, and nothing leaves a nested region: a `pto.scope` still
       present keeps its ops (run `pto-flatten-scopes` first);
    2. it is free of memory effects (tile compute ops, arith, `pto.dim`,
       `pto.reshape`, views of tiles), or it reads GM (`pto.view` of a
       tensor, `pto.read`) and nothing nested in the loop writes that
       tensor. Tensors alias when they trace back, through in-place
       reshapes, to the same kernel argument or `pto.workspace`; writers are
       `atomic_add` / `assemble` destinations and ops whose effects write;
       an op with unknown effects (`pto.launch`, `pto.root_call`) or a write
       to untraceable storage clobbers every tensor;
    3. zero-trip loops: a hoisted op runs once even when the loop runs zero
       times. Speculatable effect-free ops (`Pure` tile ops, `pto.dim`,
       arith except divisions by a value not known to be non-zero) always
       move. Ops that can fault at run time (GM reads, views, in-place
       reshapes, such divisions) move only out of loops that provably run
       (constant bounds, lb < ub), except that with `speculate-reads`
       (default) views, reads and reshapes move out of any loop: pto-run
       faults on a view only for a negative offset or an explicit valid
       extent reaching past its parent, and an invariant view's offsets and
       extents come from enclosing loops, in range whenever those bodies run
       (SK-16: `do_i`/`o_i` at `s1_off` with `a_s1` rows, whatever s2; a
       batch with s2 = 0 reads them once and drops them).

    Loops are processed inner first, to a fixpoint, so an op can leave
    several nested loops. SK-16's `Dvec = sum(cast(o_i) * cast(do_i))` chain
    (with its views and offset arithmetic) leaves `LOOP_s2_dq` and stays in
    `LOOP_s1_dq`, whose index its views depend on (docs/SK16.md#dvec-hoisting): per
    (b, n, s1 tile) it runs once instead of `s2_loop` times, bitwise
    identical. Hoisted ops keep their attributes, the `pto.scope` stamp
    included (they form their own scope group in the outer body). With
    `report=true` every hoisted op gets a remark naming the loops it left,
    innermost first: `hoisted out of pto.loop "LOOP_s2_dq"`.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark at every hoisted op naming the loops it left">,
    Option<"speculateReads", "speculate-reads", "bool", /*default=*/"true",
           "Hoist GM reads, views and reshapes out of loops that may run zero times">
  ];
  let statistics = [
    Statistic<"numOpsHoisted", "ops-hoisted", "Ops moved out of at least one pto.loop">,
    Statistic<"numLoopExits", "loop-exits", "Loops left, summed over the hoisted ops">
  ];
}

def ReportPass : Pass<"pto-report", "::mlir::ModuleOp"> {
  let summary = "Prints the numbers of an outlined tile graph";
  let description = [{
    Read-only. For each `pto.kernel` after `pto-outline` (and
    `pto-plan-stitch`), per root function (one loop-body instance): launches
    per task family, workspace tensors and bytes per instance, the stitch
    plan, GM traffic of one instance (kernel tensors read and written,
    workspace written and read), GM->L1 copy-in bytes of its cube tasks, and
    the Q·Kᵀ products per block pair (output elements of matmul pieces whose
    operands are views of the kernel arguments `q` and `k`, over the
    elements of one score block; must be 1 for single-pass SK-16). Then the
    number of leaves for all launches. Byte counts use static tile sizes:
    exact for full blocks, upper bounds for tails. Written to stdout or to
    `output`.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the report ('-' = stdout)">
  ];
}

#endif // PTO_TRANSFORMS_PASSES_TD

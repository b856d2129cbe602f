//===- Passes.td - pto passes ------------------------------*- tablegen -*-===//
#ifndef PTO_TRANSFORMS_PASSES_TD
#define PTO_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

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
    rows). Unscoped vector ops connected by data edges are one such task
    too (`pto-schedule-pieces` runs its pieces one chain at a time):
    fused_swiglu_bwd_b_kernel's [128, 128] f32 chain keeps six pieces
    live, 384 KiB, and goes to [32, 128].
    Scope stamps (`pto-flatten-scopes`) are copied onto every new op.
    The index arithmetic the pieces need (constants, composed offsets,
    `max(valid - offset, 0)`) is left one op per value where it dominates,
    as CSE would: pieces reading one window share its offsets and extents.
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
    regions of one workspace, `GMAccessAnalysis`: offsets with equal
    non-constant parts compare by their constants). Views of GM are copied into every task
    that reads them. A workspace round trip inside one task (a piece
    assembled and read back by the same task) is forwarded and dead
    workspaces are removed, so what remains in GM is exactly the data cube
    and vector tasks exchange. Families are named by core kind and stage:
    SK-16 comes out as C1, V1, C2, V2.

    With `split-mix`, a scope that mixes cube and vector ops forms pure cube
    and pure vector tasks exchanging through GM, as on DAV_2201, on every
    architecture: the results are the same, only the task structure differs.
    `--pto-ascend-pipeline` sets it because `pto-lower-to-isa` does not lower
    MIX leaves yet.
  }];
  let options = [
    Option<"splitMix", "split-mix", "bool", /*default=*/"false",
           "Form pure cube and vector tasks even where the architecture has "
           "MIX tasks (what pto-lower-to-isa lowers)">,
    Option<"sinkViews", "sink-views", "bool", /*default=*/"true",
           "Move a view of a tile read outside tasks down to the end of its "
           "run of ops first, so it does not cut the tasks around it">
  ];
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

def SchedulePiecesPass : Pass<"pto-schedule-pieces"> {
  let summary = "Orders the piece ops of each vector task so that the pieces live at once fit UB";
  let description = [{
    On partitioned IR (docs/TileGraph.md#the-order-of-a-vector-tasks-pieces).
    `pto-expand-tiles` emits an op's pieces one after the other, then the
    next op's: a vector task holding many pieces of a chain (the row pieces
    of a column that a tiled reduction combines, or the bodies that
    `pto-nbuffer-merge` concatenated) keeps every piece of a value in UB
    until the next op reads it. For each `#pto.core<vector>` task, the pass
    estimates the UB bytes live at once in its order (a tile from its
    definition to its last use, rows of whole 32-byte blocks, plus a
    reduction's scratch) and, when that exceeds UB less the implicit
    scratch (Platform.h), list-schedules the body: from each op without
    users in the task (in program order) it pulls the ops that op needs,
    operands first, and after each op it runs at once every op that it made
    ready, so that each piece chain runs to its end, its stores and its
    reduction partial included, before the next piece is loaded. Loads
    (views of GM) and ops with no predecessor in the task run right before
    their first consumer instead of when they become ready, so that no
    chain stops at them (engram's rms_norm: gamma, and the second read of
    a stored row). Order
    constraints are the SSA edges and, per GM storage (a kernel argument or
    a `pto.workspace`, through in-place reshapes), reads after the last
    write and writes after every earlier access; an op with regions or
    with GM accesses the analysis cannot name keeps its place and splits
    the body into parts scheduled on their own. The new order is kept
    when its estimate is lower. Only the order changes, so every output
    stays bitwise equal. Linear in the task's ops and uses.

    A task still over the budget in that order reads tiles it already
    stored back from GM: the largest tile live at the estimated peak that
    the task assembled whole into a `pto.workspace` window (static offsets,
    inside the workspace), with nothing between that store and its next use
    that may write the window, is read by its uses after the peak through a
    `pto.view` of the window with the tile's valid extents, placed before
    the first of them; repeated while the estimate is over. PyPTO spills a
    live UB buffer to a GM workspace and copies it in at its next use
    (docs/Legalization.md#vector-tasks-over-ub); here the copy-out is the
    task's own store. The view reads what the store wrote, so outputs stay
    bitwise equal. Each step is linear in the task; a task takes at most
    one step per stored tile.

    A task still over the budget after that is tried once more on a copy:
    a view of a tile that is (through views of tiles) a load of GM reads
    the window it covers from GM itself (a `pto.view` of the load's tensor
    at the summed offsets with the view's valid extents, where the view
    was) when nothing between the load and the view may write that
    storage, and a load of a window that an earlier `pto.assemble` of the
    task wrote whole, with no write since that may overlap it, takes the
    window from the stored tile (store-to-load forwarding; stores into a
    workspace nothing reads any more are dropped). The copy is scheduled
    as above and replaces the task when its estimate is lower (mhc_post:
    each piece took one row of a whole loaded [16, 4, 512] f32 workspace,
    and every row's loads waited for every row's store). The same bytes
    are read, so outputs stay bitwise equal; linear in the task (a load
    looks back at most 64 stores of its storage).

    With `report=true` each reordered task gets a remark with the bytes
    before and after, and a task still over the budget in the best order
    found a warning at the op at the peak with the bytes and the fix (a
    smaller `vec_tile`). Without it, `pto-isa-plan-memory` (which may still
    fit the task by reusing dying sources in place) reports a leaf that
    does not fit, naming the tiles live at its peak.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "A remark per reordered task with its UB estimate before and after">
  ];
  let statistics = [
    Statistic<"numReordered", "reordered-tasks", "Vector tasks whose pieces were reordered">,
    Statistic<"numReloaded", "reloaded-tiles", "Stored tiles read back from GM after a UB peak">,
    Statistic<"numLegalized", "legalized-tasks", "Vector tasks over UB replaced by a copy reading its windows again">
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
    the target. GM regions are compared by `GMAccessAnalysis` (offsets with
    equal non-constant parts compare by their constants; atomic updates
    conflict like writes); anything unknown conflicts. The merged body is the members'
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

    With `stationary=true` (the pipelines' `cube-stationary` switch, on by
    default there), a group may instead be cut into operand-stationary
    rectangles of tasks sharing their A and B blocks, after splitting K
    chains whose blocks do not fit L1 whole into partial sums: where the
    group's modelled time (the cube cores' throughput against one
    instance's latency, at the platform's rates and the cost model's
    per-launch cost) is shorter than with the setting's merge
    (docs/TileGraph.md#operand-stationary-cube-tasks).

    With `mix=true` (the pipelines set it with `mix-exchange`), a group whose
    results `pto-mix-exchange` will hand to vector tasks on chip is planned
    as the MIX tasks it becomes: when the vector readers access a
    workspace defined outside the block (one buffer; SK-16's Dvec), the
    loops around both the block and a write to it run their iterations in
    turn, so they do not count as instances at once; such a group is
    planned after the block's other cube groups, and its time counts their
    cube work, which the cores run beside its instances, in the throughput
    term (its latency hides behind that work too). Its rectangles take
    every ceil(columns / b)-th B block instead of b consecutive ones, so
    that a block whose run-time valid extent covers only its first columns
    spreads them over several MIX tasks (the MIX tasks of one instance are
    a step of the chain between instances); not when another cube group of
    the block stores into an exchange whose MIX tasks run their instances
    at once (they would wait for every MIX task of a row, holding AIVs the
    chain needs).

    A loop without iter_args whose trip count is a run-time value counts
    `dynamic-trip-count` instances (default 1: the compile cannot tell
    that it runs more than once). A larger value says that its iterations
    usually fill the cores (SK-01's q-tile loop over long sequences), so the
    planner trades one instance's latency for fewer, longer tasks; it is a
    hint for `pto-tune` to search (docs/Tuning.md), like the merge settings.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit remarks: GM->L1 bytes per kernel and the merge of each group">,
    Option<"mix", "mix", "bool", /*default=*/"false",
           "Plan operand-stationary extents for the MIX tasks pto-mix-exchange "
           "will form on DAV_3510 (instances at once as the vector readers "
           "allow)">,
    Option<"stationary", "stationary", "bool", /*default=*/"false",
           "Operand-stationary cube tasks: cut a group into rectangles of "
           "tasks sharing A and B blocks where that shortens its modelled "
           "time, the extent chosen from L1, the pipe balance and the cube "
           "cores (overrides cube_l1_reuse_setting where it applies)">,
    Option<"dynamicTripCount", "dynamic-trip-count", "int64_t",
           /*default=*/"1",
           "Iterations at once that the operand-stationary planner assumes "
           "for a loop without iter_args whose trip count is a run-time "
           "value (default 1: such a loop may run once)">
  ];
  let statistics = [
    Statistic<"numBytesBefore", "gm-to-l1-bytes-before", "GM->L1 copy-in bytes of cube tasks before the pass (per block instance)">,
    Statistic<"numBytesAfter", "gm-to-l1-bytes-after", "GM->L1 copy-in bytes of cube tasks after the pass (per block instance)">,
    Statistic<"numTasksMerged", "tasks-merged", "Cube tasks merged into another task">,
    Statistic<"numLoadsRemoved", "loads-removed", "Duplicate GM->L1 copy-ins removed">
  ];
}

def MixExchangePass : Pass<"pto-mix-exchange"> {
  let summary = "On DAV_3510, merges cube tasks with the vector tasks that read their results into MIX tasks, so that the results move L0C -> UB on chip instead of through a GM workspace";
  let description = [{
    On partitioned IR after `pto-l1-reuse` (docs/TileGraph.md#on-chip-exchanges),
    for kernels of an architecture with an L0C -> UB path (DAV_3510; other
    kernels are left unchanged). A workspace defined in a block is an
    *exchange* when every use is inside a task of that block and is either a
    store (`pto.assemble`, static offsets) of a `matmul` / `matmul_acc`
    result in a cube task, or a tile `pto.view` (static offsets) in a vector
    task, with at least one of each; every view lies inside one stored piece
    (the L0C -> UB move hands over whole accumulator tiles), and the pieces
    each vector task reads fit the UB of the two AIVs, half each.

    Each view joins its task to the task of the piece it reads (through a
    grid of the stores' boxes); the connected tasks with at least one cube
    and one vector task form a MIX task `pto.task #pto.core<mix> "M<stage>"`:
    the members' bodies in program order, at the place of the last member.
    Tasks between the members that conflict with an earlier member (touch a
    common GM region, one of them writing), or with a task already moving,
    move below the MIX task in their order. A component is left alone when
    a later member conflicts with such a task, or when an op that is not a
    task would have to move.

    An exchange whose tasks all merged gets the unit attribute
    `pto.on_chip`: every piece is written and read inside one MIX task, so
    the AIC hands it to its two AIVs through L0C -> UB (pto-isa A5: `TMOV`
    from an `Acc` to a `Vec` tile, the fixpipe) and it never reaches GM.
    `pto-run` reports its accesses as on-chip moves, not GM traffic, and the
    cost model prices them at the platform's L0C -> UB rate
    (docs/CostModel.md). Both pipelines run it by default (their
    `mix-exchange` switch; `mix-exchange=false` keeps every exchange in GM),
    and `pto-lower-to-isa` lowers its MIX leaves (docs/ISA.md).
  }];
  let statistics = [
    Statistic<"numMixTasks", "mix-tasks", "MIX tasks formed">,
    Statistic<"numOnChip", "on-chip-workspaces", "Workspaces marked pto.on_chip">,
    Statistic<"numRejected", "rejected-components", "Components left alone (a conflicting op between their members)">
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
    do not depend on each other (atomics commute). Regions are those of
    `GMAccessAnalysis`: accesses of the same tensor value are disjoint when
    some dim has offsets with equal non-constant parts and disjoint constant
    ranges (a `pto.read` touches one element); an access through a
    different reshape of the same storage overlaps conservatively, and so
    does a task with effects the analysis cannot name.

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
    Program level, after `pto-flatten-scopes`. Moves an op from a `pto.loop`
    body to just before the loop when its operands are defined outside the
    loop, it has results and no regions, and it is either free of memory
    effects or a GM read (`pto.view` of a tensor, `pto.read`) that no write
    in the loop may overlap in any iteration (`GMAccessAnalysis`). Ops that
    may fault leave loops that may run zero times only with
    `speculate-reads` (default). Inner loops first, to a fixpoint; hoisted
    ops keep their attributes. The legality rules and why they hold:
    docs/Rationale.md#hoisting-loop-invariants-out-of-ptoloop.

    Before:

    ```mlir
    pto.loop "L" %i = %c0 to %n step %c1 {
      %v = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
      %e = pto.exp %v : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
      pto.atomic_add %e, %acc[32, 0] : ...
    }
    ```

    After (`%x` is not written in the loop; the write to `%acc` stays):

    ```mlir
    %v = pto.view %x[0, 0] : !pto.tensor<64x64xf32> -> !pto.tile<64x64xf32>
    %e = pto.exp %v : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    pto.loop "L" %i = %c0 to %n step %c1 {
      pto.atomic_add %e, %acc[32, 0] : ...
    }
    ```

    With `report=true` every hoisted op gets a remark naming the loops it
    left, innermost first: `hoisted out of pto.loop "LOOP_s2_dq"`.
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

def UnrollCarriedLoopsPass : Pass<"pto-unroll-carried-loops"> {
  let summary = "Runs several iterations of a loop that carries values per body";
  let description = [{
    Program level, after `pto-flatten-scopes`. With `factors = u > 1`, every
    innermost `pto.loop` with `iter_args` becomes a loop over whole chunks of
    u iterations (u copies of the body, the index of copy j is
    `i + j * step`) followed by the original loop over the remaining
    `n mod u` iterations, which carries on from the chunks' results (with a
    list `factors = u1,u2,...`, PyPTO's `unroll_list`, that loop is unrolled
    again by u2, and so on). In the
    chunk body `pto.is_loop_begin` is false in copies 1 .. u-1 and
    `i == lb` in copy 0; `pto.is_loop_end` is false in copies 0 .. u-2 and
    `i + u * step >= ub` in copy u-1; an `scf.if` whose condition became a
    constant is replaced by its taken branch. Then each op of the chunk body
    that depends on no remaining `scf.if` (through SSA values), writes no GM
    and reads no GM that an op it passes may write moves above the first
    `scf.if`, in order: the carry-independent work of the u iterations (e.g.
    SK-01's Q Kᵀ, softmax and P V of u kv tiles) forms one run of tile ops
    that `pto-partition` cuts into tasks and the task merges combine.
    Loops without `iter_args` are left alone: their iterations already run
    as concurrent root instances. The ops are copied, not changed, so the
    outputs are bitwise equal. No factor (default) changes nothing.
    docs/TileGraph.md#several-iterations-of-a-carried-loop-per-body.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
  let options = [
    ListOption<"factors", "factors", "int64_t",
               "Iterations per chunk, then per chunk of the rest, ... "
               "(e.g. 64,16,4; none or 1: no change)">
  ];
  let statistics = [
    Statistic<"numLoopsUnrolled", "loops-unrolled", "Carried loops unrolled">,
    Statistic<"numOpsMoved", "ops-moved", "Ops moved above the first scf.if of a chunk body">
  ];
}

def MergeLeafArgumentsPass : Pass<"pto-merge-leaf-arguments", "::mlir::ModuleOp"> {
  let summary = "Merges leaf arguments every launch passes the same value";
  let description = [{
    After `pto-outline`, each static offset of a leaf's views and stores is
    its own `index` argument, so two views of one GM window (a softmax leaf
    reading `x` for `amax` and again for `sub`) differ in their offset
    arguments even when every launch passes the same constant for both. For
    each leaf, arguments of one type for which every `pto.launch` of the leaf
    passes the same value (the same SSA value or equal constants) become one
    argument; the others are removed from the leaf and its launches. CSE
    then sees the two views as identical and keeps one (the tile-graph
    pipeline runs CSE after this pass), so the leaf loads the
    window once. Leaves with a use other than `pto.launch` are left alone.
    Linear in the number of launch operands.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def SplitKernelUnitsPass : Pass<"pto-split-kernel-units", "::mlir::ModuleOp"> {
  let summary = "Moves each pto.kernel, with the top-level symbols only it uses, into its own nested module";
  let description = [{
    Wraps each `pto.kernel` of the module, together with the top-level
    symbols only it reaches (roots and leaves of an input that is already
    outlined), in a nested `builtin.module` marked `pto.kernel_unit`. A pass
    manager nested on `builtin.module` then takes one kernel through all its
    passes, module-level ones (`pto-outline`, `pto-plan-stitch`, ...)
    included, while its IR is in cache, and the verifier after each pass
    reads one unit, not the whole module; `pto-join-kernel-units` undoes the
    split. The tile-graph and Ascend pipelines run between the two.

    When a module cannot be split so that the join restores it unchanged (a
    symbol reached from two kernels or from none, the ops of two kernels
    interleaved, an op that is neither a kernel nor a symbol, a nested
    module), everything goes into one unit: the passes then see what they
    saw without the split. Linear in the number of top-level ops when all of
    them are kernels; otherwise the top-level ops are walked once for the
    symbols they use.

    ```mlir
    module {
      module attributes {pto.kernel_unit} {
        pto.kernel @a(...) { ... }
      }
      module attributes {pto.kernel_unit} {
        pto.kernel @b(...) { ... }
      }
    }
    ```
  }];
  let statistics = [
    Statistic<"numUnits", "units", "Kernel units created">
  ];
}

def JoinKernelUnitsPass : Pass<"pto-join-kernel-units", "::mlir::ModuleOp"> {
  let summary = "Splices the ops of each pto.kernel_unit module back into the outer module";
  let description = [{
    Undoes `pto-split-kernel-units`: the ops of each nested module marked
    `pto.kernel_unit` take its place in the outer module, in order, and the
    unit is erased. A name one unit derived from its kernel's (`@k_main`,
    `@k_leaf_...`) may meet another unit's when one kernel's name extends
    another's: the derived symbol is renamed within its unit, with its uses
    (`@k_main_1`), to a name no other symbol has. A kernel meeting a symbol
    of the outer module itself is an error naming both. Linear in the number
    of top-level ops (a rename also walks its unit).

    The ops were verified inside their units; the join only moves them, and
    a symbol reference resolves to the same op after the move as long as the
    names are unique, which the join ensures. So the join declares the IR
    otherwise unchanged and the pass manager does not verify the whole
    module once more (docs/CompileTime.md).
  }];
}

#endif // PTO_TRANSFORMS_PASSES_TD

//===- Passes.td - pto checker and report passes -----------*- tablegen -*-===//
//
// Passes that read a pto module and report on it (rules, summaries, tile
// graph numbers) without changing it; the rewrites are in
// pto/Dialect/PTO/Transforms/Passes.td.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_CHECKS_PASSES_TD
#define PTO_CHECKS_PASSES_TD

include "mlir/Pass/PassBase.td"

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
    | LINT-TILE-CONFIG | error | vector ops without vec_tile (except a pto.full that only initialises loop-carried accumulators), a clamped vector tile over UB, run-time tile sizes in trip counts or offset strides, offsets not advancing by the tile extent (copies of a tile at constant shifts that together cover the stride, as an unrolled head pair, count as one tile; so does an inner loop index advancing by the tile extent over a constant trip count that spans the outer stride, as a GM sub-tensor's `(b * N + n) * D`) |
    | LINT-TAIL-VALID | error (varlen) / warning | a view moving with a loop of dynamic trip count without an explicit valid extent on that dim; an error when the offset is read from a tensor (varlen). A loop over element offsets stepping by the tile size over a whole number of steps (PyPTO's loop_unroll) has no tail, nor has a view whose offset and tensor dim (static, or the size of an in-place reshape) are multiples of its tile extent (GM sub-tensors: every window whole or past the end, a fault) |
    | LINT-RECOMPUTED-STATS | error | amax, or sum over exp, of a matmul's scores when [M, 1] views of kernel inputs are already broadcast against them |
    | LINT-SCOPE-PURITY | error / warning | a scope mixing cube and vector ops on DAV_2201 (error; also a verifier error); a pto.reshape inside a scope (warning) |

    The pass fails if an error-severity rule fires. `json` as for
    `pto-check-skeleton`.

    On the PyPTO corpus (`python/tests/test_pypto_gym.py`, reviewed
    2026-12-01) the only findings are real: LINT-REPLICATED warnings on the
    A3 / 950 forward attention (`flash_attention_mha_impl.py` lines 420,
    424, 427: q, k and v viewed twice per head pair by a Python
    `for h_s_idx in range(2)`, a loop level written out; that kernel does
    not verify yet, its C1 cube tile exceeds L1). The FA backward (A3 and
    950), SwiGLU grad, ApplyAdamWV2, InplaceAddRmsNorm and BNTrainingReduce
    kernels are clean; InterleaveRope does not trace (pypto.gathermask) and
    GatherPaKvCache (a 722 MB case) was not traced.
  }];
  let options = [
    Option<"json", "json", "std::string", /*default=*/"\"\"",
           "Also write the diagnostics as JSON to this file ('-' = stdout)">
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


def ViewGraphPass : Pass<"pto-view-graph", "::mlir::ModuleOp"> {
  let summary = "Writes the tile graph as Graphviz DOT";
  let description = [{
    Read-only. Draws each `pto.kernel` as Graphviz DOT: the control program's
    loops as nested clusters holding its `pto.root_call`s (with the stitch
    depth) or, before `pto-outline`, its `pto.task`s; each root function as a
    cluster of its `pto.launch`es (family, core kind, leaf) with the token
    dependences (`after`) as edges; and the leaves the launches run, with
    their core kind and op count. Render with `dot -Tsvg g.dot -o g.svg`
    (Debian package `graphviz`). Written to stdout or to `output`.

    ```sh
    pto-opt k.mlir --pto-tile-graph-pipeline --pto-view-graph=output=g.dot -o /dev/null
    ```
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the DOT text ('-' = stdout)">
  ];
}

#endif // PTO_CHECKS_PASSES_TD

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
    14 SK-16 coding rules of `shared/reference/sk16.md` §6 plus pitfall §8.1.
    Every finding names the rule, points at the op (with a note at the
    related op) and says the fix:

    ```
    error: [SK16-R9] pto.div computing P uses HIGH_PRECISION, ...; fix: ...
    ```

    Rules (`SK16-SIG` first checks the §2 signature by argument name; the
    kernel's structure is recognised semantically: Q·Kᵀ is the matmul of a
    view of `q` and a view of `k`, loop levels are found from the loop
    indices feeding the view offsets):

    | id | severity | rule |
    |---|---|---|
    | SK16-R1 | error | single pass: one loop nest over the (s1, s2) tiles; dP, the C2 matmuls and the dq/dk/dv writes sit in the s2 loop of Q·Kᵀ |
    | SK16-R2 | error | exactly one Q·Kᵀ per (s1, s2) block pair |
    | SK16-R3 | error | l and m come from `l_input`/`m_input`; no amax/sum recomputing them over the scores |
    | SK16-R4 | error | batch, head, s1 and s2 are four distinct dynamic `pto.loop`s, none missing, replicated or an scf.for |
    | SK16-R5 | error | dq, dk, dv are written by `atomic_add` only: no assemble, zeroing or read-back |
    | SK16-R6 | error | no manual masks (arith.select / scf.if producing tiles, elementwise ops with a pto.full tile); tail views carry a valid shape |
    | SK16-R7 | error | scale multiplies are compile-time scalar constants, not run-time values or tensor tiles |
    | SK16-R8 | error | tile configs: vec_tile on every vector op, fitting UB; tile sizes in trip counts and offset strides constant and equal to the tile extent |
    | SK16-R9 | error on DAV_2201, else warning | pto.div uses INTRINSIC |
    | SK16-R10 | error | 3-D inputs are reshaped in place to [total, N·D] / [total, N] at kernel entry |
    | SK16-R11 | error (warning: rounding mode) | dS and P are cast to BF16 (RINT) before the C2 matmuls; matmuls take BF16 operands |
    | SK16-R12 | error | V1 in scope 1, V2 in scope 2, scope 1 closed before V2, no matmul in a scope on DAV_2201 |
    | SK16-R13 | error if false, warning if absent | `combine_axis = true` |
    | SK16-R14 | warning | mandated runtime and pass options (A3 values on DAV_2201, the 950 kernel's on DAV_3510), stating the recommended value |
    | SK16-P8.1 | warning | K and V reshaped with the Q-side total (wrong for cross attention) |

    Tile configs that do not fit the architecture (cube tile capacity and
    alignment, vector tile alignment, the reduction tile limit) and
    HIGH_PRECISION on DAV_2201 are rejected by the op verifiers, so such IR
    never reaches this pass; SK16-R8 checks presence, constness, UB fit of
    the clamped vector tile and stride consistency.

    The pass fails if an error-severity rule fires; warnings alone do not
    fail it. The IR is left unchanged.

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
    | LINT-TILE-CONFIG | error | vector ops without vec_tile, a clamped vector tile over UB, run-time tile sizes in trip counts or offset strides, offsets not advancing by the tile extent |
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

#endif // PTO_TRANSFORMS_PASSES_TD

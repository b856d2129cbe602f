//===- PTOOps.td - pto operations --------------------------*- tablegen -*-===//
#ifndef PTO_OPS_TD
#define PTO_OPS_TD

include "pto/Dialect/PTO/IR/PTODialect.td"
include "pto/Dialect/PTO/IR/PTOTypes.td"
include "pto/Dialect/PTO/IR/PTOAttrs.td"
include "pto/Dialect/PTO/IR/PTOInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/LoopLikeInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def PTO_ValidShapeIface :
    DeclareOpInterfaceMethods<PTO_ValidShapeInferenceOpInterface>;

//===----------------------------------------------------------------------===//
// Kernel and structure
//===----------------------------------------------------------------------===//

def PTO_KernelOp : PTO_Op<"kernel", [
    IsolatedFromAbove, Symbol, FunctionOpInterface, AutomaticAllocationScope,
    SingleBlockImplicitTerminator<"ReturnOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>]> {
  let summary = "a PyPTO jit kernel: named GM tensor arguments and options";
  let description = [{
    A `@pypto.frontend.jit` function. Arguments are GM tensors, named after the
    Python parameters (`arg_names`, taken from the SSA names in the custom
    form); outputs are arguments written in place, so there are no results.
    Compile-time parameters (tile configs, `scale`) are folded into attributes
    and constants by the front end.

    Options: `arch` (default `DAV_2201`), `runtime_options`, `pass_options`
    and `combine_axis` (`set_operation_options(combine_axis=...)` as the first
    statement of the body).

    The argument attribute `pto.cumulative` marks a 1-D integer tensor of
    cumulative varlen offsets (SK-16's `actual_q`, `actual_kv`): it starts at 0
    and never decreases, which `pto-run` checks before running.

    The argument attribute `pto.layout` is `"nd"` (row-major, the default) or
    `"nz"` (PyPTO's TILEOP_NZ: the last two dims stored as 16-row by 32-byte
    fractals, column blocks outermost; `pto/Dialect/PTO/IR/NZLayout.h`). An NZ
    tensor has rank >= 2, 1-, 2- or 4-byte elements, and static rows and
    columns that fill whole fractals (multiples of 16 and of 32 / element
    bytes).

    ```mlir
    pto.kernel @k(%x: !pto.tensor<?x64xf32>) attributes {
        arch = #pto.arch<DAV_2201>, combine_axis = true} { ... }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       StrArrayAttr:$arg_names,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       OptionalAttr<PTO_ArchAttr>:$arch,
                       OptionalAttr<PTO_RuntimeOptionsAttr>:$runtime_options,
                       OptionalAttr<PTO_PassOptionsAttr>:$pass_options,
                       OptionalAttr<BoolAttr>:$combine_axis);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    /// The architecture, defaulting to DAV_2201.
    Arch getArchOrDefault() {
      return getArch() ? *getArch() : Arch::DAV_2201;
    }
    /// The block argument named `name`, or null.
    ::mlir::BlockArgument getArgumentByName(::llvm::StringRef name);
  }];
}

def PTO_ReturnOp : PTO_Op<"return", [Pure, HasParent<"KernelOp">, Terminator,
                                     ReturnLike]> {
  let summary = "terminates a pto.kernel";
  let assemblyFormat = "attr-dict";
}

def PTO_YieldOp : PTO_Op<"yield", [Pure, Terminator, ReturnLike,
                                   ParentOneOf<["LoopOp", "ScopeOp", "TaskOp"]>]> {
  let summary = "yields values from a pto.loop, pto.scope or pto.task body";
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing yielded */ }]>];
  let assemblyFormat = "($values^ `:` qualified(type($values)))? attr-dict";
}

def PTO_LoopOp : PTO_Op<"loop", [
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>,
    DeclareOpInterfaceMethods<LoopLikeOpInterface, [
        "getLoopInductionVars", "getLoopLowerBounds", "getLoopUpperBounds",
        "getLoopSteps", "getInitsMutable", "getRegionIterArgs",
        "getYieldedValuesMutable", "getLoopResults"]>]> {
  let summary = "pypto.loop: a named dynamic loop, never unrolled by the front end";
  let description = [{
    Runs the body for `idx = lower, lower + step, ...` while `idx < upper`
    (trip count `ceil((upper - lower) / step)`, possibly 0). `name` is the
    debug label, `idx_name` the name of the index (taken from the SSA name of
    the induction variable in the custom form). Loop-carried values are
    `iter_args`, yielded by `pto.yield`; the results are their final values.

    `unroll_list` lists unroll factors (a hint: nothing here unrolls, so it
    may sit on any loop, as in PyPTO), `submit_before_loop`
    and `parallel` mirror the PyPTO flags.

    ```mlir
    pto.loop "LOOP_s2_dq" %s2_idx = %c0 to %s2_loop step %c1 { ... }
    %r = pto.loop "L" %i = %c0 to %n step %c1 iter_args(%acc = %init)
        -> (!pto.tile<64x64xf32>) { ... pto.yield %next : !pto.tile<64x64xf32> }
    ```
  }];
  let arguments = (ins Index:$lowerBound, Index:$upperBound, Index:$step,
                       Variadic<AnyType>:$initArgs,
                       StrAttr:$name, StrAttr:$idx_name,
                       OptionalAttr<DenseI64ArrayAttr>:$unroll_list,
                       UnitAttr:$submit_before_loop, UnitAttr:$parallel);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::BlockArgument getInductionVar() { return getBody().getArgument(0); }
    YieldOp getYield();
  }];
}

def PTO_ScopeOp : PTO_Op<"scope", [
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects,
    PTO_ValidShapeIface]> {
  let summary = "sg_set_scope: ops that must form one subgraph";
  let description = [{
    The ops recorded between `set_pass_options(sg_set_scope=id)` and
    `sg_set_scope=-1`. Values used after the scope are yielded. Ops of one
    scope id are merged along data edges (all of them with
    `allow_parallel_merge`); with `allow_cross_scope_merge` the subgraph may
    absorb unscoped subgraphs; different ids never merge.

    Rules: `id >= 0` (PyPTO's -1 is "no scope": write no region); scopes do
    not contain loops (each loop body is compiled on its own) nor other
    scopes; on DAV_2201 a scope is pure cube or pure vector; all scopes of
    one id carry the same flags (checked by the kernel).
  }];
  let arguments = (ins PTO_ScopeAttr:$scope);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "qualified($scope) (`->` `(` qualified(type($results))^ `)`)? $body attr-dict";
  let hasRegionVerifier = 1;
}

def PTO_IsLoopBeginOp : PTO_Op<"is_loop_begin", [Pure]> {
  let summary = "pypto.is_loop_begin: true in the first iteration of a loop";
  let arguments = (ins Index:$index);
  let results = (outs I1:$result);
  let assemblyFormat = "$index attr-dict";
  let hasVerifier = 1;
}

def PTO_IsLoopEndOp : PTO_Op<"is_loop_end", [Pure]> {
  let summary = "pypto.is_loop_end: true in the last iteration of a loop";
  let arguments = (ins Index:$index);
  let results = (outs I1:$result);
  let assemblyFormat = "$index attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Scalars and GM tensors
//===----------------------------------------------------------------------===//

def PTO_ReadOp : PTO_Op<"read", [
    DeclareOpInterfaceMethods<ConditionallySpeculatable>]> {
  let summary = "reads one element of an integer GM tensor as a symbolic scalar";
  let description = [{
    `actual_q[b_idx]` in PyPTO: `%q_start = pto.read %actual_q[%b] : !pto.tensor<?xi32>`.
    The result is an `index`; an index outside the tensor is a run-time fault,
    so the read is not speculatable.
  }];
  let arguments = (ins Arg<PTO_AnyTensor, "", [MemRead]>:$tensor,
                       Variadic<Index>:$indices);
  let results = (outs Index:$result);
  let assemblyFormat = "$tensor `[` $indices `]` attr-dict `:` qualified(type($tensor))";
  let hasVerifier = 1;
}

// No memory-effect interface: the check has no result, yet must not be
// erased as dead (unknown effects keep it).
def PTO_CheckViewOp : PTO_Op<"check_view", [AttrSizedOperandSegments]> {
  let summary = "run-time check of a GM view's offsets and valid extents";
  let description = [{
    Stops the run (a kernel fault, exit 3) unless every offset is >= 0 and
    every valid extent `e` (when given: one per dim, or none) is >= 0 and,
    when > 0, fits the tensor: `offset + e <= dim`, the rule `pto.view`
    applies at program level.
    `pto-expand-tiles` puts one before each program-level view of a kernel
    tensor that it expands: the expanded pieces clamp their extents to the
    tensor (the view rule), so without it a view past the end of a tensor
    would silently read less in compiled code than `pto-run` reads in the
    source. It stays in the control program (before the launches that use
    the view); `pto-run` and emitted programs check it with the same rule
    and message (docs/Guarantees.md).

    ```mlir
    pto.check_view %k2[%s2_off, %h_ofs] valid [%a_s2, %c64] : !pto.tensor<?x128xbf16>
    ```
  }];
  let arguments = (ins PTO_AnyTensor:$tensor, Variadic<Index>:$offsets,
                       Variadic<Index>:$valid_shape);
  let assemblyFormat = [{
    $tensor `[` $offsets `]` `valid` ` ` `[` $valid_shape `]` attr-dict `:`
    qualified(type($tensor))
  }];
  let hasVerifier = 1;
}

// Unknown effects for the same reason as pto.check_view.
def PTO_CheckTileViewOp : PTO_Op<"check_tile_view", [AttrSizedOperandSegments]> {
  let summary = "run-time check of a tile view's offsets and valid extents";
  let description = [{
    Stops the run (a kernel fault, exit 3) unless every offset is >= 0 and
    every valid extent `e` (when given: one per dim, or none) is >= 0 and,
    when > 0, fits the source tile's valid region: `offset + e <= source`,
    where `source` lists the run-time valid extents of the viewed tile.
    That is the rule `pto.view` of a tile applies in `pto-run`, with the
    same message.

    `pto-expand-tiles` puts one before each view of a tile that may fail it
    (dynamic offsets, or explicit valid extents not statically inside):
    the expanded pieces read such a view's window straight from their own
    load, with extents clamped to the source, and the view itself dies. It
    stays in the control program (before the launches of the view's
    pieces); `pto-run` and emitted programs check it with the same rule and
    message (docs/Guarantees.md). A view of a tile whose extents are known
    only through `pto.valid_dim` (loop-carried, an `scf.if` result) gets
    none: it is not composed into loads and runs as a view.

    ```mlir
    pto.check_tile_view [%c0, %c0] valid [%c12, %n] of [%c12, %c2048]
    ```
  }];
  let arguments = (ins Variadic<Index>:$offsets, Variadic<Index>:$valid_shape,
                       Variadic<Index>:$source_valid);
  let assemblyFormat = [{
    ` ` `[` $offsets `]` `valid` ` ` `[` $valid_shape `]` `of` ` ` `[` $source_valid `]`
    attr-dict
  }];
  let hasVerifier = 1;
}

def PTO_DimOp : PTO_Op<"dim", [Pure]> {
  let summary = "a dimension of a GM tensor (`x.shape[i]`)";
  let arguments = (ins PTO_AnyTensor:$source, I64Attr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$source `,` $dim attr-dict `:` qualified(type($source))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def PTO_ValidDimOp : PTO_Op<"valid_dim", [Pure]> {
  let summary = "the run-time valid extent of one dim of a tile";
  let description = [{
    What the valid-shape reifier produces when a tile's producer states no
    rule (a loop-carried tile, an `scf.if` result): `%e = pto.valid_dim %t, 0`.
  }];
  let arguments = (ins PTO_AnyTile:$source, I64Attr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$source `,` $dim attr-dict `:` qualified(type($source))";
  let hasVerifier = 1;
}

def PTO_ReshapeOp : PTO_Op<"reshape", [NoMemoryEffect,
    DeclareOpInterfaceMethods<ConditionallySpeculatable>]> {
  let summary = "pypto.reshape of a GM tensor";
  let description = [{
    `inplace` aliases the source (zero copy; works with dynamic shapes). The
    new shape mixes static sizes and `index` values; dynamic dims of the result
    type are exactly the dynamic entries. Free of memory effects but not
    speculatable: a new shape whose size differs from the source's is a
    run-time fault.

    ```mlir
    %q2 = pto.reshape %q [%total_q, 512] inplace
        : !pto.tensor<?x8x64xbf16> -> !pto.tensor<?x512xbf16>
    ```
  }];
  let arguments = (ins PTO_AnyTensor:$source, Variadic<Index>:$shape,
                       DenseI64ArrayAttr:$static_shape, UnitAttr:$inplace);
  let results = (outs PTO_AnyTensor:$result);
  let assemblyFormat = [{
    $source custom<DynamicIndexList>($shape, $static_shape) (`inplace` $inplace^)?
    attr-dict `:` qualified(type($source)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def PTO_ViewOp : PTO_Op<"view", [AttrSizedOperandSegments, PTO_ValidShapeIface,
                                 DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
                                 DeclareOpInterfaceMethods<ConditionallySpeculatable>]> {
  let summary = "pypto.view: a static window at dynamic offsets, with a valid shape";
  let description = [{
    A static-shaped window of a GM tensor (or of a tile) at offsets that may be
    dynamic. The valid extents are `min(max(parentValid - offset, 0), shape)`
    per dim, intersected with the optional explicit `valid` shape. Data
    outside the valid region is never relied upon.

    ```mlir
    %q_i = pto.view %q2[%s1_off, %h_ofs] valid [%a_s1, 64]
        : !pto.tensor<?x512xbf16> -> !pto.tile<2048x64xbf16>
    ```
  }];
  let arguments = (ins PTO_TileOrTensor:$source,
                       Variadic<Index>:$offsets,
                       DenseI64ArrayAttr:$static_offsets,
                       Variadic<Index>:$valid_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$static_valid_shape);
  let results = (outs PTO_AnyTile:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def PTO_MatmulOp : PTO_Op<"matmul", [Pure, PTO_CubeOpTrait, PTO_ValidShapeIface]> {
  let summary = "pypto.matmul: op(A)·op(B) on the cube, out dtype from the result";
  let description = [{
    `A` is `[M, K]` (`[K, M]` with `a_trans`), `B` is `[K, N]` (`[N, K]` with
    `b_trans`); the result is `[M, N]` of the out dtype. `cube_tile` is the
    `set_cube_tile_shapes` in force. The contraction runs over the valid K.
  }];
  let arguments = (ins PTO_AnyTile:$lhs, PTO_AnyTile:$rhs,
                       UnitAttr:$a_trans, UnitAttr:$b_trans,
                       PTO_CubeTileAttr:$cube_tile);
  let results = (outs PTO_AnyTile:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

class PTO_VectorOp<string mnemonic, list<Trait> traits = []>
    : PTO_Op<mnemonic, !listconcat([Pure, PTO_VectorOpTrait, PTO_ValidShapeIface],
                                   traits)>;

// `evaluate`: the op's value on f32 elements `lhs` and `rhs`, a C++
// expression (ElementwiseBinaryOpInterface).
class PTO_BinaryOp<string mnemonic, string pyName, string evaluate,
                   dag extraArgs = (ins)>
    : PTO_VectorOp<mnemonic, [PTO_ElementwiseOpTrait,
          PTO_ElementwiseBinaryOpInterface]> {
  let summary = "pypto." # pyName # ": elementwise with broadcast or a scalar";
  let description = [{
    Both tile operands have the same rank and dtype; a dim of size 1 in one
    operand broadcasts (data and valid extent) along the other's size, e.g. the
    `[M, 1]` row statistics against `[M, N]` scores. The right operand may
    instead be a scalar of the element type (`mul(S, scale)`). bf16 on an
    architecture without bf16 vector arithmetic (DAV_2201) is computed in f32
    by `pto-legalize`, as PyPTO's AutoCast does; so is HIGH_PRECISION where
    the architecture has none made INTRINSIC.
  }];
  let arguments = !con((ins PTO_AnyTile:$lhs, PTO_TileOrScalar:$rhs,
                            OptionalAttr<PTO_VecTileAttr>:$vec_tile), extraArgs);
  let results = (outs PTO_AnyTile:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    static float evaluate(float lhs, float rhs) { return }] # evaluate # [{; }
  }];
}

def PTO_AddOp : PTO_BinaryOp<"add", "add", "lhs + rhs">;
def PTO_SubOp : PTO_BinaryOp<"sub", "sub", "lhs - rhs">;
def PTO_MulOp : PTO_BinaryOp<"mul", "mul", "lhs * rhs">;
// INTRINSIC and HIGH_PRECISION both evaluate as the correctly rounded host
// divide; the hardware's intrinsic differs in the last bits.
def PTO_DivOp : PTO_BinaryOp<"div", "div", "lhs / rhs",
    (ins DefaultValuedAttr<PTO_PrecisionAttr,
         "::mlir::pto::PrecisionType::HIGH_PRECISION">:$precision)>;
def PTO_MaxOp : PTO_BinaryOp<"max", "maximum", "std::fmax(lhs, rhs)">;
def PTO_MinOp : PTO_BinaryOp<"min", "minimum", "std::fmin(lhs, rhs)">;

// `evaluate`: the op's value on an f32 element `x`, a C++ expression
// (ElementwiseUnaryOpInterface).
class PTO_UnaryOp<string mnemonic, string pyName, string evaluate,
                  dag extraArgs = (ins)>
    : PTO_VectorOp<mnemonic, [PTO_ElementwiseOpTrait,
          PTO_ElementwiseUnaryOpInterface]> {
  let summary = "pypto." # pyName # ": elementwise";
  let arguments = !con((ins PTO_AnyTile:$input,
                            OptionalAttr<PTO_VecTileAttr>:$vec_tile), extraArgs);
  let results = (outs PTO_AnyTile:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    static float evaluate(float x) { return }] # evaluate # [{; }
  }];
}

def PTO_ExpOp : PTO_UnaryOp<"exp", "exp", "std::exp(x)",
    (ins DefaultValuedAttr<PTO_PrecisionAttr,
         "::mlir::pto::PrecisionType::INTRINSIC">:$precision)>;
def PTO_NegOp : PTO_UnaryOp<"neg", "neg", "-x">;
def PTO_AbsOp : PTO_UnaryOp<"abs", "abs", "std::fabs(x)">;
def PTO_SqrtOp : PTO_UnaryOp<"sqrt", "sqrt", "std::sqrt(x)">;
def PTO_RsqrtOp : PTO_UnaryOp<"rsqrt", "rsqrt", "1.0f / std::sqrt(x)">;
def PTO_ReciprocalOp : PTO_UnaryOp<"reciprocal", "reciprocal", "1.0f / x">;
def PTO_LogOp : PTO_UnaryOp<"log", "log", "std::log(x)",
    (ins DefaultValuedAttr<PTO_PrecisionAttr,
         "::mlir::pto::PrecisionType::INTRINSIC">:$precision)> {
  let description = [{
    The natural logarithm of each element (f16, bf16 or f32 on every
    architecture, as PyPTO's `log`); `precision` is PyPTO's `precision_type`
    (`HIGH_PRECISION` becomes `INTRINSIC` on DAV_2201 in `pto-legalize`).
    Lowered to pto-isa's TLOG.
  }];
}
def PTO_TanhOp : PTO_UnaryOp<"tanh", "tanh", "std::tanh(x)"> {
  let description = [{
    The hyperbolic tangent of each element (f16, bf16 or f32 on every
    architecture, as PyPTO's `tanh`). pto-isa has no tanh instruction: the
    ISA lowering computes `1 - 2 / (exp(2x) + 1)` in f32 (docs/ISA.md,
    "tanh").
  }];
}

class PTO_ReduceOp<string mnemonic, string pyName>
    : PTO_VectorOp<mnemonic, [PTO_ReductionOpTrait]> {
  let summary = "pypto." # pyName # ": reduction over one dim of the valid region";
  let description = [{
    Reduces `dim` over the valid region only. With `keepdim` the result keeps
    the dim with size 1; without, the dim is dropped. A vector tile over the
    architecture's reduction tile limit (64 KiB on both archs) is re-tiled by
    `pto-legalize` (its outer dims halved); one whose last dim alone is over
    the limit is an error, as in PyPTO.
  }];
  let arguments = (ins PTO_AnyTile:$input, I64Attr:$dim, UnitAttr:$keepdim,
                       OptionalAttr<PTO_VecTileAttr>:$vec_tile);
  let results = (outs PTO_AnyTile:$result);
  let assemblyFormat = [{
    $input `dim` `=` $dim (`keepdim` $keepdim^)? attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def PTO_SumOp : PTO_ReduceOp<"sum", "sum">;
def PTO_AmaxOp : PTO_ReduceOp<"amax", "amax">;

def PTO_CastOp : PTO_VectorOp<"cast", [PTO_ElementwiseOpTrait]> {
  let summary = "pypto.cast: dtype conversion with a rounding mode";
  let description = [{
    `mode` is PyPTO's CastMode; `NONE` means the default of the dtype pair
    (RINT for float narrowing, TRUNC for float to int). The verifier rejects
    pairs and modes the architecture does not support, instead of PyPTO's
    silent fallback.

    `satmode` is PyPTO's SaturationMode
    (`hicann/pypto/docs/api/operation/pypto-cast.md`): a value out of an integer
    destination's range is clamped to it (`ON`), or wrapped to its width,
    two's complement (`OFF`, PyTorch's behaviour). `OFF`, the default,
    wraps only on the pairs where PyPTO wraps (f16 -> i8, f16 -> i16,
    f32 -> i16, i32 -> i16, i64 -> i32); every other pair saturates
    either way. NaN converts to 0.

    ```mlir
    %q = pto.cast %h {mode = #pto.round_mode<TRUNC>, satmode = #pto.sat_mode<ON>}
        : !pto.tile<4x64xf16> -> !pto.tile<4x64xi8>
    ```
  }];
  let arguments = (ins PTO_AnyTile:$input,
                       DefaultValuedAttr<PTO_CastModeAttr,
                           "::mlir::pto::CastMode::NONE">:$mode,
                       DefaultValuedAttr<PTO_SaturationModeAttr,
                           "::mlir::pto::SaturationMode::OFF">:$satmode,
                       OptionalAttr<PTO_VecTileAttr>:$vec_tile);
  let results = (outs PTO_AnyTile:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The mode actually applied: `mode`, or the pair's default for NONE.
    CastMode getEffectiveMode();
    /// True when out-of-range values clamp (satmode ON, or a pair on which
    /// PyPTO never wraps); false when they wrap to the destination width.
    bool saturates();
    /// The pairs on which PyPTO's SaturationMode::OFF wraps.
    static bool wrapsWithoutSaturation(Type from, Type to);
  }];
}

def PTO_TransposeOp : PTO_VectorOp<"transpose"> {
  let summary = "pypto.transpose: swaps two dims of a tile (data and valid shape)";
  let description = [{
    `result[..., j, ..., i, ...] = input[..., i, ..., j, ...]` with dims
    `dim0` and `dim1` exchanged (PyTorch's `transpose(x, dim0, dim1)`, which
    PyPTO follows). The result type is the input type with the two sizes
    exchanged; the valid extents are exchanged the same way. The dtype is
    kept; any 1-, 2- or 4-byte element type moves (bf16 included: a
    transpose is data movement, not arithmetic), as pto-isa's TTRANS does.
    Dims are non-negative (the front end normalises Python's negative dims).

    ```mlir
    %t = pto.transpose %m, 0, 1 : !pto.tile<1x128xf32> -> !pto.tile<128x1xf32>
    ```
  }];
  let arguments = (ins PTO_AnyTile:$input, I64Attr:$dim0, I64Attr:$dim1,
                       OptionalAttr<PTO_VecTileAttr>:$vec_tile);
  let results = (outs PTO_AnyTile:$result);
  let assemblyFormat = [{
    $input `,` $dim0 `,` $dim1 attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def PTO_GatherMaskOp : PTO_VectorOp<"gathermask"> {
  let summary = "pypto.gathermask: keeps the last-dim elements a fixed bit pattern selects";
  let description = [{
    PyPTO's `gathermask(x, pattern_mode)` (hicann/pypto
    `python/pypto/op/indexing.py`: the positions whose pattern bit is 1 form
    the output): along the last dim, mode 1 keeps elements `0::2`, mode 2
    `1::2`, modes 3 to 6 keep `0::4`, `1::4`, `2::4`, `3::4`, and mode 7
    keeps all. The other dims are unchanged; the last dim is divided by the
    stride (2, 4 or 1) and must be a multiple of it. The valid extent of the
    last dim is the number of selected elements among the valid ones,
    `ceildiv(max(valid - phase, 0), stride)`; the others are the input's.
    The dtype is kept (data movement); 2- and 4-byte types, as pto-isa's
    mask-pattern `TGATHER` (`MaskPattern::P0101` ... `P1111`) moves them.
    A vector tile governs the input; its last dim must be a multiple of the
    stride so that no piece splits a group.

    ```mlir
    %even = pto.gathermask %x, pattern = 1 : !pto.tile<16x64xf32> -> !pto.tile<16x32xf32>
    ```
  }];
  let arguments = (ins PTO_AnyTile:$input, I64Attr:$pattern_mode,
                       OptionalAttr<PTO_VecTileAttr>:$vec_tile);
  let results = (outs PTO_AnyTile:$result);
  let assemblyFormat = [{
    $input `,` `pattern` `=` $pattern_mode attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Every `stride`-th element from `phase` on is kept (mode 7: 1 and 0).
    static int64_t strideOf(int64_t patternMode) {
      return patternMode <= 2 ? 2 : patternMode <= 6 ? 4 : 1;
    }
    static int64_t phaseOf(int64_t patternMode) {
      return patternMode <= 2 ? patternMode - 1
                              : patternMode <= 6 ? patternMode - 3 : 0;
    }
    int64_t getStride() { return strideOf(getPatternMode()); }
    int64_t getPhase() { return phaseOf(getPatternMode()); }
  }];
}

def PTO_BitcastOp : PTO_VectorOp<"bitcast"> {
  let summary = "pypto.view(x, dtype=): the tile's bytes read as another dtype";
  let description = [{
    PyPTO's `view(x, dtype=dt)` (its `OP_VIEW_TYPE`): the result holds the
    input's bytes unchanged, read as elements of another type. The leading
    dims are kept; the last dim is scaled by the ratio of the element sizes,
    `last * bytes(input) / bytes(result)`, and must come out whole (a
    narrowing f32 -> i8 multiplies it by 4; a widening i8 -> f32 needs a
    multiple of 4). The valid extent of the last dim is scaled the same way,
    rounded down (PyPTO's `valid * bytes(input) / bytes(result)`); the
    others are the input's. Any element types of whole bytes (not i1: a mask
    is bits). A vector tile governs the input; a widening needs its last dim
    to scale to a whole number too, so no piece splits a result element.

    ```mlir
    %b = pto.bitcast %x : !pto.tile<4x8xf32> -> !pto.tile<4x32xi8>
    ```
  }];
  let arguments = (ins PTO_AnyTile:$input,
                       OptionalAttr<PTO_VecTileAttr>:$vec_tile);
  let results = (outs PTO_AnyTile:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// `extent` elements of the input's last dim as result elements (rounded
    /// down).
    int64_t scaleLast(int64_t extent) {
      return extent * getInput().getType().getElementByteSize() /
             getResult().getType().getElementByteSize();
    }
  }];
}

def PTO_FullOp : PTO_VectorOp<"full"> {
  let summary = "a tile filled with one constant (fully valid)";
  let arguments = (ins F64Attr:$value, OptionalAttr<PTO_VecTileAttr>:$vec_tile);
  let results = (outs PTO_AnyTile:$result);
  let assemblyFormat = "$value attr-dict `:` qualified(type($result))";
}

def PTO_ArangeOp : PTO_VectorOp<"arange"> {
  let summary = "pypto.arange: a 1-D tile of start + i * step (fully valid)";
  let description = [{
    PyPTO's `arange(start, end, step)`
    (https://github.com/hicann/pypto/blob/master/docs/api/operation/pypto-arange.md):
    element `i` of the `[n]` result is `start + i * step`, `n` being
    `ceil((end - start) / step)` (the front end computes it). Integer
    results need integral `start` and `step` within i32. A vector tile
    `[t]` cuts it into pieces whose `start` moves by `t * step`. Lowered to
    pto-isa's `TCI` (i32, step 1), or `TCI` from 0 then `TCVT` (f32),
    `TMULS` by step and `TADDS` of start (i32, f32).

    ```mlir
    %i = pto.arange 0.0, 1.0 : !pto.tile<128xi32>
    ```
  }];
  let arguments = (ins F64Attr:$start, F64Attr:$step,
                       OptionalAttr<PTO_VecTileAttr>:$vec_tile);
  let results = (outs PTO_AnyTile:$result);
  let assemblyFormat = "$start `,` $step attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

include "pto/Dialect/PTO/IR/PTOMaskOps.td"

//===----------------------------------------------------------------------===//
// Writes to GM
//===----------------------------------------------------------------------===//

class PTO_StoreLikeOp<string mnemonic>
    : PTO_Op<mnemonic, [PTO_VectorOpTrait, MemoryEffects<[MemRead, MemWrite]>]> {
  let arguments = (ins PTO_AnyTile:$src, PTO_AnyTensor:$dst,
                       Variadic<Index>:$offsets, DenseI64ArrayAttr:$static_offsets,
                       OptionalAttr<PTO_VecTileAttr>:$vec_tile);
  let assemblyFormat = [{
    $src `,` $dst custom<DynamicIndexList>($offsets, $static_offsets)
    attr-dict `:` qualified(type($src)) `,` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def PTO_AtomicAddOp : PTO_StoreLikeOp<"atomic_add"> {
  let summary = "pypto.atomic_add: dst[offsets + i] += src[i] over src's valid region";
  let description = [{
    Adds exactly the valid region of `src` into `dst` at `offsets`.
    `offsets + validExtent <= dst.shape` must hold (checked at run time).
    Contributions to one element commute; their order is unspecified.
  }];
}

def PTO_AssembleOp : PTO_StoreLikeOp<"assemble"> {
  let summary = "pypto.assemble: writes src's valid region into dst at offsets";
}

def PTO_IndexPutOp : PTO_Op<"index_put", [
    PTO_VectorOpTrait, MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "pypto.index_put_ / index_add_: writes tile rows into GM rows "
                "chosen at run time";
  let description = [{
    PyPTO's `index_put_(dst, (indices,), src, accumulate)` and
    `index_add_(dst, 0, indices, src)` (hicann/pypto/docs/api/operation/
    `pypto-indexput_.md`, `pypto-index_add_.md`): for each
    valid row `i` of `src`, row `offsets[0] + indices[i]` of `dst` gets the
    row's valid columns at `offsets[1]` on, added to what is there with
    `accumulate` (contributions to one row commute), written otherwise
    (duplicate indices: one of the rows wins, as in PyPTO).

    `src` is `[N, C]`, `indices` a rank-1 `[N]` i32 tile (valid for at least
    the valid rows of `src`), `dst` a rank-2 tensor of the same dtype. A
    row outside `dst` is a run-time fault naming the index and the row, in
    `pto-run` and in the emitted program. The front end writes offsets 0;
    tile expansion cuts the columns into pieces at other offsets. A vector
    tile `[t]` cuts the rows (PyPTO's 1-D tile), `[t, c]` rows and columns.
    Lowered to pto-isa's row-mode `MSCATTER` (`ScatterAtomicOp::Add` when
    accumulating).

    ```mlir
    pto.index_put %v, %out[%idx] [0, 0] accumulate
        : !pto.tile<64x16xf32>, !pto.tile<64xi32>, !pto.tensor<?x16xf32>
    ```
  }];
  let arguments = (ins PTO_AnyTile:$src, PTO_AnyTensor:$dst,
                       PTO_AnyTile:$indices,
                       Variadic<Index>:$offsets, DenseI64ArrayAttr:$static_offsets,
                       UnitAttr:$accumulate,
                       OptionalAttr<PTO_VecTileAttr>:$vec_tile);
  let assemblyFormat = [{
    $src `,` $dst `[` $indices `]` custom<DynamicIndexList>($offsets, $static_offsets)
    (`accumulate` $accumulate^)? attr-dict `:` qualified(type($src)) `,`
    qualified(type($indices)) `,` qualified(type($dst))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The piece `[rows, cols]` a vector tile cuts `src` into (the whole
    /// tile without one).
    ::llvm::SmallVector<int64_t, 2> getPieceShape();
  }];
}

//===----------------------------------------------------------------------===//
// Tile-graph level: workspace, accumulating matmul, tasks
//===----------------------------------------------------------------------===//

def PTO_WorkspaceOp : PTO_Op<"workspace", [
    MemoryEffects<[MemAlloc]>]> {
  let summary = "a GM workspace tensor owned by one root-function instance";
  let description = [{
    Scratch GM that tile-graph code uses to pass tiles between tasks (and,
    right after expansion, between any two tile ops). Its contents are
    undefined until written; every read is of a region written earlier in the
    same instance. Static shape.

    ```mlir
    %ws = pto.workspace : !pto.tensor<2048x2048xf32>
    ```
  }];
  let results = (outs PTO_AnyTensor:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def PTO_MatmulAccOp : PTO_Op<"matmul_acc", [Pure, PTO_CubeOpTrait,
                                            PTO_ValidShapeIface]> {
  let summary = "acc + op(A)·op(B): one K step of an expanded matmul";
  let description = [{
    Adds a product to a partial result held in FP32 (INT32 for i8 inputs), as
    the cube accumulates in L0C; the result is rounded to the result's element
    type once, so a chain of K steps rounds exactly like one matmul. Operand
    rules as `pto.matmul`; the accumulator is `[M, N]`. The valid shape is the
    accumulator's.
  }];
  let arguments = (ins PTO_AnyTile:$acc, PTO_AnyTile:$lhs, PTO_AnyTile:$rhs,
                       UnitAttr:$a_trans, UnitAttr:$b_trans,
                       PTO_CubeTileAttr:$cube_tile);
  let results = (outs PTO_AnyTile:$result);
  let assemblyFormat = [{
    $acc `,` $lhs `,` $rhs attr-dict `:` qualified(type($acc)) `,`
    qualified(type($lhs)) `,` qualified(type($rhs)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def PTO_TaskOp : PTO_Op<"task", [
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects]> {
  let summary = "tile ops that run as one task on one core";
  let description = [{
    Formed by `pto-partition`: a group of tile ops executed on one core (a
    cube core, a vector core, or on DAV_3510 a MIX group). Tasks exchange data
    through GM (workspace or kernel tensors), so they usually yield nothing.
    `family` names the stage (`C1`, `V1`, `C2`, `V2`, ...), `scope` is the
    `sg_set_scope` the ops carried, if any.

    ```mlir
    pto.task #pto.core<cube> "C1" { ... }
    ```
  }];
  let arguments = (ins PTO_CoreKindAttr:$kind, StrAttr:$family,
                       OptionalAttr<PTO_ScopeAttr>:$scope);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    qualified($kind) $family (`->` `(` qualified(type($results))^ `)`)? $body attr-dict
  }];
  let hasRegionVerifier = 1;
}

def PTO_LaunchOp : PTO_Op<"launch", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "issues one call task: a leaf function on one core";
  let description = [{
    A node of the execute graph (a root function's body after `pto-outline`):
    runs leaf `@callee` with `operands` once its `deps` have completed and
    returns a token other launches can depend on. Isomorphic tasks share one
    leaf.

    ```mlir
    %t1 = pto.launch @sk16_leaf_c1(%ws, %q2, %a, %b) : (...) -> !pto.token
    %t2 = pto.launch @sk16_leaf_v1(%ws, %c) after [%t1] : (...) -> !pto.token
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$args,
                       Variadic<PTO_TokenType>:$deps);
  let results = (outs PTO_TokenType:$token);
  let assemblyFormat = [{
    $callee `(` $args `)` (`after` `[` $deps^ `]`)? attr-dict `:` functional-type($args, $token)
  }];
}

def PTO_RootCallOp : PTO_Op<"root_call", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "instantiates a root function (one loop-body instance)";
  let description = [{
    The control-flow program's call of a root function: one instance of a
    loop body's execute graph. `pto-plan-stitch` attaches `stitch`, how many
    consecutive instances one device task stitches.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$args,
                       OptionalAttr<PTO_StitchPlanAttr>:$stitch);
  let assemblyFormat = [{
    $callee `(` $args `)` attr-dict `:` functional-type($args, results)
  }];
}

include "pto/Dialect/PTO/IR/PTOSortOps.td"

#endif // PTO_OPS_TD

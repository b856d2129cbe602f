//===- PTOAttrs.td - pto attributes and enums --------------*- tablegen -*-===//
//
// PyPTO's ambient state (jit options, set_cube_tile_shapes, set_vec_tile_shapes,
// set_pass_options(sg_set_scope=...), set_operation_options) as typed
// attributes. Each attribute verifies what it can check on its own; checks that
// need a dtype or an architecture live in the verifiers of the ops using it.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_ATTRS_TD
#define PTO_ATTRS_TD

include "pto/Dialect/PTO/IR/PTODialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def PTO_Arch : I32EnumAttr<"Arch", "Ascend NPU architecture", [
    I32EnumAttrCase<"DAV_2201", 0>,   // A2/A3: 910B / 910C
    I32EnumAttrCase<"DAV_3510", 1>    // 950
  ]> {
  let cppNamespace = "::mlir::pto";
  let genSpecializedAttr = 0;
}
def PTO_ArchAttr : EnumAttr<PTO_Dialect, PTO_Arch, "arch"> {
  let assemblyFormat = "`<` $value `>`";
}

def PTO_PrecisionType : I32EnumAttr<"PrecisionType",
    "PyPTO PrecisionType of exp/div and friends", [
    I32EnumAttrCase<"INTRINSIC", 0>,
    I32EnumAttrCase<"HIGH_PRECISION", 1>
  ]> {
  let cppNamespace = "::mlir::pto";
  let genSpecializedAttr = 0;
}
def PTO_PrecisionAttr : EnumAttr<PTO_Dialect, PTO_PrecisionType, "precision"> {
  let assemblyFormat = "`<` $value `>`";
}

def PTO_CastMode : I32EnumAttr<"CastMode", "PyPTO CastMode (rounding)", [
    I32EnumAttrCase<"NONE", 0>,    // the default mode of the dtype pair
    I32EnumAttrCase<"RINT", 1>,    // nearest, ties to even
    I32EnumAttrCase<"ROUND", 2>,   // nearest, ties away from zero
    I32EnumAttrCase<"FLOOR", 3>,
    I32EnumAttrCase<"CEIL", 4>,
    I32EnumAttrCase<"TRUNC", 5>,   // toward zero
    I32EnumAttrCase<"ODD", 6>      // round to odd
  ]> {
  let cppNamespace = "::mlir::pto";
  let genSpecializedAttr = 0;
}
def PTO_CastModeAttr : EnumAttr<PTO_Dialect, PTO_CastMode, "round_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def PTO_SaturationMode : I32EnumAttr<"SaturationMode",
    "PyPTO SaturationMode (integer overflow of a cast)", [
    I32EnumAttrCase<"OFF", 0>,     // the pair's default: wrap where PyPTO wraps
    I32EnumAttrCase<"ON", 1>       // clamp to the destination's range
  ]> {
  let cppNamespace = "::mlir::pto";
  let genSpecializedAttr = 0;
}
def PTO_SaturationModeAttr : EnumAttr<PTO_Dialect, PTO_SaturationMode, "sat_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

// PyPTO's comparison ops (hicann/pypto python/pypto/op/comparison.py:
// OpType EQ/NE/LT/GT/GE/LE), printed as the keyword (`pto.compare ge, ...`).
def PTO_CmpMode : I32EnumAttr<"CmpMode", "PyPTO comparison (pypto.eq .. pypto.le)", [
    I32EnumAttrCase<"EQ", 0, "eq">,
    I32EnumAttrCase<"NE", 1, "ne">,
    I32EnumAttrCase<"LT", 2, "lt">,
    I32EnumAttrCase<"GT", 3, "gt">,
    I32EnumAttrCase<"GE", 4, "ge">,
    I32EnumAttrCase<"LE", 5, "le">
  ]> {
  let cppNamespace = "::mlir::pto";
}

def PTO_CoreKind : I32EnumAttr<"CoreKind", "the core a task runs on", [
    I32EnumAttrCase<"cube", 0>,    // AIC
    I32EnumAttrCase<"vector", 1>,  // AIV
    I32EnumAttrCase<"mix", 2>      // AIC + AIV (DAV_3510 MIX subgraphs)
  ]> {
  let cppNamespace = "::mlir::pto";
  let genSpecializedAttr = 0;
}
def PTO_CoreKindAttr : EnumAttr<PTO_Dialect, PTO_CoreKind, "core"> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Option and config attributes
//===----------------------------------------------------------------------===//

class PTO_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<PTO_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def PTO_RuntimeOptionsAttr : PTO_Attr<"RuntimeOptions", "runtime_options"> {
  let summary = "jit runtime_options";
  let description = [{
    `@jit(runtime_options=...)`. Every field is optional; absent fields take
    PyPTO's defaults. `ready_on_host_tensors` must name arguments of the
    enclosing kernel (checked by `pto.kernel`).

    ```mlir
    #pto.runtime_options<stitch_function_max_num = 512, device_sched_mode = 3,
                         ready_on_host_tensors = ["actual_q", "actual_kv"],
                         max_workspace_kb = 25170624>
    ```
  }];
  let parameters = (ins
    OptionalParameter<"std::optional<int64_t>">:$stitch_function_max_num,
    OptionalParameter<"std::optional<int64_t>">:$device_sched_mode,
    OptionalParameter<"::mlir::ArrayAttr">:$ready_on_host_tensors,
    OptionalParameter<"std::optional<int64_t>">:$max_workspace_kb,
    OptionalParameter<"std::optional<int64_t>">:$device_sched_parallelism
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def PTO_MergeSettingAttr : PTO_Attr<"MergeSetting", "merge_setting"> {
  let summary = "an int-keyed merge-granularity map of set_pass_options";
  let description = [{
    The integer-keyed form of `vec_nbuffer_setting`, `cube_l1_reuse_setting`
    and `cube_nbuffer_setting`: key `-1` is the default of every group, key
    `k >= 0` the isomorphic group of hash order `k`, the value `N >= 1` merges
    every `N` isomorphic subgraphs of the group (`1` = no merge). In
    `cube_l1_reuse_setting` a value may be `(N, "left"|"right"|"auto")` to
    restrict reuse to one side's copy-ins; in `vec_nbuffer_setting` key `-2`
    with value `0` (automatic) or `1` (manual) controls multi-input/output
    merging. Inside `#pto.pass_options` the map is written bare:
    `{-1 : 1, 0 : 4}`.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$keys,
                        ArrayRefParameter<"int64_t">:$counts,
                        ArrayRefParameter<"int64_t">:$sides);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Parses / prints the bare `{key : value, ...}` map.
    static MergeSettingAttr parseBody(::mlir::AsmParser &parser);
    void printBody(::mlir::AsmPrinter &printer) const;
    /// The merge count for hash-order group `group`, falling back to key -1;
    /// std::nullopt when neither is present (automatic).
    std::optional<int64_t> getCountFor(int64_t group) const;
  }];
}

def PTO_PassOptionsAttr : PTO_Attr<"PassOptions", "pass_options"> {
  let summary = "jit pass_options (merge-granularity settings)";
  let description = [{
    ```mlir
    #pto.pass_options<cube_l1_reuse_setting = {-1 : 1, 0 : 4}>
    ```
    `sg_set_scope` is not a field here: it is the `pto.scope` region op.
  }];
  let parameters = (ins
    OptionalParameter<"MergeSettingAttr">:$vec_nbuffer_setting,
    OptionalParameter<"MergeSettingAttr">:$cube_l1_reuse_setting,
    OptionalParameter<"MergeSettingAttr">:$cube_nbuffer_setting);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def PTO_CubeTileAttr : PTO_Attr<"CubeTile", "cube_tile"> {
  let summary = "set_cube_tile_shapes: [L0, L1] for m, k and n";
  let description = [{
    `#pto.cube_tile<m = [256, 512], k = [128, 256], n = [128, 512]>`, optionally
    with `split_k`. L0 values are the per-instruction tiles in L0A/L0B/L0C, L1
    values the staging blocks in L1. The attribute checks `0 < L0 <= L1` and
    `L1 % L0 == 0`; alignment and capacity depend on the matmul's dtypes and
    architecture and are checked by `pto.matmul`.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$m,
                        ArrayRefParameter<"int64_t">:$k,
                        ArrayRefParameter<"int64_t">:$n,
                        DefaultValuedParameter<"bool", "false">:$split_k);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getML0() const { return getM()[0]; }
    int64_t getML1() const { return getM()[1]; }
    int64_t getKL0() const { return getK()[0]; }
    int64_t getKL1() const { return getK()[1]; }
    int64_t getNL0() const { return getN()[0]; }
    int64_t getNL1() const { return getN()[1]; }
  }];
}

def PTO_VecTileAttr : PTO_Attr<"VecTile", "vec_tile"> {
  let summary = "set_vec_tile_shapes: the vector tile of an op";
  let description = [{
    `#pto.vec_tile<[64, 256]>`: 1 to 4 positive dims. The last dim must be 32-byte
    aligned in the op's dtype and the rank at least the op's rank (checked by
    the op).
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$dims);
  let assemblyFormat = "`<` `[` $dims `]` `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumElements() const;
  }];
}

def PTO_ScopeAttr : PTO_Attr<"Scope", "scope"> {
  let summary = "sg_set_scope: (scope_id, allow_parallel_merge, allow_cross_scope_merge)";
  let parameters = (ins "int64_t":$id,
                        DefaultValuedParameter<"bool", "false">:$allow_parallel_merge,
                        DefaultValuedParameter<"bool", "false">:$allow_cross_scope_merge);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def PTO_StitchPlanAttr : PTO_Attr<"StitchPlan", "stitch_plan"> {
  let summary = "how many root-function instances one device task stitches";
  let description = [{
    Written by `pto-plan-stitch` on a root call. `workspace_bytes` is the GM
    workspace one root instance needs (32 KiB aligned), `depth` the number of
    consecutive root instances stitched into one device task, `mode` whether
    the depth comes from `max_workspace_kb` (`memory`) or from
    `stitch_function_max_num` (`count`), `launches` the call tasks one
    instance issues.
  }];
  let parameters = (ins "int64_t":$depth, "int64_t":$workspace_bytes,
                        "int64_t":$launches, StringRefParameter<>:$mode);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // PTO_ATTRS_TD

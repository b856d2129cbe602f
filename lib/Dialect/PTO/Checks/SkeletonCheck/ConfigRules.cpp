//===- ConfigRules.cpp - SK-16 rules R8, R10, R12-R14, P8.1 ---------------===//
//
// Configuration: tile configs, in-place reshapes and the K/V row total
// (docs/SK16.md#cross-attention-reshape), scopes, combine_axis and the
// mandated options.
//
//===----------------------------------------------------------------------===//

#include "SkeletonCheckInternals.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <map>

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::check;
using namespace mlir::pto::check::sk16;

//===--------------------------------------------------------------------===//
// R8: "Tile configurations are compile-time constants."
//===--------------------------------------------------------------------===//
void Sk16Checker::checkR8TileConfigs() {
  checkTileConfigs(kernel(), reporter, "SK16-R8");
}

//===--------------------------------------------------------------------===//
// R10: "3-D→2-D reshape(..., inplace=True) at kernel entry."
//===--------------------------------------------------------------------===//
void Sk16Checker::checkR10Reshapes() {
  for (BlockArgument arg :
       {model.q, model.k, model.v, model.o, model.dO, model.l, model.m}) {
    auto type = cast<GMTensorType>(arg.getType());
    if (type.getRank() != 3)
      continue;
    int64_t merged = ShapedType::isDynamic(type.getDimSize(1)) ||
                             ShapedType::isDynamic(type.getDimSize(2))
                         ? ShapedType::kDynamic
                         : type.getDimSize(1) * type.getDimSize(2);
    std::string want = merged == ShapedType::kDynamic
                           ? std::string("[total, N·D]")
                           : "[total, " + std::to_string(merged) + "]";
    // Follow chains of reshapes: an in-place reshape done in steps is
    // judged by the alias the kernel uses (a reshape whose users are only
    // further reshapes is an intermediate step).
    SmallVector<Value> worklist = {arg};
    while (!worklist.empty()) {
      Value tensor = worklist.pop_back_val();
      for (Operation *user : tensor.getUsers()) {
        if (isa<DimOp>(user))
          continue;
        auto reshape = dyn_cast<ReshapeOp>(user);
        if (!reshape) {
          if (tensor != arg)
            continue; // a use of an alias, judged at its reshape
          error("SK16-R10", user->getLoc(),
                ("'" + user->getName().getStringRef() + "' uses the 3-D " +
                 quoted(arg) + " directly")
                    .str(),
                "reshape " + quoted(arg) + " in place to " + want +
                    " at kernel entry and use the 2-D alias");
          continue;
        }
        checkReshape(reshape, arg, merged, want);
        bool intermediate =
            !reshape->use_empty() &&
            llvm::all_of(reshape->getUsers(), llvm::IsaPred<ReshapeOp, DimOp>);
        if (intermediate)
          worklist.push_back(reshape.getResult());
        else
          checkReshapeShape(reshape, arg, merged, want);
      }
    }
  }
}

/// The reshape is in place and at kernel entry.
void Sk16Checker::checkReshape(ReshapeOp reshape, BlockArgument arg,
                               int64_t merged, const std::string &want) {
  if (!reshape.getInplace())
    error("SK16-R10", reshape.getLoc(),
          "the reshape of " + quoted(arg) + " copies (no 'inplace')",
          "add 'inplace': the 2-D alias is zero copy");
  if (reshape->getParentOp() != kernel().getOperation()) {
    Operation *loop = reshape->getParentOfType<LoopOp>();
    RuleDiagnostic &d =
        error("SK16-R10", reshape.getLoc(),
              "the reshape of " + quoted(arg) +
                  " is not at kernel entry: it runs in every iteration of "
                  "its enclosing loop",
              "hoist the in-place reshape to the kernel entry, before the "
              "batch loop");
    if (loop)
      d.note(loop->getLoc(),
             "the enclosing " + describeLoop(loop) + " is here");
  }
}

/// The alias the kernel uses is [total, N·D].
void Sk16Checker::checkReshapeShape(ReshapeOp reshape, BlockArgument arg,
                                    int64_t merged, const std::string &want) {
  GMTensorType result = reshape.getResult().getType();
  if (result.getRank() == 2 &&
      (merged == ShapedType::kDynamic || result.getDimSize(1) == merged))
    return;
  std::string got;
  llvm::raw_string_ostream os(got);
  os << result;
  error("SK16-R10", reshape.getLoc(),
        "reshapes " + quoted(arg) + " to " + got +
            "; the per-head column slicing needs " + want,
        "reshape to " + want +
            " (heads interleaved along the "
            "columns, head h at columns [h·D, (h+1)·D))");
}

//===--------------------------------------------------------------------===//
// R12: "sg_set_scope=1 around V1 and 2 around V2, reset to −1 after each.
// On A2/A3 ... the scopes must not enclose any matmul."
//===--------------------------------------------------------------------===//
void Sk16Checker::checkR12Scopes() {
  llvm::SetVector<Operation *> v1, v2;
  SmallVector<Value> c2Results;
  for (MatmulOp mm : model.c2) {
    for (Value operand : {mm.getLhs(), mm.getRhs()})
      for (Operation *op : collectTileProducers(operand))
        if (isVectorOp(op))
          v1.insert(op);
    c2Results.push_back(mm.getResult());
  }
  for (Operation *op : collectTileConsumers(c2Results))
    if (isVectorOp(op))
      v2.insert(op);

  // Program order, so "the first op" of a stage is the first in the text.
  DenseMap<Operation *, unsigned> order;
  kernel().walk([&](Operation *op) { order[op] = order.size(); });
  auto byOrder = [&](Operation *a, Operation *b) {
    return order.lookup(a) < order.lookup(b);
  };
  auto moreOps = [](StringRef stage, size_t n) -> std::string {
    return n > 1 ? " and " + std::to_string(n - 1) + " more " + stage.str() +
                       " ops"
                 : std::string();
  };

  // One finding per stage and place: the stage outside any scope, or
  // (part of) it in a scope of the wrong id.
  auto checkStage = [&](StringRef stage, llvm::SetVector<Operation *> &ops,
                        int64_t id, int64_t otherId) {
    SmallVector<Operation *> sorted(ops.begin(), ops.end());
    llvm::sort(sorted, byOrder);
    SmallVector<Operation *> unscoped;
    // Ops in a scope of the wrong id, by scope (a region, or the id of
    // stamped ops on IR after pto-flatten-scopes).
    llvm::MapVector<std::pair<Operation *, int64_t>, SmallVector<Operation *>>
        wrongScope;
    for (Operation *op : sorted) {
      ScopeOp region;
      ScopeAttr scope = getScopeOf(op, &region);
      if (!scope)
        unscoped.push_back(op);
      else if (scope.getId() != id)
        wrongScope[{region, scope.getId()}].push_back(op);
    }
    StringRef otherStage = otherId == 1 ? "V1" : "V2";
    for (auto &[key, inScope] : wrongScope) {
      auto [region, got] = key;
      std::string what = "the " + stage.str() + " op '" +
                         inScope.front()->getName().getStringRef().str() + "'" +
                         moreOps(stage, inScope.size()) + " " +
                         (inScope.size() > 1 ? "are" : "is") + " in scope " +
                         std::to_string(got);
      RuleDiagnostic &d =
          got == otherId
              ? error("SK16-R12", inScope.front()->getLoc(),
                      what + ": scope " + std::to_string(got) +
                          " is not closed after " + otherStage,
                      "close scope " + std::to_string(otherId) + " after " +
                          otherStage + " (sg_set_scope=-1) and put " + stage +
                          " in its own pto.scope #pto.scope<id = " +
                          std::to_string(id) + ">")
              : error("SK16-R12", inScope.front()->getLoc(),
                      what + "; SK-16 puts " + stage + " in scope " +
                          std::to_string(id),
                      "use pto.scope #pto.scope<id = " + std::to_string(id) +
                          "> for " + stage);
      if (region)
        d.note(region->getLoc(), "the scope is here");
    }
    if (!unscoped.empty())
      error(
          "SK16-R12", unscoped.front()->getLoc(),
          "the " + stage + " op '" +
              unscoped.front()->getName().getStringRef() + "'" +
              moreOps(stage, unscoped.size()) +
              (unscoped.size() > 1 ? " are" : " is") +
              " outside any scope: without sg_set_scope=" + std::to_string(id) +
              " the " + stage + " chain splits into small vector subgraphs",
          "wrap the " + stage + " chain in pto.scope #pto.scope<id = " +
              std::to_string(id) + "> { ... }");
  };
  // docs/SK16.md#the-950-variant: on architectures with mixed scopes the
  // whole body may sit in one cube+vector MIX scope; V1 and V2 then share
  // the scope of Q·Kᵀ.
  bool oneMixScope = false;
  if (model.platform->mixedScopes && !model.qk.empty()) {
    ScopeOp qkRegion;
    if (ScopeAttr qkScope = getScopeOf(model.qk.front(), &qkRegion))
      oneMixScope = llvm::all_of(
          llvm::concat<Operation *const>(v1, v2), [&](Operation *op) {
            ScopeOp region;
            ScopeAttr scope = getScopeOf(op, &region);
            return scope && scope.getId() == qkScope.getId() &&
                   region == qkRegion;
          });
  }
  if (!oneMixScope) {
    checkStage("V1", v1, 1, 2);
    checkStage("V2", v2, 2, 1);
  }

  if (model.platform->mixedScopes)
    return;
  llvm::MapVector<std::pair<Operation *, int64_t>, SmallVector<MatmulOp>>
      cubeInScope;
  kernel().walk([&](MatmulOp mm) {
    ScopeOp region;
    if (ScopeAttr scope = getScopeOf(mm, &region))
      cubeInScope[{region, scope.getId()}].push_back(mm);
  });
  for (auto &[key, matmuls] : cubeInScope) {
    auto [region, id] = key;
    std::string more =
        matmuls.size() > 1
            ? " (and " + std::to_string(matmuls.size() - 1) + " more matmuls)"
            : std::string();
    RuleDiagnostic &d = error(
        "SK16-R12", matmuls.front().getLoc(),
        "the matmul " + model.matmulRole(matmuls.front()) + more +
            " is inside scope " + std::to_string(id) + ": on " +
            stringifyArch(model.platform->arch).str() +
            " SK-16's scopes hold the vector stages only and the C stages "
            "run unscoped",
        "move the matmuls out of the scope");
    if (region)
      d.note(region->getLoc(), "the scope is here");
  }
}

//===--------------------------------------------------------------------===//
// R13: "combine_axis=True as the first statement of the body."
//===--------------------------------------------------------------------===//
void Sk16Checker::checkR13CombineAxis() {
  static constexpr StringLiteral fix =
      "set combine_axis = true in the kernel attributes "
      "(set_operation_options(combine_axis=True) as the first statement)";
  std::optional<bool> combine = kernel().getCombineAxis();
  if (!combine)
    warning("SK16-R13", kernel().getLoc(),
            "combine_axis is not set (PyPTO's default is unsettled: the doc "
            "says false, the framework config true); SK-16 sets it "
            "(recommended value: true) so the [M, 1] broadcasts of m, l "
            "and Dvec are inlined with brcb",
            fix);
  else if (!*combine)
    error("SK16-R13", kernel().getLoc(),
          "combine_axis = false materialises the [M, 1] broadcasts of m, l "
          "and Dvec as full [s1_tile, s2_tile] tiles",
          fix);
}

//===--------------------------------------------------------------------===//
// R14: "Mandated options: stitch_function_max_num=512, device_sched_mode=3,
// ready_on_host_tensors=["actual_q","actual_kv"], a platform-measured
// max_workspace_kb (A3: 25 170 624), and cube_l1_reuse_setting={-1:1, 0:4}."
// The 950 variant's options (docs/SK16.md#the-950-variant) are recommended on
// DAV_3510.
//===--------------------------------------------------------------------===//
namespace {
struct MergeEntry {
  int64_t key, count;
};
} // namespace

static std::string formatMerge(MergeSettingAttr attr) {
  if (!attr)
    return "not set";
  std::string s = "{";
  for (size_t i = 0; i < attr.getKeys().size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(attr.getKeys()[i]) + " : " +
         std::to_string(attr.getCounts()[i]);
    // MergeSettingAttr's side codes: 1 left, 2 right, 3 auto.
    static constexpr StringLiteral sides[] = {"", "left", "right", "auto"};
    int64_t side = attr.getSides()[i];
    if (side > 0 && side < 4)
      s += " (\"" + sides[side].str() + "\" side)";
  }
  return s + "}";
}

/// Whether `attr` holds exactly the entries of `want`, in any order.
static bool mergeEquals(MergeSettingAttr attr, ArrayRef<MergeEntry> want) {
  if (!attr || attr.getKeys().size() != want.size())
    return false;
  for (MergeEntry entry : want) {
    auto it = llvm::find(attr.getKeys(), entry.key);
    if (it == attr.getKeys().end())
      return false;
    size_t i = it - attr.getKeys().begin();
    if (attr.getCounts()[i] != entry.count || attr.getSides()[i] != 0)
      return false;
  }
  return true;
}

static std::string formatWant(ArrayRef<MergeEntry> want) {
  std::string s = "{";
  for (auto [i, entry] : llvm::enumerate(want))
    s += (i ? ", " : "") + std::to_string(entry.key) + " : " +
         std::to_string(entry.count);
  return s + "}";
}

void Sk16Checker::checkR14Options() {
  bool a3 = model.platform->arch == Arch::DAV_2201;
  StringRef variant = a3 ? "the A3 kernel (DAV_2201)" : "the 950 kernel";
  RuntimeOptionsAttr runtime = kernel().getRuntimeOptionsAttr();
  PassOptionsAttr passes = kernel().getPassOptionsAttr();
  Location loc = kernel().getLoc();

  auto checkInt = [&](StringRef name, std::optional<int64_t> got, int64_t want,
                      StringRef why) {
    if (got && *got == want)
      return;
    std::string gotText =
        got ? "is " + std::to_string(*got) : std::string("is not set");
    warning("SK16-R14", loc,
            "runtime option " + name + " " + gotText + "; " + variant +
                " uses " + std::to_string(want) +
                " (recommended value: " + std::to_string(want) + "): " + why,
            "set runtime_options = #pto.runtime_options<" + name + " = " +
                std::to_string(want) + ", ...>");
  };
  auto checkMerge = [&](StringRef name, MergeSettingAttr got,
                        ArrayRef<MergeEntry> want, StringRef why) {
    if (mergeEquals(got, want))
      return;
    warning("SK16-R14", loc,
            "pass option " + name + " is " + formatMerge(got) + "; " + variant +
                " uses " + formatWant(want) +
                " (recommended value: " + formatWant(want) + "): " + why,
            "set pass_options = #pto.pass_options<" + name + " = " +
                formatWant(want) + ">");
  };

  auto get = [&](auto getter) -> std::optional<int64_t> {
    if (!runtime)
      return std::nullopt;
    return getter(runtime);
  };
  checkInt("stitch_function_max_num", get([](RuntimeOptionsAttr r) {
             return r.getStitchFunctionMaxNum();
           }),
           a3 ? 512 : 513,
           "single-pass gradient subgraphs are big and a smaller stitch "
           "fragments them");
  checkInt("device_sched_mode",
           get([](RuntimeOptionsAttr r) { return r.getDeviceSchedMode(); }),
           a3 ? 3 : 1,
           a3 ? "L2-affinity plus fairness schedules the many parallel "
                "matmuls"
              : "L2-affinity scheduling");
  if (a3)
    checkInt("max_workspace_kb",
             get([](RuntimeOptionsAttr r) { return r.getMaxWorkspaceKb(); }),
             25170624,
             "the A3-measured workspace enables memory-driven stitching");

  // ready_on_host_tensors must list the control tensors.
  SmallVector<std::string> missing;
  ArrayAttr ready = runtime ? runtime.getReadyOnHostTensors() : ArrayAttr();
  for (StringRef name : {"actual_q", "actual_kv"})
    if (!ready || !llvm::any_of(ready, [&](Attribute a) {
          return cast<StringAttr>(a).getValue() == name;
        }))
      missing.push_back(("'" + name + "'").str());
  if (!missing.empty())
    warning("SK16-R14", loc,
            "runtime option ready_on_host_tensors lacks " +
                llvm::join(missing, " and ") + "; " + variant +
                " lists both (recommended value: [\"actual_q\", "
                "\"actual_kv\"]): their values steer the loops, and host "
                "readiness removes dispatch-wait bubbles",
            "set runtime_options = #pto.runtime_options<"
            "ready_on_host_tensors = [\"actual_q\", \"actual_kv\"], ...>");

  MergeSettingAttr l1Reuse =
      passes ? passes.getCubeL1ReuseSetting() : MergeSettingAttr();
  if (a3) {
    checkMerge("cube_l1_reuse_setting", l1Reuse, {{-1, 1}, {0, 4}},
               "reuses cube L1 loads of group 0 four at a time across "
               "C1/C2 and leaves the others unmerged");
  } else {
    checkMerge("cube_l1_reuse_setting", l1Reuse, {{-1, 16}},
               "merges the 950's cube subgraphs 16 at a time");
    checkMerge("vec_nbuffer_setting",
               passes ? passes.getVecNbufferSetting() : MergeSettingAttr(),
               {{-2, 1}, {-1, 16}},
               "manual multi-input merging, 16 vector subgraphs per group");
  }
}

//===--------------------------------------------------------------------===//
// docs/SK16.md#cross-attention-reshape: the reference kernels reshape k
// and v with total = q.shape[0], wrong for cross-attention.
//===--------------------------------------------------------------------===//
void Sk16Checker::checkP81KVTotal() {
  // The tensors with total_q rows and those with total_kv rows (inputs and
  // outputs alike).
  auto qRows = [&](BlockArgument arg) {
    return model.isQSide(arg) || (arg && arg == model.dq);
  };
  auto kvRows = [&](BlockArgument arg) {
    return model.isKVSide(arg) || (arg && (arg == model.dk || arg == model.dv));
  };
  kernel().walk([&](ReshapeOp reshape) {
    BlockArgument arg = getRootArgument(reshape.getSource());
    bool kvSide = kvRows(arg), qSide = qRows(arg);
    if (!kvSide && !qSide)
      return;
    SmallVector<MixedIndex> shape =
        getMixed(reshape.getStaticShape(), reshape.getShape());
    if (shape.empty() || !shape.front().value)
      return;
    // The row count by value: any pto.dim it is computed from (through
    // arithmetic, not through a pto.read's indices).
    DimOp wrong;
    SmallVector<Value> worklist = {shape.front().value};
    DenseSet<Value> visited;
    while (!worklist.empty() && !wrong) {
      Value v = worklist.pop_back_val();
      if (!visited.insert(v).second)
        continue;
      Operation *def = v.getDefiningOp();
      if (!def || isa<ReadOp>(def) || def->getNumRegions())
        continue;
      if (auto dim = dyn_cast<DimOp>(def)) {
        BlockArgument from = getRootArgument(dim.getSource());
        if (dim.getDim() == 0 && from && (kvSide ? qRows(from) : kvRows(from)))
          wrong = dim;
        continue;
      }
      for (Value operand : def->getOperands())
        if (operand.getType().isIntOrIndex())
          worklist.push_back(operand);
    }
    if (!wrong)
      return;
    BlockArgument from = getRootArgument(wrong.getSource());
    // An error, not a warning: the kernel computes wrong gradients on
    // every cross-attention call its signature allows.
    error("SK16-P8.1", reshape.getLoc(),
          "the reshape of " + quoted(arg) + " takes its row count from " +
              quoted(from) + ": wrong for cross attention, where " +
              (kvSide ? "total_kv != total_q" : "total_q != total_kv") +
              " (docs/SK16.md#cross-attention-reshape)",
          "reshape " + quoted(arg) + " with the " + (kvSide ? "K/V" : "Q") +
              "-side total, pto.dim %" +
              getArgumentName(kvSide ? model.k : model.q) + ", 0")
        .note(wrong.getLoc(),
              "the row count for " + quoted(arg) + " is taken here");
  });
}

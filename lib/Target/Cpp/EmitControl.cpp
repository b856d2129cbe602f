//===- EmitControl.cpp - roots and the control program
//----------------------===//
//
// Roots print as execute graphs (one RootInstance::launch per pto.launch),
// pto.kernel as the control program with its checks and, with
// PTO_HOST_MAIN, the host main (docs/Codegen.md).
//
//===----------------------------------------------------------------------===//

#include "EmitterImpl.h"
#include "pto/Target/Cpp/CppEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Support/IndentedOstream.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "pto/Dialect/PTO/Analysis/GMAccess.h"
#include "pto/Dialect/PTO/IR/NZLayout.h"
#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "pto/Dialect/PTOISA/IR/PTOISA.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::cpp_emitter;
using llvm::formatv;

static llvm::SmallBitVector
writtenKernelArgs(KernelOp kernel, SymbolTableCollection &symbolTables);

//===----------------------------------------------------------------------===//
// Roots
//===----------------------------------------------------------------------===//

/// Roots take their scalars (indices and dynamic dims, thousands of them for
/// SK-16's A3 tiles) through one array: a closure or parameter list that size
/// makes the host compiler's SROA quadratic (minutes per file).
LogicalResult CppEmitter::emitRoot(func::FuncOp func) {
  counter = 0;
  // The scalars stay in the shared array, which the root instance holds
  // until its launches have run: each launch captures one pointer and reads
  // its own elements, so a root with thousands of scalars (SK-16 at A3
  // tiles) needs no line and no capture per scalar.
  os << "static void " << func.getSymName()
     << "(pto_rt::RootInstance &ri, pto_rt::Scalars scalars";
  unsigned count;
  const auto &slots = scalarSlots(func, count);
  for (auto [i, arg] : llvm::enumerate(func.getBody().front().getArguments())) {
    std::string base = formatv("a{0}", i);
    if (auto tensor = dyn_cast<GMTensorType>(arg.getType())) {
      os << ", " << cppType(tensor.getElementType()) << " *" << base;
      SmallVector<std::string> dims;
      unsigned dynamicIndex = 0;
      for (int64_t size : tensor.getShape())
        dims.push_back(ShapedType::isDynamic(size)
                           ? formatv("s[{0}]", slots[i][dynamicIndex++]).str()
                           : std::to_string(size));
      bindTensor(arg, base, dims);
    } else if (arg.getType().isIntOrIndex()) {
      std::string type = cppType(arg.getType());
      names[arg] = type == "int64_t"
                       ? formatv("s[{0}]", slots[i][0]).str()
                       : formatv("(({0})s[{1}])", type, slots[i][0]).str();
    } else {
      os << ", " << cppType(arg.getType()) << " " << base;
      names[arg] = base;
    }
  }
  os << ") {\n";
  os.indent();
  os << "const int64_t *s = ri.hold(std::move(scalars));\n";
  if (failed(emitBlock(func.getBody().front(), FunctionKind::Root)))
    return failure();
  os.unindent();
  os << "}\n\n";
  return success();
}

ArrayRef<Operation *> CppEmitter::callSitesOf(FunctionOpInterface callee) {
  if (!callSitesKnown) {
    callee->getParentOfType<ModuleOp>().walk([&](Operation *op) {
      OperandRange args = op->getOperands();
      if (FlatSymbolRefAttr target = getCalleeAndArgs(op, args))
        callSites[target.getValue()].push_back(op);
    });
    callSitesKnown = true;
  }
  auto found = callSites.find(SymbolTable::getSymbolName(callee).getValue());
  if (found == callSites.end())
    return {};
  return found->second;
}

const SmallVector<SmallVector<unsigned>> &
CppEmitter::scalarSlots(func::FuncOp root, unsigned &count) {
  auto known = rootSlots.find(root);
  if (known != rootSlots.end()) {
    count = known->second.second;
    return known->second.first;
  }
  ArrayRef<Operation *> calls = callSitesOf(root);
  // An integer argument travels once per distinct list of values its calls
  // pass: SK-16's control program hands one piece extent to many launches.
  std::map<SmallVector<const void *>, unsigned> byValues;
  SmallVector<SmallVector<unsigned>> slots;
  unsigned next = 0;
  for (auto [i, arg] : llvm::enumerate(root.getBody().front().getArguments())) {
    slots.emplace_back();
    if (auto tensor = dyn_cast<GMTensorType>(arg.getType())) {
      for (int64_t size : tensor.getShape())
        if (ShapedType::isDynamic(size))
          slots.back().push_back(next++);
    } else if (arg.getType().isIntOrIndex()) {
      SmallVector<const void *> key;
      for (Operation *call : calls)
        key.push_back(cast<RootCallOp>(call).getArgs()[i].getAsOpaquePointer());
      if (key.empty()) {
        slots.back().push_back(next++);
        continue;
      }
      auto [it, inserted] = byValues.try_emplace(key, next);
      if (inserted)
        ++next;
      slots.back().push_back(it->second);
    }
  }
  auto &entry = rootSlots[root] = {std::move(slots), next};
  count = next;
  return entry.first;
}

/// A workspace from `owner` (`ri`: one per root instance, `rt`: one for the
/// whole run), named like any tensor.
LogicalResult CppEmitter::emitWorkspace(WorkspaceOp workspace,
                                        StringRef owner) {
  auto type = cast<GMTensorType>(workspace.getType());
  std::string v = fresh();
  // An on-chip exchange only split MIX leaves receive never reaches GM: its
  // pieces move L0C -> UB (docs/ISA.md, "MIX leaves").
  bool onChip =
      workspace->hasAttr(kOnChipAttrName) &&
      llvm::all_of(workspace->getUsers(), [&](Operation *user) {
        auto launch = dyn_cast<LaunchOp>(user);
        auto leaf = launch ? symbolTables.lookupNearestSymbolFrom<func::FuncOp>(
                                 launch, launch.getCalleeAttr())
                           : func::FuncOp();
        return leaf && leaf->hasAttr(ptoisa::kMixAivAttrName);
      });
  if (onChip)
    os << formatv("{0} *{1} = nullptr; // on chip (L0C -> UB), no GM\n",
                  cppType(type.getElementType()), v);
  else
    os << formatv("{0} *{1} = {2}.workspace<{0}>({3});\n",
                  cppType(type.getElementType()), v, owner,
                  type.getNumElements());
  SmallVector<std::string> dims;
  for (int64_t size : type.getShape())
    dims.push_back(std::to_string(size));
  bindTensor(workspace.getResult(), v, dims);
  return success();
}

/// A leaf's GM arguments by access kind: what its ops' memory effects say,
/// atomic for `atomic_add` stores, read and write for an op that names a GM
/// tensor without saying.
const SmallVector<uint8_t> &CppEmitter::gmKindsOf(func::FuncOp leaf) {
  auto [it, inserted] = leafGMKinds.try_emplace(leaf);
  if (!inserted)
    return it->second;
  SmallVector<uint8_t> kinds(leaf.getNumArguments(), 0);
  auto mark = [&](Value tensor, uint8_t kind) {
    if (auto arg = dyn_cast<BlockArgument>(getAliasedTensor(tensor)))
      if (arg.getOwner()->getParentOp() == leaf.getOperation())
        kinds[arg.getArgNumber()] |= kind;
  };
  leaf->walk([&](Operation *op) {
    if (isa<ReshapeOp, DimOp>(op))
      return;
    bool atomic = false;
    if (auto store = dyn_cast<ptoisa::TStoreOp>(op))
      atomic = store.getAtomicAdd();
    else if (auto scatter = dyn_cast<ptoisa::MScatterOp>(op))
      atomic = scatter.getAtomicAdd();
    else if (isa<AtomicAddOp>(op))
      atomic = true;
    auto iface = dyn_cast<MemoryEffectOpInterface>(op);
    for (OpOperand &operand : op->getOpOperands()) {
      Value v = operand.get();
      if (!isa<GMTensorType>(v.getType()))
        continue;
      if (!iface) {
        mark(v, GMAccess::kRead | GMAccess::kWrite);
        continue;
      }
      SmallVector<MemoryEffects::EffectInstance> effects;
      iface.getEffectsOnValue(v, effects);
      for (const MemoryEffects::EffectInstance &effect : effects) {
        if (isa<MemoryEffects::Read>(effect.getEffect()))
          mark(v, GMAccess::kRead);
        else if (isa<MemoryEffects::Write>(effect.getEffect()))
          mark(v, atomic ? GMAccess::kAtomic : GMAccess::kWrite);
      }
    }
  });
  return it->second = std::move(kinds);
}

/// `text` with the leaf-argument symbols of LeafBound (`@i@`, `@i.d@`)
/// replaced by the launch's operands.
static std::string
substituteArguments(StringRef text,
                    function_ref<std::string(unsigned, int)> argument) {
  std::string out;
  while (!text.empty()) {
    size_t at = text.find('@');
    out += text.take_front(at).str();
    if (at == StringRef::npos)
      break;
    text = text.drop_front(at + 1);
    size_t close = text.find('@');
    StringRef symbol = text.take_front(close);
    text = text.drop_front(close + 1);
    auto [index, dim] = symbol.split('.');
    unsigned i = 0, d = 0;
    index.getAsInteger(10, i);
    bool isDim = !dim.getAsInteger(10, d);
    out += argument(i, isDim ? int(d) : -1);
  }
  return out;
}

FailureOr<std::string> CppEmitter::launchGMUses(LaunchOp launch,
                                                func::FuncOp leaf) {
  SmallVector<uint8_t> kinds = gmKindsOf(leaf);
  LeafGMRegions regions = gmRegionsOf(leaf);
  // A split MIX leaf: the GM its AIV parts access too.
  for (StringRef link : {ptoisa::kMixAivAttrName, ptoisa::kMixAiv1AttrName})
    if (auto aiv = leaf->getAttrOfType<FlatSymbolRefAttr>(link))
      if (auto part = symbolTables.lookupNearestSymbolFrom<func::FuncOp>(
              launch, aiv.getAttr())) {
        for (auto [kind, inner] : llvm::zip(kinds, gmKindsOf(part)))
          kind |= inner;
        for (auto [mine, inner] : llvm::zip(regions, gmRegionsOf(part)))
          for (auto [region, other] : llvm::zip(mine, inner)) {
            region.whole |= other.whole;
            if (other.known)
              region.add(other.lo, other.end);
          }
      }
  auto operand = [&](unsigned i, int dim) -> std::string {
    Value arg = launch.getArgs()[i];
    if (dim < 0)
      return "(int64_t)" + name(arg);
    auto tensor = tensors.find(arg);
    return tensor == tensors.end() ? "<<unknown dim>>"
                                   : "(int64_t)" + tensor->second.dims[dim];
  };
  SmallVector<std::string> uses;
  for (auto [i, arg] : llvm::enumerate(launch.getArgs())) {
    if (i >= kinds.size() || !kinds[i] || !isa<GMTensorType>(arg.getType()))
      continue;
    // A workspace of the root is the instance's own.
    if (auto ws = getAliasedTensor(arg).getDefiningOp<WorkspaceOp>())
      if (ws->getParentOp() == launch->getParentOp())
        continue;
    // Every GM value of a root that verifies is bound here: roots are
    // isolated from above, their tensors are arguments (emitRoot), workspaces
    // (emitWorkspace) or reshapes of those (emitOp), and any other op with a
    // GM result fails at its own definition (no C++ type, or not allowed in
    // a root). Should a new root op break that, skipping the argument would
    // drop this launch's ordering against other instances (the stitch-order
    // guarantee), so it is an error.
    auto tensor = tensors.find(arg);
    if (tensor == tensors.end())
      return launch.emitError()
             << "pto-to-cpp: argument " << i << " of the launch of leaf @"
             << leaf.getSymName()
             << " is a GM tensor that names no kernel argument or workspace "
                "of the root (defined by "
             << (arg.getDefiningOp()
                     ? arg.getDefiningOp()->getName().getStringRef()
                     : StringRef("a block argument"))
             << "); the runtime could not order the launch by it: pass the "
                "root's tensor argument, a pto.workspace or a pto.reshape of "
                "one";
    const TensorExpr &gm = tensor->second;
    // Kinds with one region travel as one use, in kind order.
    std::map<std::string, unsigned> byRegion;
    SmallVector<std::string> order;
    for (unsigned k = 0; k < 3; ++k) {
      if (!(kinds[i] & (1u << k)))
        continue;
      const LeafRegion &region = regions[i][k];
      std::string text;
      if (region.known && !region.whole && gm.dims.size() == 2) {
        SmallVector<std::string> box;
        for (int d = 0; d < 2; ++d) {
          box.push_back(region.lo[d] ? substituteArguments(
                                           region.lo[d]->str(true), operand)
                                     : "0");
          box.push_back(region.end[d] ? substituteArguments(
                                            region.end[d]->str(false), operand)
                                      : "(int64_t)" + gm.dims[d]);
        }
        text = formatv(", sizeof({0}), {1}, {2}",
                       cppType(gm.type.getElementType()), gm.dims[1],
                       llvm::join(box, ", "));
      }
      auto [it, inserted] = byRegion.try_emplace(text, 0);
      if (inserted)
        order.push_back(text);
      it->second |= 1u << k;
    }
    for (const std::string &text : order)
      uses.push_back(
          formatv("{{{0}, {1}{2}}", gm.pointer, byRegion[text], text));
  }
  return llvm::join(uses, ", ");
}

LogicalResult CppEmitter::emitRootOp(Operation *op) {
  if (auto workspace = dyn_cast<WorkspaceOp>(op))
    return emitWorkspace(workspace, "ri");
  if (auto launch = dyn_cast<LaunchOp>(op)) {
    auto leaf = symbolTables.lookupNearestSymbolFrom<func::FuncOp>(
        launch, launch.getCalleeAttr());
    auto core = leaf ? leaf->getAttrOfType<CoreKindAttr>("pto.leaf") : nullptr;
    if (!core)
      return launch.emitError()
             << "pto-to-cpp: launched function is not a leaf";
    SmallVector<std::string> deps;
    for (Value dep : launch.getDeps())
      deps.push_back(name(dep));
    FailureOr<std::string> gmUses = launchGMUses(launch, leaf);
    if (failed(gmUses))
      return failure();
    if (auto aiv =
            leaf->getAttrOfType<FlatSymbolRefAttr>(ptoisa::kMixAivAttrName)) {
      std::string args = callArgs(launch.getArgs());
      os << formatv("const pto_rt::Token {0} = ri.launch_mix(\"{1}\", {{{2}}, "
                    "{{{5}}, [=] {{ {1}({3}); }, [=] {{ {4}({3}); });\n",
                    bind(launch.getToken()), launch.getCallee(),
                    llvm::join(deps, ", "), args, aiv.getValue(), *gmUses);
      return success();
    }
    if (core.getValue() == CoreKind::mix)
      return launch.emitError()
             << "pto-to-cpp: launched MIX leaf is not split into its AIC and "
                "AIV parts (pto-isa-split-mix)";
    os << formatv(
        "const pto_rt::Token {0} = ri.launch(pto_rt::Core::{1}, \"{2}\", "
        "{{{3}}, {{{5}}, [=] {{ {2}({4}); });\n",
        bind(launch.getToken()),
        core.getValue() == CoreKind::cube ? "Cube" : "Vector",
        launch.getCallee(), llvm::join(deps, ", "), callArgs(launch.getArgs()),
        *gmUses);
    return success();
  }
  return op->emitError() << "pto-to-cpp: '" << op->getName()
                         << "' cannot appear in a root function";
}

//===----------------------------------------------------------------------===//
// Control program
//===----------------------------------------------------------------------===//

LogicalResult CppEmitter::emitControl(KernelOp kernel) {
  counter = 0;
  SmallVector<std::string> argNames;
  for (Attribute a : kernel.getArgNames())
    argNames.push_back(cast<StringAttr>(a).str());
  os << "void " << kernel.getSymName() << "(pto_rt::Runtime &rt";
  std::string params = parameterList(kernel.getBody().front(), argNames, false);
  if (!params.empty())
    os << ", " << params;
  os << ") {\n";
  os.indent();
  if (failed(emitBlock(kernel.getBody().front(), FunctionKind::Control)))
    return failure();
  os << "rt.flush();\n";
  os.unindent();
  os << "}\n\n";
  return success();
}

LogicalResult CppEmitter::emitControlOp(Operation *op) {
  if (auto loop = dyn_cast<LoopOp>(op)) {
    // Carried scalars (valid extents a workspace move carries across
    // iterations): a variable per result, updated by the yield; the body
    // reads a copy taken at the top of each iteration.
    if (failed(declareScalarResults(loop, loop.getInitArgs())))
      return failure();
    // A forced submission point, as in pto-run and PyPTO (docs/Runtime.md,
    // "Stitching").
    if (loop.getSubmitBeforeLoop())
      os << "rt.flush();  // submit_before_loop\n";
    Block &body = loop.getBody().front();
    std::string iv = bind(body.getArgument(0));
    std::string lb = name(loop.getLowerBound()),
                ub = name(loop.getUpperBound()), step = name(loop.getStep());
    APInt constantStep;
    if (!matchPattern(loop.getStep(), m_ConstantInt(&constantStep)) ||
        !constantStep.isStrictlyPositive())
      os << formatv("pto_rt::check_loop_step({0}, \"{1}\", {2});\n",
                    whereLiteral(loop), loop.getName(), step);
    // As in pto-run: the step past the last iteration is never computed, so
    // a loop may run up to INT64_MAX.
    os << formatv(
        "for (int64_t {0} = {1}; {0} < {2}; {0} = uint64_t({2}) - "
        "uint64_t({0}) <= uint64_t({3}) ? {2} : {0} + {3}) {{  // {4}\n",
        iv, lb, ub, step, loop.getName());
    os.indent();
    for (auto [arg, carried] :
         llvm::zip(loop.getRegionIterArgs(), loop.getResults()))
      os << formatv("const {0} {1} = {2};\n", cppType(arg.getType()), bind(arg),
                    name(carried));
    if (failed(emitBlock(body, FunctionKind::Control)))
      return failure();
    os.unindent();
    os << "}\n";
    return success();
  }
  if (isa<YieldOp>(op)) {
    if (isa<LoopOp>(op->getParentOp()))
      assignYielded(op);
    return success();
  }
  if (isa<IsLoopBeginOp, IsLoopEndOp>(op)) {
    Value index = op->getOperand(0);
    auto arg = dyn_cast<BlockArgument>(index);
    auto loop = arg ? dyn_cast<LoopOp>(arg.getOwner()->getParentOp()) : nullptr;
    if (!loop)
      return op->emitError() << "pto-to-cpp: operand is not a pto.loop index";
    std::string expr =
        isa<IsLoopBeginOp>(op)
            ? formatv("{0} == {1}", name(index), name(loop.getLowerBound()))
                  .str()
            : formatv("uint64_t({2}) - uint64_t({0}) <= uint64_t({1})",
                      name(index), name(loop.getStep()),
                      name(loop.getUpperBound()))
                  .str();
    os << formatv("const bool {0} = {1};\n", bind(op->getResult(0)), expr);
    return success();
  }
  if (auto read = dyn_cast<ReadOp>(op)) {
    auto it = tensors.find(read.getTensor());
    if (it == tensors.end())
      return op->emitError() << "pto-to-cpp: unknown tensor";
    // Device-written GM must be complete before the control program reads
    // it. `pto.host_ready` (ready_on_host_tensors) skips the wait, except on
    // a tensor some leaf writes: pto-run reads that after the writes too.
    bool ready = read->hasAttr("pto.host_ready");
    if (ready)
      if (auto arg =
              dyn_cast<BlockArgument>(getAliasedTensor(read.getTensor())))
        if (auto kernel = dyn_cast<KernelOp>(arg.getOwner()->getParentOp()))
          ready = !writtenArgsOf(kernel).test(arg.getArgNumber());
    if (!ready)
      os << "rt.flush();\n";
    // Bounds-checked against the tensor (exit 3, as in pto-run).
    SmallVector<std::string> indices;
    for (Value index : read.getIndices())
      indices.push_back(name(index));
    os << formatv("const int64_t {0} = pto_rt::read_scalar({1}, \"{2}\", {3}, "
                  "{{{4}}, {{{5}});\n",
                  bind(read.getResult()), whereLiteral(op),
                  tensorName(read.getTensor()), it->second.pointer,
                  llvm::join(indices, ", "), llvm::join(it->second.dims, ", "));
    return success();
  }
  if (auto workspace = dyn_cast<WorkspaceOp>(op))
    return emitWorkspace(workspace, "rt");
  if (auto check = dyn_cast<CheckViewOp>(op)) {
    auto it = tensors.find(check.getTensor());
    if (it == tensors.end())
      return op->emitError() << "pto-to-cpp: unknown tensor";
    SmallVector<std::string> offsets, valid;
    for (Value v : check.getOffsets())
      offsets.push_back(name(v));
    for (Value v : check.getValidShape())
      valid.push_back(name(v));
    os << formatv("pto_rt::check_view({0}, \"{1}\", {{{2}}, {{{3}}, {{{4}});\n",
                  whereLiteral(op), tensorName(check.getTensor()),
                  llvm::join(it->second.dims, ", "), llvm::join(offsets, ", "),
                  llvm::join(valid, ", "));
    return success();
  }
  if (auto check = dyn_cast<CheckTileViewOp>(op)) {
    auto names = [&](ValueRange values) {
      SmallVector<std::string> result;
      for (Value v : values)
        result.push_back(name(v));
      return llvm::join(result, ", ");
    };
    os << formatv("if (const std::string rule = pto_check::tile_view({{{0}}, "
                  "{{{1}}, {{{2}}); !rule.empty())\n",
                  names(check.getSourceValid()), names(check.getOffsets()),
                  names(check.getValidShape()));
    os << formatv("  pto_rt::fault({0}, rule);\n", whereLiteral(op));
    return success();
  }
  if (auto call = dyn_cast<RootCallOp>(op)) {
    int64_t depth = call.getStitch() ? call.getStitch()->getDepth() : 1;
    // The scalars travel in one shared array (see emitRoot), the pointers
    // as arguments; the runtime may run the root after this block ends.
    auto root = symbolTables.lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    if (!root)
      return call.emitError() << "pto-to-cpp: root '" << call.getCallee()
                              << "' is not a function";
    unsigned count;
    const auto &slots = scalarSlots(root, count);
    SmallVector<std::string> scalars(count), others;
    for (auto [argIndex, arg] : llvm::enumerate(call.getArgs())) {
      auto tensor = tensors.find(arg);
      if (tensor != tensors.end()) {
        others.push_back(tensor->second.pointer);
        unsigned dynamicIndex = 0;
        for (auto [i, size] : llvm::enumerate(tensor->second.type.getShape()))
          if (ShapedType::isDynamic(size))
            scalars[slots[argIndex][dynamicIndex++]] = tensor->second.dims[i];
      } else if (arg.getType().isIntOrIndex()) {
        scalars[slots[argIndex][0]] = "(int64_t)" + name(arg);
      } else {
        others.push_back(name(arg));
      }
    }
    std::string array = fresh();
    os << formatv("auto {0} = std::make_shared<const std::vector<int64_t>>("
                  "std::vector<int64_t>{{{1}});\n",
                  array, llvm::join(scalars, ", "));
    os << formatv(
        "rt.root_call(\"{0}\", {1}, {2}, [=](pto_rt::RootInstance &ri) "
        "{{ {0}(ri, {3}{4}{5}); });\n",
        call.getCallee(), rootCallSites++, depth, array,
        others.empty() ? "" : ", ", llvm::join(others, ", "));
    return success();
  }
  return op->emitError() << "pto-to-cpp: '" << op->getName()
                         << "' in the control program; compile the module "
                            "with `pto-opt --pto-ascend-pipeline` first";
}

/// Kernel arguments some leaf writes (through roots, launches and reshapes).
static llvm::SmallBitVector
writtenKernelArgs(KernelOp kernel, SymbolTableCollection &symbolTables) {
  ModuleOp module = kernel->getParentOfType<ModuleOp>();
  DenseMap<Operation *, llvm::SmallBitVector> memo;
  std::function<llvm::SmallBitVector(FunctionOpInterface)> written =
      [&](FunctionOpInterface func) -> llvm::SmallBitVector {
    auto it = memo.find(func);
    if (it != memo.end())
      return it->second;
    llvm::SmallBitVector bits(func.getNumArguments());
    // A split MIX leaf: its AIV parts take the same arguments.
    for (StringRef link : {ptoisa::kMixAivAttrName, ptoisa::kMixAiv1AttrName})
      if (auto aiv = func->getAttrOfType<FlatSymbolRefAttr>(link))
        if (auto part =
                symbolTables.lookupSymbolIn<FunctionOpInterface>(module, aiv)) {
          llvm::SmallBitVector inner = written(part);
          if (inner.size() == bits.size())
            bits |= inner;
        }
    auto mark = [&](Value tensor) {
      if (auto arg = dyn_cast<BlockArgument>(getAliasedTensor(tensor)))
        if (arg.getOwner()->getParentOp() == func.getOperation())
          bits.set(arg.getArgNumber());
    };
    func->walk([&](Operation *op) {
      if (auto store = dyn_cast<ptoisa::TStoreOp>(op))
        mark(store.getDst());
      else if (auto scatter = dyn_cast<ptoisa::MScatterOp>(op))
        mark(scatter.getDst());
      else if (auto put = dyn_cast<IndexPutOp>(op))
        mark(put.getDst());
      else if (auto atomic = dyn_cast<AtomicAddOp>(op))
        mark(atomic->getOperand(1));
      else if (auto assemble = dyn_cast<AssembleOp>(op))
        mark(assemble->getOperand(1));
      OperandRange args = op->getOperands();
      FlatSymbolRefAttr callee = getCalleeAndArgs(op, args);
      if (!callee)
        return;
      auto target =
          symbolTables.lookupSymbolIn<FunctionOpInterface>(module, callee);
      if (!target)
        return;
      llvm::SmallBitVector inner = written(target);
      for (unsigned i : inner.set_bits())
        if (i < args.size())
          mark(args[i]);
    });
    memo[func] = bits;
    return bits;
  };
  return written(kernel);
}

const llvm::SmallBitVector &CppEmitter::writtenArgsOf(KernelOp kernel) {
  auto [it, inserted] = writtenArgs.try_emplace(kernel);
  if (inserted)
    it->second = writtenKernelArgs(kernel, symbolTables);
  return it->second;
}

void CppEmitter::emitHostMain(KernelOp kernel) {
  const llvm::SmallBitVector &outputs = writtenArgsOf(kernel);
  os << "#if defined(PTO_HOST_MAIN)\n"
        "// Runs the kernel on DIR/<argument>.npy files (every argument is an "
        "input;\n// the arguments it writes are saved to OUTDIR).\n"
        "int main(int argc, char **argv) {\n";
  os.indent();
  // The emulation's buffer sizes follow the kernel's architecture (its
  // memory plan); --arch on the command line still overrides it.
  if (getArchFor(kernel) == Arch::DAV_3510)
    os << "pto_rt::HostMain m(argc, argv, \"950\");\n";
  else
    os << "pto_rt::HostMain m(argc, argv);\n";
  SmallVector<std::string> args;
  for (auto [i, arg] :
       llvm::enumerate(kernel.getBody().front().getArguments())) {
    auto type = cast<GMTensorType>(arg.getType());
    std::string argName = cast<StringAttr>(kernel.getArgNames()[i]).str();
    std::string element = cppType(type.getElementType());
    SmallVector<std::string> dims;
    for (int64_t size : type.getShape())
      dims.push_back(std::to_string(ShapedType::isDynamic(size) ? -1 : size));
    // An NZ argument's file is its NZ storage [cols / C0, rows / 16, 16, C0]
    // (NZLayout.h); the kernel takes the matrix's dims.
    int64_t c0 = 0;
    if (auto layout = kernel.getArgAttrOfType<StringAttr>(i, kLayoutAttrName);
        layout && layout.getValue() == kLayoutNZ)
      c0 = getNZFractalCols(type.getElementByteSize());
    SmallVector<std::string> matrixDims;
    if (c0) {
      int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
      dims = {ShapedType::isDynamic(cols) ? "-1" : std::to_string(cols / c0),
              ShapedType::isDynamic(rows)
                  ? "-1"
                  : std::to_string(rows / kNZFractalRows),
              std::to_string(kNZFractalRows), std::to_string(c0)};
      matrixDims = {formatv("t{0}.dim(1) * {1}", i, kNZFractalRows).str(),
                    formatv("t{0}.dim(0) * {1}", i, c0).str()};
    }
    os << formatv("auto &t{0} = m.input<{1}>(\"{2}\", {{{3}});\n", i, element,
                  argName, llvm::join(dims, ", "));
    if (kernel.getArgAttrOfType<UnitAttr>(i, "pto.cumulative"))
      os << formatv("m.check_cumulative(\"{0}\", t{1});\n", argName, i);
    args.push_back(formatv("t{0}.data()", i));
    for (auto [d, size] : llvm::enumerate(type.getShape()))
      if (ShapedType::isDynamic(size))
        args.push_back(c0 ? matrixDims[d]
                          : formatv("t{0}.dim({1})", i, d).str());
  }
  os << kernel.getSymName() << "(m.runtime()" << (args.empty() ? "" : ", ")
     << llvm::join(args, ", ") << ");\n";
  os << "m.runtime().finish();\n";
  for (unsigned i : outputs.set_bits())
    os << formatv("m.output(\"{0}\", t{1});\n",
                  cast<StringAttr>(kernel.getArgNames()[i]).str(), i);
  os << "return m.finish();\n";
  os.unindent();
  os << "}\n#endif // PTO_HOST_MAIN\n";
}

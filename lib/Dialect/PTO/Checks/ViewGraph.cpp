//===- ViewGraph.cpp - the tile graph as Graphviz DOT ---------------------===//
//
// Nodes: the control program's root calls (or, before outlining, its tasks)
// inside clusters for the loops that repeat them; per root function, its
// launches with the token dependences as edges; the leaves, with dotted
// edges from the launches that run them. Linear in the module's size.
//
//===----------------------------------------------------------------------===//

#include "ReportFile.h"
#include "pto/Dialect/PTO/Checks/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::pto {
#define GEN_PASS_DEF_VIEWGRAPHPASS
#include "pto/Dialect/PTO/Checks/Passes.h.inc"
} // namespace mlir::pto

using namespace mlir;
using namespace mlir::pto;

namespace {

/// A DOT string literal.
std::string quote(StringRef text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  }
  return out + "\"";
}

const char *fill(CoreKind kind) {
  switch (kind) {
  case CoreKind::cube:
    return "#cfe2ff";
  case CoreKind::vector:
    return "#d1f0d1";
  default:
    return "#f5e0c0";
  }
}

class GraphWriter {
public:
  GraphWriter(ModuleOp module, llvm::raw_ostream &os)
      : module(module), symbols(module), os(os) {}

  void write() {
    os << "digraph \"pto tile graph\" {\n"
          "  compound=true;\n  rankdir=TB;\n"
          "  node [shape=box, style=\"rounded,filled\", fillcolor=white, "
          "fontname=\"Helvetica\", fontsize=10];\n"
          "  edge [fontname=\"Helvetica\", fontsize=9];\n";
    module.walk([&](KernelOp kernel) { writeKernel(kernel); });
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr("pto.root"))
        writeRoot(func);
    writeLeaves();
    for (auto &[call, root] : rootEdges)
      os << "  " << call << " -> " << root.first << " [lhead=" << root.second
         << ", style=bold];\n";
    os << "}\n";
  }

private:
  std::string fresh(StringRef prefix) {
    return (prefix + Twine(counter++)).str();
  }

  /// The control program: loops as clusters, root calls and tasks as nodes.
  void writeKernel(KernelOp kernel) {
    os << "  subgraph " << quote("cluster_" + fresh("kernel")) << " {\n"
       << "    label=" << quote("pto.kernel @" + kernel.getSymName().str())
       << ";\n    style=solid;\n";
    writeBlock(kernel.getBody().front(), 2);
    os << "  }\n";
  }

  void writeBlock(Block &block, unsigned depth) {
    std::string indent(2 * depth, ' ');
    std::string previousTask;
    for (Operation &op : block) {
      if (auto loop = dyn_cast<LoopOp>(op)) {
        os << indent << "subgraph " << quote("cluster_" + fresh("loop"))
           << " {\n"
           << indent << "  label="
           << quote("pto.loop " + loop.getName().str() + " (" +
                    loop.getIdxName().str() + ")")
           << ";\n"
           << indent << "  style=dashed;\n";
        writeBlock(loop.getBody().front(), depth + 1);
        os << indent << "}\n";
        previousTask.clear();
      } else if (auto call = dyn_cast<RootCallOp>(op)) {
        std::string node = fresh("call");
        std::string label = "root_call @" + call.getCallee().str();
        if (auto plan = call.getStitchAttr())
          label += "\nstitch depth " + std::to_string(plan.getDepth()) + ", " +
                   std::to_string(plan.getLaunches()) + " launches";
        os << indent << node << " [label=" << quote(label)
           << ", shape=component];\n";
        callsOf[call.getCallee()].push_back(node);
      } else if (auto task = dyn_cast<TaskOp>(op)) {
        std::string node = fresh("task");
        unsigned ops = 0;
        task.getBody().walk([&](Operation *) { ++ops; });
        os << indent << node << " [label="
           << quote("task " + task.getFamily().str() + " (" +
                    stringifyCoreKind(task.getKind()).str() + ")\n" +
                    std::to_string(ops - 1) + " ops")
           << ", fillcolor=" << quote(fill(task.getKind())) << "];\n";
        // Tasks run in program order within a block.
        if (!previousTask.empty())
          os << indent << previousTask << " -> " << node
             << " [style=dotted, arrowhead=none];\n";
        previousTask = node;
      } else {
        for (Region &region : op.getRegions())
          for (Block &inner : region)
            writeBlock(inner, depth);
      }
    }
  }

  /// A root function: its launches and their token dependences.
  void writeRoot(func::FuncOp root) {
    std::string cluster = "cluster_" + fresh("root");
    os << "  subgraph " << quote(cluster) << " {\n"
       << "    label=" << quote("@" + root.getSymName().str()) << ";\n"
       << "    style=filled;\n    fillcolor=\"#f7f7f7\";\n";
    llvm::DenseMap<Value, std::string> nodeOf;
    std::string first;
    root.walk([&](LaunchOp launch) {
      std::string node = fresh("launch");
      nodeOf[launch.getToken()] = node;
      if (first.empty())
        first = node;
      auto leaf = symbols.lookup<func::FuncOp>(launch.getCallee());
      std::string label = launch.getCallee().str();
      const char *colour = "white";
      if (leaf) {
        if (auto family = leaf->getAttrOfType<StringAttr>("pto.family"))
          label = family.getValue().str() + "\n" + label;
        if (auto kind = leaf->getAttrOfType<CoreKindAttr>("pto.leaf"))
          colour = fill(kind.getValue());
        leaves.insert(leaf);
      }
      os << "    " << node << " [label=" << quote(label)
         << ", fillcolor=" << quote(colour) << "];\n";
      for (Value dep : launch.getDeps())
        if (auto it = nodeOf.find(dep); it != nodeOf.end())
          os << "    " << it->second << " -> " << node << ";\n";
      launchesOf[launch.getCallee()].push_back(node);
    });
    os << "  }\n";
    if (!first.empty())
      for (const std::string &call : callsOf.lookup(root.getSymName()))
        rootEdges.push_back({call, {first, quote(cluster)}});
  }

  /// The leaves the launches run, with dotted edges from their launches.
  void writeLeaves() {
    if (leaves.empty())
      return;
    os << "  subgraph \"cluster_leaves\" {\n    label=\"leaves\";\n"
          "    style=dotted;\n";
    for (func::FuncOp leaf : leaves) {
      unsigned ops = 0;
      leaf.walk([&](Operation *) { ++ops; });
      std::string kind = "?";
      const char *colour = "white";
      if (auto attr = leaf->getAttrOfType<CoreKindAttr>("pto.leaf")) {
        kind = stringifyCoreKind(attr.getValue()).str();
        colour = fill(attr.getValue());
      }
      std::string node = quote("leaf_" + leaf.getSymName().str());
      os << "    " << node << " [label="
         << quote("@" + leaf.getSymName().str() + "\n" + kind + ", " +
                  std::to_string(ops - 1) + " ops")
         << ", shape=note, fillcolor=" << quote(colour) << "];\n";
      for (const std::string &launch : launchesOf.lookup(leaf.getSymName()))
        os << "    " << launch << " -> " << node
           << " [style=dotted, color=\"#888888\", arrowhead=open];\n";
    }
    os << "  }\n";
  }

  ModuleOp module;
  /// One table: ModuleOp::lookupSymbol scans the module per call.
  SymbolTable symbols;
  llvm::raw_ostream &os;
  unsigned counter = 0;
  llvm::StringMap<SmallVector<std::string>> callsOf, launchesOf;
  llvm::SetVector<func::FuncOp> leaves;
  SmallVector<std::pair<std::string, std::pair<std::string, std::string>>>
      rootEdges;
};

struct ViewGraphPass : public pto::impl::ViewGraphPassBase<ViewGraphPass> {
  using ViewGraphPassBase::ViewGraphPassBase;

  void runOnOperation() override {
    if (failed(check::writeReport(getOperation(), getArgument(), output,
                                  [&](llvm::raw_ostream &os) {
                                    GraphWriter(getOperation(), os).write();
                                  })))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace

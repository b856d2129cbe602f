//===- TileHover.cpp - hover text for pto tile values ---------------------===//
//
// The document is parsed with an AsmParserState (the definitions and uses of
// every SSA name, as MLIR's own server records them) to find the value under
// the cursor. Its valid shape is reified on that private parse. The memory
// plan comes from running pto-ascend-pipeline on another parse of the same
// text; the lowered leaves are related to the value through source
// locations: a leaf holds the value when one of its ops carries the location
// of the value's defining op or of one of its users (the pipeline gives the
// ops it creates the location of the op they implement; a view moved into a
// leaf takes its consumer's).
//
//===----------------------------------------------------------------------===//

#include "TileHover.h"

#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "pto/Dialect/PTO/IR/PTOInterfaces.h"
#include "pto/Dialect/PTO/IR/Platform.h"
#include "pto/Dialect/PTOISA/IR/PTOISA.h"
#include "pto/Embedding/Embedding.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::lsp;

namespace {

/// A parsed document: the context owns the IR, the source manager the text
/// the AsmParserState's ranges point into.
struct ParsedDocument {
  explicit ParsedDocument(const DialectRegistry &registry)
      : context(registry, MLIRContext::Threading::DISABLED) {
    context.allowUnregisteredDialects(false);
    context.loadAllAvailableDialects();
  }
  MLIRContext context;
  llvm::SourceMgr sourceMgr;
  Block block;
  AsmParserState state;
};

/// Parses `text` (named `uri`), with the parser state when asked. Diagnostics
/// are dropped: MLIR's server reports them.
std::unique_ptr<ParsedDocument> parse(const DialectRegistry &registry,
                                      StringRef uri, StringRef text,
                                      bool withState) {
  auto doc = std::make_unique<ParsedDocument>(registry);
  doc->sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, uri), SMLoc());
  ScopedDiagnosticHandler silence(&doc->context,
                                  [](Diagnostic &) { return success(); });
  ParserConfig config(&doc->context);
  if (failed(parseAsmSourceFile(doc->sourceMgr, &doc->block, config,
                                withState ? &doc->state : nullptr)))
    return nullptr;
  // The rules below assume verified IR (parseAsmSourceFile does not verify).
  for (Operation &op : doc->block)
    if (failed(verify(&op)))
      return nullptr;
  return doc;
}

/// The first file:line:col of `loc`, packed line << 32 | col; 0 without one.
uint64_t packedLoc(Location loc) {
  uint64_t packed = 0;
  loc->walk([&](Location inner) {
    if (auto flc = dyn_cast<FileLineColLoc>(inner)) {
      packed = (uint64_t(flc.getLine()) << 32) | flc.getColumn();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return packed;
}

std::string formatBytes(int64_t bytes) {
  if (bytes >= 1024 && bytes % 1024 == 0)
    return llvm::formatv("{0} KiB", bytes / 1024).str();
  if (bytes >= 1024)
    return llvm::formatv("{0:f1} KiB", bytes / 1024.0).str();
  return llvm::formatv("{0} B", bytes).str();
}

std::string typeBody(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto tile = dyn_cast<ptoisa::TileType>(type))
    os << tile.getRows() << 'x' << tile.getCols() << 'x'
       << tile.getElementType();
  else
    os << type;
  return text;
}

/// Runs pto-ascend-pipeline on the document and records each leaf's plan.
std::shared_ptr<const MemoryPlan> computePlan(const DialectRegistry &registry,
                                              StringRef uri, StringRef text) {
  auto plan = std::make_shared<MemoryPlan>();
  std::unique_ptr<ParsedDocument> doc = parse(registry, uri, text, false);
  if (!doc) {
    plan->error = "the document does not parse";
    return plan;
  }
  OpBuilder builder(&doc->context);
  auto module = ModuleOp::create(UnknownLoc::get(&doc->context));
  OwningOpRef<ModuleOp> owner(module);
  if (doc->block.getOperations().size() == 1 &&
      isa<ModuleOp>(doc->block.front())) {
    owner = cast<ModuleOp>(doc->block.front().clone());
    module = *owner;
  } else {
    builder.setInsertionPointToEnd(module.getBody());
    for (Operation &op : doc->block)
      builder.clone(op);
  }
  KernelOp kernel;
  module.walk([&](KernelOp k) { kernel = k; });
  if (!kernel) {
    plan->error = "the document has no pto.kernel";
    return plan;
  }
  const PlatformInfo &platform = getPlatformInfo(getArchFor(kernel));
  plan->arch = platform.name.str();
  DiagnosticCollector collector(&doc->context);
  if (failed(runPassPipeline(module, "builtin.module(pto-ascend-pipeline)"))) {
    plan->error = "pto-ascend-pipeline fails";
    for (const CollectedDiagnostic &d : collector.getDiagnostics())
      if (d.severity == DiagnosticSeverity::Error) {
        plan->error += ": " + d.message;
        break;
      }
    return plan;
  }
  std::map<std::string, int64_t> capacity = {{"ub", platform.ubBytes},
                                             {"l1", platform.l1Bytes},
                                             {"l0a", platform.l0aBytes},
                                             {"l0b", platform.l0bBytes},
                                             {"l0c", platform.l0cBytes}};
  module.walk([&](func::FuncOp func) {
    PlannedLeaf leaf;
    leaf.name = func.getSymName().str();
    if (Attribute core = func->getAttr("pto.leaf")) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << core;
      leaf.core = text.find("cube") != std::string::npos ? "cube" : "vector";
    }
    std::set<uint64_t> locs;
    func.walk([&](Operation *op) {
      if (uint64_t packed = packedLoc(op->getLoc()))
        locs.insert(packed);
      auto alloc = dyn_cast<ptoisa::AllocTileOp>(op);
      if (!alloc)
        return;
      ptoisa::TileType type = alloc.getTileType();
      PlannedTile tile;
      tile.space = ptoisa::stringifyMemorySpace(type.getSpace()).str();
      tile.offset = alloc.getOffset() ? int64_t(*alloc.getOffset()) : -1;
      tile.bytes = type.getByteSize();
      tile.type = typeBody(type);
      uint64_t packed = packedLoc(alloc.getLoc());
      tile.line = packed >> 32;
      tile.column = packed & 0xffffffff;
      int64_t &high = leaf.highWater[tile.space];
      high = std::max(high, std::max<int64_t>(tile.offset, 0) + tile.bytes);
      leaf.capacity[tile.space] = capacity[tile.space];
      leaf.tiles.push_back(tile);
    });
    if (leaf.tiles.empty())
      return;
    leaf.sourceLocs.assign(locs.begin(), locs.end());
    plan->leaves.push_back(std::move(leaf));
  });
  return plan;
}

/// Spells an index value over the document's names: constants, `%name` for
/// values the document names, and the arith ops valid-shape reification
/// builds (min, max, -, ceildiv, ...) over those.
class IndexSpeller {
public:
  explicit IndexSpeller(const DenseMap<Value, std::string> &names)
      : names(names) {}

  std::string spell(OpFoldResult ofr) {
    if (auto attr = dyn_cast<Attribute>(ofr))
      return std::to_string(cast<IntegerAttr>(attr).getInt());
    std::string text;
    llvm::raw_string_ostream os(text);
    spell(cast<Value>(ofr), os, 0);
    return text;
  }

private:
  void spell(Value v, llvm::raw_ostream &os, int depth) {
    APInt constant;
    if (matchPattern(v, m_ConstantInt(&constant))) {
      os << constant.getSExtValue();
      return;
    }
    if (auto it = names.find(v); it != names.end()) {
      os << it->second;
      return;
    }
    Operation *def = v.getDefiningOp();
    if (!def || depth > 6) {
      os << "?";
      return;
    }
    auto call = [&](StringRef name) {
      os << name << '(';
      llvm::interleaveComma(def->getOperands(), os,
                            [&](Value x) { spell(x, os, depth + 1); });
      os << ')';
    };
    auto infix = [&](StringRef symbol) {
      os << '(';
      spell(def->getOperand(0), os, depth + 1);
      os << symbol;
      spell(def->getOperand(1), os, depth + 1);
      os << ')';
    };
    if (isa<arith::MinSIOp, arith::MinUIOp>(def))
      return call("min");
    if (isa<arith::MaxSIOp, arith::MaxUIOp>(def))
      return call("max");
    if (isa<arith::CeilDivSIOp, arith::CeilDivUIOp>(def))
      return call("ceildiv");
    if (isa<arith::SubIOp>(def))
      return infix(" - ");
    if (isa<arith::AddIOp>(def))
      return infix(" + ");
    if (isa<arith::MulIOp>(def))
      return infix(" * ");
    if (isa<arith::DivSIOp, arith::DivUIOp, arith::FloorDivSIOp>(def))
      return infix(" / ");
    if (auto dim = dyn_cast<DimOp>(def)) {
      os << "dim(";
      spell(dim.getSource(), os, depth + 1);
      os << ", " << dim.getDim() << ')';
      return;
    }
    if (auto validDim = dyn_cast<ValidDimOp>(def)) {
      os << "valid_dim(";
      spell(validDim.getSource(), os, depth + 1);
      os << ", " << validDim.getDim() << ')';
      return;
    }
    call(def->getName().getStringRef());
  }

  const DenseMap<Value, std::string> &names;
};

/// An ISA-level tile (after pto-ascend-pipeline): its place in the plan the
/// document already holds, and the buffer's high-water mark in its function.
std::string describePlannedTile(ptoisa::AllocTileOp alloc, StringRef name) {
  ptoisa::TileType type = alloc.getTileType();
  std::string out;
  llvm::raw_string_ostream os(out);
  StringRef space = ptoisa::stringifyMemorySpace(type.getSpace());
  os << "**pto_isa tile** `" << name << "`: " << space << ", " << typeBody(type)
     << "\n\n- bytes: " << type.getByteSize() << " ("
     << formatBytes(type.getByteSize()) << ")\n";
  if (!alloc.getOffset()) {
    os << "- not placed yet (pto-isa-plan-memory sets `at`)\n";
    return out;
  }
  os << "- at offset " << *alloc.getOffset() << " of " << space << "\n";
  Operation *func = alloc->getParentOfType<func::FuncOp>();
  if (!func)
    return out;
  int64_t high = 0, tiles = 0;
  func->walk([&](ptoisa::AllocTileOp other) {
    ptoisa::TileType t = other.getTileType();
    if (t.getSpace() != type.getSpace() || !other.getOffset())
      return;
    ++tiles;
    high = std::max<int64_t>(high, *other.getOffset() + t.getByteSize());
  });
  const PlatformInfo &platform = getPlatformInfo(getArchFor(func));
  int64_t cap = 0;
  switch (type.getSpace()) {
  case ptoisa::MemorySpace::ub:
    cap = platform.ubBytes;
    break;
  case ptoisa::MemorySpace::l1:
    cap = platform.l1Bytes;
    break;
  case ptoisa::MemorySpace::l0a:
    cap = platform.l0aBytes;
    break;
  case ptoisa::MemorySpace::l0b:
    cap = platform.l0bBytes;
    break;
  case ptoisa::MemorySpace::l0c:
    cap = platform.l0cBytes;
    break;
  }
  os << "- " << space << " of `" << cast<func::FuncOp>(func).getSymName()
     << "`: " << tiles << " tiles, high-water " << formatBytes(high) << " of "
     << formatBytes(cap)
     << llvm::formatv(" ({0:f1} %)", cap ? 100.0 * high / cap : 0.0) << "\n";
  return out;
}

bool contains(SMRange range, SMLoc loc) {
  return range.Start.getPointer() <= loc.getPointer() &&
         loc.getPointer() <= range.End.getPointer();
}

} // namespace

TileHover::TileHover(const DialectRegistry &registry) : registry(registry) {
  registerAllPasses();
}

TileHover::~TileHover() = default;

std::shared_ptr<const MemoryPlan> TileHover::planFor(StringRef uri,
                                                     StringRef text) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = plans.find(uri.str());
    if (it != plans.end() && it->second.first == text)
      return it->second.second;
  }
  std::shared_ptr<const MemoryPlan> plan = computePlan(registry, uri, text);
  std::lock_guard<std::mutex> lock(mutex);
  plans[uri.str()] = {text.str(), plan};
  return plan;
}

std::string TileHover::hover(StringRef uri, StringRef fullText, unsigned line,
                             unsigned character) {
  // A split-input file (`// -----` lines) is a series of documents, as MLIR's
  // server treats it: hover within the chunk holding the cursor.
  StringRef text = fullText;
  std::string chunkUri = uri.str();
  {
    SmallVector<StringRef> lines;
    fullText.split(lines, '\n');
    unsigned start = 0, chunk = 0;
    size_t startOffset = 0, offset = 0;
    for (unsigned i = 0; i < lines.size(); ++i) {
      size_t next = offset + lines[i].size() + 1;
      if (lines[i].rtrim() == "// -----") {
        if (i >= line) {
          text = fullText.slice(startOffset, offset);
          break;
        }
        start = i + 1;
        startOffset = std::min(next, fullText.size());
        ++chunk;
      }
      offset = next;
    }
    if (chunk) {
      if (text == fullText)
        text = fullText.drop_front(startOffset);
      line -= start;
      chunkUri += "#chunk" + std::to_string(chunk);
    }
  }
  uri = chunkUri;
  std::unique_ptr<ParsedDocument> doc = parse(registry, uri, text, true);
  if (!doc)
    return "";
  SMLoc cursor = doc->sourceMgr.FindLocForLineAndColumn(
      doc->sourceMgr.getMainFileID(), line + 1, character + 1);
  if (!cursor.isValid())
    return "";

  // Every named value, and the one under the cursor.
  DenseMap<Value, std::string> names;
  Value hovered;
  auto consider = [&](Value value, const AsmParserState::SMDefinition &def) {
    StringRef name(def.loc.Start.getPointer(),
                   def.loc.End.getPointer() - def.loc.Start.getPointer());
    names.try_emplace(value, name.str());
    if (hovered)
      return;
    if (contains(def.loc, cursor) ||
        llvm::any_of(def.uses, [&](SMRange r) { return contains(r, cursor); }))
      hovered = value;
  };
  for (const AsmParserState::OperationDefinition &op : doc->state.getOpDefs())
    for (const auto &group : op.resultGroups)
      if (group.startIndex < op.op->getNumResults())
        consider(op.op->getResult(group.startIndex), group.definition);
  for (const AsmParserState::BlockDefinition &block : doc->state.getBlockDefs())
    for (auto [i, arg] : llvm::enumerate(block.arguments))
      if (i < block.block->getNumArguments())
        consider(block.block->getArgument(i), arg);
  if (!hovered)
    return "";
  if (auto alloc = hovered.getDefiningOp<ptoisa::AllocTileOp>())
    return describePlannedTile(alloc, names[hovered]);
  auto tileType = dyn_cast<TileType>(hovered.getType());
  if (!tileType)
    return "";

  std::string out;
  llvm::raw_string_ostream os(out);
  os << "**pto tile** `" << names[hovered] << "`: `" << tileType << "`\n\n";

  // The valid shape, reified after the definition on this private parse.
  {
    OpBuilder builder(&doc->context);
    if (Operation *def = hovered.getDefiningOp())
      builder.setInsertionPointAfter(def);
    else
      builder.setInsertionPointToStart(cast<BlockArgument>(hovered).getOwner());
    ScopedDiagnosticHandler silence(&doc->context,
                                    [](Diagnostic &) { return success(); });
    SmallVector<OpFoldResult> valid =
        reifyValidShape(builder, hovered.getLoc(), hovered);
    IndexSpeller speller(names);
    os << "- valid shape: [";
    llvm::interleaveComma(valid, os,
                          [&](OpFoldResult v) { os << speller.spell(v); });
    os << "] of [";
    llvm::interleaveComma(tileType.getShape(), os);
    os << "]\n";
  }
  os << "- bytes: " << tileType.getByteSize() << " ("
     << formatBytes(tileType.getByteSize()) << ", " << tileType.getNumElements()
     << " x " << tileType.getElementByteSize() << " B)\n";

  // The leaves computing it, from the memory plan.
  std::shared_ptr<const MemoryPlan> plan = planFor(uri, text);
  if (!plan->error.empty()) {
    os << "- memory plan: none (" << plan->error << ")\n";
    return out;
  }
  std::set<uint64_t> related;
  uint64_t defLoc = 0;
  if (Operation *def = hovered.getDefiningOp())
    related.insert(defLoc = packedLoc(def->getLoc()));
  for (Operation *user : hovered.getUsers())
    related.insert(packedLoc(user->getLoc()));
  related.erase(0);
  int shown = 0, holding = 0;
  for (const PlannedLeaf &leaf : plan->leaves) {
    if (llvm::none_of(leaf.sourceLocs,
                      [&](uint64_t l) { return related.count(l); }))
      continue;
    ++holding;
    if (shown == 4)
      continue;
    ++shown;
    if (shown == 1)
      os << "- memory plan (pto-ascend-pipeline, " << plan->arch << "):\n";
    os << "  - leaf `" << leaf.name << "`"
       << (leaf.core.empty() ? "" : " (" + leaf.core + ")") << ":";
    bool first = true;
    for (const auto &[space, high] : leaf.highWater) {
      int64_t cap = leaf.capacity.at(space);
      os << (first ? " " : "; ") << space << " " << formatBytes(high) << " of "
         << formatBytes(cap)
         << llvm::formatv(" ({0:f1} %)", cap ? 100.0 * high / cap : 0.0);
      first = false;
    }
    // The tiles planned for the op defining the value, by its location,
    // grouped by space and type, with their distinct offsets.
    std::map<std::pair<std::string, std::string>,
             std::vector<const PlannedTile *>>
        own;
    for (const PlannedTile &tile : leaf.tiles)
      if (defLoc && ((uint64_t(tile.line) << 32) | tile.column) == defLoc)
        own[{tile.space, tile.type}].push_back(&tile);
    if (!own.empty())
      os << "\n    - planned at its op's location (with the views it reads):";
    for (const auto &[key, tiles] : own) {
      std::set<int64_t> offsets;
      for (const PlannedTile *tile : tiles)
        offsets.insert(tile->offset);
      os << "\n      - " << key.first << ": " << tiles.size() << " x "
         << key.second << " (" << formatBytes(tiles.front()->bytes)
         << ") at offset" << (offsets.size() == 1 ? "" : "s");
      int i = 0;
      for (int64_t offset : offsets) {
        if (i == 6) {
          os << ", ...";
          break;
        }
        os << (i++ ? ", " : " ") << offset;
      }
    }
    os << "\n";
  }
  if (holding > shown)
    os << "  - and " << (holding - shown) << " more leaves\n";
  if (!holding)
    os << "- memory plan: no leaf of pto-ascend-pipeline computes it (folded "
          "or only read on the host)\n";
  return out;
}

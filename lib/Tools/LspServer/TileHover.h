//===- TileHover.h - hover text for pto tile values -------------*- C++ -*-===//
//
// What pto-lsp-server adds to MLIR's hover on an SSA value of tile type: the
// valid shape (reified through ValidShapeInferenceOpInterface and spelled over
// the document's value names), the bytes, and the UB / L1 / L0 occupancy of
// the leaves that compute it in the memory plan of `pto-ascend-pipeline`.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_LIB_TOOLS_LSPSERVER_TILEHOVER_H
#define PTO_LIB_TOOLS_LSPSERVER_TILEHOVER_H

#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mlir::pto::lsp {

/// One planned pto_isa tile of a leaf.
struct PlannedTile {
  std::string space; // ub, l1, l0a, l0b, l0c, ...
  int64_t offset = -1;
  int64_t bytes = 0;
  std::string type;              // e.g. "16x64xf32"
  unsigned line = 0, column = 0; // source location (1-based), 0 if none
};

/// The memory plan of one leaf: its tiles and, per space, the high-water
/// mark (largest offset + bytes) against the capacity.
struct PlannedLeaf {
  std::string name;
  std::string core; // "cube" or "vector"
  std::vector<PlannedTile> tiles;
  std::map<std::string, int64_t> highWater, capacity;
  /// Source lines:columns of the leaf's ops (1-based, packed line << 32 | col).
  std::vector<uint64_t> sourceLocs;
};

/// The memory plan of a document, or why there is none.
struct MemoryPlan {
  std::string arch;
  std::vector<PlannedLeaf> leaves;
  std::string error; // non-empty: pto-ascend-pipeline failed with this
};

/// Computes hover text for tile values. Memory plans are cached per document
/// text (the pipeline runs once per edit, on the first hover after it).
/// Thread-safe.
class TileHover {
public:
  explicit TileHover(const DialectRegistry &registry);
  ~TileHover();

  /// Markdown describing the tile value whose name is at `line`:`character`
  /// (0-based, as in LSP) in `text`, or "" when there is none (not a tile
  /// value, or the document does not parse). In a split-input file
  /// (`// -----` lines) the chunk holding the cursor is the document.
  std::string hover(llvm::StringRef uri, llvm::StringRef text, unsigned line,
                    unsigned character);

private:
  std::shared_ptr<const MemoryPlan> planFor(llvm::StringRef uri,
                                            llvm::StringRef text);

  const DialectRegistry &registry;
  std::mutex mutex;
  /// uri -> (text, plan) of the last plan computed for it.
  std::map<std::string,
           std::pair<std::string, std::shared_ptr<const MemoryPlan>>>
      plans;
};

} // namespace mlir::pto::lsp

#endif // PTO_LIB_TOOLS_LSPSERVER_TILEHOVER_H

//===- SplitTransfers.cpp - GM <-> UB transfers of at most 4095 rows ------===//
//
// A2/A3 moves GM <-> UB rows as DMA bursts whose count is a 12-bit field:
// pto-isa's TLOAD static_asserts `Rows < 4096` for an ND ub tile and asserts
// fewer than 4096 rows per TSTORE (include/pto/common/arch/memory/
// tload_common.hpp, include/pto/npu/a2a3/TStore.hpp). A leaf tile of more
// rows (SK-01's `[4096, 1]` l and m copies at q_tile = 4096) is moved in
// chunks of at most that many rows instead (docs/ISA.md, "Long transfers").
//
//===----------------------------------------------------------------------===//

#include "LeafLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::lower_to_isa;

namespace mlir::pto::lower_to_isa {

namespace {
struct Chunk {
  int64_t start, rows;
};
} // namespace

/// A whole ub tile of more than kMaxUbTransferRows rows takes at least
/// 128 KiB (32 bytes a row) of UB's 184 KiB; the chunks staged beside it
/// (loaded then inserted, extracted then stored, one after another so each
/// takes the previous one's bytes) are kept to this many rows (32 KiB).
constexpr int64_t kStagedChunkRows = 1024;

/// Equal chunks of at most `most` rows covering `rows`.
static SmallVector<Chunk> chunksOf(int64_t rows,
                                   int64_t most = kMaxUbTransferRows) {
  int64_t count = (rows + most - 1) / most;
  int64_t each = (rows + count - 1) / count;
  SmallVector<Chunk> chunks;
  for (int64_t start = 0; start < rows; start += each)
    chunks.push_back({start, std::min(each, rows - start)});
  return chunks;
}

static bool isLongUbTile(Value tile) {
  auto type = cast<pisa::TileType>(tile.getType());
  return type.getSpace() == pisa::MemorySpace::ub &&
         type.getRows() > kMaxUbTransferRows;
}

void LeafLowering::splitLongTransfers(
    llvm::SmallPtrSetImpl<Operation *> &erased) {
  Block &body = func.getBody().front();
  SmallVector<pisa::TLoadOp> loads;
  SmallVector<pisa::TStoreOp> stores;
  for (Operation &op : body) {
    if (auto load = dyn_cast<pisa::TLoadOp>(&op);
        load && isLongUbTile(load.getDst()))
      loads.push_back(load);
    if (auto store = dyn_cast<pisa::TStoreOp>(&op);
        store && isLongUbTile(store.getSrc()))
      stores.push_back(store);
  }
  if (loads.empty() && stores.empty())
    return;

  auto erase = [&](Operation *op) {
    erased.insert(op);
    op->erase();
  };
  // Chunk k of `tile`: a tile of its columns and the chunk's rows, valid
  // rows min(max(v - start, 0), rows) (an empty chunk's transfer is skipped
  // by the emitted guards).
  auto chunkTiles = [&](Location loc, pisa::AllocTileOp tile,
                        ArrayRef<Chunk> chunks) {
    pisa::TileType type = tile.getTileType();
    SmallVector<Value> result;
    for (Chunk chunk : chunks) {
      auto chunkType = pisa::TileType::get(
          type.getContext(), type.getSpace(), chunk.rows, type.getCols(),
          type.getElementType(), type.getLayout());
      Value rest = tile.getValidRows();
      if (chunk.start)
        rest =
            arith::SubIOp::create(builder, loc, rest, constIndex(chunk.start));
      Value rows = arith::MinSIOp::create(
          builder, loc,
          arith::MaxSIOp::create(builder, loc, rest, constIndex(0)),
          constIndex(chunk.rows));
      result.push_back(alloc(loc, chunkType, rows, tile.getValidCols()));
    }
    return result;
  };
  auto shifted = [&](Location loc, Value row, int64_t by) -> Value {
    if (!by)
      return row;
    if (std::optional<int64_t> c = getConstantIntValue(row))
      return constIndex(*c + by);
    return arith::AddIOp::create(builder, loc, row, constIndex(by));
  };
  auto storeChunks = [&](pisa::TStoreOp store, ArrayRef<Chunk> chunks,
                         ArrayRef<Value> parts) {
    builder.setInsertionPoint(store);
    for (auto [chunk, part] : llvm::zip(chunks, parts))
      pisa::TStoreOp::create(
          builder, store.getLoc(), part, store.getDst(),
          shifted(store.getLoc(), store.getRow(), chunk.start), store.getCol(),
          store.getAtomicAdd());
  };

  llvm::SmallPtrSet<Operation *, 8> storesDone;
  for (pisa::TLoadOp load : loads) {
    auto tile = pisa::getAlloc(load.getDst());
    if (!tile)
      continue;
    Location loc = load.getLoc();
    auto loadChunk = [&](Chunk chunk, Value part) {
      pisa::TLoadOp::create(builder, loc, load.getSrc(),
                            shifted(loc, load.getRow(), chunk.start),
                            load.getCol(), part, /*transpose=*/false);
    };
    // A tile that is only loaded and stored (a GM -> GM copy through UB)
    // needs no whole tile: each chunk is stored as it was loaded.
    bool copyOnly = llvm::all_of(tile->getUsers(), [&](Operation *user) {
      auto store = dyn_cast<pisa::TStoreOp>(user);
      return user == load.getOperation() ||
             (store && store.getSrc() == tile.getResult() &&
              store->getBlock() == &body && load->isBeforeInBlock(store));
    });
    builder.setInsertionPoint(load);
    if (copyOnly) {
      SmallVector<Chunk> chunks = chunksOf(tile.getTileType().getRows());
      SmallVector<Value> parts = chunkTiles(loc, tile, chunks);
      for (auto [chunk, part] : llvm::zip(chunks, parts))
        loadChunk(chunk, part);
      for (Operation *user : llvm::to_vector(tile->getUsers()))
        if (auto store = dyn_cast<pisa::TStoreOp>(user)) {
          storeChunks(store, chunks, parts);
          storesDone.insert(store.getOperation());
          erase(store);
        }
      erase(load);
      erase(tile);
      continue;
    }
    SmallVector<Chunk> chunks =
        chunksOf(tile.getTileType().getRows(), kStagedChunkRows);
    SmallVector<Value> parts = chunkTiles(loc, tile, chunks);
    for (auto [chunk, part] : llvm::zip(chunks, parts)) {
      loadChunk(chunk, part);
      pisa::TInsertOp::create(builder, loc, part, tile.getResult(), chunk.start,
                              0);
    }
    erase(load);
  }
  for (pisa::TStoreOp store : stores) {
    if (storesDone.contains(store.getOperation()))
      continue;
    auto tile = pisa::getAlloc(store.getSrc());
    if (!tile)
      continue;
    SmallVector<Chunk> chunks =
        chunksOf(tile.getTileType().getRows(), kStagedChunkRows);
    Location loc = store.getLoc();
    builder.setInsertionPoint(store);
    SmallVector<Value> parts = chunkTiles(loc, tile, chunks);
    for (auto [chunk, part] : llvm::zip(chunks, parts)) {
      pisa::TExtractOp::create(builder, loc, tile.getResult(), part,
                               chunk.start, 0);
      pisa::TStoreOp::create(builder, loc, part, store.getDst(),
                             shifted(loc, store.getRow(), chunk.start),
                             store.getCol(), store.getAtomicAdd());
    }
    erase(store);
  }
}

} // namespace mlir::pto::lower_to_isa

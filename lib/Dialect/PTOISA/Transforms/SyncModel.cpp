//===- SyncModel.cpp - what a pto_isa instruction touches -----------------===//

#include "SyncModel.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::ptoisa;
using namespace mlir::ptoisa::sync;

std::optional<Pipe> sync::getInstructionPipe(Operation *op) {
  if (auto pipeOp = dyn_cast<PipeOpInterface>(op))
    return pipeOp.getPipe();
  return std::nullopt;
}

static std::optional<int64_t> constantIndex(Value v) {
  APInt value;
  if (v && matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

static Buffer tileBuffer(Value tile) {
  Buffer b;
  b.kind = Buffer::Kind::Tile;
  auto type = cast<TileType>(tile.getType());
  b.space = type.getSpace();
  if (AllocTileOp alloc = getAlloc(tile)) {
    b.alloc = alloc;
    if (std::optional<int64_t> offset = alloc.getOffset()) {
      b.planned = true;
      b.begin = *offset;
      b.end = *offset + type.getByteSize();
    }
  }
  return b;
}

/// The GM window an instruction touches: `[row, col]` with the extent of the
/// tile's capacity (an upper bound of its valid region); a transposing load
/// reads the transposed window.
static Buffer gmBuffer(Value tensor, Value row, Value col, Value tile,
                       bool transposed) {
  Buffer b;
  b.kind = Buffer::Kind::GM;
  b.tensor = tensor;
  b.root = pto::getAliasedTensor(tensor);
  std::optional<int64_t> r = constantIndex(row), c = constantIndex(col);
  if (r && c && tile) {
    auto type = cast<TileType>(tile.getType());
    int64_t rows = transposed ? type.getCols() : type.getRows();
    int64_t cols = transposed ? type.getRows() : type.getCols();
    b.hasWindow = true;
    b.row0 = *r;
    b.row1 = *r + rows;
    b.col0 = *c;
    b.col1 = *c + cols;
  }
  return b;
}

void sync::getAccesses(Operation *op, SmallVectorImpl<Access> &accesses) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  for (const MemoryEffects::EffectInstance &effect : instances) {
    bool write = isa<MemoryEffects::Write>(effect.getEffect());
    if (!write && !isa<MemoryEffects::Read>(effect.getEffect()))
      continue;
    Value value = effect.getValue();
    if (!value)
      continue;
    Access access;
    access.write = write;
    if (isa<TileType>(value.getType())) {
      access.buffer = tileBuffer(value);
    } else if (isa<pto::GMTensorType>(value.getType())) {
      if (auto load = dyn_cast<TLoadOp>(op))
        access.buffer = gmBuffer(value, load.getRow(), load.getCol(),
                                 load.getDst(), load.getTranspose());
      else if (auto store = dyn_cast<TStoreOp>(op))
        access.buffer = gmBuffer(value, store.getRow(), store.getCol(),
                                 store.getSrc(), /*transposed=*/false);
      else
        access.buffer = gmBuffer(value, {}, {}, {}, false);
    } else {
      continue;
    }
    accesses.push_back(access);
  }
}

bool sync::mayOverlap(const Buffer &a, const Buffer &b) {
  if (a.kind != b.kind)
    return false;
  if (a.kind == Buffer::Kind::GM) {
    if (a.root != b.root)
      return false;
    // Windows are comparable only on the same tensor value (a reshape
    // changes the row pitch).
    if (a.tensor == b.tensor && a.hasWindow && b.hasWindow)
      return a.row0 < b.row1 && b.row0 < a.row1 && a.col0 < b.col1 &&
             b.col0 < a.col1;
    return true;
  }
  if (a.space != b.space)
    return false;
  if (a.planned && b.planned)
    return a.begin < b.end && b.begin < a.end;
  // Before planning every alloc_tile is its own buffer. A tile of unknown
  // origin, or a planned tile next to an unplanned one, may be anywhere.
  if (!a.alloc || !b.alloc || a.planned != b.planned)
    return true;
  return a.alloc == b.alloc;
}

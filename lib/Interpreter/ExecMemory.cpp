//===- ExecMemory.cpp - views, stores, matmuls
//------------------------------===//
//
// pto-run semantics of GM views and stores (atomic adds buffered per
// tensor), matmuls, workspaces and calls.
//
//===----------------------------------------------------------------------===//

#include "InterpreterImpl.h"

namespace mlir::pto::interp::detail {

//===----------------------------------------------------------------------===//
// Views and stores
//===----------------------------------------------------------------------===//

/// Calls `f(srcLinear, dstLinear, count)` for each innermost contiguous run of
/// a `valid`-sized block; `srcStrides`/`dstStrides` are per-dim strides.
template <typename F>
void forEachRow(ArrayRef<int64_t> valid, ArrayRef<int64_t> srcStrides,
                int64_t srcBase, ArrayRef<int64_t> dstStrides, int64_t dstBase,
                F &&f) {
  int64_t rank = valid.size();
  for (int64_t v : valid)
    if (v == 0)
      return;
  SmallVector<int64_t, 4> idx(rank, 0);
  int64_t inner = valid[rank - 1];
  while (true) {
    int64_t s = srcBase, d = dstBase;
    for (int64_t k = 0; k + 1 < rank; ++k) {
      s += idx[k] * srcStrides[k];
      d += idx[k] * dstStrides[k];
    }
    f(s, d, inner);
    int64_t k = rank - 2;
    for (; k >= 0; --k) {
      if (++idx[k] < valid[k])
        break;
      idx[k] = 0;
    }
    if (k < 0)
      return;
  }
}

/// The name of the tensor of a workspace marked kOnChipAttrName.
static constexpr llvm::StringLiteral kOnChipWorkspaceName = "on-chip workspace";

/// Reports a view of a GM tensor: a read of GM, or of an on-chip workspace
/// an on-chip move.
static void reportRead(ExecutionObserver *observer, Operation *op,
                       const TensorRef &tensor, uint64_t bytes,
                       ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes) {
  if (tensor.name == kOnChipWorkspaceName)
    observer->onChipMove(op, bytes, /*write=*/false);
  else
    observer->gmRead(op, tensor.storage, tensor.name == "workspace", bytes,
                     GMBox{tensor.shape, offsets, sizes});
}

LogicalResult Interpreter::execView(ViewOp op) {
  FailureOr<SmallVector<int64_t, 4>> valid = inferValid(op);
  if (failed(valid))
    return failure();
  SmallVector<int64_t, 4> offsets =
      mixedValues(op.getStaticOffsets(), op.getOffsets());
  SmallVector<int64_t, 4> explicitValid;
  if (auto staticValid = op.getStaticValidShape())
    explicitValid = mixedValues(*staticValid, op.getValidShape());

  // Against a tensor's dims, or a tile's valid extents.
  const int64_t *validOrNull =
      explicitValid.empty() ? nullptr : explicitValid.data();
  std::string rule;
  if (auto *tensor = std::get_if<TensorRef>(&env.at(op.getSource()))) {
    std::string name = tensor->name.str();
    rule = pto_check::view("tensor", name.c_str(), tensor->shape.data(),
                           offsets.data(), validOrNull, offsets.size());
    flushAtomics(tensor->storage);
  } else {
    rule = pto_check::tile_view(getTile(op.getSource()).valid.data(),
                                offsets.data(), validOrNull, offsets.size());
  }
  if (!rule.empty())
    return op.emitError() << "pto-run: " << rule;

  TileValue tile = newTile(op.getResult(), *valid);
  float *out = tile.data ? tile.data->data() : nullptr;
  SmallVector<int64_t, 4> dstStrides = rowMajorStrides(tile.valid);
  if (!options.numerics) {
    if (auto *tensor = std::get_if<TensorRef>(&env.at(op.getSource()))) {
      if (observer())
        reportRead(observer(), op, *tensor,
                   uint64_t(tile.numValid()) *
                       getByteSize(tensor->storage->kind),
                   offsets, tile.valid);
    } else {
      tile.gm = getTile(op.getSource()).gm;
    }
  } else if (auto *tensor = std::get_if<TensorRef>(&env.at(op.getSource()))) {
    SmallVector<int64_t, 4> srcStrides = rowMajorStrides(tensor->shape);
    // Every offset is inside its dim when the view has valid elements (an
    // empty view may sit anywhere, and reads nothing).
    int64_t base = 0;
    if (tile.numValid() > 0)
      for (auto [o, s] : llvm::zip(offsets, srcStrides))
        base += o * s;
    const HostTensor &storage = *tensor->storage;
    if (observer())
      reportRead(observer(), op, *tensor,
                 uint64_t(tile.numValid()) * getByteSize(storage.kind), offsets,
                 tile.valid);
    forEachRow(tile.valid, srcStrides, base, dstStrides, 0,
               [&](int64_t s, int64_t d, int64_t n) {
                 if (storage.kind == ElementKind::BF16) {
                   auto *src =
                       reinterpret_cast<const uint16_t *>(storage.bytes.data());
                   for (int64_t i = 0; i < n; ++i)
                     out[d + i] = bf16ToFloat(src[s + i]);
                 } else if (storage.kind == ElementKind::F32) {
                   std::memcpy(out + d, storage.bytes.data() + 4 * s, 4 * n);
                 } else {
                   for (int64_t i = 0; i < n; ++i)
                     out[d + i] = storage.loadFloat(s + i);
                 }
               });
  } else {
    const TileValue &source = getTile(op.getSource());
    SmallVector<int64_t, 4> srcStrides = rowMajorStrides(source.valid);
    int64_t base = 0;
    for (auto [o, s] : llvm::zip(offsets, srcStrides))
      base += o * s;
    const float *in = source.data->data();
    forEachRow(tile.valid, srcStrides, base, dstStrides, 0,
               [&](int64_t s, int64_t d, int64_t n) {
                 std::memcpy(out + d, in + s, sizeof(float) * n);
               });
    tile.gm = source.gm;
  }
  if (auto *tensor = std::get_if<TensorRef>(&env.at(op.getSource())))
    if (observer() && !isInsideLeaf(op))
      tile.gm = &provenances.emplace_back(
          TileProvenance{tensor->storage, nextLaunchId});
  env[op.getResult()] = std::move(tile);
  return success();
}

LogicalResult Interpreter::execStore(Operation *op, Value srcValue,
                                     Value dstValue,
                                     ArrayRef<int64_t> staticOffsets,
                                     ValueRange dynamicOffsets, bool atomic) {
  const TileValue &src = getTile(srcValue);
  const TensorRef &dst = getTensor(dstValue);
  SmallVector<int64_t, 4> offsets = mixedValues(staticOffsets, dynamicOffsets);
  StringRef opName = atomic ? "atomic_add" : "assemble";
  // An empty valid region writes nothing, wherever it points (tail pieces
  // of an expanded tile can lie past the end of the tensor).
  if (src.numValid() == 0)
    return success();
  for (auto [d, offset] : llvm::enumerate(offsets)) {
    if (offset < 0 || offset + src.valid[d] > dst.shape[d])
      return op->emitError()
             << "pto-run: " << opName << " writes "
             << rangeStr(offset, offset + src.valid[d]) << " of dim " << d
             << " of '" << dst.name << "', which has " << dst.shape[d]
             << " (offsets " << listStr(offsets) << ", valid extents "
             << listStr(src.valid) << ", tensor shape " << listStr(dst.shape)
             << ")";
  }
  if (observer()) {
    uint64_t bytes = uint64_t(src.numValid()) * getByteSize(dst.storage->kind);
    if (dst.name == kOnChipWorkspaceName)
      observer()->onChipMove(op, bytes, /*write=*/true);
    else
      observer()->gmWrite(op, dst.storage, dst.name == "workspace", bytes,
                          atomic, GMBox{dst.shape, offsets, src.valid});
  }
  if (!options.numerics) {
    if (atomic)
      stats.atomicElements += src.numValid();
    // Its values are now unknown: a later scalar read of it is a fault, not
    // a read of stale values.
    if (!dst.storage->shapeOnly) {
      std::vector<uint8_t>().swap(dst.storage->bytes);
      dst.storage->shapeOnly = true;
    }
    return success();
  }
  if (atomic && options.shuffleAtomics) {
    pendingAtomics[dst.storage].push_back({src, offsets, dst.shape});
    return success();
  }
  if (!atomic)
    flushAtomics(dst.storage);
  SmallVector<int64_t, 4> dstStrides = rowMajorStrides(dst.shape);
  SmallVector<int64_t, 4> srcStrides = rowMajorStrides(src.valid);
  int64_t base = 0;
  for (auto [o, s] : llvm::zip(offsets, dstStrides))
    base += o * s;
  HostTensor &storage = *dst.storage;
  const float *in = src.data->data();
  if (atomic)
    stats.atomicElements += src.numValid();
  forEachRow(src.valid, srcStrides, 0, dstStrides, base,
             [&](int64_t s, int64_t d, int64_t n) {
               if (storage.kind == ElementKind::F32) {
                 float *out = reinterpret_cast<float *>(storage.bytes.data());
                 for (int64_t i = 0; i < n; ++i)
                   out[d + i] = atomic ? out[d + i] + in[s + i] : in[s + i];
                 return;
               }
               for (int64_t i = 0; i < n; ++i)
                 storage.storeFloat(d + i, atomic ? storage.loadFloat(d + i) +
                                                        in[s + i]
                                                  : in[s + i]);
             });
  return success();
}

void Interpreter::flushAtomics(HostTensor *storage) {
  auto it = pendingAtomics.find(storage);
  if (it == pendingAtomics.end() || it->second.empty())
    return;
  std::vector<PendingAtomic> pending = std::move(it->second);
  pendingAtomics.erase(it);
  std::shuffle(pending.begin(), pending.end(), rng);
  for (const PendingAtomic &atomic : pending) {
    SmallVector<int64_t, 4> dstStrides = rowMajorStrides(atomic.dstShape);
    SmallVector<int64_t, 4> srcStrides = rowMajorStrides(atomic.src.valid);
    int64_t base = 0;
    for (auto [o, s] : llvm::zip(atomic.offsets, dstStrides))
      base += o * s;
    const float *in = atomic.src.data->data();
    stats.atomicElements += atomic.src.numValid();
    forEachRow(atomic.src.valid, srcStrides, 0, dstStrides, base,
               [&](int64_t s, int64_t d, int64_t n) {
                 for (int64_t i = 0; i < n; ++i)
                   storage->storeFloat(d + i,
                                       storage->loadFloat(d + i) + in[s + i]);
               });
  }
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::execMatmul(Operation *op, Value accValue,
                                      Value lhsValue, Value rhsValue,
                                      bool aTrans, bool bTrans) {
  const TileValue &a = getTile(lhsValue);
  const TileValue &b = getTile(rhsValue);
  int64_t m = aTrans ? a.valid[1] : a.valid[0];
  int64_t kA = aTrans ? a.valid[0] : a.valid[1];
  int64_t kB = bTrans ? b.valid[1] : b.valid[0];
  int64_t n = bTrans ? b.valid[0] : b.valid[1];
  if (kA != kB)
    return op->emitError() << "pto-run: matmul contracts " << kA
                           << " valid elements of the left operand (valid "
                           << listStr(a.valid) << ") with " << kB
                           << " of the right operand (valid "
                           << listStr(b.valid)
                           << "); the valid K extents must be equal";
  FailureOr<SmallVector<int64_t, 4>> valid = inferValid(op);
  if (failed(valid))
    return failure();
  TileValue c = newTile(op->getResult(0), *valid);
  float beta = 0.0f;
  if (accValue) {
    const TileValue &acc = getTile(accValue);
    if (acc.valid[0] != m || acc.valid[1] != n)
      return op->emitError()
             << "pto-run: matmul_acc adds a [" << m << ", " << n
             << "] product to an accumulator with valid extents "
             << listStr(acc.valid);
    if (c.data)
      std::copy(acc.data->begin(), acc.data->end(), c.data->begin());
    beta = 1.0f;
  }
  if (m > 0 && n > 0 && kA > 0) {
    // Row-major compact operands: the leading dim is the valid column count.
    if (c.data)
      cblas_sgemm(CblasRowMajor, aTrans ? CblasTrans : CblasNoTrans,
                  bTrans ? CblasTrans : CblasNoTrans, m, n, kA, 1.0f,
                  a.data->data(), std::max<int64_t>(1, a.valid[1]),
                  b.data->data(), std::max<int64_t>(1, b.valid[1]), beta,
                  c.data->data(), std::max<int64_t>(1, n));
    stats.matmulFlops += 2 * uint64_t(m) * uint64_t(n) * uint64_t(kA);
    if (observer())
      observer()->matmul(op, m, n, kA);
  }
  bindRounded(op->getResult(0), std::move(c));
  return success();
}

LogicalResult Interpreter::execWorkspace(WorkspaceOp op) {
  std::unique_ptr<HostTensor> &buffer =
      workspaces[{op.getOperation(), recordingSlot.value_or(0)}];
  GMTensorType type = op.getResult().getType();
  if (!buffer) {
    std::optional<ElementKind> kind = getElementKind(type.getElementType());
    if (!kind)
      return op.emitError()
             << "pto-run: cannot hold a workspace of " << type.getElementType();
    buffer = options.numerics
                 ? std::make_unique<HostTensor>(*kind, type.getShape())
                 : std::make_unique<HostTensor>(
                       HostTensor::makeShapeOnly(*kind, type.getShape()));
  }
  if (recordingSlot)
    stitchWorkspaceBytes += buffer->getStorageSize();
  TensorRef ref;
  ref.storage = buffer.get();
  ref.shape.assign(type.getShape().begin(), type.getShape().end());
  // A MIX task's L0C -> UB exchange (pto-mix-exchange): reported as an
  // on-chip move, not as GM traffic.
  ref.name = op->hasAttr(kOnChipAttrName) ? kOnChipWorkspaceName : "workspace";
  env[op.getResult()] = ref;
  return success();
}

LogicalResult Interpreter::execCall(Operation *call, FlatSymbolRefAttr callee,
                                    ValueRange args) {
  auto fn = symbolTables.lookupNearestSymbolFrom<FunctionOpInterface>(
      call, callee.getAttr());
  if (!fn || fn.isExternal())
    return call->emitError() << "pto-run: cannot find the body of " << callee;
  SmallVector<RuntimeValue> values;
  for (Value arg : args)
    values.push_back(env.at(arg));
  return execBlock(fn.getFunctionBody().front(), values, nullptr);
}

} // namespace mlir::pto::interp::detail

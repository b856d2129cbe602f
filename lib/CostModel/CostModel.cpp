//===- CostModel.cpp - a first performance model of the execute graph -----===//
//
// See docs/CostModel.md for the model, its constants and what it leaves out.
//
// This file records the launches the interpreter reports (their pipes, GM
// accesses and on-chip moves); the rest of the model is split by concern:
// the launch graph's JSON form (CostModelGraph.cpp), the discrete-event
// simulation of the runtime (CostModelSimulate.cpp) and the report and
// trace (CostModelReport.cpp).
//
//===----------------------------------------------------------------------===//

#include "pto/CostModel/CostModel.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "pto/Dialect/PTO/IR/PTODialect.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::cost;

StringRef cost::getPipeName(unsigned pipe) {
  static const char *names[] = {"MTE2", "MTE1", "M", "FIX", "V", "MTE3"};
  return pipe < kNumPipes ? names[pipe] : "?";
}

CostModel::CostModel(Arch arch, CostModelOptions options)
    : platform(getPlatformInfo(arch)), options(options),
      l2BytesPerSec(
          options.l2BytesPerSec.value_or(platform.perf.l2BytesPerSec)) {}

void CostModel::beginRecord(LaunchRecord record) {
  if (record.family.empty())
    record.family = record.leaf;
  record.accessBytes.assign(record.accesses.size(), {0, 0});
  record.accessRegions.assign(record.accesses.size(), {});
  launches.push_back(std::move(record));
  current = &launches.back();
}

void CostModel::launchBegin(const interp::LaunchEvent &event) {
  LaunchRecord record;
  record.id = event.id;
  record.instance = event.instance;
  record.stitch = event.stitch;
  record.deps = event.deps;
  // Bit 8: ops the observer sees no box for touch the tensor too, so its
  // regions are the whole tensor.
  SmallVector<bool, 4> unboxed;
  for (auto [tensor, bits] : event.accesses) {
    record.accesses.push_back({tensor, uint8_t(bits & 7)});
    unboxed.push_back(bits & 8);
  }
  // Snapshots count launches run before the view; launches are observed in
  // id order, so that is the number of records before it.
  for (const auto &read : event.tileReads) {
    uint64_t snapshot = read.second;
    auto at = llvm::partition_point(
        launches, [&](const LaunchRecord &l) { return l.id < snapshot; });
    record.tileReads.push_back({read.first, uint64_t(at - launches.begin())});
  }
  if (auto fn = dyn_cast_or_null<FunctionOpInterface>(event.leaf)) {
    record.leaf = fn.getName().str();
    if (auto family = fn->getAttrOfType<StringAttr>("pto.family"))
      record.family = family.getValue().str();
  }
  auto kind = event.leaf ? event.leaf->getAttrOfType<CoreKindAttr>("pto.leaf")
                         : CoreKindAttr();
  // MIX leaves (DAV_3510) occupy an AIC with its AIVs: the cube pool.
  record.cube = !kind || kind.getValue() != CoreKind::vector;
  record.mix = kind && kind.getValue() == CoreKind::mix;
  beginRecord(std::move(record));
  for (auto [k, whole] : llvm::enumerate(unboxed))
    if (whole)
      for (unsigned b = 0; b < 3; ++b)
        if (current->accesses[k].second & (1u << b))
          current->accessRegions[k][b].whole = true;
}

void CostModel::launchEnd() {
  if (current)
    endRecord();
  current = nullptr;
}

void CostModel::endRecord() {
  for (auto [access, regions] :
       llvm::zip(current->accesses, current->accessRegions))
    for (unsigned k = 0; k < 3; ++k)
      if ((access.second & (1u << k)) && regions[k].empty())
        regions[k].whole = true;
}

void GMRegion::add(interp::GMBox box) {
  if (whole)
    return;
  if (box.shape.empty() || box.shape.size() != box.offsets.size() ||
      box.shape.size() != box.sizes.size()) {
    whole = true;
    return;
  }
  if (llvm::is_contained(box.sizes, 0))
    return; // touches nothing
  if (shape.empty()) {
    shape.assign(box.shape.begin(), box.shape.end());
    lo.assign(box.offsets.begin(), box.offsets.end());
    for (auto [o, n] : llvm::zip(box.offsets, box.sizes))
      hi.push_back(o + n);
    return;
  }
  if (!llvm::equal(shape, box.shape)) {
    // Another shape of the same storage (a reshape): no common box.
    whole = true;
    return;
  }
  for (auto [d, o, n] : llvm::enumerate(box.offsets, box.sizes)) {
    lo[d] = std::min(lo[d], o);
    hi[d] = std::max(hi[d], o + n);
  }
}

bool GMRegion::intersects(const GMRegion &other) const {
  if (empty() || other.empty())
    return false;
  if (whole || other.whole)
    return true;
  if (llvm::equal(shape, other.shape)) {
    for (auto [l0, h0, l1, h1] : llvm::zip(lo, hi, other.lo, other.hi))
      if (h0 <= l1 || h1 <= l0)
        return false;
    return true;
  }
  // Two shapes of one row-major storage: compare the element ranges the
  // boxes span.
  auto span = [](const GMRegion &r) {
    int64_t first = 0, last = 0, stride = 1;
    for (int64_t d = int64_t(r.shape.size()) - 1; d >= 0; --d) {
      first += r.lo[d] * stride;
      last += (r.hi[d] - 1) * stride;
      stride *= r.shape[d];
    }
    return std::make_pair(first, last);
  };
  auto [first0, last0] = span(*this);
  auto [first1, last1] = span(other);
  return first0 <= last1 && first1 <= last0;
}

void CostModel::stitchFlushAt(Operation *op) {
  // A control-program view makes a tile (a reference to GM on the control
  // AICPU) and valid_dim reads a tile's valid extents (metadata the control
  // program computed); the interpreter needs the data, the runtime would
  // not wait for the device.
  softFlush = isa<ViewOp, ValidDimOp>(op);
  ++flushCauses[op->getName().getStringRef().str()];
}

void CostModel::stitchBegin(int64_t stitch, uint64_t instances,
                            uint64_t count) {
  // docs/PyPTOModel.md#stitching: at most 1024 root instances and 60000 call
  // tasks per device task.
  bool merge = options.mergeStitches && softFlush && group >= 0 &&
               groupInstances + instances <= 1024 &&
               groupLaunches + count <= 60000;
  softFlush = false;
  if (merge) {
    ++mergedStitches;
  } else {
    group = stitch;
    groupInstances = groupLaunches = 0;
  }
  groupInstances += instances;
  groupLaunches += count;
  stitchGroup[stitch] = group;
}

void CostModel::addPipe(Pipe pipe, double seconds) {
  current->pipeSeconds[pipe] += seconds;
}

size_t CostModel::accessIndex(const void *tensor, uint8_t bit) {
  auto &acc = current->accesses;
  auto it = llvm::find_if(acc, [&](auto &p) { return p.first == tensor; });
  if (it == acc.end()) {
    acc.push_back({tensor, bit});
    current->accessBytes.push_back({0, 0});
    current->accessRegions.emplace_back();
    return acc.size() - 1;
  }
  it->second |= bit;
  return it - acc.begin();
}

void CostModel::recordRead(const void *tensor, uint64_t size, bool workspace,
                           uint64_t bytes, interp::GMBox box, bool vectorSide) {
  size_t k = accessIndex(tensor, 1);
  current->accessBytes[k][0] += bytes;
  current->accessRegions[k][0].add(box);
  TensorTraffic &t = traffic[tensor];
  t.workspace = workspace;
  t.size = size;
  // HBM: the first `size` bytes read of a kernel tensor (re-reads are
  // assumed to hit the L2, as is everything written before).
  if (!workspace && t.read < size)
    current->hbmBytes += std::min(bytes, size - t.read);
  t.read += bytes;
  current->gmReadBytes += bytes;
  bool aiv = !current->cube || vectorSide;
  const PlatformInfo::MemoryRates &rates =
      aiv ? platform.perf.aivRates : platform.perf.aicRates;
  // Workspaces (cube<->vector round trips, just written) are served by L2;
  // kernel tensors at the per-core DDR rate (docs/CostModel.md).
  double rate = workspace ? rates.l2Read : rates.ddrRead;
  // A MIX leaf's vector side runs on two AIVs, each loading half (its own
  // MTE2; charged to the launch's MTE2, which the AIC's loads share: an
  // overestimate where both sides load much).
  addPipe(MTE2, cycles(double(bytes) / rate) / (aiv && current->mix ? 2 : 1));
}

void CostModel::recordWrite(const void *tensor, uint64_t size, bool workspace,
                            uint64_t bytes, bool atomic, interp::GMBox box,
                            bool vectorSide) {
  size_t k = accessIndex(tensor, atomic ? 4 : 2);
  current->accessBytes[k][1] += bytes;
  current->accessRegions[k][atomic ? 2 : 1].add(box);
  TensorTraffic &t = traffic[tensor];
  t.workspace = workspace;
  t.size = size;
  if (!workspace && t.write < size)
    current->hbmBytes += std::min(bytes, size - t.write);
  t.write += bytes;
  current->gmWriteBytes += bytes;
  if (current->cube && !vectorSide) {
    // L0C -> GM through the fixpipe at the AIC's GM write rate.
    const PlatformInfo::MemoryRates &rates = platform.perf.aicRates;
    addPipe(FIX, cycles(double(bytes) /
                        (workspace ? rates.l2Write : rates.ddrWrite)));
  } else {
    addPipe(MTE3, cycles(double(bytes) /
                         (workspace ? platform.perf.ubToL2BytesPerCycle
                                    : platform.perf.ubToDdrBytesPerCycle)) /
                      (current->mix ? 2 : 1));
  }
}

void CostModel::recordOnChipMove(uint64_t bytes) {
  current->onChipBytes += bytes;
  double rate = platform.l0cToUBBytesPerCycle;
  // A chip without the path (a DAV_3510 compile simulated as A2/A3) pays
  // the GM round trip it would need: fixpipe out and MTE2 back at the L2
  // rates.
  if (rate <= 0) {
    addPipe(FIX, cycles(double(bytes) / platform.perf.aicRates.l2Write));
    addPipe(MTE2, cycles(double(bytes) / platform.perf.aivRates.l2Read));
    return;
  }
  addPipe(FIX, cycles(double(bytes) / rate));
}

void CostModel::onChipMove(Operation *op, uint64_t bytes, bool write) {
  // The producer's side moves the bytes L0C -> UB; the vector side then
  // reads its own UB (no transfer).
  if (!current || !write)
    return;
  recordOnChipMove(bytes);
}

/// Whether a view's tile reaches a matmul operand (through views of it):
/// loaded by the AIC; in a MIX leaf other views are the AIVs' loads.
static bool feedsMatmul(Operation *view) {
  SmallVector<Operation *, 4> work = {view};
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    for (Operation *user : op->getUsers()) {
      if (isa<MatmulOp, MatmulAccOp>(user))
        return true;
      if (isa<ViewOp>(user))
        work.push_back(user);
    }
  }
  return false;
}

void CostModel::gmRead(Operation *op, const interp::HostTensor *tensor,
                       bool workspace, uint64_t bytes, interp::GMBox box) {
  if (!current)
    return; // control-program reads are not device work
  bool vectorSide = current->mix && op && !feedsMatmul(op);
  recordRead(tensor, tensor->getStorageSize(), workspace, bytes, box,
             vectorSide);
}

void CostModel::gmWrite(Operation *op, const interp::HostTensor *tensor,
                        bool workspace, uint64_t bytes, bool atomic,
                        interp::GMBox box) {
  if (!current)
    return;
  // In a MIX leaf, a store of a matmul result leaves through the fixpipe,
  // any other from the AIVs' UB.
  Operation *source =
      op && op->getNumOperands() ? op->getOperand(0).getDefiningOp() : nullptr;
  bool vectorSide =
      current->mix && !isa_and_nonnull<MatmulOp, MatmulAccOp>(source);
  recordWrite(tensor, tensor->getStorageSize(), workspace, bytes, atomic, box,
              vectorSide);
}

static int64_t elementBytes(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (type.isIntOrFloat())
    return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
  return 0;
}

void CostModel::recordMatmul(int64_t m, int64_t n, int64_t k, int64_t lhsBytes,
                             int64_t rhsBytes) {
  double flops = 2.0 * double(m) * double(n) * double(k);
  current->matmulFlops += uint64_t(flops);
  double rate = platform.perf.cubeFlopsPerCycle;
  if (std::max(lhsBytes, rhsBytes) >= 4)
    rate *= platform.perf.cubeFp32Factor;
  addPipe(M, cycles(flops / rate));
  // L1 -> L0A / L0B: each K step loads its operand pieces (one pipe).
  addPipe(
      MTE1,
      cycles(double(m * k * lhsBytes) / platform.perf.l1ToL0ABytesPerCycle +
             double(k * n * rhsBytes) / platform.perf.l1ToL0BBytesPerCycle));
}

void CostModel::matmul(Operation *op, int64_t m, int64_t n, int64_t k) {
  if (!current)
    return;
  Value lhs, rhs;
  if (auto mm = dyn_cast<MatmulOp>(op)) {
    lhs = mm.getLhs();
    rhs = mm.getRhs();
  } else if (auto mm = dyn_cast<MatmulAccOp>(op)) {
    lhs = mm.getLhs();
    rhs = mm.getRhs();
  }
  recordMatmul(m, n, k, lhs ? elementBytes(lhs.getType()) : 2,
               rhs ? elementBytes(rhs.getType()) : 2);
}

void CostModel::recordVector(uint64_t elements, int64_t width) {
  // The vector unit processes 256 B per cycle of the widest operand/result
  // (64 fp32 or 128 fp16 lanes); one pass per op, reductions included.
  current->vectorElements += elements;
  // A MIX leaf's vector work is split over its two AIVs.
  addPipe(V, cycles(double(elements) * double(width) /
                    platform.perf.vectorBytesPerCycle) /
                 (current->mix ? 2 : 1));
}

void CostModel::vectorOp(Operation *op, uint64_t elements) {
  if (!current)
    return;
  int64_t width = 1;
  for (Value v : op->getOperands())
    width = std::max(width, elementBytes(v.getType()));
  for (Value v : op->getResults())
    width = std::max(width, elementBytes(v.getType()));
  recordVector(elements, width);
}

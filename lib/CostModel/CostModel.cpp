//===- CostModel.cpp - a first performance model of the execute graph -----===//
//
// See docs/CostModel.md for the model, its constants and what it leaves out.
//
//===----------------------------------------------------------------------===//

#include "pto/CostModel/CostModel.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

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

llvm::Error CostModel::loadGraph(StringRef text, std::string *warning) {
  auto fail = [](const Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "launch graph: " + message);
  };
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed)
    return parsed.takeError();
  const llvm::json::Object *root = parsed->getAsObject();
  const llvm::json::Object *tensors =
      root ? root->getObject("tensors") : nullptr;
  const llvm::json::Array *list = root ? root->getArray("launches") : nullptr;
  if (!tensors || !list)
    return fail("expected an object with 'tensors' and 'launches'");
  if (std::optional<bool> persistent = root->getBoolean("persistent")) {
    options.persistent = *persistent;
  } else if (root->get("persistent")) {
    return fail("'persistent' is true or false");
  }
  if (options.persistent) {
    options.launchOverheadUs = 0;
    options.submitUs = 0;
    options.fairnessOverheadUs = 0;
  }
  llvm::StringMap<std::pair<const void *, uint64_t>> keys;
  for (auto &[name, size] : *tensors) {
    auto bytes = size.getAsUINT64();
    if (!bytes)
      return fail("tensor '" + name.str() + "' needs a size in bytes");
    graphTensors.push_back(std::make_unique<std::string>(name.str()));
    keys[name.str()] = {graphTensors.back().get(), *bytes};
  }
  for (auto [i, value] : llvm::enumerate(*list)) {
    const llvm::json::Object *l = value.getAsObject();
    if (!l)
      return fail("launch " + Twine(i) + " is not an object");
    LaunchRecord record;
    record.id = i;
    record.instance = l->getInteger("instance").value_or(i);
    record.stitch = l->getInteger("stitch").value_or(-1);
    // A dumped run's merged stitches (device_task: the first stitch of its
    // device task).
    if (auto task = l->getInteger("device_task");
        task && record.stitch >= 0 && options.mergeStitches) {
      auto [it, inserted] = stitchGroup.try_emplace(record.stitch, *task);
      if (inserted && *task != record.stitch)
        ++mergedStitches;
    }
    record.leaf =
        l->getString("name").value_or("launch" + std::to_string(i)).str();
    auto pool = l->getString("pool").value_or("vector");
    if (pool != "cube" && pool != "vector")
      return fail("launch " + Twine(i) + ": pool is cube or vector");
    record.cube = pool == "cube";
    record.mix = record.cube && l->getBoolean("mix").value_or(false);
    record.onChipBytes = l->getInteger("on_chip_bytes").value_or(0);
    if (const llvm::json::Array *deps = l->getArray("deps"))
      for (const llvm::json::Value &d : *deps) {
        auto dep = d.getAsUINT64();
        if (!dep || *dep >= i)
          return fail("launch " + Twine(i) + ": deps name earlier launches");
        record.deps.push_back(*dep);
      }
    beginRecord(std::move(record));
    for (StringRef kind : {"reads", "writes", "atomics"}) {
      const llvm::json::Array *accesses = l->getArray(kind);
      if (!accesses)
        continue;
      for (const llvm::json::Value &a : *accesses) {
        const llvm::json::Object *access = a.getAsObject();
        auto name = access ? access->getString("tensor") : std::nullopt;
        auto key = name ? keys.find(*name) : keys.end();
        if (key == keys.end())
          return fail("launch " + Twine(i) +
                      ": access of an undeclared tensor");
        uint64_t bytes =
            access->getInteger("bytes").value_or(key->second.second);
        bool workspace = access->getBoolean("workspace").value_or(false);
        // The region: the box {"shape", "lo", "hi"} (hi exclusive), or the
        // whole tensor without one.
        SmallVector<int64_t, 4> shape, lo, sizes;
        if (const llvm::json::Object *region = access->getObject("region")) {
          const llvm::json::Array *lists[3] = {region->getArray("shape"),
                                               region->getArray("lo"),
                                               region->getArray("hi")};
          bool ok = lists[0] && lists[1] && lists[2] &&
                    lists[0]->size() == lists[1]->size() &&
                    lists[0]->size() == lists[2]->size() && !lists[0]->empty();
          for (size_t d = 0; ok && d < lists[0]->size(); ++d) {
            auto n = (*lists[0])[d].getAsInteger();
            auto l = (*lists[1])[d].getAsInteger();
            auto h = (*lists[2])[d].getAsInteger();
            ok = n && l && h && *l >= 0 && *l <= *h && *h <= *n;
            if (ok) {
              shape.push_back(*n);
              lo.push_back(*l);
              sizes.push_back(*h - *l);
            }
          }
          if (!ok)
            return fail("launch " + Twine(i) +
                        ": a region is {\"shape\", \"lo\", \"hi\"}, "
                        "lists of one length with 0 <= lo <= hi <= shape");
        }
        interp::GMBox box{shape, lo, sizes};
        if (kind == "reads")
          recordRead(key->second.first, key->second.second, workspace, bytes,
                     box);
        else
          recordWrite(key->second.first, key->second.second, workspace, bytes,
                      kind == "atomics", box);
      }
    }
    if (const llvm::json::Array *mm = l->getArray("matmuls"))
      for (const llvm::json::Value &v : *mm) {
        const llvm::json::Array *mnk = v.getAsArray();
        if (!mnk || mnk->size() != 3)
          return fail("launch " + Twine(i) + ": matmuls are [M, N, K]");
        recordMatmul(*(*mnk)[0].getAsInteger(), *(*mnk)[1].getAsInteger(),
                     *(*mnk)[2].getAsInteger(), 2, 2);
      }
    if (auto elements = l->getInteger("vector_elements"))
      recordVector(*elements, 4); // FP32 elements
    if (const llvm::json::Array *reads = l->getArray("tile_reads"))
      for (const llvm::json::Value &v : *reads) {
        const llvm::json::Object *read = v.getAsObject();
        auto name = read ? read->getString("tensor") : std::nullopt;
        auto key = name ? keys.find(*name) : keys.end();
        auto snapshot = read ? read->getInteger("snapshot") : std::nullopt;
        if (key == keys.end() || !snapshot || *snapshot < 0 ||
            uint64_t(*snapshot) > i)
          return fail("launch " + Twine(i) +
                      ": tile_reads name a declared "
                      "tensor and a snapshot <= the launch's index");
        current->tileReads.push_back({key->second.first, uint64_t(*snapshot)});
      }
    // A dumped run (writeGraph) carries its priced pipes and FLOP.
    if (auto flops = l->getNumber("matmul_flops"))
      current->matmulFlops = uint64_t(*flops);
    if (auto family = l->getString("family"))
      current->family = family->str();
    if (const llvm::json::Array *pipes = l->getArray("pipes_us")) {
      if (pipes->size() != kNumPipes)
        return fail("launch " + Twine(i) + ": pipes_us has 6 entries");
      for (unsigned p = 0; p < kNumPipes; ++p)
        current->pipeSeconds[p] = (*pipes)[p].getAsNumber().value_or(0) * 1e-6;
    }
    launchEnd();
  }
  // A dumped run's pipes_us were priced for the architecture it ran on; the
  // graph does not keep the ops to re-price them.
  std::optional<StringRef> pricedFor = root->getString("arch");
  StringRef arch = stringifyArch(platform.arch);
  bool priced = llvm::any_of(*list, [](const llvm::json::Value &l) {
    return l.getAsObject() && l.getAsObject()->getArray("pipes_us");
  });
  if (warning && pricedFor && priced && *pricedFor != arch)
    *warning =
        ("launch graph: its pipe times (pipes_us) were priced for " +
         *pricedFor + "; they are scheduled here on " + arch +
         "'s cores and bandwidths unchanged. Record the graph on " + arch +
         " (pto-run --simulate with --sim-dump-graph) to price "
         "it for " +
         arch)
            .str();
  return llvm::Error::success();
}

namespace {
/// Max-min fair share of one bandwidth resource: the launches whose demand
/// is below the fair share get it, the rest split what remains equally.
/// Returns each launch's granted fraction of its demand (<= 1).
void shareBandwidth(ArrayRef<double> demand, double capacity,
                    SmallVectorImpl<double> &fraction, bool &saturated) {
  fraction.assign(demand.size(), 1.0);
  double total = 0;
  for (double d : demand)
    total += d;
  saturated = total > capacity * (1 + 1e-9);
  if (!saturated)
    return;
  SmallVector<unsigned> order(demand.size());
  for (unsigned i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::sort(order,
             [&](unsigned a, unsigned b) { return demand[a] < demand[b]; });
  double left = capacity;
  size_t n = order.size();
  for (size_t j = 0; j < order.size(); ++j) {
    unsigned i = order[j];
    double share = left / double(n - j);
    if (demand[i] <= share) {
      left -= demand[i];
      continue;
    }
    fraction[i] = share / demand[i];
    left -= share;
  }
}
} // namespace

namespace {
/// The unfinished launches with one kind of access to one buffer, for the
/// readiness check: the earliest one a launch must wait for is found through
/// an index of their regions' first dim, not by visiting every unfinished
/// launch (a stitch of 1024 root instances storing disjoint rows of one
/// tensor made the check quadratic). Regions of the shape the index was
/// built for are filed by their row range in a grid whose cell is the
/// smallest power of two not below the range (at most two cells per region);
/// whole regions and other shapes of the storage are compared one by one.
class UnfinishedRegions {
public:
  void insert(size_t j, const GMRegion *region) {
    // A launch's first access to the buffer speaks for it (as a scan that
    // looks its access up by buffer would find).
    if (!regions.try_emplace(j, region).second || region->empty())
      return; // an empty region intersects nothing
    all.insert(j);
    if (region->whole)
      return void(wide.insert(j));
    if (shape.empty())
      shape = region->shape;
    if (!llvm::equal(shape, region->shape))
      return void(wide.insert(j));
    auto [shift, first, last] = cellsOf(*region);
    for (int64_t cell = first; cell <= last; ++cell)
      grids[shift][cell].insert(j);
  }

  void erase(size_t j) {
    auto it = regions.find(j);
    if (it == regions.end())
      return;
    const GMRegion *region = it->second;
    regions.erase(it);
    if (region->empty())
      return;
    all.erase(j);
    if (wide.erase(j))
      return;
    auto [shift, first, last] = cellsOf(*region);
    auto &grid = grids[shift];
    for (int64_t cell = first; cell <= last; ++cell) {
      auto c = grid.find(cell);
      c->second.erase(j);
      if (c->second.empty())
        grid.erase(c);
    }
  }

  /// The smallest j < i filed here whose region intersects `mine` and that
  /// `accept`s, or `none`.
  template <typename Accept>
  size_t first(size_t i, const GMRegion &mine, Accept accept,
               size_t none) const {
    size_t best = none;
    auto scan = [&](const std::set<size_t> &entries) {
      for (size_t j : entries) {
        if (j >= i || j >= best)
          break;
        if (accept(j) && mine.intersects(*regions.lookup(j))) {
          best = j;
          break;
        }
      }
    };
    if (mine.empty())
      return none;
    if (mine.whole || !llvm::equal(shape, mine.shape)) {
      scan(all);
      return best;
    }
    scan(wide);
    for (const auto &[shift, grid] : grids) {
      int64_t firstCell = mine.lo[0] >> shift,
              lastCell = (mine.hi[0] - 1) >> shift;
      if (uint64_t(lastCell - firstCell) >= grid.size()) {
        for (const auto &cell : grid)
          scan(cell.second);
        continue;
      }
      for (int64_t cell = firstCell; cell <= lastCell; ++cell)
        if (auto c = grid.find(cell); c != grid.end())
          scan(c->second);
    }
    return best;
  }

private:
  static std::tuple<unsigned, int64_t, int64_t>
  cellsOf(const GMRegion &region) {
    unsigned shift = llvm::Log2_64_Ceil(
        uint64_t(std::max<int64_t>(1, region.hi[0] - region.lo[0])));
    return {shift, region.lo[0] >> shift, (region.hi[0] - 1) >> shift};
  }

  SmallVector<int64_t, 4> shape; // the shape of the grid's regions
  std::set<size_t> all, wide;
  std::map<unsigned, std::map<int64_t, std::set<size_t>>> grids;
  llvm::DenseMap<size_t, const GMRegion *> regions;
};
} // namespace

// A discrete-event simulation of the runtime (docs/CostModel.md):
// - the control AICPU submits device tasks (a stitch, or an unstitched root
//   call) one after another, `submitUs` each;
// - a submitted launch is ready once its token deps and every earlier
//   launch of another root instance with a conflicting access to an
//   intersecting region of the same GM tensor have finished;
// - each pool (AIC, AIV) has a ready queue served by the device_sched_mode
//   policy whenever a core is free (lowest-numbered free core);
// - a running launch first pays its fixed overhead, then runs its body
//   (max over pipes) at a progress rate <= 1: the concurrently running
//   bodies share the chip's L2 and HBM bandwidth max-min fairly, and a
//   launch whose GM demand is not granted in full progresses at the
//   granted fraction.
void CostModel::simulate(Report &r) {
  size_t n = launches.size();
  bandwidth.clear();
  llvm::DenseMap<uint64_t, size_t> index;
  for (auto [i, launch] : llvm::enumerate(launches))
    index[launch.id] = i;
  std::vector<SmallVector<size_t, 2>> deps(n);
  for (size_t i = 0; i < n; ++i)
    for (uint64_t d : launches[i].deps)
      if (auto it = index.find(d); it != index.end() && it->second < i)
        deps[i].push_back(it->second);

  // Submission times, in execution order.
  llvm::DenseMap<uint64_t, double> stitchSubmit, instanceSubmit;
  double lastSubmit = 0;
  std::vector<std::pair<double, size_t>> releases; // (time, first launch)
  auto groupOf = [&](int64_t stitch) {
    auto it = stitchGroup.find(stitch);
    return it == stitchGroup.end() ? stitch : it->second;
  };
  for (size_t i = 0; i < n; ++i) {
    LaunchRecord &launch = launches[i];
    auto &map = launch.stitch >= 0 ? stitchSubmit : instanceSubmit;
    uint64_t key =
        launch.stitch >= 0 ? uint64_t(groupOf(launch.stitch)) : launch.instance;
    auto [it, inserted] = map.try_emplace(key, 0.0);
    if (inserted) {
      lastSubmit += options.submitUs * 1e-6;
      it->second = lastSubmit;
      ++r.deviceTasks;
    }
    launch.submit = it->second;
  }
  // Launches in order of submission (stable: execution order within).
  std::vector<size_t> bySubmit(n);
  for (size_t i = 0; i < n; ++i)
    bySubmit[i] = i;
  std::stable_sort(bySubmit.begin(), bySubmit.end(), [&](size_t a, size_t b) {
    return launches[a].submit < launches[b].submit;
  });

  // The buffer each access touches. The interpreter reuses a workspace
  // buffer across stitches; inside a merged device task each root instance
  // has its own (docs/PyPTOModel.md#stitching), so there a write by an instance
  // that has not written the current contents starts a new buffer, and reads
  // see the latest one. Elsewhere the tensor is its own key.
  struct Version {
    uint64_t key;
    int64_t group, stitch;
    SmallVector<uint64_t, 2> writers; // instances
  };
  struct Buffers {
    Version current;
    std::vector<std::pair<size_t, uint64_t>> starts; // (first launch, key)
  };
  llvm::DenseMap<const void *, Buffers> versions;
  uint64_t nextKey = 0;
  llvm::DenseMap<const void *, uint64_t> plainKeys;
  // A launch's accesses by buffer key: the kinds (bits 1 read, 2 write,
  // 4 atomic), the record's access they came from (-1: none) and whether a
  // tile read makes the read region the whole buffer.
  struct KeyedAccess {
    uint64_t key;
    uint8_t bits;
    int access;
    bool wholeRead;
  };
  std::vector<SmallVector<KeyedAccess, 4>> keyed(n);
  for (size_t i = 0; i < n; ++i) {
    const LaunchRecord &launch = launches[i];
    int64_t g = launch.stitch >= 0 ? groupOf(launch.stitch) : -1;
    for (auto [accessIndex, access] : llvm::enumerate(launch.accesses)) {
      auto [tensor, bits] = access;
      int a = int(accessIndex);
      auto t = traffic.find(tensor);
      bool workspace = t != traffic.end() && t->second.workspace;
      if (!workspace || g < 0) {
        auto [it, inserted] = plainKeys.try_emplace(tensor, nextKey);
        if (inserted)
          ++nextKey;
        keyed[i].push_back({it->second, bits, a, false});
        continue;
      }
      auto [it, inserted] = versions.try_emplace(tensor);
      Version &v = it->second.current;
      bool writes = bits & 6;
      if (!inserted && v.group != g) {
        // A new device task reuses the buffer (PyPTO's reuse edges): same
        // key, so it waits for the previous task's accesses.
        v.group = g;
        v.stitch = launch.stitch;
        v.writers.clear();
      }
      if (inserted || (writes && v.stitch != launch.stitch &&
                       !llvm::is_contained(v.writers, launch.instance))) {
        v = {nextKey++, g, launch.stitch, {}};
        it->second.starts.push_back({i, v.key});
      }
      if (writes && !llvm::is_contained(v.writers, launch.instance))
        v.writers.push_back(launch.instance);
      keyed[i].push_back({v.key, bits, a, false});
    }
    // A tile read sees the buffer current when the control program viewed
    // it (the launches before its snapshot), not a later instance's.
    for (const auto &read : launch.tileReads) {
      const void *tensor = read.first;
      uint64_t snapshot = read.second, key;
      auto it = versions.find(tensor);
      if (it != versions.end()) {
        auto &starts = it->second.starts;
        auto after = llvm::partition_point(
            starts, [&](auto &s) { return s.first < snapshot; });
        key = after == starts.begin() ? starts.front().second
                                      : std::prev(after)->second;
      } else {
        auto [plain, inserted] = plainKeys.try_emplace(tensor, nextKey);
        if (inserted)
          ++nextKey;
        key = plain->second;
      }
      auto &acc = keyed[i];
      auto existing = llvm::find_if(acc, [&](auto &a) { return a.key == key; });
      if (existing == acc.end()) {
        acc.push_back({key, 1, -1, true});
      } else {
        existing->bits |= 1;
        existing->wholeRead = true;
      }
    }
  }
  static const GMRegion wholeRegion = [] {
    GMRegion r;
    r.whole = true;
    return r;
  }();
  // The region of `access` (of launch i) with kind k (0 read, 1 write,
  // 2 atomic).
  auto regionOf = [&](size_t i, const KeyedAccess &access,
                      unsigned k) -> const GMRegion & {
    if ((k == 0 && access.wholeRead) || access.access < 0)
      return wholeRegion;
    return launches[i].accessRegions[access.access][k];
  };

  // Unfinished launches per (buffer, access kind), by execution index.
  std::vector<std::array<UnfinishedRegions, 3>> unfinished(nextKey);
  for (size_t i = 0; i < n; ++i)
    for (const KeyedAccess &access : keyed[i])
      for (unsigned k = 0; k < 3; ++k)
        if (access.bits & (1u << k))
          unfinished[access.key][k].insert(i, &regionOf(i, access, k));
  std::vector<char> finished(n, 0);
  // An unfinished launch `i` must wait for, or n if none.
  auto blocker = [&](size_t i) -> size_t {
    for (size_t d : deps[i])
      if (!finished[d])
        return d;
    const LaunchRecord &launch = launches[i];
    // Kinds an access of kind a conflicts with (bits 1 read, 2 write,
    // 4 atomic): reads commute with reads, atomics with atomics.
    static constexpr unsigned conflicts[3] = {6, 7, 3};
    for (const KeyedAccess &access : keyed[i]) {
      auto &sets = unfinished[access.key];
      for (unsigned a = 0; a < 3; ++a) {
        if (!(access.bits & (1u << a)))
          continue;
        const GMRegion &mine = regionOf(i, access, a);
        for (unsigned k = 0; k < 3; ++k) {
          if (!(conflicts[a] & (1u << k)))
            continue;
          size_t j = sets[k].first(
              i, mine,
              [&](size_t j) { return launches[j].instance != launch.instance; },
              n);
          if (j != n)
            return j;
        }
      }
    }
    return n;
  };

  unsigned mode = options.schedMode;
  bool lifo = mode == 1 || mode == 3;
  double overhead = options.launchOverheadUs * 1e-6 +
                    (mode >= 2 ? options.fairnessOverheadUs * 1e-6 : 0);
  for (LaunchRecord &launch : launches) {
    double slowest = 0;
    for (unsigned p = 0; p < kNumPipes; ++p)
      slowest = std::max(slowest, launch.pipeSeconds[p]);
    launch.body = slowest;
    launch.overhead = overhead;
  }

  std::vector<SmallVector<size_t, 2>> waiters(n);
  std::set<std::pair<double, size_t>> ready[2]; // (ready time, index)
  std::set<unsigned> freeCores[2];
  for (unsigned c = 0; c < std::max<int64_t>(1, platform.cubeCores); ++c)
    freeCores[0].insert(c);
  for (unsigned c = 0; c < std::max<int64_t>(1, platform.vectorCores); ++c)
    freeCores[1].insert(c);
  double now = 0;
  auto check = [&](size_t i) {
    size_t b = blocker(i);
    if (b == n) {
      launches[i].ready = now;
      ready[launches[i].cube ? 0 : 1].insert({now, i});
    } else {
      waiters[b].push_back(i);
    }
  };

  // Running launches: index, remaining body (uncontended seconds), the end
  // of the overhead phase, the progress rate.
  struct Running {
    size_t i;
    double remaining, bodyFrom, rate = 1;
  };
  std::vector<Running> running;
  size_t nextRelease = 0, done = 0;
  double l2 = l2BytesPerSec, hbm = platform.perf.gmBytesPerSec;
  SmallVector<double> demandL2, demandHbm, fracL2, fracHbm;
  auto computeRates = [&](bool &satL2, bool &satHbm) {
    demandL2.clear();
    demandHbm.clear();
    SmallVector<unsigned> active;
    for (auto [j, run] : llvm::enumerate(running)) {
      run.rate = 1;
      const LaunchRecord &launch = launches[run.i];
      if (now < run.bodyFrom || launch.body <= 0)
        continue;
      active.push_back(j);
      demandL2.push_back(double(launch.gmReadBytes + launch.gmWriteBytes) /
                         launch.body);
      demandHbm.push_back(double(launch.hbmBytes) / launch.body);
    }
    satL2 = satHbm = false;
    if (!options.contention || active.empty())
      return;
    shareBandwidth(demandL2, l2, fracL2, satL2);
    shareBandwidth(demandHbm, hbm, fracHbm, satHbm);
    for (auto [k, j] : llvm::enumerate(active))
      running[j].rate = std::min(fracL2[k], fracHbm[k]);
  };

  while (done < n) {
    // Release the device tasks submitted by now.
    while (nextRelease < n && launches[bySubmit[nextRelease]].submit <= now)
      check(bySubmit[nextRelease++]);
    // Dispatch.
    for (unsigned pool = 0; pool < 2; ++pool) {
      while (!freeCores[pool].empty() && !ready[pool].empty()) {
        auto it = ready[pool].begin();
        if (lifo) // the latest ready time, lowest index among those
          it =
              ready[pool].lower_bound({std::prev(ready[pool].end())->first, 0});
        size_t i = it->second;
        LaunchRecord &launch = launches[i];
        // A MIX launch takes an AIC and two AIVs (it waits for them, and
        // the launches queued behind it wait too).
        if (launch.mix && freeCores[1].size() < 2)
          break;
        ready[pool].erase(it);
        if (launch.mix)
          for (unsigned &core : launch.mixVectorCores) {
            core = *freeCores[1].begin();
            freeCores[1].erase(freeCores[1].begin());
          }
        launch.core = *freeCores[pool].begin();
        freeCores[pool].erase(freeCores[pool].begin());
        launch.start = now;
        running.push_back({i, launch.body, now + launch.overhead});
      }
    }
    bool satL2, satHbm;
    computeRates(satL2, satHbm);
    // The next event: a submission, an overhead phase ending, a body ending.
    double next = std::numeric_limits<double>::infinity();
    if (nextRelease < n)
      next = launches[bySubmit[nextRelease]].submit;
    for (const Running &run : running) {
      if (now < run.bodyFrom)
        next = std::min(next, run.bodyFrom);
      else
        next = std::min(next, now + run.remaining / run.rate);
    }
    if (!std::isfinite(next)) {
      // Nothing can run: a dependency cycle (should not happen); give up.
      break;
    }
    double dt = next - now;
    if (satL2)
      r.l2SaturatedSeconds += dt;
    if (satHbm)
      r.hbmSaturatedSeconds += dt;
    // The granted bandwidth, for the trace's counter track (changes only).
    double grantedL2 = 0, grantedHbm = 0;
    for (const Running &run : running)
      if (now >= run.bodyFrom && launches[run.i].body > 0) {
        const LaunchRecord &launch = launches[run.i];
        grantedL2 += run.rate *
                     double(launch.gmReadBytes + launch.gmWriteBytes) /
                     launch.body;
        grantedHbm += run.rate * double(launch.hbmBytes) / launch.body;
      }
    if (bandwidth.empty() ||
        std::abs(bandwidth.back().l2 - grantedL2) > 1e-3 * l2 ||
        std::abs(bandwidth.back().hbm - grantedHbm) > 1e-3 * hbm)
      bandwidth.push_back({now, grantedL2, grantedHbm});
    for (Running &run : running)
      if (now >= run.bodyFrom)
        run.remaining -= run.rate * dt;
    now = next;
    // Retire finished bodies.
    for (size_t j = 0; j < running.size();) {
      Running &run = running[j];
      double tolerance = 1e-12 + 1e-9 * launches[run.i].body;
      if (now < run.bodyFrom || run.remaining > tolerance) {
        ++j;
        continue;
      }
      size_t i = run.i;
      LaunchRecord &launch = launches[i];
      launch.end = now;
      launch.seconds = launch.end - launch.start;
      finished[i] = 1;
      ++done;
      freeCores[launch.cube ? 0 : 1].insert(launch.core);
      if (launch.mix)
        freeCores[1].insert(std::begin(launch.mixVectorCores),
                            std::end(launch.mixVectorCores));
      for (const KeyedAccess &access : keyed[i])
        for (unsigned k = 0; k < 3; ++k)
          if (access.bits & (1u << k))
            unfinished[access.key][k].erase(i);
      running[j] = running.back();
      running.pop_back();
      SmallVector<size_t, 2> wake = std::move(waiters[i]);
      waiters[i].clear();
      for (size_t w : wake)
        check(w);
    }
  }
  double makespan = 0, wait = 0;
  for (LaunchRecord &launch : launches) {
    makespan = std::max(makespan, launch.end);
    wait += launch.start - launch.ready;
    r.contentionDelaySeconds +=
        std::max(0.0, launch.seconds - launch.overhead - launch.body);
  }
  r.scheduleSeconds = makespan;
  r.meanReadyWaitSeconds = n ? wait / double(n) : 0;
}

const Report &CostModel::finish() {
  Report r;
  r.platform = platform.name.str();
  r.launchOverheadUs = options.launchOverheadUs;
  r.submitUs = options.submitUs;
  r.persistent = options.persistent;
  r.fairnessOverheadUs =
      options.schedMode >= 2 ? options.fairnessOverheadUs : 0;
  r.schedMode = options.schedMode;
  r.contention = options.contention;
  r.stitches = stitchGroup.size();
  r.mergedStitches = mergedStitches;
  for (const LaunchRecord &launch : launches) {
    for (unsigned p = 0; p < kNumPipes; ++p)
      r.pipeSeconds[launch.cube ? 0 : 1][p] += launch.pipeSeconds[p];
    r.onChipBytes += launch.onChipBytes;
  }
  simulate(r);
  double makespan = r.scheduleSeconds;

  // Traffic and the chip-level bandwidth bounds.
  uint64_t hbm = 0, total = 0;
  for (auto &[tensor, t] : traffic) {
    r.gmReadBytes += t.read;
    r.gmWriteBytes += t.write;
    total += t.read + t.write;
    if (t.workspace) {
      r.workspaceBytes += t.read + t.write;
      continue;
    }
    // Kernel tensors come from / go to HBM once; re-reads hit the L2
    // (192 MiB / 128 MiB, assumed to hold the working set).
    hbm += std::min(t.read, t.size) + std::min(t.write, t.size);
  }
  r.hbmBytes = hbm;
  r.gmBoundSeconds = double(hbm) / platform.perf.gmBytesPerSec;
  r.l2BoundSeconds = double(total) / l2BytesPerSec;
  r.l2BytesPerSec = l2BytesPerSec;
  // With contention the schedule already respects both bandwidths; the
  // bounds only bind when contention is off.
  r.seconds = makespan;
  r.bound = "schedule";
  if (r.gmBoundSeconds > r.seconds * (1 + 1e-9)) {
    r.seconds = r.gmBoundSeconds;
    r.bound = "HBM";
  }
  if (r.l2BoundSeconds > r.seconds * (1 + 1e-9)) {
    r.seconds = r.l2BoundSeconds;
    r.bound = "L2";
  }
  double busy[2] = {0, 0};
  for (const LaunchRecord &launch : launches) {
    ++r.launches;
    (launch.cube ? r.cubeLaunches : r.vectorLaunches) += 1;
    r.matmulFlops += double(launch.matmulFlops);
    busy[launch.cube ? 0 : 1] += launch.seconds;
  }
  r.flops = options.conventionFlops.value_or(r.matmulFlops);
  r.conventionFlops = options.conventionFlops.has_value();
  double clock = platform.clockGHz * 1e9;
  r.peakTflops =
      platform.cubeCores * platform.perf.cubeFlopsPerCycle * clock / 1e12;
  if (r.seconds > 0) {
    r.tflops = r.flops / r.seconds / 1e12;
    r.matmulTflops = r.matmulFlops / r.seconds / 1e12;
    double aic = r.seconds * double(platform.cubeCores);
    double aiv = r.seconds * double(platform.vectorCores);
    r.cubeUtilisation = r.pipeSeconds[0][M] / aic;
    r.vectorUtilisation = (r.pipeSeconds[0][V] + r.pipeSeconds[1][V]) / aiv;
    r.cubeBusy = busy[0] / aic;
    r.vectorBusy = busy[1] / aiv;
  }
  report = r;
  return report;
}

void CostModel::printReport(llvm::raw_ostream &os) const {
  const Report &r = report;
  auto us = [](double s) { return llvm::format("%.3f", s * 1e6); };
  auto mib = [](uint64_t b) { return llvm::format("%.3f", b / 1048576.0); };
  auto pct = [](double x) { return llvm::format("%.2f", 100 * x); };
  os << "pto-run: cost model (" << r.platform << ", " << platform.cubeCores
     << " AIC / " << platform.vectorCores << " AIV at "
     << llvm::format("%.2f", platform.clockGHz) << " GHz)\n";
  os << "  time: " << us(r.seconds) << " us (bound: " << r.bound
     << "; schedule " << us(r.scheduleSeconds) << " us, HBM "
     << us(r.gmBoundSeconds) << " us, L2 " << us(r.l2BoundSeconds) << " us)\n";
  os << "  launches: " << r.launches << " (" << r.cubeLaunches << " cube, "
     << r.vectorLaunches << " vector) in " << r.deviceTasks << " device tasks";
  if (r.mergedStitches)
    os << " (" << r.stitches << " stitches run, " << r.mergedStitches
       << " merged: flushed only at control-program views of tiles)";
  if (!flushCauses.empty()) {
    os << "; stitches flushed at";
    for (auto &[name, count] : flushCauses)
      os << " " << name << " x" << count;
  }
  if (r.persistent)
    os << "; persistent kernel stages: no dispatch or submission cost\n";
  else
    os << "; overhead " << llvm::format("%.3g", r.launchOverheadUs)
       << " us per launch, " << llvm::format("%.3g", r.submitUs)
       << " us per device task\n";
  os << "  device_sched_mode: " << r.schedMode << " ("
     << (r.schedMode == 0   ? "FIFO"
         : r.schedMode == 1 ? "L2 affinity: latest ready first"
         : r.schedMode == 2 ? "fairness: FIFO"
                            : "affinity + fairness: latest ready first")
     << (r.schedMode >= 2
             ? ", +" + std::to_string(r.fairnessOverheadUs).substr(0, 4) +
                   " us per dispatch"
             : std::string())
     << "); mean ready-to-start wait " << us(r.meanReadyWaitSeconds) << " us\n";
  os << "  gm contention: " << (r.contention ? "on" : "off") << " (L2 "
     << llvm::format("%.3g", r.l2BytesPerSec * 1e-12) << " TB/s); L2 saturated "
     << us(r.l2SaturatedSeconds) << " us, HBM saturated "
     << us(r.hbmSaturatedSeconds) << " us; launches stretched by "
     << us(r.contentionDelaySeconds) << " us in all\n";
  os << "  flops: " << llvm::format("%.6g", r.flops)
     << (r.conventionFlops ? " (convention)" : " (matmul)")
     << "; matmul flops: " << llvm::format("%.6g", r.matmulFlops) << "\n";
  os << "  tflops: " << llvm::format("%.3f", r.tflops)
     << "; matmul tflops: " << llvm::format("%.3f", r.matmulTflops)
     << "; peak tflops: " << llvm::format("%.1f", r.peakTflops) << "\n";
  os << "  cube utilisation: " << pct(r.cubeUtilisation)
     << " %; vector utilisation: " << pct(r.vectorUtilisation)
     << " %; cube busy: " << pct(r.cubeBusy)
     << " %; vector busy: " << pct(r.vectorBusy) << " %\n";
  os << "  gm traffic: read " << mib(r.gmReadBytes) << " MiB, write "
     << mib(r.gmWriteBytes) << " MiB, workspace " << mib(r.workspaceBytes)
     << " MiB, hbm " << mib(r.hbmBytes) << " MiB\n";
  if (r.onChipBytes)
    os << "  on-chip exchanges (L0C -> UB in MIX launches): "
       << mib(r.onChipBytes) << " MiB\n";
  for (unsigned pool = 0; pool < 2; ++pool) {
    os << (pool == 0 ? "  cube pipes (us):" : "  vector pipes (us):");
    for (unsigned p = 0; p < kNumPipes; ++p)
      os << " " << getPipeName(p) << " " << us(r.pipeSeconds[pool][p]);
    os << "\n";
  }
  // Per family: launches, mean time and the pipe that bounds it most often.
  struct Family {
    uint64_t count = 0;
    double seconds = 0;
    uint64_t bound[kNumPipes] = {};
  };
  std::vector<std::pair<std::string, Family>> families;
  for (const LaunchRecord &launch : launches) {
    auto it = llvm::find_if(families,
                            [&](auto &f) { return f.first == launch.family; });
    if (it == families.end()) {
      families.push_back({launch.family, Family()});
      it = std::prev(families.end());
    }
    it->second.count++;
    it->second.seconds += launch.seconds;
    unsigned slowest = std::max_element(std::begin(launch.pipeSeconds),
                                        std::end(launch.pipeSeconds)) -
                       std::begin(launch.pipeSeconds);
    it->second.bound[slowest]++;
  }
  for (auto &[name, f] : families) {
    unsigned pipe = std::max_element(std::begin(f.bound), std::end(f.bound)) -
                    std::begin(f.bound);
    os << "  family " << name << ": " << f.count << " launches, mean "
       << us(f.seconds / f.count) << " us, bound by " << getPipeName(pipe)
       << "\n";
  }
}

void CostModel::writeGraph(raw_ostream &os) const {
  llvm::DenseMap<const void *, std::string> names;
  llvm::json::Object tensors;
  llvm::DenseMap<uint64_t, size_t> index;
  for (auto [i, launch] : llvm::enumerate(launches))
    index[launch.id] = i;
  llvm::json::Array list;
  for (const LaunchRecord &launch : launches) {
    llvm::json::Array deps, pipes, kinds[3];
    for (uint64_t d : launch.deps)
      if (auto it = index.find(d); it != index.end())
        deps.push_back(uint64_t(it->second));
    for (unsigned p = 0; p < kNumPipes; ++p)
      pipes.push_back(launch.pipeSeconds[p] * 1e6);
    for (auto [k, access] : llvm::enumerate(launch.accesses)) {
      auto [tensor, bits] = access;
      auto inserted = names.try_emplace(tensor, "");
      std::string &name = inserted.first->second;
      auto t = traffic.find(tensor);
      if (inserted.second) {
        name = "t" + std::to_string(names.size() - 1);
        tensors[name] = t != traffic.end() ? t->second.size : 0;
      }
      bool workspace = t != traffic.end() && t->second.workspace;
      auto entry = [&](uint64_t bytes, const GMRegion &region) {
        llvm::json::Object object{
            {"tensor", name}, {"bytes", bytes}, {"workspace", workspace}};
        if (!region.whole && !region.empty())
          object["region"] =
              llvm::json::Object{{"shape", llvm::json::Array(region.shape)},
                                 {"lo", llvm::json::Array(region.lo)},
                                 {"hi", llvm::json::Array(region.hi)}};
        return object;
      };
      std::array<uint64_t, 2> bytes = launch.accessBytes[k];
      const std::array<GMRegion, 3> &regions = launch.accessRegions[k];
      if (bits & 1)
        kinds[0].push_back(entry(bytes[0], regions[0]));
      if (bits & 4)
        kinds[2].push_back(entry(bytes[1], regions[2]));
      else if (bits & 2)
        kinds[1].push_back(entry(bytes[1], regions[1]));
    }
    list.push_back(llvm::json::Object{
        {"name", launch.leaf},
        {"family", launch.family},
        {"pool", launch.cube ? "cube" : "vector"},
        {"instance", launch.instance},
        {"stitch", launch.stitch},
        {"device_task",
         [&]() -> int64_t {
           auto it = stitchGroup.find(launch.stitch);
           return it == stitchGroup.end() ? launch.stitch : it->second;
         }()},
        {"deps", std::move(deps)},
        {"reads", std::move(kinds[0])},
        {"writes", std::move(kinds[1])},
        {"atomics", std::move(kinds[2])},
        {"tile_reads",
         [&]() {
           llvm::json::Array reads;
           for (auto [tensor, snapshot] : launch.tileReads) {
             auto [it, inserted] = names.try_emplace(tensor, "");
             if (inserted) {
               it->second = "t" + std::to_string(names.size() - 1);
               auto t = traffic.find(tensor);
               tensors[it->second] = t != traffic.end() ? t->second.size : 0;
             }
             reads.push_back(llvm::json::Object{{"tensor", it->second},
                                                {"snapshot", snapshot}});
           }
           return reads;
         }()},
        {"matmul_flops", double(launch.matmulFlops)},
        {"pipes_us", std::move(pipes)}});
    if (launch.mix) {
      llvm::json::Object &entry = *list.back().getAsObject();
      entry["mix"] = true;
      entry["on_chip_bytes"] = launch.onChipBytes;
    }
  }
  // Tensors touched with size 0 (never read or written): size 1.
  for (auto &[name, size] : tensors)
    if (size.getAsUINT64().value_or(0) == 0)
      size = uint64_t(1);
  llvm::json::Object root{{"arch", stringifyArch(platform.arch)},
                          {"tensors", std::move(tensors)},
                          {"launches", std::move(list)}};
  if (options.persistent)
    root["persistent"] = true;
  os << llvm::json::Value(std::move(root)) << "\n";
}

void CostModel::writeChromeTrace(llvm::raw_ostream &os) const {
  llvm::json::Array events;
  const char *pools[2] = {"AIC (cube)", "AIV (vector)"};
  int64_t counts[2] = {platform.cubeCores, platform.vectorCores};
  for (unsigned pool = 0; pool < 2; ++pool) {
    events.push_back(llvm::json::Object{
        {"name", "process_name"},
        {"ph", "M"},
        {"pid", pool + 1},
        {"tid", 0},
        {"args", llvm::json::Object{{"name", pools[pool]}}}});
    for (int64_t c = 0; c < counts[pool]; ++c)
      events.push_back(llvm::json::Object{
          {"name", "thread_name"},
          {"ph", "M"},
          {"pid", pool + 1},
          {"tid", c},
          {"args", llvm::json::Object{{"name", (pool == 0 ? "AIC " : "AIV ") +
                                                   std::to_string(c)}}}});
  }
  for (const LaunchRecord &launch : launches) {
    llvm::json::Object pipes;
    for (unsigned p = 0; p < kNumPipes; ++p)
      pipes[getPipeName(p)] = launch.pipeSeconds[p] * 1e6;
    events.push_back(llvm::json::Object{
        {"name", launch.family},
        {"cat", launch.cube ? "cube" : "vector"},
        {"ph", "X"},
        {"pid", launch.cube ? 1 : 2},
        {"tid", launch.core},
        {"ts", launch.start * 1e6},
        {"dur", launch.seconds * 1e6},
        {"args", llvm::json::Object{
                     {"leaf", launch.leaf},
                     {"launch", launch.id},
                     {"submit_us", launch.submit * 1e6},
                     {"ready_us", launch.ready * 1e6},
                     {"body_us", launch.body * 1e6},
                     {"overhead_us", launch.overhead * 1e6},
                     {"gm_bytes", launch.gmReadBytes + launch.gmWriteBytes},
                     {"hbm_bytes", launch.hbmBytes},
                     {"instance", launch.instance},
                     {"stitch", launch.stitch},
                     {"pipes_us", std::move(pipes)}}}});
  }
  // GM bandwidth granted over time (counter track, GB/s).
  events.push_back(llvm::json::Object{
      {"name", "process_name"},
      {"ph", "M"},
      {"pid", 3},
      {"tid", 0},
      {"args", llvm::json::Object{{"name", "GM bandwidth"}}}});
  for (const BandwidthSample &b : bandwidth)
    events.push_back(llvm::json::Object{
        {"name", "GM GB/s"},
        {"ph", "C"},
        {"pid", 3},
        {"ts", b.time * 1e6},
        {"args",
         llvm::json::Object{{"L2", b.l2 * 1e-9}, {"HBM", b.hbm * 1e-9}}}});
  llvm::json::Object root{{"traceEvents", std::move(events)},
                          {"displayTimeUnit", "ns"}};
  os << llvm::json::Value(std::move(root)) << "\n";
}

//===- CostModel.cpp - a first performance model of the execute graph -----===//
//
// See docs/CostModel.md for the model, its constants and what it leaves out.
//
//===----------------------------------------------------------------------===//

#include "pto/CostModel/CostModel.h"

#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::cost;

StringRef cost::getPipeName(unsigned pipe) {
  static const char *names[] = {"MTE2", "MTE1", "M", "FIX", "V", "MTE3"};
  return pipe < kNumPipes ? names[pipe] : "?";
}

CostModel::CostModel(Arch arch, CostModelOptions options)
    : platform(getPlatformInfo(arch)), options(options) {}

void CostModel::launchBegin(const interp::LaunchEvent &event) {
  LaunchRecord record;
  record.id = event.id;
  record.instance = event.instance;
  record.stitch = event.stitch;
  record.deps = event.deps;
  record.accesses = event.accesses;
  if (auto fn = dyn_cast_or_null<FunctionOpInterface>(event.leaf)) {
    record.leaf = fn.getName().str();
    if (auto family = fn->getAttrOfType<StringAttr>("pto.family"))
      record.family = family.getValue().str();
  }
  if (record.family.empty())
    record.family = record.leaf;
  auto kind = event.leaf ? event.leaf->getAttrOfType<CoreKindAttr>("pto.leaf")
                         : CoreKindAttr();
  // MIX leaves (DAV_3510) occupy an AIC with its AIVs: the cube pool.
  record.cube = !kind || kind.getValue() != CoreKind::vector;
  launches.push_back(std::move(record));
  current = &launches.back();
}

void CostModel::launchEnd() { current = nullptr; }

void CostModel::addPipe(Pipe pipe, double seconds) {
  current->pipeSeconds[pipe] += seconds;
}

void CostModel::gmRead(Operation *op, const interp::HostTensor *tensor,
                       bool workspace, uint64_t bytes) {
  if (!current)
    return; // control-program reads are not device work
  TensorTraffic &t = traffic[tensor];
  t.workspace = workspace;
  t.size = tensor->bytes.size();
  t.read += bytes;
  current->gmReadBytes += bytes;
  const PlatformInfo::MemoryRates &rates =
      current->cube ? platform.perf.aicRates : platform.perf.aivRates;
  // Workspaces (cube<->vector round trips, just written) are served by L2;
  // kernel tensors at the per-core DDR rate (docs/CostModel.md).
  double rate = workspace ? rates.l2Read : rates.ddrRead;
  addPipe(MTE2, cycles(double(bytes) / rate));
}

void CostModel::gmWrite(Operation *op, const interp::HostTensor *tensor,
                        bool workspace, uint64_t bytes, bool atomic) {
  if (!current)
    return;
  TensorTraffic &t = traffic[tensor];
  t.workspace = workspace;
  t.size = tensor->bytes.size();
  t.write += bytes;
  current->gmWriteBytes += bytes;
  if (current->cube) {
    // L0C -> GM through the fixpipe at the AIC's GM write rate.
    const PlatformInfo::MemoryRates &rates = platform.perf.aicRates;
    addPipe(FIX, cycles(double(bytes) /
                        (workspace ? rates.l2Write : rates.ddrWrite)));
  } else {
    addPipe(MTE3, cycles(double(bytes) /
                         (workspace ? platform.perf.ubToL2BytesPerCycle
                                    : platform.perf.ubToDdrBytesPerCycle)));
  }
}

static int64_t elementBytes(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (type.isIntOrFloat())
    return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
  return 0;
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
  int64_t lhsBytes = lhs ? elementBytes(lhs.getType()) : 2;
  int64_t rhsBytes = rhs ? elementBytes(rhs.getType()) : 2;
  double flops = 2.0 * double(m) * double(n) * double(k);
  current->matmulFlops += uint64_t(flops);
  double rate = platform.perf.cubeFlopsPerCycle;
  if (std::max(lhsBytes, rhsBytes) >= 4)
    rate *= platform.perf.cubeFp32Factor;
  addPipe(M, cycles(flops / rate));
  // L1 -> L0A / L0B: each K step loads its operand pieces (one pipe).
  addPipe(MTE1, cycles(double(m * k * lhsBytes) /
                           platform.perf.l1ToL0ABytesPerCycle +
                       double(k * n * rhsBytes) /
                           platform.perf.l1ToL0BBytesPerCycle));
}

void CostModel::vectorOp(Operation *op, uint64_t elements) {
  if (!current)
    return;
  // The vector unit processes 256 B per cycle of the widest operand/result
  // (64 fp32 or 128 fp16 lanes); one pass per op, reductions included.
  int64_t width = 1;
  for (Value v : op->getOperands())
    width = std::max(width, elementBytes(v.getType()));
  for (Value v : op->getResults())
    width = std::max(width, elementBytes(v.getType()));
  current->vectorElements += elements;
  addPipe(V, cycles(double(elements) * double(width) /
                    platform.perf.vectorBytesPerCycle));
}

namespace {
/// The latest finish time of a tensor access kind over root instances, kept
/// as the best two distinct instances so "latest of another instance" is
/// O(1).
struct Latest {
  uint64_t inst1 = ~uint64_t(0), inst2 = ~uint64_t(0);
  double t1 = 0, t2 = 0;
  void add(uint64_t inst, double t) {
    if (inst == inst1) {
      t1 = std::max(t1, t);
    } else if (t > t1) {
      inst2 = inst1;
      t2 = t1;
      inst1 = inst;
      t1 = t;
    } else if (t > t2) {
      inst2 = inst;
      t2 = t;
    }
  }
  double otherThan(uint64_t inst) const { return inst == inst1 ? t2 : t1; }
};
} // namespace

const Report &CostModel::finish() {
  Report r;
  r.platform = platform.name.str();
  r.launchOverheadUs = options.launchOverheadUs;
  r.submitUs = options.submitUs;
  double overhead = options.launchOverheadUs * 1e-6;

  // Per-launch time: pipes overlap, the slowest one bounds the launch.
  llvm::DenseMap<uint64_t, size_t> index;
  for (auto [i, launch] : llvm::enumerate(launches)) {
    index[launch.id] = i;
    double slowest = 0;
    for (unsigned p = 0; p < kNumPipes; ++p) {
      slowest = std::max(slowest, launch.pipeSeconds[p]);
      r.pipeSeconds[launch.cube ? 0 : 1][p] += launch.pipeSeconds[p];
    }
    launch.seconds = slowest + overhead;
  }

  // List scheduling in the interpreter's execution order (the runtime's
  // FIFO ready queue, device_sched_mode 0): each launch starts when its
  // device task was submitted, its token deps finished, earlier root
  // instances' conflicting accesses to the same GM tensor finished, and a
  // core of its pool is free.
  std::vector<double> cores[2] = {
      std::vector<double>(std::max<int64_t>(1, platform.cubeCores), 0.0),
      std::vector<double>(std::max<int64_t>(1, platform.vectorCores), 0.0)};
  struct TensorState {
    Latest kinds[3]; // read, write, atomic
  };
  llvm::DenseMap<const interp::HostTensor *, TensorState> tensors;
  llvm::DenseMap<uint64_t, double> stitchSubmit;  // stitch -> submit time
  llvm::DenseMap<uint64_t, double> instanceSubmit; // unstitched instances
  double lastSubmit = 0;
  auto submitTime = [&](const LaunchRecord &launch) {
    auto &map = launch.stitch >= 0 ? stitchSubmit : instanceSubmit;
    uint64_t key = launch.stitch >= 0 ? uint64_t(launch.stitch)
                                      : launch.instance;
    auto [it, inserted] = map.try_emplace(key, 0.0);
    if (inserted) {
      lastSubmit += options.submitUs * 1e-6;
      it->second = lastSubmit;
      ++r.deviceTasks;
    }
    return it->second;
  };
  double makespan = 0;
  for (LaunchRecord &launch : launches) {
    double ready = submitTime(launch);
    for (uint64_t dep : launch.deps) {
      auto it = index.find(dep);
      if (it != index.end())
        ready = std::max(ready, launches[it->second].end);
    }
    for (auto [tensor, bits] : launch.accesses) {
      TensorState &state = tensors[tensor];
      double read = state.kinds[0].otherThan(launch.instance),
             write = state.kinds[1].otherThan(launch.instance),
             atomic = state.kinds[2].otherThan(launch.instance);
      if (bits & 2)
        ready = std::max({ready, read, write, atomic});
      if (bits & 1)
        ready = std::max({ready, write, atomic});
      if (bits & 4)
        ready = std::max({ready, read, write});
    }
    std::vector<double> &pool = cores[launch.cube ? 0 : 1];
    // The lowest-numbered core free by `ready`, else the first one free.
    unsigned core = 0;
    bool found = false;
    for (unsigned c = 0; c < pool.size(); ++c)
      if (pool[c] <= ready) {
        core = c;
        found = true;
        break;
      }
    if (!found)
      core = std::min_element(pool.begin(), pool.end()) - pool.begin();
    launch.core = core;
    launch.start = std::max(ready, pool[core]);
    launch.end = launch.start + launch.seconds;
    pool[core] = launch.end;
    makespan = std::max(makespan, launch.end);
    for (auto [tensor, bits] : launch.accesses)
      for (unsigned k = 0; k < 3; ++k)
        if (bits & (1u << k))
          tensors[tensor].kinds[k].add(launch.instance, launch.end);
  }

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
  r.scheduleSeconds = makespan;
  r.gmBoundSeconds = double(hbm) / platform.perf.gmBytesPerSec;
  r.l2BoundSeconds = double(total) / platform.perf.l2BytesPerSec;
  r.seconds = makespan;
  r.bound = "schedule";
  if (r.gmBoundSeconds > r.seconds) {
    r.seconds = r.gmBoundSeconds;
    r.bound = "HBM";
  }
  if (r.l2BoundSeconds > r.seconds) {
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
     << us(r.gmBoundSeconds) << " us, L2 " << us(r.l2BoundSeconds)
     << " us)\n";
  os << "  launches: " << r.launches << " (" << r.cubeLaunches << " cube, "
     << r.vectorLaunches << " vector) in " << r.deviceTasks
     << " device tasks; overhead " << llvm::format("%.3g", r.launchOverheadUs)
     << " us per launch, " << llvm::format("%.3g", r.submitUs)
     << " us per device task\n";
  os << "  flops: " << llvm::format("%.6g", r.flops)
     << (r.conventionFlops ? " (convention)" : " (matmul)")
     << "; matmul flops: " << llvm::format("%.6g", r.matmulFlops) << "\n";
  os << "  tflops: " << llvm::format("%.3f", r.tflops)
     << "; matmul tflops: " << llvm::format("%.3f", r.matmulTflops)
     << "; peak tflops: " << llvm::format("%.1f", r.peakTflops) << "\n";
  os << "  cube utilisation: " << pct(r.cubeUtilisation)
     << " %; vector utilisation: " << pct(r.vectorUtilisation)
     << " %; cube busy: " << pct(r.cubeBusy) << " %; vector busy: "
     << pct(r.vectorBusy) << " %\n";
  os << "  gm traffic: read " << mib(r.gmReadBytes) << " MiB, write "
     << mib(r.gmWriteBytes) << " MiB, workspace " << mib(r.workspaceBytes)
     << " MiB, hbm " << mib(r.hbmBytes) << " MiB\n";
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
    unsigned slowest =
        std::max_element(std::begin(launch.pipeSeconds),
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
          {"args", llvm::json::Object{
                       {"name", (pool == 0 ? "AIC " : "AIV ") +
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
        {"args", llvm::json::Object{{"leaf", launch.leaf},
                                    {"launch", launch.id},
                                    {"instance", launch.instance},
                                    {"stitch", launch.stitch},
                                    {"pipes_us", std::move(pipes)}}}});
  }
  llvm::json::Object root{{"traceEvents", std::move(events)},
                          {"displayTimeUnit", "ns"}};
  os << llvm::json::Value(std::move(root)) << "\n";
}

//===- CostModelReport.cpp - the simulated report and trace ---------------===//
//
// Part of the cost model (docs/CostModel.md): the report of a simulated
// run (totals, bounds, bandwidth, per-family times) as text, and its
// launches as a Chrome trace.
//
//===----------------------------------------------------------------------===//

#include "pto/CostModel/CostModel.h"

#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::pto;
using namespace mlir::pto::cost;

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

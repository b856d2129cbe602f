//===- CostModel.h - a first performance model of the execute graph -*- C++
//-*-===//
//
// Estimates the device time of an outlined, stitched kernel from a real run
// of the reference interpreter (docs/CostModel.md). The model observes each
// executed pto.launch (its leaf, root instance, stitch, token deps, the GM
// tensors it touches) and the work of its pieces over run-time valid
// extents, prices each launch from its pipes (MTE2, MTE1, M, FIX, V, MTE3;
// the launch takes the slowest pipe plus a fixed overhead) and simulates the
// runtime: device tasks submitted one after another, a ready queue per core
// pool served by the device_sched_mode policy, and the chip's GM (L2 and
// HBM) bandwidth shared over time by the launches running concurrently.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_COSTMODEL_COSTMODEL_H
#define PTO_COSTMODEL_COSTMODEL_H

#include "pto/Dialect/PTO/IR/Platform.h"
#include "pto/Interpreter/Interpreter.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::pto::cost {

struct CostModelOptions {
  /// Fixed cost of one call task (launch) on its core, added to the slowest
  /// pipe: AICPU dispatch / completion handshake and the GM latency of the
  /// first load and last store that no pipe overlap hides. Assumed, not
  /// measured (docs/CostModel.md).
  double launchOverheadUs = 1.5;
  /// Control-AICPU time to build and submit one device task (a stitch, or an
  /// unstitched root call). Assumed (docs/CostModel.md).
  double submitUs = 2.0;
  /// The runtime's ready-queue policy (docs/PyPTOModel.md#runtime-options): 0
  /// FIFO, 1 L2 affinity (the most recently readied task first), 2 fairness
  /// across the scheduler AICPUs (FIFO plus `fairnessOverheadUs` per dispatch),
  /// 3 both.
  unsigned schedMode = 0;
  /// Extra scheduler cost per dispatched call task in modes 2 and 3.
  /// Assumed (docs/CostModel.md).
  double fairnessOverheadUs = 0.2;
  /// Share the chip's L2 and HBM bandwidth among concurrently running
  /// launches over time (off: every launch gets its per-core rates).
  bool contention = true;
  /// The chip's L2 bandwidth in bytes/s (default: the platform's figure,
  /// PlatformInfo::perf.l2BytesPerSec); for sensitivity studies.
  std::optional<double> l2BytesPerSec;
  /// Device-task boundaries by the runtime's rules: stitches the interpreter
  /// ran early only because the control program viewed device data as a
  /// tile (a reference on the real control AICPU, not a wait) are merged
  /// into one device task, up to 1024 root instances and 60000 launches;
  /// their workspace buffers, which the interpreter reuses, count as one per
  /// instance (docs/CostModel.md). Off: every stitch is a device task.
  bool mergeStitches = true;
  /// The launches are the stages of persistent, software-pipelined kernels
  /// (one kernel resident per core, stages handed over through GM FIFOs with
  /// flags, like the pto-isa FA kernel): no call-task dispatch, no device-task
  /// submission and no fairness cost; the stages' first-load / last-store
  /// latencies are hidden by the pipelining. Set by a launch graph's
  /// `"persistent": true` (docs/CostModel.md), it overrides the three costs.
  bool persistent = false;
  /// FLOP of the kernel's own convention (e.g. SK-16: 10*s1*s2*D per (b,h));
  /// without it TFLOPS use the executed matmul FLOP.
  std::optional<double> conventionFlops;
};

enum Pipe : unsigned { MTE2, MTE1, M, FIX, V, MTE3, kNumPipes };
llvm::StringRef getPipeName(unsigned pipe);

/// The part of a GM tensor a launch touches with one kind of access: the
/// bounding box of its accesses in the shape the tensor was viewed with, or
/// the whole tensor (an access without a box, or boxes in two shapes).
/// Launches of different root instances conflict only where such regions
/// intersect (docs/CostModel.md "Readiness").
struct GMRegion {
  bool whole = false;
  SmallVector<int64_t, 4> shape, lo, hi; // [lo, hi) per dim; empty: nothing

  bool empty() const { return !whole && shape.empty(); }
  /// Widens the region to cover `box` (an empty `box.shape`: unknown).
  void add(interp::GMBox box);
  bool intersects(const GMRegion &other) const;
};

struct LaunchRecord {
  uint64_t id = 0, instance = 0;
  int64_t stitch = -1;
  std::string leaf, family;
  bool cube = false; // AIC pool (cube and mix leaves) or AIV pool
  // A MIX leaf (DAV_3510): one AIC and its two AIVs; its vector work is
  // shared by the two AIVs, which the vector pool cannot use meanwhile.
  bool mix = false;
  uint64_t onChipBytes = 0; // L0C -> UB bytes (on-chip exchanges)
  SmallVector<uint64_t, 4> deps;
  // GM tensors (identity) with bits 1 read, 2 write, 4 atomic add.
  SmallVector<std::pair<const void *, uint8_t>, 4> accesses;
  SmallVector<std::array<uint64_t, 2>, 4> accessBytes; // read, written
  // Per access, the regions read, written and atomically added (bit order).
  SmallVector<std::array<GMRegion, 3>, 4> accessRegions;
  // Tiles the control program viewed from GM tensors: the tensor and the
  // number of launches observed before the view (what the tile holds).
  SmallVector<std::pair<const void *, uint64_t>, 2> tileReads;
  // Work over valid extents.
  uint64_t gmReadBytes = 0, gmWriteBytes = 0, matmulFlops = 0,
           vectorElements = 0;
  uint64_t hbmBytes = 0; // of the GM bytes, first touches of kernel tensors
  double pipeSeconds[kNumPipes] = {};
  double body = 0;     // max over pipes (uncontended)
  double overhead = 0; // fixed launch (+ fairness) overhead
  double seconds = 0;  // end - start: overhead + body stretched by contention
  // Schedule.
  double submit = 0, ready = 0, start = 0, end = 0;
  unsigned core = 0;
  unsigned mixVectorCores[2] = {0, 0}; // the AIVs a MIX launch holds
};

struct Report {
  std::string platform;
  double seconds = 0;         // estimated device time
  double scheduleSeconds = 0; // list-schedule makespan
  double gmBoundSeconds = 0;  // HBM bytes / GM bandwidth
  double l2BoundSeconds = 0;  // GM traffic / L2 bandwidth
  std::string bound;          // "schedule", "HBM" or "L2"
  unsigned schedMode = 0;
  bool contention = true;
  double l2SaturatedSeconds = 0, hbmSaturatedSeconds = 0; // demand > capacity
  double contentionDelaySeconds = 0; // sum over launches of stretch - body
  double meanReadyWaitSeconds = 0;   // start - ready, mean over launches
  uint64_t launches = 0, cubeLaunches = 0, vectorLaunches = 0, deviceTasks = 0;
  uint64_t stitches = 0, mergedStitches = 0; // interpreter stitches; merged
  double matmulFlops = 0, flops = 0;         // flops: convention or matmul
  bool conventionFlops = false;
  double tflops = 0, matmulTflops = 0, peakTflops = 0;
  double cubeUtilisation = 0;          // M-pipe time / (seconds x AIC)
  double vectorUtilisation = 0;        // V-pipe time / (seconds x AIV)
  double cubeBusy = 0, vectorBusy = 0; // launch time / (seconds x cores)
  uint64_t gmReadBytes = 0, gmWriteBytes = 0;
  uint64_t workspaceBytes = 0; // of the above, to/from pto.workspace
  uint64_t hbmBytes = 0;       // estimated HBM traffic (first touches)
  uint64_t onChipBytes = 0;    // MIX exchanges L0C -> UB (not GM traffic)
  double pipeSeconds[2][kNumPipes] = {}; // [cube, vector] sums
  double launchOverheadUs = 0, submitUs = 0, fairnessOverheadUs = 0;
  bool persistent = false;
  double l2BytesPerSec = 0; // the chip L2 bandwidth the run used
};

class CostModel : public interp::ExecutionObserver {
public:
  CostModel(Arch arch, CostModelOptions options = {});

  // ExecutionObserver.
  void stitchBegin(int64_t stitch, uint64_t instances,
                   uint64_t launches) override;
  void stitchFlushAt(Operation *op) override;
  void launchBegin(const interp::LaunchEvent &launch) override;
  void launchEnd() override;
  void gmRead(Operation *op, const interp::HostTensor *tensor, bool workspace,
              uint64_t bytes, interp::GMBox box) override;
  void gmWrite(Operation *op, const interp::HostTensor *tensor, bool workspace,
               uint64_t bytes, bool atomic, interp::GMBox box) override;
  void onChipMove(Operation *op, uint64_t bytes, bool write) override;
  void matmul(Operation *op, int64_t m, int64_t n, int64_t k) override;
  void vectorOp(Operation *op, uint64_t elements) override;

  /// Reads a synthetic launch graph instead of observing a run (tests,
  /// sensitivity studies; format in docs/CostModel.md). `warning` (if given)
  /// receives why the result may mislead: pipe times priced for another
  /// architecture than this model's.
  llvm::Error loadGraph(llvm::StringRef json, std::string *warning = nullptr);
  /// Writes the observed launches in loadGraph's format (pipes included), so
  /// that one interpreter run can be re-scheduled under other options.
  void writeGraph(llvm::raw_ostream &os) const;

  /// Prices and schedules the observed launches (call after the run).
  const Report &finish();
  const Report &getReport() const { return report; }
  ArrayRef<LaunchRecord> getLaunches() const { return launches; }
  const PlatformInfo &getPlatform() const { return platform; }
  void setSchedMode(unsigned mode) { options.schedMode = mode; }

  void printReport(llvm::raw_ostream &os) const;
  /// Chrome trace (traceEvents, ph "X", pid per core pool, tid per core,
  /// ts/dur in microseconds), loadable in Perfetto.
  void writeChromeTrace(llvm::raw_ostream &os) const;

private:
  double cycles(double c) const { return c / (platform.clockGHz * 1e9); }
  void addPipe(Pipe pipe, double seconds);
  void beginRecord(LaunchRecord record);
  void recordRead(const void *tensor, uint64_t size, bool workspace,
                  uint64_t bytes, interp::GMBox box, bool vectorSide = false);
  void recordWrite(const void *tensor, uint64_t size, bool workspace,
                   uint64_t bytes, bool atomic, interp::GMBox box,
                   bool vectorSide = false);
  void recordOnChipMove(uint64_t bytes);
  size_t accessIndex(const void *tensor, uint8_t bit);
  /// Ends the current record: an access kind no box was reported for (the
  /// leaf's arguments name it, or a graph file gave no region) covers the
  /// whole tensor.
  void endRecord();
  void recordMatmul(int64_t m, int64_t n, int64_t k, int64_t lhsBytes,
                    int64_t rhsBytes);
  void recordVector(uint64_t elements, int64_t width);
  void simulate(Report &r);

  const PlatformInfo &platform;
  CostModelOptions options;
  double l2BytesPerSec; // options' override or the platform's figure
  std::vector<LaunchRecord> launches;
  LaunchRecord *current = nullptr;
  struct TensorTraffic {
    bool workspace = false;
    uint64_t read = 0, write = 0, size = 0;
  };
  llvm::DenseMap<const void *, TensorTraffic> traffic;
  std::vector<std::unique_ptr<std::string>> graphTensors; // loadGraph keys
  struct BandwidthSample {
    double time, l2, hbm; // granted bytes/s from `time` on
  };
  std::vector<BandwidthSample> bandwidth;
  // Stitch -> device task (merged group); the group being filled.
  llvm::DenseMap<int64_t, int64_t> stitchGroup;
  bool softFlush = false;
  int64_t group = -1;
  uint64_t groupInstances = 0, groupLaunches = 0, mergedStitches = 0;
  std::map<std::string, uint64_t> flushCauses; // control-program op -> count
  Report report;
};

} // namespace mlir::pto::cost

#endif // PTO_COSTMODEL_COSTMODEL_H

//===- Progress.h - pto-run's progress line on stderr -----------*- C++ -*-===//
#ifndef PTO_TOOLS_PTORUN_PROGRESS_H
#define PTO_TOOLS_PTORUN_PROGRESS_H

#include "pto/Interpreter/Interpreter.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace mlir::pto {

/// Reports a long run's progress (launches done, elapsed time, an estimate
/// of the time left from the control program's loop positions) and forwards
/// every hook to `next` (the cost model, or null). On a terminal the line is
/// rewritten in place twice a second; elsewhere one line every 2 s.
class ProgressReporter : public interp::ExecutionObserver {
public:
  ProgressReporter(interp::ExecutionObserver *next, llvm::raw_ostream &os,
                   bool terminal);

  /// Prints the final line (launches, total time; "done" or "stopped").
  void finish(bool completed);

  void stitchBegin(int64_t stitch, uint64_t instances,
                   uint64_t launches) override;
  void stitchFlushAt(Operation *op) override;
  void loopIteration(Operation *loop, int64_t iv, int64_t lb,
                     int64_t ub) override;
  void launchBegin(const interp::LaunchEvent &launch) override;
  void launchEnd() override;
  void gmRead(Operation *op, const interp::HostTensor *tensor, bool workspace,
              uint64_t bytes, interp::GMBox box) override;
  void gmWrite(Operation *op, const interp::HostTensor *tensor, bool workspace,
               uint64_t bytes, bool atomic, interp::GMBox box) override;
  void onChipMove(Operation *op, uint64_t bytes, bool write) override;
  void matmul(Operation *op, int64_t m, int64_t n, int64_t k) override;
  void vectorOp(Operation *op, uint64_t elements) override;

private:
  /// A control-program loop being run: its trip count and the iterations
  /// done.
  struct LoopPosition {
    Operation *loop;
    double done, count;
  };
  /// Fraction of the control program's loop nest issued (0 when no loop has
  /// run yet).
  double loopFraction() const;
  /// Fraction of the run done: the loop fraction, or, once stitches run
  /// (root calls are buffered, so the loops run ahead of the launches), the
  /// launches done over the launches the issued fraction implies.
  double fraction() const;
  void report(bool last, bool completed = true);
  double elapsed() const;

  interp::ExecutionObserver *next;
  llvm::raw_ostream &os;
  bool terminal;
  uint64_t launches = 0;
  // Launches of the stitches begun, and the loop fraction issued when the
  // last one began.
  uint64_t stitchedLaunches = 0;
  double issuedFraction = 0;
  SmallVector<LoopPosition, 4> nest;
  std::chrono::steady_clock::time_point start, lastReport;
};

} // namespace mlir::pto

#endif // PTO_TOOLS_PTORUN_PROGRESS_H

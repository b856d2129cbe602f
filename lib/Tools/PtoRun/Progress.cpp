//===- Progress.cpp - pto-run's progress line on stderr -------------------===//

#include "Progress.h"

#include "pto/Dialect/PTO/IR/PTODialect.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mlir::pto;

ProgressReporter::ProgressReporter(interp::ExecutionObserver *next,
                                   llvm::raw_ostream &os, bool terminal)
    : next(next), os(os), terminal(terminal),
      start(std::chrono::steady_clock::now()), lastReport(start) {}

double ProgressReporter::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

double ProgressReporter::fraction() const {
  if (stitchedLaunches == 0 || issuedFraction <= 0)
    return loopFraction();
  double expected = double(stitchedLaunches) / issuedFraction;
  return std::min(double(launches) / expected, 1.0);
}

double ProgressReporter::loopFraction() const {
  // Loop i's iteration is worth 1 / (count_0 * ... * count_i) of the run.
  double fraction = 0, weight = 1;
  for (const LoopPosition &position : nest) {
    if (position.count <= 0)
      break;
    weight /= position.count;
    fraction += position.done * weight;
  }
  return std::min(fraction, 1.0);
}

void ProgressReporter::report(bool last, bool completed) {
  auto now = std::chrono::steady_clock::now();
  double sinceLast = std::chrono::duration<double>(now - lastReport).count();
  if (!last && sinceLast < (terminal ? 0.5 : 2.0))
    return;
  lastReport = now;
  double seconds = elapsed();
  std::string line;
  llvm::raw_string_ostream text(line);
  text << "pto-run: " << launches << " launches, "
       << llvm::format("%.1f", seconds) << " s elapsed";
  double done = fraction();
  if (last)
    text << (completed ? " (done)" : " (stopped)");
  else if (done > 0.001)
    text << ", " << llvm::format("%.0f%%", 100 * done) << " done, ~"
         << llvm::format("%.0f", seconds * (1 - done) / done) << " s left";
  if (terminal)
    os << "\r" << line << "\x1b[K" << (last ? "\n" : "");
  else
    os << line << "\n";
  os.flush();
}

void ProgressReporter::finish(bool completed) {
  report(/*last=*/true, completed);
}

void ProgressReporter::loopIteration(Operation *loop, int64_t iv, int64_t lb,
                                     int64_t ub) {
  // Only the control program's loops (not those inside leaves) measure the
  // run; a loop's enclosing loops are on the nest already.
  if (loop->getParentOfType<KernelOp>()) {
    Operation *parent = loop->getParentOfType<LoopOp>();
    auto it = llvm::find_if(nest, [&](const LoopPosition &position) {
      return position.loop == loop;
    });
    if (it == nest.end()) {
      while (!nest.empty() && nest.back().loop != parent)
        nest.pop_back();
      nest.push_back({loop, 0, 0});
      it = std::prev(nest.end());
    } else {
      nest.erase(std::next(it), nest.end());
    }
    // Iterations before `iv` are done (step 1 counts; others scale alike).
    it->count = ub > lb ? double(ub) - double(lb) : 0;
    it->done = double(iv) - double(lb);
  }
  report(/*last=*/false);
  if (next)
    next->loopIteration(loop, iv, lb, ub);
}

void ProgressReporter::stitchBegin(int64_t stitch, uint64_t instances,
                                   uint64_t launches) {
  stitchedLaunches += launches;
  issuedFraction = loopFraction();
  if (next)
    next->stitchBegin(stitch, instances, launches);
}
void ProgressReporter::stitchFlushAt(Operation *op) {
  if (next)
    next->stitchFlushAt(op);
}
void ProgressReporter::launchBegin(const interp::LaunchEvent &launch) {
  if (next)
    next->launchBegin(launch);
}
void ProgressReporter::launchEnd() {
  ++launches;
  report(/*last=*/false);
  if (next)
    next->launchEnd();
}
void ProgressReporter::gmRead(Operation *op, const interp::HostTensor *tensor,
                              bool workspace, uint64_t bytes,
                              interp::GMBox box) {
  if (next)
    next->gmRead(op, tensor, workspace, bytes, box);
}
void ProgressReporter::gmWrite(Operation *op, const interp::HostTensor *tensor,
                               bool workspace, uint64_t bytes, bool atomic,
                               interp::GMBox box) {
  if (next)
    next->gmWrite(op, tensor, workspace, bytes, atomic, box);
}
void ProgressReporter::onChipMove(Operation *op, uint64_t bytes, bool write) {
  if (next)
    next->onChipMove(op, bytes, write);
}
void ProgressReporter::matmul(Operation *op, int64_t m, int64_t n, int64_t k) {
  if (next)
    next->matmul(op, m, n, k);
}
void ProgressReporter::vectorOp(Operation *op, uint64_t elements) {
  if (next)
    next->vectorOp(op, elements);
}

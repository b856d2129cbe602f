//===- VerifySync.cpp - check pto_isa synchronisation by simulation -------===//
//
// An independent checker for pto-isa-insert-sync. It executes each function
// path by path with the host emulator's vector clocks (issued[p]: how many
// instructions pipe p issued; seen[p][q]: how many of q's instructions p is
// ordered after) and checks every flag and every pair of conflicting
// accesses. It shares only the buffer model (SyncModel.h) with the pass.
//
//===----------------------------------------------------------------------===//

#include "SyncModel.h"

#include "pto/Dialect/PTOISA/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::ptoisa {
#define GEN_PASS_DEF_VERIFYSYNCPASS
#include "pto/Dialect/PTOISA/Transforms/Passes.h.inc"
} // namespace mlir::ptoisa

using namespace mlir;
using namespace mlir::ptoisa;
using sync::kNumPipes;

namespace {
struct PastAccess {
  unsigned pipe;
  uint32_t index; // the instruction's 1-based position on its pipe
  Operation *op;
  sync::Access access;
};

struct PendingFlag {
  uint32_t snap[kNumPipes];
  Operation *setOp;
};

/// One path's machine state.
struct Machine {
  uint32_t issued[kNumPipes] = {};
  uint32_t seen[kNumPipes][kNumPipes] = {};
  DenseMap<unsigned, PendingFlag> flags; // key: src * 64 + dst * 8 + id
  std::vector<PastAccess> history;
};

class Checker {
public:
  Checker(FunctionOpInterface func, unsigned maxPaths)
      : func(func), maxPaths(maxPaths) {}

  LogicalResult run() {
    Region &body = func.getFunctionBody();
    if (!body.hasOneBlock())
      return func.emitOpError("pto-isa-verify-sync: expected a single block");
    std::vector<Machine> paths(1);
    execBlock(body.front(), paths);
    if (!givenUp)
      for (Machine &m : paths)
        for (auto &entry : m.flags)
          report(entry.second.setOp, 0, [&](InFlightDiagnostic &d) {
            d << "flag " << tripleName(entry.first)
              << " is still pending at the end of the function";
          });
    return failure(errors);
  }

private:
  static std::string tripleName(unsigned key) {
    return (stringifyPipe(static_cast<Pipe>(key / 64)) + " -> " +
            stringifyPipe(static_cast<Pipe>(key / 8 % 8)) + ", " +
            Twine(key % 8))
        .str();
  }

  template <typename Fn> void report(Operation *op, int kind, Fn &&fill) {
    errors = true;
    if (!reported.insert({op, kind}).second)
      return;
    InFlightDiagnostic d = op->emitError();
    fill(d);
  }

  void execBlock(Block &block, std::vector<Machine> &paths) {
    for (Operation &op : block.without_terminator()) {
      if (givenUp)
        return;
      execOp(op, paths);
    }
  }

  void execOp(Operation &op, std::vector<Machine> &paths) {
    if (auto set = dyn_cast<SetFlagOp>(op)) {
      unsigned key = key3(set.getSrc(), set.getDst(), set.getEvent());
      for (Machine &m : paths) {
        if (m.flags.count(key)) {
          report(&op, 1, [&](InFlightDiagnostic &d) {
            d << "set_flag " << tripleName(key)
              << " while the triple is still pending on some path; use "
                 "another event id or wait first";
          });
          continue;
        }
        PendingFlag flag;
        unsigned src = static_cast<unsigned>(set.getSrc());
        std::copy(std::begin(m.seen[src]), std::end(m.seen[src]), flag.snap);
        flag.snap[src] = m.issued[src];
        flag.setOp = &op;
        m.flags[key] = flag;
      }
      return;
    }
    if (auto wait = dyn_cast<WaitFlagOp>(op)) {
      unsigned key = key3(wait.getSrc(), wait.getDst(), wait.getEvent());
      unsigned dst = static_cast<unsigned>(wait.getDst());
      for (Machine &m : paths) {
        auto it = m.flags.find(key);
        if (it == m.flags.end()) {
          report(&op, 2, [&](InFlightDiagnostic &d) {
            d << "wait_flag " << tripleName(key)
              << " without a pending set_flag of the triple on some path";
          });
          continue;
        }
        for (unsigned q = 0; q < kNumPipes; ++q)
          m.seen[dst][q] = std::max(m.seen[dst][q], it->second.snap[q]);
        m.flags.erase(it);
        prune(m);
      }
      return;
    }
    if (auto barrier = dyn_cast<PipeBarrierOp>(op)) {
      unsigned p = static_cast<unsigned>(barrier.getPipe());
      for (Machine &m : paths) {
        if (barrier.getPipe() == Pipe::ALL) {
          for (unsigned a = 0; a < kNumPipes; ++a)
            for (unsigned b = 0; b < kNumPipes; ++b)
              m.seen[a][b] = m.issued[b];
        } else {
          m.seen[p][p] = m.issued[p];
        }
        prune(m);
      }
      return;
    }
    if (std::optional<Pipe> pipe = sync::getInstructionPipe(&op)) {
      SmallVector<sync::Access> list;
      sync::getAccesses(&op, list);
      for (Machine &m : paths)
        execInstruction(m, &op, static_cast<unsigned>(*pipe), list);
      return;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      std::vector<Machine> other = paths;
      execBlock(*ifOp.thenBlock(), paths);
      if (Block *elseBlock = ifOp.elseBlock())
        execBlock(*elseBlock, other);
      append(paths, other);
      return;
    }
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      SmallVector<unsigned> trips = {0, 1, 2, 3};
      APInt lb, ub, step;
      if (matchPattern(forOp.getLowerBound(), m_ConstantInt(&lb)) &&
          matchPattern(forOp.getUpperBound(), m_ConstantInt(&ub)) &&
          matchPattern(forOp.getStep(), m_ConstantInt(&step)) &&
          step.getSExtValue() > 0) {
        int64_t n = std::max<int64_t>(
            0, llvm::divideCeil(ub.getSExtValue() - lb.getSExtValue(),
                                step.getSExtValue()));
        trips = {static_cast<unsigned>(std::min<int64_t>(n, 3))};
      }
      std::vector<Machine> result;
      std::vector<Machine> current = paths;
      for (unsigned i = 0; i <= trips.back() && !givenUp; ++i) {
        if (llvm::is_contained(trips, i))
          append(result, current);
        if (i < trips.back())
          execBlock(*forOp.getBody(), current);
      }
      paths = std::move(result);
      return;
    }
    if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
      // before; (after; before)*: leave after 0..3 passes of `after`.
      std::vector<Machine> result;
      std::vector<Machine> current = paths;
      execBlock(whileOp.getBefore().front(), current);
      for (unsigned i = 0; i <= 3 && !givenUp; ++i) {
        append(result, current);
        if (i < 3) {
          execBlock(whileOp.getAfter().front(), current);
          execBlock(whileOp.getBefore().front(), current);
        }
      }
      paths = std::move(result);
      return;
    }
    if (op.getNumRegions() != 0) {
      bool inside = false;
      op.walk([&](Operation *nested) {
        if (sync::getInstructionPipe(nested) || sync::isSyncOp(nested))
          inside = true;
      });
      if (inside)
        report(&op, 3, [&](InFlightDiagnostic &d) {
          d << "pto-isa-verify-sync simulates scf.if, scf.for and scf.while "
               "only; "
               "cannot check the instructions inside this op";
        });
    }
  }

  /// Forgets the accesses every pipe is already ordered after: no later
  /// instruction can form an unordered pair with them.
  static void prune(Machine &m) {
    const unsigned v = static_cast<unsigned>(Pipe::V);
    llvm::erase_if(m.history, [&](const PastAccess &past) {
      for (unsigned p = 0; p < kNumPipes; ++p) {
        // No instruction issues on S or ALL.
        if (p == static_cast<unsigned>(Pipe::S) ||
            p == static_cast<unsigned>(Pipe::ALL) || (p == past.pipe && p != v))
          continue;
        if (m.seen[p][past.pipe] < past.index)
          return false;
      }
      return true;
    });
  }

  void append(std::vector<Machine> &to, std::vector<Machine> &from) {
    if (to.size() + from.size() > maxPaths) {
      if (!givenUp)
        func.emitError() << "pto-isa-verify-sync: more than " << maxPaths
                         << " paths; raise max-paths";
      givenUp = true;
      errors = true;
      return;
    }
    to.insert(to.end(), from.begin(), from.end());
  }

  static unsigned key3(Pipe src, Pipe dst, uint32_t id) {
    return static_cast<unsigned>(src) * 64 + static_cast<unsigned>(dst) * 8 +
           id;
  }

  void execInstruction(Machine &m, Operation *op, unsigned p,
                       ArrayRef<sync::Access> list) {
    const unsigned v = static_cast<unsigned>(Pipe::V);
    uint32_t index = ++m.issued[p];
    for (const sync::Access &access : list) {
      for (const PastAccess &past : m.history) {
        if (!sync::conflicts(past.access, access))
          continue;
        unsigned q = past.pipe;
        const char *kind =
            past.access.write ? (access.write ? "WAW" : "RAW") : "WAR";
        if (q == p) {
          if (p != v || m.seen[v][v] >= past.index)
            continue;
          report(op, 4, [&](InFlightDiagnostic &d) {
            d << kind << " hazard on V with '" << past.op->getName()
              << "' and no pipe_barrier V in between";
            d.attachNote(past.op->getLoc()) << "the earlier instruction";
          });
          continue;
        }
        if (m.seen[p][q] >= past.index)
          continue;
        report(op, 5, [&](InFlightDiagnostic &d) {
          d << kind << " hazard with '" << past.op->getName() << "' on "
            << stringifyPipe(static_cast<Pipe>(q))
            << " that no flag orders before this instruction on "
            << stringifyPipe(static_cast<Pipe>(p)) << " (missing set_flag/"
            << "wait_flag " << stringifyPipe(static_cast<Pipe>(q)) << " -> "
            << stringifyPipe(static_cast<Pipe>(p)) << ")";
          d.attachNote(past.op->getLoc()) << "the earlier instruction";
        });
      }
    }
    for (const sync::Access &access : list)
      m.history.push_back({p, index, op, access});
  }

  FunctionOpInterface func;
  unsigned maxPaths;
  bool errors = false, givenUp = false;
  DenseSet<std::pair<Operation *, int>> reported;
};

struct VerifySyncPass
    : public ptoisa::impl::VerifySyncPassBase<VerifySyncPass> {
  using VerifySyncPassBase::VerifySyncPassBase;

  void runOnOperation() override {
    bool failed = false;
    getOperation()->walk([&](FunctionOpInterface func) {
      if (func.isExternal())
        return;
      bool relevant = false;
      func->walk([&](Operation *op) {
        if (sync::getInstructionPipe(op) || sync::isSyncOp(op))
          relevant = true;
      });
      if (!relevant)
        return;
      if (mlir::failed(Checker(func, maxPaths).run()))
        failed = true;
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace

//===- Passes.td - pto_isa passes --------------------------*- tablegen -*-===//
#ifndef PTOISA_TRANSFORMS_PASSES_TD
#define PTOISA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PlanMemoryPass : Pass<"pto-isa-plan-memory", "::mlir::ModuleOp"> {
  let summary = "Places every pto_isa tile in its on-chip buffer (TASSIGN offsets)";
  let description = [{
    For every function holding `pto_isa.alloc_tile`s, sets `at` (the byte
    offset `TASSIGN` binds) on each of them, per memory space (ub, l1, l0a,
    l0b, l0c), against the capacity of the function's architecture
    (`pto::getArchFor`, the platform table):

    - live range of a tile: from its first use to its last use; a use inside
      a region (an `scf.for` body, ...) counts as a use of the whole region
      op in the alloc's block, so a tile read in a loop is live across it;
    - placement: in program order of first use, first fit by offset,
      aligned to `PlatformInfo::bufferAlignBytes`; tiles whose live ranges
      are disjoint share bytes (buffer reuse). Offsets already present are
      replaced;
    - DAV_2201 keeps UB `[184 KiB, 192 KiB)` free by default
      (`reserve-ub-scratch`): pto-isa's A2/A3 mode-1 row-broadcast ops
      without a tmp tile and some TCVT paths use it as implicit scratch
      (ascend-target.md §3). pto-lower-to-isa emits mode-2 row broadcasts
      only, but TCVT f32 -> bf16 is on the list of uncertain users.

    A function whose tiles do not fit gets an error naming the function, the
    space, the bytes needed and the capacity, the tiles live at the peak
    (type and bytes, with a note at each alloc) and the fix. With `report`,
    each planned function gets a remark with the peak live bytes and the
    bytes used per space.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark per function with peak and used bytes per space">,
    Option<"reserveUbScratch", "reserve-ub-scratch", "bool", /*default=*/"true",
           "Keep the architecture's implicit UB scratch area free">,
  ];
}

def InsertSyncPass : Pass<"pto-isa-insert-sync", "::mlir::ModuleOp"> {
  let summary = "Inserts set_flag/wait_flag and pipe barriers for every hazard";
  let description = [{
    TODO(insert-sync): describe.
  }];
}

#endif // PTOISA_TRANSFORMS_PASSES_TD

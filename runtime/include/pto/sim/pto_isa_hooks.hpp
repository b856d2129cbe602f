// Runs an emitted control program on pto-mlir's runtime with its kernels
// built against the real pto-isa CPU simulator (a shared library compiled
// with -DPTO_KERNELS_ONLY). Include this header in exactly one translation
// unit of the control program (e.g. `-include pto/sim/pto_isa_hooks.hpp`
// with -DPTO_CONTROL_ONLY) and link with -rdynamic.
//
// pto-isa's simulator looks these hooks up with dlsym(RTLD_DEFAULT, ...)
// (include/pto/common/cpu_stub.hpp: get_block_idx() and get_subblockid()
// consult them), the way an external launcher supplies the per-core context
// its own demos set with set_execution_context(block_idx, subblock_id,
// subblock_dim). Here the context is the emulated core the runtime runs the
// leaf on.
#pragma once

#include <cstdint>

#include <pto/pto-inst.hpp>

extern "C" {
__attribute__((visibility("default"), used)) void
pto_cpu_sim_get_execution_context(uint32_t *block_idx, uint32_t *subblock_id,
                                  uint32_t *subblock_dim) {
  const pto::sim::Core &c = pto::sim::core();
  *block_idx = uint32_t(c.block_idx);
  *subblock_id = uint32_t(c.subblock);
  // A2/A3 and 950 pair two vector cores with one cube core.
  *subblock_dim = c.kind() == pto::sim::CoreKind::Vector ? 2u : 1u;
}

__attribute__((visibility("default"), used)) uint32_t
pto_sim_get_subblock_id() {
  return uint32_t(pto::sim::core().subblock);
}
}

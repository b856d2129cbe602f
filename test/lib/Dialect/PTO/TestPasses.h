//===- TestPasses.h - test-only pto passes ----------------------*- C++ -*-===//
//
// Passes that exist only to show an analysis's or an interface's answers to
// lit tests. They are registered by registerPTOTestPasses(), which pto-opt
// calls; the production pass lists (registerPTOPasses and friends, the C API,
// the Python bindings) never contain them.
//
//===----------------------------------------------------------------------===//
#ifndef PTO_TEST_LIB_DIALECT_PTO_TESTPASSES_H
#define PTO_TEST_LIB_DIALECT_PTO_TESTPASSES_H

namespace mlir::pto::test {

void registerTestGMAccessPass();
void registerTestIndexFormPass();
void registerTestOpClassesPass();
void registerTestSyncBitsPass();
void registerTestValidShapePass();

/// Registers every pass above.
inline void registerPTOTestPasses() {
  registerTestGMAccessPass();
  registerTestIndexFormPass();
  registerTestOpClassesPass();
  registerTestSyncBitsPass();
  registerTestValidShapePass();
}

} // namespace mlir::pto::test

#endif // PTO_TEST_LIB_DIALECT_PTO_TESTPASSES_H

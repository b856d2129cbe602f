// RUN: pto-translate --pto-to-cpp %s | FileCheck %s

// The control program checks what pto-run checks, with the rules and words
// of runtime/include/pto/runtime/checks.hpp (docs/Guarantees.md): each check
// names the op's source location.

// CHECK: #define PTOGEN_CHECK_DIVISION(where, a, b) pto_rt::check_division(where, a, b)

// CHECK-LABEL: void checks(pto_rt::Runtime &rt, float *x, int64_t x_d0, int32_t *offsets, int64_t offsets_d0) {
pto.kernel @checks(%x: !pto.tensor<?x2x32xf32>, %offsets: !pto.tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  // CHECK: pto_rt::check_reshape("{{.*}}emit-cpp-checks.mlir:[[@LINE+2]]:{{[0-9]+}}", "x", {x_d0, 2, 32}, {[[ROWS:v[0-9]+]], 64});
  %rows = pto.dim %x, 0 : !pto.tensor<?x2x32xf32>
  %x2 = pto.reshape %x [%rows, 64] inplace : !pto.tensor<?x2x32xf32> -> !pto.tensor<?x64xf32>
  // Scalar reads are bounds-checked.
  // CHECK: const int64_t [[A:v[0-9]+]] = pto_rt::read_scalar("{{.*}}emit-cpp-checks.mlir:[[@LINE+1]]:{{[0-9]+}}", "offsets", offsets, {v{{[0-9]+}}}, {offsets_d0});
  %a = pto.read %offsets[%c0] : !pto.tensor<?xi32>
  %b = pto.read %offsets[%c1] : !pto.tensor<?xi32>
  // A divisor known at compile time to be neither 0 nor -1 needs no check.
  // CHECK-NOT: PTOGEN_CHECK_DIVISION
  // CHECK: ptogen::ceildiv(
  %tiles = arith.ceildivsi %a, %c16 : index
  // A run-time divisor is checked first.
  // CHECK: PTOGEN_CHECK_DIVISION("{{.*}}emit-cpp-checks.mlir:[[@LINE+2]]:{{[0-9]+}}", [[A]], [[B:v[0-9]+]]);
  // CHECK-NEXT: const int64_t {{v[0-9]+}} = [[A]] / [[B]];
  %q = arith.divsi %a, %b : index
  // Integer arithmetic wraps.
  // CHECK: ptogen::wadd<int64_t>([[A]], [[B]])
  %sum = arith.addi %a, %b : index
  // A step that is not a positive constant is checked.
  // CHECK: pto_rt::check_loop_step("{{.*}}emit-cpp-checks.mlir:[[@LINE+1]]:{{[0-9]+}}", "L", [[B]]);
  pto.loop "L" %i = %c0 to %tiles step %b {
    // CHECK: pto_rt::check_view("{{.*}}emit-cpp-checks.mlir:[[@LINE+1]]:{{[0-9]+}}", "x", {[[ROWS]], 64}, {v{{[0-9]+}}, v{{[0-9]+}}}, {v{{[0-9]+}}, v{{[0-9]+}}});
    pto.check_view %x2[%i, %c0] valid [%q, %c64] : !pto.tensor<?x64xf32>
    // A view of a tile, against the tile's valid region (the same rule and
    // words as pto-run's at the view).
    // CHECK: if (const std::string rule = pto_check::tile_view({[[A]], v{{[0-9]+}}}, {v{{[0-9]+}}, v{{[0-9]+}}}, {v{{[0-9]+}}, v{{[0-9]+}}}); !rule.empty())
    // CHECK-NEXT: pto_rt::fault("{{.*}}emit-cpp-checks.mlir:[[@LINE+1]]:{{[0-9]+}}", rule);
    pto.check_tile_view [%i, %c0] valid [%q, %c64] of [%a, %c64]
  }
  pto.return
}

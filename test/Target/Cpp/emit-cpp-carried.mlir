// RUN: pto-translate --pto-to-cpp %s | FileCheck %s

// Scalars carried by a pto.loop (iter_args) and out of an scf.if (results):
// the valid extents a workspace move carries along the control flow
// (python/pto_mlir/frontend/valid_flow.py). Each is a variable the yields
// assign; the loop body reads a copy taken at the top of the iteration, so
// a yield that swaps two carried values reads the old ones.

// CHECK-LABEL: void carried(pto_rt::Runtime &rt, float *x, int64_t x_d0) {
pto.kernel @carried(%x: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  // CHECK: int64_t [[A:v[0-9]+]] = [[C8:v[0-9]+]];
  // CHECK-NEXT: int64_t [[B:v[0-9]+]] = [[C3:v[0-9]+]];
  // CHECK-NEXT: for (int64_t [[I:v[0-9]+]] = {{.*}}) {  // L
  // CHECK-NEXT: const int64_t [[ARGA:v[0-9]+]] = [[A]];
  // CHECK-NEXT: const int64_t [[ARGB:v[0-9]+]] = [[B]];
  %r:2 = pto.loop "L" %i = %c0 to %c3 step %c1 iter_args(%a = %c8, %b = %c3) -> (index, index) {
    %first = pto.is_loop_begin %i
    // CHECK: int64_t [[IF:v[0-9]+]]{};
    // CHECK-NEXT: if ({{v[0-9]+}}) {
    // CHECK-NEXT: [[IF]] = [[ARGA]];
    // CHECK-NEXT: } else {
    // CHECK-NEXT: const int64_t [[SUM:v[0-9]+]] = {{.*}}[[ARGA]]{{.*}}[[I]]
    // CHECK-NEXT: [[IF]] = [[SUM]];
    // CHECK-NEXT: }
    %n = scf.if %first -> (index) {
      scf.yield %a : index
    } else {
      %s = arith.addi %a, %i : index
      scf.yield %s : index
    }
    // CHECK-NEXT: [[A]] = [[ARGB]];
    // CHECK-NEXT: [[B]] = [[IF]];
    // CHECK-NEXT: }
    pto.yield %b, %n : index, index
  }
  // The results are the carried variables after the loop.
  // CHECK: pto_rt::check_view({{.*}}, {[[A]], [[B]]}
  pto.check_view %x[%r#0, %c0] valid [%r#0, %r#1] : !pto.tensor<?x64xf32>
  pto.return
}

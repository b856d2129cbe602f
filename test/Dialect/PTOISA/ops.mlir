// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --mlir-print-op-generic | pto-opt | FileCheck %s

// CHECK-LABEL: func.func @cube_leaf
func.func @cube_leaf(%q: !pto.tensor<?x128xbf16>, %k: !pto.tensor<?x128xbf16>,
                     %ws: !pto.tensor<96x112xf32>, %r: index, %c: index) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  // CHECK: %[[A1:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] at 0 : !pto_isa.tile<l1, 64x64xbf16>
  %a1 = pto_isa.alloc_tile valid [%r, %c64] at 0 : !pto_isa.tile<l1, 64x64xbf16>
  // CHECK: !pto_isa.tile<l1, 64x64xbf16, zn>
  %b1 = pto_isa.alloc_tile valid [%c64, %c] at 8192 : !pto_isa.tile<l1, 64x64xbf16, zn>
  %a0 = pto_isa.alloc_tile valid [%r, %c64] at 0 : !pto_isa.tile<l0a, 64x64xbf16>
  %b0 = pto_isa.alloc_tile valid [%c64, %c] at 0 : !pto_isa.tile<l0b, 64x64xbf16>
  %acc = pto_isa.alloc_tile valid [%r, %c] at 0 : !pto_isa.tile<l0c, 64x64xf32>
  // CHECK: pto_isa.tload %{{.*}}[%{{.*}}, %{{.*}}] into %[[A1]] : !pto.tensor<?x128xbf16>, !pto_isa.tile<l1, 64x64xbf16>
  pto_isa.tload %q[%r, %c0] into %a1 : !pto.tensor<?x128xbf16>, !pto_isa.tile<l1, 64x64xbf16>
  // CHECK: pto_isa.tload {{.*}} transpose :
  pto_isa.tload %k[%c, %c0] into %b1 transpose : !pto.tensor<?x128xbf16>, !pto_isa.tile<l1, 64x64xbf16, zn>
  // CHECK: pto_isa.set_flag MTE2 -> MTE1, 0
  pto_isa.set_flag MTE2 -> MTE1, 0
  // CHECK: pto_isa.wait_flag MTE2 -> MTE1, 0
  pto_isa.wait_flag MTE2 -> MTE1, 0
  // CHECK: pto_isa.textract
  pto_isa.textract %a1 into %a0 : !pto_isa.tile<l1, 64x64xbf16>, !pto_isa.tile<l0a, 64x64xbf16>
  pto_isa.textract %b1 into %b0 {index_col = 0 : i64} : !pto_isa.tile<l1, 64x64xbf16, zn>, !pto_isa.tile<l0b, 64x64xbf16>
  pto_isa.set_flag MTE1 -> M, 0
  pto_isa.wait_flag MTE1 -> M, 0
  // CHECK: pto_isa.tmatmul %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<l0a, 64x64xbf16>, !pto_isa.tile<l0b, 64x64xbf16>, !pto_isa.tile<l0c, 64x64xf32>
  pto_isa.tmatmul %a0, %b0 into %acc : !pto_isa.tile<l0a, 64x64xbf16>, !pto_isa.tile<l0b, 64x64xbf16>, !pto_isa.tile<l0c, 64x64xf32>
  // CHECK: pto_isa.tmatmul_acc
  pto_isa.tmatmul_acc %a0, %b0 into %acc : !pto_isa.tile<l0a, 64x64xbf16>, !pto_isa.tile<l0b, 64x64xbf16>, !pto_isa.tile<l0c, 64x64xf32>
  pto_isa.set_flag M -> FIX, 0
  pto_isa.wait_flag M -> FIX, 0
  // CHECK: pto_isa.tstore %{{.*}} into %{{.*}}[%{{.*}}, %{{.*}}] : !pto_isa.tile<l0c, 64x64xf32>, !pto.tensor<96x112xf32>
  pto_isa.tstore %acc into %ws[%c0, %c0] : !pto_isa.tile<l0c, 64x64xf32>, !pto.tensor<96x112xf32>
  // CHECK: pto_isa.pipe_barrier ALL
  pto_isa.pipe_barrier ALL
  return
}

// CHECK-LABEL: func.func @vector_leaf
func.func @vector_leaf(%s: !pto.tensor<96x112xf32>, %m: !pto.tensor<?x2xf32>,
                       %dq: !pto.tensor<?x128xf32>, %p: !pto.tensor<96x112xbf16>,
                       %r: index, %c: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %scale = arith.constant 1.250000e-01 : f32
  %x = pto_isa.alloc_tile valid [%r, %c] at 0 : !pto_isa.tile<ub, 32x112xf32>
  %y = pto_isa.alloc_tile valid [%r, %c] : !pto_isa.tile<ub, 32x112xf32>
  %tmp = pto_isa.alloc_tile valid [%r, %c] : !pto_isa.tile<ub, 32x112xf32>
  %col = pto_isa.alloc_tile valid [%r, %c1] : !pto_isa.tile<ub, 32x8xf32>
  %rowv = pto_isa.alloc_tile valid [%r, %c8] : !pto_isa.tile<ub, 32x8xf32>
  // CHECK: !pto_isa.tile<ub, 32x1xf32, dn>
  %dn = pto_isa.alloc_tile valid [%r, %c1] : !pto_isa.tile<ub, 32x1xf32, dn>
  %bf = pto_isa.alloc_tile valid [%r, %c] : !pto_isa.tile<ub, 32x112xbf16>
  pto_isa.tload %s[%c0, %c0] into %x : !pto.tensor<96x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tload %m[%c0, %c0] into %col : !pto.tensor<?x2xf32>, !pto_isa.tile<ub, 32x8xf32>
  pto_isa.set_flag MTE2 -> V, 0
  pto_isa.wait_flag MTE2 -> V, 0
  // CHECK: pto_isa.tmuls %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 32x112xf32>, f32, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tmuls %x, %scale into %y : !pto_isa.tile<ub, 32x112xf32>, f32, !pto_isa.tile<ub, 32x112xf32>
  // CHECK: pto_isa.trowexpand %{{.*}} into
  pto_isa.trowexpand %col into %rowv : !pto_isa.tile<ub, 32x8xf32>, !pto_isa.tile<ub, 32x8xf32>
  pto_isa.pipe_barrier V
  // CHECK: pto_isa.trowexpand_sub
  pto_isa.trowexpand_sub %y, %rowv into %x : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x8xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.trowexpand_mul %y, %dn into %x : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x1xf32, dn>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.trowexpand_div %y, %rowv into %x : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x8xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.pipe_barrier V
  // CHECK: pto_isa.texp
  pto_isa.texp %x into %y : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tabs %x into %y : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tneg %x into %y : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tsqrt %x into %y : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.trsqrt %x into %y : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.trecip %x into %y : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  // CHECK: pto_isa.tadd
  pto_isa.tadd %x, %y into %x : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tsub %x, %y into %x : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tmul %x, %y into %x : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tdiv %x, %y into %x : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tmax %x, %y into %x : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tmin %x, %y into %x : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tadds %x, %scale into %y : !pto_isa.tile<ub, 32x112xf32>, f32, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tsubs %x, %scale into %y : !pto_isa.tile<ub, 32x112xf32>, f32, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tdivs %x, %scale into %y : !pto_isa.tile<ub, 32x112xf32>, f32, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tmaxs %x, %scale into %y : !pto_isa.tile<ub, 32x112xf32>, f32, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tmins %x, %scale into %y : !pto_isa.tile<ub, 32x112xf32>, f32, !pto_isa.tile<ub, 32x112xf32>
  // CHECK: pto_isa.texpands
  pto_isa.texpands %scale into %y : f32, !pto_isa.tile<ub, 32x112xf32>
  // CHECK: pto_isa.trowsum %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x8xf32>
  pto_isa.trowsum %x, %tmp into %col : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x8xf32>
  pto_isa.trowmax %x, %tmp into %dn : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x1xf32, dn>
  // CHECK: pto_isa.tcolexpand %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 1x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  %rowc = pto_isa.alloc_tile valid [%c1, %c] : !pto_isa.tile<ub, 1x112xf32>
  pto_isa.tcolexpand %rowc into %y : !pto_isa.tile<ub, 1x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  // CHECK: pto_isa.tcolexpand_add %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 1x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tcolexpand_add %x, %rowc into %y : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 1x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tcolexpand_sub %x, %rowc into %y : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 1x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tcolexpand_mul %x, %rowc into %y : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 1x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tcolexpand_div %x, %rowc into %y : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 1x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.tcolexpand_max %x, %rowc into %y : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 1x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  // CHECK: pto_isa.tcolexpand_min
  pto_isa.tcolexpand_min %x, %rowc into %y : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 1x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  // CHECK: pto_isa.tcolsum %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 1x112xf32>
  pto_isa.tcolsum %x into %rowc : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 1x112xf32>
  // CHECK: pto_isa.tcolmax
  pto_isa.tcolmax %x into %rowc : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 1x112xf32>
  // CHECK: pto_isa.ttrans %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 112x32xf32>, !pto_isa.tile<ub, 112x32xf32>
  %tt = pto_isa.alloc_tile valid [%c1, %c1] : !pto_isa.tile<ub, 112x32xf32>
  pto_isa.ttrans %x, %tt into %tt : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 112x32xf32>, !pto_isa.tile<ub, 112x32xf32>
  // CHECK: pto_isa.mscatter %{{.*}} into %{{.*}}[%{{.*}}] [%{{.*}}, %{{.*}}] atomic_add : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 1x32xi32>, !pto.tensor<96x112xf32>
  %ix = pto_isa.alloc_tile valid [%c1, %r] : !pto_isa.tile<ub, 1x32xi32>
  pto_isa.mscatter %x into %s[%ix] [%c0, %c0] atomic_add : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 1x32xi32>, !pto.tensor<96x112xf32>
  // CHECK: pto_isa.tgather_mask %{{.*}} into %{{.*}} pattern = 2 : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x56xf32>
  %tg = pto_isa.alloc_tile valid [%c1, %c1] : !pto_isa.tile<ub, 32x56xf32>
  pto_isa.tgather_mask %x into %tg pattern = 2 : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x56xf32>
  // CHECK: pto_isa.tcvt %{{.*}} into %{{.*}} mode <RINT>
  pto_isa.tcvt %x into %bf mode <RINT> : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xbf16>
  pto_isa.tmov %x into %y : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xf32>
  pto_isa.set_flag V -> MTE3, 0
  pto_isa.wait_flag V -> MTE3, 0
  pto_isa.tstore %bf into %p[%c0, %c0] : !pto_isa.tile<ub, 32x112xbf16>, !pto.tensor<96x112xbf16>
  // CHECK: atomic_add
  pto_isa.tstore %x into %dq[%c0, %c0] atomic_add : !pto_isa.tile<ub, 32x112xf32>, !pto.tensor<?x128xf32>
  return
}

// A ub -> ub TEXTRACT at a run-time row (a view of a tile at t[%r]).
// CHECK-LABEL: func.func @textract_runtime_row
// CHECK:         pto_isa.textract %{{.*}}[%{{.*}}] into %{{.*}} {index_row = 2 : i64} : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x64xf32>
func.func @textract_runtime_row(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x64xf32>
  pto_isa.textract %s[%r] into %d {index_row = 2 : i64} : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x64xf32>
  return
}

// A ub -> ub TEXTRACT at a run-time column, with or without a run-time row.
// CHECK-LABEL: func.func @textract_runtime_column
// CHECK:         pto_isa.textract %{{.*}} cols[%{{.*}}] into %{{.*}} : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x32xf32>
// CHECK:         pto_isa.textract %{{.*}}[%{{.*}}] cols[%{{.*}}] into %{{.*}} {index_col = 8 : i64} : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x32xf32>
func.func @textract_runtime_column(%r: index, %c: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x64xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x32xf32>
  pto_isa.textract %s cols[%c] into %d : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x32xf32>
  %e = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x32xf32>
  pto_isa.textract %s[%r] cols[%c] into %e {index_col = 8 : i64} : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x32xf32>
  return
}

// CHECK-LABEL: func.func @treshape
// CHECK: pto_isa.treshape %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 16x8xf32>, !pto_isa.tile<ub, 16x32xi8>
func.func @treshape(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x8xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x32xi8>
  pto_isa.treshape %s into %d : !pto_isa.tile<ub, 16x8xf32>, !pto_isa.tile<ub, 16x32xi8>
  return
}

// The row reductions' scratch is what pto-isa writes into it: nothing on
// DAV_3510 (one block stands for it), one block for A2/A3 integers, half the
// repeats of an A2/A3 f32 row sum ([16, 128] for 256 columns).
// CHECK-LABEL: func.func @row_reduce_scratch
// CHECK: pto_isa.trowsum %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 16x256xf32>, !pto_isa.tile<ub, 16x128xf32>, !pto_isa.tile<ub, 16x8xf32>
// CHECK: pto_isa.trowmax %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 16x256xi32>, !pto_isa.tile<ub, 1x8xi32>, !pto_isa.tile<ub, 16x8xi32>
func.func @row_reduce_scratch(%r: index) {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x256xf32>
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x128xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x8xf32>
  pto_isa.trowsum %s, %t into %d : !pto_isa.tile<ub, 16x256xf32>, !pto_isa.tile<ub, 16x128xf32>, !pto_isa.tile<ub, 16x8xf32>
  %si = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x256xi32>
  %ti = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x8xi32>
  %di = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x8xi32>
  pto_isa.trowmax %si, %ti into %di : !pto_isa.tile<ub, 16x256xi32>, !pto_isa.tile<ub, 1x8xi32>, !pto_isa.tile<ub, 16x8xi32>
  return
}

// CHECK-LABEL: func.func @row_reduce_scratch_dav3510
// CHECK: pto_isa.trowsum %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 16x256xf32>, !pto_isa.tile<ub, 1x8xf32>, !pto_isa.tile<ub, 16x8xf32>
func.func @row_reduce_scratch_dav3510(%r: index) attributes {pto.arch = #pto.arch<DAV_3510>} {
  %s = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x256xf32>
  %t = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 1x8xf32>
  %d = pto_isa.alloc_tile valid [%r, %r] : !pto_isa.tile<ub, 16x8xf32>
  pto_isa.trowsum %s, %t into %d : !pto_isa.tile<ub, 16x256xf32>, !pto_isa.tile<ub, 1x8xf32>, !pto_isa.tile<ub, 16x8xf32>
  return
}

// RUN: pto-opt %s --pto-lower-to-isa -split-input-file | FileCheck %s

// A vector leaf: GM view -> ub tile + tload, tile-scalar, unary, store.
// Capacities round the column count up to whole 32-byte blocks; the valid
// extents are those of the pto values.
// CHECK-LABEL: func.func private @vector_leaf(
// CHECK-SAME:    %[[WS:[^:]*]]: !pto.tensor<96x112xf32>, %[[OUT:[^:]*]]: !pto.tensor<?x100xf32>, %[[R:[^:]*]]: index, %[[V:[^:]*]]: index)
// CHECK-SAME:    attributes {pto.family = "V1", pto.leaf = #pto.core<vector>}
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C100:.*]] = arith.constant 100 : index
// CHECK:         %[[VR:[^,]*]] = arith.minsi %[[V]], {{.*}} : index
// CHECK:         %[[X:.*]] = pto_isa.alloc_tile valid [%[[VR]], %[[C100]]] : !pto_isa.tile<ub, 32x104xf32>
// CHECK-NEXT:    pto_isa.tload %[[WS]][%[[R]], %[[C0]]] into %[[X]] : !pto.tensor<96x112xf32>, !pto_isa.tile<ub, 32x104xf32>
// CHECK:         %[[Y:.*]] = pto_isa.alloc_tile valid [%[[VR]], %[[C100]]] : !pto_isa.tile<ub, 32x104xf32>
// CHECK-NEXT:    pto_isa.tmuls %[[X]], %{{.*}} into %[[Y]] : !pto_isa.tile<ub, 32x104xf32>, f32, !pto_isa.tile<ub, 32x104xf32>
// CHECK-NEXT:    %[[E:.*]] = pto_isa.alloc_tile valid [%[[VR]], %[[C100]]] : !pto_isa.tile<ub, 32x104xf32>
// CHECK-NEXT:    pto_isa.texp %[[Y]] into %[[E]]
// CHECK:         pto_isa.tstore %[[E]] into %[[OUT]][%[[R]], %[[C0]]] : !pto_isa.tile<ub, 32x104xf32>, !pto.tensor<?x100xf32>
// CHECK-NOT:     pto.view
// CHECK-NOT:     pto.mul
// CHECK:         return
func.func private @vector_leaf(%ws: !pto.tensor<96x112xf32>, %out: !pto.tensor<?x100xf32>,
                               %r: index, %v: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %scale = arith.constant 1.250000e-01 : f32
  %x = pto.view %ws[%r, %c0] valid [%v, 100] : !pto.tensor<96x112xf32> -> !pto.tile<32x100xf32>
  %y = pto.mul %x, %scale : !pto.tile<32x100xf32>, f32 -> !pto.tile<32x100xf32>
  %e = pto.exp %y : !pto.tile<32x100xf32> -> !pto.tile<32x100xf32>
  pto.assemble %e, %out [%r, %c0] : !pto.tile<32x100xf32>, !pto.tensor<?x100xf32>
  return
}

// -----

// Row broadcasts. A per-row [R, 1] operand (a strided GM column, m) is held
// in an nd [R, 8] tile with one valid column, expanded once to one 32-byte
// block per row and used by trowexpand_sub/div (mode 2). add/max and a
// per-row operand on the left expand to the full shape and use the plain
// instruction with the operands in their order. m's valid rows and s's are
// two run-time counts (each clamped by its own tensor), taken to be equal:
// no copy (a constant count other than the result's is narrowed with tmov,
// @column_longer_than_result).
// CHECK-LABEL: func.func private @row_broadcast(
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         %[[S:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 32x112xf32>
// CHECK:         %[[M:.*]] = pto_isa.alloc_tile valid [%[[MR:[0-9a-z_]+]], %{{[0-9a-z_]+}}] : !pto_isa.tile<ub, 32x8xf32>
// CHECK-NEXT:    pto_isa.tload %{{.*}} into %[[M]] : !pto.tensor<?x2xf32>, !pto_isa.tile<ub, 32x8xf32>
// CHECK:         %[[MB:.*]] = pto_isa.alloc_tile valid [%[[MR]], %[[C8]]] : !pto_isa.tile<ub, 32x8xf32>
// CHECK-NEXT:    pto_isa.trowexpand %[[M]] into %[[MB]] : !pto_isa.tile<ub, 32x8xf32>, !pto_isa.tile<ub, 32x8xf32>
// CHECK-NEXT:    %[[X:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 32x112xf32>
// CHECK-NEXT:    pto_isa.trowexpand_sub %[[S]], %[[MB]] into %[[X]]
// CHECK-NEXT:    %[[P:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 32x112xf32>
// CHECK-NEXT:    pto_isa.trowexpand_div %[[X]], %[[MB]] into %[[P]]
// CHECK-NEXT:    %[[F:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 32x112xf32>
// CHECK-NEXT:    pto_isa.trowexpand %[[M]] into %[[F]] : !pto_isa.tile<ub, 32x8xf32>, !pto_isa.tile<ub, 32x112xf32>
// CHECK-NEXT:    %[[A:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 32x112xf32>
// CHECK-NEXT:    pto_isa.tadd %[[P]], %[[F]] into %[[A]]
// CHECK-NEXT:    %[[G:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 32x112xf32>
// CHECK-NEXT:    pto_isa.trowexpand %[[M]] into %[[G]]
// CHECK-NEXT:    %[[B:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 32x112xf32>
// CHECK-NEXT:    pto_isa.tsub %[[G]], %[[A]] into %[[B]]
// CHECK:         pto_isa.tstore %[[B]]
func.func private @row_broadcast(%ws: !pto.tensor<96x112xf32>, %m: !pto.tensor<?x2xf32>,
                                 %out: !pto.tensor<96x112xf32>, %r: index, %v: index, %h: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %s = pto.view %ws[%r, %c0] valid [%v, 112] : !pto.tensor<96x112xf32> -> !pto.tile<32x112xf32>
  %mi = pto.view %m[%r, %h] valid [%v, 1] : !pto.tensor<?x2xf32> -> !pto.tile<32x1xf32>
  %x = pto.sub %s, %mi : !pto.tile<32x112xf32>, !pto.tile<32x1xf32> -> !pto.tile<32x112xf32>
  %p = pto.div %x, %mi {precision = #pto.precision<INTRINSIC>} : !pto.tile<32x112xf32>, !pto.tile<32x1xf32> -> !pto.tile<32x112xf32>
  %a = pto.add %p, %mi : !pto.tile<32x112xf32>, !pto.tile<32x1xf32> -> !pto.tile<32x112xf32>
  %b = pto.sub %mi, %a : !pto.tile<32x1xf32>, !pto.tile<32x112xf32> -> !pto.tile<32x112xf32>
  pto.assemble %b, %out [%r, %c0] : !pto.tile<32x112xf32>, !pto.tensor<96x112xf32>
  return
}

// -----

// Row reductions: trowsum/trowmax into an nd [R, 8] tile with one valid
// column; the partial results of two column pieces combine with tadd over
// [R, 1] valid regions. The scratch is what pto-isa's A2/A3 implementation
// writes (docs/ISA.md#row-reduction-scratch), not the source's size: a row of
// at most one 256-byte repeat (64 f32) is reduced in place (a [1, 8] block),
// a longer TROWMAX folds into the first repeat ([R, 64]), a longer TROWSUM
// first adds its repeats in pairs ([R, 128] for 256 f32, [R, 192] for 384).
// An f16 repeat is 128 elements.
// CHECK-LABEL: func.func private @reduction(
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         %[[X:.*]] = pto_isa.alloc_tile valid [%[[XR:[^,]*]], %{{.*}}] : !pto_isa.tile<ub, 16x64xf32>
// CHECK:         %[[T:.*]] = pto_isa.alloc_tile valid [%[[C1]], %[[C8]]] : !pto_isa.tile<ub, 1x8xf32>
// CHECK-NEXT:    %[[S:.*]] = pto_isa.alloc_tile valid [%[[XR]], %[[C1]]] : !pto_isa.tile<ub, 16x8xf32>
// CHECK-NEXT:    pto_isa.trowsum %[[X]], %[[T]] into %[[S]] : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x8xf32>, !pto_isa.tile<ub, 16x8xf32>
// CHECK:         pto_isa.trowsum
// CHECK:         pto_isa.tadd %[[S]], %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 16x8xf32>, !pto_isa.tile<ub, 16x8xf32>, !pto_isa.tile<ub, 16x8xf32>
// CHECK:         pto_isa.trowmax %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x8xf32>, !pto_isa.tile<ub, 16x8xf32>
// CHECK:         pto_isa.trowsum %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 16x256xf32>, !pto_isa.tile<ub, 16x128xf32>, !pto_isa.tile<ub, 16x8xf32>
// CHECK:         pto_isa.trowmax %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 16x256xf32>, !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x8xf32>
// CHECK:         pto_isa.trowsum %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 16x384xf32>, !pto_isa.tile<ub, 16x192xf32>, !pto_isa.tile<ub, 16x8xf32>
// CHECK:         pto_isa.trowmax %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 16x512xf16>, !pto_isa.tile<ub, 16x128xf16>, !pto_isa.tile<ub, 16x16xf16>
// CHECK:         pto_isa.tstore %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 16x8xf32>, !pto.tensor<16x1xf32>
func.func private @reduction(%ws: !pto.tensor<16x128xf32>, %out: !pto.tensor<16x1xf32>,
                             %out2: !pto.tensor<16x1xf32>, %v: index,
                             %wide: !pto.tensor<16x384xf32>, %half: !pto.tensor<16x512xf16>,
                             %outw: !pto.tensor<16x4xf32>, %outh: !pto.tensor<16x1xf16>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %x0 = pto.view %ws[%c0, %c0] valid [%v, 64] : !pto.tensor<16x128xf32> -> !pto.tile<16x64xf32>
  %x1 = pto.view %ws[%c0, %c64] valid [%v, 64] : !pto.tensor<16x128xf32> -> !pto.tile<16x64xf32>
  %s0 = pto.sum %x0 dim = 1 keepdim : !pto.tile<16x64xf32> -> !pto.tile<16x1xf32>
  %s1 = pto.sum %x1 dim = 1 keepdim : !pto.tile<16x64xf32> -> !pto.tile<16x1xf32>
  %s = pto.add %s0, %s1 : !pto.tile<16x1xf32>, !pto.tile<16x1xf32> -> !pto.tile<16x1xf32>
  %mx = pto.amax %x0 dim = 1 keepdim : !pto.tile<16x64xf32> -> !pto.tile<16x1xf32>
  %w = pto.view %wide[%c0, %c0] : !pto.tensor<16x384xf32> -> !pto.tile<16x256xf32>
  %ws2 = pto.sum %w dim = 1 keepdim : !pto.tile<16x256xf32> -> !pto.tile<16x1xf32>
  %wm = pto.amax %w dim = 1 keepdim : !pto.tile<16x256xf32> -> !pto.tile<16x1xf32>
  %w3 = pto.view %wide[%c0, %c0] : !pto.tensor<16x384xf32> -> !pto.tile<16x384xf32>
  %ws3 = pto.sum %w3 dim = 1 keepdim : !pto.tile<16x384xf32> -> !pto.tile<16x1xf32>
  %h = pto.view %half[%c0, %c0] : !pto.tensor<16x512xf16> -> !pto.tile<16x512xf16>
  %hs = pto.amax %h dim = 1 keepdim : !pto.tile<16x512xf16> -> !pto.tile<16x1xf16>
  pto.assemble %s, %out [%c0, %c0] : !pto.tile<16x1xf32>, !pto.tensor<16x1xf32>
  pto.assemble %mx, %out2 [%c0, %c0] : !pto.tile<16x1xf32>, !pto.tensor<16x1xf32>
  pto.assemble %ws2, %outw [%c0, %c0] : !pto.tile<16x1xf32>, !pto.tensor<16x4xf32>
  pto.assemble %wm, %outw [%c0, %c1] : !pto.tile<16x1xf32>, !pto.tensor<16x4xf32>
  pto.assemble %ws3, %outw [%c0, %c2] : !pto.tile<16x1xf32>, !pto.tensor<16x4xf32>
  pto.assemble %hs, %outh [%c0, %c0] : !pto.tile<16x1xf16>, !pto.tensor<16x1xf16>
  return
}

// -----

// DAV_3510's TROWSUM/TROWMAX reduce in registers and never touch the
// scratch: one 32-byte block stands for it whatever the source's width.
// CHECK-LABEL: func.func private @reduction_dav3510(
// CHECK:         pto_isa.trowsum %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 16x256xf32>, !pto_isa.tile<ub, 1x8xf32>, !pto_isa.tile<ub, 16x8xf32>
// CHECK:         pto_isa.trowmax %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 16x256xf32>, !pto_isa.tile<ub, 1x8xf32>, !pto_isa.tile<ub, 16x8xf32>
func.func private @reduction_dav3510(%wide: !pto.tensor<16x256xf32>, %out: !pto.tensor<16x2xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1", pto.arch = #pto.arch<DAV_3510>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = pto.view %wide[%c0, %c0] : !pto.tensor<16x256xf32> -> !pto.tile<16x256xf32>
  %s = pto.sum %w dim = 1 keepdim : !pto.tile<16x256xf32> -> !pto.tile<16x1xf32>
  %m = pto.amax %w dim = 1 keepdim : !pto.tile<16x256xf32> -> !pto.tile<16x1xf32>
  pto.assemble %s, %out [%c0, %c0] : !pto.tile<16x1xf32>, !pto.tensor<16x2xf32>
  pto.assemble %m, %out [%c0, %c1] : !pto.tile<16x1xf32>, !pto.tensor<16x2xf32>
  return
}

// -----

// Casts: tcvt with the effective rounding mode (NONE is RINT for f32 -> bf16;
// the exact bf16 -> f32 widening keeps NONE).
// Both sides of a cast get one capacity: 24 f32 columns round up to the
// 16-element bf16 block, 32.
// CHECK-LABEL: func.func private @cast(
// CHECK:         %[[X:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x32xbf16>
// CHECK:         %[[F:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x32xf32>
// CHECK-NEXT:    pto_isa.tcvt %[[X]] into %[[F]] mode <NONE> {satmode = #pto.sat_mode<OFF>} : !pto_isa.tile<ub, 16x32xbf16>, !pto_isa.tile<ub, 16x32xf32>
// CHECK:         %[[B:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x32xbf16>
// CHECK-NEXT:    pto_isa.tcvt %{{.*}} into %[[B]] mode <RINT> {satmode = #pto.sat_mode<OFF>} : !pto_isa.tile<ub, 16x32xf32>, !pto_isa.tile<ub, 16x32xbf16>
// CHECK:         pto_isa.tcvt %{{.*}} into %{{.*}} mode <TRUNC> {satmode = #pto.sat_mode<OFF>} :
// CHECK:         pto_isa.tstore %[[B]] into %{{.*}} : !pto_isa.tile<ub, 16x32xbf16>, !pto.tensor<16x24xbf16>
func.func private @cast(%in: !pto.tensor<16x24xbf16>, %out: !pto.tensor<16x24xbf16>,
                        %out2: !pto.tensor<16x24xbf16>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %x = pto.view %in[%c0, %c0] : !pto.tensor<16x24xbf16> -> !pto.tile<16x24xbf16>
  %f = pto.cast %x : !pto.tile<16x24xbf16> -> !pto.tile<16x24xf32>
  %g = pto.mul %f, %f : !pto.tile<16x24xf32>, !pto.tile<16x24xf32> -> !pto.tile<16x24xf32>
  %b = pto.cast %g : !pto.tile<16x24xf32> -> !pto.tile<16x24xbf16>
  %t = pto.cast %g {mode = #pto.round_mode<TRUNC>} : !pto.tile<16x24xf32> -> !pto.tile<16x24xbf16>
  pto.assemble %b, %out [%c0, %c0] : !pto.tile<16x24xbf16>, !pto.tensor<16x24xbf16>
  pto.assemble %t, %out2 [%c0, %c0] : !pto.tile<16x24xbf16>, !pto.tensor<16x24xbf16>
  return
}

// -----

// Saturation: f16 -> i8 wraps unless the cast says ON (PyPTO's
// SaturationMode); f32 -> i32 saturates either way.
// CHECK-LABEL: func.func private @saturation(
// CHECK:         pto_isa.tcvt %{{.*}} into %{{.*}} mode <TRUNC> {satmode = #pto.sat_mode<OFF>} : !pto_isa.tile<ub, 16x32xf16>, !pto_isa.tile<ub, 16x32xi8>
// CHECK:         pto_isa.tcvt %{{.*}} into %{{.*}} mode <TRUNC> : !pto_isa.tile<ub, 16x32xf16>, !pto_isa.tile<ub, 16x32xi8>
// CHECK:         pto_isa.tcvt %{{.*}} into %{{.*}} mode <TRUNC> : !pto_isa.tile<ub, 16x32xf32>, !pto_isa.tile<ub, 16x32xi32>
func.func private @saturation(%in: !pto.tensor<16x32xf16>, %f: !pto.tensor<16x32xf32>,
                              %o1: !pto.tensor<16x32xi8>, %o2: !pto.tensor<16x32xi8>,
                              %o3: !pto.tensor<16x32xi32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %x = pto.view %in[%c0, %c0] : !pto.tensor<16x32xf16> -> !pto.tile<16x32xf16>
  %y = pto.view %f[%c0, %c0] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
  %w = pto.cast %x {mode = #pto.round_mode<TRUNC>} : !pto.tile<16x32xf16> -> !pto.tile<16x32xi8>
  %s = pto.cast %x {mode = #pto.round_mode<TRUNC>, satmode = #pto.sat_mode<ON>} : !pto.tile<16x32xf16> -> !pto.tile<16x32xi8>
  %i = pto.cast %y : !pto.tile<16x32xf32> -> !pto.tile<16x32xi32>
  pto.assemble %w, %o1 [%c0, %c0] : !pto.tile<16x32xi8>, !pto.tensor<16x32xi8>
  pto.assemble %s, %o2 [%c0, %c0] : !pto.tile<16x32xi8>, !pto.tensor<16x32xi8>
  pto.assemble %i, %o3 [%c0, %c0] : !pto.tile<16x32xi32>, !pto.tensor<16x32xi32>
  return
}

// -----

// full: texpands of the constant over the whole tile.
// CHECK-LABEL: func.func private @full(
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG:     %[[CST:.*]] = arith.constant 2.500000e-01 : f32
// CHECK:         %[[T:.*]] = pto_isa.alloc_tile valid [%[[C16]], %[[C16]]] : !pto_isa.tile<ub, 16x16xf32>
// CHECK-NEXT:    pto_isa.texpands %[[CST]] into %[[T]] : f32, !pto_isa.tile<ub, 16x16xf32>
func.func private @full(%out: !pto.tensor<16x16xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %t = pto.full 2.500000e-01 : !pto.tile<16x16xf32>
  pto.assemble %t, %out [%c0, %c0] : !pto.tile<16x16xf32>, !pto.tensor<16x16xf32>
  return
}

// -----

// A rank-3 transpose that swaps its only two non-unit dims: a 2-D ttrans of
// the held [32, 8] and [8, 32] forms.
// CHECK-LABEL: func.func private @swap_two_non_unit(
// CHECK:         pto_isa.ttrans %{{.*}}, %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 32x8xf32>, !pto_isa.tile<ub, 8x32xf32>, !pto_isa.tile<ub, 8x32xf32>
func.func private @swap_two_non_unit(%x: !pto.tensor<1x32x8xf32>, %y: !pto.tensor<1x8x32xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %t = pto.view %x[%c0, %c0, %c0] : !pto.tensor<1x32x8xf32> -> !pto.tile<1x32x8xf32>
  %u = pto.transpose %t, 1, 2 : !pto.tile<1x32x8xf32> -> !pto.tile<1x8x32xf32>
  pto.assemble %u, %y[%c0, %c0, %c0] : !pto.tile<1x8x32xf32>, !pto.tensor<1x8x32xf32>
  return
}

// -----

// pto.arange of i32, step 1: TCI into a one-row ub tile.
// CHECK-LABEL: func.func private @arange(
// CHECK:         %[[T:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] : !pto_isa.tile<ub, 1x64xi32>
// CHECK-NEXT:    pto_isa.tci %[[T]] start = 5 : !pto_isa.tile<ub, 1x64xi32>
func.func private @arange(%out: !pto.tensor<64xi32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %t = pto.arange 5.0, 1.0 : !pto.tile<64xi32>
  pto.assemble %t, %out [%c0] : !pto.tile<64xi32>, !pto.tensor<64xi32>
  return
}

// -----

// Another step: TCI from 0 times step (TMULS); an f32 sequence converts
// the counts first (TCVT) and adds start (TADDS), the last into the result.
// CHECK-LABEL: func.func private @arange_f32(
// CHECK-DAG:     %[[START:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[STEP:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:         %[[R:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] : !pto_isa.tile<ub, 1x8xf32>
// CHECK-NEXT:    %[[I:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] : !pto_isa.tile<ub, 1x8xi32>
// CHECK-NEXT:    pto_isa.tci %[[I]] start = 0 : !pto_isa.tile<ub, 1x8xi32>
// CHECK-NEXT:    %[[F:.*]] = pto_isa.alloc_tile
// CHECK-NEXT:    pto_isa.tcvt %[[I]] into %[[F]] mode <NONE>
// CHECK-NEXT:    %[[S:.*]] = pto_isa.alloc_tile
// CHECK-NEXT:    pto_isa.tmuls %[[F]], %[[STEP]] into %[[S]]
// CHECK-NEXT:    pto_isa.tadds %[[S]], %[[START]] into %[[R]]
func.func private @arange_f32(%out: !pto.tensor<8xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %t = pto.arange 1.0, 0.5 : !pto.tile<8xf32>
  pto.assemble %t, %out [%c0] : !pto.tile<8xf32>, !pto.tensor<8xf32>
  return
}

// -----

// CHECK-LABEL: func.func private @arange_i32_step(
// CHECK:         %[[R:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] : !pto_isa.tile<ub, 1x8xi32>
// CHECK-NEXT:    %[[I:.*]] = pto_isa.alloc_tile
// CHECK-NEXT:    pto_isa.tci %[[I]] start = 0
// CHECK-NEXT:    pto_isa.tmuls %[[I]], %{{.*}} into %[[R]] : !pto_isa.tile<ub, 1x8xi32>, i32
// CHECK-NOT:     pto_isa.tadds
func.func private @arange_i32_step(%out: !pto.tensor<8xi32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %t = pto.arange 0.0, -3.0 : !pto.tile<8xi32>
  pto.assemble %t, %out [%c0] : !pto.tile<8xi32>, !pto.tensor<8xi32>
  return
}

// -----

// A cube leaf: operands GM -> L1 (nz) -> L0A/L0B, tmatmul into an l0c
// accumulator, tstore from l0c (the fixpipe writes f32 here). Capacities are
// whole 16 x 16 fractals; valid extents those of the views / the product.
// CHECK-LABEL: func.func private @cube_leaf(
// CHECK-SAME:    %[[Q:[^:]*]]: !pto.tensor<?x128xbf16>, %[[K:[^:]*]]: !pto.tensor<128x40xbf16>, %[[WS:[^:]*]]: !pto.tensor<96x112xf32>, %[[R:[^:]*]]: index, %[[V:[^:]*]]: index)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C40:.*]] = arith.constant 40 : index
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK:         %[[A1:.*]] = pto_isa.alloc_tile valid [%[[VR:[^,]*]], %[[C64]]] : !pto_isa.tile<l1, 48x64xbf16>
// CHECK-NEXT:    pto_isa.tload %[[Q]][%[[R]], %[[C0]]] into %[[A1]] : !pto.tensor<?x128xbf16>, !pto_isa.tile<l1, 48x64xbf16>
// CHECK-NEXT:    %[[A0:.*]] = pto_isa.alloc_tile valid [%[[VR]], %[[C64]]] : !pto_isa.tile<l0a, 48x64xbf16>
// CHECK-NEXT:    pto_isa.textract %[[A1]] into %[[A0]] : !pto_isa.tile<l1, 48x64xbf16>, !pto_isa.tile<l0a, 48x64xbf16>
// CHECK-NEXT:    %[[B1:.*]] = pto_isa.alloc_tile valid [%[[C64]], %[[C40]]] : !pto_isa.tile<l1, 64x48xbf16>
// CHECK-NEXT:    pto_isa.tload %[[K]][%[[C0]], %[[C0]]] into %[[B1]] : !pto.tensor<128x40xbf16>, !pto_isa.tile<l1, 64x48xbf16>
// CHECK-NEXT:    %[[B0:.*]] = pto_isa.alloc_tile valid [%[[C64]], %[[C40]]] : !pto_isa.tile<l0b, 64x48xbf16>
// CHECK-NEXT:    pto_isa.textract %[[B1]] into %[[B0]]
// CHECK-NEXT:    %[[ACC:.*]] = pto_isa.alloc_tile valid [%[[VR]], %[[C40]]] : !pto_isa.tile<l0c, 48x48xf32>
// CHECK-NEXT:    pto_isa.tmatmul %[[A0]], %[[B0]] into %[[ACC]] : !pto_isa.tile<l0a, 48x64xbf16>, !pto_isa.tile<l0b, 64x48xbf16>, !pto_isa.tile<l0c, 48x48xf32>
// CHECK-NEXT:    pto_isa.tstore %[[ACC]] into %[[WS]][%[[R]], %[[C0]]] : !pto_isa.tile<l0c, 48x48xf32>, !pto.tensor<96x112xf32>
// CHECK-NOT:     pto.
// CHECK:         return
func.func private @cube_leaf(%q: !pto.tensor<?x128xbf16>, %k: !pto.tensor<128x40xbf16>,
                             %ws: !pto.tensor<96x112xf32>, %r: index, %v: index)
    attributes {pto.leaf = #pto.core<cube>, pto.family = "C1"} {
  %c0 = arith.constant 0 : index
  %a = pto.view %q[%r, %c0] valid [%v, 64] : !pto.tensor<?x128xbf16> -> !pto.tile<48x64xbf16>
  %b = pto.view %k[%c0, %c0] : !pto.tensor<128x40xbf16> -> !pto.tile<64x40xbf16>
  %s = pto.matmul %a, %b {cube_tile = #pto.cube_tile<m = [48, 48], k = [64, 64], n = [48, 48]>} : !pto.tile<48x64xbf16>, !pto.tile<64x40xbf16> -> !pto.tile<48x40xf32>
  pto.assemble %s, %ws [%r, %c0] : !pto.tile<48x40xf32>, !pto.tensor<96x112xf32>
  return
}

// -----

// Transposed operands: S = Q K^T (b_trans) loads the stored [s2, D] block
// of K with a transposing DN -> ZN load into a zn L1 tile holding K^T
// ([D, s2], valid extents swapped); dV = P^T dO (a_trans) does the same for
// the left operand.
// CHECK-LABEL: func.func private @transposed(
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK:         %[[KT:.*]] = pto_isa.alloc_tile valid [%[[C64]], %[[KV:[0-9a-z_]+]]] : !pto_isa.tile<l1, 64x32xbf16, zn>
// CHECK-NEXT:    pto_isa.tload %{{.*}} into %[[KT]] transpose : !pto.tensor<?x64xbf16>, !pto_isa.tile<l1, 64x32xbf16, zn>
// CHECK-NEXT:    %[[KB:.*]] = pto_isa.alloc_tile valid [%[[C64]], %[[KV]]] : !pto_isa.tile<l0b, 64x32xbf16>
// CHECK-NEXT:    pto_isa.textract %[[KT]] into %[[KB]] : !pto_isa.tile<l1, 64x32xbf16, zn>, !pto_isa.tile<l0b, 64x32xbf16>
// CHECK:         pto_isa.tmatmul
// CHECK:         %[[PT:.*]] = pto_isa.alloc_tile valid [%[[PC:[^,]*]], %[[PR:[0-9a-z_]+]]] : !pto_isa.tile<l1, 32x16xbf16, zn>
// CHECK-NEXT:    pto_isa.tload %{{.*}} into %[[PT]] transpose : !pto.tensor<16x32xbf16>, !pto_isa.tile<l1, 32x16xbf16, zn>
// CHECK-NEXT:    %[[PA:.*]] = pto_isa.alloc_tile valid [%[[PC]], %[[PR]]] : !pto_isa.tile<l0a, 32x16xbf16>
// CHECK-NEXT:    pto_isa.textract %[[PT]] into %[[PA]] : !pto_isa.tile<l1, 32x16xbf16, zn>, !pto_isa.tile<l0a, 32x16xbf16>
// CHECK:         pto_isa.tmatmul %[[PA]], %{{.*}} into %{{.*}} : !pto_isa.tile<l0a, 32x16xbf16>, !pto_isa.tile<l0b, 16x64xbf16>, !pto_isa.tile<l0c, 32x64xf32>
func.func private @transposed(%q: !pto.tensor<?x64xbf16>, %k: !pto.tensor<?x64xbf16>,
                              %p: !pto.tensor<16x32xbf16>, %ws: !pto.tensor<16x32xf32>,
                              %dv: !pto.tensor<32x64xf32>, %r: index, %v: index, %w: index)
    attributes {pto.leaf = #pto.core<cube>, pto.family = "C1"} {
  %c0 = arith.constant 0 : index
  %qi = pto.view %q[%r, %c0] valid [%v, 64] : !pto.tensor<?x64xbf16> -> !pto.tile<16x64xbf16>
  %kj = pto.view %k[%r, %c0] valid [%w, 64] : !pto.tensor<?x64xbf16> -> !pto.tile<32x64xbf16>
  %s = pto.matmul %qi, %kj {b_trans, cube_tile = #pto.cube_tile<m = [16, 16], k = [64, 64], n = [32, 32]>} : !pto.tile<16x64xbf16>, !pto.tile<32x64xbf16> -> !pto.tile<16x32xf32>
  pto.assemble %s, %ws [%c0, %c0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
  %pi = pto.view %p[%c0, %c0] valid [%v, %w] : !pto.tensor<16x32xbf16> -> !pto.tile<16x32xbf16>
  %dvt = pto.matmul %pi, %qi {a_trans, cube_tile = #pto.cube_tile<m = [32, 32], k = [16, 16], n = [64, 64]>} : !pto.tile<16x32xbf16>, !pto.tile<16x64xbf16> -> !pto.tile<32x64xf32>
  pto.assemble %dvt, %dv [%c0, %c0] : !pto.tile<32x64xf32>, !pto.tensor<32x64xf32>
  return
}

// -----

// int8 x int8 -> int32 with 16 rows: pto-isa's A2/A3 left tile is 16-row
// fractals of 32 bytes, so the A operand rounds M to 16 and only K to the
// 32-element int8 block; its capacity chains with the 16-row accumulator.
// CHECK-LABEL: func.func private @int8_16_rows(
// CHECK:         %[[A1:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<l1, 16x64xi8>
// CHECK-NEXT:    pto_isa.tload %{{.*}} into %[[A1]]
// CHECK-NEXT:    %[[A0:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<l0a, 16x64xi8>
// CHECK:         pto_isa.tmatmul %[[A0]], %{{.*}} into %{{.*}} : !pto_isa.tile<l0a, 16x64xi8>, !pto_isa.tile<l0b, 64x32xi8>, !pto_isa.tile<l0c, 16x32xi32>
func.func private @int8_16_rows(%a: !pto.tensor<16x64xi8>, %b: !pto.tensor<64x32xi8>,
                                %out: !pto.tensor<16x32xi32>)
    attributes {pto.leaf = #pto.core<cube>, pto.family = "C1"} {
  %c0 = arith.constant 0 : index
  %x = pto.view %a[%c0, %c0] : !pto.tensor<16x64xi8> -> !pto.tile<16x64xi8>
  %w = pto.view %b[%c0, %c0] : !pto.tensor<64x32xi8> -> !pto.tile<64x32xi8>
  %s = pto.matmul %x, %w {cube_tile = #pto.cube_tile<m = [16, 16], k = [64, 64], n = [32, 32]>} : !pto.tile<16x64xi8>, !pto.tile<64x32xi8> -> !pto.tile<16x32xi32>
  pto.assemble %s, %out [%c0, %c0] : !pto.tile<16x32xi32>, !pto.tensor<16x32xi32>
  return
}

// -----

// A K chain: tmatmul then tmatmul_acc into the same accumulator; the left
// operand window read by two steps (after L1 reuse) is loaded and extracted
// once.
// CHECK-LABEL: func.func private @k_chain(
// CHECK:         %[[A1:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<l1, 32x32xf32>
// CHECK-NEXT:    pto_isa.tload %{{.*}} into %[[A1]] : !pto.tensor<32x64xf32>
// CHECK-NEXT:    %[[A0:.*]] = pto_isa.alloc_tile
// CHECK-NEXT:    pto_isa.textract %[[A1]] into %[[A0]]
// CHECK:         %[[ACC:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<l0c, 32x32xf32>
// CHECK-NEXT:    pto_isa.tmatmul %[[A0]], %{{.*}} into %[[ACC]]
// CHECK:         pto_isa.tmatmul_acc %{{.*}}, %{{.*}} into %[[ACC]]
// CHECK-NEXT:    pto_isa.tmatmul_acc %[[A0]], %{{.*}} into %[[ACC]]
// CHECK-NEXT:    pto_isa.tstore %[[ACC]] into
func.func private @k_chain(%a: !pto.tensor<32x64xf32>, %b: !pto.tensor<64x32xf32>,
                           %ws: !pto.tensor<32x32xf32>)
    attributes {pto.leaf = #pto.core<cube>, pto.family = "C1"} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %a0 = pto.view %a[%c0, %c0] : !pto.tensor<32x64xf32> -> !pto.tile<32x32xf32>
  %b0 = pto.view %b[%c0, %c0] : !pto.tensor<64x32xf32> -> !pto.tile<32x32xf32>
  %s0 = pto.matmul %a0, %b0 {cube_tile = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>} : !pto.tile<32x32xf32>, !pto.tile<32x32xf32> -> !pto.tile<32x32xf32>
  %a1 = pto.view %a[%c0, %c32] : !pto.tensor<32x64xf32> -> !pto.tile<32x32xf32>
  %b1 = pto.view %b[%c32, %c0] : !pto.tensor<64x32xf32> -> !pto.tile<32x32xf32>
  %s1 = pto.matmul_acc %s0, %a1, %b1 {cube_tile = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>} : !pto.tile<32x32xf32>, !pto.tile<32x32xf32>, !pto.tile<32x32xf32> -> !pto.tile<32x32xf32>
  %a0r = pto.view %a[%c0, %c0] : !pto.tensor<32x64xf32> -> !pto.tile<32x32xf32>
  %s2 = pto.matmul_acc %s1, %a0r, %b1 {cube_tile = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>} : !pto.tile<32x32xf32>, !pto.tile<32x32xf32>, !pto.tile<32x32xf32> -> !pto.tile<32x32xf32>
  pto.assemble %s2, %ws [%c0, %c0] : !pto.tile<32x32xf32>, !pto.tensor<32x32xf32>
  return
}

// -----

// A matmul result of the leaf feeding later matmuls (chunked_gdr's
// v_prime = k_cumdecay @ state^T): the fixpipe moves it once from L0C to an
// nz L1 image (TMOV Acc -> Mat, f32 -> bf16 here), extracted into L0A as a
// loaded operand is; both later matmuls share it.
// CHECK-LABEL: func.func private @chained_matmul(
// CHECK:         %[[ACC:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<l0c, 16x16xf32>
// CHECK-NEXT:    pto_isa.tmatmul %{{.*}}, %{{.*}} into %[[ACC]]
// CHECK:         %[[IMG:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<l1, 16x16xbf16>
// CHECK-NEXT:    pto_isa.tmov %[[ACC]] into %[[IMG]] : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<l1, 16x16xbf16>
// CHECK-NEXT:    %[[L:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<l0a, 16x16xbf16>
// CHECK-NEXT:    pto_isa.textract %[[IMG]] into %[[L]]
// CHECK:         pto_isa.tmatmul %[[L]], %{{.*}} into
// CHECK-NOT:     pto_isa.tmov
// CHECK:         pto_isa.tmatmul %[[L]], %{{.*}} into
func.func private @chained_matmul(%a: !pto.tensor<16x16xbf16>, %out: !pto.tensor<16x32xf32>)
    attributes {pto.leaf = #pto.core<cube>} {
  %x = pto.view %a[0, 0] : !pto.tensor<16x16xbf16> -> !pto.tile<16x16xbf16>
  %s = pto.matmul %x, %x {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>} : !pto.tile<16x16xbf16>, !pto.tile<16x16xbf16> -> !pto.tile<16x16xbf16>
  %t = pto.matmul %s, %x {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>} : !pto.tile<16x16xbf16>, !pto.tile<16x16xbf16> -> !pto.tile<16x16xf32>
  pto.assemble %t, %out [0, 0] : !pto.tile<16x16xf32>, !pto.tensor<16x32xf32>
  %u = pto.matmul %s, %x {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>} : !pto.tile<16x16xbf16>, !pto.tile<16x16xbf16> -> !pto.tile<16x16xf32>
  pto.assemble %u, %out [0, 16] : !pto.tile<16x16xf32>, !pto.tensor<16x32xf32>
  return
}

// -----

// Atomic stores: tstore ... atomic_add from ub and from l0c; a plain
// assemble stays a plain tstore.
// CHECK-LABEL: func.func private @atomic_vector(
// CHECK:         pto_isa.tstore %{{.*}} into %{{.*}} atomic_add : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<?x64xf32>
// CHECK-NEXT:    pto_isa.tstore %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 16x64xf32>, !pto.tensor<16x64xf32>
func.func private @atomic_vector(%ws: !pto.tensor<16x64xf32>, %dq: !pto.tensor<?x64xf32>,
                                 %out: !pto.tensor<16x64xf32>, %r: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V2"} {
  %c0 = arith.constant 0 : index
  %x = pto.view %ws[%c0, %c0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  pto.atomic_add %x, %dq [%r, %c0] : !pto.tile<16x64xf32>, !pto.tensor<?x64xf32>
  pto.assemble %x, %out [%c0, %c0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
  return
}
// CHECK-LABEL: func.func private @atomic_cube(
// CHECK:         pto_isa.tmatmul
// CHECK-NEXT:    pto_isa.tstore %{{.*}} into %{{.*}} atomic_add : !pto_isa.tile<l0c, 16x16xf32>, !pto.tensor<?x16xf32>
func.func private @atomic_cube(%a: !pto.tensor<16x16xbf16>, %dq: !pto.tensor<?x16xf32>, %r: index)
    attributes {pto.leaf = #pto.core<cube>, pto.family = "C2"} {
  %c0 = arith.constant 0 : index
  %x = pto.view %a[%c0, %c0] : !pto.tensor<16x16xbf16> -> !pto.tile<16x16xbf16>
  %s = pto.matmul %x, %x {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>} : !pto.tile<16x16xbf16>, !pto.tile<16x16xbf16> -> !pto.tile<16x16xf32>
  pto.atomic_add %s, %dq [%r, %c0] : !pto.tile<16x16xf32>, !pto.tensor<?x16xf32>
  return
}

// -----

// An SK-16-like V1 leaf: P = exp(S * scale - m) / l, dS = P * (dP - Dvec),
// both rounded to bf16. m and l are strided GM columns; Dvec is a workspace
// column. Each per-row operand is expanded to a mode-2 block once.
// CHECK-LABEL: func.func private @sk16_like_v1(
// CHECK:         pto_isa.tload {{.*}} : !pto.tensor<96x112xf32>, !pto_isa.tile<ub, 32x112xf32>
// CHECK:         pto_isa.tload {{.*}} : !pto.tensor<?x2xf32>, !pto_isa.tile<ub, 32x8xf32>
// CHECK:         pto_isa.tmuls
// CHECK:         pto_isa.trowexpand %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 32x8xf32>, !pto_isa.tile<ub, 32x8xf32>
// CHECK:         pto_isa.trowexpand_sub
// CHECK:         pto_isa.texp
// CHECK:         pto_isa.trowexpand %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 32x8xf32>, !pto_isa.tile<ub, 32x8xf32>
// CHECK:         pto_isa.trowexpand_div
// CHECK:         pto_isa.trowexpand %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 32x8xf32>, !pto_isa.tile<ub, 32x8xf32>
// CHECK:         pto_isa.trowexpand_sub
// CHECK:         pto_isa.tmul
// CHECK:         pto_isa.tcvt %{{.*}} into %{{.*}} mode <RINT> {satmode = #pto.sat_mode<OFF>} : !pto_isa.tile<ub, 32x112xf32>, !pto_isa.tile<ub, 32x112xbf16>
// CHECK:         pto_isa.tstore %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 32x112xbf16>, !pto.tensor<96x112xbf16>
// CHECK:         pto_isa.tcvt
// CHECK:         pto_isa.tstore
// CHECK-NOT:     pto.{{[a-z_]+}} %
// CHECK:         return
func.func private @sk16_like_v1(%ws_s: !pto.tensor<96x112xf32>, %ws_dp: !pto.tensor<96x112xf32>,
                                %m: !pto.tensor<?x2xf32>, %l: !pto.tensor<?x2xf32>,
                                %ws_d: !pto.tensor<96x1xf32>,
                                %ws_p: !pto.tensor<96x112xbf16>, %ws_ds: !pto.tensor<96x112xbf16>,
                                %s1: index, %a_s1: index, %a_s2: index, %n: index, %o0: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %scale = arith.constant 1.250000e-01 : f32
  %s = pto.view %ws_s[%o0, %c0] valid [%a_s1, %a_s2] : !pto.tensor<96x112xf32> -> !pto.tile<32x112xf32>
  %mi = pto.view %m[%s1, %n] valid [%a_s1, 1] : !pto.tensor<?x2xf32> -> !pto.tile<32x1xf32>
  %ss = pto.mul %s, %scale : !pto.tile<32x112xf32>, f32 -> !pto.tile<32x112xf32>
  %x = pto.sub %ss, %mi : !pto.tile<32x112xf32>, !pto.tile<32x1xf32> -> !pto.tile<32x112xf32>
  %e = pto.exp %x {precision = #pto.precision<INTRINSIC>} : !pto.tile<32x112xf32> -> !pto.tile<32x112xf32>
  %li = pto.view %l[%s1, %n] valid [%a_s1, 1] : !pto.tensor<?x2xf32> -> !pto.tile<32x1xf32>
  %p = pto.div %e, %li {precision = #pto.precision<INTRINSIC>} : !pto.tile<32x112xf32>, !pto.tile<32x1xf32> -> !pto.tile<32x112xf32>
  %dp = pto.view %ws_dp[%o0, %c0] valid [%a_s1, %a_s2] : !pto.tensor<96x112xf32> -> !pto.tile<32x112xf32>
  %d = pto.view %ws_d[%o0, %c0] valid [%a_s1, 1] : !pto.tensor<96x1xf32> -> !pto.tile<32x1xf32>
  %y = pto.sub %dp, %d : !pto.tile<32x112xf32>, !pto.tile<32x1xf32> -> !pto.tile<32x112xf32>
  %ds = pto.mul %p, %y : !pto.tile<32x112xf32>, !pto.tile<32x112xf32> -> !pto.tile<32x112xf32>
  %ds_b = pto.cast %ds {mode = #pto.round_mode<RINT>} : !pto.tile<32x112xf32> -> !pto.tile<32x112xbf16>
  pto.assemble %ds_b, %ws_ds [%o0, %c0] : !pto.tile<32x112xbf16>, !pto.tensor<96x112xbf16>
  %p_b = pto.cast %p {mode = #pto.round_mode<RINT>} : !pto.tile<32x112xf32> -> !pto.tile<32x112xbf16>
  pto.assemble %p_b, %ws_p [%o0, %c0] : !pto.tile<32x112xbf16>, !pto.tensor<96x112xbf16>
  return
}

// -----

// A window is loaded once until something writes its tensor: the view after
// the store reads GM again.
// CHECK-LABEL: func.func private @reload_after_store(
// CHECK:         pto_isa.tload
// CHECK-NOT:     pto_isa.tload
// CHECK:         pto_isa.tstore
// CHECK-NEXT:    %[[T:.*]] = pto_isa.alloc_tile
// CHECK-NEXT:    pto_isa.tload %{{.*}} into %[[T]]
func.func private @reload_after_store(%ws: !pto.tensor<16x64xf32>, %out: !pto.tensor<16x64xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %x = pto.view %ws[%c0, %c0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %x2 = pto.view %ws[%c0, %c0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %y = pto.add %x, %x2 : !pto.tile<16x64xf32>, !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  pto.assemble %y, %ws [%c0, %c0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
  %z = pto.view %ws[%c0, %c0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  pto.assemble %z, %out [%c0, %c0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
  return
}

// -----

// L0 copies of an L1 image are kept for later matmuls while the kept copies
// fit the space (L0B: 64 KiB). Three 32 KiB B blocks do not: the third drops
// the first two, so the second row piece extracts B0 again (4 textracts into
// L0B, not 3) and pto-isa-plan-memory fits L0B (a second RUN).
// RUN: pto-opt %s --pto-lower-to-isa --pto-isa-plan-memory -split-input-file -o /dev/null
// CHECK-LABEL: func.func private @l0_copies_within_capacity(
// CHECK-COUNT-4: pto_isa.textract %{{.*}} : !pto_isa.tile<l1, 256x64xbf16>, !pto_isa.tile<l0b, 256x64xbf16>
// CHECK-NOT:     pto_isa.textract {{.*}}l0b
// CHECK:         return
func.func private @l0_copies_within_capacity(%a: !pto.tensor<32x256xbf16>, %b: !pto.tensor<256x192xbf16>,
                                             %c: !pto.tensor<32x192xf32>)
    attributes {pto.leaf = #pto.core<cube>, pto.family = "C1", arch = #pto.arch<DAV_2201>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %a0 = pto.view %a[%c0, %c0] : !pto.tensor<32x256xbf16> -> !pto.tile<16x256xbf16>
  %a1 = pto.view %a[%c16, %c0] : !pto.tensor<32x256xbf16> -> !pto.tile<16x256xbf16>
  %b0 = pto.view %b[%c0, %c0] : !pto.tensor<256x192xbf16> -> !pto.tile<256x64xbf16>
  %b1 = pto.view %b[%c0, %c64] : !pto.tensor<256x192xbf16> -> !pto.tile<256x64xbf16>
  %b2 = pto.view %b[%c0, %c128] : !pto.tensor<256x192xbf16> -> !pto.tile<256x64xbf16>
  %s0 = pto.matmul %a0, %b0 {cube_tile = #pto.cube_tile<m = [16, 16], k = [256, 256], n = [64, 64]>} : !pto.tile<16x256xbf16>, !pto.tile<256x64xbf16> -> !pto.tile<16x64xf32>
  pto.assemble %s0, %c [%c0, %c0] : !pto.tile<16x64xf32>, !pto.tensor<32x192xf32>
  %s1 = pto.matmul %a0, %b1 {cube_tile = #pto.cube_tile<m = [16, 16], k = [256, 256], n = [64, 64]>} : !pto.tile<16x256xbf16>, !pto.tile<256x64xbf16> -> !pto.tile<16x64xf32>
  pto.assemble %s1, %c [%c0, %c64] : !pto.tile<16x64xf32>, !pto.tensor<32x192xf32>
  %s2 = pto.matmul %a0, %b2 {cube_tile = #pto.cube_tile<m = [16, 16], k = [256, 256], n = [64, 64]>} : !pto.tile<16x256xbf16>, !pto.tile<256x64xbf16> -> !pto.tile<16x64xf32>
  pto.assemble %s2, %c [%c0, %c128] : !pto.tile<16x64xf32>, !pto.tensor<32x192xf32>
  %s3 = pto.matmul %a1, %b0 {cube_tile = #pto.cube_tile<m = [16, 16], k = [256, 256], n = [64, 64]>} : !pto.tile<16x256xbf16>, !pto.tile<256x64xbf16> -> !pto.tile<16x64xf32>
  pto.assemble %s3, %c [%c16, %c0] : !pto.tile<16x64xf32>, !pto.tensor<32x192xf32>
  return
}

// -----

// A transpose: the destination (and TTRANS's scratch, shaped like it) holds
// the source's columns as rows, with the valid extents exchanged.
// CHECK-LABEL: func.func private @transpose_leaf(
// CHECK:         %[[X:.*]] = pto_isa.alloc_tile valid [%[[VR:.*]], %[[VC:.*]]] : !pto_isa.tile<ub, 16x48xf32>
// CHECK:         pto_isa.tload
// CHECK:         %[[T:.*]] = pto_isa.alloc_tile valid [%[[VC]], %[[VR]]] : !pto_isa.tile<ub, 48x16xf32>
// CHECK-NEXT:    %[[D:.*]] = pto_isa.alloc_tile valid [%[[VC]], %[[VR]]] : !pto_isa.tile<ub, 48x16xf32>
// CHECK-NEXT:    pto_isa.ttrans %[[X]], %[[T]] into %[[D]] : !pto_isa.tile<ub, 16x48xf32>, !pto_isa.tile<ub, 48x16xf32>, !pto_isa.tile<ub, 48x16xf32>
// CHECK:         pto_isa.tstore %[[D]]
func.func private @transpose_leaf(%x: !pto.tensor<?x48xf32>, %y: !pto.tensor<48x?xf32>, %r: index, %v: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %t = pto.view %x[%r, %c0] valid [%v, 40] : !pto.tensor<?x48xf32> -> !pto.tile<16x48xf32>
  %u = pto.transpose %t, 0, 1 : !pto.tile<16x48xf32> -> !pto.tile<48x16xf32>
  pto.assemble %u, %y[%c0, %r] : !pto.tile<48x16xf32>, !pto.tensor<48x?xf32>
  return
}

// -----

// A gathermask: the destination holds the selected columns (a whole number
// of 32-byte blocks, so its rows are packed as TGATHER writes them), with the
// source's valid rows.
// CHECK-LABEL: func.func private @gathermask_leaf(
// CHECK:         %[[X:.*]] = pto_isa.alloc_tile valid [%[[VR:.*]], %{{.*}}] : !pto_isa.tile<ub, 16x64xbf16>
// CHECK:         pto_isa.tload
// CHECK:         %[[D:.*]] = pto_isa.alloc_tile valid [%[[VR]], %[[C32:.*]]] : !pto_isa.tile<ub, 16x32xbf16>
// CHECK-NEXT:    pto_isa.tgather_mask %[[X]] into %[[D]] pattern = 2 : !pto_isa.tile<ub, 16x64xbf16>, !pto_isa.tile<ub, 16x32xbf16>
// CHECK:         pto_isa.tstore %[[D]]
func.func private @gathermask_leaf(%x: !pto.tensor<?x64xbf16>, %y: !pto.tensor<?x32xbf16>, %r: index, %v: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %t = pto.view %x[%r, %c0] valid [%v, 64] : !pto.tensor<?x64xbf16> -> !pto.tile<16x64xbf16>
  %u = pto.gathermask %t, pattern = 2 : !pto.tile<16x64xbf16> -> !pto.tile<16x32xbf16>
  pto.assemble %u, %y[%r, %c0] : !pto.tile<16x32xbf16>, !pto.tensor<?x32xbf16>
  return
}

// -----

// Column broadcasts. A [1, C] right operand (a gamma row) feeds
// tcolexpand_<op> directly; a [1, C] left operand of a commutative op is
// swapped into that slot; a [1, C] left operand of sub is expanded to the
// full shape (tcolexpand) and the plain instruction keeps the order.
// CHECK-LABEL: func.func private @column_broadcast(
// CHECK:         %[[X:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x64xf32>
// CHECK:         %[[G:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 1x64xf32>
// CHECK:         %[[Y:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x64xf32>
// CHECK-NEXT:    pto_isa.tcolexpand_mul %[[X]], %[[G]] into %[[Y]] : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 16x64xf32>
// CHECK-NEXT:    %[[Z:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x64xf32>
// CHECK-NEXT:    pto_isa.tcolexpand_add %[[Y]], %[[G]] into %[[Z]]
// CHECK-NEXT:    %[[GE:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x64xf32>
// CHECK-NEXT:    pto_isa.tcolexpand %[[G]] into %[[GE]] : !pto_isa.tile<ub, 1x64xf32>, !pto_isa.tile<ub, 16x64xf32>
// CHECK-NEXT:    %[[W:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x64xf32>
// CHECK-NEXT:    pto_isa.tsub %[[GE]], %[[Z]] into %[[W]]
// A [1, 1] operand: row 0 down the rows, then along each row.
// CHECK:         %[[S:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 1x8xf32>
// CHECK:         %[[SC:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %[[C1:.*]]] : !pto_isa.tile<ub, 16x8xf32>
// CHECK-NEXT:    pto_isa.tcolexpand %[[S]] into %[[SC]]
// CHECK-NEXT:    %[[SF:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x64xf32>
// CHECK-NEXT:    pto_isa.trowexpand %[[SC]] into %[[SF]]
// CHECK-NEXT:    %[[M:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x64xf32>
// CHECK-NEXT:    pto_isa.tmax %[[W]], %[[SF]] into %[[M]]
func.func private @column_broadcast(%a: !pto.tensor<16x64xf32>, %b: !pto.tensor<1x64xf32>,
                                    %out: !pto.tensor<16x64xf32>)
    attributes {pto.leaf = #pto.core<vector>} {
  %c0 = arith.constant 0 : index
  %x = pto.view %a[%c0, %c0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %g = pto.view %b[%c0, %c0] : !pto.tensor<1x64xf32> -> !pto.tile<1x64xf32>
  %y = pto.mul %x, %g : !pto.tile<16x64xf32>, !pto.tile<1x64xf32> -> !pto.tile<16x64xf32>
  %z = pto.add %g, %y : !pto.tile<1x64xf32>, !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  %w = pto.sub %g, %z : !pto.tile<1x64xf32>, !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  %s = pto.view %b[%c0, %c0] : !pto.tensor<1x64xf32> -> !pto.tile<1x1xf32>
  %m = pto.max %w, %s : !pto.tile<16x64xf32>, !pto.tile<1x1xf32> -> !pto.tile<16x64xf32>
  pto.assemble %m, %out [%c0, %c0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
  return
}

// -----

// Column reductions (dim 0, keepdim): tcolsum / tcolmax into one row with
// the source's column capacity.
// CHECK-LABEL: func.func private @column_reduction(
// CHECK:         %[[X:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 64x16xf32>
// CHECK:         %[[S:.*]] = pto_isa.alloc_tile valid [%[[C1:.*]], %{{.*}}] : !pto_isa.tile<ub, 1x16xf32>
// CHECK-NEXT:    pto_isa.tcolsum %[[X]] into %[[S]] : !pto_isa.tile<ub, 64x16xf32>, !pto_isa.tile<ub, 1x16xf32>
// CHECK-NEXT:    %[[M:.*]] = pto_isa.alloc_tile valid [%[[C1]], %{{.*}}] : !pto_isa.tile<ub, 1x16xf32>
// CHECK-NEXT:    pto_isa.tcolmax %[[X]] into %[[M]] : !pto_isa.tile<ub, 64x16xf32>, !pto_isa.tile<ub, 1x16xf32>
func.func private @column_reduction(%a: !pto.tensor<2400x88xf32>, %out: !pto.tensor<2x88xf32>,
                                    %r: index, %c: index, %v: index)
    attributes {pto.leaf = #pto.core<vector>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = pto.view %a[%r, %c] valid [%v, 16] : !pto.tensor<2400x88xf32> -> !pto.tile<64x16xf32>
  %s = pto.sum %x dim = 0 keepdim : !pto.tile<64x16xf32> -> !pto.tile<1x16xf32>
  %m = pto.amax %x dim = 0 keepdim : !pto.tile<64x16xf32> -> !pto.tile<1x16xf32>
  pto.assemble %s, %out [%c0, %c] : !pto.tile<1x16xf32>, !pto.tensor<2x88xf32>
  pto.assemble %m, %out [%c1, %c] : !pto.tile<1x16xf32>, !pto.tensor<2x88xf32>
  return
}

// -----

// N-D tiles collapse to 2-D: the dims before the last non-unit one become
// rows, unit dims after it drop. The GM tensors are reshaped (in place) to
// the matching 2-D shape and the window offsets linearised; a transpose
// that only moves a unit dim keeps the element order and moves no data.
// CHECK-LABEL: func.func private @collapse_nd(
// CHECK-SAME:    %[[IN:[^:]*]]: !pto.tensor<2400x88x1xf32>, %[[OUT:[^:]*]]: !pto.tensor<2400x1x88xf32>, %[[S:[^:]*]]: !pto.tensor<1x88x1x1xf32>, %[[R:[^:]*]]: index, %[[C:[^:]*]]: index)
// CHECK-DAG:     %[[IN2:.*]] = pto.reshape %[[IN]] [2400, 88] inplace : !pto.tensor<2400x88x1xf32> -> !pto.tensor<2400x88xf32>
// CHECK-DAG:     %[[OUT2:.*]] = pto.reshape %[[OUT]] [2400, 88] inplace : !pto.tensor<2400x1x88xf32> -> !pto.tensor<2400x88xf32>
// CHECK-DAG:     %[[S2:.*]] = pto.reshape %[[S]] [1, 88] inplace : !pto.tensor<1x88x1x1xf32> -> !pto.tensor<1x88xf32>
// CHECK:         %[[X:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 64x16xf32>
// CHECK-NEXT:    pto_isa.tload %[[IN2]][%[[R]], %[[C]]] into %[[X]]
// CHECK:         pto_isa.tmul %[[X]], %[[X]] into %[[Y:[^ ]*]]
// CHECK-NOT:     pto_isa.ttrans
// CHECK:         pto_isa.tstore %[[Y]] into %[[OUT2]][%[[R]], %[[C]]]
// CHECK:         %[[V:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 1x64xf32>
// CHECK-NEXT:    pto_isa.tload %[[S2]][%{{.*}}, %[[C]]] into %[[V]]
// CHECK-NEXT:    pto_isa.tstore %[[V]] into %[[S2]]
// CHECK-NOT:     pto.view
func.func private @collapse_nd(%in: !pto.tensor<2400x88x1xf32>, %out: !pto.tensor<2400x1x88xf32>,
                               %sum: !pto.tensor<1x88x1x1xf32>, %r: index, %c: index)
    attributes {pto.leaf = #pto.core<vector>} {
  %c0 = arith.constant 0 : index
  %x = pto.view %in[%r, %c, %c0] valid [64, 16, 1] : !pto.tensor<2400x88x1xf32> -> !pto.tile<64x16x1xf32>
  %y = pto.mul %x, %x : !pto.tile<64x16x1xf32>, !pto.tile<64x16x1xf32> -> !pto.tile<64x16x1xf32>
  %t = pto.transpose %y, 1, 2 : !pto.tile<64x16x1xf32> -> !pto.tile<64x1x16xf32>
  pto.assemble %t, %out [%r, %c0, %c] : !pto.tile<64x1x16xf32>, !pto.tensor<2400x1x88xf32>
  %v = pto.view %sum[%c0, %c, %c0, %c0] valid [1, 64, 1, 1] : !pto.tensor<1x88x1x1xf32> -> !pto.tile<1x64x1x1xf32>
  pto.assemble %v, %sum [%c0, %c, %c0, %c0] : !pto.tile<1x64x1x1xf32>, !pto.tensor<1x88x1x1xf32>
  return
}

// -----

// An index_put: the rank-1 index tile is a [1, N] ub row (i32, 8 per 32-byte
// block), the source rows a ub tile; MSCATTER (row mode) writes the table
// from the op's row offset on, accumulating with atomic_add.
// CHECK-LABEL: func.func private @index_put_leaf(
// CHECK-SAME:    %[[OUT:[^:]*]]: !pto.tensor<?x16xf32>
// CHECK:         %[[V:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] : !pto_isa.tile<ub, 8x16xf32>
// CHECK:         pto_isa.tload
// CHECK:         %[[I:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] : !pto_isa.tile<ub, 1x8xi32>
// CHECK-NEXT:    pto_isa.tload %{{.*}} into %[[I]] : !pto.tensor<1x?xi32>, !pto_isa.tile<ub, 1x8xi32>
// CHECK-NEXT:    pto_isa.mscatter %[[V]] into %[[OUT]][%[[I]]] [%{{.*}}, %{{.*}}] atomic_add : !pto_isa.tile<ub, 8x16xf32>, !pto_isa.tile<ub, 1x8xi32>, !pto.tensor<?x16xf32>
func.func private @index_put_leaf(%out: !pto.tensor<?x16xf32>, %src: !pto.tensor<?x16xf32>, %idx: !pto.tensor<?xi32>, %r: index, %v: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %t = pto.view %src[%r, %c0] valid [%v, 16] : !pto.tensor<?x16xf32> -> !pto.tile<8x16xf32>
  %i = pto.view %idx[%r] valid [%v] : !pto.tensor<?xi32> -> !pto.tile<8xi32>
  pto.index_put %t, %out[%i] [0, 0] accumulate : !pto.tile<8x16xf32>, !pto.tile<8xi32>, !pto.tensor<?x16xf32>
  return
}

// -----

// Precision reaches pto_isa (pto-isa's ExpAlgorithm / DivAlgorithm template
// argument): a HIGH_PRECISION exp and div keep it, INTRINSIC (the default)
// prints none. A HIGH_PRECISION div by a [1, C] or [R, 1] operand expands
// that operand and uses tdiv (the fused tcolexpand_div / trowexpand_div take
// the default algorithm).
// CHECK-LABEL: func.func private @precision_kept(
// CHECK:         pto_isa.texp %{{.*}} into %{{.*}} {precision = #pto.precision<HIGH_PRECISION>}
// CHECK:         pto_isa.texp %{{.*}} into %{{.*}} :
// CHECK:         pto_isa.tdiv %{{.*}}, %{{.*}} into %{{.*}} {precision = #pto.precision<HIGH_PRECISION>}
// CHECK:         pto_isa.tdivs %{{.*}}, %{{.*}} into %{{.*}} {precision = #pto.precision<HIGH_PRECISION>}
// CHECK:         pto_isa.tcolexpand %{{.*}} into %[[COL:[^ ]*]]
// CHECK:         pto_isa.tdiv %{{.*}}, %[[COL]] into %{{.*}} {precision = #pto.precision<HIGH_PRECISION>}
// CHECK:         pto_isa.trowexpand %{{.*}} into %[[ROW:[^ ]*]]
// CHECK:         pto_isa.tdiv %{{.*}}, %[[ROW]] into %{{.*}} {precision = #pto.precision<HIGH_PRECISION>}
// CHECK-NOT:     tcolexpand_div
// CHECK-NOT:     trowexpand_div
// CHECK:         return
func.func private @precision_kept(%a: !pto.tensor<16x64xf32>, %c: !pto.tensor<1x64xf32>,
                                  %r: !pto.tensor<16x1xf32>, %out: !pto.tensor<16x64xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1", arch = #pto.arch<DAV_3510>} {
  %x = pto.view %a[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %tc = pto.view %c[0, 0] : !pto.tensor<1x64xf32> -> !pto.tile<1x64xf32>
  %tr = pto.view %r[0, 0] : !pto.tensor<16x1xf32> -> !pto.tile<16x1xf32>
  %e = pto.exp %x {precision = #pto.precision<HIGH_PRECISION>} : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  %f = pto.exp %e : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  %d = pto.div %f, %e {precision = #pto.precision<HIGH_PRECISION>} : !pto.tile<16x64xf32>, !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  %two = arith.constant 2.000000e+00 : f32
  %s = pto.div %d, %two {precision = #pto.precision<HIGH_PRECISION>} : !pto.tile<16x64xf32>, f32 -> !pto.tile<16x64xf32>
  %dc = pto.div %s, %tc {precision = #pto.precision<HIGH_PRECISION>} : !pto.tile<16x64xf32>, !pto.tile<1x64xf32> -> !pto.tile<16x64xf32>
  %dr = pto.div %dc, %tr {precision = #pto.precision<HIGH_PRECISION>} : !pto.tile<16x64xf32>, !pto.tile<16x1xf32> -> !pto.tile<16x64xf32>
  pto.assemble %dr, %out [0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
  return
}

// -----

// A row reduction without keepdim: TROWSUM into the [R, 8] column, TTRANS
// into the [1, R] row that holds the rank-1 result.
// CHECK-LABEL: func.func private @rowsum_nokeepdim(
// CHECK:         %[[X:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x64xf32>
// CHECK:         %[[C:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x8xf32>
// CHECK:         pto_isa.trowsum %[[X]], %{{.*}} into %[[C]]
// CHECK:         %[[T:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 1x16xf32>
// CHECK:         %[[R:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 1x16xf32>
// CHECK-NEXT:    pto_isa.ttrans %[[C]], %[[T]] into %[[R]]
// CHECK:         pto_isa.tstore %[[R]]
func.func private @rowsum_nokeepdim(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?xf32>, %r: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %t = pto.view %x[%r, %c0] : !pto.tensor<?x64xf32> -> !pto.tile<16x64xf32>
  %s = pto.sum %t dim = 1 : !pto.tile<16x64xf32> -> !pto.tile<16xf32>
  pto.assemble %s, %y[%r] : !pto.tile<16xf32>, !pto.tensor<?xf32>
  return
}

// -----

// A [1, C] operand holding more valid columns than the result (a fully
// valid row against a tile with a column tail) is copied with tmov to the
// result's valid columns, which the column-broadcast instruction takes
// exactly; one holding the same count is used as it is.
// CHECK-LABEL: func.func private @row_wider_than_result(
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C60:.*]] = arith.constant 60 : index
// CHECK:         %[[T:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %[[C60]]] : !pto_isa.tile<ub, 16x64xf32>
// CHECK:         %[[G:.*]] = pto_isa.alloc_tile valid [%[[C1]], %{{[a-z0-9]+}}] : !pto_isa.tile<ub, 1x64xf32>
// CHECK:         %[[H:.*]] = pto_isa.alloc_tile valid [%[[C1]], %[[C60]]] : !pto_isa.tile<ub, 1x64xf32>
// CHECK:         %[[N:.*]] = pto_isa.alloc_tile valid [%[[C1]], %[[C60]]] : !pto_isa.tile<ub, 1x64xf32>
// CHECK-NEXT:    pto_isa.tmov %[[G]] into %[[N]]
// CHECK:         pto_isa.tcolexpand_mul %[[T]], %[[N]] into
// CHECK:         pto_isa.tcolexpand_add %{{.*}}, %[[H]] into
// CHECK-NOT:     pto_isa.tmov
// CHECK:         return
func.func private @row_wider_than_result(%a: !pto.tensor<16x64xf32>, %g: !pto.tensor<1x64xf32>,
                                         %h: !pto.tensor<1x64xf32>, %out: !pto.tensor<16x64xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %x = pto.view %a[0, 0] valid [16, 60] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %tg = pto.view %g[0, 0] : !pto.tensor<1x64xf32> -> !pto.tile<1x64xf32>
  %th = pto.view %h[0, 0] valid [1, 60] : !pto.tensor<1x64xf32> -> !pto.tile<1x64xf32>
  %m = pto.mul %x, %tg : !pto.tile<16x64xf32>, !pto.tile<1x64xf32> -> !pto.tile<16x64xf32>
  %s = pto.add %m, %th : !pto.tile<16x64xf32>, !pto.tile<1x64xf32> -> !pto.tile<16x64xf32>
  pto.assemble %s, %out [0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
  return
}

// -----

// N-D reductions and broadcasts in the 2-D forms. [2, 8, 32] is held as
// [16, 32]; its keepdim row sum [2, 8, 1] is held as the [16, 1] column
// TROWSUM writes (not as [2, 8]), and so is the per-row operand of the sub
// (TROWEXPANDSUB, mode 2), the chain joining them (tmuls) and its GM window
// ([2, 8, 1] -> a [16, 1] reshape). The column sum over dim 1 of a
// [1, 8, 32] tile (its only non-unit leading dim) is TCOLSUM; the [1, 1, 32]
// row broadcasts over all of [2, 8, 32] (TCOLEXPANDADD); a row sum of
// [1, 8, 32] without keepdim is the TROWSUM column transposed into [1, 8].
// CHECK-LABEL: func.func private @nd_reduce_broadcast(
// CHECK-SAME:    %[[X:[^:]*]]: !pto.tensor<2x8x32xf32>, %[[M:[^:]*]]: !pto.tensor<2x8x1xf32>
// CHECK-DAG:     %[[M2:.*]] = pto.reshape %[[M]] [16, 1] inplace : !pto.tensor<2x8x1xf32> -> !pto.tensor<16x1xf32>
// CHECK:         %[[T:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x32xf32>
// CHECK-NEXT:    pto_isa.tload
// CHECK:         %[[S:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x8xf32>
// CHECK-NEXT:    pto_isa.trowsum %[[T]], %{{.*}} into %[[S]]
// CHECK:         pto_isa.tmuls %[[S]], %{{.*}} into %[[MEAN:[^ ]*]] : !pto_isa.tile<ub, 16x8xf32>, f32, !pto_isa.tile<ub, 16x8xf32>
// CHECK:         pto_isa.trowexpand %[[MEAN]] into %[[B:[^ ]*]] :
// CHECK:         pto_isa.trowexpand_sub %[[T]], %[[B]] into %[[D:[^ ]*]] :
// CHECK:         pto_isa.tstore %[[D]] into
// CHECK:         pto_isa.tstore %[[MEAN]] into %[[M2]][%{{.*}}, %{{.*}}] : !pto_isa.tile<ub, 16x8xf32>, !pto.tensor<16x1xf32>
// CHECK:         %[[U:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 8x32xf32>
// CHECK:         %[[CS:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 1x32xf32>
// CHECK-NEXT:    pto_isa.tcolsum %[[U]] into %[[CS]]
// CHECK:         pto_isa.tcolexpand_add %[[T]], %[[CS]] into
// CHECK:         pto_isa.trowsum %[[U]]
// CHECK:         pto_isa.ttrans %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 8x8xf32>, !pto_isa.tile<ub, 1x8xf32>, !pto_isa.tile<ub, 1x8xf32>
func.func private @nd_reduce_broadcast(%x: !pto.tensor<2x8x32xf32>, %m: !pto.tensor<2x8x1xf32>,
                                       %d: !pto.tensor<2x8x32xf32>, %u: !pto.tensor<1x8x32xf32>,
                                       %e: !pto.tensor<2x8x32xf32>, %r: !pto.tensor<1x8xf32>, %k: f32)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %t = pto.view %x[0, 0, 0] : !pto.tensor<2x8x32xf32> -> !pto.tile<2x8x32xf32>
  %s = pto.sum %t dim = 2 keepdim : !pto.tile<2x8x32xf32> -> !pto.tile<2x8x1xf32>
  %mean = pto.mul %s, %k : !pto.tile<2x8x1xf32>, f32 -> !pto.tile<2x8x1xf32>
  %dev = pto.sub %t, %mean : !pto.tile<2x8x32xf32>, !pto.tile<2x8x1xf32> -> !pto.tile<2x8x32xf32>
  pto.assemble %dev, %d [0, 0, 0] : !pto.tile<2x8x32xf32>, !pto.tensor<2x8x32xf32>
  pto.assemble %mean, %m [0, 0, 0] : !pto.tile<2x8x1xf32>, !pto.tensor<2x8x1xf32>
  %v = pto.view %u[0, 0, 0] : !pto.tensor<1x8x32xf32> -> !pto.tile<1x8x32xf32>
  %cs = pto.sum %v dim = 1 keepdim : !pto.tile<1x8x32xf32> -> !pto.tile<1x1x32xf32>
  %sh = pto.add %t, %cs : !pto.tile<2x8x32xf32>, !pto.tile<1x1x32xf32> -> !pto.tile<2x8x32xf32>
  pto.assemble %sh, %e [0, 0, 0] : !pto.tile<2x8x32xf32>, !pto.tensor<2x8x32xf32>
  %rs = pto.sum %v dim = 2 : !pto.tile<1x8x32xf32> -> !pto.tile<1x8xf32>
  pto.assemble %rs, %r [0, 0] : !pto.tile<1x8xf32>, !pto.tensor<1x8xf32>
  return
}

// -----

// A per-row [R, 1] operand holding more valid rows than the result (a fully
// valid column against a last tile with a row tail) is copied with tmov to
// the result's valid rows (once, for both ops) before TROWEXPAND /
// TROWEXPANDSUB, which pto-isa wants equal to the destination's.
// CHECK-LABEL: func.func private @column_longer_than_result(
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK:         %[[X:.*]] = pto_isa.alloc_tile valid [%[[V:[^,]*]], %{{.*}}] : !pto_isa.tile<ub, 16x64xf32>
// CHECK:         %[[W:.*]] = pto_isa.alloc_tile valid [%[[C16]], %[[C1]]] : !pto_isa.tile<ub, 16x8xf32>
// CHECK:         %[[N:.*]] = pto_isa.alloc_tile valid [%[[V]], %[[C1]]] : !pto_isa.tile<ub, 16x8xf32>
// CHECK-NEXT:    pto_isa.tmov %[[W]] into %[[N]]
// CHECK-NEXT:    %[[B:.*]] = pto_isa.alloc_tile valid [%[[V]], %[[C8]]] : !pto_isa.tile<ub, 16x8xf32>
// CHECK-NEXT:    pto_isa.trowexpand %[[N]] into %[[B]]
// CHECK:         pto_isa.trowexpand_sub %[[X]], %[[B]] into
// CHECK-NOT:     pto_isa.tmov
// CHECK:         pto_isa.trowexpand %[[N]] into %[[F:[^ ]*]] : !pto_isa.tile<ub, 16x8xf32>, !pto_isa.tile<ub, 16x64xf32>
// CHECK:         pto_isa.tadd %{{.*}}, %[[F]] into
func.func private @column_longer_than_result(%a: !pto.tensor<?x64xf32>, %w: !pto.tensor<16x1xf32>,
                                             %out: !pto.tensor<?x64xf32>, %v: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %x = pto.view %a[0, 0] valid [%v, 64] : !pto.tensor<?x64xf32> -> !pto.tile<16x64xf32>
  %tw = pto.view %w[0, 0] : !pto.tensor<16x1xf32> -> !pto.tile<16x1xf32>
  %s = pto.sub %x, %tw : !pto.tile<16x64xf32>, !pto.tile<16x1xf32> -> !pto.tile<16x64xf32>
  %p = pto.add %s, %tw : !pto.tile<16x64xf32>, !pto.tile<16x1xf32> -> !pto.tile<16x64xf32>
  pto.assemble %p, %out [0, 0] : !pto.tile<16x64xf32>, !pto.tensor<?x64xf32>
  return
}

// -----

// Operands of different valid extents (PyPTO's rule: the result has the
// left operand's valid shape). A fully valid [16, 64] tile minus one with
// %v valid rows (at most 16, as the view clamps it): the right operand is
// inserted into a NaN-filled tile with the result's 16 rows, which TSUB
// then reads. The comparison takes the smaller extent, min(16, %v): the full
// operand is renamed with it (treshape, no copy); the view's extent is the
// same run-time count.
// CHECK-LABEL: func.func private @valid_mix(
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG:     %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK:         %[[F:.*]] = pto_isa.alloc_tile valid [%[[C16]], %{{.*}}] : !pto_isa.tile<ub, 16x64xf32>
// CHECK:         %[[X:.*]] = pto_isa.alloc_tile valid [%[[V:[^,]*]], %{{.*}}] : !pto_isa.tile<ub, 16x64xf32>
// CHECK-NEXT:    pto_isa.tload
// CHECK-NEXT:    %[[W:.*]] = pto_isa.alloc_tile valid [%[[C16]], %{{.*}}] : !pto_isa.tile<ub, 16x64xf32>
// CHECK-NEXT:    pto_isa.texpands %[[NAN]] into %[[W]]
// CHECK-NEXT:    pto_isa.tinsert %[[X]] into %[[W]]
// CHECK-NEXT:    %[[D:.*]] = pto_isa.alloc_tile valid [%[[C16]], %{{.*}}] : !pto_isa.tile<ub, 16x64xf32>
// CHECK-NEXT:    pto_isa.tsub %[[F]], %[[W]] into %[[D]]
// CHECK:         %[[M:.*]] = arith.minsi %[[C16]], %[[V]] : index
// CHECK-NEXT:    %[[FN:.*]] = pto_isa.alloc_tile valid [%[[M]], %{{.*}}] : !pto_isa.tile<ub, 16x64xf32>
// CHECK-NEXT:    pto_isa.treshape %[[F]] into %[[FN]]
// CHECK-NEXT:    %[[K:.*]] = pto_isa.alloc_tile valid [%[[M]], %{{.*}}] : !pto_isa.tile<ub, 16x32xui8>
// CHECK-NEXT:    pto_isa.tcmp %[[FN]], %[[X]] into %[[K]] lt
func.func private @valid_mix(%a: !pto.tensor<?x64xf32>, %out: !pto.tensor<16x64xf32>,
                             %out2: !pto.tensor<16x64xf32>, %v: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %f = pto.full 2.500000e-01 : !pto.tile<16x64xf32>
  %x = pto.view %a[0, 0] valid [%v, 64] : !pto.tensor<?x64xf32> -> !pto.tile<16x64xf32>
  %d = pto.sub %f, %x : !pto.tile<16x64xf32>, !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  pto.assemble %d, %out [0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
  %c = pto.compare lt, %f, %x : !pto.tile<16x64xf32>, !pto.tile<16x64xf32> -> !pto.tile<16x64xi1>
  %one = arith.constant 1.000000e+00 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %s = pto.where %c, %one, %zero : !pto.tile<16x64xi1>, f32, f32 -> !pto.tile<16x64xf32>
  pto.assemble %s, %out2 [0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
  return
}

// -----

// A view of a tile from a column off a 32-byte boundary (mhc_pre's
// X_hat_norm[:, N:2 * N] at N = 4): the rows are transposed (TTRANS) so
// that the view's columns are rows 4..11, copied out from there (TEXTRACT
// at row 4) and transposed back. A view of rows 2..5 copies those rows out
// first (TEXTRACT at row 2, column 0).
// CHECK-LABEL: func.func private @view_of_tile_unaligned_column(
// CHECK:         pto_isa.texp %{{.*}} into %[[E:[^ ]*]] :
// CHECK-NEXT:    %[[V:.*]] = pto_isa.alloc_tile valid [%[[C16:.*]], %[[C8:.*]]] : !pto_isa.tile<ub, 16x8xf32>
// CHECK-NEXT:    %[[T:.*]] = pto_isa.alloc_tile valid [%[[C32:.*]], %[[C16]]] : !pto_isa.tile<ub, 32x16xf32>
// CHECK-NEXT:    %[[TMP:.*]] = pto_isa.alloc_tile valid [%[[C32]], %[[C16]]] : !pto_isa.tile<ub, 32x16xf32>
// CHECK-NEXT:    pto_isa.ttrans %[[E]], %[[TMP]] into %[[T]] :
// CHECK-NEXT:    %[[W:.*]] = pto_isa.alloc_tile valid [%[[C8]], %[[C16]]] : !pto_isa.tile<ub, 8x16xf32>
// CHECK-NEXT:    pto_isa.textract %[[T]] into %[[W]] {index_row = 4 : i64} : !pto_isa.tile<ub, 32x16xf32>, !pto_isa.tile<ub, 8x16xf32>
// CHECK-NEXT:    %[[TMP2:.*]] = pto_isa.alloc_tile valid [%[[C16]], %[[C8]]] : !pto_isa.tile<ub, 16x8xf32>
// CHECK-NEXT:    pto_isa.ttrans %[[W]], %[[TMP2]] into %[[V]] :
// CHECK-NEXT:    pto_isa.tstore %[[V]]
// CHECK:         %[[Z:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 4x8xf32>
// CHECK-NEXT:    %[[R:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 4x32xf32>
// CHECK-NEXT:    pto_isa.textract %[[E]] into %[[R]] {index_row = 2 : i64} :
// CHECK:         pto_isa.ttrans %[[R]], %{{.*}} into %[[RT:[^ ]*]] : !pto_isa.tile<ub, 4x32xf32>, !pto_isa.tile<ub, 32x8xf32>, !pto_isa.tile<ub, 32x8xf32>
// CHECK-NEXT:    %[[W2:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 8x8xf32>
// CHECK-NEXT:    pto_isa.textract %[[RT]] into %[[W2]] {index_row = 12 : i64}
// CHECK:         pto_isa.ttrans %[[W2]], %{{.*}} into %[[Z]] :
// CHECK-NEXT:    pto_isa.tstore %[[Z]]
func.func private @view_of_tile_unaligned_column(%a: !pto.tensor<16x32xf32>, %out: !pto.tensor<16x8xf32>,
                                                 %out2: !pto.tensor<4x8xf32>)
    attributes {pto.leaf = #pto.core<vector>} {
  %x = pto.view %a[0, 0] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
  %e = pto.exp %x : !pto.tile<16x32xf32> -> !pto.tile<16x32xf32>
  %y = pto.view %e[0, 4] : !pto.tile<16x32xf32> -> !pto.tile<16x8xf32>
  pto.assemble %y, %out [0, 0] : !pto.tile<16x8xf32>, !pto.tensor<16x8xf32>
  %z = pto.view %e[2, 12] : !pto.tile<16x32xf32> -> !pto.tile<4x8xf32>
  pto.assemble %z, %out2 [0, 0] : !pto.tile<4x8xf32>, !pto.tensor<4x8xf32>
  return
}

// -----

// Views of tiles: a TEXTRACT (ub -> ub, pipe V) of the rectangle the view
// covers in the source's 2-D form, at [row, column] = the offsets
// linearised: rows 8..15 of a [16, 64] tile from column 32, row k = 2 of
// a [1, 4, 32] tile (x[:, 2, :]), and row %r of the [16, 64] tile (a
// run-time row, TEXTRACT's row operand: chunked_gdr's gate[l - 1:l, :]).
// CHECK-LABEL: func.func private @tile_views(
// CHECK:         pto_isa.texp %{{.*}} into %[[E:[^ ]*]] :
// CHECK:         %[[V:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 8x32xf32>
// CHECK-NEXT:    pto_isa.textract %[[E]] into %[[V]] {index_col = 32 : i64, index_row = 8 : i64} : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 8x32xf32>
// CHECK:         pto_isa.tstore %[[V]]
// CHECK:         %[[K:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 1x32xf32>
// CHECK-NEXT:    pto_isa.textract %{{.*}} into %[[K]] {index_row = 2 : i64} : !pto_isa.tile<ub, 4x32xf32>, !pto_isa.tile<ub, 1x32xf32>
// CHECK:         pto_isa.tstore %[[K]]
// CHECK:         %[[L:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 1x64xf32>
// CHECK-NEXT:    pto_isa.textract %[[E]][%[[R:arg[0-9]+]]] into %[[L]] : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 1x64xf32>
// CHECK:         pto_isa.tstore %[[L]]
func.func private @tile_views(%a: !pto.tensor<16x64xf32>, %out: !pto.tensor<8x32xf32>,
                              %b: !pto.tensor<1x4x32xf32>, %row: !pto.tensor<1x1x32xf32>,
                              %r: index, %last: !pto.tensor<1x64xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %x = pto.view %a[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %e = pto.exp %x : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  %y = pto.view %e[8, 32] : !pto.tile<16x64xf32> -> !pto.tile<8x32xf32>
  pto.assemble %y, %out [0, 0] : !pto.tile<8x32xf32>, !pto.tensor<8x32xf32>
  %t = pto.view %b[0, 0, 0] : !pto.tensor<1x4x32xf32> -> !pto.tile<1x4x32xf32>
  %n = pto.neg %t : !pto.tile<1x4x32xf32> -> !pto.tile<1x4x32xf32>
  %k = pto.view %n[0, 2, 0] : !pto.tile<1x4x32xf32> -> !pto.tile<1x1x32xf32>
  pto.assemble %k, %row [0, 0, 0] : !pto.tile<1x1x32xf32>, !pto.tensor<1x1x32xf32>
  %l = pto.view %e[%r, 0] : !pto.tile<16x64xf32> -> !pto.tile<1x64xf32>
  pto.assemble %l, %last [0, 0] : !pto.tile<1x64xf32>, !pto.tensor<1x64xf32>
  return
}

// -----

// One instruction per leading index where the rows are not one rectangle of
// the 2-D form: t.sum(dim=1, keepdim=True) on [2, 8, 32] (held as [16, 32])
// is, per b, a TEXTRACT of rows [8b, 8b + 8), TCOLSUM, and a TINSERT at row
// b of the [2, 32] result; x[:, 2, :] of [2, 4, 32] is, per b, a TEXTRACT of
// row 4b + 2 and a TINSERT at row b.
// CHECK-LABEL: func.func private @per_leading_index(
// CHECK:         %[[T:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x32xf32>
// CHECK:         %[[S:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 2x32xf32>
// CHECK:         %[[B0:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 8x32xf32>
// CHECK-NEXT:    pto_isa.textract %[[T]] into %[[B0]] :
// CHECK-NEXT:    %[[R0:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 1x32xf32>
// CHECK-NEXT:    pto_isa.tcolsum %[[B0]] into %[[R0]]
// CHECK-NEXT:    pto_isa.tinsert %[[R0]] into %[[S]] :
// CHECK:         pto_isa.textract %[[T]] into %[[B1:[^ ]*]] {index_row = 8 : i64}
// CHECK:         pto_isa.tcolsum %[[B1]] into %[[R1:[^ ]*]] :
// CHECK-NEXT:    pto_isa.tinsert %[[R1]] into %[[S]] {index_row = 1 : i64}
// CHECK:         pto_isa.tstore %[[S]]
// CHECK:         %[[V:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 2x32xf32>
// CHECK:         pto_isa.textract %{{.*}} into %[[K0:[^ ]*]] {index_row = 2 : i64} : !pto_isa.tile<ub, 8x32xf32>, !pto_isa.tile<ub, 1x32xf32>
// CHECK-NEXT:    pto_isa.tinsert %[[K0]] into %[[V]] :
// CHECK:         pto_isa.textract %{{.*}} into %[[K1:[^ ]*]] {index_row = 6 : i64}
// CHECK-NEXT:    pto_isa.tinsert %[[K1]] into %[[V]] {index_row = 1 : i64}
// CHECK:         pto_isa.tstore %[[V]]
// x - x.sum(1, keepdim) ([2, 1, 32] over [2, 8, 32]): per b, the rows of b,
// row b of the sum expanded (TCOLEXPAND), the plain TSUB, TINSERT.
// CHECK:         %[[C:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x32xf32>
// CHECK-NEXT:    %[[F:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 8x32xf32>
// CHECK-NEXT:    pto_isa.textract %[[T]] into %[[F]] :
// CHECK:         pto_isa.textract %[[S]] into %[[G:[^ ]*]] :
// CHECK:         pto_isa.tcolexpand %[[G]] into %[[X:[^ ]*]] :
// CHECK:         pto_isa.tsub %[[F]], %[[X]] into %[[O:[^ ]*]] :
// CHECK-NEXT:    pto_isa.tinsert %[[O]] into %[[C]] :
// CHECK:         pto_isa.textract %[[S]] into %{{.*}} {index_row = 1 : i64}
// CHECK:         pto_isa.tinsert %{{.*}} into %[[C]] {index_row = 8 : i64}
// CHECK:         pto_isa.tstore %[[C]]
func.func private @per_leading_index(%x: !pto.tensor<2x8x32xf32>, %s: !pto.tensor<2x1x32xf32>,
                                     %y: !pto.tensor<2x4x32xf32>, %k: !pto.tensor<2x1x32xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %t = pto.view %x[0, 0, 0] : !pto.tensor<2x8x32xf32> -> !pto.tile<2x8x32xf32>
  %r = pto.sum %t dim = 1 keepdim : !pto.tile<2x8x32xf32> -> !pto.tile<2x1x32xf32>
  pto.assemble %r, %s [0, 0, 0] : !pto.tile<2x1x32xf32>, !pto.tensor<2x1x32xf32>
  %u = pto.view %y[0, 0, 0] : !pto.tensor<2x4x32xf32> -> !pto.tile<2x4x32xf32>
  %e = pto.exp %u : !pto.tile<2x4x32xf32> -> !pto.tile<2x4x32xf32>
  %row = pto.view %e[0, 2, 0] : !pto.tile<2x4x32xf32> -> !pto.tile<2x1x32xf32>
  pto.assemble %row, %k [0, 0, 0] : !pto.tile<2x1x32xf32>, !pto.tensor<2x1x32xf32>
  %c = pto.sub %t, %r : !pto.tile<2x8x32xf32>, !pto.tile<2x1x32xf32> -> !pto.tile<2x8x32xf32>
  pto.assemble %c, %x [0, 0, 0] : !pto.tile<2x8x32xf32>, !pto.tensor<2x8x32xf32>
  return
}

// -----

// A reduction over a leading dim followed by another non-unit one sums
// blocks of rows: t.sum(dim=1, keepdim=True) on [2, 4, 8, 32] (held as
// [64, 32]) is, per index of dim 0, a TEXTRACT of its first block of 8 rows
// into an accumulator, then TEXTRACT + in-place TADD of the other three,
// and a TINSERT of the accumulator at rows 8o of the [16, 32] result. The
// amax over dim 0 of [4, 8, 32] with a run-time valid dim 0 (mhc_sinkhorn's
// col_sum) starts at -inf (TEXPANDS) and takes each block under an scf.if;
// with one index before the dim the accumulator is the result. Dividing by
// it ([1, 8, 32] over [4, 8, 32]) inserts it once per valid block
// (TINSERT; itself the block, no copy), then one plain TDIV.
// CHECK-LABEL: func.func private @reduce_over_blocks(
// CHECK-DAG:     %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[T:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 64x32xf32>
// CHECK:         %[[S:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 16x32xf32>
// CHECK-NEXT:    %[[A0:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 8x32xf32>
// CHECK-NEXT:    pto_isa.textract %[[T]] into %[[A0]] :
// CHECK-NEXT:    %[[B1:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 8x32xf32>
// CHECK-NEXT:    pto_isa.textract %[[T]] into %[[B1]] {index_row = 8 : i64}
// CHECK-NEXT:    pto_isa.tadd %[[A0]], %[[B1]] into %[[A0]] :
// CHECK:         pto_isa.textract %[[T]] into %[[B3:[^ ]*]] {index_row = 24 : i64}
// CHECK-NEXT:    pto_isa.tadd %[[A0]], %[[B3]] into %[[A0]] :
// CHECK-NEXT:    pto_isa.tinsert %[[A0]] into %[[S]] :
// CHECK:         pto_isa.textract %[[T]] into %[[A1:[^ ]*]] {index_row = 32 : i64}
// CHECK:         pto_isa.textract %[[T]] into %{{.*}} {index_row = 56 : i64}
// CHECK-NEXT:    pto_isa.tadd %[[A1]], %{{.*}} into %[[A1]] :
// CHECK-NEXT:    pto_isa.tinsert %[[A1]] into %[[S]] {index_row = 8 : i64}
// CHECK-NEXT:    pto_isa.tstore %[[S]]
// CHECK:         %[[N:.*]] = arith.minsi
// CHECK:         %[[U:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 32x32xf32>
// CHECK:         %[[M:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 8x32xf32>
// CHECK-NEXT:    pto_isa.texpands %[[NEG]] into %[[M]]
// CHECK-NEXT:    %[[IN0:.*]] = arith.cmpi slt, %{{.*}}, %[[N]] : index
// CHECK-NEXT:    scf.if %[[IN0]] {
// CHECK-NEXT:      %[[K0:.*]] = pto_isa.alloc_tile
// CHECK-NEXT:      pto_isa.textract %[[U]] into %[[K0]] :
// CHECK-NEXT:      pto_isa.tmax %[[M]], %[[K0]] into %[[M]] :
// CHECK-NEXT:    }
// CHECK:         scf.if
// CHECK:         scf.if
// CHECK:         scf.if
// CHECK:           pto_isa.textract %[[U]] into %[[K3:[^ ]*]] {index_row = 24 : i64}
// CHECK-NEXT:      pto_isa.tmax %[[M]], %[[K3]] into %[[M]] :
// CHECK-NEXT:    }
// CHECK-NEXT:    pto_isa.tstore %[[M]]
// CHECK:         %[[E:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 32x32xf32>
// CHECK-NEXT:    arith.cmpi slt, %{{.*}}, %[[N]]
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      pto_isa.tinsert %[[M]] into %[[E]] :
// CHECK:           pto_isa.tinsert %[[M]] into %[[E]] {index_row = 24 : i64}
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[D:.*]] = pto_isa.alloc_tile
// CHECK-NEXT:    pto_isa.tdiv %[[U]], %[[E]] into %[[D]]
func.func private @reduce_over_blocks(%x: !pto.tensor<2x4x8x32xf32>, %s: !pto.tensor<2x1x8x32xf32>,
                                      %y: !pto.tensor<4x8x32xf32>, %m: !pto.tensor<1x8x32xf32>,
                                      %z: !pto.tensor<4x8x32xf32>, %n: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %t = pto.view %x[0, 0, 0, 0] : !pto.tensor<2x4x8x32xf32> -> !pto.tile<2x4x8x32xf32>
  %r = pto.sum %t dim = 1 keepdim : !pto.tile<2x4x8x32xf32> -> !pto.tile<2x1x8x32xf32>
  pto.assemble %r, %s [0, 0, 0, 0] : !pto.tile<2x1x8x32xf32>, !pto.tensor<2x1x8x32xf32>
  %u = pto.view %y[0, 0, 0] valid [%n, 8, 32] : !pto.tensor<4x8x32xf32> -> !pto.tile<4x8x32xf32>
  %a = pto.amax %u dim = 0 keepdim : !pto.tile<4x8x32xf32> -> !pto.tile<1x8x32xf32>
  pto.assemble %a, %m [0, 0, 0] : !pto.tile<1x8x32xf32>, !pto.tensor<1x8x32xf32>
  %d = pto.div %u, %a : !pto.tile<4x8x32xf32>, !pto.tile<1x8x32xf32> -> !pto.tile<4x8x32xf32>
  pto.assemble %d, %z [0, 0, 0] : !pto.tile<4x8x32xf32>, !pto.tensor<4x8x32xf32>
  return
}

// -----

// A repeated-block broadcast with a kept dim before it: [2, 1, 4, 32] over
// [2, 3, 4, 32] copies the operand's block of each index of dim 0 (TEXTRACT
// of rows 4o) and inserts it three times (rows 12o, 12o + 4, 12o + 8).
// CHECK-LABEL: func.func private @repeated_blocks_kept_dim(
// CHECK:         %[[W:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 8x32xf32>
// CHECK:         %[[E:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 24x32xf32>
// CHECK-NEXT:    %[[B0:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 4x32xf32>
// CHECK-NEXT:    pto_isa.textract %[[W]] into %[[B0]] :
// CHECK-NEXT:    pto_isa.tinsert %[[B0]] into %[[E]] :
// CHECK-NEXT:    pto_isa.tinsert %[[B0]] into %[[E]] {index_row = 4 : i64}
// CHECK-NEXT:    pto_isa.tinsert %[[B0]] into %[[E]] {index_row = 8 : i64}
// CHECK-NEXT:    %[[B1:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 4x32xf32>
// CHECK-NEXT:    pto_isa.textract %[[W]] into %[[B1]] {index_row = 4 : i64}
// CHECK-NEXT:    pto_isa.tinsert %[[B1]] into %[[E]] {index_row = 12 : i64}
// CHECK-NEXT:    pto_isa.tinsert %[[B1]] into %[[E]] {index_row = 16 : i64}
// CHECK-NEXT:    pto_isa.tinsert %[[B1]] into %[[E]] {index_row = 20 : i64}
// CHECK-NEXT:    %[[D:.*]] = pto_isa.alloc_tile
// CHECK-NEXT:    pto_isa.tsub %[[E]], %{{.*}} into %[[D]]
func.func private @repeated_blocks_kept_dim(%x: !pto.tensor<2x3x4x32xf32>, %w: !pto.tensor<2x1x4x32xf32>,
                                            %y: !pto.tensor<2x3x4x32xf32>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %t = pto.view %x[0, 0, 0, 0] : !pto.tensor<2x3x4x32xf32> -> !pto.tile<2x3x4x32xf32>
  %v = pto.view %w[0, 0, 0, 0] : !pto.tensor<2x1x4x32xf32> -> !pto.tile<2x1x4x32xf32>
  %d = pto.sub %v, %t : !pto.tile<2x1x4x32xf32>, !pto.tile<2x3x4x32xf32> -> !pto.tile<2x3x4x32xf32>
  pto.assemble %d, %y [0, 0, 0, 0] : !pto.tile<2x3x4x32xf32>, !pto.tensor<2x3x4x32xf32>
  return
}

// -----

// Strided GM windows: the [16, 1, 32] window of [?, %n, 32] has its rows
// %n * 32 elements apart. The tensor is read and written as [?, %n * 32]:
// the window is [16, 32] at row %t, column %h * 32, one TLOAD / TSTORE whose
// row stride is the reshape's row length. A [16, 1, 1, 32] window of
// [?, 4, 2, 32] likewise at column (%h * 2 + 1) * 32 of [?, 256].
// CHECK-LABEL: func.func private @strided_rows(
// CHECK-SAME:    %[[V:[^:]*]]: !pto.tensor<?x?x32xf32>, %[[O:[^:]*]]: !pto.tensor<?x?x32xf32>, %[[W:[^:]*]]: !pto.tensor<?x4x2x32xf32>, %[[T:[^:]*]]: index, %[[H:[^:]*]]: index)
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[V2:.*]] = pto.reshape %[[V]] [%{{.*}}, %{{.*}}] inplace : !pto.tensor<?x?x32xf32> -> !pto.tensor<?x?xf32>
// CHECK-DAG:     %[[O2:.*]] = pto.reshape %[[O]] [%{{.*}}, %{{.*}}] inplace : !pto.tensor<?x?x32xf32> -> !pto.tensor<?x?xf32>
// CHECK-DAG:     %[[W2:.*]] = pto.reshape %[[W]] [%{{.*}}, 256] inplace : !pto.tensor<?x4x2x32xf32> -> !pto.tensor<?x256xf32>
// CHECK:         %[[COL:.*]] = arith.muli %[[H]], %[[C32]] : index
// CHECK:         pto_isa.tload %[[V2]][%[[T]], %[[COL]]] into %[[X:[^ ]*]] : !pto.tensor<?x?xf32>, !pto_isa.tile<ub, 16x32xf32>
// CHECK:         %[[COL2:.*]] = arith.muli %[[H]], %[[C32]] : index
// CHECK-NEXT:    pto_isa.tstore %{{.*}} into %[[O2]][%[[T]], %[[COL2]]] : !pto_isa.tile<ub, 16x32xf32>, !pto.tensor<?x?xf32>
// CHECK:         pto_isa.tload %[[W2]][%[[T]], %{{.*}}] into %{{.*}} : !pto.tensor<?x256xf32>, !pto_isa.tile<ub, 16x32xf32>
func.func private @strided_rows(%v: !pto.tensor<?x?x32xf32>, %o: !pto.tensor<?x?x32xf32>,
                                %w: !pto.tensor<?x4x2x32xf32>, %t: index, %h: index)
    attributes {pto.leaf = #pto.core<vector>} {
  %x = pto.view %v[%t, %h, 0] : !pto.tensor<?x?x32xf32> -> !pto.tile<16x1x32xf32>
  %y = pto.mul %x, %x : !pto.tile<16x1x32xf32>, !pto.tile<16x1x32xf32> -> !pto.tile<16x1x32xf32>
  pto.assemble %y, %o [%t, %h, 0] : !pto.tile<16x1x32xf32>, !pto.tensor<?x?x32xf32>
  %z = pto.view %w[%t, %h, 1, 0] : !pto.tensor<?x4x2x32xf32> -> !pto.tile<16x1x1x32xf32>
  pto.assemble %z, %w [%t, %h, 0, 0] : !pto.tile<16x1x1x32xf32>, !pto.tensor<?x4x2x32xf32>
  return
}

// -----

// Rows in runs. A [2, 16, 32] tile whose dim 1 has %v valid rows (a middle
// dim valid in part) is held as [32, 32] with 2 * 16 rows valid, gaps
// included: the elementwise op computes them all, and the load and the
// store go one run of rows per index of dim 0 (TLOAD + TINSERT at row
// 16 * b, TEXTRACT + TSTORE), each of %v rows. A [2, 1, 8, 32] window of a
// [2, 3, 8, 32] tensor has rows in runs too (its unit dim 1 does not cover
// the tensor's 3): one window per index of dim 0. Dim 0's valid extent %n
// is a run-time value: each run is under an scf.if.
// CHECK-LABEL: func.func private @rows_in_runs(
// CHECK-SAME:    %[[A:[^:]*]]: !pto.tensor<4x16x32xf32>, %[[O:[^:]*]]: !pto.tensor<4x16x32xf32>, %[[W:[^:]*]]: !pto.tensor<2x3x8x32xf32>, %[[V:[^:]*]]: index, %[[N:[^:]*]]: index)
// CHECK-DAG:     %[[A2:.*]] = pto.reshape %[[A]] [64, 32] inplace
// CHECK-DAG:     %[[W2:.*]] = pto.reshape %[[W]] [48, 32] inplace
// CHECK:         %[[VR:.*]] = arith.minsi %[[V]], %{{.*}} : index
// CHECK:         %[[T:.*]] = pto_isa.alloc_tile valid [%[[C32:.*]], %[[C32]]] : !pto_isa.tile<ub, 32x32xf32>
// CHECK:         %[[R0:.*]] = pto_isa.alloc_tile valid [%[[VR]], %[[C32]]] : !pto_isa.tile<ub, 16x32xf32>
// CHECK-NEXT:    pto_isa.tload %[[A2]][%[[C16:.*]], %{{.*}}] into %[[R0]]
// CHECK-NEXT:    pto_isa.tinsert %[[R0]] into %[[T]] :
// CHECK:         %[[R1:.*]] = pto_isa.alloc_tile valid [%[[VR]], %[[C32]]] : !pto_isa.tile<ub, 16x32xf32>
// CHECK-NEXT:    pto_isa.tload %[[A2]][%[[C32]], %{{.*}}] into %[[R1]]
// CHECK-NEXT:    pto_isa.tinsert %[[R1]] into %[[T]] {index_row = 16 : i64}
// CHECK:         pto_isa.tmul %[[T]], %[[T]] into %[[M:[^ ]*]] :
// CHECK:         pto_isa.textract %[[M]] into %[[S0:[^ ]*]] :
// CHECK-NEXT:    pto_isa.tstore %[[S0]] into
// CHECK:         pto_isa.textract %[[M]] into %[[S1:[^ ]*]] {index_row = 16 : i64}
// CHECK-NEXT:    pto_isa.tstore %[[S1]] into
// CHECK:         %[[NV:.*]] = arith.minsi %[[N]], %{{.*}} : index
// CHECK:         %[[IN0:.*]] = arith.cmpi slt, %{{.*}}, %[[NV]] : index
// CHECK-NEXT:    scf.if %[[IN0]] {
// CHECK:           pto_isa.tload %[[W2]][%{{.*}}, %{{.*}}] into
// CHECK-NEXT:      pto_isa.tinsert
// CHECK:         %[[IN1:.*]] = arith.cmpi slt, %{{.*}}, %[[NV]] : index
// CHECK-NEXT:    scf.if %[[IN1]] {
// CHECK:           pto_isa.tload %[[W2]][%[[C32]], %{{.*}}] into
// CHECK-NEXT:      pto_isa.tinsert %{{.*}} into %{{.*}} {index_row = 8 : i64}
func.func private @rows_in_runs(%a: !pto.tensor<4x16x32xf32>, %o: !pto.tensor<4x16x32xf32>,
                                %w: !pto.tensor<2x3x8x32xf32>, %v: index, %n: index)
    attributes {pto.leaf = #pto.core<vector>} {
  %x = pto.view %a[1, 0, 0] valid [2, %v, 32] : !pto.tensor<4x16x32xf32> -> !pto.tile<2x16x32xf32>
  %y = pto.mul %x, %x : !pto.tile<2x16x32xf32>, !pto.tile<2x16x32xf32> -> !pto.tile<2x16x32xf32>
  pto.assemble %y, %o [1, 0, 0] : !pto.tile<2x16x32xf32>, !pto.tensor<4x16x32xf32>
  %z = pto.view %w[0, 1, 0, 0] valid [%n, 1, 8, 32] : !pto.tensor<2x3x8x32xf32> -> !pto.tile<2x1x8x32xf32>
  %e = pto.exp %z : !pto.tile<2x1x8x32xf32> -> !pto.tile<2x1x8x32xf32>
  pto.assemble %e, %w [0, 2, 0, 0] : !pto.tile<2x1x8x32xf32>, !pto.tensor<2x3x8x32xf32>
  return
}

// -----

// Views of a tile at run-time offsets: a run-time column is TEXTRACT's
// column operand (a leaf shared by launches at columns 0 and 128,
// mla_prolog's k_nope / value split of a [t, 16, 256] tile); x[:, %k, :] of
// [2, 4, 32] is two runs (rows 4b + %k), each a TEXTRACT with the run-time
// row %k added to its static row 4b, and a TINSERT.
// CHECK-LABEL: func.func private @tile_view_runtime_offsets(
// CHECK-SAME:    %[[C:[^:]*]]: index, %[[K:[^:]*]]: index)
// CHECK:         pto_isa.texp %{{.*}} into %[[E:[^ ]*]] :
// CHECK:         %[[H:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 32x128xf16>
// CHECK-NEXT:    pto_isa.textract %[[E]] cols[%[[C]]] into %[[H]] : !pto_isa.tile<ub, 32x256xf16>, !pto_isa.tile<ub, 32x128xf16>
// CHECK:         pto_isa.textract %{{.*}}[%[[K]]] into %[[R0:[^ ]*]] : !pto_isa.tile<ub, 8x32xf32>, !pto_isa.tile<ub, 1x32xf32>
// CHECK-NEXT:    pto_isa.tinsert %[[R0]] into %[[V:[^ ]*]] :
// CHECK:         pto_isa.textract %{{.*}}[%[[K]]] into %[[R1:[^ ]*]] {index_row = 4 : i64}
// CHECK-NEXT:    pto_isa.tinsert %[[R1]] into %[[V]] {index_row = 1 : i64}
func.func private @tile_view_runtime_offsets(%a: !pto.tensor<2x16x256xf16>, %out: !pto.tensor<2x16x128xf16>,
                                             %y: !pto.tensor<2x4x32xf32>, %o: !pto.tensor<2x1x32xf32>,
                                             %c: index, %k: index)
    attributes {pto.leaf = #pto.core<vector>, pto.arch = #pto.arch<DAV_3510>} {
  %x = pto.view %a[0, 0, 0] : !pto.tensor<2x16x256xf16> -> !pto.tile<2x16x256xf16>
  %e = pto.exp %x : !pto.tile<2x16x256xf16> -> !pto.tile<2x16x256xf16>
  %h = pto.view %e[0, 0, %c] : !pto.tile<2x16x256xf16> -> !pto.tile<2x16x128xf16>
  pto.assemble %h, %out [0, 0, 0] : !pto.tile<2x16x128xf16>, !pto.tensor<2x16x128xf16>
  %t = pto.view %y[0, 0, 0] : !pto.tensor<2x4x32xf32> -> !pto.tile<2x4x32xf32>
  %n = pto.neg %t : !pto.tile<2x4x32xf32> -> !pto.tile<2x4x32xf32>
  %row = pto.view %n[0, %k, 0] : !pto.tile<2x4x32xf32> -> !pto.tile<2x1x32xf32>
  pto.assemble %row, %o [0, 0, 0] : !pto.tile<2x1x32xf32>, !pto.tensor<2x1x32xf32>
  return
}

// -----

// A MIX leaf (DAV_3510) whose launch passes an on-chip workspace: the
// accumulator stored into it stays in L0C, the vector view of it is the
// AIC's textract of the view's window from the accumulator (l0c -> ub, at
// the view's offset inside the piece) into a tile of UB ring slot 0; views
// feeding only matmuls are loaded at the matmul, the other ops lower as in
// cube and vector leaves.
// CHECK-LABEL: func.func private @mix_leaf(
// CHECK:         %[[ACC:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] : !pto_isa.tile<l0c, 32x32xf32>
// CHECK-NEXT:    pto_isa.tmatmul %{{.*}}, %{{.*}} into %[[ACC]]
// CHECK-NOT:     pto_isa.tstore %[[ACC]]
// CHECK:         %[[V:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] {pto_isa.ring_slot = 0 : i64, pto_isa.subblock = 0 : i64} : !pto_isa.tile<ub, 16x32xf32>
// CHECK-NEXT:    pto_isa.textract %[[ACC]] into %[[V]] {index_row = 16 : i64} : !pto_isa.tile<l0c, 32x32xf32>, !pto_isa.tile<ub, 16x32xf32>
// CHECK:         pto_isa.tmuls %[[V]]
// CHECK:         pto_isa.tstore %{{.*}} into %{{.*}} : !pto_isa.tile<ub, 16x32xf32>, !pto.tensor<16x32xf32>
module attributes {pto.arch = #pto.arch<DAV_3510>} {
func.func private @mix_leaf(%a: !pto.tensor<32x32xf32>, %ws: !pto.tensor<32x32xf32>,
                            %y: !pto.tensor<16x32xf32>)
    attributes {pto.leaf = #pto.core<mix>, pto.family = "M1"} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f32
  %a0 = pto.view %a[%c0, %c0] : !pto.tensor<32x32xf32> -> !pto.tile<32x32xf32>
  %s = pto.matmul %a0, %a0 {cube_tile = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>} : !pto.tile<32x32xf32>, !pto.tile<32x32xf32> -> !pto.tile<32x32xf32>
  pto.assemble %s, %ws [%c0, %c0] : !pto.tile<32x32xf32>, !pto.tensor<32x32xf32>
  %v = pto.view %ws[%c16, %c0] : !pto.tensor<32x32xf32> -> !pto.tile<16x32xf32>
  %d = pto.mul %v, %two : !pto.tile<16x32xf32>, f32 -> !pto.tile<16x32xf32>
  pto.assemble %d, %y [%c0, %c0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
  return
}

func.func private @mix_root(%a: !pto.tensor<32x32xf32>, %y: !pto.tensor<16x32xf32>)
    attributes {pto.root} {
  %ws = pto.workspace {pto.on_chip} : !pto.tensor<32x32xf32>
  %t = pto.launch @mix_leaf(%a, %ws, %y) : (!pto.tensor<32x32xf32>, !pto.tensor<32x32xf32>, !pto.tensor<16x32xf32>) -> !pto.token
  return
}
}

// -----

// The vector part on two AIVs: the pieces y0 (rows 0-15) and y1 (16-31)
// are separate groups and go to AIV 0 and AIV 1, each window into its
// AIV's ring (slot 0 of each). The third piece stores where y0 did: GM
// windows that overlap with a write keep their ops on one AIV (AIV 0),
// so the two AIVs never write the same bytes.
// CHECK-LABEL: func.func private @mix_two_aivs(
// CHECK:         %[[W0:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] {pto_isa.ring_slot = 0 : i64, pto_isa.subblock = 0 : i64} : !pto_isa.tile<ub, 16x32xf32>
// CHECK-NEXT:    pto_isa.textract %{{.*}} into %[[W0]] :
// CHECK:         pto_isa.tmuls %[[W0]], %{{.*}} into %[[D0:[^ ]*]]
// CHECK:         pto_isa.tstore %[[D0]] into %{{.*}}[%c0, %c0]
// CHECK:         %[[W1:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] {pto_isa.ring_slot = 0 : i64, pto_isa.subblock = 1 : i64} : !pto_isa.tile<ub, 16x32xf32>
// CHECK-NEXT:    pto_isa.textract %{{.*}} into %[[W1]] {index_row = 16 : i64}
// CHECK:         %[[D1:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] {pto_isa.subblock = 1 : i64}
// CHECK-NEXT:    pto_isa.tmuls %[[W1]], %{{.*}} into %[[D1]]
// CHECK:         %[[W2:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] {pto_isa.ring_slot = 1 : i64, pto_isa.subblock = 0 : i64} : !pto_isa.tile<ub, 16x32xf32>
// CHECK-NEXT:    pto_isa.textract %{{.*}} into %[[W2]] {index_row = 16 : i64}
module attributes {pto.arch = #pto.arch<DAV_3510>} {
func.func private @mix_two_aivs(%a: !pto.tensor<32x32xf32>, %ws: !pto.tensor<32x32xf32>,
                                %y: !pto.tensor<32x32xf32>)
    attributes {pto.leaf = #pto.core<mix>, pto.family = "M1"} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f32
  %a0 = pto.view %a[%c0, %c0] : !pto.tensor<32x32xf32> -> !pto.tile<32x32xf32>
  %s = pto.matmul %a0, %a0 {cube_tile = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>} : !pto.tile<32x32xf32>, !pto.tile<32x32xf32> -> !pto.tile<32x32xf32>
  pto.assemble %s, %ws [%c0, %c0] : !pto.tile<32x32xf32>, !pto.tensor<32x32xf32>
  %v0 = pto.view %ws[%c0, %c0] : !pto.tensor<32x32xf32> -> !pto.tile<16x32xf32>
  %d0 = pto.mul %v0, %two : !pto.tile<16x32xf32>, f32 -> !pto.tile<16x32xf32>
  pto.assemble %d0, %y [%c0, %c0] : !pto.tile<16x32xf32>, !pto.tensor<32x32xf32>
  %v1 = pto.view %ws[%c16, %c0] : !pto.tensor<32x32xf32> -> !pto.tile<16x32xf32>
  %d1 = pto.mul %v1, %two : !pto.tile<16x32xf32>, f32 -> !pto.tile<16x32xf32>
  pto.assemble %d1, %y [%c16, %c0] : !pto.tile<16x32xf32>, !pto.tensor<32x32xf32>
  %v2 = pto.view %ws[%c16, %c0] : !pto.tensor<32x32xf32> -> !pto.tile<16x32xf32>
  %d2 = pto.mul %v2, %v2 : !pto.tile<16x32xf32>, !pto.tile<16x32xf32> -> !pto.tile<16x32xf32>
  pto.assemble %d2, %y [%c0, %c0] : !pto.tile<16x32xf32>, !pto.tensor<32x32xf32>
  return
}

func.func private @mix_two_root(%a: !pto.tensor<32x32xf32>, %y: !pto.tensor<32x32xf32>)
    attributes {pto.root} {
  %ws = pto.workspace {pto.on_chip} : !pto.tensor<32x32xf32>
  %t = pto.launch @mix_two_aivs(%a, %ws, %y) : (!pto.tensor<32x32xf32>, !pto.tensor<32x32xf32>, !pto.tensor<32x32xf32>) -> !pto.token
  return
}
}

// -----

// Two pieces on different AIVs reading the same GM window (two views of
// %bias): each AIV loads it into its own UB (the lowering's load dedup
// stays within one AIV).
// CHECK-LABEL: func.func private @mix_shared_window(
// CHECK:         %[[B0:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] {pto_isa.subblock = 0 : i64} : !pto_isa.tile<ub, 16x32xf32>
// CHECK-NEXT:    pto_isa.tload %{{.*}}[%c0, %c0] into %[[B0]]
// CHECK:         %[[B1:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] {pto_isa.subblock = 1 : i64} : !pto_isa.tile<ub, 16x32xf32>
// CHECK-NEXT:    pto_isa.tload %{{.*}}[%c0, %c0] into %[[B1]]
// CHECK:         pto_isa.tadd %{{.*}}, %[[B1]]
module attributes {pto.arch = #pto.arch<DAV_3510>} {
func.func private @mix_shared_window(%a: !pto.tensor<32x32xf32>, %ws: !pto.tensor<32x32xf32>,
                                     %bias: !pto.tensor<16x32xf32>, %y: !pto.tensor<32x32xf32>)
    attributes {pto.leaf = #pto.core<mix>, pto.family = "M1"} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %a0 = pto.view %a[%c0, %c0] : !pto.tensor<32x32xf32> -> !pto.tile<32x32xf32>
  %s = pto.matmul %a0, %a0 {cube_tile = #pto.cube_tile<m = [32, 32], k = [32, 32], n = [32, 32]>} : !pto.tile<32x32xf32>, !pto.tile<32x32xf32> -> !pto.tile<32x32xf32>
  pto.assemble %s, %ws [%c0, %c0] : !pto.tile<32x32xf32>, !pto.tensor<32x32xf32>
  %v0 = pto.view %ws[%c0, %c0] : !pto.tensor<32x32xf32> -> !pto.tile<16x32xf32>
  %b0 = pto.view %bias[%c0, %c0] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
  %d0 = pto.add %v0, %b0 : !pto.tile<16x32xf32>, !pto.tile<16x32xf32> -> !pto.tile<16x32xf32>
  pto.assemble %d0, %y [%c0, %c0] : !pto.tile<16x32xf32>, !pto.tensor<32x32xf32>
  %v1 = pto.view %ws[%c16, %c0] : !pto.tensor<32x32xf32> -> !pto.tile<16x32xf32>
  %b1 = pto.view %bias[%c0, %c0] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
  %d1 = pto.add %v1, %b1 : !pto.tile<16x32xf32>, !pto.tile<16x32xf32> -> !pto.tile<16x32xf32>
  pto.assemble %d1, %y [%c16, %c0] : !pto.tile<16x32xf32>, !pto.tensor<32x32xf32>
  return
}

func.func private @mix_shared_root(%a: !pto.tensor<32x32xf32>, %bias: !pto.tensor<16x32xf32>, %y: !pto.tensor<32x32xf32>)
    attributes {pto.root} {
  %ws = pto.workspace {pto.on_chip} : !pto.tensor<32x32xf32>
  %t = pto.launch @mix_shared_window(%a, %ws, %bias, %y) : (!pto.tensor<32x32xf32>, !pto.tensor<32x32xf32>, !pto.tensor<16x32xf32>, !pto.tensor<32x32xf32>) -> !pto.token
  return
}
}

// -----

// A MIX leaf shared by two launches that store and view at different rows
// (pto-outline passes the offsets): the pairing is made per launch (the
// view's window lies in the stored piece at both), and the window's row in
// the piece is a run-time value, the view's row less the store's.
// CHECK-LABEL: func.func private @mix_pairs(
// CHECK-SAME:    %{{[^:]*}}: !pto.tensor<16x16xf32>, %{{[^:]*}}: !pto.tensor<32x16xf32>, %{{[^:]*}}: !pto.tensor<32x16xf32>, %[[R:[^:]*]]: index, %[[RV:[^:]*]]: index)
// CHECK:         %[[ACC:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] : !pto_isa.tile<l0c, 16x16xf32>
// CHECK:         %[[AT:.*]] = arith.subi %[[RV]], %[[R]] : index
// CHECK:         %[[V:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] {pto_isa.ring_slot = 0 : i64, pto_isa.subblock = 0 : i64} : !pto_isa.tile<ub, 8x16xf32>
// CHECK-NEXT:    pto_isa.textract %[[ACC]][%[[AT]]] into %[[V]] : !pto_isa.tile<l0c, 16x16xf32>, !pto_isa.tile<ub, 8x16xf32>
module attributes {pto.arch = #pto.arch<DAV_3510>} {
func.func private @mix_pairs(%a: !pto.tensor<16x16xf32>, %ws: !pto.tensor<32x16xf32>, %y: !pto.tensor<32x16xf32>, %r: index, %rv: index)
    attributes {pto.leaf = #pto.core<mix>, pto.family = "M1"} {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %a0 = pto.view %a[%c0, %c0] : !pto.tensor<16x16xf32> -> !pto.tile<16x16xf32>
  %s = pto.matmul %a0, %a0 {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>} : !pto.tile<16x16xf32>, !pto.tile<16x16xf32> -> !pto.tile<16x16xf32>
  pto.assemble %s, %ws [%r, %c0] : !pto.tile<16x16xf32>, !pto.tensor<32x16xf32>
  %v = pto.view %ws[%rv, %c0] : !pto.tensor<32x16xf32> -> !pto.tile<8x16xf32>
  %d = pto.mul %v, %two : !pto.tile<8x16xf32>, f32 -> !pto.tile<8x16xf32>
  pto.assemble %d, %y [%rv, %c0] : !pto.tile<8x16xf32>, !pto.tensor<32x16xf32>
  return
}

func.func private @mix_pairs_root(%a: !pto.tensor<16x16xf32>, %y: !pto.tensor<32x16xf32>)
    attributes {pto.root} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c24 = arith.constant 24 : index
  %ws = pto.workspace {pto.on_chip} : !pto.tensor<32x16xf32>
  %t0 = pto.launch @mix_pairs(%a, %ws, %y, %c0, %c8) : (!pto.tensor<16x16xf32>, !pto.tensor<32x16xf32>, !pto.tensor<32x16xf32>, index, index) -> !pto.token
  %t1 = pto.launch @mix_pairs(%a, %ws, %y, %c16, %c24) : (!pto.tensor<16x16xf32>, !pto.tensor<32x16xf32>, !pto.tensor<32x16xf32>, index, index) -> !pto.token
  return
}
}

// -----

// log is TLOG (its precision kept); tanh, which pto-isa lacks, is
// 1 - 2 / (exp(2x) + 1) in f32: an f16 source is widened first (TCVT, exact)
// and the result rounded back (RINT).
// CHECK-LABEL: func.func private @log_tanh(
// CHECK-DAG:     %[[MTWO:.*]] = arith.constant -2.000000e+00 : f32
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:         pto_isa.tlog %{{.*}} into %[[L:[^ ]*]] {precision = #pto.precision<HIGH_PRECISION>}
// CHECK:         pto_isa.tmuls %[[L]], %[[TWO]] into %[[T2:[^ ]*]]
// CHECK-NEXT:    %[[E:.*]] = pto_isa.alloc_tile
// CHECK-NEXT:    pto_isa.texp %[[T2]] into %[[E]] :
// CHECK:         pto_isa.tadds %[[E]], %[[ONE]] into %[[EP1:[^ ]*]]
// CHECK:         pto_isa.trecip %[[EP1]] into %[[R:[^ ]*]]
// CHECK:         pto_isa.tmuls %[[R]], %[[MTWO]] into %[[S:[^ ]*]]
// CHECK:         pto_isa.tadds %[[S]], %[[ONE]] into %[[TH:[^ ]*]] : !pto_isa.tile<ub, 16x64xf32>, f32, !pto_isa.tile<ub, 16x64xf32>
// CHECK:         pto_isa.tcvt %{{.*}} into %[[W:[^ ]*]] mode <NONE> {{.*}} : !pto_isa.tile<ub, 16x64xf16>, !pto_isa.tile<ub, 16x64xf32>
// CHECK-NEXT:    %[[W2:.*]] = pto_isa.alloc_tile
// CHECK-NEXT:    pto_isa.tmuls %[[W]], %[[TWO]] into %[[W2]]
// CHECK:         pto_isa.tcvt %{{.*}} into %{{.*}} mode <RINT> {{.*}} : !pto_isa.tile<ub, 16x64xf32>, !pto_isa.tile<ub, 16x64xf16>
// CHECK:         return
func.func private @log_tanh(%a: !pto.tensor<16x64xf32>, %h: !pto.tensor<16x64xf16>,
                            %out: !pto.tensor<16x64xf32>, %out16: !pto.tensor<16x64xf16>)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1", arch = #pto.arch<DAV_3510>} {
  %x = pto.view %a[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %l = pto.log %x {precision = #pto.precision<HIGH_PRECISION>} : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  %t = pto.tanh %l : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
  pto.assemble %t, %out [0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
  %y = pto.view %h[0, 0] : !pto.tensor<16x64xf16> -> !pto.tile<16x64xf16>
  %t16 = pto.tanh %y : !pto.tile<16x64xf16> -> !pto.tile<16x64xf16>
  pto.assemble %t16, %out16 [0, 0] : !pto.tile<16x64xf16>, !pto.tensor<16x64xf16>
  return
}

// -----

// A bitcast: TRESHAPE names the loaded f32 tile's bytes as i8 (the same rows,
// 32 bytes per row), with the valid columns scaled by 4.
// CHECK-LABEL: func.func private @bitcast_leaf(
// CHECK:         %[[X:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] : !pto_isa.tile<ub, 16x8xf32>
// CHECK:         pto_isa.tload
// CHECK:         %[[D:.*]] = pto_isa.alloc_tile valid [%{{.*}}, %{{.*}}] : !pto_isa.tile<ub, 16x32xi8>
// CHECK-NEXT:    pto_isa.treshape %[[X]] into %[[D]] : !pto_isa.tile<ub, 16x8xf32>, !pto_isa.tile<ub, 16x32xi8>
// CHECK:         pto_isa.tstore %[[D]]
func.func private @bitcast_leaf(%x: !pto.tensor<?x8xf32>, %y: !pto.tensor<?x32xi8>, %r: index, %v: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %t = pto.view %x[%r, %c0] valid [%v, 8] : !pto.tensor<?x8xf32> -> !pto.tile<16x8xf32>
  %u = pto.bitcast %t : !pto.tile<16x8xf32> -> !pto.tile<16x32xi8>
  pto.assemble %u, %y[%r, %c0] : !pto.tile<16x32xi8>, !pto.tensor<?x32xi8>
  return
}

// -----

// Long transfers (docs/ISA.md, "Long transfers"): a GM <-> UB transfer
// moves at most 4095 rows on A2/A3. A tile only copied GM -> GM through UB
// (SK-01's [4096, 1] l and m at q_tile = 4096) becomes chunks of at most
// that many rows, each loaded and stored on its own, valid rows
// min(max(v - start, 0), rows); no whole tile.
// CHECK-LABEL: func.func private @long_copy(
// CHECK-SAME:    %[[WS:[^:]*]]: !pto.tensor<4096x1xf32>, %[[OUT:[^:]*]]: !pto.tensor<?x1xf32>, %[[R:[^:]*]]: index, %[[V:[^:]*]]: index)
// CHECK-DAG:     %[[C2048:.*]] = arith.constant 2048 : index
// CHECK:         %[[VR:.*]] = arith.minsi %[[V]], %{{.*}} : index
// CHECK-NEXT:    %[[R0:.*]] = arith.maxsi %[[VR]], %{{.*}} : index
// CHECK-NEXT:    %[[V0:.*]] = arith.minsi %[[R0]], %[[C2048]] : index
// CHECK-NEXT:    %[[T0:.*]] = pto_isa.alloc_tile valid [%[[V0]], %{{.*}}] : !pto_isa.tile<ub, 2048x8xf32>
// CHECK-NEXT:    %[[S1:.*]] = arith.subi %[[VR]], %[[C2048]] : index
// CHECK-NEXT:    %[[R1:.*]] = arith.maxsi %[[S1]], %{{.*}} : index
// CHECK-NEXT:    %[[V1:.*]] = arith.minsi %[[R1]], %[[C2048]] : index
// CHECK-NEXT:    %[[T1:.*]] = pto_isa.alloc_tile valid [%[[V1]], %{{.*}}] : !pto_isa.tile<ub, 2048x8xf32>
// CHECK-NEXT:    pto_isa.tload %[[WS]][%{{.*}}, %{{.*}}] into %[[T0]]
// CHECK-NEXT:    pto_isa.tload %[[WS]][%[[C2048]], %{{.*}}] into %[[T1]]
// CHECK-NEXT:    pto_isa.tstore %[[T0]] into %[[OUT]][%[[R]], %{{.*}}]
// CHECK-NEXT:    %[[R2048:.*]] = arith.addi %[[R]], %[[C2048]] : index
// CHECK-NEXT:    pto_isa.tstore %[[T1]] into %[[OUT]][%[[R2048]], %{{.*}}]
// CHECK-NOT:     4096x8xf32
// CHECK:         return
func.func private @long_copy(%ws: !pto.tensor<4096x1xf32>, %out: !pto.tensor<?x1xf32>, %r: index, %v: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %x = pto.view %ws[%c0, %c0] valid [%v, 1] : !pto.tensor<4096x1xf32> -> !pto.tile<4096x1xf32>
  pto.assemble %x, %out [%r, %c0] : !pto.tile<4096x1xf32>, !pto.tensor<?x1xf32>
  return
}

// -----

// A long tile that is computed on stays whole: each chunk (at most 1024
// rows, so that a chunk beside the >= 128 KiB tile stays small) is loaded and
// inserted at its rows, and for the store extracted and stored, one after
// another.
// CHECK-LABEL: func.func private @long_compute(
// CHECK:         %[[X:.*]] = pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 4500x8xf32>
// CHECK-COUNT-5: pto_isa.alloc_tile {{.*}} : !pto_isa.tile<ub, 900x8xf32>
// CHECK:         pto_isa.tload %{{.*}} into %[[C0:.*]] : !pto.tensor<4500x1xf32>, !pto_isa.tile<ub, 900x8xf32>
// CHECK-NEXT:    pto_isa.tinsert %[[C0]] into %[[X]] : !pto_isa.tile<ub, 900x8xf32>, !pto_isa.tile<ub, 4500x8xf32>
// CHECK-NEXT:    pto_isa.tload %{{.*}} into %[[C1:.*]] : !pto.tensor<4500x1xf32>, !pto_isa.tile<ub, 900x8xf32>
// CHECK-NEXT:    pto_isa.tinsert %[[C1]] into %[[X]] {index_row = 900 : i64}
// CHECK:         pto_isa.tinsert %{{.*}} into %[[X]] {index_row = 3600 : i64}
// CHECK:         pto_isa.texp %[[X]] into %[[E:.*]] : !pto_isa.tile<ub, 4500x8xf32>
// CHECK:         pto_isa.textract %[[E]] into %[[D0:.*]] : !pto_isa.tile<ub, 4500x8xf32>, !pto_isa.tile<ub, 900x8xf32>
// CHECK-NEXT:    pto_isa.tstore %[[D0]] into
// CHECK-NEXT:    pto_isa.textract %[[E]] into %[[D1:.*]] {index_row = 900 : i64}
// CHECK-NEXT:    arith.addi
// CHECK-NEXT:    pto_isa.tstore %[[D1]] into
// CHECK-NOT:     pto_isa.tload
// CHECK:         return
func.func private @long_compute(%ws: !pto.tensor<4500x1xf32>, %out: !pto.tensor<?x1xf32>, %r: index, %v: index)
    attributes {pto.leaf = #pto.core<vector>, pto.family = "V1"} {
  %c0 = arith.constant 0 : index
  %x = pto.view %ws[%c0, %c0] valid [%v, 1] : !pto.tensor<4500x1xf32> -> !pto.tile<4500x1xf32>
  %e = pto.exp %x : !pto.tile<4500x1xf32> -> !pto.tile<4500x1xf32>
  pto.assemble %e, %out [%r, %c0] : !pto.tile<4500x1xf32>, !pto.tensor<?x1xf32>
  return
}

// RUN: pto-translate --pto-to-cpp %s | FileCheck %s
// The GM region each launch passes the runtime (docs/Runtime.md, "Launches
// of different root instances"): per tensor argument and access kind, the
// box its leaf's TLOAD / TSTORE windows lie in, as bounds over the launch's
// operands (`row` is s[2], `n` s[3], v's rows s[4]).
// - q: a rolled piece loop loads rows row + 64 i, i in [0, 2), 64 rows each:
//   rows [row, row + 128), columns [0, 64).
// - k: a transposed (DN) load of a 64x64 tile at a row from a scalar table
//   (row or n): rows [min(row, n), max(row, n) + 64), columns [64, 128).
// - v: a row the interval arithmetic does not follow (a division): every
//   row of v, columns [0, 64).
// CHECK: ri.launch(pto_rt::Core::Cube, "k_leaf_C1_0", {},
// CHECK-SAME: {{[{][{]}}a0, 1, sizeof(bfloat16_t), 128, (int64_t)s[2], (int64_t)s[2] + 128, int64_t(0), int64_t(64)},
// CHECK-SAME: {a1, 1, sizeof(bfloat16_t), 128, std::min<int64_t>({(int64_t)s[2], (int64_t)s[3]}), std::max<int64_t>({(int64_t)s[2] + 64, (int64_t)s[3] + 64}), int64_t(64), int64_t(128)},
// CHECK-SAME: {a4, 1, sizeof(bfloat16_t), 128, 0, (int64_t)s[4], int64_t(0), int64_t(64)}},
func.func private @k_leaf_C1_0(%q: !pto.tensor<?x128xbf16>, %k: !pto.tensor<?x128xbf16>,
                               %row: index, %n: index, %v: !pto.tensor<?x128xbf16>)
    attributes {pto.leaf = #pto.core<cube>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %a = pto_isa.alloc_tile valid [%c64, %c64] at 0 : !pto_isa.tile<l1, 64x64xbf16>
  %b = pto_isa.alloc_tile valid [%c64, %c64] at 8192 : !pto_isa.tile<l1, 64x64xbf16, zn>
  scf.for %i = %c0 to %c2 step %c1 {
    %o = arith.muli %i, %c64 : index
    %r = arith.addi %row, %o : index
    pto_isa.tload %q[%r, %c0] into %a : !pto.tensor<?x128xbf16>, !pto_isa.tile<l1, 64x64xbf16>
  }
  %t = tensor.from_elements %row, %n : tensor<2xindex>
  %x = tensor.extract %t[%c1] : tensor<2xindex>
  pto_isa.tload %k[%x, %c64] into %b transpose : !pto.tensor<?x128xbf16>, !pto_isa.tile<l1, 64x64xbf16, zn>
  %h = arith.divsi %row, %c2 : index
  pto_isa.tload %v[%h, %c0] into %a : !pto.tensor<?x128xbf16>, !pto_isa.tile<l1, 64x64xbf16>
  return
}
func.func private @k_root(%q: !pto.tensor<?x128xbf16>, %k: !pto.tensor<?x128xbf16>, %row: index, %n: index, %v: !pto.tensor<?x128xbf16>) attributes {pto.root} {
  %t = pto.launch @k_leaf_C1_0(%q, %k, %row, %n, %v) : (!pto.tensor<?x128xbf16>, !pto.tensor<?x128xbf16>, index, index, !pto.tensor<?x128xbf16>) -> !pto.token
  return
}

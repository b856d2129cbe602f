// pto-run --no-numerics runs every op family with the same run statistics as
// the numeric run: elementwise binary and unary ops, compare and where, a
// reduction, and the gathermask (which the shape-only mode refused before it
// skipped the data of a shape-only result).
// RUN: pto-run %s --random 1 --run-stats 2>&1 | sed 's/, [0-9.]* s$//' > %t.numeric
// RUN: pto-run %s --no-numerics --input x=shape:16x64:f32 --run-stats 2>&1 | sed 's/, [0-9.]* s$//' > %t.shapes
// RUN: diff %t.numeric %t.shapes
// RUN: FileCheck %s < %t.shapes
// CHECK: pto-run: @families: 0 loop iterations, {{[0-9]+}} ops, 0 matmul FLOP, 0 elements accumulated, 3584 vector elements

pto.kernel @families(%x: !pto.tensor<16x64xf32>, %out: !pto.tensor<16x32xf32>,
                     %rowsum: !pto.tensor<16x1xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
  %even = pto.gathermask %t, pattern = 1 : !pto.tile<16x64xf32> -> !pto.tile<16x32xf32>
  %e = pto.exp %even : !pto.tile<16x32xf32> -> !pto.tile<16x32xf32>
  %m = pto.mul %e, %even : !pto.tile<16x32xf32>, !pto.tile<16x32xf32> -> !pto.tile<16x32xf32>
  %pos = pto.compare ge, %m, %zero : !pto.tile<16x32xf32>, f32 -> !pto.tile<16x32xi1>
  %w = pto.where %pos, %m, %e : !pto.tile<16x32xi1>, !pto.tile<16x32xf32>, !pto.tile<16x32xf32> -> !pto.tile<16x32xf32>
  %s = pto.sum %w dim = 1 keepdim : !pto.tile<16x32xf32> -> !pto.tile<16x1xf32>
  pto.assemble %w, %out[0, 0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
  pto.assemble %s, %rowsum[0, 0] : !pto.tile<16x1xf32>, !pto.tensor<16x1xf32>
}

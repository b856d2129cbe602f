// pto-run --no-numerics: the same run statistics (loop iterations, ops,
// matmul FLOP, accumulated and vector elements) as the numeric run, with
// float arguments given as shapes and integer arguments as values; and the
// diagnostics of the mode.
// RUN: %python -c "import numpy as np; np.save('%t.offsets.npy', np.array([0, 40, 40, 100], dtype=np.int32))"
// RUN: pto-run %s --random 1 --input offsets=%t.offsets.npy --shape x=100x32 --run-stats 2>&1 | sed 's/, [0-9.]* s$//' > %t.numeric
// RUN: pto-run %s --no-numerics --input offsets=%t.offsets.npy --input x=shape:100x32:bf16 --run-stats 2>&1 | sed 's/, [0-9.]* s$//' > %t.shapes
// RUN: diff %t.numeric %t.shapes
// RUN: FileCheck %s --check-prefix=STATS < %t.shapes
// STATS: pto-run: @rows: 3 loop iterations, {{[0-9]+}} ops, 204800 matmul FLOP, 3200 elements accumulated, 3200 vector elements

// Float arguments may also be left out (their shapes from --shape) or given
// as .npy files (only the header is read).
// RUN: pto-run %s --no-numerics --input offsets=%t.offsets.npy --shape x=100x32 --run-stats 2>&1 | sed 's/, [0-9.]* s$//' | diff %t.numeric -

// RUN: not pto-run %s --input offsets=%t.offsets.npy --input x=shape:100x32 2>&1 | FileCheck %s --check-prefix=NEEDMODE
// NEEDMODE: pto-run: error: input 'x' is given as a shape, which only a --no-numerics run accepts; add --no-numerics or give a .npy file

// RUN: not pto-run %s --no-numerics --input x=shape:100x32 2>&1 | FileCheck %s --check-prefix=INTS
// INTS: pto-run: error: argument 'offsets' holds integers (offsets or indices) that the schedule may depend on; give --input offsets=FILE.npy (--no-numerics needs the values of integer arguments)

// RUN: not pto-run %s --no-numerics --input offsets=%t.offsets.npy --input x=shape:100x32:f32 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: pto-run: error: input 'x': 'shape:100x32:f32': the element type is f32 but the argument is bf16; a shape input is shape:AxBx...[:DTYPE] with sizes >= 0, e.g. shape:1x8x4096x128:bf16

// RUN: not pto-run %s --no-numerics --input offsets=%t.offsets.npy --input x=shape:100xq 2>&1 | FileCheck %s --check-prefix=BADSIZE
// BADSIZE: pto-run: error: input 'x': 'shape:100xq': 'q' is not a size >= 0

// RUN: not pto-run %s --no-numerics --input offsets=%t.offsets.npy --shape x=100x32 --output-dir %t.out 2>&1 | FileCheck %s --check-prefix=OUTPUTS
// OUTPUTS: pto-run: error: --no-numerics computes no tensor data, so there is nothing for --output / --output-dir / --save-inputs to write

// A scalar read of a tensor given as a shape is a fault naming the fix.
// RUN: not pto-run %s --no-numerics --input offsets=shape:4 --shape x=100x32 2>&1 | FileCheck %s --check-prefix=READ
// READ: error: pto-run: pto.read of 'offsets' needs its values, which a --no-numerics run does not have (the tensor was given as a shape, or the kernel wrote it); give --input offsets=FILE.npy, or run without --no-numerics

// The rows of segment b (offsets[b] to offsets[b + 1], at most 64) times a
// 32x32 ones matrix, exp'd, accumulated into out: the schedule depends on the
// integer offsets only.
pto.kernel @rows(%x: !pto.tensor<?x32xbf16>, %offsets: !pto.tensor<4xi32>,
                 %out: !pto.tensor<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %w = pto.full 1.0 : !pto.tile<32x32xbf16>
  pto.loop "B" %b = %c0 to %c3 step %c1 {
    %start = pto.read %offsets[%b] : !pto.tensor<4xi32>
    %b1 = arith.addi %b, %c1 : index
    %end = pto.read %offsets[%b1] : !pto.tensor<4xi32>
    %rows = arith.subi %end, %start : index
    %t = pto.view %x[%start, 0] valid [%rows, 32] : !pto.tensor<?x32xbf16> -> !pto.tile<64x32xbf16>
    %p = pto.matmul %t, %w {cube_tile = #pto.cube_tile<m = [64, 64], k = [32, 32], n = [32, 32]>} : !pto.tile<64x32xbf16>, !pto.tile<32x32xbf16> -> !pto.tile<64x32xf32>
    %e = pto.exp %p : !pto.tile<64x32xf32> -> !pto.tile<64x32xf32>
    pto.atomic_add %e, %out[0, 0] : !pto.tile<64x32xf32>, !pto.tensor<64x32xf32>
  }
}

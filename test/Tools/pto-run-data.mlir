// pto-run's data: --input-dir reads DIR/NAME.npy (the emitted program's
// --inputs), written arguments without data start at zero, --random infers
// the shapes the kernel fixes (y through pto.reshape with pto.dim %x),
// --save-inputs writes what the run starts from, and output folders are
// made (or refused) before the run.
// RUN: rm -rf %t && mkdir -p %t/empty
// RUN: pto-run %s --random 1 --shape x=8x32 --save-inputs %t/in --output-dir %t/a/b
// RUN: %python -c "import numpy as np; x = np.load('%t/in/x.npy'); y0 = np.load('%t/in/y.npy'); y = np.load('%t/a/b/y.npy'); assert x.shape == y.shape == (8, 32) and (y0 == 0).all() and (y == 2 * x).all() and x.std() > 0"
// RUN: pto-run %s --input-dir %t/in --output y=%t/c/y.npy
// RUN: cmp %t/a/b/y.npy %t/c/y.npy
// RUN: rm %t/in/y.npy
// RUN: pto-run %s --input-dir %t/in --output-dir %t/d
// RUN: cmp %t/a/b/y.npy %t/d/y.npy

// RUN: not pto-run %s --input-dir %t/empty 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: pto-run: error: no data for argument 'x': no x.npy in --input-dir '{{.*}}empty'; give --input x=FILE.npy, or --random SEED to generate it
// RUN: not pto-run %s --input-dir %t/nowhere 2>&1 | FileCheck %s --check-prefix=NODIR
// NODIR: pto-run: error: --input-dir '{{.*}}nowhere' is not a folder

// RUN: touch %t/plain
// RUN: not pto-run %s --input-dir %t/in --output-dir %t/plain/out --run-stats 2>&1 | FileCheck %s --check-prefix=NOTDIR
// NOTDIR-NOT: loop iterations
// NOTDIR: pto-run: error: --output-dir: '{{.*}}plain' exists and is not a folder, so output folder '{{.*}}plain/out' cannot be created there
// NOTDIR-NOT: loop iterations
// RUN: not pto-run %s --input-dir %t/in --output y=%t/plain/y.npy --run-stats 2>&1 | FileCheck %s --check-prefix=NOTDIR2
// NOTDIR2: pto-run: error: --output y: '{{.*}}plain' exists and is not a folder

// RUN: pto-run %s --input-dir %t/in --progress 2>&1 | FileCheck %s --check-prefix=PROGRESS
// PROGRESS: pto-run: 0 launches, {{[0-9.]+}} s elapsed (done)

pto.kernel @twice(%x: !pto.tensor<?x32xf32>, %y: !pto.tensor<?x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = pto.dim %x, 0 : !pto.tensor<?x32xf32>
  %y2 = pto.reshape %y [%n, 32] inplace : !pto.tensor<?x32xf32> -> !pto.tensor<?x32xf32>
  %trips = arith.ceildivsi %n, %c4 : index
  pto.loop "L" %i = %c0 to %trips step %c1 {
    %base = arith.muli %i, %c4 : index
    %t = pto.view %x[%base, 0] : !pto.tensor<?x32xf32> -> !pto.tile<4x32xf32>
    %s = pto.add %t, %t : !pto.tile<4x32xf32>, !pto.tile<4x32xf32> -> !pto.tile<4x32xf32>
    pto.atomic_add %s, %y2[%base, 0] : !pto.tile<4x32xf32>, !pto.tensor<?x32xf32>
  }
}

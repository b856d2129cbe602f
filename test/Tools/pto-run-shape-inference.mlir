// pto-run's shapes for generated and zero arguments: y is stored exactly
// where x is viewed (the same offsets), so it takes x's shape; without
// that, --shape is needed and the message says so.
// RUN: rm -rf %t && pto-run %s --kernel mirror --random 1 --shape x=40x64 --output-dir %t
// RUN: %python -c "import numpy as np; y = np.load('%t/y.npy'); assert y.shape == (40, 64) and (y[:, :] != 0).any()"
// RUN: not pto-run %s --kernel shifted --random 1 --shape x=40x64 2>&1 | FileCheck %s
// CHECK: pto-run: error: argument 'y' has dynamic dims the kernel does not fix from the other arguments; give --shape y=AxB... to zero-initialise it

pto.kernel @mirror(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %rows = pto.dim %x, 0 : !pto.tensor<?x64xf32>
  %n = arith.ceildivsi %rows, %c16 : index
  pto.loop "L" %i = %c0 to %n step %c1 {
    %off = arith.muli %i, %c16 : index
    %left = arith.subi %rows, %off : index
    %valid = arith.minsi %left, %c16 : index
    %t = pto.view %x[%off, 0] valid [%valid, 64] : !pto.tensor<?x64xf32> -> !pto.tile<16x64xf32>
    %e = pto.exp %t : !pto.tile<16x64xf32> -> !pto.tile<16x64xf32>
    pto.assemble %e, %y[%off, 0] : !pto.tile<16x64xf32>, !pto.tensor<?x64xf32>
  }
}

// The store is one block further down: y's extent is not x's.
pto.kernel @shifted(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %rows = pto.dim %x, 0 : !pto.tensor<?x64xf32>
  %n = arith.ceildivsi %rows, %c16 : index
  pto.loop "L" %i = %c0 to %n step %c1 {
    %off = arith.muli %i, %c16 : index
    %next = arith.addi %off, %c16 : index
    %t = pto.view %x[%off, 0] : !pto.tensor<?x64xf32> -> !pto.tile<16x64xf32>
    pto.assemble %t, %y[%next, 0] : !pto.tile<16x64xf32>, !pto.tensor<?x64xf32>
  }
}

// A kernel runs on generated data; outputs start at zero and hold the result.
// RUN: pto-run %s --random 3 --output out=%t.npy --run-stats 2>&1 | FileCheck %s
// RUN: %python -c "import numpy as np; a = np.load('%t.npy'); assert a.shape == (4, 32) and (a == 3.0).all(), a"

// CHECK: pto-run: @ones: 3 loop iterations, {{.*}} 0 matmul FLOP, 384 elements accumulated
pto.kernel @ones(%out: !pto.tensor<4x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  pto.loop "L" %i = %c0 to %c3 step %c1 {
    %one = pto.full 1.0 : !pto.tile<4x32xf32>
    pto.atomic_add %one, %out[0, 0] : !pto.tile<4x32xf32>, !pto.tensor<4x32xf32>
  }
}

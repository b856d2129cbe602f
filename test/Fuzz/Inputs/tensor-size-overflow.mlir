pto.kernel @huge(%out: !pto.tensor<4611686018427387904x4xf32>) {
  %t = pto.full 1.0 : !pto.tile<4611686018427387904x4xf32>
  pto.atomic_add %t, %out[0, 0] : !pto.tile<4611686018427387904x4xf32>, !pto.tensor<4611686018427387904x4xf32>
}

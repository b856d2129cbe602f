pto.kernel @many(%out: !pto.tensor<65536x65536xf32>) {
  %t = pto.full 1.0 {vec_tile = #pto.vec_tile<[16, 16]>} : !pto.tile<65536x65536xf32>
  pto.atomic_add %t, %out[0, 0] : !pto.tile<65536x65536xf32>, !pto.tensor<65536x65536xf32>
}

// The DAV_2201 vector unit does not divide i8 tiles.
pto.kernel @bad_div(%x: !pto.tensor<64x64xi8>, %y: !pto.tensor<64x64xf32>) {
  %t = pto.view %x[0, 0] : !pto.tensor<64x64xi8> -> !pto.tile<16x64xi8>
  %d = pto.div %t, %t : !pto.tile<16x64xi8>, !pto.tile<16x64xi8> -> !pto.tile<16x64xf32>
  pto.atomic_add %d, %y[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<64x64xf32>
}

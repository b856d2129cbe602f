// NaN and Inf through every kind of op (python/tests/test_pto_run_hostile.py).
pto.kernel @ieee(%x: !pto.tensor<4x16xf32>, %y: !pto.tensor<4x16xf32>, %a: !pto.tensor<4x16xbf16>,
                 %b: !pto.tensor<16x16xbf16>, %sum: !pto.tensor<4x16xf32>, %prod: !pto.tensor<4x16xf32>,
                 %ex: !pto.tensor<4x16xf32>, %mx: !pto.tensor<4x16xf32>, %rs: !pto.tensor<4x1xf32>,
                 %mm: !pto.tensor<4x16xf32>, %bf: !pto.tensor<4x16xbf16>, %dv: !pto.tensor<4x16xf32>) {
  %tx = pto.view %x[0, 0] : !pto.tensor<4x16xf32> -> !pto.tile<4x16xf32>
  %ty = pto.view %y[0, 0] : !pto.tensor<4x16xf32> -> !pto.tile<4x16xf32>
  %s = pto.add %tx, %ty : !pto.tile<4x16xf32>, !pto.tile<4x16xf32> -> !pto.tile<4x16xf32>
  pto.assemble %s, %sum[0, 0] : !pto.tile<4x16xf32>, !pto.tensor<4x16xf32>
  %p = pto.mul %tx, %ty : !pto.tile<4x16xf32>, !pto.tile<4x16xf32> -> !pto.tile<4x16xf32>
  pto.assemble %p, %prod[0, 0] : !pto.tile<4x16xf32>, !pto.tensor<4x16xf32>
  %e = pto.exp %tx {precision = #pto.precision<INTRINSIC>} : !pto.tile<4x16xf32> -> !pto.tile<4x16xf32>
  pto.assemble %e, %ex[0, 0] : !pto.tile<4x16xf32>, !pto.tensor<4x16xf32>
  %m = pto.max %tx, %ty : !pto.tile<4x16xf32>, !pto.tile<4x16xf32> -> !pto.tile<4x16xf32>
  pto.assemble %m, %mx[0, 0] : !pto.tile<4x16xf32>, !pto.tensor<4x16xf32>
  %r = pto.sum %tx dim = 1 keepdim : !pto.tile<4x16xf32> -> !pto.tile<4x1xf32>
  pto.assemble %r, %rs[0, 0] : !pto.tile<4x1xf32>, !pto.tensor<4x1xf32>
  %ta = pto.view %a[0, 0] : !pto.tensor<4x16xbf16> -> !pto.tile<4x16xbf16>
  %tb = pto.view %b[0, 0] : !pto.tensor<16x16xbf16> -> !pto.tile<16x16xbf16>
  %c = pto.matmul %ta, %tb {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>}
      : !pto.tile<4x16xbf16>, !pto.tile<16x16xbf16> -> !pto.tile<4x16xf32>
  pto.assemble %c, %mm[0, 0] : !pto.tile<4x16xf32>, !pto.tensor<4x16xf32>
  %h = pto.cast %tx {mode = #pto.round_mode<RINT>} : !pto.tile<4x16xf32> -> !pto.tile<4x16xbf16>
  pto.assemble %h, %bf[0, 0] : !pto.tile<4x16xbf16>, !pto.tensor<4x16xbf16>
  %d = pto.div %tx, %ty {precision = #pto.precision<INTRINSIC>} : !pto.tile<4x16xf32>, !pto.tile<4x16xf32> -> !pto.tile<4x16xf32>
  pto.assemble %d, %dv[0, 0] : !pto.tile<4x16xf32>, !pto.tensor<4x16xf32>
}

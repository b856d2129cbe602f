// FP16 vector arithmetic (python/tests/test_pto_isa_real.py: both simulators, pto-run).
pto.kernel @fp16_vector(%x: !pto.tensor<16x64xf16>, %y: !pto.tensor<16x64xf16>,
                        %sum: !pto.tensor<16x64xf16>, %prod: !pto.tensor<16x64xf16>,
                        %ex: !pto.tensor<16x64xf16>, %dv: !pto.tensor<16x64xf16>,
                        %mx: !pto.tensor<16x64xf16>,
                        %rm: !pto.tensor<16x1xf16>, %sc: !pto.tensor<16x64xf16>) {
  %tx = pto.view %x[0, 0] : !pto.tensor<16x64xf16> -> !pto.tile<16x64xf16>
  %ty = pto.view %y[0, 0] : !pto.tensor<16x64xf16> -> !pto.tile<16x64xf16>
  %s = pto.add %tx, %ty : !pto.tile<16x64xf16>, !pto.tile<16x64xf16> -> !pto.tile<16x64xf16>
  pto.assemble %s, %sum[0, 0] : !pto.tile<16x64xf16>, !pto.tensor<16x64xf16>
  %p = pto.mul %tx, %ty : !pto.tile<16x64xf16>, !pto.tile<16x64xf16> -> !pto.tile<16x64xf16>
  pto.assemble %p, %prod[0, 0] : !pto.tile<16x64xf16>, !pto.tensor<16x64xf16>
  %e = pto.exp %tx {precision = #pto.precision<INTRINSIC>} : !pto.tile<16x64xf16> -> !pto.tile<16x64xf16>
  pto.assemble %e, %ex[0, 0] : !pto.tile<16x64xf16>, !pto.tensor<16x64xf16>
  %d = pto.div %tx, %ty {precision = #pto.precision<INTRINSIC>} : !pto.tile<16x64xf16>, !pto.tile<16x64xf16> -> !pto.tile<16x64xf16>
  pto.assemble %d, %dv[0, 0] : !pto.tile<16x64xf16>, !pto.tensor<16x64xf16>
  %m = pto.max %tx, %ty : !pto.tile<16x64xf16>, !pto.tile<16x64xf16> -> !pto.tile<16x64xf16>
  pto.assemble %m, %mx[0, 0] : !pto.tile<16x64xf16>, !pto.tensor<16x64xf16>
  %a = pto.amax %tx dim = 1 keepdim : !pto.tile<16x64xf16> -> !pto.tile<16x1xf16>
  pto.assemble %a, %rm[0, 0] : !pto.tile<16x1xf16>, !pto.tensor<16x1xf16>
  %c = arith.constant 0.3 : f16
  %q = pto.mul %tx, %c : !pto.tile<16x64xf16>, f16 -> !pto.tile<16x64xf16>
  pto.assemble %q, %sc[0, 0] : !pto.tile<16x64xf16>, !pto.tensor<16x64xf16>
}

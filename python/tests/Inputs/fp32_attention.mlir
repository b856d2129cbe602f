// An FP32 program for the real pto-isa CPU simulator
// (python/tests/test_pto_isa_real.py): everything in it runs numerically
// there (BF16 only type-checks without C++23 std::bfloat16_t).
//   S = Q K^T (K stepped: TMATMUL then TMATMUL_ACC; K through a DN view)
//   E = exp(S * 0.125 - m)   P := E, l = rowsum(E)
//   o += (E V) / l           (E back to the cube through GM; atomic add)
pto.kernel @fp32_attention(%q: !pto.tensor<64x96xf32>, %k: !pto.tensor<80x96xf32>, %v: !pto.tensor<80x48xf32>,
                           %m: !pto.tensor<64x1xf32>, %p: !pto.tensor<64x80xf32>, %l: !pto.tensor<64x1xf32>,
                           %o: !pto.tensor<64x48xf32>) {
  %scale = arith.constant 0.125 : f32
  %tq = pto.view %q[0, 0] : !pto.tensor<64x96xf32> -> !pto.tile<64x96xf32>
  %tk = pto.view %k[0, 0] : !pto.tensor<80x96xf32> -> !pto.tile<80x96xf32>
  %S = pto.matmul %tq, %tk {b_trans, cube_tile = #pto.cube_tile<m = [32, 64], k = [32, 96], n = [48, 96]>} : !pto.tile<64x96xf32>, !pto.tile<80x96xf32> -> !pto.tile<64x80xf32>
  %tm = pto.view %m[0, 0] : !pto.tensor<64x1xf32> -> !pto.tile<64x1xf32>
  %Ss = pto.mul %S, %scale {vec_tile = #pto.vec_tile<[16, 80]>} : !pto.tile<64x80xf32>, f32 -> !pto.tile<64x80xf32>
  %X = pto.sub %Ss, %tm {vec_tile = #pto.vec_tile<[16, 80]>} : !pto.tile<64x80xf32>, !pto.tile<64x1xf32> -> !pto.tile<64x80xf32>
  %E = pto.exp %X {precision = #pto.precision<INTRINSIC>, vec_tile = #pto.vec_tile<[16, 80]>} : !pto.tile<64x80xf32> -> !pto.tile<64x80xf32>
  %L = pto.sum %E dim = 1 keepdim {vec_tile = #pto.vec_tile<[16, 80]>} : !pto.tile<64x80xf32> -> !pto.tile<64x1xf32>
  pto.assemble %E, %p[0, 0] : !pto.tile<64x80xf32>, !pto.tensor<64x80xf32>
  pto.assemble %L, %l[0, 0] : !pto.tile<64x1xf32>, !pto.tensor<64x1xf32>
  %tv = pto.view %v[0, 0] : !pto.tensor<80x48xf32> -> !pto.tile<80x48xf32>
  %O = pto.matmul %E, %tv {cube_tile = #pto.cube_tile<m = [32, 64], k = [32, 96], n = [48, 48]>} : !pto.tile<64x80xf32>, !pto.tile<80x48xf32> -> !pto.tile<64x48xf32>
  %Od = pto.div %O, %L {precision = #pto.precision<INTRINSIC>, vec_tile = #pto.vec_tile<[16, 48]>} : !pto.tile<64x48xf32>, !pto.tile<64x1xf32> -> !pto.tile<64x48xf32>
  pto.atomic_add %Od, %o[0, 0] {vec_tile = #pto.vec_tile<[16, 48]>} : !pto.tile<64x48xf32>, !pto.tensor<64x48xf32>
}

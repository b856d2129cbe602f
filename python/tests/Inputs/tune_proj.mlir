// A row-block projection for pto-tune: out = exp(x w^T) * 0.5, 256-row blocks.
pto.kernel @proj(%x: !pto.tensor<?x128xbf16>, %w: !pto.tensor<256x128xbf16>,
                 %out: !pto.tensor<?x256xf32>)
    attributes {
      arch = #pto.arch<DAV_2201>,
      runtime_options = #pto.runtime_options<stitch_function_max_num = 512>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %rows = pto.dim %x, 0 : !pto.tensor<?x128xbf16>
  %blocks = arith.ceildivsi %rows, %c256 : index
  %wt = pto.view %w[0, 0] : !pto.tensor<256x128xbf16> -> !pto.tile<256x128xbf16>
  pto.loop "LOOP_rows" %i = %c0 to %blocks step %c1 {
    %r0 = arith.muli %i, %c256 : index
    %rest = arith.subi %rows, %r0 : index
    %valid = arith.minsi %rest, %c256 : index
    %xt = pto.view %x[%r0, 0] valid [%valid, 128] : !pto.tensor<?x128xbf16> -> !pto.tile<256x128xbf16>
    // The tuned attributes: one cube tile, one vector tile.
    %s = pto.matmul %xt, %wt {b_trans, cube_tile = #pto.cube_tile<m = [64, 64], k = [64, 64], n = [64, 64]>} : !pto.tile<256x128xbf16>, !pto.tile<256x128xbf16> -> !pto.tile<256x256xf32>
    %e = pto.exp %s {vec_tile = #pto.vec_tile<[16, 256]>} : !pto.tile<256x256xf32> -> !pto.tile<256x256xf32>
    %h = pto.mul %e, %e {vec_tile = #pto.vec_tile<[16, 256]>} : !pto.tile<256x256xf32>, !pto.tile<256x256xf32> -> !pto.tile<256x256xf32>
    pto.atomic_add %h, %out[%r0, 0] {vec_tile = #pto.vec_tile<[16, 256]>} : !pto.tile<256x256xf32>, !pto.tensor<?x256xf32>
  }
}

// RUN: pto-opt %s -split-input-file --pto-expand-tiles -verify-diagnostics -o /dev/null

// pto-expand-tiles creates at most 2^18 pieces per kernel: a tile config far too
// small for its tile shape (here 2^24 vector pieces, or 2^21 matmul K steps
// and output blocks) is an error at the op instead of billions of ops
// (docs/Guarantees.md).

pto.kernel @vector_pieces(%out: !pto.tensor<65536x65536xf32>) {
  // expected-error @+1 {{'pto.full' op would expand into more than 262144 pieces, over pto-expand-tiles' limit of 262144 pieces per kernel (0 already used); use a larger cube_tile / vec_tile for this tile shape}}
  %t = pto.full 1.0 {vec_tile = #pto.vec_tile<[16, 16]>} : !pto.tile<65536x65536xf32>
  pto.atomic_add %t, %out[0, 0] : !pto.tile<65536x65536xf32>, !pto.tensor<65536x65536xf32>
}

// -----

pto.kernel @matmul_pieces(%a: !pto.tensor<2048x8192xbf16>, %b: !pto.tensor<8192x2048xbf16>,
                          %out: !pto.tensor<2048x2048xf32>) {
  %ta = pto.view %a[0, 0] : !pto.tensor<2048x8192xbf16> -> !pto.tile<2048x8192xbf16>
  %tb = pto.view %b[0, 0] : !pto.tensor<8192x2048xbf16> -> !pto.tile<8192x2048xbf16>
  // expected-error @+1 {{'pto.matmul' op would expand into more than 262144 pieces}}
  %c = pto.matmul %ta, %tb {cube_tile = #pto.cube_tile<m = [16, 16], k = [16, 16], n = [16, 16]>}
      : !pto.tile<2048x8192xbf16>, !pto.tile<8192x2048xbf16> -> !pto.tile<2048x2048xf32>
  pto.atomic_add %c, %out[0, 0] : !pto.tile<2048x2048xf32>, !pto.tensor<2048x2048xf32>
}

// -----

// The budget is per kernel: many ops within it expand, the one that crosses it
// is reported with what was used before it.
pto.kernel @budget(%out: !pto.tensor<16384x16384xf32>) {
  %t = pto.full 1.0 {vec_tile = #pto.vec_tile<[128, 16384]>} : !pto.tile<16384x16384xf32>
  // expected-error @+1 {{'pto.full' op would expand into 262144 pieces, over pto-expand-tiles' limit of 262144 pieces per kernel (16384 already used)}}
  %u = pto.full 2.0 {vec_tile = #pto.vec_tile<[1, 1024]>} : !pto.tile<16384x16384xf32>
  pto.atomic_add %t, %out[0, 0] {vec_tile = #pto.vec_tile<[8192, 16384]>} : !pto.tile<16384x16384xf32>, !pto.tensor<16384x16384xf32>
  pto.atomic_add %u, %out[0, 0] : !pto.tile<16384x16384xf32>, !pto.tensor<16384x16384xf32>
}

// -----

// Each kernel of a module gets its own budget (a module of 100 SK-16 kernels
// is legitimate): the second kernel's report counts none of the first's.
module {
  pto.kernel @first(%out: !pto.tensor<16384x16384xf32>) {
    %t = pto.full 1.0 {vec_tile = #pto.vec_tile<[128, 16384]>} : !pto.tile<16384x16384xf32>
    pto.atomic_add %t, %out[0, 0] {vec_tile = #pto.vec_tile<[8192, 16384]>} : !pto.tile<16384x16384xf32>, !pto.tensor<16384x16384xf32>
  }
  pto.kernel @second(%out: !pto.tensor<16384x16384xf32>) {
    // expected-error @+1 {{'pto.full' op would expand into more than 262144 pieces, over pto-expand-tiles' limit of 262144 pieces per kernel (0 already used)}}
    %u = pto.full 2.0 {vec_tile = #pto.vec_tile<[1, 512]>} : !pto.tile<16384x16384xf32>
    pto.atomic_add %u, %out[0, 0] : !pto.tile<16384x16384xf32>, !pto.tensor<16384x16384xf32>
  }
}

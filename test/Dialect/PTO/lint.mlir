// RUN: pto-opt %s --pto-lint -split-input-file -verify-diagnostics -o /dev/null

// Kernel-generic rules (--pto-lint), each with a violating and a clean case.
// Every kernel is a single tiled loop over a [?, 64] tensor: x -> y.

//===----------------------------------------------------------------------===//
// LINT-MASK
//===----------------------------------------------------------------------===//

// arith.select between a tile and a zero tile: a where-style mask.
pto.kernel @select_mask(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = pto.dim %x, 0 : !pto.tensor<?x64xf32>
  %trips = arith.ceildivsi %n, %c64 : index
  pto.loop "L" %i = %c0 to %trips step %c1 {
    %base = arith.muli %i, %c64 : index
    %rest = arith.subi %n, %base : index
    %a = arith.minsi %rest, %c64 : index
    %t = pto.view %x[%base, 0] valid [%a, 64] : !pto.tensor<?x64xf32> -> !pto.tile<64x64xf32>
    // expected-note@+1 {{the mask condition is computed here}}
    %tail = arith.cmpi slt, %rest, %c64 : index
    %z = pto.full 0.0 {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<64x64xf32>
    // expected-error@+1 {{[LINT-MASK] arith.select chooses a !pto.tile<64x64xf32> by a run-time condition: a manual (where-style) mask; fix: remove the mask and express the tail through the views' valid shape}}
    %m = arith.select %tail, %z, %t : !pto.tile<64x64xf32>
    pto.atomic_add %m, %y[%base, 0] : !pto.tile<64x64xf32>, !pto.tensor<?x64xf32>
  }
}

// -----

// scf.if choosing a tile by a comparison is a mask; a branch on
// pto.is_loop_begin is a loop path (SK-01) and stays allowed.
pto.kernel @if_mask(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = pto.dim %x, 0 : !pto.tensor<?x64xf32>
  %trips = arith.ceildivsi %n, %c64 : index
  pto.loop "L" %i = %c0 to %trips step %c1 {
    %base = arith.muli %i, %c64 : index
    %rest = arith.subi %n, %base : index
    %a = arith.minsi %rest, %c64 : index
    %t = pto.view %x[%base, 0] valid [%a, 64] : !pto.tensor<?x64xf32> -> !pto.tile<64x64xf32>
    %z = pto.full 0.0 {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<64x64xf32>
    // expected-note@+1 {{the branch condition is computed here}}
    %tail = arith.cmpi slt, %rest, %c64 : index
    // expected-error@+1 {{[LINT-MASK] scf.if yields a tile chosen by a run-time condition: a manual mask or tail branch}}
    %m = scf.if %tail -> (!pto.tile<64x64xf32>) {
      scf.yield %z : !pto.tile<64x64xf32>
    } else {
      scf.yield %t : !pto.tile<64x64xf32>
    }
    %first = pto.is_loop_begin %i
    %r = scf.if %first -> (!pto.tile<64x64xf32>) {
      scf.yield %m : !pto.tile<64x64xf32>
    } else {
      %e = pto.exp %m {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
      scf.yield %e : !pto.tile<64x64xf32>
    }
    pto.atomic_add %r, %y[%base, 0] : !pto.tile<64x64xf32>, !pto.tensor<?x64xf32>
  }
}

// -----

// An elementwise op with a pto.full tile (a -inf fill) is a mask; a scalar
// operand (ReLU with 0.0) is not.
pto.kernel @full_mask(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %n = pto.dim %x, 0 : !pto.tensor<?x64xf32>
  %trips = arith.ceildivsi %n, %c64 : index
  pto.loop "L" %i = %c0 to %trips step %c1 {
    %base = arith.muli %i, %c64 : index
    %rest = arith.subi %n, %base : index
    %a = arith.minsi %rest, %c64 : index
    %t = pto.view %x[%base, 0] valid [%a, 64] : !pto.tensor<?x64xf32> -> !pto.tile<64x64xf32>
    // expected-note@+1 {{the constant tile is built here}}
    %ninf = pto.full 0xFFF0000000000000 {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<64x64xf32>
    // expected-error@+1 {{[LINT-MASK] 'pto.max' combines a tile with the constant tile of pto.full -inf: a manual mask}}
    %m = pto.max %t, %ninf {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<64x64xf32>, !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    %r = pto.max %m, %zero {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<64x64xf32>, f32 -> !pto.tile<64x64xf32>
    pto.atomic_add %r, %y[%base, 0] : !pto.tile<64x64xf32>, !pto.tensor<?x64xf32>
  }
}

//===----------------------------------------------------------------------===//
// LINT-STATIC-LOOP, LINT-REPLICATED
//===----------------------------------------------------------------------===//

// -----

// A Python `for` over the tiles (scf.for) instead of pypto.loop.
pto.kernel @python_for(%x: !pto.tensor<256x64xf32>, %y: !pto.tensor<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  // expected-error@+1 {{[LINT-STATIC-LOOP] 'scf.for' is a static loop around pto ops: a Python loop is unrolled when PyPTO traces it, replicating the body per iteration; fix: use pto.loop}}
  scf.for %i = %c0 to %c4 step %c1 {
    %base = arith.muli %i, %c64 : index
    // expected-note@+1 {{replicated pto op}}
    %t = pto.view %x[%base, 0] : !pto.tensor<256x64xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %t, %y[%base, 0] : !pto.tile<64x64xf32>, !pto.tensor<256x64xf32>
  }
}

// -----

// Two heads written out by hand: the same view shifted by 64 columns.
pto.kernel @unrolled_heads(%x: !pto.tensor<?x128xf32>, %y: !pto.tensor<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = pto.dim %x, 0 : !pto.tensor<?x128xf32>
  %trips = arith.ceildivsi %n, %c64 : index
  pto.loop "L" %i = %c0 to %trips step %c1 {
    %base = arith.muli %i, %c64 : index
    %rest = arith.subi %n, %base : index
    %a = arith.minsi %rest, %c64 : index
    // expected-note@+1 {{the first copy is here}}
    %h0 = pto.view %x[%base, 0] valid [%a, 64] : !pto.tensor<?x128xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %h0, %y[%base, 0] : !pto.tile<64x64xf32>, !pto.tensor<?x128xf32>
    // expected-warning@+1 {{[LINT-REPLICATED] the view of 'x' repeats an earlier view of the same tensor shifted by [0, 64]: a loop level written out statically; fix: replace the copies with one pto.loop}}
    %h1 = pto.view %x[%base, 64] valid [%a, 64] : !pto.tensor<?x128xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %h1, %y[%base, 64] : !pto.tile<64x64xf32>, !pto.tensor<?x128xf32>
  }
}

//===----------------------------------------------------------------------===//
// LINT-TILE-CONFIG
//===----------------------------------------------------------------------===//

// -----

// A vector op without a vector tile; the fix suggests its neighbour's.
pto.kernel @no_vec_tile(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = pto.dim %x, 0 : !pto.tensor<?x64xf32>
  %trips = arith.ceildivsi %n, %c64 : index
  pto.loop "L" %i = %c0 to %trips step %c1 {
    %base = arith.muli %i, %c64 : index
    %rest = arith.subi %n, %base : index
    %a = arith.minsi %rest, %c64 : index
    %t = pto.view %x[%base, 0] valid [%a, 64] : !pto.tensor<?x64xf32> -> !pto.tile<64x64xf32>
    %e = pto.exp %t {vec_tile = #pto.vec_tile<[32, 64]>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    // expected-error@+1 {{[LINT-TILE-CONFIG] 'pto.neg' has no vector tile: its tiling would depend on whichever set_vec_tile_shapes happens to be in force; fix: add {vec_tile = #pto.vec_tile<[32, 64]>}}}
    %r = pto.neg %e : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %r, %y[%base, 0] : !pto.tile<64x64xf32>, !pto.tensor<?x64xf32>
  }
}

// -----

// An accumulator initialised with pto.full for a pto.loop stands for
// pypto.tensor(...) and needs no vector tile (SK-01's oi/li/mi).
pto.kernel @accumulator(%x: !pto.tensor<256x64xf32>, %y: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %init = pto.full 0.0 : !pto.tile<64x64xf32>
  %sum = pto.loop "L" %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (!pto.tile<64x64xf32>) {
    %base = arith.muli %i, %c64 : index
    %t = pto.view %x[%base, 0] : !pto.tensor<256x64xf32> -> !pto.tile<64x64xf32>
    %next = pto.add %acc, %t {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<64x64xf32>, !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    pto.yield %next : !pto.tile<64x64xf32>
  }
  pto.assemble %sum, %y[0, 0] : !pto.tile<64x64xf32>, !pto.tensor<64x64xf32>
}

// -----

// A vector tile that, clamped to the op's shape, still exceeds UB.
pto.kernel @vec_tile_over_ub(%x: !pto.tensor<?x256xf32>, %y: !pto.tensor<?x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %n = pto.dim %x, 0 : !pto.tensor<?x256xf32>
  %trips = arith.ceildivsi %n, %c256 : index
  pto.loop "L" %i = %c0 to %trips step %c1 {
    %base = arith.muli %i, %c256 : index
    %rest = arith.subi %n, %base : index
    %a = arith.minsi %rest, %c256 : index
    %t = pto.view %x[%base, 0] valid [%a, 256] : !pto.tensor<?x256xf32> -> !pto.tile<256x256xf32>
    // expected-error@+1 {{[LINT-TILE-CONFIG] vector tile [512, 512] of 'pto.exp' clamps to [256, 256] of f32 = 262144 B, more than the 196608 B (192 KiB) unified buffer of DAV_2201}}
    %e = pto.exp %t {vec_tile = #pto.vec_tile<[512, 512]>} : !pto.tile<256x256xf32> -> !pto.tile<256x256xf32>
    pto.atomic_add %e, %y[%base, 0] : !pto.tile<256x256xf32>, !pto.tensor<?x256xf32>
  }
}

// -----

// The tile size read from a tensor at run time.
pto.kernel @runtime_tile(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x64xf32>, %cfg: !pto.tensor<1xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-note@+2 {{the run-time tile size of the trip count comes from here}}
  // expected-note@+1 {{the run-time stride comes from here}}
  %tile = pto.read %cfg[%c0] : !pto.tensor<1xi32>
  %n = pto.dim %x, 0 : !pto.tensor<?x64xf32>
  // expected-error@+1 {{[LINT-TILE-CONFIG] the trip count of loop 'L' divides by a tile size that is a run-time value (a value read from tensor 'cfg' (pto.read)); fix: tile sizes are compile-time constants}}
  %trips = arith.ceildivsi %n, %tile : index
  pto.loop "L" %i = %c0 to %trips step %c1 {
    // expected-error@+1 {{[LINT-TILE-CONFIG] the offset of the view of 'x' advances with loop 'L' by a run-time stride (a value read from tensor 'cfg' (pto.read))}}
    %base = arith.muli %i, %tile : index
    %rest = arith.subi %n, %base : index
    %a = arith.minsi %rest, %tile : index
    %t = pto.view %x[%base, 0] valid [%a, 64] : !pto.tensor<?x64xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %t, %y[%base, 0] : !pto.tile<64x64xf32>, !pto.tensor<?x64xf32>
  }
}

// -----

// loop_unroll's paths: the index steps by the unroll factor, so a view at
// the index advances by the step per iteration (4-row tiles at step 4 are
// consecutive; 8-row tiles at step 4 overlap).
pto.kernel @unrolled_step(%x: !pto.tensor<64x64xf32>, %y: !pto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  pto.loop "U" %i = %c0 to %c64 step %c4 {
    %t = pto.view %x[%i, 0] : !pto.tensor<64x64xf32> -> !pto.tile<4x64xf32>
    pto.assemble %t, %y[%i, 0] {vec_tile = #pto.vec_tile<[4, 64]>} : !pto.tile<4x64xf32>, !pto.tensor<64x64xf32>
  }
  // expected-note@+1 {{loop 'V' is here}}
  pto.loop "V" %j = %c0 to %c64 step %c4 {
    // expected-error@+1 {{[LINT-TILE-CONFIG] the view of 'x' is 8 wide along dim 0 but its offset advances by 4 per iteration of loop 'V': consecutive tiles overlap}}
    %t = pto.view %x[%j, 0] : !pto.tensor<64x64xf32> -> !pto.tile<8x64xf32>
    pto.assemble %t, %y[%j, 0] {vec_tile = #pto.vec_tile<[8, 64]>} : !pto.tile<8x64xf32>, !pto.tensor<64x64xf32>
  }
}

// -----

// Offsets advancing by half a tile; a trip count over another tile size.
pto.kernel @stride(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %n = pto.dim %x, 0 : !pto.tensor<?x64xf32>
  %trips = arith.ceildivsi %n, %c64 : index
  // expected-note@+1 {{loop 'L' is here}}
  pto.loop "L" %i = %c0 to %trips step %c1 {
    %base = arith.muli %i, %c32 : index
    %rest = arith.subi %n, %base : index
    %a = arith.minsi %rest, %c64 : index
    // expected-error@+1 {{[LINT-TILE-CONFIG] the view of 'x' is 64 wide along dim 0 but its offset advances by 32 per iteration of loop 'L': consecutive tiles overlap; fix: advance the offset by the tile size (64) or make the tile 32 wide}}
    %t = pto.view %x[%base, 0] valid [%a, 64] : !pto.tensor<?x64xf32> -> !pto.tile<64x64xf32>
    %e = pto.exp %t {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %e, %y[%base, 0] : !pto.tile<64x64xf32>, !pto.tensor<?x64xf32>
  }
  // expected-error@+1 {{[LINT-TILE-CONFIG] loop 'M' counts tiles of 128 but the tiles it moves are 64 wide; fix: divide the extent by the tile size 64}}
  %trips2 = arith.ceildivsi %n, %c128 : index
  pto.loop "M" %j = %c0 to %trips2 step %c1 {
    %base = arith.muli %j, %c64 : index
    %rest = arith.subi %n, %base : index
    %a = arith.minsi %rest, %c64 : index
    // expected-note@+1 {{the view of 'x' is here}}
    %t = pto.view %x[%base, 0] valid [%a, 64] : !pto.tensor<?x64xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %t, %y[%base, 0] : !pto.tile<64x64xf32>, !pto.tensor<?x64xf32>
  }
}

// -----

// Two heads per iteration (the PyPTO-Gym FA forward): the views at 2h·32 and
// (2h + 1)·32 together cover the 64 columns the offset advances by (no gap;
// LINT-REPLICATED still suggests a loop); a loop that places only the first
// head leaves a gap.
pto.kernel @two_per_iteration(%x: !pto.tensor<64x256xf32>, %y: !pto.tensor<64x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  pto.loop "H" %h = %c0 to %c4 step %c1 {
    %lo = arith.muli %h, %c64 : index
    %hi = arith.addi %lo, %c32 : index
    // expected-note@+1 {{the first copy is here}}
    %a = pto.view %x[0, %lo] : !pto.tensor<64x256xf32> -> !pto.tile<64x32xf32>
    pto.assemble %a, %y[0, %lo] {vec_tile = #pto.vec_tile<[64, 32]>} : !pto.tile<64x32xf32>, !pto.tensor<64x256xf32>
    // expected-warning@+1 {{[LINT-REPLICATED] the view of 'x' repeats an earlier view of the same tensor shifted by [0, 32]}}
    %b = pto.view %x[0, %hi] : !pto.tensor<64x256xf32> -> !pto.tile<64x32xf32>
    pto.assemble %b, %y[0, %hi] {vec_tile = #pto.vec_tile<[64, 32]>} : !pto.tile<64x32xf32>, !pto.tensor<64x256xf32>
  }
  // expected-note@+1 {{loop 'G' is here}}
  pto.loop "G" %g = %c0 to %c4 step %c1 {
    %lo = arith.muli %g, %c64 : index
    // expected-error@+1 {{[LINT-TILE-CONFIG] the view of 'x' is 32 wide along dim 1 but its offset advances by 64 per iteration of loop 'G': consecutive tiles leave gaps}}
    %a = pto.view %x[0, %lo] : !pto.tensor<64x256xf32> -> !pto.tile<64x32xf32>
    pto.assemble %a, %y[0, %lo] {vec_tile = #pto.vec_tile<[64, 32]>} : !pto.tile<64x32xf32>, !pto.tensor<64x256xf32>
  }
}

//===----------------------------------------------------------------------===//
// LINT-TAIL-VALID
//===----------------------------------------------------------------------===//

// -----

// A dynamic-trip loop whose view relies on the derived extent (warning), a
// varlen view at an offset read from a tensor (error), and a view under a
// static trip count (clean).
pto.kernel @tails(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x64xf32>, %starts: !pto.tensor<?xi32>, %w: !pto.tensor<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %n = pto.dim %x, 0 : !pto.tensor<?x64xf32>
  %trips = arith.ceildivsi %n, %c64 : index
  // expected-note@+1 {{loop 'L' is here}}
  pto.loop "L" %i = %c0 to %trips step %c1 {
    %base = arith.muli %i, %c64 : index
    // expected-warning@+1 {{[LINT-TAIL-VALID] the view of 'x' moves along dim 0 with loop 'L' (dynamic trip count), but it has no valid shape: the tail relies on the derived extent (clipping at the end of the tensor); fix: state the tail explicitly}}
    %t = pto.view %x[%base, 0] : !pto.tensor<?x64xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %t, %y[%base, 0] : !pto.tile<64x64xf32>, !pto.tensor<?x64xf32>
  }
  // expected-note@+1 {{loop 'V' is here}}
  pto.loop "V" %v = %c0 to %trips step %c1 {
    %base = arith.muli %v, %c64 : index
    %start = pto.read %starts[%c0] : !pto.tensor<?xi32>
    %row = arith.addi %start, %base : index
    // expected-error@+1 {{[LINT-TAIL-VALID] the view of 'x' moves along dim 0 with loop 'V' (dynamic trip count) at an offset read from a tensor, but its valid extent of dim 0 is the full tile size 64: the derived extent only clips at the end of the tensor, so the tail tile covers rows of the next sequence}}
    %u = pto.view %x[%row, 0] valid [64, 64] : !pto.tensor<?x64xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %u, %y[%row, 0] : !pto.tile<64x64xf32>, !pto.tensor<?x64xf32>
  }
  pto.loop "S" %j = %c0 to %c4 step %c1 {
    %base = arith.muli %j, %c64 : index
    %t = pto.view %w[%base, 0] : !pto.tensor<256x64xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %t, %w[%base, 0] : !pto.tile<64x64xf32>, !pto.tensor<256x64xf32>
  }
}

// -----

// PyPTO's loop_unroll: loops over element offsets stepping by the tile size
// whose span is a whole number of steps by value (floor(n / 64) * 64, then
// the rest by 16 written as 16 * floor(r / 16) added to the start, then the
// last rows one by one) visit whole tiles only: no tail, no finding. Stepping
// by the tile size up to n itself leaves a tail.
pto.kernel @unrolled_tails(%x: !pto.tensor<?x64xf32>, %y: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %n = pto.dim %x, 0 : !pto.tensor<?x64xf32>
  %q = arith.floordivsi %n, %c64 : index
  %end64 = arith.muli %q, %c64 : index
  pto.loop "U64" %i = %c0 to %end64 step %c64 {
    %t = pto.view %x[%i, 0] : !pto.tensor<?x64xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %t, %y[%i, 0] : !pto.tile<64x64xf32>, !pto.tensor<?x64xf32>
  }
  %rest = arith.subi %n, %end64 : index
  %q16 = arith.floordivsi %rest, %c16 : index
  %len16 = arith.muli %c16, %q16 : index
  %end16 = arith.addi %end64, %len16 : index
  pto.loop "U16" %i = %end64 to %end16 step %c16 {
    %t = pto.view %x[%i, 0] : !pto.tensor<?x64xf32> -> !pto.tile<16x64xf32>
    pto.atomic_add %t, %y[%i, 0] : !pto.tile<16x64xf32>, !pto.tensor<?x64xf32>
  }
  pto.loop "U1" %i = %end16 to %n step %c1 {
    %t = pto.view %x[%i, 0] : !pto.tensor<?x64xf32> -> !pto.tile<1x64xf32>
    pto.atomic_add %t, %y[%i, 0] : !pto.tile<1x64xf32>, !pto.tensor<?x64xf32>
  }
  // expected-note@+1 {{loop 'T' is here}}
  pto.loop "T" %i = %c0 to %n step %c64 {
    // expected-warning@+1 {{[LINT-TAIL-VALID] the view of 'x' moves along dim 0 with loop 'T' (dynamic trip count), but it has no valid shape}}
    %t = pto.view %x[%i, 0] : !pto.tensor<?x64xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %t, %y[%i, 0] : !pto.tile<64x64xf32>, !pto.tensor<?x64xf32>
  }
}

// -----

// GM sub-tensors x[b, n] of [B, 2, 16, 16] (frontend/subtensor.py): the
// tensor reshaped in place to [B * 32, 16], its 16-row windows at row
// (b * 2 + n) * 16. Offsets and the dim size are multiples of the tile, so
// every window is whole (or past the end, a fault): no tail; and the n loop
// fills the rows the b loop strides over: no gap (LINT-TILE-CONFIG). Shifted
// by 8 rows, a window can straddle the end: the tail warning stays.
pto.kernel @subtensor_windows(%states: !pto.tensor<?x2x16x16xf32>, %other: !pto.tensor<?x2x16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %batch = pto.dim %states, 0 : !pto.tensor<?x2x16x16xf32>
  %rows = arith.muli %batch, %c32 : index
  %flat = pto.reshape %states [%rows, 16] inplace : !pto.tensor<?x2x16x16xf32> -> !pto.tensor<?x16xf32>
  %other_flat = pto.reshape %other [%rows, 16] inplace : !pto.tensor<?x2x16x16xf32> -> !pto.tensor<?x16xf32>
  // expected-note@+1 {{loop 'B' is here}}
  pto.loop "B" %b = %c0 to %batch step %c1 {
    pto.loop "N" %n = %c0 to %c2 step %c1 {
      %b2 = arith.muli %b, %c2 : index
      %bn = arith.addi %b2, %n : index
      %row = arith.muli %bn, %c16 : index
      %t = pto.view %flat[%row, 0] valid [16, 16] : !pto.tensor<?x16xf32> -> !pto.tile<16x16xf32>
      pto.atomic_add %t, %flat[%row, 0] : !pto.tile<16x16xf32>, !pto.tensor<?x16xf32>
      %shifted = arith.addi %row, %c8 : index
      // expected-warning@+1 {{[LINT-TAIL-VALID] the view of 'other' moves along dim 0 with loop 'B' (dynamic trip count), but its valid extent of dim 0 is the full tile size 16}}
      %u = pto.view %other_flat[%shifted, 0] valid [16, 16] : !pto.tensor<?x16xf32> -> !pto.tile<16x16xf32>
      pto.atomic_add %u, %other_flat[%shifted, 0] : !pto.tile<16x16xf32>, !pto.tensor<?x16xf32>
    }
  }
}

//===----------------------------------------------------------------------===//
// LINT-RECOMPUTED-STATS
//===----------------------------------------------------------------------===//

// -----

// The row max broadcast from an input, then recomputed with amax.
pto.kernel @recomputed_max(%q: !pto.tensor<?x64xbf16>, %k: !pto.tensor<64x64xbf16>, %m: !pto.tensor<?x1xf32>, %y: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = pto.dim %q, 0 : !pto.tensor<?x64xbf16>
  %trips = arith.ceildivsi %n, %c64 : index
  pto.loop "L" %i = %c0 to %trips step %c1 {
    %base = arith.muli %i, %c64 : index
    %rest = arith.subi %n, %base : index
    %a = arith.minsi %rest, %c64 : index
    %qt = pto.view %q[%base, 0] valid [%a, 64] : !pto.tensor<?x64xbf16> -> !pto.tile<64x64xbf16>
    %kt = pto.view %k[0, 0] : !pto.tensor<64x64xbf16> -> !pto.tile<64x64xbf16>
    %mt = pto.view %m[%base, 0] valid [%a, 1] : !pto.tensor<?x1xf32> -> !pto.tile<64x1xf32>
    // expected-note@+1 {{the scores are computed here}}
    %s = pto.matmul %qt, %kt {b_trans, cube_tile = #pto.cube_tile<m = [64, 64], k = [64, 64], n = [64, 64]>} : !pto.tile<64x64xbf16>, !pto.tile<64x64xbf16> -> !pto.tile<64x64xf32>
    // expected-note@+1 {{the input statistic is already used here}}
    %x = pto.sub %s, %mt {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<64x64xf32>, !pto.tile<64x1xf32> -> !pto.tile<64x64xf32>
    // expected-error@+1 {{[LINT-RECOMPUTED-STATS] pto.amax recomputes the row maximum of the scores of a matmul although kernel inputs already carry row statistics for them ('m')}}
    %mx = pto.amax %s dim = 1 keepdim {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<64x64xf32> -> !pto.tile<64x1xf32>
    %d = pto.sub %x, %mx {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<64x64xf32>, !pto.tile<64x1xf32> -> !pto.tile<64x64xf32>
    pto.atomic_add %d, %y[%base, 0] : !pto.tile<64x64xf32>, !pto.tensor<?x64xf32>
  }
}

// -----

// A forward pass (SK-01 style) computes the statistics itself: no input
// carries them, so amax and sum over exp are fine.
pto.kernel @forward_stats(%q: !pto.tensor<?x64xbf16>, %k: !pto.tensor<64x64xbf16>, %l: !pto.tensor<?x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = pto.dim %q, 0 : !pto.tensor<?x64xbf16>
  %trips = arith.ceildivsi %n, %c64 : index
  pto.loop "L" %i = %c0 to %trips step %c1 {
    %base = arith.muli %i, %c64 : index
    %rest = arith.subi %n, %base : index
    %a = arith.minsi %rest, %c64 : index
    %qt = pto.view %q[%base, 0] valid [%a, 64] : !pto.tensor<?x64xbf16> -> !pto.tile<64x64xbf16>
    %kt = pto.view %k[0, 0] : !pto.tensor<64x64xbf16> -> !pto.tile<64x64xbf16>
    %s = pto.matmul %qt, %kt {b_trans, cube_tile = #pto.cube_tile<m = [64, 64], k = [64, 64], n = [64, 64]>} : !pto.tile<64x64xbf16>, !pto.tile<64x64xbf16> -> !pto.tile<64x64xf32>
    %mx = pto.amax %s dim = 1 keepdim {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<64x64xf32> -> !pto.tile<64x1xf32>
    %x = pto.sub %s, %mx {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<64x64xf32>, !pto.tile<64x1xf32> -> !pto.tile<64x64xf32>
    %e = pto.exp %x {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
    %sum = pto.sum %e dim = 1 keepdim {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<64x64xf32> -> !pto.tile<64x1xf32>
    pto.assemble %sum, %l[%base, 0] : !pto.tile<64x1xf32>, !pto.tensor<?x1xf32>
  }
}

//===----------------------------------------------------------------------===//
// LINT-SCOPE-PURITY (the cube/vector mix is in lint-unverified.mlir: the
// verifier rejects it at parse time)
//===----------------------------------------------------------------------===//

// -----

pto.kernel @reshape_in_scope(%x: !pto.tensor<?x4x16xf32>, %y: !pto.tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = pto.dim %x, 0 : !pto.tensor<?x4x16xf32>
  %trips = arith.ceildivsi %n, %c64 : index
  pto.loop "L" %i = %c0 to %trips step %c1 {
    %base = arith.muli %i, %c64 : index
    %rest = arith.subi %n, %base : index
    %a = arith.minsi %rest, %c64 : index
    // expected-note@+1 {{the scope is here}}
    pto.scope #pto.scope<id = 1> {
      // expected-warning@+1 {{[LINT-SCOPE-PURITY] pto.reshape inside scope 1 forms a subgraph of its own and splits the scope; fix: move the reshape before the scope}}
      %x2 = pto.reshape %x [%n, 64] inplace : !pto.tensor<?x4x16xf32> -> !pto.tensor<?x64xf32>
      %t = pto.view %x2[%base, 0] valid [%a, 64] : !pto.tensor<?x64xf32> -> !pto.tile<64x64xf32>
      %e = pto.exp %t {vec_tile = #pto.vec_tile<[64, 64]>} : !pto.tile<64x64xf32> -> !pto.tile<64x64xf32>
      pto.atomic_add %e, %y[%base, 0] : !pto.tile<64x64xf32>, !pto.tensor<?x64xf32>
    }
  }
}

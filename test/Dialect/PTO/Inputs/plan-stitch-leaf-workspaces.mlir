// Input of plan-stitch.mlir (LEAF): a root whose leaves allocate workspaces
// of their own (one in GM, one on chip), launched twice and once, next to
// the root's own workspace.
pto.kernel @leaf_ws(%x: !pto.tensor<16x32xf32>, %y: !pto.tensor<16x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pto.loop "L" %i = %c0 to %c4 step %c1 {
    %ws = pto.workspace : !pto.tensor<16x32xf32>
    pto.task #pto.core<vector> "V0" {
      %tmp = pto.workspace : !pto.tensor<64x32xf32>
      %on = pto.workspace {pto.on_chip} : !pto.tensor<16x32xf32>
      %a = pto.view %x[0, 0] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
      pto.assemble %a, %tmp[0, 0] : !pto.tile<16x32xf32>, !pto.tensor<64x32xf32>
      pto.assemble %a, %ws[0, 0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
    }
    pto.task #pto.core<vector> "V0" {
      %tmp = pto.workspace : !pto.tensor<64x32xf32>
      %on = pto.workspace {pto.on_chip} : !pto.tensor<16x32xf32>
      %a = pto.view %x[0, 0] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
      pto.assemble %a, %tmp[0, 0] : !pto.tile<16x32xf32>, !pto.tensor<64x32xf32>
      pto.assemble %a, %ws[0, 0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
    }
    pto.task #pto.core<vector> "V1" {
      %b = pto.view %ws[0, 0] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
      pto.assemble %b, %y[0, 0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
    }
  }
}

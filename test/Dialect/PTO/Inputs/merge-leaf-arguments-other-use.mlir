// Input of merge-leaf-arguments.mlir (OTHER): the V1 task names the leaf
// pto-outline makes of the V0 task in an attribute, a use other than
// pto.launch, so that leaf keeps its arguments; the V1 leaf merges its own.
pto.kernel @other(%x: !pto.tensor<16x64xf32>, %y: !pto.tensor<16x64xf32>) {
  pto.task #pto.core<vector> "V0" {
    %a = pto.view %x[0, 0] : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
    pto.assemble %a, %y[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
  }
  pto.task #pto.core<vector> "V1" {
    %a = pto.view %y[0, 0] {pto.note = @other_leaf_V0_0} : !pto.tensor<16x64xf32> -> !pto.tile<16x64xf32>
    pto.atomic_add %a, %x[0, 0] : !pto.tile<16x64xf32>, !pto.tensor<16x64xf32>
  }
}

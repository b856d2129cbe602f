// RUN: pto-opt %s -split-input-file -pto-outline -verify-diagnostics

// Errors of pto-outline.

pto.kernel @task_yields(%x: !pto.tensor<16x32xf32>, %y: !pto.tensor<16x32xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'pto.task' op yields 1 value(s); pto-outline needs tasks that communicate only through GM (workspaces and kernel tensors)}}
  %t = pto.task #pto.core<vector> "V1" -> (!pto.tile<16x32xf32>) {
    %a = pto.view %x[%c0, %c0] : !pto.tensor<16x32xf32> -> !pto.tile<16x32xf32>
    pto.yield %a : !pto.tile<16x32xf32>
  }
  // expected-note @+1 {{value used here}}
  pto.assemble %t, %y[%c0, %c0] : !pto.tile<16x32xf32>, !pto.tensor<16x32xf32>
}


"""What users read: results and messages say what matters in one line
(issue 19, "hard-to-read output")."""

from __future__ import annotations

import numpy as np

from pto_mlir.ir import RunResult


def test_run_result_repr_names_shapes_not_arrays():
    result = RunResult({"dq": np.zeros((4096, 1024), np.float32),
                        "n": np.zeros(3, np.int32)}, {"loopIterations": 7})
    text = repr(result)
    assert text == ("RunResult(outputs={dq: float32[4096x1024], n: int32[3]}, "
                    "stats={'loopIterations': 7})")

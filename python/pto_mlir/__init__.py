"""pto-mlir from Python.

- ``pto_mlir.frontend``: write kernels the PyPTO way (``@jit``, ``loop``,
  ``view``, ``matmul``, ...) and trace them to ``pto`` dialect IR;
- ``pto_mlir.ir``: in-process bindings (parse, verify, pass pipelines and
  checkers, the reference interpreter on NumPy arrays, structural comparison);
- ``pto_mlir.golden``: NumPy goldens (bit-exact BF16), ``pto_mlir.sk16_ir``:
  the SK-16 text generator, ``pto_mlir.tools``: the command-line tools.

Only ``pto_mlir.ir`` needs the native module (``pto_mlir._pto``, built by
CMake); everything else is pure Python.
"""

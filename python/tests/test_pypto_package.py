"""`import pypto` over pto_mlir.frontend: PyPTO's spellings, every @jit
option PyPTO accepts, torch tensors as arguments, unsupported names failing
at the kernel's line, and docs/Frontend.md's API table against the package."""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import pypto
import pto_mlir.frontend as frontend
from pto_mlir import kernel_files
from trace_errors import assert_error_at_kernel_line

F32, BF16 = pypto.DT_FP32, pypto.DT_BF16
HERE = Path(__file__).resolve()
DOC = HERE.parents[2] / "docs" / "Frontend.md"


def test_pypto_is_our_front_end():
    assert pypto.frontend.jit is frontend.jit
    assert pypto.Tensor is frontend.Tensor and pypto.DYNAMIC is frontend.DYN
    assert int(pypto.RunMode.NPU) == 0 and int(pypto.RunMode.SIM) == 1


# -- Tensor spellings ------------------------------------------------------------------

@pypto.frontend.jit
def copy_rows(x: pypto.Tensor([pypto.DYNAMIC, 4, pypto.STATIC], F32),
              y: pypto.Tensor([], F32)):
    pypto.set_vec_tile_shapes(1, 4, 8)
    t = pypto.view(x, [1, 4, 8], [0, 0, 0])
    pypto.assemble(t, [0, 0, 0], y)


def test_static_dims_anywhere_and_rank_from_the_argument():
    traced = copy_rows.trace(x=(None, 4, 8), y=(2, 4, 8))
    assert "%x: !pto.tensor<?x4x8xf32>" in traced.mlir
    assert "%y: !pto.tensor<2x4x8xf32>" in traced.mlir
    traced.module()


@pytest.mark.parametrize("given, message", [
    (dict(x=(None, 4, None), y=(2, 4, 8)), r"'x': dim 2 is static .* but given as dynamic"),
    (dict(x=(None, 5, 8), y=(2, 4, 8)), r"'x': dim 1 is 4 in the annotation but 5"),
    (dict(x=(None, 4), y=(2, 4, 8)), r"'x' is annotated .* \(rank at least 3\) but given rank 2"),
    (dict(x=(None, 4, 8)), r"'y' is annotated Tensor\(\[\], DT_FP32\): give its shape"),
])
def test_static_dim_errors_name_the_parameter_and_dim(given, message):
    with pytest.raises(pypto.TraceError, match=message) as info:
        copy_rows.trace(**given)
    assert "test_pypto_package.py" in str(info.value)   # located at the parameter


@pypto.frontend.jit
def scale_rows(x: pypto.Tensor([pypto.DYNAMIC, pypto.STATIC], F32),
               g: pypto.Tensor([pypto.STATIC, pypto.STATIC], F32),
               y: pypto.Tensor([4, 8], F32)):
    pypto.set_vec_tile_shapes(1, 4, 8)
    t = pypto.view(x, [1, 4, 8], [0, 0, 0]) * pypto.view(g, [1, 1, 8], [0, 0, 0])
    pypto.assemble(pypto.reshape(t, [4, 8]), [0, 0], y)


def test_a_status_shape_is_a_minimum_rank():
    # PyPTO's jit checks a shape with DYNAMIC/STATIC entries for a minimum
    # rank only (kimi passes a [1, 1, D] gamma for [STATIC, STATIC]): the
    # argument keeps its rank, the extra dims static; ints alone need the
    # exact rank.
    traced = scale_rows.trace(x=(None, 4, 8), g=(1, 1, 8), y=(4, 8))
    assert "%x: !pto.tensor<?x4x8xf32>" in traced.mlir
    assert "%g: !pto.tensor<1x1x8xf32>" in traced.mlir
    x = np.arange(32, dtype=np.float32).reshape(1, 4, 8)
    g = np.linspace(1, 2, 8, dtype=np.float32).reshape(1, 1, 8)
    y = np.zeros((4, 8), np.float32)
    scale_rows(x, g, y)
    np.testing.assert_allclose(y, (x * g).reshape(4, 8), rtol=1e-6)
    with pytest.raises(pypto.TraceError, match=r"'y' is annotated .* \(rank 2\) but given rank 3"):
        scale_rows.trace(x=(None, 4, 8), g=(1, 1, 8), y=(1, 4, 8))


def test_bad_tensor_dims_are_rejected():
    with pytest.raises(TypeError, match=r"pypto.DYN, pypto.STATIC or a trailing"):
        pypto.Tensor([pypto.DYNAMIC, "4"], F32)
    with pytest.raises(TypeError, match=r"'\.\.\.' must be the last"):
        pypto.Tensor([..., 4], F32)


# -- @jit options ----------------------------------------------------------------------

def _kernel(**options):
    def body(x: pypto.Tensor([8, 16], F32), y: pypto.Tensor([8, 16], F32)):
        pypto.set_vec_tile_shapes(8, 16)
        pypto.assemble(pypto.exp(pypto.view(x, [8, 16], [0, 0])), [0, 0], y)
    return pypto.frontend.jit(**options)(body)


def test_every_pypto_option_group_is_accepted_and_carried_typed():
    with pytest.warns(pypto.OptionRemark) as remarks:
        kernel = _kernel(
            runtime_options={"run_mode": pypto.RunMode.SIM, "device_sched_mode": 1,
                             "valid_shape_optimize": 1},
            pass_options={"vec_nbuffer_setting": {"DEFAULT": 2, "func7_0": 3},
                          "cube_l1_reuse_setting": {-1: 1}, "ooo_sched_mode": "GAPMIN",
                          "sg_set_tunevf_mode": 1},
            host_options={"compile_monitor_enable": 1},
            codegen_options={"vf_options": 'a "quoted" \\ flag'},
            verify_options={"enable_pass_verify": True},
            debug_options={"runtime_debug_mode": 1, "ratio": 0.5},
            new_ir=True)
    texts = [str(r.message) for r in remarks]
    assert any("run_mode" in t and "every call runs on the host" in t for t in texts)
    assert any("ooo_sched_mode" in t for t in texts) and any("new_ir" in t for t in texts)
    mlir = kernel.trace().mlir
    assert "runtime_options = #pto.runtime_options<device_sched_mode = 1>" in mlir
    assert "vec_nbuffer_setting = {-1 : 2}" in mlir and "cube_l1_reuse_setting = {-1 : 1}" in mlir
    for entry in ['"run_mode" = 1 : i64', '"valid_shape_optimize" = 1 : i64',
                  '"vec_nbuffer_setting" = {"func7_0" = 3 : i64}', '"ooo_sched_mode" = "GAPMIN"',
                  '"compile_monitor_enable" = 1 : i64', r'"vf_options" = "a \"quoted\" \\ flag"',
                  '"enable_pass_verify" = true', '"ratio" = 5.00000000000000000e-01 : f64',
                  '"new_ir" = true']:
        assert entry in mlir, entry
    module = kernel.trace().module()          # the carried attribute parses and verifies
    assert "pto.pypto_options" in module.to_string()


def test_modelled_options_alone_make_no_remark():
    with warnings.catch_warnings():
        warnings.simplefilter("error", pypto.OptionRemark)
        mlir = _kernel(runtime_options={"stitch_function_max_num": 8}).trace().mlir
    assert "pto.pypto_options" not in mlir


@pytest.mark.parametrize("options, message", [
    (dict(runtime_options={"run_mode": 2}), r"run_mode = 2: use pypto.RunMode.NPU or"),
    (dict(runtime_options={"run_mode": True}), r"run_mode = True"),
    (dict(host_options=[1]), r"@jit\(host_options=...\) must be a dict, got list"),
    (dict(debug_options={1: 2}), r"option names are strings, got 1"),
    (dict(codegen_options={"x": object()}), r"@jit option\['codegen_options'\]\['x'\] = "
                                            r"<object .*cannot be carried"),
    (dict(new_ir="yes"), r"@jit\(new_ir='yes'\) must be a bool"),
    (dict(pass_options={"vec_nbuffer_setting": [1]}), r"vec_nbuffer_setting must be a dict"),
    (dict(pass_options={"vec_nbuffer_setting": {1.5: 2}}), r"key 1.5 must be an int"),
])
def test_option_values_pypto_rejects_are_errors_at_the_decorator(options, message):
    with pytest.raises(pypto.TraceError, match=message) as info:
        _kernel(**options)
    assert "test_pypto_package.py" in str(info.value)


def test_string_merge_keys_inside_the_kernel():
    def body(x: pypto.Tensor([8, 16], F32), y: pypto.Tensor([8, 16], F32)):
        pypto.set_pass_options(vec_nbuffer_setting={"DEFAULT": 4})
        pypto.set_vec_tile_shapes(8, 16)
        pypto.assemble(pypto.view(x, [8, 16], [0, 0]), [0, 0], y)
    assert "vec_nbuffer_setting = {-1 : 4}" in pypto.frontend.jit(body).trace().mlir


def test_func_merge_keys_inside_the_kernel_are_carried():
    """PyPTO's func keys in a kernel-level set_pass_options (mhc_pre's
    {"DEFAULT": 4, "func8_3": 1}) are carried in pto.pypto_options with a
    remark at the line, as @jit carries them; the modelled entries apply."""
    def body(x: pypto.Tensor([8, 16], F32), y: pypto.Tensor([8, 16], F32)):
        pypto.set_pass_options(vec_nbuffer_setting={"DEFAULT": 4, "func8_3": 1})
        pypto.set_vec_tile_shapes(8, 16)
        pypto.assemble(pypto.view(x, [8, 16], [0, 0]), [0, 0], y)
    kernel = pypto.frontend.jit(pass_options={"vec_nbuffer_setting": {"func7_0": 3}})(body)
    with pytest.warns(pypto.OptionRemark, match=r"set_pass_options\(vec_nbuffer_setting=...\) "
                                                r"group keys \['func8_3'\]") as record:
        mlir = kernel.trace().mlir
    assert any(w.filename == __file__ for w in record)
    assert "vec_nbuffer_setting = {-1 : 4}" in mlir
    assert '"vec_nbuffer_setting" = {"func7_0" = 3 : i64, "func8_3" = 1 : i64}' in mlir


# -- calling with torch tensors ---------------------------------------------------------

torch = pytest.importorskip("torch")


@pypto.frontend.jit
def scale_bf16(x: pypto.Tensor([pypto.DYNAMIC, 16], BF16),
               y: pypto.Tensor([pypto.DYNAMIC, 16], BF16)):
    pypto.set_vec_tile_shapes(8, 16)
    t = pypto.cast(pypto.view(x, [8, 16], [0, 0]), F32)
    pypto.assemble(pypto.cast(pypto.mul(t, 2.0), BF16), [0, 0], y)


def test_torch_tensors_are_arguments_and_outputs_are_written_back():
    x = torch.randn(8, 16).to(torch.bfloat16)
    y = torch.zeros(8, 16, dtype=torch.bfloat16)
    scale_bf16(x, y)
    assert torch.equal(y, (x.float() * 2).to(torch.bfloat16))


def test_torch_argument_errors():
    with pytest.raises(pypto.TraceError, match=r"torch.float32 tensor where the annotation says "
                                               r"DT_BF16"):
        scale_bf16(torch.zeros(8, 16), torch.zeros(8, 16, dtype=torch.bfloat16))
    meta = torch.empty(8, 16, dtype=torch.bfloat16, device="meta")
    assert "?x16xbf16" in scale_bf16.trace(meta, meta).mlir      # meta tensors trace
    with pytest.raises(pypto.TraceError, match=r"x, y are meta tensors .* cannot run"):
        scale_bf16(meta, meta)


def test_run_kernels_with_redirects_calls():
    seen = []
    with pypto.run_kernels_with(lambda traced, arrays: seen.append((traced.name, sorted(arrays)))):
        scale_bf16(torch.zeros(8, 16, dtype=torch.bfloat16),
                   torch.zeros(8, 16, dtype=torch.bfloat16))
    assert seen == [("scale_bf16", ["x", "y"])]


# -- unsupported names -----------------------------------------------------------------

@pypto.frontend.jit
def uses_scatter(x: pypto.Tensor([8, 16], F32), y: pypto.Tensor([8, 16], F32)):
    pypto.set_vec_tile_shapes(8, 16)
    t = pypto.view(x, [8, 16], [0, 0])
    pypto.assemble(pypto.scatter(t, 0, t, t), [0, 0], y)   # noqa - the unsupported name


def test_an_unsupported_name_fails_at_the_kernel_line():
    with pytest.raises(pypto.UnsupportedConstruct) as info:
        uses_scatter.trace()
    assert_error_at_kernel_line(info, uses_scatter, 4, "pypto.scatter is not supported yet")
    assert isinstance(info.value, pypto.TraceError) and isinstance(info.value, AttributeError)
    assert not hasattr(pypto, "scatter")
    with pytest.raises(pypto.UnsupportedConstruct, match="pypto.experimental.no_such_op"):
        pypto.experimental.no_such_op
    with pytest.raises(pypto.UnsupportedConstruct, match="pypto.frontend.no_such_decorator"):
        pypto.frontend.no_such_decorator
    with pytest.raises(AttributeError):
        pypto.__wrapped__   # dunders stay plain AttributeErrors


# -- the torch_npu stand-in ------------------------------------------------------------

def test_torch_npu_stand_in_and_npu_on_host(monkeypatch):
    monkeypatch.delitem(sys.modules, "torch_npu", raising=False)
    if kernel_files.importlib.util.find_spec("torch_npu") is not None:
        pytest.skip("the real torch_npu is installed")
    monkeypatch.delattr(torch, "npu", raising=False)
    with pytest.warns(kernel_files.TorchNpuStandIn, match="torch_npu is not installed"):
        assert kernel_files.ensure_torch_npu()
    import torch_npu  # noqa: F401
    assert torch.npu.is_available() is False
    torch.npu.synchronize()
    torch.npu.set_device(0)
    with pytest.raises(RuntimeError, match="has one device, 0"):
        torch.npu.set_device(1)
    with pytest.raises(AttributeError, match="torch.npu.stream is not available"):
        torch.npu.stream
    with kernel_files.npu_on_host():
        assert torch.ones(2, device="npu:0").device.type == "cpu"
        assert torch.ones(2).to("npu:0").device.type == "cpu"
    with kernel_files.npu_on_host("meta"):
        assert torch.ones(2, device="npu").device.type == "meta"


# -- docs/Frontend.md's API table ------------------------------------------------------

def _doc_table() -> dict:
    text = DOC.read_text()
    section = text[text.index("### Supported PyPTO API"):]
    rows = re.findall(r"^\| `pypto\.([\w.]+)` \| (supported|not supported yet) \|", section,
                      re.MULTILINE)
    return dict(rows)


OWN_NAMES = {"TraceError", "UnsupportedConstruct", "OptionRemark", "JitFunction",
             "TracedKernel", "TensorHandle", "Tile", "SymbolicScalar", "run_kernels_with",
             "frontend", "experimental", "jit"}


def test_the_api_table_is_what_pypto_exports():
    table = _doc_table()
    supported = {n for n, s in table.items() if s == "supported"}
    exported = {n for n in pypto.__all__ if n not in OWN_NAMES}
    exported |= {f"experimental.{n}" for n in dir(pypto.experimental)}
    exported |= {f"frontend.{n}" for n in pypto.frontend.__all__}
    assert supported == exported, (f"in the package, not in the table: {exported - supported}; "
                                   f"in the table, not in the package: {supported - exported}")
    for name, status in table.items():
        if status == "not supported yet":
            owner, _, attr = ("pypto." + name).rpartition(".")
            with pytest.raises(pypto.UnsupportedConstruct, match=re.escape(f"{owner}.{attr}")):
                getattr(eval(owner), attr)   # noqa: S307 - pypto / pypto.frontend / ...


@pypto.frontend.jit
def uses_missing_method(x: pypto.Tensor([8, 16], F32), y: pypto.Tensor([8, 16], F32)):
    pypto.set_vec_tile_shapes(8, 16)
    t = pypto.view(x, [8, 16], [0, 0])
    pypto.assemble(t.no_such_method(), [0, 0], y)


@pypto.frontend.jit
def uses_matmul_operator(x: pypto.Tensor([16, 16], F32), y: pypto.Tensor([16, 16], F32)):
    pypto.set_vec_tile_shapes(16, 16)
    t = pypto.view(x, [16, 16], [0, 0])
    pypto.assemble(t @ t, [0, 0], y)


def test_python_errors_while_tracing_are_located_trace_errors():
    with pytest.raises(pypto.TraceError, match=r"test_pypto_package.py:\d+:\d+: "
                                               r"Tile.no_such_method is not supported yet") as e:
        uses_missing_method.trace()
    assert isinstance(e.value.__cause__, AttributeError)
    with pytest.raises(pypto.TraceError, match=r"test_pypto_package.py:\d+:\d+: unsupported "
                                               r"operand type\(s\) for @.*not supported yet"):
        uses_matmul_operator.trace()

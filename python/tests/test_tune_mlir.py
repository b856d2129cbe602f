"""pto-tune on a .mlir kernel (docs/Tuning.md#tuning-a-mlir-kernel).

A small row-block projection (tests/Inputs/tune_proj.mlir: one cube tile, one
vector tile shared by three ops, a runtime_options without device_sched_mode,
no pass_options): an exhaustive search over two cube tiles (one overflowing
L0C, pruned by the verifier), device_sched_mode and vec_nbuffer_setting,
written back into a copy of the file; the file keeps its comments and every
line the configuration does not touch, and the tuned kernel computes what the
original does (pto-run, same random inputs). The text edits themselves
(unchanged card, options added, removed, an attribute dictionary created) run
in-process; usage errors exit 2 with one line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pto_mlir import tune_mlir
from pto_mlir.tools import REPO_ROOT, build_dir, compile_tile_graph, run_random, run_tool

KERNEL = Path(__file__).parent / "Inputs" / "tune_proj.mlir"
CASE = "x=300x128,out=300x256"


def tune(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "pto_mlir.tune", *map(str, args)],
                          capture_output=True, text=True, cwd=REPO_ROOT / "python",
                          timeout=timeout, env=dict(os.environ, PTO_BUILD_DIR=str(build_dir())))


def test_exhaustive_write_back(tmp_path):
    kernel = tmp_path / "proj.mlir"
    shutil.copy(KERNEL, kernel)
    best_json = tmp_path / "best.json"
    r = tune("--kernel", kernel, "--case", CASE,
             "--only", "cube_tile", "device_sched_mode", "vec_nbuffer_setting",
             "--param", "cube_tile=64x64x32x32x256x256,256x256x64x64x256x256",
             "--param", "device_sched_mode=3",
             "--write-back", "--write-config", best_json, "--jobs", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout
    assert "pto-tune: proj.mlir (pto.kernel @proj) on a3 (DAV_2201)" in out, out
    assert "parameter cube_tile: 64x64x64x64x64x64 (1 op, line 19)" in out, out
    assert "parameter vec_tile: 16x256 (3 ops, lines 20, 21, 22)" in out, out
    # 3 cube tiles (the card's too) x 2 modes (absent, 3) x 2 n-buffer settings
    # (absent, {-1 : 2}) = 12; the L0C overflow pruned.
    assert "search: exhaustive (12 configurations)" in out, out
    assert "cube_tile=256x256x64x64x256x256: verifier: " in out and "L0C" in out, out
    best = json.loads(best_json.read_text())["config"]
    assert f"written back to {kernel}" in out
    tuned = kernel.read_text()
    before, after = KERNEL.read_text().splitlines(), tuned.splitlines()
    changed = [i + 1 for i, (a, b) in enumerate(zip(before, after)) if a != b]
    m0, m1, k0, k1, n0, n1 = best["cube_tile"]
    cube = f"#pto.cube_tile<m = [{m0}, {m1}], k = [{k0}, {k1}], n = [{n0}, {n1}]>"
    assert cube in after[18], after[18]
    if best["device_sched_mode"] is not None:
        assert f"device_sched_mode = {best['device_sched_mode']}" in tuned
    if best["vec_nbuffer_setting"]:
        assert "pass_options = #pto.pass_options<vec_nbuffer_setting = {-1 : 2}>" in tuned
    # Only the kernel's attribute lines and the matmul changed; comments stay.
    assert len(before) == len(after) and set(changed) <= {4, 5, 6, 19}, changed
    assert after[0] == before[0] and after[17] == before[17]
    # The tuned kernel computes what the original does.
    outputs = []
    for name, source in (("card", KERNEL), ("tuned", kernel)):
        compiled = compile_tile_graph(source, tmp_path / f"{name}_tg.mlir")
        outputs.append(run_random(compiled, tmp_path / name, "--shape", "x=300x128",
                                  "--shape", "out=300x256"))
    np.testing.assert_allclose(outputs[0]["out"], outputs[1]["out"], rtol=1e-5, atol=1e-6)
    assert np.count_nonzero(outputs[0]["out"]) > 0


def test_render_edits(tmp_path):
    k = tune_mlir.MlirKernel(KERNEL)
    assert k.card == {"cube_tile": (64, 64, 64, 64, 64, 64), "vec_tile": (16, 256),
                      "stitch_function_max_num": 512, "device_sched_mode": None,
                      "cube_l1_reuse_setting": None, "vec_nbuffer_setting": None}
    assert k.render(k.card) == KERNEL.read_text()
    text = k.render({"stitch_function_max_num": None, "device_sched_mode": 2,
                     "cube_l1_reuse_setting": "{-1:2,0:4}", "vec_tile": (32, 256)})
    assert "runtime_options = #pto.runtime_options<device_sched_mode = 2>}" in text
    assert ("attributes {pass_options = #pto.pass_options<cube_l1_reuse_setting = "
            "{-1 : 2, 0 : 4}>,\n      arch" in text), text
    assert text.count("#pto.vec_tile<[32, 256]>") == 3
    # Attributes named in comments are neither parameters nor edited.
    commented = tmp_path / "commented.mlir"
    note = "// e.g. #pto.vec_tile<[8, 8]> or pto.kernel @other(\n"
    commented.write_text(note + KERNEL.read_text())
    c = tune_mlir.MlirKernel(commented)
    assert c.card == k.card and c.groups[1].lines == [21, 22, 23]
    assert c.render({"vec_tile": (32, 256)}).startswith(note)
    # A kernel without an attribute dictionary gets one.
    bare = tmp_path / "bare.mlir"
    bare.write_text(KERNEL.read_text().replace(
        """
    attributes {
      arch = #pto.arch<DAV_2201>,
      runtime_options = #pto.runtime_options<stitch_function_max_num = 512>}""", ""))
    b = tune_mlir.MlirKernel(bare)
    assert b.arch == "DAV_2201" and b.card["stitch_function_max_num"] is None
    text = b.render({"device_sched_mode": 3}, arch="DAV_3510")
    assert ("%out: !pto.tensor<?x256xf32>) attributes {arch = #pto.arch<DAV_3510>, "
            "runtime_options = #pto.runtime_options<device_sched_mode = 3>} {" in text), text
    edited = tmp_path / "edited.mlir"
    edited.write_text(text)
    r = run_tool("pto-opt", edited)
    assert r.returncode == 0, text + r.stderr
    assert "#pto.arch<DAV_3510>" in r.stdout and "device_sched_mode = 3" in r.stdout


@pytest.mark.parametrize("args, message", [
    (["--case", "x=300x128,out=nope.npy"], "'nope.npy' is neither a shape (AxB) nor a .npy file"),
    (["--case", CASE, "--param", "cube_tile=64xq"], "'64xq' is not a tuple of integers"),
    (["--case", CASE, "--param", "c9=1"], "'c9' is not a parameter of 'tune_proj.mlir'"),
    (["--case", CASE, "--set", "x=1"], "--set is for a generator"),
    (["--case", CASE, "--param", "vec_nbuffer_setting=2"], "'2' is not a merge setting"),
])
def test_usage_errors(args, message):
    r = tune("--kernel", KERNEL, *args)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "pto-tune: error: " in r.stderr and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_one_kernel_per_file(tmp_path):
    two = tmp_path / "two.mlir"
    text = KERNEL.read_text()
    two.write_text(text + text.replace("@proj", "@proj2"))
    r = tune("--kernel", two)
    assert r.returncode == 2 and "has 2 pto.kernel ops; pto-tune tunes a file with exactly one" \
        in r.stderr, r.stderr
    r = tune("--kernel", tmp_path / "missing.mlir")
    assert r.returncode == 2 and "cannot read" in r.stderr, r.stderr

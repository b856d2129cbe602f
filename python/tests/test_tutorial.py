"""docs/Tutorial.md cannot rot: its Python files are written out and every
command in its ``sh`` blocks runs, in order, in one fresh folder, with the
paths the tutorial's setup line gives (the tools of this build, this
checkout's python/ and runtime/). A command that fails fails the test with
its output."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pto_mlir.tools import REPO_ROOT, build_dir

TUTORIAL = REPO_ROOT / "docs" / "Tutorial.md"
BLOCK = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```", re.S | re.M)


def blocks(text: str):
    """(language, info, body) of each fenced block, in order."""
    return [(m.group(1), m.group(2).strip(), m.group(3)) for m in BLOCK.finditer(text)]


def commands(body: str) -> list:
    """The command lines of an sh block (comments and blank lines dropped)."""
    return [line for line in body.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_tutorial_blocks_are_well_formed():
    found = blocks(TUTORIAL.read_text())
    files = [info for language, info, _ in found if language == "python"]
    assert files == ["file=row_softmax.py", "file=tiled_matmul.py"]
    assert sum(len(commands(body)) for language, _, body in found if language == "sh") >= 15


def test_every_tutorial_command_runs(tmp_path):
    if not (build_dir() / "bin" / "pto-opt").exists():
        pytest.skip(f"the tools are not built in {build_dir()} (make build)")
    if shutil.which(os.environ.get("PTO_CXX", "clang++-22")) is None:
        pytest.skip("clang++-22 is not installed (scripts/install-deps.sh)")
    # `python3` in the tutorial is Debian's interpreter (NumPy).
    shims = tmp_path / "shims"
    shims.mkdir()
    (shims / "python3").symlink_to("/usr/bin/python3")
    env = dict(os.environ, PTO_SRC=str(REPO_ROOT), PYTHONPATH=str(REPO_ROOT / "python"),
               PTO_BUILD_DIR=str(build_dir()),
               PATH=f"{shims}:{build_dir() / 'bin'}:{os.environ.get('PATH', '')}")
    work = tmp_path / "work"
    work.mkdir()
    ran = []
    for language, info, body in blocks(TUTORIAL.read_text()):
        if language == "python":
            name = info.removeprefix("file=")
            (work / name).write_text(body)
            continue
        if language != "sh":
            continue
        for command in commands(body):
            if command.startswith("export "):      # the setup line: done through env
                continue
            r = subprocess.run(["bash", "-c", command], cwd=work, env=env,
                               capture_output=True, text=True, timeout=600)
            assert r.returncode == 0, (f"tutorial command failed (exit {r.returncode}):\n"
                                       f"  {command}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}")
            ran.append(command)
    # What the commands leave behind is what the text says they make.
    assert "row_softmax matches NumPy" in subprocess.run(
        ["/usr/bin/python3", "row_softmax.py"], cwd=work, env=env, capture_output=True,
        text=True).stdout
    for made in ("out/y.npy", "cpp_out/y.npy", "row_softmax.dot", "trace.json", "utilisation.svg"):
        assert (work / made).exists(), made
    assert (work / "row_softmax.dot").read_text().startswith("digraph")
    if shutil.which("dot"):
        r = subprocess.run(["dot", "-Tsvg", "row_softmax.dot", "-o", "row_softmax.svg"],
                           cwd=work, capture_output=True, text=True)
        assert r.returncode == 0 and "<svg" in (work / "row_softmax.svg").read_text(), r.stderr
    assert len(ran) >= 15

"""The README's "Using the tools" block, run as written from a fresh clone of
this commit (tools from this build, linked as the clone's build/): each line
must work for a new user, not only in the developer's tree."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from pto_mlir.tools import REPO_ROOT, build_dir


def readme_block() -> str:
    text = (REPO_ROOT / "README.md").read_text()
    m = re.search(r"^## Using the tools\n.*?^```sh\n(.*?)^```", text, re.S | re.M)
    assert m, "README.md has no ```sh block under '## Using the tools'"
    return m.group(1)


def test_readme_block_uses_no_placeholders():
    # Commands without their trailing comments: nothing to fill in.
    block = readme_block().replace("\\\n", " ")
    commands = [re.sub(r"\s+# .*$", "", line) for line in block.splitlines()]
    for command in commands:
        assert "..." not in command and "DIR" not in command and "FILE" not in command, command
    assert len([c for c in commands if c.strip()]) >= 20


def test_readme_tools_from_a_clean_clone(tmp_path):
    if not (build_dir() / "bin" / "pto-opt").exists():
        pytest.skip(f"the tools are not built in {build_dir()} (make build)")
    if shutil.which("git") is None or not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout: nothing to clone")
    commit = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"],
                            capture_output=True, text=True, check=True).stdout.strip()
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(REPO_ROOT), str(clone)],
                   check=True, capture_output=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", commit], check=True,
                   capture_output=True)
    (clone / "build").symlink_to(build_dir().resolve())
    shims = tmp_path / "shims"
    shims.mkdir()
    (shims / "python3").symlink_to("/usr/bin/python3")
    env = {"PATH": f"{shims}:/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    script = "set -euo pipefail\nset -x\n" + readme_block()
    r = subprocess.run(["bash", "-c", script], cwd=clone, env=env, capture_output=True,
                       text=True, timeout=900)
    assert r.returncode == 0, f"README command failed:\n{r.stderr[-5000:]}"
    for made in ("out/dq.npy", "tg.dot", "t.json", "util.svg", "out_cpp/dv.npy"):
        assert (clone / made).exists(), made
    assert "FAIL" not in r.stdout, r.stdout[-2000:]

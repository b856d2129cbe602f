"""Locating and running the pto-mlir command-line tools from Python tests.

The build directory comes from ``PTO_BUILD_DIR`` (default: ``build`` at the
repository root), so tests run against the tree they live in.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def build_dir() -> Path:
    return Path(os.environ.get("PTO_BUILD_DIR", REPO_ROOT / "build"))


def tool(name: str) -> Path:
    path = build_dir() / "bin" / name
    if not path.exists():
        raise FileNotFoundError(f"{path} not found: build the project first (make build) "
                                f"or set PTO_BUILD_DIR")
    return path


def run_tool(name: str, *args, check: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run([str(tool(name)), *map(str, args)], capture_output=True,
                          text=True, check=check)

"""setHeapDefaults (lib/Tools/Support/HeapDefaults.cpp): pto-opt and
pto-translate ask for transparent huge pages on the main malloc heap
(docs/TileGraph.md#cost-in-the-number-of-kernels), and leave glibc's
defaults alone under PTO_HEAP_DEFAULTS=0.

Read from the running tool's /proc/<pid>/smaps: a region advised with
MADV_HUGEPAGE carries the `hg` VmFlag. The tool is held open by reading its
input from a pipe nobody writes yet; setHeapDefaults runs before it reads.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pto_mlir.tools import tool

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux")
                       or not Path("/proc/self/smaps").exists(),
                       reason="needs Linux /proc/<pid>/smaps"),
    # Without transparent huge pages in the kernel, madvise(MADV_HUGEPAGE)
    # fails and no region carries the flag.
    pytest.mark.skipif(not Path("/sys/kernel/mm/transparent_hugepage/enabled").exists(),
                       reason="the kernel has no transparent huge pages "
                              "(/sys/kernel/mm/transparent_hugepage)"),
]


def heap_flags(pid: int) -> list[set[str]]:
    """VmFlags of each [heap] region of process `pid`."""
    flags, in_heap = [], False
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        if not line[:1].isupper():  # a mapping's header line
            in_heap = line.rstrip().endswith("[heap]")
        elif in_heap and line.startswith("VmFlags:"):
            flags.append(set(line.split()[1:]))
    return flags


def advised_heap_while_reading(name: str, args: list[str], env: dict) -> bool:
    """Whether `name`'s [heap] is advised for huge pages once the tool waits
    for its input on stdin."""
    proc = subprocess.Popen([str(tool(name)), *args], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            # Sleeping in read(2) on the pipe: main has passed setHeapDefaults.
            state = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            wchan = Path(f"/proc/{proc.pid}/wchan").read_text()
            if state == "S" and "pipe" in wchan:
                break
            time.sleep(0.05)
        else:
            pytest.fail(f"{name} never waited for its input")
        return any("hg" in f for f in heap_flags(proc.pid))
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("name,args", [("pto-opt", ["-", "--pto-ascend-pipeline"]),
                                       ("pto-translate", ["--pto-to-cpp", "-"])])
def test_heap_on_huge_pages(name, args):
    env = {k: v for k, v in os.environ.items() if k != "PTO_HEAP_DEFAULTS"}
    assert advised_heap_while_reading(name, args, env)
    env["PTO_HEAP_DEFAULTS"] = "0"
    assert not advised_heap_while_reading(name, args, env)

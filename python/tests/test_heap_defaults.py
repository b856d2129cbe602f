"""The heap of pto-opt and pto-translate (docs/TileGraph.md#cost-in-the-number-of-kernels).

Built with jemalloc (cmake/PTOAllocator.cmake, the default where Debian's
libjemalloc-dev is installed), the tools map libjemalloc and take the settings
of lib/Tools/Jemalloc/JemallocSettings.cpp; built without it, glibc's main heap
is set up by setHeapDefaults (lib/Tools/Support/HeapDefaults.cpp). Either way
the heap is advised for transparent huge pages, and PTO_HEAP_DEFAULTS=0 leaves
the allocator's own defaults.

Read from the running tool's /proc/<pid>/smaps: a region advised with
MADV_HUGEPAGE carries the `hg` VmFlag. The tool is held open by reading its
input from a pipe nobody writes yet; the heap is set up before it reads.
jemalloc's settings are also read from its own report (MALLOC_CONF=stats_print).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pto_mlir.tools import build_dir, tool

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux")
                       or not Path("/proc/self/smaps").exists(),
                       reason="needs Linux /proc/<pid>/smaps"),
]

TOOLS = [("pto-opt", ["-", "--pto-ascend-pipeline"]),
         ("pto-translate", ["--pto-to-cpp", "-"])]


def cache_entry(name: str) -> str | None:
    """Entry `name` of the build's CMakeCache.txt (skips without a cache)."""
    cache = build_dir() / "CMakeCache.txt"
    if not cache.exists():
        pytest.skip(f"no {cache}: how the tools were built is unknown")
    for line in cache.read_text(errors="replace").splitlines():
        if line.startswith(name + ":"):
            return line.split("=", 1)[1].strip()
    return None


def configured_allocator() -> str:
    """PTO_TOOLS_ALLOCATOR of the build (`jemalloc` or `glibc`)."""
    allocator = cache_entry("PTO_TOOLS_ALLOCATOR")
    if allocator is None:
        pytest.fail(f"{build_dir() / 'CMakeCache.txt'} has no PTO_TOOLS_ALLOCATOR "
                    "(cmake/PTOAllocator.cmake)")
    return allocator


def tool_env(defaults: bool) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PTO_HEAP_DEFAULTS", "MALLOC_CONF", "LD_PRELOAD")}
    if not defaults:
        env["PTO_HEAP_DEFAULTS"] = "0"
    return env


def mappings(pid: int) -> list[tuple[str, set[str]]]:
    """(header line, VmFlags) of each mapping of process `pid`."""
    out, header = [], ""
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        if not line[:1].isupper():  # a mapping's header line
            header = line
        elif line.startswith("VmFlags:"):
            out.append((header, set(line.split()[1:])))
    return out


def mappings_while_reading(name: str, args: list[str], env: dict):
    """`name`'s mappings once the tool waits for its input on stdin."""
    proc = subprocess.Popen([str(tool(name)), *args], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            # Sleeping in read(2) on the pipe: main has set up the heap.
            state = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            wchan = Path(f"/proc/{proc.pid}/wchan").read_text()
            if state == "S" and "pipe" in wchan:
                break
            time.sleep(0.05)
        else:
            pytest.fail(f"{name} never waited for its input")
        return mappings(proc.pid)
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("name,args", TOOLS)
def test_allocator_is_the_configured_one(name, args):
    allocator = configured_allocator()
    maps = mappings_while_reading(name, args, tool_env(defaults=True))
    has_jemalloc = any("libjemalloc" in header for header, _ in maps)
    assert has_jemalloc == (allocator == "jemalloc"), \
        f"{name} built for {allocator} but libjemalloc is {'' if has_jemalloc else 'not '}mapped"


@pytest.mark.skipif(not Path("/sys/kernel/mm/transparent_hugepage/enabled").exists(),
                    reason="the kernel has no transparent huge pages "
                           "(/sys/kernel/mm/transparent_hugepage)")
@pytest.mark.parametrize("name,args", TOOLS)
def test_heap_on_huge_pages(name, args):
    if cache_entry("PTO_SANITIZE") in ("ON", "TRUE", "1"):
        pytest.skip("PTO_SANITIZE build: ASan's allocator replaces malloc, the heap "
                    "settings do not apply")
    def advised(defaults: bool) -> bool:
        return any("hg" in flags
                   for _, flags in mappings_while_reading(name, args, tool_env(defaults)))
    assert advised(defaults=True)
    assert not advised(defaults=False)


def jemalloc_options(name: str, defaults: bool) -> dict[str, str]:
    """jemalloc's run-time options as `name --version` sees them."""
    env = tool_env(defaults)
    env["MALLOC_CONF"] = "stats_print:true"
    out = subprocess.run([str(tool(name)), "--version"], env=env, capture_output=True,
                         text=True, check=True)
    return dict(re.findall(r"^\s+opt\.(\w+): (\S+)", out.stderr + out.stdout, re.M))


@pytest.mark.parametrize("name", [name for name, _ in TOOLS])
def test_jemalloc_settings(name):
    if configured_allocator() != "jemalloc":
        pytest.skip("the tools were built with glibc's malloc (PTO_USE_JEMALLOC off "
                    "or libjemalloc-dev missing)")
    on = jemalloc_options(name, defaults=True)
    assert (on["thp"], on["metadata_thp"], on["dirty_decay_ms"], on["muzzy_decay_ms"]) == \
        ('"always"', '"always"', "-1", "-1"), on
    off = jemalloc_options(name, defaults=False)
    assert off["thp"] != '"always"' and off["dirty_decay_ms"] != "-1", off

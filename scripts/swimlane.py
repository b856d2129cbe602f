#!/usr/bin/python3
"""Swimlane picture of cost-model traces (`pto-run --simulate=... --trace=t.json`).

One panel per trace, one lane per core that ran a launch (AICs above AIVs),
one bar per launch coloured by its leaf family; a launch whose slowest pipe
is MTE2 (GM -> L1 / UB copy-ins) is hatched, and the dark left edge of each
bar is its fixed launch overhead. Panels share the time axis, so a shorter
schedule shows as such.

    scripts/swimlane.py before.json after.json --labels "today" "stationary" -o out.png
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

FAMILY_COLOURS = {"C1": "#1f77b4", "C2": "#2ca02c", "V1": "#ff7f0e", "V2": "#d62728",
                  "M1": "#9467bd", "M2": "#8c564b"}  # M: MIX (DAV_3510)
OTHER = "#7f7f7f"


def load(path: Path) -> list[dict]:
    try:
        events = json.loads(path.read_text())["traceEvents"]
    except (OSError, ValueError, KeyError) as e:
        raise SystemExit(f"swimlane: {path} is not a pto-run trace ({e}); write one with "
                         "`pto-run ... --simulate=a3 --trace=FILE`")
    return [e for e in events if e.get("ph") == "X" and e.get("pid") in (1, 2)]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("traces", nargs="+", type=Path)
    p.add_argument("--labels", nargs="*", default=None)
    p.add_argument("-o", "--out", type=Path, required=True, help="PNG or SVG")
    a = p.parse_args()
    labels = a.labels or [t.stem for t in a.traces]
    if len(labels) != len(a.traces):
        raise SystemExit(f"swimlane: {len(a.traces)} traces but {len(labels)} labels")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch
    except ImportError:
        raise SystemExit("swimlane: needs matplotlib (Debian: python3-matplotlib, "
                         "scripts/install-deps.sh)")
    panels = [load(t) for t in a.traces]
    end = max((e["ts"] + e["dur"] for ev in panels for e in ev), default=1.0)
    lanes_per_panel = [sorted({(e["pid"], e["tid"]) for e in ev}) for ev in panels]
    heights = [max(len(l), 1) for l in lanes_per_panel]
    fig, axes = plt.subplots(len(panels), 1, figsize=(12, 0.16 * sum(heights) + 1.6 * len(panels)),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, events, lanes, label in zip(axes[:, 0], panels, lanes_per_panel, labels):
        row = {lane: i for i, lane in enumerate(lanes)}
        for e in events:
            y = row[(e["pid"], e["tid"])]
            args = e.get("args", {})
            pipes = args.get("pipes_us", {})
            mte2_bound = bool(pipes) and max(pipes, key=pipes.get) == "MTE2"
            colour = FAMILY_COLOURS.get(e["name"], OTHER)
            ax.broken_barh([(e["ts"], e["dur"])], (y - 0.4, 0.8), facecolors=colour,
                           edgecolor="white", linewidth=0.3, hatch="////" if mte2_bound else None)
            overhead = min(args.get("overhead_us", 0.0), e["dur"])
            if overhead:
                ax.broken_barh([(e["ts"], overhead)], (y - 0.4, 0.8), facecolors="black",
                               alpha=0.35, linewidth=0)
        span = max((e["ts"] + e["dur"] for e in events), default=0.0)
        ax.set_yticks(range(len(lanes)))
        ax.set_yticklabels([("AIC " if pid == 1 else "AIV ") + str(tid) for pid, tid in lanes],
                           fontsize=5)
        ax.invert_yaxis()
        ax.set_xlim(0, end * 1.01)
        ax.set_title(f"{label}: {span:.1f} us, {len(events)} launches", fontsize=9)
        ax.grid(axis="x", linewidth=0.3)
    axes[-1, 0].set_xlabel("time (us, cost model)")
    handles = [Patch(facecolor=c, label=f) for f, c in FAMILY_COLOURS.items()]
    handles.append(Patch(facecolor="white", edgecolor="black", hatch="////",
                         label="bound by MTE2"))
    handles.append(Patch(facecolor="black", alpha=0.35, label="launch overhead"))
    axes[0, 0].legend(handles=handles, fontsize=6, loc="upper right", ncol=len(handles))
    fig.tight_layout()
    fig.savefig(a.out, dpi=130)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

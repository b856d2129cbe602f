"""Per-pipe utilisation over time of a modelled run, from the Chrome trace
``pto-run --simulate=... --trace=t.json`` writes (docs/CostModel.md).

    python3 -m pto_mlir.pipe_utilisation t.json -o util.svg [--bins 200] [--csv util.csv]

Each launch keeps its pipes busy for ``pipes_us`` (MTE2, MTE1, M, FIX, V,
MTE3) within its span [ts, ts + dur]; that busy time is spread evenly over the
span and divided by the cores of the launch's pool (cube pipes: the AIC cores,
V and the vector-side MTE pipes of vector launches: the AIV cores). The plot
shows, per pipe, the fraction of the pool's pipes busy in each time bin: where
a kernel is bound and where it idles. The SVG is written without plotting
libraries; ``.png`` needs matplotlib.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

PIPES = ("MTE2", "MTE1", "M", "FIX", "V", "MTE3")
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")
POOLS = {1: "cube", 2: "vector"}


def load_trace(path) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise SystemExit(f"pipe_utilisation: cannot read trace '{path}': {error}")


def utilisation(trace: dict, bins: int = 200) -> dict:
    """{"edges_us": [...], "cube": {pipe: [fraction per bin]}, "vector": ...}."""
    events = trace.get("traceEvents")
    if not isinstance(events, list):
        raise ValueError("not a Chrome trace: no traceEvents list (write it with "
                         "pto-run --simulate=a3 --trace=FILE.json)")
    cores = {pool: 0 for pool in POOLS}
    spans = []
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name" and e.get("pid") in POOLS:
            cores[e["pid"]] += 1
        elif e.get("ph") == "X" and e.get("pid") in POOLS:
            pipes = (e.get("args") or {}).get("pipes_us")
            if not isinstance(pipes, dict):
                raise ValueError(f"launch event without args.pipes_us: {e.get('name')!r}")
            spans.append((e["pid"], float(e["ts"]), float(e["dur"]), pipes))
    if not spans:
        raise ValueError("the trace has no launches (was the kernel outlined? "
                         "run pto-run on --pto-tile-graph-pipeline output)")
    end = max(ts + dur for _, ts, dur, _ in spans)
    width = end / bins if end > 0 else 1.0
    result = {"edges_us": [i * width for i in range(bins + 1)]}
    for pid, pool in POOLS.items():
        result[pool] = {pipe: [0.0] * bins for pipe in PIPES}
    for pid, ts, dur, pipes in spans:
        pool = result[POOLS[pid]]
        n = max(cores[pid], 1)
        first, last = int(ts // width), min(int((ts + dur) // width), bins - 1)
        for b in range(first, last + 1):
            lo, hi = max(ts, b * width), min(ts + dur, (b + 1) * width)
            share = (hi - lo) / dur if dur > 0 else (1.0 if b == first else 0.0)
            for pipe in PIPES:
                pool[pipe][b] += float(pipes.get(pipe, 0.0)) * share / (width * n)
    return result


def write_csv(result: dict, path) -> None:
    lines = ["start_us," + ",".join(f"{pool}_{pipe}" for pool in POOLS.values() for pipe in PIPES)]
    for b, start in enumerate(result["edges_us"][:-1]):
        values = [result[pool][pipe][b] for pool in POOLS.values() for pipe in PIPES]
        lines.append(f"{start:.3f}," + ",".join(f"{v:.4f}" for v in values))
    Path(path).write_text("\n".join(lines) + "\n")


def svg(result: dict, title: str = "pipe utilisation") -> str:
    """Two panels (cube, vector), one polyline per pipe that was ever busy."""
    w, h, left, top, gap = 900, 220, 60, 40, 50
    edges = result["edges_us"]
    end = edges[-1] or 1.0
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w + left + 120}" '
           f'height="{top + 2 * (h + gap)}" font-family="sans-serif" font-size="12">',
           f'<text x="{left}" y="20" font-size="14">{title}</text>']
    for row, pool in enumerate(POOLS.values()):
        y0 = top + row * (h + gap)
        out.append(f'<rect x="{left}" y="{y0}" width="{w}" height="{h}" fill="none" stroke="#888"/>')
        out.append(f'<text x="{left}" y="{y0 - 6}">{pool} cores</text>')
        for frac in (0, 0.5, 1):
            y = y0 + h - frac * h
            out.append(f'<text x="{left - 8}" y="{y + 4}" text-anchor="end">{frac:g}</text>')
        out.append(f'<text x="{left + w}" y="{y0 + h + 16}" text-anchor="end">{end:.1f} us</text>')
        legend = 0
        for pipe, colour in zip(PIPES, COLOURS):
            series = result[pool][pipe]
            if not any(series):
                continue
            points = " ".join(
                f"{left + w * (edges[b] + edges[b + 1]) / 2 / end:.1f},"
                f"{y0 + h - h * min(v, 1.0):.1f}" for b, v in enumerate(series))
            out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{points}"/>')
            out.append(f'<text x="{left + w + 10}" y="{y0 + 14 + 16 * legend}" fill="{colour}">{pipe}</text>')
            legend += 1
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_png(result: dict, path, title: str) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("pipe_utilisation: a .png needs matplotlib (Debian: python3-matplotlib); "
                         "write .svg instead")
    edges = result["edges_us"]
    mids = [(a + b) / 2 for a, b in zip(edges, edges[1:])]
    fig, axes = plt.subplots(2, 1, sharex=True, figsize=(10, 5))
    for ax, pool in zip(axes, POOLS.values()):
        for pipe, colour in zip(PIPES, COLOURS):
            if any(result[pool][pipe]):
                ax.plot(mids, result[pool][pipe], label=pipe, color=colour)
        ax.set_ylabel(f"{pool} busy")
        ax.set_ylim(0, 1.05)
        ax.legend(loc="upper right", fontsize=8)
    axes[-1].set_xlabel("time (us)")
    fig.suptitle(title)
    fig.savefig(path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m pto_mlir.pipe_utilisation",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("trace", help="Chrome trace from pto-run --simulate --trace")
    parser.add_argument("-o", "--output", required=True, help="FILE.svg or FILE.png")
    parser.add_argument("--bins", type=int, default=200, help="time bins (default 200)")
    parser.add_argument("--csv", help="also write the numbers as CSV")
    args = parser.parse_args(argv)
    if args.bins < 1:
        parser.error("--bins expects a positive integer")
    try:
        result = utilisation(load_trace(args.trace), args.bins)
    except ValueError as error:
        print(f"pipe_utilisation: {args.trace}: {error}", file=sys.stderr)
        return 2
    title = f"pipe utilisation: {Path(args.trace).name}"
    output = Path(args.output)
    if output.suffix == ".png":
        write_png(result, output, title)
    elif output.suffix == ".svg":
        output.write_text(svg(result, title))
    else:
        parser.error(f"--output must end in .svg or .png, got '{output}'")
    if args.csv:
        write_csv(result, args.csv)
    return 0


if __name__ == "__main__":
    sys.exit(main())

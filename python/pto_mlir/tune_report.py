"""pto-tune's output (docs/Tuning.md): the ranked table, the search
report and the Pareto plot of modelled time against GM workspace."""

from __future__ import annotations

import sys
from pathlib import Path

from pto_mlir.tune_estimate import Estimate
from pto_mlir.tune_space import TuneError


def print_search_report(results: list, card: dict, card_est, best, how: str,
                        elapsed: float, jobs: int, top: int, error) -> None:
    """Prints what a search found: the search line, the ranked table, the
    card's estimate, the first pruned configurations and the best one
    (`error` when every configuration was rejected)."""
    pruned = [e for e in results if not e.ok]
    print(f"search: {how}; {len(results)} estimated, {len(pruned)} pruned; "
          f"{elapsed:.1f} s with {jobs} job{'s' if jobs > 1 else ''}")
    print_table(HEADER, ranked_table(results, card, top))
    print("card config: " + " ".join(f"{k}={fmt_value(v)}" for k, v in card.items()))
    if card_est.ok:
        print(f"card: {card_est.time_us:.1f} us ({card_est.peak_pct:.1f} % of cube peak)")
    else:
        print(f"card: rejected ({card_est.pruned})")
    for e in pruned[:5]:
        print(f"pruned: {fmt_config(e.config, card)}: {e.pruned}")
    if best is None:
        raise error("every configuration was rejected (see 'pruned' above)")
    speedup = (f", {card_est.time_us / best.time_us:.3f}x the card's speed"
               if card_est.ok else "")
    print(f"best: {fmt_config(best.config, card)}: {best.time_us:.1f} us{speedup}")


def fmt_value(v) -> str:
    if isinstance(v, tuple):
        return "x".join(map(str, v))
    return str(v)


def fmt_config(config: dict, card: dict) -> str:
    """The parameters that differ from the card's (or `card` for none)."""
    diff = [f"{k}={fmt_value(v)}" for k, v in config.items() if card.get(k) != v]
    return " ".join(diff) if diff else "card"


def ranked_table(results: list, card: dict, top: int) -> list:
    ok = sorted((e for e in results if e.ok), key=lambda e: e.time_us)
    rows = []
    for rank, e in enumerate(ok[:top], 1):
        rows.append([str(rank), fmt_config(e.config, card), f"{e.time_us:.1f}",
                     f"{e.peak_pct:.1f}", e.bound, str(e.launches), f"{e.gm_gib:.2f}",
                     f"{e.workspace_mib:.1f}"])
    return rows


HEADER = ["rank", "config (vs card)", "modelled us", "% of cube peak", "bound", "launches",
          "GM GiB", "workspace MiB"]


def print_table(header: list, rows: list, out=sys.stdout):
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)), file=out)
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)), file=out)


def pareto_front(results: list) -> list:
    ok = sorted((e for e in results if e.ok), key=lambda e: (e.workspace_mib, e.time_us))
    front, best = [], float("inf")
    for e in ok:
        if e.time_us < best:
            front.append(e)
            best = e.time_us
    return front


def plot(results: list, card_est: Estimate | None, path: Path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise TuneError("--plot needs matplotlib (Debian: python3-matplotlib; "
                        "scripts/install-deps.sh installs it)") from None
    ok = [e for e in results if e.ok]
    front = pareto_front(results)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.scatter([e.workspace_mib for e in ok], [e.time_us for e in ok], s=14, c="#9aa",
               label="estimated configurations")
    ax.plot([e.workspace_mib for e in front], [e.time_us for e in front], "o-",
            c="#c33", label="Pareto front")
    if card_est and card_est.ok:
        ax.scatter([card_est.workspace_mib], [card_est.time_us], marker="*", s=160,
                   c="#36c", label="card configuration", zorder=5)
    ax.set_xlabel("GM workspace per root instance (MiB)")
    ax.set_ylabel("modelled time (us)")
    ax.set_title("pto-tune: modelled time vs workspace")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)

"""pto-tune's search (docs/Tuning.md): exhaustive when the space fits the
budget, otherwise coordinate descent from the card's configuration;
candidates are estimated in parallel, with a progress bar on a terminal."""

from __future__ import annotations

import concurrent.futures
import itertools
import sys
import time

from pto_mlir.tune_estimate import Estimate, Tuner


class Progress:
    """A one-line progress bar on a terminal (stderr); silent otherwise."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.done, self.best = total, 0, None
        self.enabled = enabled
        self.started = time.perf_counter()

    def step(self, est: Estimate):
        self.done += 1
        if est.ok and (self.best is None or est.time_us < self.best):
            self.best = est.time_us
        if not self.enabled:
            return
        width = 30
        filled = int(width * self.done / max(1, self.total))
        best = f", best {self.best:.1f} us" if self.best is not None else ""
        sys.stderr.write(f"\rpto-tune [{'#' * filled}{'.' * (width - filled)}] "
                         f"{self.done}/{self.total}{best}, "
                         f"{time.perf_counter() - self.started:.0f} s ")
        sys.stderr.flush()

    def close(self):
        if self.enabled:
            sys.stderr.write("\n")


def estimate_all(tuner: Tuner, configs: list, jobs: int, progress: Progress) -> list:
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for est in pool.map(tuner.estimate, configs):
            progress.step(est)
            results.append(est)
    return results


def search(tuner: Tuner, space: dict, card: dict, budget: int, jobs: int,
           show_progress: bool) -> tuple[list, str]:
    names = list(space)
    size = 1
    for values in space.values():
        size *= len(values)
    if size <= budget:
        configs = [dict(zip(names, combo)) for combo in itertools.product(*space.values())]
        progress = Progress(len(configs), show_progress)
        results = estimate_all(tuner, configs, jobs, progress)
        progress.close()
        return results, f"exhaustive ({size} configurations)"
    # Coordinate descent from the card's configuration.
    current = {n: card[n] for n in names}
    progress = Progress(budget, show_progress)
    results = {tuner.key(current): None}
    best = estimate_all(tuner, [current], jobs, progress)[0]
    results[tuner.key(current)] = best
    rounds = 0
    while len(results) < budget:
        rounds += 1
        changed = False
        for name in names:
            trial = []
            for v in space[name]:
                c = dict(current, **{name: v})
                if tuner.key(c) not in results and len(results) + len(trial) < budget:
                    trial.append(c)
            for est in estimate_all(tuner, trial, jobs, progress):
                results[tuner.key(est.config)] = est
                if est.ok and (not best.ok or est.time_us < best.time_us):
                    best, current, changed = est, dict(est.config), True
            if len(results) >= budget:
                break
        if not changed:
            break
    progress.close()
    return [e for e in results.values() if e is not None], \
        (f"coordinate descent from the card's configuration ({size} configurations in the "
         f"space; {len(results)} estimated in {rounds} round{'s' if rounds != 1 else ''})")

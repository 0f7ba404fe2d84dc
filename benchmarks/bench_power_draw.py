"""Benchmark: drawing power()'s data sets, and its estimate of that time (``draw_seconds``) against the clock.

Run from the repository root::

    python benchmarks/bench_power_draw.py
    python benchmarks/bench_power_draw.py --repeat 5

Prints, in CPU seconds (``time.process_time``; the machine may be shared):

* a typical call, ``power("skillings_mack", agents=3, tasks=5, effect=0.5)`` with its defaults (1,000 data sets at
  3, 5, 10 and 20 seeds), whole, and the drawing of its data sets alone (the dry run's data set and every block's,
  as power() draws them), best of ``--repeat``;
* for ``n_sim`` = 10, 20, 50 and 200 data sets of 3 agents x 5 tasks x 5 seeds, from simulate()'s model and from a
  resampled pilot (3 x 5 x 10 runs): the drawing the study does (the dry run's and its blocks', ``_BLOCK`` data sets
  a block) against what the study's estimate counts for it (``draw_seconds``), and their ratio.

Works on trees before and after audit s35 (power35), where ``draw_seconds(shape)`` priced one data set and the
study multiplied it by ``n_sim``; now ``draw_seconds(shape, n)`` prices ``n`` data sets drawn as power() draws them.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import time
import warnings

from measure import best_of  # benchmarks/measure.py
import rlstats
from rlstats.cost import Shape

planning = importlib.import_module("rlstats.planning._api")


def _study(design=None, seeds=5):
    kwargs = {"design": design, "formula": "score ~ agent | task"} if design is not None else {"agents": 3, "tasks": 5}
    study = planning._prepare("skillings_mack", kwargs.get("design"), kwargs.get("formula"), 0.5, kwargs.get("tasks"),
                              kwargs.get("agents"), "mixed", 1.0, "agents", None, 0.05, 1000, 0, 1, None, None,
                              False, None, {}, None)[0]
    return study


def _draw_all(study, seeds_list, n_sim):
    """What power() draws: each number of seeds' dry-run data set, then its blocks."""
    for seeds in seeds_list:
        planning._drawn(study, seeds, 0, 1)
        for s, start, stop in planning._blocks([seeds], n_sim):
            planning._drawn(study, s, start, stop)


def _predicted(study, seeds, n_sim):
    """The drawing the study's estimate counts (the tree's own rule)."""
    shape = Shape.of(study.source.template(seeds))
    if len(inspect.signature(study.source.draw_seconds).parameters) == 1:  # before power35: a data set's, x n_sim
        return n_sim * study.source.draw_seconds(shape)
    return study.source.draw_seconds(shape, n_sim) + study.source.draw_seconds(shape, 1)  # its blocks, the dry run


def _timed(function, repeat, least=0.2):
    """CPU seconds of one call of ``function``: best of ``repeat`` loops of enough calls to take ``least`` s."""
    calls = 1
    while True:
        start = time.process_time()
        for _ in range(calls):
            function()
        if time.process_time() - start >= least:
            break
        calls *= 2
    seconds, _ = best_of(lambda: [function() for _ in range(calls)], repeat)
    return seconds / calls


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="best of this many (default 3)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")

    study = _study()
    call, _ = best_of(lambda: rlstats.power("skillings_mack", agents=3, tasks=5, effect=0.5, rng=0, progress=False),
                      args.repeat)
    drawing, _ = best_of(lambda: _draw_all(study, planning.DEFAULT_SEEDS, 1000), args.repeat)
    print("power('skillings_mack', agents=3, tasks=5, effect=0.5), defaults (1,000 data sets at 3, 5, 10, 20 seeds)")
    print(f"  whole call {call:.3f} s CPU; drawing its data sets {drawing:.3f} s")

    pilot = rlstats.datasets.simulate(3, 5, 10, rng=1)
    print("\ndrawing of a study at 5 seeds (3 x 5 cells): predicted (draw_seconds) vs measured, ms")
    print(f"{'source':<10} {'n_sim':>6} {'predicted':>10} {'measured':>10} {'measured/predicted':>19}")
    for name, source_study in (("simulate", study), ("pilot", _study(pilot))):
        for n_sim in (10, 20, 50, 200):
            measured = _timed(lambda: _draw_all(source_study, [5], n_sim), args.repeat)
            predicted = _predicted(source_study, 5, n_sim)
            print(f"{name:<10} {n_sim:>6} {1e3 * predicted:>10.3f} {1e3 * measured:>10.3f} "
                  f"{measured / predicted:>19.2f}")


if __name__ == "__main__":
    main()

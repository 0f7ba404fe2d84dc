"""The measured level of every default claim, from one table that ships with the package.

``calibration.csv`` beside this module is written by ``tests/reference/calibrate.py`` (rerun it to regenerate any
part: ``--only PROCEDURE``). One row per procedure and grid point:

``procedure``
    What was measured, as ``backend.claim``: ``task_table.possibly_best`` (the possibly-best set holds every truly
    best agent), ``curves.band`` (a band holds the true curve; for ``band=difference`` and ``band=max_t``, two alike
    agents are not declared different anywhere), ``skillings_mack.size`` (the default rank test does not reject
    under the null), ``bootstrap.interval`` (a bootstrap interval at few runs per task holds the true metric),
    ``percentiles.interval`` (the performance percentiles' simultaneous intervals all hold their true values),
    ``bootstrap.profile`` (a performance profile's pointwise band holds the true profile at one threshold),
    ``selection.size`` (the selection check's inspector and reporter tests do not reject under their null),
    ``adastop.fwe`` (AdaStop and the one-shot permutation test reject no comparison under the global null),
    ``mixed.contrast`` (the mixed model's Tukey or Bonferroni simultaneous intervals of the pairwise differences,
    with Satterthwaite's or Kenward-Roger's df in ``test`` and the adjustment in ``interval``, hold every true
    difference; under agents alike, no pair is declared different), ...
design columns
    ``test``, ``statistic``, ``band``, ``interval``, ``metric``, ``agents``, ``tasks``, ``runs``,
    ``distribution``, ``configuration``: the design the row was simulated at; empty where a procedure has no such
    choice.
``level``
    The nominal level of the claim: the confidence level of an interval, band or set, 1 - alpha for a test.
``coverage``
    The share of simulations in which the claim held: the interval, band or set held the truth, or, for a test
    under its null, the test did not reject (so a test's size is 1 - coverage). It holds its level when
    ``coverage >= level``, as an interval does.
``n_sim``, ``se``
    The simulations behind the row and the binomial standard error of ``coverage``.
``n_resamples``, ``set_size``
    Resamples or permutations each simulated result used, and (possibly-best set) its mean size.
``design_draws``, ``coverage_min``
    How many draws of the tasks' offsets and scales the row pools (``tests/reference/designs.py``), and the lowest
    coverage of a single draw: a row holds only if the pooled coverage and every draw hold, so that one lucky draw
    of the design cannot flatter it. Empty for rows measured on a single fixed design.

A result quotes a row (:func:`shortfall`) where its design is one at which the level was missed by more than 3
Monte Carlo standard errors, pooled or in any one design draw.
"""

from __future__ import annotations

import csv
import functools
import math
import pathlib
from typing import Iterable

PATH = pathlib.Path(__file__).with_name("calibration.csv")


@functools.lru_cache(maxsize=None)
def read(path: str | pathlib.Path = PATH) -> tuple[dict[str, str], ...]:
    """The rows of the table at ``path`` as dicts of strings (none when the file is absent)."""
    path = pathlib.Path(path)
    if not path.exists():
        return ()
    with path.open(newline="", encoding="utf-8") as handle:
        return tuple(csv.DictReader(handle))


def rows(procedure: str) -> tuple[dict[str, str], ...]:
    """The package table's rows measuring ``procedure`` (e.g. ``"curves.band"``)."""
    return tuple(row for row in read() if row["procedure"] == procedure)


def procedures() -> list[str]:
    """The procedures the package table has rows for."""
    return sorted({row["procedure"] for row in read()})


def shortfall(rows: Iterable[dict[str, str]], level: float, **design: object) -> dict[str, str] | None:
    """The row with the lowest coverage among ``rows`` matching ``design`` that miss ``level`` by over 3 SE.

    A row matches when each named column reads as the given value (compared as text, so ``runs=5`` matches
    ``"5"``). The standard error is the binomial one at the nominal level, sqrt(level (1 - level) / n_sim); a row
    that pools design draws also misses when its lowest draw is below the level by 3 standard errors of one draw.
    The rows are ranked by that worst coverage. None when every matching row holds its level or none matches.
    """
    short = [row for row in rows if all(row[key] == str(value) for key, value in design.items())
             and misses(row, level)]
    return min(short, key=worst_coverage) if short else None


def worst_coverage(row: dict[str, str]) -> float:
    """The row's pooled coverage, or its lowest design draw's where it records one."""
    low = _optional(row, "coverage_min")
    return min(float(row["coverage"]), float(low)) if low else float(row["coverage"])


def misses(row: dict[str, str], level: float) -> bool:
    """Whether ``row`` is below ``level`` by more than 3 Monte Carlo SE, pooled or in its worst design draw."""
    n_sim = int(row["n_sim"])
    if float(row["coverage"]) < level - 3 * math.sqrt(level * (1 - level) / n_sim):
        return True
    low, draws = _optional(row, "coverage_min"), _optional(row, "design_draws")
    return bool(low and draws) and float(low) < level - 3 * math.sqrt(level * (1 - level) * int(draws) / n_sim)


def _optional(row: dict[str, str], key: str) -> str:
    """A column that older rows leave empty (absent, blank, or ``nan`` after a round trip through pandas)."""
    value = str(row.get(key) or "")
    return "" if value.lower() == "nan" else value

"""The statistics of the units check of ``normalize=`` with a named reference (audit s27, units27) on the published
scores ``rlstats.datasets`` offers with their matching reference, as given and in other units.

For each pairing (Atari 100k with ``atari100k_reference`` and ``atari_reference``, the Dopamine Atari curves with
``atari_reference`` on the 55 games it covers), as a whole, per agent, and for Dopamine per agent and iteration
(every 10th and the last), it prints, computed here with pandas apart from ``rlstats.normalization``:

* M: the median over tasks of each task's median normalised score (the rule's bound: ``UNITS_RANGE``, 10 for Atari 100k, 50 for the full benchmark);
* A: the median over tasks of each task's median ``|score|`` of its scores not 0, over the larger magnitude of the
  task's two reference scores (the rule's floor: ``UNITS_TINY``, 0.002);

their range over the frames of each row, and whether ``rlstats.normalize`` warned on the whole frame. The rows
quoted in ``rlstats/normalization.py`` (published agents: M at most 1.5, A 0.07 to 1.4; x100 M from 14 (CURL), /1000
A at most 0.0014) come from this script. Reads the mirror (``RLSTATS_DATA_MIRROR``); about 20 s.

    RLSTATS_DATA_MIRROR=/work/shared/data/raw PYTHONPATH=. python tests/reference/units_slip_survey.py
"""

import warnings

import numpy as np
import pandas as pd

import rlstats

FACTORS = (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1000.0)


def statistics(frame, reference, factor):
    """(M, A) of ``frame``'s scores times ``factor`` against ``reference`` (columns task, random, human)."""
    table = reference.set_index("task")
    low = table.loc[frame["task"], "random"].to_numpy(float)
    high = table.loc[frame["task"], "human"].to_numpy(float)
    score = frame["score"].to_numpy(float) * factor
    rows = pd.DataFrame({"task": frame["task"].to_numpy(), "n": (score - low) / (high - low),
                         "a": np.where(score != 0, np.abs(score) / np.maximum(np.abs(low), np.abs(high)), np.nan)})
    rows = rows[np.isfinite(score)]
    per = rows.groupby("task")
    return float(per["n"].median().median()), float(per["a"].median().dropna().median())


def pairings():
    load = rlstats.datasets.load
    atari, dopamine, full = load("atari100k"), load("dopamine_atari"), load("atari_reference")
    for name, reference in (("atari100k_reference", load("atari100k_reference")), ("atari_reference", full)):
        yield f"atari100k / {name}", name, reference, atari, [atari, *(f for _, f in atari.groupby("agent"))]
    covered = dopamine[dopamine["task"].isin(set(full["task"]))]
    steps = sorted(set(range(0, covered["step"].max() + 1, 10)) | {covered["step"].max()})
    parts = [covered, *(f for _, f in covered.groupby("agent")),
             *(f for (_, step), f in covered.groupby(["agent", "step"]) if step in steps)]
    yield "dopamine_atari (55 games) / atari_reference", "atari_reference", full, covered, parts


def main():
    print(f"{'pairing':46s} {'factor':>7s} {'M whole':>9s} {'M range':>19s} {'A whole':>9s} {'A range':>19s}  warned")
    for label, name, reference, whole, parts in pairings():
        for factor in FACTORS:
            values = np.array([statistics(part, reference, factor) for part in parts])
            m, a = statistics(whole, reference, factor)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                rlstats.normalize(whole.assign(score=whole["score"] * factor), name)
            warned = any("times too" in str(w.message) for w in caught)
            print(f"{label:46s} {factor:7g} {m:9.3g} {values[:, 0].min():9.3g}..{values[:, 0].max():<8.3g} "
                  f"{a:9.3g} {values[:, 1].min():9.3g}..{values[:, 1].max():<8.3g}  {warned}")


if __name__ == "__main__":
    main()

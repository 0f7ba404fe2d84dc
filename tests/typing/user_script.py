# pyright: strict, reportUnnecessaryTypeIgnoreComment=true
"""A typed user's analysis with rlstats, checked by ``mypy --strict`` and pyright (tests/test_typing_user.py).

It is what a user would write: compare agents with several methods, read the numbers off the results, tabulate,
report, normalise, read logs. Each line marked ``# type: ignore[code]`` MUST fail to type-check (an option typo, a
field the result does not have): with ``--warn-unused-ignores`` (mypy) and ``reportUnnecessaryTypeIgnoreComment``
(pyright), a marked line that stops failing fails the check. The test also runs ``main()``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

import rlstats


def ranks(df: pd.DataFrame) -> tuple[float, list[float]]:
    """The rank test through compare(): its own result class, so mean_ranks is known."""
    res = rlstats.compare(df, "score ~ agent | task", method="skillings_mack", rng=0)
    pvalue: float = res.pvalue
    mean_ranks: list[float] = [float(r) for r in res.mean_ranks]
    return pvalue, mean_ranks


def default_method(df: pd.DataFrame) -> float:
    """Without method=, the result is the rank test's (with '| task') or the permutation test's: narrow it."""
    res = rlstats.compare(df, "score ~ agent | task")
    if isinstance(res, rlstats.SkillingsMackResult):
        print("mean ranks:", res.mean_ranks)
        return res.pvalue
    per_pair = res.pvalue  # the permutation test: one adjusted p-value per pair of agents
    return float(np.min(per_pair)) if per_pair is not None else 1.0


def intervals(df: pd.DataFrame) -> pd.DataFrame:
    """The bootstrap's estimates and intervals, as arrays and as a tidy table."""
    boot = rlstats.compare(df, "score ~ agent | task", method="bootstrap", n_resamples=500, rng=0)
    estimates: np.ndarray = boot.estimates
    low_high: np.ndarray = boot.intervals
    agents: tuple[str, ...] = boot.agents
    metrics: tuple[str, ...] = boot.metrics
    assert estimates.shape[:1] == (len(agents),) and low_high.shape[-1] == 2 and metrics
    same = rlstats.bootstrap(df, "score ~ agent | task", interval="basic", n_resamples=200, rng=0)
    print(same.confidence_level, same.interval)
    return boot.tidy()


def report_and_tables(df: pd.DataFrame) -> str:
    """A methods paragraph and the tidy and glance tables, in rlstats' and broom's column names."""
    res = rlstats.skillings_mack(df, "score ~ agent | task", pvalue="monte_carlo", posthoc="ranks",
                                 adjustment="holm", n_resamples=999, rng=0)
    tidy: pd.DataFrame = res.tidy(names="broom")
    glance: pd.DataFrame = res.glance()
    print(tidy.shape, glance.shape)
    return res.report(format="text")


def more_methods(df: pd.DataFrame) -> list[str]:
    """Other back ends, each typed: the mixed model, the permutation test, percentiles and the task table."""
    mixed = rlstats.compare(df, "score ~ agent | task", method="mixed", ddf="kenward-roger", normalize="minmax")
    perm = rlstats.compare(df, "score ~ agent | task", method="permutation", n_resamples=500, rng=0)
    per_task = rlstats.task_table(df, "score ~ agent | task", test="mannwhitney", adjustment="bonferroni")
    direct = rlstats.mixed(df, "score ~ agent | task", ddf="satterthwaite", adjust="holm", na_action="drop",
                          normalize="minmax")
    return [mixed.method, perm.method, per_task.method, direct.method]


def normalised(df: pd.DataFrame) -> pd.DataFrame:
    """Scores on a [0, 1] scale per task, then compared."""
    reference = pd.DataFrame({"task": sorted(df["task"].unique()), "low": -5.0, "high": 5.0})
    scaled: pd.DataFrame = rlstats.normalize(df, reference, low="low", high="high")
    res = rlstats.compare(scaled, "score ~ agent | task", method="bootstrap", n_resamples=200, rng=0)
    return res.tidy()


def named_by_number(df: pd.DataFrame) -> str | None:
    """Agents coded 0, 1, 2 (as an RL log's integer codes) named by their number, as the data print them."""
    coded = df.assign(agent=df["agent"].cat.codes)
    res = rlstats.skillings_mack(coded, "score ~ agent | task", control=0)
    return res.control


def logs(folder: Path) -> pd.DataFrame:
    """Training logs into the long frame, then the learning curves' final scores."""
    frame: pd.DataFrame = rlstats.read_logs(folder, "{agent}/{task}/{seed}/progress.csv", format="sb3_progress",
                                            keep="last", on_error="skip", progress=False)
    return frame


def must_fail(df: pd.DataFrame) -> None:
    """Each marked line is a mistake a type checker catches; never called."""
    rlstats.mixed(df, "score ~ agent | task", ddf="kenward_roger")  # type: ignore[arg-type]
    res = rlstats.skillings_mack(df, "score ~ agent | task")
    res.report(format="markdown")  # type: ignore[arg-type]
    rlstats.skillings_mack(df, "score ~ agent | task", pvalue="montecarlo")  # type: ignore[arg-type]
    rlstats.bootstrap(df, "score ~ agent | task", interval="bca_")  # type: ignore[arg-type]
    rlstats.compare(df, "score ~ agent | task", method="bootsrap")  # type: ignore[call-overload]
    perm = rlstats.compare(df, "score ~ agent", method="permutation")
    print(perm.mean_ranks)  # type: ignore[attr-defined]
    either = rlstats.compare(df, "score ~ agent | task")
    print(either.mean_ranks)  # type: ignore[union-attr]
    rlstats.skillings_mack(df, "score ~ agent | task", na_action="ignore")  # type: ignore[arg-type]
    rlstats.skillings_mack(df, "score ~ agent | task", control=["agent_1"])  # type: ignore[arg-type]


def main() -> int:
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=3, effect=1.0, rng=0)
    pvalue, mean_ranks = ranks(df)
    assert 0.0 <= pvalue <= 1.0 and len(mean_ranks) == 3
    assert 0.0 <= default_method(df) <= 1.0
    assert len(intervals(df)) > 0
    assert "rank" in report_and_tables(df).lower()
    assert len(more_methods(df)) == 4
    assert len(normalised(df)) > 0
    assert named_by_number(df) == "0"
    return 0


if __name__ == "__main__":
    sys.exit(main())

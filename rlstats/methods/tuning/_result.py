"""TuningResult: the four views of a hyperparameter sweep, as tables, print sections and plots."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np
import pandas as pd

from ... import format as fmt
from ...errors import OptionError
from ...options import check_bool
from ..._typing import ColumnNames
from ...results import Result, Summary, resultclass
from . import plots
from ._backend import COMPLETE_CONFIGURATIONS

#: lines of each printed section at most (the tables hold everything)
SHOWN = 8


@resultclass
class TuningResult(Result):
    """Result of :func:`rlstats.tuning`.

    Besides the fields below it has those of every result (:class:`rlstats.results.Result`): ``method``, ``formula``,
    ``data_name``, ``nobs``, ``notes``, ``options`` and ``seed``.

    Attributes
    ----------
    agents, tasks : tuple of str
    config_columns : tuple of str
        The hyperparameter columns; each distinct combination is a configuration.
    unit : str
        What the unit of resampling is (the configuration; seeds are nested in it).
    views : tuple of str
        The views computed.
    n_configs : ndarray of int, shape (n_tasks, n_agents)
        Configurations in each sweep.
    confidence_level, threshold : float
    n_resamples : int or None
        The bootstrap resamples the views read; None when none does (the expected-max and complete views' default
        intervals are closed forms).
    tables : dict of str -> DataFrame or None
        ``best_set`` (one row per configuration with a chance of being best, and the selected one: ``best_set()``
        returns the best set's rows, ``best_set(runners_up=True)`` all), ``tuned`` (one
        row per agent and task: the selected configuration, the tuned score corrected for selection and its
        interval, the held-out estimate), ``expected_max``, ``complete``, ``complete_runs``, ``sensitivity``,
        ``dimensions``; read them through the view methods.
    not_computed_why : dict of str -> str
        The note saying why a view asked for was not computed, or why a default view was left out for these data
        (sensitivity over a replicate level), by view (the result's own, never a note of the data that reads alike).
    config_digits : dict of str -> int
        For each floating-point ``config_columns`` column, the fewest significant digits (3 or more) that keep its
        values apart over every configuration of the data: the print, the LaTeX tables, the plots and the notes show
        its values at them ("lr=1.87e-05"); the tables, tidy() and to_dict() keep the labels as the data write them.
    """

    agents: tuple[str, ...]
    tasks: tuple[str, ...]
    config_columns: tuple[str, ...]
    unit: str
    views: tuple[str, ...]
    n_configs: np.ndarray
    confidence_level: float
    threshold: float
    n_resamples: int | None
    tables: dict[str, pd.DataFrame]
    not_computed_why: dict[str, str] = dataclasses.field(default_factory=dict)
    config_digits: dict[str, int] = dataclasses.field(default_factory=dict)

    _plot_kinds: ClassVar[dict] = {"best_set": plots.plot_best_set, "expected_max": plots.plot_expected_max,
                                   "complete": plots.plot_complete, "sensitivity": plots.plot_sensitivity}

    def _table(self, name, view):
        table = self.tables.get(name)
        if table is None:
            raise OptionError(self.not_computed(view))
        return table.copy()

    def not_computed(self, view: str) -> str:
        """Why the ``view`` has no table here: not asked for (``views=``), or asked for and not computed, in the
        words of the note that says why (audit s22: a view asked for by default and left out for want of a second
        task was named among the views computed)."""
        if view in self.views:
            # the note that says why, recorded where it was made (others on the view, e.g. "sensitivity: the scores
            # were used as given", may come first: review22a; a note of the data that reads alike is not it: s23)
            return (f"the {view} view was asked for but not computed here: "
                    + self.not_computed_why.get(view, "see the notes"))
        if view in self.not_computed_why:  # left out for this design, not for want of views=
            return f"the {view} view is not available for these data: " + self.not_computed_why[view]
        return (f"the {view} view was not computed here (views={list(self.views)}); run "
                f"rlstats.tuning(..., views=[{view!r}, ...]) (sensitivity also needs config= columns, "
                "two tasks and an agent with runs on every task)")

    @property
    def estimates(self) -> np.ndarray:
        """(n_tasks, n_agents) tuned scores corrected for selection (the complete algorithm's without best_set)."""
        table = self.tables.get("tuned")
        table = self.tables.get("complete") if table is None else table
        out = np.full((len(self.tasks), len(self.agents)), np.nan)
        if table is not None:
            out[[self.tasks.index(t) for t in table["task"]], [self.agents.index(a) for a in table["agent"]]] = \
                table["estimate"].to_numpy()
        return out

    # ---- the views ---------------------------------------------------------------------------------------------
    def expected_max(self) -> pd.DataFrame:
        """Expected best score after tuning with ``budget`` configurations, per agent and task (and the mean over
        tasks), without and with replacement, with pointwise bands (``band=``)."""
        return self._table("expected_max", "expected_max")

    def best_set(self, *, runners_up: bool = False) -> pd.DataFrame:
        """The configurations in the best set of each sweep: best or tied for best in at least ``threshold`` of the
        resamples (``probability_best_or_tied``), with their probability of being best under the bootstrap of the
        selection (``probability_best``, ties shared), their mean, spread and seeds, and whether each was selected;
        a sweep's rows are as many as the printed "best set of n" says (none where the set is empty). Where a
        configuration of one seed withholds a sweep's probabilities, its selected configuration, ``in_best_set``
        missing; in a sweep of one configuration, that configuration (True by construction).

        ``runners_up=True`` adds the configurations outside the set that were best or tied for best in some resample
        (``in_best_set`` False) and a selected configuration outside its set: every configuration with a chance, as
        the summary's table and the plot show them. A note counts the configurations each leaves out and says why.
        """
        table = self._table("best_set", "best_set")
        if check_bool("runners_up", runners_up):
            return table
        return table[table["in_best_set"].astype("boolean").fillna(True).to_numpy(dtype=bool)].reset_index(drop=True)

    def tuned(self) -> pd.DataFrame:
        """Per agent and task: the selected configuration, the tuned score corrected for the selection with its
        interval, the optimism removed, the size of the best set and, with held-out runs, the honest estimate."""
        return self._table("tuned", "best_set")

    def complete(self) -> pd.DataFrame:
        """The complete algorithm as an agent: one row per configuration (its mean score, ``seed`` naming it), which
        rlstats.bootstrap, percentiles and task_table read like any agent; ``weight`` is its probability."""
        return self._table("complete_runs", "complete")

    def complete_summary(self) -> pd.DataFrame:
        """The complete algorithm's expected score per agent and task, with its interval (``complete_interval=``)."""
        return self._table("complete", "complete")

    def sensitivity(self) -> pd.DataFrame:
        """Per agent: hyperparameter sensitivity, the per-task and cross-task tuned scores (percentile-normalised)
        and the effective hyperparameter dimensionality."""
        return self._table("sensitivity", "sensitivity")

    def dimensions(self) -> pd.DataFrame:
        """Per agent and subset of hyperparameters tuned per task (the others fixed across tasks): its score."""
        return self._table("dimensions", "sensitivity")

    # ---- the result face ---------------------------------------------------------------------------------------
    def _statistic_line(self):
        n = self.n_configs[self.n_configs > 0]
        configs = fmt.integer(n.min()) if n.min() == n.max() else f"{fmt.integer(n.min())} to {fmt.integer(n.max())}"
        return (f"configurations = {configs}, agents = {fmt.integer(len(self.agents))}, "
                f"tasks = {fmt.integer(len(self.tasks))}"
                + ("" if self.n_resamples is None else f", resamples = {fmt.integer(self.n_resamples)}"))

    def _extra_lines(self):
        level = f"{fmt.signif(100 * self.confidence_level)}%"
        lines = [f"unit: {self.unit}"]
        tuned = self.tables.get("tuned")
        if tuned is not None:
            digits = fmt.table_digits(tuned)  # the table's digits, which each number below takes (read once)
            lines += ["", f"best set (best, or tied for best, in >= {fmt.signif(self.threshold)} of resamples) and the "
                      f"tuned score corrected for selection, {level} interval:"]
            for row in tuned.head(SHOWN).itertuples():
                wanting = "seeds" if row.n_runs < 2 else None
                if row.n_configs == 1:  # best and selected by construction, not measured (audit s34 tune34)
                    chosen = (f"the only configuration (best by construction, selected with nothing to select from); "
                              f"tuned score {_level(row.estimate, row.conf_low, row.conf_high, among=digits)} "
                              f"{_interval(row.conf_low, row.conf_high, wanting=wanting, among=digits)}")
                elif np.isnan(row.n_best_set):  # one seed in every configuration (the notes say why)
                    chosen = "best set withheld; tuned score withheld"
                else:  # an empty set: too many configurations alike for one to be best that often (cli24)
                    size = (f"of {int(row.n_best_set)}" if row.n_best_set else
                            f"empty (none best in >= {fmt.signif(self.threshold)} of resamples)")
                    chosen = (f"best set {size}; tuned score "
                              f"{_level(row.estimate, row.conf_low, row.conf_high, among=digits)} "
                              f"{_interval(row.conf_low, row.conf_high, wanting=wanting, among=digits)}")
                chose = "is" if row.n_configs == 1 else f"selected of {fmt.integer(row.n_configs)},"
                own = _level(row.mean_selected, row.estimate, row.conf_low, row.conf_high, among=digits)
                text = (f"  {row.agent} on {row.task}: {self.config_label(row.config)} {chose} {chosen} (its own "
                        f"mean {own})")
                if "heldout_estimate" in tuned.columns:
                    text += _held_out_text(row, digits)
                lines.append(text)
            lines += _more(len(tuned))
        em = self.tables.get("expected_max")
        if em is not None:
            band = fmt.table_digits(em)
            rows = em[(em["sampling"] == "without replacement")]
            aggregate = rows[rows["task"] == plots.MEAN_OVER_TASKS]
            rows = aggregate if len(aggregate) else rows
            lines += ["", f"expected best score after tuning k configurations (without replacement), {level} band:"]
            for (agent, task), curve in list(rows.groupby(["agent", "task"], sort=False))[:SHOWN]:
                picks = curve.iloc[sorted({0, min(4, len(curve) - 1), min(9, len(curve) - 1), len(curve) - 1})]
                where = (f"averaged over {fmt.plural(self._block_word)}" if task == plots.MEAN_OVER_TASKS else
                         f"on {task}")
                lines.append(f"  {agent} {where}: " + ", ".join(
                    f"k={fmt.integer(r.budget)}: {_level(r.estimate, r.conf_low, r.conf_high, digits=4, among=band)} "
                    f"{_interval(r.conf_low, r.conf_high, 3, None, among=band)}"
                    for r in picks.itertuples()))
        complete = self.tables.get("complete")
        if complete is not None:
            how = "two-stage bootstrap" if self.options.get("complete_interval") == "two_stage" else \
                "skew-t on the configurations' means"
            lines += ["", f"complete algorithm (configurations drawn from the sweep), {level} {how}:"]
            # the default interval is withheld for want of configurations, the two-stage one of runs; with enough of
            # them, where what it resamples ties (the notes say so)
            two_stage = self.options.get("complete_interval") == "two_stage"
            # without intervals, the estimates read apart from each other
            shown, digits = complete.head(SHOWN), fmt.table_digits(complete)
            apart = fmt.signif_levels(shown[["estimate"]].to_numpy(dtype=float), among=digits)
            said = [_level(r.estimate, r.conf_low, r.conf_high, among=digits) if np.isfinite(r.conf_low) else text
                    for r, text in zip(shown.itertuples(), apart)]
            lines += [f"  {r.agent} on {r.task}: {text} "
                      f"{_interval(r.conf_low, r.conf_high, wanting=_complete_wanting(r, two_stage), among=digits)} "
                      f"over {fmt.count(r.n_configs, 'configuration')}"
                      for r, text in zip(shown.itertuples(), said)]
            lines += _more(len(complete))
        sens = self.tables.get("sensitivity")
        if sens is not None:
            scale = "as given" if self.options.get("percentiles", ()) is None else "percentile-normalised"
            lines += ["", f"hyperparameter sensitivity ({scale}) and effective dimensionality:"]
            lines += [f"  {r.agent}: sensitivity {fmt.signif(r.sensitivity, 3)} (per-task tuned "
                      f"{fmt.signif(r.per_task_tuned, 3)}, cross-task {fmt.signif(r.cross_task_tuned, 3)}), "
                      f"effective dimension {r.effective_dimension} of {len(self.config_columns)}"
                      for r in sens.itertuples()]
        return lines

    def config_label(self, config: str) -> str:
        """A configuration's label as printed: each floating-point setting at the digits of ``config_digits`` (new-user
        trial s38: "hyperparameter=1.873817422860383e-05, reward_weight=8.282828282828282")."""
        return plots.short_label(str(config), self.config_columns, self.config_digits)

    def _sweep_sizes(self):
        """(agent, task) -> the configurations of its sweep (those with runs)."""
        return {(agent, task): int(self.n_configs[t, a]) for t, task in enumerate(self.tasks)
                for a, agent in enumerate(self.agents) if self.n_configs[t, a] > 0}

    def _summary_keys(self, name=str):
        """Under the best set's table (and ending its LaTeX caption, the columns by their labels, ``name``): the rule
        and the quantity it reads, what a 1 of a sweep of one configuration is, and how many configurations the
        table leaves out and why (audit s34 tune34: a table pasted alone said none of them)."""
        best = self.tables.get("best_set")
        if best is None:
            return {}
        sizes = self._sweep_sizes()
        key = (f"{name('in_best_set')}: best or tied for best in >= {fmt.signif(self.threshold)} of the resamples "
               f"({name('probability_best_or_tied')}); {name('probability_best')} shares ties, so it can be lower")
        single = one_configuration_sweeps(best, sizes)
        if single:
            key += "; " + by_construction_text(single, name)
        text = left_out(best, sizes, self.n_resamples, "the table")[2]
        if text:
            key += "; " + text
        return {"best set": key}

    def _latex_captions(self):
        """The keys as the captions' sentences, the columns named by the LaTeX table's labels."""
        from ...vocabulary import label

        return {table: fmt.sentence_start(key) + "." for table, key in self._summary_keys(label).items()}

    def summary(self) -> Summary:
        """The full tables; in LaTeX each configuration's values at ``config_digits`` (fig37:
        "hyperparameter=0.8121212121212121" made a table 774 pt wide), as the print says them and the best-set plot
        labels its bars. The markdown, HTML and tidy() keep them as the data write them."""
        import functools

        summary = super().summary()
        for name, table in summary.tables.items():
            if "config" not in table.columns or not self.config_columns:
                continue
            settings = plots.short_settings([str(c) for c in table["config"]], self.config_columns,
                                            self.config_digits)
            short = table.assign(config=[", ".join(lines) for lines in settings])
            if short["config"].equals(table["config"].astype(str)):
                continue
            summary.latex[name] = functools.partial(_short_latex, short, summary.digits)
        return summary

    def _summary_tables(self):
        names = {"tuned": "tuned score", "best_set": "best set", "complete": "complete algorithm",
                 "sensitivity": "sensitivity", "expected_max": "expected max"}
        return {label: self.tables[key] for key, label in names.items() if self.tables.get(key) is not None}

    def tidy(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """One row per agent and task and term: ``tuned score`` (corrected for selection) and ``complete``."""
        frames = []
        tuned = self.tables.get("tuned")
        if tuned is not None:
            frames.append(tuned[["agent", "task", "config", "estimate", "conf_low", "conf_high", "n_runs",
                                 "n_configs"]].assign(term="tuned score"))
        complete = self.tables.get("complete")
        if complete is not None:
            frames.append(complete[["agent", "task", "estimate", "conf_low", "conf_high", "n_runs", "n_configs"]]
                          .assign(term="complete algorithm", config=""))
        if not frames:
            return pd.DataFrame(columns=["term", "agent", "task", "config", "estimate", "conf_low", "conf_high",
                                         "conf_level", "n_runs", "n_configs"])
        out = pd.concat(frames, ignore_index=True).assign(conf_level=self.confidence_level)
        return out[["term", "agent", "task", "config", "estimate", "conf_low", "conf_high", "conf_level", "n_runs",
                    "n_configs"]]

    def glance(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        return pd.DataFrame([{"method": self.method, "n_agents": len(self.agents), "n_tasks": len(self.tasks),
                              "n_configs": int(self.n_configs.sum()), "n_obs": self.nobs,
                              "n_resamples": self.n_resamples}])

    def _prose(self):
        level = f"{fmt.signif(100 * self.confidence_level)}%"
        sweeps = int((self.n_configs > 0).sum())  # one per agent and task that has runs
        task, agent = self._block_word, self._arm_word  # the data's columns by their names (audit s33 words33b)
        each = f"one per {agent} and {task}" + ("" if sweeps == self.n_configs.size else " with runs")  # audit s19
        over = (f"a sweep of {fmt.count(int(self.n_configs.sum()), 'configuration')}" if sweeps == 1 else
                f"{fmt.integer(sweeps)} sweeps ({each}) of {fmt.count(int(self.n_configs.sum()), 'configuration')} "
                "in all")
        text = (f"We evaluated {fmt.count(len(self.agents), agent)} on {fmt.count(len(self.tasks), task)} over "
                f"{over}, taking the {self.unit} as the unit"
                + ("." if self.n_resamples is None else
                   f" and resampling seeds only within configurations "
                   f"({fmt.count(self.n_resamples, 'bootstrap resample')})."))
        if "best_set" in self.views:
            text += (f" The best configuration was selected by its mean; each configuration's probability of being "
                     f"best was estimated by bootstrapping the whole selection (configurations tied for best sharing "
                     f"it), configurations best or tied for best in at least {fmt.signif(self.threshold)} of the "
                     f"resamples form the best set (Patterson et al. 2024), and the tuned "
                     f"score is the winner's mean less the bootstrap estimate of the optimism of select-then-report; "
                     f"its {level} interval is " + _tuned_interval_prose(self.options.get("tuned_lower")))
            if self.options.get("holdout") is not None:
                text += (f" The selection used the runs not held out (holdout column '{self.options['holdout']}'); "
                         "the selected configuration's held-out runs give an estimate free of the selection, with a "
                         f"{level} Student-t interval.")
            tuned = self.tables.get("tuned")
            if tuned is not None and tuned["n_best_set"].isna().any():
                text += (" Where a configuration had one seed, the probabilities, the optimism and the tuned score "
                         "were withheld: the bootstrap resamples seeds, so it entered every resample as certain.")
            if tuned is not None and (tuned["n_configs"] == 1).any():
                text += (" A sweep of one configuration selects nothing: its configuration is best by construction "
                         "(probability 1), not by measurement.")
        if "expected_max" in self.views:
            band = ("pointwise bootstrap bands (percentile bands centred at the estimate)"
                    if self.options.get("band") == "percentile" else
                    "pointwise Student-t bands on the estimate's standard error with Welch-Satterthwaite degrees of "
                    "freedom, widened on the side of the scores' skew by an Edgeworth correction (Hall 1992)")
            text += (" Expected best scores after tuning k configurations follow Dodge et al. (2019)'s "
                     f"order-statistic formula, with {band}.")
        if "complete" in self.views:
            how = ("comes from a two-stage bootstrap over configurations, then seeds"
                   if self.options.get("complete_interval") == "two_stage" else
                   "is Student's t on the configurations' mean scores (the sweep's configurations a sample of the "
                   "hyperparameter distribution) with G - 1 degrees of freedom (with weights, the effective number "
                   "of configurations less one), widened on the side of their skew "
                   "by an Edgeworth correction (Hall 1992)")
            complete = self.tables.get("complete")
            given = complete is not None and bool(np.isfinite(complete["conf_low"].to_numpy(dtype=float)).any())
            text += (" The complete algorithm draws its configuration from the sweep (Jordan et al. 2020); its "
                     + (f"{level} interval {how}." if given else
                        f"{level} interval is withheld for every {self._arm_word} and {self._block_word} (the notes "
                        "say why)."))
        if "sensitivity" in self.views and self.tables.get("sensitivity") is not None:
            scale = ("scores on the caller's scale" if self.options.get("percentiles", ()) is None
                     else "percentile-normalised scores")
            text += f" Hyperparameter sensitivity and effective dimensionality follow Adkins et al. (2024) on {scale}."
        return text


def _tuned_interval_prose(lower):
    """How the tuned score's interval is made, under ``tuned_lower=`` (the lower end's spread)."""
    if lower == "winner":
        return ("the winner's Student-t interval with the lower end lowered by the optimism's upper bootstrap "
                "quantile and the upper end taken from the larger of the winner's and the sweep's pooled standard "
                "deviation.")
    return ("the winner's mean plus and minus Student's t times the larger of the winner's and the sweep's pooled "
            "standard deviation on both ends (over the square root of its seeds), the lower end lowered further by "
            "the optimism's upper bootstrap quantile.")


def _interval(low, high, digits=fmt.DIGITS, wanting="seeds", among=None):
    """'[low, high]', or what stands for an interval withheld for want of ``wanting`` (None: for another reason, such
    as runs that do not vary; the notes say why); ``among``: the summary's table it is a row of (or that table's
    :func:`rlstats.format.table_digits`), whose digits it takes where that table widens them (audit s36 digits36)."""
    if np.isnan(low) and np.isnan(high):
        return f"(no interval: too few {wanting})" if wanting else "(no interval: see the notes)"
    # apart at any shift (audit s35 digits35)
    return "[{}, {}]".format(*fmt.signif_levels([low, high], digits, among=among))


def _level(estimate, low, high, *more, digits=fmt.DIGITS, among=None):
    """An estimate printed at the digits of its interval (and of ``more`` levels beside it): never 1e+06 for a score
    shifted by 1e6 (:func:`rlstats.format.signif_levels`, audit s35 digits35); ``among``: as :func:`_interval`'s."""
    return fmt.signif_levels([estimate, low, high, *more], digits, among=among)[0]


def _held_out_text(row, digits):
    """The printed line's held-out estimate with its interval (withheld below 2 runs, or where they tie: the notes
    say so), or that the selected configuration has none; at ``digits``, those of the table it is a row of
    (:func:`rlstats.format.table_digits`)."""
    if row.heldout_runs == 0:
        return "; no held-out run of it (see the notes)"
    interval = _interval(row.heldout_low, row.heldout_high, wanting="runs" if row.heldout_runs < 2 else None,
                         among=digits)
    estimate = _level(row.heldout_estimate, row.heldout_low, row.heldout_high, among=digits)  # 1e+06 (audit s36)
    return f"; held out {estimate} {interval} over {fmt.count(row.heldout_runs, 'run')}"


def _complete_wanting(row, two_stage):
    """What the complete algorithm's interval of ``row`` would want if withheld: runs (two-stage) or configurations
    below the declared fewest; None where it has enough and was withheld for ties."""
    if two_stage:
        return "runs" if row.n_runs < 2 else None
    return "configurations" if row.n_configs < COMPLETE_CONFIGURATIONS else None


def _more(n):
    return [f"  ... {fmt.count(n - SHOWN, 'more row')} in the view's table"] if n > SHOWN else []


def sweep_names(cells, limit=3):
    """'a on t; b on t; c on t; and 2 more sweeps': sweeps apart by semicolons (names hold commas: "hpo=dehb,
    rpo=rs"); the one home of the tuning notes' lists of sweeps (review s34).

    >>> sweep_names(["a on t", "b on t", "c on t", "d on t", "e on t"])
    'a on t; b on t; c on t; and 2 more sweeps'
    """
    cells = list(cells)
    return "; ".join(cells[:limit]) + (f"; and {len(cells) - limit:,} more sweeps" if len(cells) > limit else "")


def one_configuration_sweeps(best, sizes):
    """The sweeps ``agent on task`` of ``best`` (the best-set table) that have one configuration (``sizes``:
    (agent, task) -> configurations), in the table's order: best by construction there."""
    return [f"{a} on {t}" for a, t in dict.fromkeys(zip(best["agent"], best["task"])) if sizes[a, t] == 1]


def by_construction_text(cells, name=str):
    """What a sweep of one configuration's probability 1 is (audit s34 tune34: a bar at 1.0 from one run, beside
    sweeps whose probabilities were withheld for one seed, said nothing of it): the one home of the note's words, the
    columns by ``name`` (a LaTeX caption's labels)."""
    n = len(cells)
    return (f"{sweep_names(cells, 5)} {fmt.verb(n, 'has', 'each have')} one configuration, so "
            f"{'it' if n == 1 else 'each'} is best by construction ({name('probability_best')} 1, {name('in_best_set')} and "
            f"{name('selected')} yes, {name('optimism')} 0): "
            "not a measured probability, since there was nothing to select from; the 2 seeds a configuration needs for the "
            "probabilities to be measured do not apply there")


def left_out(best, sizes, n_resamples, what="best_set()"):
    """``(listed, total, text or None)``: how many configurations ``best`` (the best-set table) lists of the
    ``total`` in its sweeps (``sizes``: (agent, task) -> configurations), and why the others are left out: never best
    or tied for best in any resample (probability 0), or in a sweep whose probabilities are withheld, where only the
    selected one is listed (audit s34 tune34: 5 of 21 left out without a word); ``what`` lists them."""
    listed, total = len(best), int(sum(sizes.values()))
    if listed == total:
        return listed, total, None
    zero, held = {}, {}
    for (agent, task), rows in best.groupby(["agent", "task"], sort=False):
        missing = sizes[agent, task] - len(rows)
        if missing:
            into = held if rows["probability_best"].isna().all() else zero
            into[f"{agent} on {task}"] = missing
    parts = []
    if zero:
        parts.append((sum(zero.values()), f"(in {sweep_names(zero)}) {fmt.verb(sum(zero.values()), 'was')}"
                      f" never best or tied for best in any of the {n_resamples:,} resamples (probability 0)"))
    if held:
        parts.append((sum(held.values()), f"(in {sweep_names(held)}) {fmt.verb(sum(held.values()), 'is')} "
                      "in sweeps whose probabilities are withheld, where only the selected configuration is listed"))
    head = f"{what} lists {listed:,} of the {total:,} configurations: "
    if len(parts) == 1:
        n, why = parts[0]
        return listed, total, head + f"the {'other' if n == 1 else f'{n:,} others'} {why}"
    return listed, total, head + "; ".join(f"{n:,} {why}" for n, why in parts)


def best_set_note(best, sizes, n_resamples, threshold):
    """The note of what :meth:`TuningResult.best_set` lists of the sweeps' configurations (``best``, the best-set table
    of every configuration with a chance and the selected ones; ``sizes``: (agent, task) -> configurations): those in
    the best sets (and the selected one where the probabilities are withheld), what ``runners_up=True`` adds, and
    why the others are in neither (None where it lists them all). New-user trial s38: best_set() returned 3 rows of
    the 40 configurations, 1 in the set, beside "best set of 1" and "best_set() lists 3 of the 40"."""
    marks = best["in_best_set"].astype("boolean")
    members, held = int(marks.fillna(False).sum()), int(marks.isna().sum())
    runners, total = len(best) - members - held, int(sum(sizes.values()))
    if members + held == total:
        return None
    listed = ([f"the {fmt.count(members, 'configuration')} in the best {'set' if len(sizes) == 1 else 'sets'}"]
              if members else []) + (
        [f"the selected one in each of the {fmt.count(held, 'sweep')} whose probabilities are withheld"] if held else [])
    text = (f"best_set() lists {' and '.join(listed)} ({members + held:,} of the {total:,} configurations)" if listed
            else f"best_set() lists no configuration: {'the best set is' if len(sizes) == 1 else 'every best set is'} "
                 f"empty (none best or tied for best in >= {fmt.signif(threshold)} of the resamples)")
    if runners:
        text += (f"; best_set(runners_up=True) adds the {fmt.count(runners, 'other')} best or tied for best in some "
                 f"resample but in fewer than {fmt.signif(threshold)} of them")
    reasons = left_out(best, sizes, n_resamples, "best_set(runners_up=True)")[2]
    if reasons is None:
        return text
    reasons = reasons.partition(": ")[2]  # "the 37 others ...", or "2 (in ...) ...; 12 (in ...) ..." (two reasons)
    return text + "; " + (reasons if reasons.startswith("the ") else f"of the {total - len(best):,} others, {reasons}")


def _short_latex(table, digits, caption, **layout):
    """:meth:`TuningResult.summary`'s LaTeX of a table whose configurations are shortened, its caption saying so."""
    from ...format import table_latex

    caption += (" Configurations' values with the fewest significant digits (3 or more) that keep each "
                "hyperparameter's values apart; tidy() has them in full.")
    return table_latex(table, digits, caption=caption, **layout)

"""The result of power() and sample_size(): fields, tables and prose (reads fields, computes nothing)."""

from __future__ import annotations

import json
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .. import format as fmt
from ..errors import OptionError
from ..methods import DECLARATIONS, load
from ..options import check_confidence_level
from .._typing import ColumnNames
from ..results import Result, resultclass
from ..statistics import wilson_interval
from . import plots


#: level of the Monte Carlo (Wilson) interval around each rejection rate
MC_CONFIDENCE_LEVEL = 0.95


def _rule(method):
    """The method's power rule: its label, the sentence stating it (both declared in its back end's folder)."""
    return DECLARATIONS[method].power


@resultclass
class PowerResult(Result):
    """Result of :func:`power` and :func:`sample_size`.

    Attributes
    ----------
    methods : tuple of str
        The methods simulated, in table order.
    seeds : tuple of int
        Numbers of seeds (runs per agent and task) evaluated, ascending.
    effect : float or tuple
        The shift, in within-cell standard deviations (see :func:`power`).
    alpha : float
        Level of every test (``1 - alpha`` intervals for the bootstrap rule).
    n_sim : int
        Simulated data sets per number of seeds (shared by all methods).
    table : DataFrame
        One row per method and number of seeds: ``method, seeds, power,
        std_error, conf_low, conf_high`` (95% Wilson interval of the
        rejection rate), ``mean_runs`` (runs used per agent and task; the
        number of seeds except for AdaStop) and its standard error
        ``mean_runs_se``, ``level_spent`` (the level a permutation-based
        test can spend: AdaStop's, the exact rank test's largest attainable
        p-value at most alpha on untied data; 0 where it cannot reject, NaN
        for the others), ``n_sim``, ``n_tests``
        (simulations, times tasks for the per-task tests; 0 where every
        method's rule is withheld, which is then not simulated) and
        ``n_rejections``.
    data_source : str
        ``"simulate"`` or ``"pilot"``.
    simulation : dict
        The data-generating settings (agents, tasks, families, shifts; or
        the pilot's runs per cell, resampling and the within-cell SDs).
    method_options : dict
        Per method, the options given to it (before n and K are derived).
    conf_level : float
        Level of the Monte Carlo intervals (0.95).
    target_power : float or None
        :func:`sample_size` only: the power sought.
    sample_size : int or None
        Fewest seeds from which every number of seeds evaluated has
        estimated power reaching the target (None where the most searched
        falls short).
    sample_size_low, sample_size_high : int or None
        The same read from the Monte Carlo intervals: fewest seeds from
        which every number evaluated reaches the target at its interval's
        upper bound, and at its lower bound. The sample size is between
        them, given the simulation error.
    """

    methods: tuple[str, ...]
    seeds: tuple[int, ...]
    effect: float | tuple[float, ...]
    alpha: float
    n_sim: int
    table: pd.DataFrame
    data_source: str
    simulation: dict[str, Any]
    method_options: dict[str, Any]
    conf_level: float = MC_CONFIDENCE_LEVEL
    target_power: float | None = None
    sample_size: int | None = None
    sample_size_low: int | None = None
    sample_size_high: int | None = None

    _plot_kinds: ClassVar[dict] = {"power": plots.plot_power, "runs": plots.plot_runs}

    # ---- combining ------------------------------------------------------------------
    @classmethod
    def combine(cls, *results: PowerResult) -> PowerResult:
        """One result holding the rows of several (e.g. one method each), to tabulate and plot together.

        The results must describe the same data (source, data-generating
        settings, effect and alpha) and a method in several must have the
        same options there; a method may appear in several only for
        different numbers of seeds.

        Examples
        --------
        >>> from rlstats.planning import PowerResult, power
        >>> a = power("skillings_mack", effect=1.0, seeds=[2, 4], tasks=3, n_sim=20, rng=0, progress=False)
        >>> b = power("bootstrap", effect=1.0, seeds=[2, 4], tasks=3, n_sim=20, rng=0, progress=False,
        ...           n_resamples=200)
        >>> PowerResult.combine(a, b).methods
        ('skillings_mack', 'bootstrap')
        """
        if not results or not all(isinstance(r, PowerResult) for r in results):
            raise OptionError("combine() takes PowerResult objects, at least one")
        first = results[0]
        for other in results[1:]:
            for name in ("data_name", "data_source", "alpha"):
                if getattr(other, name) != getattr(first, name):
                    raise OptionError(f"cannot combine results with different {name}: {getattr(first, name)!r} "
                                      f"and {getattr(other, name)!r}")
            if not _same_effect(first.effect, other.effect):
                raise OptionError(f"cannot combine results with different effects: {first.effect!r} and "
                                  f"{other.effect!r}")
            # the name alone does not tell two pilots with the same columns apart (audit s14: an Atari and a
            # HalfCheetah pilot went into one table described by the first's settings)
            differs = _first_difference(first.simulation, other.simulation)
            if differs is not None:
                raise OptionError(f"cannot combine results simulated differently: their {differs} differ "
                                  f"({_setting_text(first.simulation.get(differs))!r} and "
                                  f"{_setting_text(other.simulation.get(differs))!r}); combine studies of the same "
                                  "data-generating settings")
        # one options record per method describes all its rows (audit s14 review: a chi-squared and a default
        # p-value rank test in one table, the report naming the default p-value of both)
        seen: dict[str, dict] = {}
        for other in results:
            for method, asked in other.method_options.items():
                before = seen.setdefault(method, asked)
                differs = _first_difference(before, asked)
                if differs is not None:
                    given = [f"{differs}={o[differs]!r}" if differs in o else f"no {differs}= (its default)"
                             for o in (before, asked)]
                    raise OptionError(f"cannot combine results whose {method}'s options differ: {given[0]} and "
                                      f"{given[1]}; combine studies run with the same options")
        table = pd.concat([r.table for r in results], ignore_index=True)
        if table.duplicated(["method", "seeds"]).any():
            dup = table[table.duplicated(["method", "seeds"])].iloc[0]
            raise OptionError(f"method {dup['method']!r} at {dup['seeds']} seeds appears in several results")
        methods = tuple(dict.fromkeys(m for r in results for m in r.methods))
        order = {m: i for i, m in enumerate(methods)}
        table = table.sort_values(["method", "seeds"], key=lambda s: s.map(order) if s.name == "method" else s,
                                  kind="stable").reset_index(drop=True)
        notes = tuple(dict.fromkeys(n for r in results for n in r.notes))
        options = {k: v for r in results for k, v in r.method_options.items()}
        return cls(method=first.method if len(results) == 1 else "Simulation-based power analysis",
                   formula=first.formula, data_name=first.data_name, nobs=sum(r.nobs for r in results),
                   notes=notes, options={"combined": [r.options for r in results]}, seed=[r.seed for r in results],
                   methods=methods, seeds=tuple(sorted(set(table["seeds"].tolist()))), effect=first.effect,
                   alpha=first.alpha, n_sim=int(table["n_sim"].min()), table=table, data_source=first.data_source,
                   simulation=first.simulation, method_options=options)

    # ---- printing -----------------------------------------------------------------
    def _statistic_line(self):
        what = "type-I error" if self._is_null else "power"
        # a pilot's shift named with its agent and way (audit s35 claims35: "effect = 0.5" raised the worse agent)
        shifted = (self.simulation or {}).get("shifted_agent") if self.data_source != "simulate" else None
        way = (f" ({shifted} {'raised' if float(self.effect) > 0 else 'lowered'}; see the notes)"
               if shifted is not None and np.ndim(self.effect) == 0 and float(self.effect) != 0 else "")
        return (f"{what} by simulation: effect = {_effect_text(self.effect)}{way}, alpha = {self.alpha}, "
                f"{self._simulations} simulated data sets per number of seeds")

    @property
    def _simulations(self):
        """'1,000', or '300 to 1,000' for combined results."""
        low, high = int(self.table["n_sim"].min()), int(self.table["n_sim"].max())
        return fmt.integer(low) if low == high else f"{fmt.integer(low)} to {fmt.integer(high)}"

    @property
    def method_labels(self) -> dict[str, str]:
        """method -> the name figures and prose give it (e.g. 'blocked rank test')."""
        return {method: _rule(method).label for method in self.methods}

    @property
    def effect_text(self) -> str:
        """The effect as printed: '0.5', or '(0, 0.5)' for one shift per agent."""
        return _effect_text(self.effect)

    @property
    def _is_null(self):
        """Nothing differs: simulated agents shifted alike, or a pilot pooled over agents with no shift."""
        return _null_simulation(self.simulation)

    def _extra_lines(self):
        lines = [f"rejection rates with {fmt.signif(100 * self.conf_level)}% Monte Carlo (Wilson) intervals:"]
        shown = self.table[["method", "seeds", "power", "conf_low", "conf_high", "mean_runs"]]
        # fmt.DIGITS, as to_latex() gives them (audit s30 w2fix30: 4 here, 5 there)
        lines += ["  " + line for line in fmt.table_text(shown).splitlines()]
        if self.target_power is not None:
            lines.append(_sample_size_sentence(self))
        return lines

    def _latex_captions(self):
        """The rates' caption ends with sample_size()'s answer, as the print does (audit s15: to_latex() and ``rlstats
        power --target-power --format latex`` gave the tables without it)."""
        return {} if self.target_power is None else {"Rejection rates": _sample_size_sentence(self, paper=True)}

    def _summary_tables(self):
        settings = pd.DataFrame({"setting": list(self.simulation), "value": [_setting_text(v) for v in
                                                                               self.simulation.values()]})
        return {"Rejection rates": self.table, "Data-generating settings": settings}

    # ---- tidy output ------------------------------------------------------------------
    def tidy(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """One row per method and number of seeds: method, seeds, power, std_error, conf_low, conf_high,
        mean_runs, mean_runs_se, level_spent, n_sim, n_tests."""
        return self.table.drop(columns="n_rejections").copy()

    def glance(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        """The study in one row."""
        return pd.DataFrame([{
            "method": ", ".join(self.methods), "effect": _effect_text(self.effect), "alpha": self.alpha,
            "n_sim": self.n_sim, "data_source": self.data_source, "target_power": self.target_power,
            "sample_size": self.sample_size, "sample_size_low": self.sample_size_low,
            "sample_size_high": self.sample_size_high,
        }])

    def confidence_interval(self, confidence_level: float | None = None) -> pd.DataFrame:
        """The tidy table with Wilson intervals of the rejection rates (``conf_low``, ``conf_high``) at another level.

        ``confidence_level=None`` is ``conf_level``, the level of the table's intervals.
        """
        level = self.conf_level if confidence_level is None else check_confidence_level(confidence_level)
        low, high = wilson_interval(self.table["n_rejections"].to_numpy(), self.table["n_tests"].to_numpy(), level)
        out = self.tidy()
        out["conf_low"], out["conf_high"] = low, high
        return out

    def _prose(self):
        """A methods-section paragraph: how the data were simulated, the rules, the rates."""
        if self.data_source == "simulate":
            s = self.simulation
            source = (f"We estimated {'the type-I error' if self._is_null else 'the power'} of each method by "
                      f"simulation: {self._simulations} data sets per number of seeds were drawn with "
                      f"rlstats.datasets.simulate ({len(s['agents'])} agents, {len(s['tasks'])} tasks, score "
                      f"families {', '.join(s['families'])}, task heterogeneity {fmt.signif(s['heterogeneity'])}), "
                      "with the agents' scores shifted by " + ", ".join(
                          f"{fmt.signif(v)} ({a})" for a, v in s["effect"].items()) +
                      " within-cell standard deviations")
        else:
            s = self.simulation
            how = ("each agent's runs drawn with replacement from its own pilot runs" if s["resample"] == "agents"
                   else "every agent's runs drawn with replacement from the task's pooled pilot runs")
            size = _effect_text(self.effect)
            shift = (f", and {s['shifted_agent']} shifted by {size} pooled within-cell {sd_unit(size)} of each task"
                     if self.effect != 0 else ", with no shift added")
            # a pilot pooled over agents with no shift is the null, as the print says (audit s22: "the power")
            source = (f"We estimated {'the type-I error' if self._is_null else 'the power'} of each method by "
                      f"resampling a pilot ({s['pilot']}): "
                      f"{self._simulations} data sets per number of seeds, {how}{shift}")
        text = source + f". Every method analysed the same data sets at alpha = {self.alpha}. "
        text += " ".join(load(_rule(m).sentence)(self) for m in self.methods)
        text += (f" Rates are given with {fmt.signif(100 * self.conf_level)}% Wilson intervals for the Monte Carlo "
                 "error.")
        for method in self.methods:
            rows = self.table[self.table["method"] == method]
            parts = [f"{s} seeds withheld (see the notes)" if np.isnan(p) else
                     f"{s} seeds {fmt.signif(p, 3)} ({fmt.signif(lo, 3)} to {fmt.signif(hi, 3)})"
                     for s, p, lo, hi in zip(rows["seeds"], rows["power"], rows["conf_low"], rows["conf_high"])]
            label = _rule(method).label
            text += f" {label[:1].upper() + label[1:]}: {'; '.join(parts)}."
            if _rule(method).reports_runs:
                text += " Mean runs used per agent: " + ", ".join(
                    f"{fmt.signif(r, 3)} of {s}" for s, r in zip(rows["seeds"], rows["mean_runs"])) + "."
        if self.target_power is not None:  # a paper's words, as the caption's (review s35b)
            text += " " + _sample_size_sentence(self, paper=True)
        return text


def _null_simulation(settings):
    if settings["source"] == "simulate":
        shifts = np.asarray(list(settings["effect"].values()), dtype=float)
        return bool(np.all(shifts == shifts[0]))
    shifts = [value for row in settings["shift"].values() for value in row.values()]
    return settings["resample"] == "pooled" and not any(shifts)


def _first_difference(a, b):
    """The first data-generating setting (a key of ``simulation``) whose values differ, or None; NaN equals NaN."""
    for key in dict.fromkeys([*a, *b]):
        if json.dumps(a.get(key), sort_keys=True, default=str) != json.dumps(b.get(key), sort_keys=True, default=str):
            return key
    return None


def _same_effect(a, b):
    return np.array_equal(np.atleast_1d(np.asarray(a, dtype=float)), np.atleast_1d(np.asarray(b, dtype=float)))


def sd_unit(size: str) -> str:
    """The unit after a shift or gap as printed: "1 within-cell standard deviation", "0.5 ... standard deviations"
    (a printed size, so 0.99999 said "1" is one; audit s38 claims38: "raised by 1 within-cell standard
    deviations")."""
    return "standard deviation" if size in ("1", "-1") else "standard deviations"


def _effect_text(effect):
    if isinstance(effect, (tuple, list, np.ndarray)):
        return "(" + ", ".join(fmt.signif(float(e)) for e in effect) + ")"
    return fmt.signif(float(effect))


def _setting_text(value):
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_setting_text(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(_setting_text(v) for v in value)
    if isinstance(value, float):
        return fmt.signif(value)
    return str(value)


def _sample_size_sentence(result, paper=False):
    """The answer of sample_size() in one sentence, true of the rows evaluated (the fewest seeds from which every
    number evaluated meets the criterion: see sample_size). ``paper``: a caption's words, naming no option (audit
    s35 power35: "pass a smaller min\\_seeds" in a LaTeX caption)."""
    method = _rule(result.methods[0]).label
    target = fmt.signif(result.target_power)
    table = result.table.set_index("seeds")
    reached = [s for s in table.index if table.loc[s, "power"] >= result.target_power]
    if result.sample_size is None:
        most = max(result.seeds)
        if not reached:
            return (f"The {method} did not reach power {target} with up to {most} seeds (sample size not found).")
        return (f"The {method} did not reach power {target} at {most} seeds, the most searched (estimated power "
                f"{fmt.signif(table.loc[most, 'power'], 3)}), though {fmt.join_and(reached)} seeds reached it (sample "
                "size not found: it is the fewest seeds from which every number evaluated reaches the target).")
    row = table.loc[result.sample_size]
    # reached where the search started (min_seeds): fewer seeds were never tried (audit s14: 2 seeds stated where one
    # had power 1), unless none fewer can be (AdaStop's smallest multiple of K or n: audit s14 review)
    seed_unit = _rule(result.methods[0]).seed_unit  # the method's declared multiple of seeds, if any
    unit = 1 if seed_unit is None else load(seed_unit)(result.method_options.get(result.methods[0], {}))[0]
    fewer = " or fewer" if result.sample_size == min(result.seeds) > unit else ""
    # rows below the answer that reached the target too, with a row between them and the answer short of it (audit
    # s15): named, so the sentence agrees with the table
    earlier = [s for s in reached if s < result.sample_size]
    also = ""
    if earlier:
        short = max(s for s in table.index if s < result.sample_size and s not in reached)
        also = (f"; {fmt.join_and(earlier)} seeds reached it too, but {short} did not")
    text = (f"Sample size for power {target}: {result.sample_size} seeds{fewer}, the fewest from which every number "
            f"of seeds evaluated reaches it (estimated power {fmt.signif(row['power'], 3)}, "
            f"{fmt.signif(100 * result.conf_level)}% interval {fmt.signif(row['conf_low'], 3)} to "
            f"{fmt.signif(row['conf_high'], 3)}{also}); ")
    # the range's upper end: none where the most seeds searched have an interval reaching below the target, which
    # n_sim data sets cannot lift above it when even all of them rejecting gives a lower bound under it
    most = max(result.seeds)
    cannot = wilson_interval(np.array([result.n_sim]), np.array([result.n_sim]), result.conf_level)[0][0]
    no_high = (f"the interval at {most} seeds, the most searched, is not entirely above the target" +
               (f" (with {result.n_sim} data sets per number of seeds no interval can be: "
                f"{'more data sets are needed' if paper else 'raise n_sim'})" if cannot < result.target_power else ""))
    if fewer:
        # fewer seeds were not tried, so the range has no lower end: its upper end still bounds the answer (audit s15)
        text += (f"the search started at {result.sample_size} seeds and fewer were not tried" +
                 (": a search starting lower would look below it" if paper else
                  ": pass a smaller min_seeds to search below it"))
        if result.sample_size_high is None:
            return text + "; " + no_high + "."
        if result.sample_size_high > result.sample_size:
            return text + f"; given the Monte Carlo error it is at most {result.sample_size_high} seeds."
        return text + "."
    if result.sample_size_high is None:
        return text + f"given the Monte Carlo error it is at least {result.sample_size_low} seeds, and {no_high}."
    if result.sample_size_low == result.sample_size_high:
        return text + "the Monte Carlo error does not change it."
    return text + (f"given the Monte Carlo error the sample size lies between {result.sample_size_low} and "
                   f"{result.sample_size_high} seeds.")

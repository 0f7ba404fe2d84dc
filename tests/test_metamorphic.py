"""Metamorphic tests: every back end, and the public functions that compute statistics outside compare(), give the
same result (or the exactly transformed one) when the data change in ways that must not matter.

Transformations, each with the same ``rng``:

* ``shuffle``: the rows in another order (a canonical order comes before any random stream);
* ``scale_1e-12`` ... ``scale_1e+12``, and ``scale_1e-150``: the score in other units; p-values, ranks, decisions, df
  are invariant, estimates, intervals and standard deviations scale exactly (relative tolerance ``REL``); scores
  beyond 1e150 are refused with a clear error (their sums of squares overflow);
* ``shift``: the score plus a constant, for the statistics that are shift-equivariant;
* ``prefix``: every agent and task name prefixed, which keeps their sort order;
* ``float32``, ``int``: the score column's dtype, where the values are exact in both;
* ``object``, ``string``: the agent and task columns as object or ``string[pyarrow]`` rather than categorical;
* ``polars``, ``pyarrow``: the frame as a polars DataFrame or a pyarrow Table (the result then states the conversion);
* ``steps_1e-06``, ``steps_1e+06``: the training step in other units, for the cases that read learning curves.

A result is compared whole: ``tidy()``, ``glance()``, ``to_dict()`` (all but the recorded seed and versions), the
warnings, and the printed result, summary, Markdown, LaTeX (where units and names stay: its layout follows the printed
width of numbers and names) and report with their numbers parsed (each to the precision it is printed with).  A number
passes a scaling when it is unchanged or multiplied by the factor (the squared factor for the mixed model's variance
components, the log-factor offset for its REML criterion); the columns a back end must scale (``SCALED``) are asserted
to scale, and p-values, df, ranks and decisions (``INVARIANT``) to stay.  Outputs in the data's row order
(``ROW_ORDER``) follow a shuffle.  Relations a transformation may legitimately break are listed in ``CHANGES`` with the
reason and asserted to change.
"""

from __future__ import annotations

import difflib
import math
import re
import numpy as np
import pandas as pd
import pytest

import rlstats
from conftest import caught, contract_frame, lr_sweep, simulated_curves
from rlstats.methods import DECLARATIONS

#: relative tolerance of an exact relation between full-precision numbers
REL = 1e-9
SCALES = (1e-150, 1e-12, 1e-6, 1e6, 1e12)  # 1e-150: squares of squares of such scores underflow to 0
SHIFT = 1000.0
PREFIX = "zz"  # keeps the sort order of every name; appears nowhere else in any result
CONVERTED = re.compile(r"(Note: |- )?(([Pp]ilot|[Hh]eld-out data): )?[Dd]ata converted from a (polars|pyarrow) \w+ "
                       r"to a pandas DataFrame \(\d+ rows\)\.?")  # also of power()'s pilot, selection's fresh runs


# ------------------------------------------------------------------------------------------------ the cases

def _runs():
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=4, effect=1.0, rng=0)
    df.attrs = {}
    return df


def _irregular_curves():
    # runs logged at their own steps (jittered by up to 20k), so align_steps makes each task's default grid
    df = simulated_curves(tasks=3, steps=7)
    df["step"] = df["step"] + np.random.default_rng(3).integers(0, 20_000, len(df)) * (df["step"] > 0)
    return df


def _sweep():
    return lr_sweep(categorical=True)


def _sweep2():
    # two hyperparameters: each task's best configuration scores 10; tuning lr per task (batch at 64) reaches it,
    # the best single configuration (lr 0.01, batch 64) only 9, half a point short of 0.95 x 10
    rng = np.random.default_rng(1)
    best = {("ant", 0.01, 64): 10.0, ("hopper", 0.1, 64): 10.0, ("hopper", 0.01, 64): 8.0}
    rows = [(a, t, lr, batch, s, best.get((t, lr, batch), 0.0) + 0.01 * rng.normal())
            for a in ("ppo", "sac") for t in ("ant", "hopper") for lr in (0.001, 0.01, 0.1) for batch in (32, 64)
            for s in range(3)]
    return pd.DataFrame(rows, columns=["agent", "task", "lr", "batch", "seed", "score"]).astype(
        {"agent": "category", "task": "category"})


def _backend_call(name):
    formula, options = DECLARATIONS[name].contract

    def call(df, transform):
        given = _renamed(options, transform.names)
        if name in UNIT_OPTIONS:  # an option in the score's units changes with them
            option, value = UNIT_OPTIONS[name]
            given[option] = value * transform.factor + transform.shift
        if name in DIFFERENCE_OPTIONS:  # an option that is a difference of scores scales with them, never shifts
            option, value = DIFFERENCE_OPTIONS[name]
            given[option] = value * abs(transform.factor)
        return rlstats.compare(df, formula, method=name, rng=1, **given)
    return call


def _renamed(options, names):
    """Options that name agents or tasks (of the simulated data: ``agent_1``, ``task_01``), renamed as the data are."""
    def one(value):
        return names(value) if isinstance(value, str) and value.startswith(("agent_", "task_")) else value
    return {key: type(value)(map(one, value)) if isinstance(value, (list, tuple)) else one(value)
            for key, value in options.items()}


def _tuning_views(df, transform):
    return rlstats.tuning(df, "score ~ agent | task/seed", config="lr", n_resamples=100, rng=1)


def _raw_sensitivity(df, transform):
    return rlstats.tuning(df, "score ~ agent | task/seed", config=["lr", "batch"], views=["sensitivity"],
                          percentiles=None, fraction=0.95, rng=1)


def _summaries(how):
    def call(df, transform):
        return rlstats.summarize_runs(df, "score ~ agent | task/seed", step="step", how=how)
    return call


def _aligned(df, transform):
    return rlstats.align_steps(df, "score ~ agent | task/seed", step="step")


def _minmax(df, transform):
    return rlstats.normalize(df, "minmax")


def _option_call(method, formula="score ~ agent | task", **options):
    def call(df, transform):
        return rlstats.compare(df, formula, method=method, rng=1, **options)
    return call


#: case -> (data, call(df, transform) -> Result or DataFrame)
CASES = {name: (simulated_curves if declared.reads_curves else _runs, _backend_call(name))
         for name, declared in DECLARATIONS.items()}
CASES["tuning"] = (lambda: contract_frame("tuning", _runs()), CASES["tuning"][1])  # its config='lr' (new-user s38)
CASES.update({
    # the paths of other options that draw random numbers or judge ties
    "skillings_mack_monte_carlo": (_runs, _option_call("skillings_mack", pvalue="monte_carlo", n_resamples=200)),
    "bootstrap_bca": (_runs, _option_call("bootstrap", interval="bca", metrics=("iqm", "mean", "median"),
                                          n_resamples=200)),
    "bootstrap_minmax": (_runs, _option_call("bootstrap", normalize="minmax", metrics=("iqm", "mean"),
                                             n_resamples=100)),
    "tuning_views": (_sweep, _tuning_views),
    "tuning_sensitivity_raw": (_sweep2, _raw_sensitivity),
    "summarize_runs_final": (simulated_curves, _summaries("final")),
    "summarize_runs_auc": (_irregular_curves, _summaries("auc")),
    "align_steps": (_irregular_curves, _aligned),
    "normalize_minmax": (_runs, _minmax),
})

#: options in the score's units: case -> (option, scaled by c, shifted by d)
UNIT_OPTIONS = {"bootstrap": ("gamma", 1.0)}
#: options that are differences of scores: case -> (option, its value, scaled by |c|) (issue 41 item 2)
DIFFERENCE_OPTIONS = {"equivalence": ("margin", 1.0), "bayes": ("rope", 0.2)}  # bayes: issue 41 item 1

#: tidy columns that must scale with the score (where not zero), per case
SCALED: dict[str, tuple[str, ...]] = {
    "adastop": ("estimate",),
    "permutation": ("estimate",),
    "mixed": ("estimate", "std_error", "conf_low", "conf_high"),
    "performance_profile": ("tau",),
    "bootstrap": ("estimate", "conf_low", "conf_high"),
    "bootstrap_bca": ("estimate", "conf_low", "conf_high"),
    "task_table": ("estimate",),
    "curves": ("estimate", "conf_low", "conf_high"),
    "tuning": ("estimate", "conf_low", "conf_high"),
    "tuning_views": ("estimate", "conf_low", "conf_high"),
    "summarize_runs_final": ("score",),
    "summarize_runs_auc": ("score",),
    "align_steps": ("score",),
    "equivalence": ("estimate", "std_error", "conf_low", "conf_high", "margin"),  # issue 41 item 2
    "bayes": ("pseudo_median", "estimate", "conf_low", "conf_high", "rope"),  # issue 41 item 1, s38 fixc38
}

#: cases whose numbers may also scale by the squared factor (variances)
SQUARED = {"mixed"}

#: cases with a log-likelihood in the score's units: base parts -> k, the criterion moves by k log|c| when the score
#: is multiplied by c (REML: the density of c y is that of y over |c|^(n - p); the criterion is -2 log L)
LOG_LIKELIHOOD = {"mixed": lambda base: 2 * (base["glance"]["n_obs"].iloc[0] - base["glance"]["n_agents"].iloc[0])}

#: fields that report how a computation went rather than a result, which may differ with the data's rounding:
#: case -> (prefixes of the problems' places, why)
INFORMATIONAL = {
    "mixed": (("dict.optimizer_message",), "L-BFGS-B's termination message: its path differs with the data's "
              "rounding; whether it converged, and every estimate, are compared"),
}

#: outputs in the order of the data's rows (as R's fitted() and residuals()), which follow a shuffle: case -> fields
ROW_ORDER = {
    "mixed": ("fitted_values", "residuals", "residual_normal_scores"),
    "normalize_minmax": (),  # the frame itself: the data with the scores normalised
}

#: (case, transformation) -> (why the result may change, the parts that may: prefixes of the problems' places);
#: each is asserted to change, and nothing else may
_KEYED = ("each agent's resamples come from a random stream keyed by its label, each task's below it by the task's "
          "(so that its intervals do not depend on the other agents or tasks, rlstats.bootstrap's rng=; the tasks' "
          "since audit s33 bootstream33): other names draw other resamples, the estimates stay")
_RESAMPLED = ("print", "summary", "report", "markdown", "tidy[conf_low]", "tidy[conf_high]", "dict.intervals",
              "dict.interval_mc_se")
CHANGES = {
    # (the studentized median's standard error is read off its resamples, issue 40)
    ("bootstrap", "prefix"): (_KEYED, _RESAMPLED + ("dict.standard_errors",)),
    # (performance_profile's default Wilson band and probability_of_improvement's default score interval draw
    # nothing: renaming agents changes nothing; issue 40)
    ("bootstrap_bca", "prefix"): (_KEYED, _RESAMPLED + ("dict.bias_correction",)),
    ("bootstrap_minmax", "prefix"): (_KEYED, _RESAMPLED),
    # audit s32 curves32: curves' resamples and relabellings too (keyed by the agents' places before, so that another
    # agent's presence or name moved an agent's bands; the effective df is read off the resamples too); the
    # estimates and differences stay
    ("curves", "prefix"): (_KEYED, ("print", "summary", "report", "markdown", "tidy[conf_low]", "tidy[conf_high]",
                                    "tidy[conf_low_simultaneous]", "tidy[conf_high_simultaneous]", "dict.pointwise",
                                    "dict.simultaneous", "dict.critical_value", "dict.df", "dict.difference_bands",
                                    "dict.difference_pvalues",
                                    # audit s33 curvestream33: each task's draws keyed by its name too, so the note's
                                    # range of effective df (read off the resamples) may move
                                    "dict.notes")),
    # audit s32 stream32: tuning's too, a sweep's resamples keyed by its agent's and task's names (by their places
    # before, so that another agent or task moved a sweep's best set); the tuned score is corrected by its resampled
    # optimism, so it moves with them
    ("tuning_views", "prefix"): ("each sweep's resamples come from a random stream keyed by its agent's and task's "
                                 "names (so that they do not depend on the other agents and tasks): other names draw "
                                 "other resamples; the configurations' means stay",
                                 ("print", "summary", "report", "markdown", "tidy[estimate]", "tidy[conf_low]",
                                  "tidy[conf_high]", "dict.tables.best_set", "dict.tables.tuned", "best_set[",
                                  "tuned[")),
    # audit s33 curvestream33: the signed-rank model's Dirichlet weight of each task is drawn from a stream keyed by
    # the task's label (so that another task's name or presence leaves it): other task names draw other weights;
    # the task-level differences stay
    ("bayes", "prefix"): ("each task's Dirichlet weights come from a random stream keyed by its label (so that they do "
                          "not depend on the other tasks): other names draw other weights",
                          ("print", "summary", "report", "markdown", "tidy[p_better]", "tidy[p_rope]",
                           "tidy[p_worse]", "tidy[pseudo_median]", "tidy[estimate]", "tidy[conf_low]",
                           "tidy[conf_high]", "dict.comparisons", "dict.orderings", "dict.simplex_draws", "dict.posterior_draws")),
    # (the caution that tasks are aggregated on their own scales compares the tasks' ranges since audit s21, which a
    # shift leaves alone: bootstrap, curves, bayes, mixed, equivalence, performance_profile, tuning and selection
    # used to lose it, and its note, under the shift by 1000)
    ("mixed", "shift"): ("the t tests of the intercept and of each agent's marginal mean are tests against 0, which a "
                         "shift moves; the contrasts, variance components and the F test stay (glance, tidy); the "
                         "printed intercept's t, and the marginal means' t and p in summary and markdown",
                         ("print", "summary", "markdown", "dict.coefficients", "dict.emmeans")),
    # issue 41 item 2: the aggregate's interval is read off the bootstrap's resamples (its p-values and decision too,
    # and so the notes that say a verdict is within Monte Carlo error of alpha: audit s33 bootstream33, the tasks'
    # names key their cells' resamples, and the prefixed ones put agent_1 vs agent_3's at p = 0.090 +- 0.020)
    ("equivalence", "prefix"): (_KEYED, ("print", "summary", "report", "markdown", "tidy[conf_low]", "tidy[conf_high]",
                                         "tidy[p_value]", "tidy[p_lower]", "tidy[p_upper]", "tidy[shown]",
                                         "tidy[conclusion]", "tidy[statistic]", "dict.comparisons", "glance[n_shown]",
                                         "dict.notes")),
    ("summarize_runs_auc", "shift"): ("the area under the curve grows by the shift times the step range",
                                      ("frame[score]",)),
    ("tuning_sensitivity_raw", "shift"): ("with percentiles=None the effective dimension asks for a fraction of the "
                                          "per-task tuned score as given, which depends on where the score's 0 is",
                                          ("dict.tables.sensitivity", "sensitivity[effective_dimension]", "print",
                                           "summary", "report")),
}
# the contract case too, since it tunes: two configurations a sweep (each agent one configuration is refused, new-user
# trial s38; before, one a sweep, nothing was resampled that a name could move)
CHANGES[("tuning", "prefix")] = CHANGES[("tuning_views", "prefix")]

# ------------------------------------------------------------------------------------------------ transformations

def _identity(name):
    return name


def _prefixed(name):
    return PREFIX + name


def _shuffle(df):
    return df.sample(frac=1.0, random_state=np.random.RandomState(7)).reset_index(drop=True)


def _with_score(df, values):
    out = df.copy()
    out["score"] = values
    return out


def _relabel(df):
    out = df.copy()
    for column in ("agent", "task"):
        if isinstance(out[column].dtype, pd.CategoricalDtype):
            out[column] = out[column].cat.rename_categories(lambda c: PREFIX + str(c))
        else:
            out[column] = PREFIX + out[column].astype(str)
    return out


def _as(df, dtype):
    out = df.copy()
    for column in ("agent", "task"):
        out[column] = out[column].astype(str).astype(dtype)
    return out


def _polars(df):
    pl = pytest.importorskip("polars")
    return pl.from_pandas(df)


def _pyarrow(df):
    pa = pytest.importorskip("pyarrow")
    return pa.Table.from_pandas(df, preserve_index=False)


class Transform:
    """A change of the data, its expected relation, and the base data it applies to."""

    def __init__(self, name, change, *, factor=1.0, shift=0.0, names=_identity, base=None, column="score"):
        self.name, self.change, self.factor, self.shift, self.names = name, change, factor, shift, names
        self.column = column  # the column the factor or shift applies to
        self.base = base or (lambda df: df)  # the base data the transformed data are compared with
        self.base_kind = name if base else "data"

    @property
    def keeps_layout(self):
        """Whether the LaTeX tables are compared: LaTeX tables are laid out by the printed widths of numbers and
        names (a table or a table* spanning both columns, transposed when narrower), so other units or names may
        lay them out otherwise; of the transformations that keep them, the row order and a frame type (rendering
        LaTeX is the slowest part of a result, and the dtype cases reach the same numbers)."""
        return self.name in ("identity", "shuffle", "pyarrow")

    def __repr__(self):
        return self.name


IDENTITY = Transform("identity", lambda df: df)
TRANSFORMS = [
    Transform("shuffle", _shuffle),
    *[Transform(f"scale_{c:.0e}", lambda df, c=c: _with_score(df, df["score"] * c), factor=c) for c in SCALES],
    Transform("shift", lambda df: _with_score(df, df["score"] + SHIFT), shift=SHIFT),
    Transform("prefix", _relabel, names=_prefixed),
    Transform("float32", lambda df: _with_score(df, df["score"].to_numpy(np.float32)),
              base=lambda df: _with_score(df, df["score"].astype(np.float32).astype(np.float64))),
    Transform("int", lambda df: _with_score(df, df["score"].to_numpy(np.int64)),
              base=lambda df: _with_score(df, np.round(df["score"] * 10))),
    Transform("object", lambda df: _as(df, object)),
    Transform("string", lambda df: _as(df, "string[pyarrow]")),
    Transform("polars", _polars),
    Transform("pyarrow", _pyarrow),
    # the training step in other units, for the cases that read learning curves: steps, grids and areas scale
    *[Transform(f"steps_{c:.0e}", lambda df, c=c: df.assign(step=df["step"] * c), factor=c, column="step")
      for c in (1e-6, 1e6)],
]
#: the cases whose data have a step column
STEP_CASES = {case for case, (data, _) in CASES.items() if data in (simulated_curves, _irregular_curves)}


# ------------------------------------------------------------------------------------------------ comparison

def _run(call, df, transform):
    out, said = caught(lambda: call(df, transform))
    return _parts(out, said, transform.keeps_layout)


def _parts(out, said, latex):
    """A result's parts compared (``latex``: its LaTeX too), and the warnings ``said`` of its call."""
    if isinstance(out, pd.DataFrame):
        return {"frame": out.reset_index(drop=True), "notes": list(out.attrs.get("rlstats_notes", [])),
                "warnings": said}
    parts = {"print": str(out), "summary": str(out.summary()), "report": out.report(format="text"),
             "markdown": out.to_markdown(), "tidy": out.tidy(), "glance": out.glance(), "warnings": said}
    if latex:
        parts["latex"] = out.to_latex()
    data = out.to_dict()
    for key in ("seed", "versions"):  # how the stream was seeded and the package versions: not results
        data.pop(key)
    parts["dict"] = data
    for view in ("expected_max", "best_set", "tuned", "complete", "sensitivity", "dimensions"):
        if getattr(out, "config_columns", ()):  # tuning's views (those computed)
            try:
                # every configuration with a chance (the set alone would change its rows with the resamples that move
                # a member across the threshold: new-user s38)
                parts[view] = getattr(out, view)(**({"runners_up": True} if view == "best_set" else {}))
            except rlstats.OptionError:
                pass
    return parts


# a printed number: not inside a word, a sentence's full stop not part of it; steps as "2M", "517.2k"
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d+|\.\d+|\d+)(?:[eE][-+]?\d+)?([kMG])?(?!\w|\.\d)")
_SUFFIX = {None: 1.0, "k": 1e3, "M": 1e6, "G": 1e9}


def _tokens(text):
    """Words and printed numbers: (word, None) or (None, (value, unit in the last printed place))."""
    out, at = [], 0
    for match in _NUMBER.finditer(text):
        out += [(w, None) for w in text[at:match.start()].split()]
        suffix = match.group(1)
        token = match.group()[:-1] if suffix else match.group()
        mantissa, _, exponent = token.lower().partition("e")
        decimals = len(mantissa.partition(".")[2])
        size = _SUFFIX[suffix]
        out.append((None, (float(token) * size, 10.0 ** (int(exponent or 0) - decimals) * size)))
        at = match.end()
    return out + [(w, None) for w in text[at:].split()]


class Relation:
    """What a number of the base result may become: unchanged, scaled by the factor (its square where variances
    are reported), or moved by the shift (or by the offset of a log-likelihood in the score's units)."""

    def __init__(self, case, transform, scale, offset=0.0):
        c = transform.factor
        self.factors = [1.0] + ([c] if c != 1.0 else []) + ([c * c] if c != 1.0 and case in SQUARED else [])
        self.offsets = [d for d in (transform.shift, offset) if d]
        self.scale = scale  # the base data's largest |score|: the size of absolute rounding noise

    def full(self, a, b):
        """Whether full-precision ``b`` is ``a`` under the relation."""
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if not math.isfinite(a) or not math.isfinite(b):
            return a == b
        for f in self.factors:
            floor = 1e-11 if f == 1.0 else REL * 1e-3 * abs(f) * self.scale
            if abs(b - a * f) <= REL * abs(a * f) + floor:
                return True
        return any(abs(b - (a + d)) <= REL * (abs(a + d) + self.scale) for d in self.offsets)

    def printed(self, a, b):
        """Whether printed ``b`` (value, unit in its last place) is printed ``a`` under the relation, to the printed
        precision; a scaled number must keep its significant digits (a fixed number of decimals does not)."""
        (va, ua), (vb, ub) = a, b
        slack = 1 + 1e-9
        for f in self.factors:
            unit = ua * abs(f)
            if abs(vb - va * f) <= REL * abs(va * f):  # exact, however printed ("1000000" as "1")
                return True
            if abs(vb - va * f) <= 0.5 * (ub + unit) * slack and ub <= 10 * unit * slack:
                return True
        return any(abs(vb - (va + d)) <= 0.5 * (ub + ua) * slack + REL * abs(d) for d in self.offsets)


def _clean(text, transform):
    if transform.name in ("polars", "pyarrow"):  # the conversion note, and the heading of notes it alone needed
        text = re.sub(r"\n*Notes:\s*$", "\n", CONVERTED.sub("", text))
        # in LaTeX: its line under the table, and the notes' paragraph when it was the only note
        text = re.sub(r"\\par\\smallskip\n\{\\raggedright\\footnotesize\n\}\n", "",
                      re.sub(r"^\\par\n", "", text, flags=re.M))
    if transform.names is _prefixed:  # the prefix, also capitalised at the start of a sentence
        text = re.sub(PREFIX.capitalize() + r"(\w)", lambda m: m.group(1).upper(), text.replace(PREFIX, ""))
    return text


#: where format.latex_float sets notes taller than a page in floats after the table (audit s36 paper36): one float's
#: end and the next's start, with the notes under a tabular or alone
_CONTINUED = r"\n\\end\{(table\*?)\}\n\\begin\{\1\}\[\w+\]\n\\centering\n\\addtocounter\{table\}\{-1\}\n" \
             r"\\caption\{\(continued, part \d+ of \d+\)\}\n\{\\raggedright\\footnotesize"


def _floats_joined(text):
    """LaTeX whose notes' continuation floats are set as one float, without the comment line that counts them: the
    conversion note adds a line, which can move a note across the page's split (audit s36)."""
    if not isinstance(text, str):
        return text
    text = re.sub(r"^% rlstats: .*$", "", text, flags=re.M)
    text = re.sub(r"\n\}" + _CONTINUED, "", text)  # notes go on from the float before
    return re.sub(_CONTINUED, lambda _: "\n\\par\\smallskip\n{\\raggedright\\footnotesize", text)  # all after a tall tabular


def _compare_text(a, b, where, relation, transform, problems):
    b = _clean(b, transform)
    if a == b:  # the same text: every word and printed number unchanged, which each relation passes
        return
    ta, tb = _tokens(a), _tokens(b)
    if len(ta) != len(tb):
        words = [[w if w is not None else "#" for w, _ in t] for t in (ta, tb)]
        diff = list(difflib.unified_diff(*words, lineterm="", n=4))[2:40]
        problems.append(f"{where}: {len(ta)} tokens became {len(tb)}: " + " ".join(diff))
        return
    for (wa, na), (wb, nb) in zip(ta, tb):
        if (wa is None) != (wb is None) or (wa is not None and wa != wb):
            problems.append(f"{where}: {wa or na[0]!r} became {wb or nb[0]!r}")
            return
        if na is not None and not relation.printed(na, nb):
            problems.append(f"{where}: printed {na[0]!r} became {nb[0]!r}")
            return


def _compare(a, b, where, relation, transform, problems):
    if isinstance(a, dict):
        # keys that are names (power's per-task tables) compared as renamed
        keys = [_clean(k, transform) if isinstance(k, str) else k for k in b] if isinstance(b, dict) else None
        if keys is None or list(a) != keys:
            problems.append(f"{where}: keys {list(a)} became {list(b) if isinstance(b, dict) else b!r}")
            return
        for key, other in zip(a, b):
            _compare(a[key], b[other], f"{where}.{key}", relation, transform, problems)
    elif isinstance(a, (list, tuple)):
        if transform.name in ("polars", "pyarrow") and isinstance(b, (list, tuple)):
            b = [v for v in b if not (isinstance(v, str) and CONVERTED.fullmatch(v))]  # the conversion note
        if not isinstance(b, (list, tuple)) or len(a) != len(b):
            problems.append(f"{where}: {a!r:.300} became {b!r:.300}")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            _compare(x, y, f"{where}[{i}]", relation, transform, problems)
    elif isinstance(a, pd.DataFrame):
        _compare_frame(a, b, where, relation, transform, problems)
    elif isinstance(a, str):
        if not isinstance(b, str):
            problems.append(f"{where}: {a!r} became {b!r}")
        elif a in ("nan", "inf", "-inf") or b in ("nan", "inf", "-inf"):
            if a != b:
                problems.append(f"{where}: {a!r} became {b!r}")
        else:
            _compare_text(a, b, where, relation, transform, problems)
    elif isinstance(a, (bool, np.bool_)) or a is None or isinstance(b, (bool, np.bool_)) or b is None:
        if a != b:
            problems.append(f"{where}: {a!r} became {b!r}")
    elif isinstance(a, (int, float, np.integer, np.floating)):
        if not isinstance(b, (int, float, np.integer, np.floating)) or not relation.full(float(a), float(b)):
            problems.append(f"{where}: {a!r} became {b!r}")
    elif a != b:
        problems.append(f"{where}: {a!r} became {b!r}")


def _missing(value):
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _compare_frame(a, b, where, relation, transform, problems):
    if not isinstance(b, pd.DataFrame) or list(a.columns) != list(b.columns) or len(a) != len(b):
        problems.append(f"{where}: frame {list(a.columns)} x {len(a)} became "
                        f"{list(b.columns) if isinstance(b, pd.DataFrame) else b!r:.200} x {len(b)}")
        return
    if transform.names is _identity and a.equals(b):  # the same dtypes and values, which each relation passes
        return
    for column in a.columns:
        x, y = a[column], b[column]
        numeric = [pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s) for s in (x, y)]
        if numeric[0] != numeric[1]:
            problems.append(f"{where}[{column}]: dtype {x.dtype} became {y.dtype}")
            continue
        for i, (u, v) in enumerate(zip(x.tolist(), y.tolist())):
            u, v = ("nan" if _missing(u) else u), ("nan" if _missing(v) else v)
            if numeric[0] and not isinstance(u, str) and not isinstance(v, str):
                u, v = float(u), float(v)
            elif isinstance(u, str) or isinstance(v, str):
                u, v = str(u), str(v)
            before = len(problems)
            _compare(u, v, f"{where}[{column}][{i}]", relation, transform, problems)
            if len(problems) > before:
                break


#: tidy and glance columns that never change with the score's units (where a case has them)
INVARIANT = ("p_value", "p_adjusted", "p_exclusion", "df", "den_df", "rank", "rank_best", "rank_worst", "mean_rank",
             "decision", "significant", "n_obs")


def _scaled_columns(case, base, transformed, transform, problems):
    """The columns that must scale do, and those that must not stay (the either-or relation of a single number
    would let either pass)."""
    c = transform.factor
    for part in ("tidy", "glance"):
        for column in INVARIANT:
            if part in base and column in base[part]:
                x, y = base[part][column], transformed[part][column]
                if pd.api.types.is_numeric_dtype(x) and not pd.api.types.is_bool_dtype(x):
                    same = np.allclose(y.to_numpy(float), x.to_numpy(float), rtol=REL, atol=1e-11, equal_nan=True)
                else:
                    same = x.tolist() == y.tolist()
                if not same:
                    problems.append(f"{part}[{column}] changes with the units ({c:g})")
    for part in ("tidy", "frame"):
        for column in SCALED.get(case, ()):
            if part in base and column in base[part]:
                x, y = base[part][column].to_numpy(float), transformed[part][column].to_numpy(float)
                live = np.isfinite(x) & (x != 0)
                if not live.any() or not np.allclose(y[live], c * x[live], rtol=REL, atol=0):
                    problems.append(f"{part}[{column}] does not scale by {c:g}")


_BASES = {}


def _base(case, transform, latex=None):
    """The base data of a case and its result's parts, computed once per case and kind of base data; its LaTeX (the
    slowest part to render) once a transformation that compares it asks (``latex``: whether to, by default
    ``transform.keeps_layout``)."""
    key = (case, transform.base_kind)
    if key not in _BASES:
        data, call = CASES[case]
        df = transform.base(data())
        out, said = caught(lambda: call(df, IDENTITY))
        _BASES[key] = df, out, _parts(out, said, latex=False)
    df, out, parts = _BASES[key]
    if (transform.keeps_layout if latex is None else latex) and "latex" not in parts and "frame" not in parts:
        parts["latex"] = out.to_latex()
    return df, parts


def differences(case, transform):
    """What differs between the case's result on the base data and on the transformed data, beyond the relation."""
    df, base = _base(case, transform)
    transformed = _run(CASES[case][1], transform.change(df), transform)
    offset = 0.0
    if case in LOG_LIKELIHOOD and transform.factor != 1.0:
        offset = LOG_LIKELIHOOD[case](base) * math.log(abs(transform.factor))
    relation = Relation(case, transform, float(np.abs(df["score"]).max()), offset)
    if transform.name == "shuffle":  # outputs in the data's row order follow the rows
        order = _shuffle(df.assign(_row=np.arange(len(df))))["_row"].to_numpy()
        base = _in_row_order(case, base, order)
    problems = []
    if not transform.keeps_layout:
        base = {part: value for part, value in base.items() if part != "latex"}
    for part, value in base.items():
        other = transformed[part]
        if part == "latex" and transform.name in ("polars", "pyarrow"):  # the conversion note may move the split
            value, other = _floats_joined(value), _floats_joined(other)
        _compare(value, other, part, relation, transform, problems)
    if transform.factor != 1.0 and transform.column == "score":
        _scaled_columns(case, base, transformed, transform, problems)
    informational = INFORMATIONAL.get(case, ((),))[0]
    return [p for p in problems if not p.startswith(informational)]


def _in_row_order(case, base, order):
    base = dict(base)
    if "frame" in base and case in ROW_ORDER:
        base["frame"] = base["frame"].iloc[order].reset_index(drop=True)
    if "dict" in base and case in ROW_ORDER:
        base["dict"] = {key: [value[i] for i in order] if key in ROW_ORDER[case] else value
                        for key, value in base["dict"].items()}
    return base


# ------------------------------------------------------------------------------------------------ the tests

#: transformations whose neighbours cover them in the default run (scale_1e-150 and scale_1e+12 the extremes of units,
#: steps_1e-06 those of steps); the full set runs with -m slow
SLOW_TRANSFORMS = {"scale_1e-12", "scale_1e-06", "scale_1e+06", "steps_1e+06"}
#: the default run's share of the others, a rotation (session 39: the product cost 65 s of the default suite's CPU):
#: the cases, in the order of CASES, take the next PER_CASE of ROTATION in turn (case i its (2i)-th and (2i + 1)-th,
#: cyclically), so that each transformation meets five or six cases and each case two of unlike kinds (ROTATION
#: alternates changes of the numbers, of the labels or the frame, and of the score's dtype; float32 and int, each of
#: which needs a base result of its own, never fall to one case together); with every expected change (CHANGES) and
#: the steps' units of each case that reads learning curves. The whole product runs with -m slow. Session 40: two a
#: case, not three (the cases of audits s24, s25 and s33 run through differences() too, under their own rotations).
ROTATION = ("shuffle", "scale_1e-150", "object", "float32", "shift", "polars", "prefix", "scale_1e+12", "int",
            "string", "pyarrow")
PER_CASE = 2


def _in_default_run(case, name):
    if name in SLOW_TRANSFORMS:
        return False
    if (case, name) in CHANGES or name == "steps_1e-06":
        return True
    return (ROTATION.index(name) - PER_CASE * list(CASES).index(case)) % len(ROTATION) < PER_CASE


@pytest.mark.parametrize("case, transform", [
    pytest.param(case, transform, id=f"{case}-{transform.name}",
                 marks=[] if _in_default_run(case, transform.name) else [pytest.mark.slow])
    for case in CASES for transform in TRANSFORMS if transform.column != "step" or case in STEP_CASES])
def test_result_is_unchanged_or_exactly_transformed(case, transform):
    problems = differences(case, transform)
    if (case, transform.name) in CHANGES:
        reason, may_change = CHANGES[case, transform.name]
        assert problems, f"{case} was expected to change under {transform.name}: {reason}"
        assert [p for p in problems if not p.startswith(may_change)] == []
    else:
        assert problems == []


# ------------------------------------------------------------------------------------------------ regressions
# Failures this suite found, each fixed in its back end; checked here against independent values.

@pytest.mark.parametrize("factor", [1e-12, 1.0, 1e12])
def test_percentiles_per_task_ranks_do_not_depend_on_units(factor):
    # Ties were judged within 1e-10 of max(1, |mean|): at 1e-12 every agent's mean tied with every other's.
    df = _runs()
    df["score"] *= factor
    res = rlstats.percentiles(df, "score ~ agent | task", interval="pbp_t", rng=1)
    means = df.groupby(["task", "agent"], observed=True)["score"].mean()
    expected = means.groupby(level="task", observed=True).rank(method="min", ascending=False).astype(int)
    got = res.per_task.set_index(["task", "agent"])["rank"]
    assert got.to_dict() == expected.to_dict()
    assert sorted(set(got)) == [1, 2, 3]  # the simulated agents' means are apart on every task
    at_one = rlstats.percentiles(_runs(), "score ~ agent | task", interval="pbp_t", rng=1).per_task
    assert res.per_task["rank_worst"].tolist() == at_one["rank_worst"].tolist()
    assert res.per_task["rank_best"].tolist() == at_one["rank_best"].tolist()


@pytest.mark.parametrize("factor", [1e-12, 1.0, 1e12])
def test_selection_attainable_pvalue_does_not_depend_on_units(factor):
    # The subsets tying the largest statistic were counted within 1e-9 of max(1, |top|): at 1e-12 all 20 tied, so
    # the result said the inspector could not reject (smallest attainable p-value 1 instead of 1/20).
    df = _runs()
    df["score"] *= factor
    formula, options = DECLARATIONS["selection"].contract
    res = rlstats.selection_check(df, formula, rng=1, **options)
    assert res.pvalue == 5 / 20  # 5 of the C(6, 3) = 20 subsets reach the observed difference (exact)
    assert not any("cannot reject" in note for note in res.notes)


@pytest.mark.parametrize("factor", [1e-12, 1.0, 1e12])
def test_effective_dimension_of_raw_scores_does_not_depend_on_units(factor):
    # With percentiles=None, subsets within 1e-12 (absolute) of the target counted as reaching it: at 1e-12 the
    # cross-task configuration (9 of the per-task 10, short of 0.95 x 10) passed, giving dimension 0 instead of 1.
    df = _sweep2()
    df["score"] *= factor
    res = _raw_sensitivity(df, IDENTITY)
    assert res.sensitivity()["effective_dimension"].tolist() == [1, 1]


def test_blocked_rank_monte_carlo_does_not_depend_on_row_order():
    # The within-block permutations picked positions of the runs in the caller's row order: shuffled rows gave
    # p = 0.01493 instead of 0.0398 with the same rng. The runs of a cell are now in score order first.
    df = _runs()
    results = [rlstats.skillings_mack(frame, "score ~ agent | task", pvalue="monte_carlo", n_resamples=200, rng=1)
               for frame in (df, _shuffle(df), df.iloc[::-1])]
    assert results[0].pvalue == results[1].pvalue == results[2].pvalue
    # against the chi-squared p-value of the same statistic (0.02421), within the Monte Carlo error of 200 draws
    assert abs(results[0].pvalue - 0.02421) < 4 * np.sqrt(0.025 * 0.975 / 200)


def test_bca_bias_correction_ties_replicates_at_rounding_noise():
    # z0 counted a replicate 2e-16 below the estimate as below it: rounding noise, whose sign depends on the score's
    # units, moved BCa's bounds by 1e-3 relative. Here 3 of 5 replicates tie with 1.0, one is below: the share
    # below is (1 + 3 / 2) / 5 = 0.5, so z0 = 0 exactly, at any scale.
    from rlstats.methods.bootstrap import _kernels

    for factor in (1e-12, 1.0, 1e12):
        stats = np.array([[1.0, 1.0 - 1.1e-16, 1.0 - 2.2e-16, 2.0, 0.0]]) * factor
        assert _kernels.bias_correction(stats, np.array([factor])).tolist() == [0.0]
    assert _kernels.bias_correction(np.array([[0.0, 0.5, 2.0, 3.0]]), np.array([1.0])).tolist() == [0.0]


def test_minmax_note_lists_tasks_in_the_results_order():
    # The note listed each task's bounds in the order the tasks first appeared in the rows, so a shuffled frame
    # printed another result; it now follows the task column's order (sorted here, as results list tasks).
    df = pd.DataFrame({"task": ["Pong", "Pong", "Boxing", "Boxing"], "score": [-20.0, 10.0, 2.0, 6.5]})
    for frame in (df, df.iloc[::-1]):
        assert rlstats.normalize(frame, "minmax").attrs["rlstats_notes"][-1].endswith(
            "in the data: Boxing 2 to 6.5, Pong -20 to 10")
    levels = df.astype({"task": pd.CategoricalDtype(["Pong", "Boxing"])})  # a categorical's own order
    assert rlstats.normalize(levels, "minmax").attrs["rlstats_notes"][-1].endswith(
        "in the data: Pong -20 to 10, Boxing 2 to 6.5")


@pytest.mark.parametrize("factor", [1e-150, 1.0, 1e12])
def test_welch_satterthwaite_df_do_not_underflow(factor):
    # df = (a + b)^2 / (a^2 / (n - 1) + b^2 / (m - 1)) squared variances of 1e-300 to 0 (NaN df, then no interval);
    # from the variances' shares it is unit-free. x = (0, 1, 2), y = (0, 2, 4): a = 1/3, b = 4/3, df = 50/17.
    from rlstats.methods.selection import _kernels as selection
    from rlstats.methods.task_table import _kernels as task_table

    x, y = np.array([0.0, 1.0, 2.0]) * factor, np.array([0.0, 2.0, 4.0]) * factor
    assert task_table.welch_t(x, y)[1] == pytest.approx(50 / 17, rel=1e-12)
    assert selection.difference(x, y, "welch").df == pytest.approx(50 / 17, rel=1e-12)


@pytest.mark.parametrize("factor", [1e-150, 1.0, 1e12])
def test_bca_acceleration_does_not_underflow(factor):
    # a = sum u^3 / (6 (sum u^2)^1.5) cubed influences of 1e-150 to 0 (a = 0). Leave-one-out values (0, 1, 3):
    # u = 4/3 - (0, 1, 3), sum u^3 = -60/27, sum u^2 = 42/9.
    from rlstats.methods.bootstrap import _kernels

    expected = (-60 / 27) / (6 * (42 / 9) ** 1.5)
    assert _kernels.acceleration_from_jackknife(np.array([0.0, 1.0, 3.0]) * factor) == pytest.approx(expected,
                                                                                                     rel=1e-12)

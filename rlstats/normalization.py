"""Per-task score normalisation: ``(score - low) / (high - low)``.

The usual case is Atari's human-normalised score, with a random policy's
score as ``low`` and a human player's as ``high`` (the defaults, matching
the columns of ``rlstats.datasets.load("atari100k_reference")``). Named
tables (:data:`TABLE_BOUNDS`) and two rules computed from the data
(:data:`RULES`: ``"minmax"``, ``"dm_control"``) cover other benchmarks.
"""

from __future__ import annotations

import collections
import dataclasses
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .errors import DesignError, OptionError, close_names, index_level_hint, rows_described, shown, warn
from .options import check_bool, keywords_checked
from .format import a_or_an, count, integer, join_and, listed, names_shown, plural, signif, singular, verb
from .interop import frame_library, as_pandas
from .provenance import (NORMALISED, OF_ROWS, PROVENANCE_ATTR, SCALED, SUBSET, Note, add_note, carried, has_note,
                         key_values, provenance_of, scaled_by, set_notes, unscaled, values_record)
from ._typing import Normalizer, Table

if TYPE_CHECKING:
    from .formula import Formula

__all__ = ["normalize"]

#: The low and high columns of each named reference table (any other table or frame: random and human).
TABLE_BOUNDS = {"d4rl_reference": ("random", "expert"), "procgen_easy_reference": ("r_min", "r_max"),
                "procgen_hard_reference": ("r_min", "r_max")}

#: Normalisers computed from the data rather than read from a table: name -> how its bounds are found.
RULES = {
    "minmax": "the smallest and the largest score of each task in the data",
    # Every reward of the Control Suite lies in [0, 1] (dm_control/suite/suite_test.py checks it) and every
    # domain's default episode is 1000 control steps (time limit / control timestep, e.g. walker 25 s / 0.025 s,
    # cartpole 10 s / 0.01 s: all 16 domains of google-deepmind/dm_control@985d094), so returns lie in [0, 1000].
    "dm_control": "0 and 1000 for every task (DeepMind Control Suite: rewards in [0, 1], 1000-step episodes; "
                  "Tassa et al. 2018)",
}


#: What each named normaliser's range is, decided per reference: a hard bound (a score outside it is no score of that
#: benchmark: an error naming the rows) or a convention (a score outside it is possible: a note counts them). The
#: others (Atari's random and human, D4RL's random and expert) are reference points, not a range: scores beyond them
#: (superhuman, better than the expert, worse than random) are expected and meaningful, so nothing is said.
RANGES = {
    # every reward in [0, 1] and 1000 control steps an episode: a return outside [0, 1000] is not a Control Suite
    # return at its default episode length
    "dm_control": "bound",
    # Cobbe et al.'s R_min is not the least possible score (a coinrun agent failing every level scores 0, below its
    # R_min of 5) and R_max is not reached or is passed in some games: constants chosen for the plots, not limits
    "procgen_easy_reference": "convention",
    "procgen_hard_reference": "convention",
}


#: The named references whose scores' units are checked (audit s27 units27: Atari 100k's scores x1000 normalised with
#: its reference gave DER an IQM of 215 times human, silently): the bound on the median over tasks of each task's
#: median normalised score beyond which (either sign) the scores are said to be in other units than the reference's.
#: Every ``*_reference`` dataset of :func:`rlstats.datasets.available` has one (a test keeps it so).
#: ``tests/reference/units_slip_survey.py`` prints the statistics on the published scores the loader offers.
UNITS_RANGE = {
    # the Atari 100k agents (0.1 to 0.34) and Dopamine's (every agent at every iteration: 0.004 to 1.5) stay below 1.5.
    # At 100k steps no published agent's median is near 10 (the best about 1), and x100 of the Atari 100k agents
    # reaches 14 (CURL): 10. On the full benchmark the strongest published agents' median human-normalised scores are
    # about 20 (MuZero's 2041 % in its paper, Agent57's and R2D2's near it), so 10 would tell their users that their scores
    # look 100 times too large: 50 there, above them, which still catches x1000 of every published agent and x100 of
    # any agent whose median is above 0.5 (Dopamine's pooled curves x100: 81); a weak agent's scores x100 are as large
    # as a strong agent's as published, so no bound on this statistic tells those apart
    "atari100k_reference": 10.0, "atari_reference": 50.0,
    # D4RL's expert and Procgen's R_max are near the best scores their benchmarks report: a median task 5 gaps
    # beyond them is taken for scores in other units
    "d4rl_reference": 5.0, "procgen_easy_reference": 5.0, "procgen_hard_reference": 5.0,
}
#: The scores' typical size relative to the reference's (the median over tasks of each task's median ``|score|`` of its
#: scores that are not 0, over the larger magnitude of its two reference scores) below which they look too small: the
#: published agents' are 0.07 (Dopamine's at their first iteration) to 1.4; /1000 gives at most 0.0014
UNITS_TINY = 0.002
#: The span of typical sizes (as for :data:`UNITS_TINY`) of scores in each named reference's units, from which the
#: message reckons the apparent factor: the powers of ten that bring the typical size into it and after which no rule
#: speaks (audit s28: one power, reckoned from a middle 0.3, read x1000 of Dopamine's first iteration as 100). Atari
#: 100k's published agents' are 0.13 to 0.43, Dopamine's 0.07 to 1.45 (tests/reference/units_slip_survey.py); at 100k
#: steps no published median human-normalised score is above 1.3, so 2 bounds it; on the full benchmark the strongest
#: agents' medians are about 20 (see :data:`UNITS_RANGE`): 30. D4RL's expert and Procgen's R_max are near the best
#: scores (2), and an agent at D4RL's random score on hopper is 0.006 of its expert score (0.005).
UNITS_SPAN = {"atari100k_reference": (0.05, 2.0), "atari_reference": (0.05, 30.0), "d4rl_reference": (0.005, 2.0),
              "procgen_easy_reference": (0.05, 2.0), "procgen_hard_reference": (0.05, 2.0)}
#: Fewest tasks on which the units are judged: the statistics are medians over tasks, and on 1-3 tasks one game far
#: from its reference decides them (review27a: Atari 100k's PrivateEye alone, scores near 100 beside a human 69,571,
#: read "100 times too small" for every agent; Dopamine's Atlantis and VideoPinball alone "100 times too large")
UNITS_MIN_TASKS = 5
#: The references whose random scores are read as a floor (audit s28, units28): Atari's, where the published agents
#: were measured (tests/reference/units_slip_subsets.py: Atari 100k's nine agents, Dopamine's six at each of their 199
#: iterations, on all their games and on 5 drawn at random). A task's median below a third of a positive random
#: score: at most 6 of 55 games of any of them (PrivateEye, WizardOfWor, Boxing, TimePilot, VideoPinball...), never
#: more than half of 3 or more such games; scores /10 and /100 of the weaker agents are. A median beyond 3 times a
#: negative random score (Pong, Tennis, Skiing, DoubleDunk, IceHockey, FishingDerby, Pitfall, Surround): at most 1.83
#: times it (Skiing); scores x10 of an agent below random there are. D4RL's and Procgen's have no published runs here
#: to measure such a rule on (and Procgen's R_min is passed below by agents failing every level): not read so.
UNITS_FLOOR = ("atari100k_reference", "atari_reference")
#: The factor of a random score beyond which a task's median is read as out of its units (above)
UNITS_FLOOR_RATIO = 3.0
#: Atari games whose score lies in a range fixed by the game's rules (the ALE's reward is the change of the game's
#: score difference): Pong ends when a player reaches 21 points, Boxing with a knockout at 100 punches landed. A task
#: median outside it is no score of the game: scores x10 of any published agent scoring more than 2.1 points from 0
#: at Pong or 10 at Boxing are outside.
UNITS_GAME_RANGE = {"Pong": 21.0, "Boxing": 100.0}


def _factor_phrase(powers, larger):
    """(how many times too large (``larger``) or too small the scores look, in words, and the fix) for the candidate
    ``powers`` of ten (:func:`_units_slip`); "at least 10 times" when there is none."""
    factors = [integer(10 ** abs(p)) for p in sorted(powers, key=abs)]
    verb = "divide it by" if larger else "multiply it by"
    if not factors:
        return "at least 10 times", f"{verb} the factor it was scaled by"
    if len(factors) == 1:
        return f"about {factors[0]} times", f"{verb} {factors[0]}"
    said = join_and(factors, conjunction="or")
    return f"about {said} times", f"{verb} {said}, the factor it was scaled by"


def _units_found(name, score, tasks, present, scores, sizes, lo, hi, low, high):
    """(larger, smaller): what says that the scores look too large, or too small, for the named reference ``name``
    (sentences, empty when nothing does), from each task's median score (``scores``) and typical size (``sizes``,
    :data:`UNITS_TINY`) of the tasks ``present`` (indices into ``tasks``, ``lo``, ``hi``)."""
    bound = UNITS_RANGE[name]
    random, top = lo[present], hi[present]
    medians = (scores - random) / (top - random)  # each task's median normalised score: the map is increasing
    middle = float(np.median(medians))
    typical = float(np.nanmedian(sizes)) if (~np.isnan(sizes)).any() else np.nan
    n_tasks = count(len(medians), "task")
    names = (lambda mask: join_and(map(repr, sorted((tasks[t] for t in present[mask]), key=str)), 5))  # noqa: E731
    floor = name in UNITS_FLOOR
    larger, smaller = [], []
    if abs(middle) > bound:
        # each side named as it is (a task far below the reference, Pong at -344, is not "above" it)
        sides = [f"{word} {sign}{signif(bound)} on {names(mask)}" for word, sign, mask in
                 (("above", "", medians > bound), ("below", "-", medians < -bound)) if mask.any()]
        larger.append(f"the median over {n_tasks} of each task's median normalised score is {signif(middle, 3)}, "
                      f"{'above' if middle > 0 else 'below'} {'' if middle > 0 else '-'}{signif(bound)} "
                      f"({signif(bound)} times the gap from {low} to {high} {'above' if middle > 0 else 'below'} "
                      f"{low}; {'; '.join(sides)})")
    game = np.array([UNITS_GAME_RANGE.get(tasks[t], np.inf) if floor else np.inf for t in present])
    outside = np.abs(scores) > game
    if outside.any():
        larger.append(join_and([f"the median '{score}' of {tasks[t]!r} is {signif(v, 3)}, outside the game's "
                                f"range [-{signif(g)}, {signif(g)}]" for t, v, g in
                                zip(present[outside], scores[outside], game[outside])], 3))
    beyond = floor & (random < 0) & (scores < UNITS_FLOOR_RATIO * random) & ~outside
    under = floor & (random > 0) & (scores < random / UNITS_FLOOR_RATIO)
    if beyond.any():
        larger.append(f"the median '{score}' of {names(beyond)} is below {signif(UNITS_FLOOR_RATIO)} times "
                      f"{'its' if beyond.sum() == 1 else 'their'} {low} score, which is negative")
    positive = int((floor & (random > 0)).sum())
    if positive >= 3 and under.sum() > positive / 2:
        smaller.append(f"the median '{score}' of {int(under.sum())} of the {positive} tasks whose {low} score is "
                       f"positive lies below a third of it ({names(under)})")
    if typical < UNITS_TINY:
        smaller.append(f"their typical size (the median over {n_tasks} of each task's median |{score}| not 0) is "
                       f"{signif(typical, 2)} times the larger of the task's {low} and {high} scores, below "
                       f"{signif(UNITS_TINY)}, and below it on {names(sizes < UNITS_TINY)}")
    return larger, smaller


def _units_slip(name, score, tasks, position, values, lo, hi, low, high):
    """(warning, note) where the scores normalised with the named reference ``name`` look to be in other units than
    its reference scores (:func:`_units_found`: :data:`UNITS_RANGE`, :data:`UNITS_TINY`, and for Atari's
    :data:`UNITS_FLOOR` and :data:`UNITS_GAME_RANGE`); None otherwise. ``position`` codes each row's task in
    ``tasks``; ``values`` the scores as given (each task's median normalised score is its median score normalised),
    ``lo``/``hi`` each task's reference scores, named ``low`` and ``high``.
    The statistics are medians over tasks of medians over their rows, so that a few far superhuman games or runs do
    not decide them; they read the finite scores only.

    The apparent factor: the powers of ten that, taken out of the scores, leave nothing said and bring their typical
    size into :data:`UNITS_SPAN` (medians and sizes scale with the scores, so each power is judged exactly)."""
    if not isinstance(name, str) or name not in UNITS_RANGE:
        return None
    finite = np.isfinite(values)
    if not finite.any():
        return None
    from .statistics import medians_by

    task, given = position[finite], values[finite]
    present = np.unique(task)
    if present.size < UNITS_MIN_TASKS:
        return None
    scores = medians_by(given, task, len(tasks))[present]
    nonzero = given != 0  # a 0 is 0 in any units: a task of zeros only has no size (nan)
    sizes = (medians_by(np.abs(given[nonzero]), task[nonzero], len(tasks))[present]
             / np.maximum(np.abs(lo), np.abs(hi))[present])
    larger, smaller = _units_found(name, score, tasks, present, scores, sizes, lo, hi, low, high)
    if larger:
        found, way, genuinely = larger, "too large", "this far from the reference scores"
    elif smaller:
        found, way, genuinely = smaller, "too small", "this small (e.g. every agent at a score near 0)"
    else:
        return None
    typical = np.nanmedian(sizes) if (~np.isnan(sizes)).any() else np.nan
    span_low, span_high = UNITS_SPAN[name]
    powers = [p for p in (range(1, 7) if larger else range(-1, -7, -1))
              if span_low <= typical / 10.0 ** p <= span_high  # NaN (no size): none
              and _units_found(name, score, tasks, present, scores / 10.0 ** p, sizes / 10.0 ** p, lo, hi, low,
                               high) == ([], [])]
    factor, fix = _factor_phrase(powers, bool(larger))
    way_on = (f"check the units of '{score}' ({fix} if it was scaled, or normalise with a reference in its units), or "
              f"pass normalize={{'reference': {name!r}, 'check_units': False}} (rlstats.normalize: check_units=False) "
              f"if the scores are genuinely {genuinely}")
    said = [f"'{score}' {verb} {factor} {way} for {name}'s {low} and {high} scores{when}: {'; '.join(found)}; "
            f"{way_on}" for verb, when in (("looks", ""), ("looked", " when it was normalised"))]  # warning, note
    return said[0], said[1]


def _rows_phrase(df, mask, by, score, agent=None):
    """'index label 7 (agent 'ppo', task 'Pong', score inf), ... and 2 more': the caller's index labels of ``mask``'s
    rows (the command line words them as the file's data rows, cli._shared.rows_in_file)."""
    fields = [(word, df[column]) for word, column in (("agent", agent), (by, by), (score, score))
              if column is not None and (word != "agent" or column in df.columns)]
    return rows_described(df.index, np.flatnonzero(mask), fields)


def _check_range(rule_or_name, df, values, lo, hi, by, score, agent, kept=None):
    """Scores a rule cannot normalise (an error naming the rows), or outside a convention's range (a sentence for
    the note; '' when none). ``kept``: the rows min-max reads (None: all)."""
    finite = np.isfinite(values)
    if rule_or_name == "minmax":
        infinite = np.isinf(values) & (True if kept is None else kept)  # NaN is a missing score: stays missing
        if infinite.any():
            found = (f"min-max normalisation needs finite scores, but {count(infinite.sum(), 'row')} "
                     f"{verb(infinite.sum(), 'holds')} an infinite "
                     f"'{score}': {_rows_phrase(df, infinite, by, score, agent)}; the task's range would be infinite "
                     "and every other score of the task would become 0 or NaN. Fix or drop those rows")
            raise DesignError(found + f" (e.g. df[np.isfinite(df['{score}'])]), or normalise with a reference table of "
                                      "known bounds",
                              command_line=found + " in the file, or normalise with a reference table of known bounds")
        return ""
    kind = RANGES.get(rule_or_name)
    if kind is None:
        return ""
    with np.errstate(invalid="ignore"):
        outside = ~np.isnan(values) & (~finite | (values < lo) | (values > hi))
    if not outside.any():
        return ""
    rows = _rows_phrase(df, outside, by, score, agent)
    if kind == "bound":
        raise DesignError(
            f"the DeepMind Control Suite's returns lie in [0, 1000] by construction (rewards in [0, 1], 1000-step "
            f"episodes), but {count(outside.sum(), 'row')} of '{score}' {verb(outside.sum(), 'lies')} outside it: "
            f"{rows}; these are not Control "
            "Suite returns at the default episode length (another time limit, summed or shaped rewards?): check "
            "them, or normalise with a reference frame that states their range")
    lie = verb(outside.sum(), "lies")
    return (f"; {count(outside.sum(), 'score')} {lie} outside the table's [low, high] range of their task "
            f"(first: {rows}), which is a convention rather than a bound, so they are kept (normalised below 0 or "
            "above 1)")


def _show(values, limit=10):
    """Comma-separated ``repr`` of the first ``limit`` values, with a count of the rest."""
    return listed(map(repr, values), limit)


def _reference_frame(reference, option="normalize"):
    """The reference as a DataFrame: given (a polars or pyarrow one converted, as every table argument is), or
    loaded by dataset name (``option``: the argument that named it)."""
    if frame_library(reference) is not None:
        try:
            return as_pandas(reference)
        except DesignError as exc:  # a LazyFrame (its message says data=), or no table: the refusal below
            if type(reference).__name__ == "LazyFrame":
                raise OptionError(f"{option}=: {str(exc).replace('data is', 'the reference is', 1)}") from None
    if isinstance(reference, pd.DataFrame):
        return reference
    if isinstance(reference, str) and reference in RULES:
        return reference  # bounds from the data: made by _rule_frame once the data are known
    if isinstance(reference, str):
        from . import datasets

        references = [name for name in datasets.available()["name"] if name.endswith("_reference")]
        if reference not in references:
            # datasets.load's own refusal names its name= option, which the caller never wrote
            from .errors import did_you_mean

            said = (f"{option}={reference!r} is neither a dataset of reference scores "
                    f"({listed(map(repr, references), 8)}) nor a rule ({', '.join(map(repr, RULES))})"
                    f"{did_you_mean(reference, [*references, *RULES])}: give one of those, or ")
            raise OptionError(said + "a DataFrame with a task column and low/high columns",
                              command_line=said + "a CSV, TSV or Parquet file of each task's reference scores "
                              "(columns task, random and human; e.g. normalize=reference.csv)")
        return datasets.load(reference)
    raise OptionError(
        "reference must be a DataFrame with a task column and low/high columns, a dataset "
        f"name such as 'atari100k_reference', or one of the rules {', '.join(map(repr, RULES))}; "
        f"got {type(reference).__name__}"
    )


def _check_units_applies(check_units, reference, option):
    """An OptionError where ``check_units=False`` is given with a reference whose scores are not checked (a frame, a
    file or a rule): it would be silently ignored (audit s28). The check is calibrated on each named table's own
    reference points (:data:`UNITS_RANGE`): a frame's two columns may be any two scores (random and human, the least
    and the largest possible, 0 and a target), so no range of normalised scores is known to be out of its units."""
    if check_units is not False or (isinstance(reference, str) and reference in UNITS_RANGE):
        return
    what = (f"the rule {reference!r}" if isinstance(reference, str) and reference in RULES else
            f"the reference file {reference!r}" if isinstance(reference, str) else "a reference frame")
    raise OptionError(f"{option} turns off the units check, which reads only the named reference tables "
                      f"({join_and(map(repr, sorted(UNITS_RANGE)))}, calibrated on their own reference scores); "
                      f"{what} has none (its bounds may be any two scores, so no range of normalised scores is known "
                      f"to be in other units), so there is nothing to turn off: leave it out")


def _default_bounds(name, low, high):
    """``low``/``high`` as given, or the named table's own columns (random and human for any other)."""
    default = TABLE_BOUNDS.get(name, ("random", "human"))
    return default[0] if low is None else low, default[1] if high is None else high


def _rule_frame(rule, df, by, score, low, high, kept=None):
    """The reference a rule makes from the data: one row per task with columns ``by``, 'min' and 'max'; min-max reads
    the rows ``kept`` only (None: all), those a back end analyses (audit s22: not a row dropped for a missing agent)."""
    if low is not None or high is not None:
        raise OptionError(f"low= and high= name columns of a reference table; the rule {rule!r} has none "
                          f"(its bounds: {RULES[rule]})")
    keys = df[by].astype(object)
    tasks = _canonical_tasks(df[by], keys)  # the note lists them in this order, whatever the order of the rows
    if rule == "dm_control":
        return pd.DataFrame({by: tasks, "min": 0.0, "max": 1000.0})
    values = pd.Series(df[score].to_numpy(dtype=float, na_value=np.nan), index=df.index)
    if kept is not None:
        values = values.where(kept)  # a row left out is read as a missing score: it sets no bound
    grouped = values.groupby(keys.to_numpy(), sort=False)
    table = pd.DataFrame({by: tasks, "min": grouped.min().reindex(tasks).to_numpy(),
                          "max": grouped.max().reindex(tasks).to_numpy()})
    flat = [t for t, a, b in zip(tasks, table["min"], table["max"]) if not b > a]
    if flat:
        one = len(flat) == 1
        found = (f"min-max normalisation needs two different scores in every task; {plural('task', len(flat))} "
                 f"{_show(flat)} {verb(len(flat), 'has')} one value only (or none that is not missing), so "
                 f"{'its range is' if one else 'their ranges are'} zero")
        if len(flat) == len(tasks):  # nothing left to drop: every run of every task ties
            raise DesignError(found + "; every task's scores tie, so min-max has nothing to scale: check the score "
                              "column, or normalise with a reference table of each task's bounds")
        found += (f"; a task whose runs all tie tells no agents apart: drop {'it' if one else 'them'} from the data")
        example = f" (e.g. df[~df[{by!r}].isin({list(flat)!r})])" if len(flat) <= 5 else ""
        raise DesignError(found + example + ", or normalise with a reference table of each task's bounds",
                          command_line=found + f" (or leave {'it' if one else 'them'} out with subset=), or normalise "
                          "with a reference file of each task's bounds")
    return table


def _canonical_tasks(column, keys):
    """The tasks of ``column`` in the order results list them: a categorical's levels (those present), else sorted."""
    present = [*dict.fromkeys(keys)]
    if isinstance(column.dtype, pd.CategoricalDtype):
        return [t for t in column.cat.categories if t in set(present)]
    try:
        return sorted(present)
    except TypeError:  # names of mixed types: sorted as text
        return sorted(present, key=str)


def _bounds_phrase(table, by, limit=10):
    """'Pong -20.7 to 14.6, Boxing 0.1 to 12.1, ...' (5 significant digits, the first ``limit`` tasks)."""
    parts = [f"{t} {signif(a, 5)} to {signif(b, 5)}" for t, a, b in zip(table[by], table["min"], table["max"])]
    return listed(parts, limit)


def _require_columns(frame, columns, what, hint=""):
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        indexed = [c for c in missing if c in frame.index.names]  # a table keyed by task: pd.read_csv(index_col=0)
        if indexed:
            table = what.removeprefix("the ")
            hint = "; " + index_level_hint(indexed[0], table, "df" if table == "data" else table) + hint
        raise DesignError(
            f"{what} has no {plural('column', len(missing))} {_show(missing)}; its columns are "
            f"{_show(frame.columns)}{hint}"
        )
    repeated = [c for c in dict.fromkeys(columns) if (frame.columns == c).sum() > 1]
    if repeated:
        raise DesignError(f"{what} has {(frame.columns == repeated[0]).sum()} columns named {repeated[0]!r}; "
                          "give columns unique names")


def _check_names(low, high, by, score):
    for option, value in (("low", low), ("high", high), ("by", by), ("score", score)):
        if not isinstance(value, str) and not (value is None and option in ("low", "high")):
            raise OptionError(f"{option} must be a column name (a string), got {shown(value)}")
    if low == high and low is not None:
        raise OptionError(f"low and high name the same column {low!r}; give two columns")


def _folded(name, level):
    """A task name without case (level 1: also without punctuation; level 2: also without an 'ALE/' or 'procgen-'
    prefix and a 'NoFrameskip' or 'Deterministic' and '-v4' suffix): to find the reference's spelling of a task
    logged otherwise, e.g. under its environment id. The loosest level is tried last, so that 'hopper_medium_v2'
    finds 'hopper-medium-v2' and not every version."""
    text = str(name).lower()
    if level == 2:
        text = re.sub(r"^(ale/|(procgen:)?procgen-)", "", text)  # Gymnasium's ALE ids, Procgen's gym ids
        text = re.sub(r"(noframeskip|deterministic)?([-_]v\d+)?$", "", text)
    return re.sub(r"[^a-z0-9]", "", text) if level else text


def _version(name):
    """An id's trailing version ('hopper-medium-v2' -> '2'), None without one."""
    found = re.search(r"[-_]v(\d+)$", str(name).lower())
    return found and found.group(1)


def _spelling_hint(absent, names, by, tasks):
    """(the tasks spoken of, advice) for tasks of the data that the reference spells otherwise
    (same name but for case, else but for an environment id's prefix, suffix and punctuation). Only said, never
    applied: a guessed rename would change the data without the caller's word. Never offered: a name of another
    version (D4RL's versions are different datasets: maze2d-umaze-v0 is not maze2d-umaze-v1), nor one that is
    already a task of the data (``tasks``) or the one name found for two of them: the rename would pool two
    tasks' runs as one (audit s16 review b)."""
    spellings = {level: {} for level in (0, 1, 2)}  # folded name -> the reference's names, built once
    for level, table in spellings.items():
        for name in names:
            table.setdefault(_folded(name, level), []).append(name)
    in_data = set(tasks)

    def offered(task, level):
        version = _version(task)
        return [name for name in spellings[level].get(_folded(task, level), []) if name not in in_data
                and (version is None or _version(name) in (None, version))]

    found, ambiguous = {}, {}
    for task in absent:
        matches = next((m for m in (offered(task, level) for level in (0, 1, 2)) if m), [])
        if len(matches) == 1:
            found[task] = matches[0]
        elif matches:
            ambiguous[task] = matches
    targets = collections.Counter(found.values())
    found = {task: name for task, name in found.items() if targets[name] == 1}
    parts, in_file = [], []  # the advice in Python, and on the command line (an action on the file)
    if found:
        pairs = listed([f"{t!r} -> {n!r}" for t, n in found.items()], 5)
        mapping = ", ".join(f"{t!r}: {n!r}" for t, n in list(found.items())[:3])
        more = ", ..." if len(found) > 3 else ""
        one = len(found) == 1
        which = "it" if len(absent) == 1 else ("all of them" if len(found) == len(absent) else f"{len(found)} of them")
        said = (f"the reference spells {which} otherwise ({pairs}): rename {'it' if one else 'them'} to the "
                f"reference's {'name' if one else 'names'}")
        parts.append(f"{said}, e.g. df[{by!r}] = df[{by!r}].astype(object).replace("
                     f"{{{mapping}{more}}})")  # astype(object): a categorical column refuses new values
        in_file.append(f"{said} in the file's column {by!r}")
    for task, matches in list(ambiguous.items())[:3]:
        quoted = [repr(m) for m in matches]
        parts.append(f"{task!r} could be {', '.join(quoted[:-1])} or {quoted[-1]}: rename it to the one meant")
        in_file.append(parts[-1])
    return {**found, **ambiguous}, "; ".join(parts), "; ".join(in_file)


def _bounds(ref, tasks, by, low, high):
    """(low, high) float arrays for ``tasks``, checked for gaps, NaN and empty ranges."""
    keys = ref[by].astype(object)
    dupes = keys[keys.duplicated() & keys.isin(tasks)].unique()
    if len(dupes):
        raise DesignError(f"the reference lists task {_show(dupes)} more than once in {by!r}")
    absent = [t for t in tasks if t not in set(keys)]
    if absent:
        spelled, advice, in_file = _spelling_hint(absent, keys.unique(), by, tasks)
        unmatched = [t for t in absent if t not in spelled]  # neither a spelling nor a choice of spellings found
        if unmatched:
            rest = (f"{'; for the rest, ' if spelled else ''}add their {low!r} and {high!r} scores to the "
                    "reference or drop them from the data")
            advice, in_file = advice + rest, in_file + rest
        found = (f"{count(len(absent), 'task')} of the data {verb(len(absent), 'is')} missing from the reference's "
                 f"{by!r} "
                 f"column: {_show(absent)} (it has {_show(keys.unique(), 5)}); ")
        raise DesignError(found + advice, command_line=found + in_file)
    table = ref.assign(**{by: keys}).set_index(by).loc[tasks, [low, high]]
    for column in (low, high):  # as the data's score column: text ('0') or True/False is no score (audit s22)
        kind = pd.api.types.infer_dtype(table[column], skipna=True)
        if kind not in ("integer", "floating", "mixed-integer-float", "decimal", "empty"):
            values = table[column].tolist()
            odd = [(t, v) for t, v in zip(table.index, values)
                   if not isinstance(v, (int, float, np.number)) or isinstance(v, (bool, np.bool_))]
            # those that are no number even read as one first (a file's 'ten' among its '10's)
            worst = [(t, v) for t, v in odd if isinstance(v, str) and np.isnan(pd.to_numeric(v, errors="coerce"))]
            odd = [f"task {t!r}: {v!r}" for t, v in (worst or odd)]
            found = (f"the reference's {column!r} column must hold numbers, but it holds {kind} values "
                     f"({listed(odd, 3)})")
            raise DesignError(f"{found}; give each task's score as a number (text such as '0' converts with "
                              f"pd.to_numeric(reference[{column!r}]))",
                              command_line=f"{found}; write each task's score as a number in the file")
    try:
        lo = table[low].to_numpy(dtype=float)
        hi = table[high].to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise DesignError(
            f"the reference's {low!r} and {high!r} columns must hold numbers"
        ) from None
    nan = [t for t, a, b in zip(tasks, lo, hi) if np.isnan(a) or np.isnan(b)]
    if nan:
        raise DesignError(
            f"the reference has a missing (NaN) {low!r} or {high!r} score for task {_show(nan)}"
        )
    infinite = [t for t, a, b in zip(tasks, lo, hi) if np.isinf(a) or np.isinf(b)]
    if infinite:  # (score - low) / inf is 0 for every score: the task would vanish from the comparison
        raise DesignError(
            f"the reference has an infinite {low!r} or {high!r} score for task {_show(infinite)}; normalising "
            "by it would make every score of the task 0 (or NaN): give finite bounds"
        )
    empty = [t for t, a, b in zip(tasks, lo, hi) if not b > a]
    if empty:
        found = (f"the reference's range is zero or negative ({high!r} <= {low!r}) for task "
                 f"{_show(empty)}; normalising would divide by zero or flip the scale")
        if (hi < lo).all():  # every task's: a score where lower is better (a cost, a regret), audit s22
            swap = (f"; if lower scores are better here (every task's {high!r} below its {low!r}), swap the bounds: "
                    f"low={high!r}, high={low!r}, so that {high!r} maps to 0 and lower stays better")
            raise DesignError(found + swap + " (through normalize=, a dict: {'reference': table, "
                              f"'low': {high!r}, 'high': {low!r}}})",
                              command_line=found + swap + f" (-o \"normalize={{'reference': 'FILE', 'low': {high!r}, "
                              f"'high': {low!r}}}\")")
        raise DesignError(found)
    return lo, hi


@keywords_checked  # a keyword it does not take: an OptionError naming it, not Python's TypeError
def normalize(df: Table, reference: Table | str, *, low: str | None = None, high: str | None = None, by: str = "task",
              score: str = "score", check_units: bool = True) -> pd.DataFrame:
    """Normalise scores per task: ``(score - low) / (high - low)``.

    Parameters
    ----------
    df : pandas.DataFrame (or a polars DataFrame or pyarrow Table)
        Long data with a task column (``by``) and a score column (``score``).
    reference : pandas.DataFrame (or a polars DataFrame or pyarrow Table) or str
        One row per task with the task column ``by`` and the columns ``low``
        and ``high``; or the name of a table that has them (read with
        :func:`rlstats.datasets.load`, which lists them with their sources in
        :func:`rlstats.datasets.available`); or a rule computed from the data.
        The named normalisers, their sources and known conflicting copies:

        - ``"atari_reference"`` (57 games) and ``"atari100k_reference"`` (26):
          random and human scores, as tabulated by DQN Zoo and rliable; Mnih
          et al. (2015) print other human scores (Pong 9.3, Breakout 31.8 against
          14.6 and 30.5 here): use one table throughout a study.
        - ``"d4rl_reference"``: D4RL's ``ref_min_score`` (random) and
          ``ref_max_score`` (expert) per dataset and version (``task`` is e.g.
          ``"hopper-medium-v2"``), typed from ``d4rl/infos.py`` of the D4RL
          release (Farama-Foundation/D4RL@89141a6). Conflicting copies circulate:
          hopper random -19.5 (release: -20.272305), walker2d random -0.48
          (release: 1.629008), halfcheetah random -278.6 (release: -280.178953).
        - ``"dm_control"``: 0 and 1000 for every task, the DeepMind Control
          Suite's range (rewards in [0, 1], 1000-step episodes; Tassa et al. 2018),
          so the score is divided by 1000. The range is a bound by construction:
          a score outside [0, 1000] is an error naming its rows.
        - ``"minmax"``: the smallest and the largest score of each task in
          ``df`` itself (all agents and runs); the note states the bounds used.
          Through a back end's ``normalize=``: of the rows it analyses (those
          ``subset=`` kept, less those dropped for a missing agent or run), and
          for learning curves over every step logged; the note says which.
          Such scores change when an agent is added: prefer a published table.
          An infinite score is an error naming its row (it would make the range
          infinite and every other score of its task 0); a missing one stays missing.

        - ``"procgen_easy_reference"`` and ``"procgen_hard_reference"``: Procgen's
          R_min and R_max per game (``task`` is the ``env_name``, e.g.
          ``"coinrun"``) for each distribution mode, from Cobbe et al. (2020)'s
          table of normalisation constants. Copies that mix the modes (an easy
          table with the hard jumper and leaper) or use (0, R_max) circulate.
          These constants are a convention, not bounds (a coinrun agent failing
          every level scores 0, below its R_min of 5): scores outside them are
          kept and the note counts them.

        Atari's and D4RL's tables hold reference points (a random policy, a human
        or an expert), not a range: scores beyond them are expected and nothing is
        said about them.
    low, high : str, optional
        Reference columns mapped to 0 and 1. By default a named table's own
        (``"d4rl_reference"``: random and expert; Procgen's: r_min and r_max), else ``"random"`` and
        ``"human"``, the human-normalised score. Rules take neither.
    by : str
        Name of the task column, in both ``df`` and ``reference``.
    score : str
        Name of the score column of ``df``.
    check_units : bool
        With a named reference table (``"atari100k_reference"``, ``"atari_reference"``, ``"d4rl_reference"``,
        Procgen's), whether to say (a warning, and a note that results print) when the scores look to be in other
        units than the table's: the median over tasks of each task's median normalised score beyond
        :data:`UNITS_RANGE` (10 for Atari 100k, 50 for the full Atari benchmark, whose strongest published
        agents' medians are about 20, 5 for D4RL and Procgen; either sign), or the scores' typical size below
        :data:`UNITS_TINY` (0.002) times the reference scores'. With Atari's two tables also (audit s28): a task's
        median outside the game's range (:data:`UNITS_GAME_RANGE`: Pong's [-21, 21], Boxing's [-100, 100]), below
        3 times a negative random score, or, on more than half of 3 or more tasks with a positive random score,
        below a third of it (:data:`UNITS_FLOOR`). The warning names the tasks and the apparent factor: the one to
        three powers of ten that, taken out of the scores, leave nothing said and bring their typical size into
        the table's :data:`UNITS_SPAN` (an estimate: an agent far from the published ones may have been scaled by
        another). Units are judged on :data:`UNITS_MIN_TASKS` (5) tasks or more: on fewer, one game far from its
        reference (Atari 100k's PrivateEye, scores near 100 beside a human 69,571) would decide it. The published
        Atari 100k agents and the Dopamine agents at every iteration are never said, over all their games or over 5
        or 10 of them drawn at random; over all their games their scores x10, x100, x1000, /100 and /1000 are
        said, /10 seldom (8 of 246 Dopamine agent-iterations, none of the Atari 100k agents: a strong agent's scores
        /10 read like a weaker agent's), and over 5 games less often (``tests/reference/units_slip_subsets.py``). Scores genuinely that far from the
        reference, or that small: pass False. Nothing is changed either way. A reference frame (or file) and the
        rules take no such check (its two columns may be any two scores, so no range is known to be out of its
        units): ``check_units=False`` there is an error saying so; to have a copy of a named table checked, pass
        its name.

    Returns
    -------
    pandas.DataFrame
        A new frame, equal to ``df`` except that the ``score`` column holds
        the normalised (float) scores.  ``df`` itself is not modified.
        Missing scores stay missing.  A sentence saying how the scores were
        normalised rides in the frame's ``attrs``, so results computed from it
        print it (and do not warn that the tasks are on their own scales).
        It records the values written: where the column holds others, the
        note is not shown and one line says so, but for the values times one
        positive factor (percent: x 100), where it is said with the factor.
        The factor is read where the rows kept hold one of the 8 largest
        values written or one of 64 rows the record names (every row of a
        frame of 64 or fewer; else those whose key values hash smallest, a
        sample spread over the rows): rows kept without regard to that hash,
        a share f of them, hold none with chance about (1 - f)^64 (1e-6 at
        f = 0.2), and are then read as raw scales, as before.

    Raises
    ------
    DesignError
        When a column is missing, the data have a task that the reference
        lacks (all such tasks are listed; one that the reference spells
        otherwise, in case or as an environment id such as
        ``"PongNoFrameskip-v4"``, is named with its spelling there: rename it,
        nothing is renamed for you), a task is missing from the data's
        task column, the reference lists a task twice, or, for a task of the
        data, the reference has NaN, text or True/False or ``high <= low``.  Reference rows for
        tasks that are not in the data are not used and not checked. With
        ``"minmax"``, a score is infinite; with ``"dm_control"``, a score lies
        outside [0, 1000] (the message names the rows: index label, agent, task).
    OptionError
        When ``reference`` is neither a DataFrame nor a dataset or rule name, a
        column option is not a string, or ``low``/``high`` are given with a rule.

    See Also
    --------
    rlstats.datasets.available : The reference tables and data sets, with their sources.
    rlstats.bootstrap : Takes ``normalize=`` to normalise before resampling.

    Examples
    --------
    >>> import pandas as pd
    >>> from rlstats.normalization import normalize
    >>> scores = pd.DataFrame({"agent": ["A", "A", "B"], "task": ["Pong", "Boxing", "Pong"],
    ...                        "score": [0.0, 6.1, 14.75]})
    >>> reference = pd.DataFrame({"task": ["Boxing", "Pong"], "random": [0.1, -20.7],
    ...                           "human": [12.1, 14.6]})
    >>> normalize(scores, reference)
      agent    task     score
    0     A    Pong  0.586402
    1     A  Boxing  0.500000
    2     B    Pong  1.004249

    Min-max normalisation from the data, which states the bounds it used:

    >>> runs = pd.DataFrame({"agent": ["A", "B", "A", "B"], "task": ["Pong", "Pong", "Boxing", "Boxing"],
    ...                      "score": [-20.0, 10.0, 2.0, 6.5]})
    >>> out = normalize(runs, "minmax")
    >>> out["score"].tolist()
    [0.0, 1.0, 0.0, 1.0]
    >>> out.attrs["rlstats_notes"][-1].split("in the data: ")[1]  # the note states the bounds
    'Boxing 2 to 6.5, Pong -20 to 10'
    """
    _check_names(low, high, by, score)
    check_units = check_bool("check_units", check_units)
    _check_units_applies(check_units, reference, "check_units=False")
    df = as_pandas(df)  # a polars or pyarrow table: converted once, stated in the notes
    if not isinstance(df, pd.DataFrame):
        raise DesignError(f"df must be a pandas DataFrame with a {by!r} and a {score!r} column, got "
                          f"{type(df).__name__}")
    return _normalized(df, _reference_frame(reference, "reference"), reference if isinstance(reference, str) else None,
                       low=low, high=high, by=by, score=score, check_units=check_units)


def _normalized(df, ref, name, *, low=None, high=None, by="task", score="score", agent=None, kept=None, step=None,
                subset=False, averaged=None, added=None, check_units=True):
    """:func:`normalize` with the reference frame already loaded (or a rule's name); ``name`` is its dataset's
    (None: a frame); ``agent`` names the agent column for messages about rows (None: an 'agent' column if any).
    ``kept`` (a back end's): the rows it will analyse, a boolean array (None: all), of which min-max takes its bounds;
    ``step``: the column of training steps of learning curves, whose every step min-max reads (the note says so);
    ``subset``: whether ``df`` holds the rows a back end's ``subset=`` kept (min-max's note says they set the bounds);
    ``averaged``: the unit ('run') whose seeds were averaged into each row of ``df``, whose means set min-max's bounds;
    ``added``: a list to which the notes it adds are appended (the records :func:`normalize_response` hands to build);
    ``check_units``: whether to say where the scores look to be in other units than a named table's
    (:func:`_units_slip`)."""
    agent = "agent" if agent is None else agent
    _check_names(low, high, by, score)
    _require_columns(df, [by, score], "the data")
    rule = ref if isinstance(ref, str) else None
    if rule is None:
        low, high = _default_bounds(name, low, high)
        _check_names(low, high, by, score)  # e.g. low="human" with the default high
        # a table of other bounds (e.g. 'low' and 'high'): say how to name them, through normalize= too
        hint = ("; name its bounds' columns with low= and high= (through normalize=, a dict: {'reference': table, "
                "'low': ..., 'high': ...})" if low not in ref.columns or high not in ref.columns else "")
        _require_columns(ref, [by, low, high], "the reference", hint)
    keys = df[by].astype(object)
    if keys.isna().any():
        rows = df.index[keys.isna()]
        raise DesignError(
            f"the data's {by!r} column is missing for {count(len(rows), 'row')}, first {_show(rows, 5)}; "
            "every row needs a task to be normalised"
        )
    if not pd.api.types.is_numeric_dtype(df[score]) or pd.api.types.is_bool_dtype(df[score]):
        raise DesignError(f"the data's {score!r} column must be numeric, got {df[score].dtype}")
    tasks = [*dict.fromkeys(keys)]
    values = df[score].to_numpy(dtype=float, na_value=np.nan)
    if rule == "minmax":  # before the bounds are taken from the data: one inf would make its task's range infinite
        _check_range("minmax", df, values, None, None, by, score, agent, kept)
    if rule is not None:
        ref = _rule_frame(rule, df, by, score, low, high, kept)
        low, high = "min", "max"
    lo, hi = _bounds(ref, tasks, by, low, high)
    position = pd.Index(tasks).get_indexer(keys)
    outside = _check_range(rule or name, df, values, lo[position], hi[position], by, score, agent)
    out = df.copy()
    out[score] = (values - lo[position]) / (hi[position] - lo[position])
    slip = (_units_slip(name, score, tasks, position, values, lo, hi, low, high) if check_units and rule is None
            else None)
    if rule == "minmax":  # the bounds of each task, bound to it: a result names those of the tasks it analyses
        items = tuple(((t,), (t, float(a), float(b))) for t, a, b in zip(ref[by], ref["min"], ref["max"]))
        where = "in the rows subset= kept" if subset else "in the data"
        if averaged is not None:  # the bounds of the run means, not of the seeds' scores (audit s22)
            run = singular(averaged)  # the run column as a noun: '| task/runs/seed' averages each run (words33)
            where = f"among the {run} means (each {run}'s seeds averaged) {where}"
        if kept is not None and not kept.all():
            where += f" less the {count((~kept).sum(), 'row')} dropped for a missing value in another column"
        if step is not None:  # learning curves: one range over the whole run, not per step (audit s22)
            where += f", over every step logged in '{step}'"
        note = Note(_minmax_text(score, [payload for _, payload in items], where), scope="rows", keys=(by,),
                    items=items, word=_MINMAX, data=score, kind=NORMALISED)
    elif rule == "dm_control":
        note = Note(f"'{score}' normalised as {score} / 1000, the DeepMind Control Suite's range [0, 1000] "
                    "(rewards in [0, 1], 1000-step episodes)", data=score, kind=NORMALISED)
    else:
        said = (f"'{score}' normalised per task as ({score} - {low}) / ({high} - {low}) with {low} and {high} from "
                f"{name or 'the reference frame'}")
        note = Note(said, data=score, kind=NORMALISED)
        if "source" in ref.columns:  # a named table says where its numbers come from: those of the tasks present
            used = ref[ref[by].astype(object).isin(tasks)][[by, "source"]].dropna()
            items = tuple(((t,), str(source)) for t, source in zip(used[by].astype(object), used["source"]))
            note = Note(_sources_text(said, [source for _, source in items]), scope="rows", keys=(by,), items=items,
                        word=_SOURCES, data=[said, score], kind=NORMALISED)
    record = None
    if added is None:  # normalize()'s frame: its notes are true of rows holding the values written here, which each
        # build checks (provenance.values_checked; audit s33 norm33: the raw scores put back kept the note)
        record = values_record(out[[by]], out[score], score, "normalize()")
        note = dataclasses.replace(note, values=record)
    # df's notes as true of its rows (its values, before these), then this one
    previous = provenance_of(df)
    out = set_notes(out, (*carried(df), note), columns=() if previous is None else previous.columns)
    # to build (``added``), min-max's bounds are those of the rows it analyses (``kept``): a task it or a back end then
    # leaves out whole takes its bounds out of the note, whose words of where they were taken stay true of the others
    notes = [dataclasses.replace(note, word=_MINMAX_ANALYSED, data=[score, where])
             if added is not None and rule == "minmax" else note]
    if outside:  # names rows of this frame: said of this frame only
        notes.append(Note(f"'{score}' normalised with {name}" + outside.replace("[low, high]", f"[{low}, {high}]"),
                          scope="frame", values=record))
        out = add_note(out, notes[-1])
    if slip is not None:
        warn(slip[0])
        # of the rows normalised: a back end's, those it analyses (subset= applied; a row it then drops for a missing
        # value moves no median much), said whatever it drops; normalize()'s frame, only while its rows are analysed
        notes.append(Note(slip[1], scope="operation" if added is not None else "frame", values=record))
        out = add_note(out, notes[-1])
    if added is not None:
        added.extend(notes)
    return out


def _minmax_text(score, bounds, where):
    table = pd.DataFrame(bounds, columns=["task", "min", "max"])
    return (f"'{score}' normalised per task as ({score} - min) / (max - min) with min and max the smallest and "
            f"largest score of each task {where}: {_bounds_phrase(table, 'task')}")


def _reword_minmax(note, items, n_rows):
    """The min-max note naming the bounds of the tasks present, found in the frame normalised (more rows)."""
    return _minmax_text(note.data, [payload for _, payload in items], "in the frame normalised (before these rows "
                        "were selected)")


def _reword_minmax_analysed(note, items, n_rows):
    """The min-max note of ``normalize=`` naming the bounds of the tasks analysed, where it said them (the rows build
    analyses: a task left out whole takes its bounds with it, and the drop's own note names it)."""
    score, where = note.data
    return _minmax_text(score, [payload for _, payload in items], where)


def _sources_text(said, sources):
    used = list(dict.fromkeys(sources))
    return said + (f" ({'; '.join(used)})" if used else "")


def _reword_sources(note, items, n_rows):
    said = note.data if isinstance(note.data, str) else note.data[0]  # a sentence alone: written before s23's kinds
    return _sources_text(said, [source for _, source in items])


#: ``Note.word`` of the min-max note and of the reference's note naming its sources (``Note.data`` holds the column)
_MINMAX, _SOURCES = "rlstats.normalization:_reword_minmax", "rlstats.normalization:_reword_sources"
#: ``Note.word`` of the min-max note of ``normalize=`` (``Note.data``: the column and where the bounds were taken)
_MINMAX_ANALYSED = "rlstats.normalization:_reword_minmax_analysed"


class _Loaded(dict):
    """:func:`load_reference`'s dict, the only one whose ``name`` key (the dataset read) :func:`normalize_response`
    takes: a user's dict has no reason to name a dataset its frame is not (audit s21: it set the default bounds)."""


def named_reference(keywords: Mapping[str, Any], frame: pd.DataFrame, name: str) -> dict[str, Any]:
    """``normalize=``'s dict ``keywords`` with its reference read into ``frame`` from ``name`` (a dataset, or the
    command line's file): the one way to give :func:`normalize_response` the ``name`` key, which users cannot."""
    return _Loaded(keywords, reference=frame, name=name)


#: The attrs key of a frame of run means (``design._average_nested``): the unit its seeds were averaged within
AVERAGED_ATTR = "rlstats_averaged_within"


def load_reference(option: Normalizer) -> Normalizer:
    """The ``normalize=`` option with a dataset name read into its frame: the one place a back end loads one.

    Returns ``option`` unchanged unless it names a dataset (``"atari100k_reference"``, alone or as a
    dict's ``reference``): then a dict ``{"reference": frame, "name": name, ...}``. Validation
    (:func:`normalize_response`) never loads anything.
    """
    keywords = dict(option) if isinstance(option, Mapping) else {"reference": option}
    if "name" in keywords and not isinstance(option, _Loaded):
        return option  # a user's 'name': refused by validation, not overwritten here
    if frame_library(keywords.get("reference")) is not None:  # a polars or pyarrow frame, as pandas
        converted = {**keywords, "reference": _reference_frame(keywords["reference"])}
        return converted if isinstance(option, Mapping) else converted["reference"]
    name = keywords.get("reference")
    if not isinstance(name, str) or isinstance(option, bool):
        return option
    return named_reference(keywords, _reference_frame(name), name)


#: The keys of ``normalize=`` given as a dict (``name`` is the loader's own, :func:`named_reference`)
_DICT_KEYS = ("reference", "low", "high", "check_units")


def normalize_response(data: pd.DataFrame, parsed: Formula, reference: Normalizer, *,
                       other_columns: Iterable[str] = (), step: str | None = None,
                       units: bool = True) -> tuple[pd.DataFrame, list[Note]]:
    """The ``normalize=`` option of the back ends: ``(normalised data, notes for the result)``, the notes as records
    bound to the tasks they name, so that build and a back end's own drop re-state them for the tasks analysed (audit
    s25 polish25: ``rlstats demo``'s min-max note gave the bounds of tasks the bootstrap then left out).

    ``other_columns`` are columns besides the formula's whose missing values drop a row (a Design's extra columns),
    ``step`` the column of training steps of learning curves: min-max takes its bounds from the rows that will be
    analysed (none missing in the formula's other columns or in ``other_columns``), over every step (its note says so).

    ``units``: False where the call only checks the rows (``design._average_nested``'s, on the seeds, before build
    normalises the run means): the units check (:func:`_units_slip`) is said once, by build.

    ``parsed`` is the :class:`~rlstats.formula.Formula` that :func:`rlstats.design.build`
    has already parsed (it is not parsed again here).

    ``reference`` is a reference frame, or a dict of :func:`normalize`'s keywords
    (``{"reference": ..., "low": ..., "high": ...}``) as :func:`load_reference` returns it: a dataset
    is loaded before validation, never here.
    The response must read one data column and the formula must name the task
    column after ``|``; that column is normalised per task.
    """
    if reference is True:
        raise OptionError("normalize=True does not say how to normalise; pass a reference frame or a dataset name "
                          "(e.g. normalize='atari100k_reference'), or normalize=False if the scores are already on "
                          "one scale")
    columns = [c for c in parsed.response_columns if c in data.columns]
    if len(columns) != 1 or parsed.blocks is None:
        raise OptionError(f"normalize= needs a formula whose response reads one data column and that names the "
                          f"task column after '|' (e.g. 'score ~ agent | task'), got '{parsed.text}'")
    keywords: dict[str, Any] = dict(reference) if isinstance(reference, Mapping) else {"reference": reference}
    if "reference" not in keywords:
        raise OptionError("normalize= as a dict must hold 'reference' (and optionally 'low', 'high', 'check_units')")
    ours = _DICT_KEYS + (("name",) if isinstance(reference, _Loaded) else ())
    other = next((key for key in keywords if key not in ours), None)
    if other is not None:  # audit s21: a TypeError of _normalized (the formula names the task and score columns)
        close = close_names(other, list(_DICT_KEYS), n=1)
        raise OptionError(f"normalize= as a dict takes the keys {join_and(map(repr, _DICT_KEYS))}; got "
                          f"{other!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    if "check_units" in keywords:
        keywords["check_units"] = check_bool("normalize= 'check_units'", keywords["check_units"])
        _check_units_applies(keywords["check_units"], keywords.get("name", keywords["reference"]),
                             "normalize= 'check_units': False")
    frame, name = keywords.pop("reference"), keywords.pop("name", None)
    if not isinstance(frame, pd.DataFrame) and not (isinstance(frame, str) and frame in RULES):
        _reference_frame(frame)  # the error for a reference of the wrong type
        raise OptionError("normalize= names a dataset that was not loaded; pass the option through "
                          "rlstats.normalization.load_reference first")
    kept = None
    if isinstance(frame, str) and frame == "minmax":  # the rows build() drops for a missing value set no bound
        others = [c for c in dict.fromkeys((*parsed.columns, *other_columns))
                  if c in data.columns and c not in (columns[0], parsed.blocks)]
        kept = ~data[others].isna().any(axis=1).to_numpy() if others else None
    subset = has_note(data, SUBSET)  # design.subset_rows' note, by its record (never its wording)
    averaged = data.attrs.get(AVERAGED_ATTR)  # a frame of run means (design._average_nested)
    said: list[Note] = []
    if not units:
        keywords["check_units"] = False
    out = _normalized(data, frame, name, score=columns[0], by=parsed.blocks, agent=parsed.groups, kept=kept,
                      step=step, subset=subset, averaged=averaged, added=said, **keywords)
    return out, said


def normalised_in(notes: Iterable[Note], response: str, frame: pd.DataFrame | None = None,
                  present: pd.DataFrame | None = None, minmax: bool = False) -> bool:
    """Whether ``notes`` (:class:`~rlstats.provenance.Note` records of ``frame``, as :func:`rlstats.design.build`
    carries them) say that :func:`normalize` put the column ``response`` on a normalised scale: by the note's kind
    (:data:`~rlstats.provenance.NORMALISED`) and the column its data names, never by its sentence (audit s23: a
    hand-set note "'score' normalised by ..." made raw scores 'normalised scores' and hid the raw-scales warning),
    and of every row analysed (``present``: the distinct values of the notes' key columns among them,
    :attr:`rlstats.design.Design.analysed_note_keys`; None: ``frame``'s): a stack of a normalised frame and a raw
    one is not (audit s23 review23c: its raw rows were called normalised scores), and the normalised rows of it that a
    back end keeps alone are (audit s24, ``Design.select_tasks``).

    A frame read back from a file written before notes had kinds (its notes' records without one) is read as then:
    a note of it starting "'<column>' normalised".

    ``minmax``: whether every row was min-max normalised (``"minmax"``), so that no score exceeds 1 (audit s29
    minmax29: the optimality gap's notes read it), by the min-max note's record alone."""
    notes = list(notes)
    if minmax:
        notes = [note for note in notes if _is_minmax(note.word, note.data)]
    elif _written_before_kinds(frame) and any(note.kind is None and note.text.startswith(f"'{response}' normalised")
                                            for note in notes):
        return True
    said = [note for note in notes if note.kind == NORMALISED and _normalised_column(note.word, note.data) == response]
    rows = frame if present is None else present
    if not said or rows is None:
        return bool(said)
    bound = [note for note in said if note.scope == "rows" and note.keys and all(k in rows for k in note.keys)]
    if len(bound) < len(said):  # a note of the whole frame (or of keys it no longer has): all its rows, as before
        return True
    keys = list(dict.fromkeys(k for note in bound for k in note.keys))
    distinct = rows[keys].drop_duplicates()  # each combination of the notes' keys among the rows analysed, once
    covered = np.zeros(len(distinct), dtype=bool)
    for note in bound:
        items = {tuple(key) for key, _ in note.items}
        covered |= np.array([key in items for key in key_values(distinct, note.keys)], dtype=bool)
    return bool(covered.all())


def as_sentences(notes: Iterable[Note]) -> list[Note]:
    """``notes`` said of every row of a frame made from theirs (run means, :func:`rlstats.design._average_nested`):
    operation notes of their sentences, the normaliser's keeping its record (kind and column) for
    :func:`normalised_in`."""
    out = []
    for note in notes:
        column = _normalised_column(note.word, note.data) if note.kind == NORMALISED else None
        scaled = column is not None and note.word == SCALED  # its factor kept (audit s36 small36)
        out.append(Note(note.text) if column is None else
                   Note(note.text, word=SCALED, data=note.data, kind=NORMALISED) if scaled else
                   Note(note.text, data=column, kind=NORMALISED))
    return out


def normalised_factor(notes: Iterable[Note], response: str) -> float | None:
    """The positive factor the normalised scores of ``response`` were multiplied by after :func:`normalize` wrote
    them (its note said with it, :func:`rlstats.provenance.values_checked`), else None: 1 is then no longer the
    reference score (audit s36 small36)."""
    for note in notes:
        if note.kind == NORMALISED and _normalised_column(note.word, note.data) == response:
            factor = scaled_by(note)
            if factor is not None:
                return factor
    return None


def _normalised_column(word, data):
    """The column a note of kind NORMALISED names: its ``data`` (the sentence and the column, for the note naming
    the reference's sources; a stacked frame's note holds the data of the note it says of its rows)."""
    try:
        if word == SCALED:  # the values written times a factor: the note's own record
            return _normalised_column(*unscaled(word, data))
        if word == OF_ROWS:
            return _normalised_column(data[1], data[2])
        return data[1] if word == _SOURCES else data[0] if word == _MINMAX_ANALYSED else data
    except (TypeError, IndexError, KeyError):  # edited attrs
        return None


def _is_minmax(word, data):
    """Whether a note's record (its ``word`` and ``data``) is the min-max normaliser's (or a stack's of it); not one
    of its scores times a factor (:data:`~rlstats.provenance.SCALED`), which can exceed 1."""
    try:
        return _is_minmax(data[1], data[2]) if word == OF_ROWS else word in (_MINMAX, _MINMAX_ANALYSED)
    except (TypeError, IndexError, KeyError):  # edited attrs
        return False


def _written_before_kinds(frame):
    """Whether ``frame``'s notes were read back from a file (plain JSON in its attrs) written before notes had kinds."""
    value = None if frame is None else frame.attrs.get(PROVENANCE_ATTR)
    if type(value) is not dict:  # a Provenance (made in this session), or none
        return False
    notes = value.get("notes")
    return isinstance(notes, list) and bool(notes) and all(isinstance(n, dict) and "kind" not in n for n in notes)


#: how the raw-scales warning says to mend it (rlstats.power, which takes no normalize=, says its own way instead)
RAW_SCALES_ADVICE = ("normalise them first with normalize= (e.g. normalize='atari100k_reference' or a reference "
                     "frame), or pass normalize=False if they are on one scale already")


#: how the raw-scales note a result prints says to mend it: both ways, as the warning does (new-user trial s37: the
#: note of human-normalised Atari scores named normalize= alone, and only the warning normalize=False)
NOTE_ADVICE = "normalize= puts them on one scale, or pass normalize=False if they are on one scale already"


#: the same for tasks on ranges apart, where no published reference may exist
RANGES_APART_ADVICE = ("normalise them first with normalize= (a reference frame of each task's low and high scores), "
                       "or pass normalize=False if they are on one scale already")


def warn_raw_scales(design: Any, normalize: Normalizer, location: Iterable[str] = (),
                    read: str | None = None) -> Any:
    """Aggregating raw scores of tasks whose spreads are ten times apart lets the wide tasks decide: say so.

    The rule, on the tasks whose scores vary (sorted by range, widest first): the caution is given when the widest
    range is more than ten times the median of the other tasks' ranges (one task decides), or when the median of
    the ranges of the wider half (the ``n - n // 2`` widest of ``n`` tasks) is more than ten times the median of the
    narrower half's (the ``n // 2`` narrowest: a group of tasks counts for almost nothing in a mean of differences),
    from 4 tasks on (at 3 the narrower half is one task, whose range is mostly chance at few runs). With 2 and 3 tasks
    the widest range is read against the others' median alone. Medians, not the narrowest range alone: of a few
    scores a task's range is mostly chance (audit s32 scale32, same-scale draws of 4 lognormal scores a task: the
    widest range was ten times the narrowest in 44%, 97% and 100% of draws of 7, 26 and 57 tasks, the two halves'
    medians in 1.1%, 0% and 0%; of 4 normal scores 3%, 19% and 44% against none).

    A task's spread is the range of its scores (largest minus smallest, over all agents and runs): the differences
    a mean of differences averages are of its size, and it is the same under any common map ``a * y + b``, so the
    caution is too (audit s21: each task's largest ``|score|`` was read, which a common shift makes alike, so
    human-normalised Atari 100k scores were cautioned and the same scores + 1e6 were not). Tasks whose scores are all
    equal (within the near-tie tolerance of :func:`rlstats.statistics.block_tolerances`, rounding) differ between no
    agents and decide nothing: they are left out of the ratio, and the caution counts them.

    A warning at the call, and the Design returned with the same caution as a note, so that the printed result,
    its report and its tables say it too (in the ratio that gave it, the widest range to the others' median or the
    wider half's median to the narrower half's, which quotes no score).
    The Design unchanged when the scores were normalised (``normalize=`` or a frame from :func:`normalize`) or the
    caller says they are on one scale already (``normalize=False``).

    ``location`` names the statistics computed that read the tasks' locations, not only their spreads: ``"iqm"`` (it
    trims the runs of every task pooled), ``"median"`` (of task means: it takes one task's, or the middle two's) and
    ``"level"`` (a mean over tasks reported as a score, tuning()'s expected max: a number on no task's scale where
    their scores lie apart; audit s32 scale32: PPO's configurations on lunar 205-463, on ant 5,925-8,179).
    For them, tasks of like spreads on ranges apart are cautioned too (:func:`_ranges_apart`).

    ``read`` says what the ranges were taken over, as the caller built ``design.y`` ("largest minus smallest
    <read>"): every run (None: "over all agents and runs", the arms by the formula's column), every run at every
    step (curves()), each configuration's mean over its seeds
    (tuning(); audit s30 w2fix30: it said "over all agents and runs" of configuration means).
    """
    from .statistics import block_ranges, block_tolerances

    if normalize is not None or design.n_tasks < 2 or design.normalized:
        return design
    read = f"over all {plural(design.arm_word)} and runs" if read is None else read
    low, high = block_ranges(design.y, design.task, design.n_tasks)
    spread = np.where(high >= low, high - low, 0.0)
    varies = spread > block_tolerances(design.y, design.task, design.n_tasks)
    # agents in groups that never share a task are aggregated over their own group's tasks alone: each group's tasks
    # are judged apart, and a caution names its group (audit s30 design30: task_01's range was 13.3 times the median
    # of six tasks', 5.0 times its own group's, and "scores of 6 tasks were aggregated" where no aggregate read more
    # than 3)
    graph = design.graph
    groups = ([(np.arange(design.n_tasks), "")] if graph.connected else
              # each group's agents as every list of names (quoted where a name holds a comma) and bounded (review
              # s30: "of PPO, tuned, agent_2" read as three agents, and a group of 40 named all 40)
              [(np.flatnonzero(graph.task_group == g), f" of {listed(names_shown(agents, design.agents), 5)}")
               for g, agents in enumerate(graph.groups)])
    notes = []
    for tasks, whose in groups:
        # the widest range against the median of the others' (not the narrowest: of a few scores a task's range is
        # mostly chance, and the narrowest of 26 two-score ranges was ten times below the widest in 99% of
        # same-scale draws, 74% of 8-score lognormal ones; against the median, 0.1% and 2% at 26 tasks, 13% at 2
        # tasks of 2 scores; raw Atari 100k 35-66-fold, human-normalised 6-7.5, audit s21). A single task far
        # narrower than the rest cannot be told from chance at few runs; a group of them (the narrower half) can
        order = tasks[varies[tasks]][np.argsort(-spread[tasks][varies[tasks]], kind="stable")]
        if order.size < 2:
            continue
        # audit s32 scale32: a group of narrow tasks went unsaid (Dierkes et al.'s dehb vs base runs: 3 of 7 tasks'
        # ranges 57-154, the other 4's 2,634-5,404, widest 3.88 times the median of the others', the halves' medians
        # 42.7 times apart; the 3 carried 1.9% of the mean of differences and were the held-out tasks of a
        # selection_check that called the claim selected, and survived on min-max normalised scores)
        wide, narrow = order[:order.size - order.size // 2], order[order.size - order.size // 2:]
        one = spread[order[0]] > 10 * np.median(spread[order[1:]])
        # the halves from 4 tasks: at 3 the narrower "half" is one task, whose range is mostly chance at few runs
        # (review32c: 10% of same-scale draws of 3 tasks of 3 success/fail runs, 16% of lognormal(0, 2) ones)
        halves = order.size >= 4 and np.median(spread[wide]) > 10 * np.median(spread[narrow])
        if not one and not halves:
            continue
        equal = int(tasks.size - varies[tasks].sum())
        word = design.block_word  # the formula's block column as a noun (audit s32 block32)
        left_out = (f"; {count(equal, word)} whose scores are all equal, deciding nothing, left out" if equal else "")
        widest = design.tasks[order[0]]
        counted = f"the {count(tasks.size, word)}{whose}" if whose else count(tasks.size, word)
        if one:
            ratio = signif(spread[order[0]] / np.median(spread[order[1:]]), 3)
            apart = (f"the range of the scores of {widest!r}, largest minus smallest {read}, is {ratio} times the "
                     f"median of the other {plural(word)}' ranges")
        else:
            ratio = signif(np.median(spread[wide]) / np.median(spread[narrow]), 3)
            # the narrowest named as the widest is above (quoted), one name: power() counts texts alike once
            apart = (f"the median range of the scores of the {wide.size} widest {plural(word)}, largest minus "
                     f"smallest {read}, is {ratio} times that of the other {narrow.size}, the narrowest "
                     f"{design.tasks[order[-1]]!r}")
        said = (f"scores of {counted} {{}} aggregated on their own scales ({apart}{left_out}), so the "
                f"{plural(word)} with wide ranges decide the result")
        warn(said.format("are") + f"; {RAW_SCALES_ADVICE}")
        notes.append(said.format("were") + f"; {NOTE_ADVICE}")
    if not notes:
        return _ranges_apart(design, tuple(location))
    return dataclasses.replace(design, notes=(*design.notes, *notes))


def _location_read(location, n_tasks, word="task"):
    """What each statistic in ``location`` takes from where the tasks lie, and whether that is plural: the IQM trims
    the runs of every task pooled (2 tasks or more); the median of task means takes the middle task's mean, or
    averages the middle two of an even number: from 3 tasks. On 1 or 2 it is the mean of task means
    (:func:`rlstats.statistics.median_is_mean`, the rule by which bootstrap() and curves() give it the mean's interval
    and bands), which a shift of a task moves as it moves the mean: nothing to caution beyond the mean's (audit s27
    median27)."""
    from .statistics import median_is_mean

    read = []
    if "level" in location and n_tasks >= 2:  # tuning(): the expected max averaged over tasks, a level (audit s32)
        read.append((f"the level the mean over {plural(word)} reports", False))
    if "iqm" in location and n_tasks >= 2:
        read.append(("the runs the IQM keeps", True))
    if "median" in location and not median_is_mean(n_tasks):
        read.append((f"the two {plural(word)} whose means the median averages", True) if n_tasks % 2 == 0 else
                    (f"the {word} whose mean the median takes", False))
    return read


def _ranges_apart(design, location):
    """The Design with a caution (a warning and a note) where some task's scores all lie below another's and a
    statistic in ``location`` reads where the tasks lie: spreads alike hide it (audit s18: raw CartPole
    returns, 0 to 500, and Acrobot's, -500 to 0; the IQM of A2C minus PPO at step 5k was +8.4 raw and -33.3 on the
    tasks' ranges normalised, x 500). Said of the lowest-topped task and the highest-floored one; quoting no score,
    it reads the same in any units."""
    read = _location_read(location, design.n_tasks, design.block_word)
    if not read:
        return design
    from .statistics import block_ranges

    low, high = block_ranges(design.y, design.task, design.n_tasks)
    below, above = int(np.argmin(high)), int(np.argmax(low))
    if not high[below] < low[above]:
        return design
    tasks = plural(design.block_word)  # the formula's block column as a noun (audit s32 block32)
    said = (f"scores of {tasks} on ranges apart (every score of {design.tasks[below]!r} is below every score of "
            f"{design.tasks[above]!r}) {{}} aggregated on their own scales, so {join_and([w for w, _ in read])} "
            f"depend{'' if len(read) > 1 or read[0][1] else 's'} on the {tasks}' ranges, not only on the runs' "
            "results")
    warn(said.format("are") + f"; {RANGES_APART_ADVICE}")
    note = said.format("were") + f"; {NOTE_ADVICE}"
    return dataclasses.replace(design, notes=(*design.notes, note))


#: the share of each agent's scores of a task on one side of gamma below which the optimality gap of raw scores is
#: decided by a few outlying runs (or is little more than gamma minus the mean), and the note says so: gamma outside
#: the middle 80% of every agent's scores on every task, on one side for all agents of a task (audit s19)
GAP_FEW_SHARE = 0.1  # the notes say "a tenth"


def gap_sides(design: Any, gamma: float, values: Any = None, task: Any = None, agent: Any = None,
              share: float = GAP_FEW_SHARE) -> tuple[Any, ...] | None:
    """The rule of :func:`raw_gap_note` (its arguments): (above, below, present) over tasks, whether fewer than
    ``share`` of each agent's scores of the task lie below gamma, or else above it, and whether the task has a score,
    with the (tasks, agents) counts of scores, of those below gamma and of those above it; None where gamma is within
    the bulk of some agent's scores of a task (or no score is given). A gamma other than 1 reads ``share=0``."""
    if gamma != 1:  # a target the caller set, likely in the score's units (CartPole's solved 475): a few runs
        share = 0   # short of a target most reach is the gap asked for, so only every score on one side is said
    values = np.asarray(design.y if values is None else values, dtype=float).ravel()
    task = np.asarray(design.task if task is None else task).ravel()
    agent = np.asarray(design.agent if agent is None else agent).ravel()
    logged = ~np.isnan(values)
    values, task, agent = values[logged], task[logged], agent[logged]
    if not values.size:
        return None
    shape = (design.n_tasks, design.n_agents)
    cell = task * design.n_agents + agent
    per_cell = (lambda w: np.bincount(cell, weights=w, minlength=np.prod(shape)).reshape(shape))  # noqa: E731
    n = per_cell(None)
    short, over = per_cell(values < gamma), per_cell(values > gamma)  # the scores adding to the gap; those above
    above, below, present, decided = _sides(n, short, over, share)
    if not decided:
        return None
    return above, below, present, n, short, over


def gap_sides_by_step(design: Any, gamma: float, values: Any, task: Any, agent: Any,
                      share: float = GAP_FEW_SHARE) -> tuple[Any, Any, Any]:
    """:func:`gap_sides` read in each column of ``values`` (runs, steps), whose runs' task and agent codes are
    ``task`` and ``agent``, at once: (above, below) of shape (steps, tasks) and (steps,) whether the rule decides
    the step (False where :func:`gap_sides` gives None: gamma within the bulk of some agent's scores there, or no
    score logged), the same as calling it at each step, without a Python loop over steps."""
    if gamma != 1:
        share = 0  # as gap_sides: a target the caller set says only every score on one side
    values = np.asarray(values, dtype=float)
    n_steps, n_cells = values.shape[1], design.n_tasks * design.n_agents
    logged = ~np.isnan(values)
    slot = (np.arange(n_steps)[None, :] * n_cells
            + (np.asarray(task) * design.n_agents + np.asarray(agent))[:, None])[logged]
    shape = (n_steps, design.n_tasks, design.n_agents)
    per_cell = (lambda w: np.bincount(slot, weights=w, minlength=n_steps * n_cells).reshape(shape))  # noqa: E731
    n = per_cell(None)
    above, below, present, decided = _sides(n, per_cell(values[logged] < gamma), per_cell(values[logged] > gamma),
                                            share)
    return above, below, decided & present.any(axis=-1)


def _sides(n, short, over, share):
    """gap_sides' rule on (..., tasks, agents) counts of scores, of those below gamma and of those above it:
    (above, below, present) over tasks and whether every task with a score is on one side (over the leading axes)."""
    few = np.maximum(share * n, 1)  # strictly fewer: 1 of 10 is not fewer than a tenth; share 0: none
    empty = n == 0
    present = ~empty.all(axis=-1)
    above = present & ((short < few) | empty).all(axis=-1)
    below = present & ~above & ((over < few) | empty).all(axis=-1)
    return above, below, present, (above | below | ~present).all(axis=-1)


def raw_gap_note(design: Any, gamma: float, values: Any = None, task: Any = None, agent: Any = None, at: str = "",
                 share: float = GAP_FEW_SHARE) -> str | None:
    """The note on an optimality gap of scores that were not normalised, where gamma lies outside the bulk of every
    agent's scores on every task; None otherwise.

    The rule: on every task, fewer than a tenth (``GAP_FEW_SHARE``) of each agent's scores lie below gamma (each
    agent's gap is the shortfall of those few, spread over its runs: audit s19, HalfCheetah SAC's one run at -565.6,
    1 of 192, gave SAC a gap of 2.95 and TD3 0), or fewer than a tenth of each agent's lie above it (the gap is
    gamma minus each agent's mean and a little more). Each agent's, not the task's pooled: an agent of 2 runs, both
    below gamma, among 30 runs above it is no outlier, its gap its mean shortfall. The exact cases, every score on
    one side, are said as such (audit s15: raw CartPole returns, all above gamma = 1, gave a gap of 0 for every agent,
    and raw Acrobot returns, all below it, 1 minus their mean). Elsewhere gamma is within the bulk of some agent's
    runs, the gap may be the one meant, and nothing is said. A gamma other than 1 is a target the caller chose, often
    in the score's units (CartPole's solved 475), where a few runs short of it is the gap asked for: there only every
    score on one side is said (as ``share=0``), and gamma is not called a target on a normalised scale (audit s19).

    gamma is a target on a normalised scale (1: the reference score), so on raw scores it is a number in the score's
    units that the caller may have meant or not. ``values``, ``task`` and ``agent`` are the scores analysed and their
    task and agent codes (by default the Design's rows; ``rlstats.curves`` passes its aligned runs at the steps the
    rule reads alike, :func:`gap_sides` at each step, audit s20); ``at`` ends the consequence (" at steps 5k to 8k";
    " at every step" with ``share=0``: pooled over steps, a few scores below gamma may be a whole early step's, of
    which "a few outlying runs" would be untrue). The
    note quotes counts, never a score, so that it reads the same in any units where it is given (as the raw-scales
    note does). Normalised scores (``normalize=`` or a frame from :func:`normalize`) are left alone, whatever gamma,
    but for those multiplied by a factor since (:func:`normalised_factor`), whose reference score is the factor.
    """
    factor = normalised_factor(design.inherited_notes, design.response_name) if design.normalized else None
    if design.normalized and factor is None:
        return None
    chosen = gamma != 1
    sides = gap_sides(design, gamma, values, task, agent, share)
    if sides is None:  # gamma within the bulk of some agent's runs: a gap that may be meant
        return None
    above, below, present, n, short, over = sides
    few_short, few_over, total = int(short[above].sum()), int(over[below].sum()), int(n.sum())
    agent, task = design.arm_word, design.block_word  # the data's columns by their names (audit s33 words33b)
    agents, tasks = plural(agent), plural(task)
    if above[present].all():
        if not few_short:
            what = (f"every score is at or above it, so the gap is 0 for every {agent}{at} and tells them apart in "
                    "nothing")
        else:
            what = (f"only {few_short} of the {total} scores {verb(few_short, 'is')} below it (fewer "
                    f"than a tenth of each {agent}'s scores on every {task}), so the gap{at} is the shortfall of "
                    "those few scores "
                    f"spread over all of {a_or_an(agent)}'s runs (0 for {a_or_an(agent)} with none): it says how far "
                    "a few outlying "
                    f"runs fall, not how the {agents} compare")
    elif below[present].all():
        if not few_over:
            what = (f"every score is at or below it, so the gap is gamma minus each {agent}'s mean{at}, no more than "
                    "the "
                    "mean says")
        else:
            what = (f"all but {few_over} of the {total} scores are below it (more than nine tenths of each {agent}'s "
                    f"scores on every {task}), so the gap{at} is gamma minus each {agent}'s mean plus the excess of "
                    "those "
                    "few scores over gamma spread over its runs, little more than the mean says")
    else:
        names = (lambda mask: join_and([design.tasks[t] for t in np.flatnonzero(mask)], 5))  # noqa: E731
        first = (f"every score of {names(above)} is at or above it" if not few_short else
                 f"fewer than a tenth of each {agent}'s scores of {names(above)} are below it")
        others = (f"every score of {names(below)} at or below it" if not few_over else
                  f"fewer than a tenth of each {agent}'s of {names(below)} above it")
        # each side said as it is: "a few outlying runs" only where some run falls short (audit s19)
        what = (f"{first} and {others}, so the gap{at} {'rests on a few outlying runs' if few_short else 'is 0'} on "
                f"the first and is {'about ' if few_over else ''}gamma minus the {agent}'s mean on the others, "
                "averaged "
                f"over {tasks}")
    response = design.response_name
    if factor is not None:  # normalize()'s scores times a factor (audit s36 small36): its reference score is that
        scaled = f"'{response}' holds normalised scores times {factor:.12g}: {what}"
        if chosen:
            return (f"the optimality gap is the mean shortfall below gamma = {signif(gamma)}, and {scaled}; set gamma= "
                    f"to a target that some runs fall short of (the reference score is {factor:.12g})")
        return (f"the optimality gap is the mean shortfall below gamma = {signif(gamma)}, a target on a normalised "
                f"scale (1: the reference score, e.g. human), but {scaled}; set gamma={factor:.12g}, the reference "
                f"score times {factor:.12g}")
    if chosen:  # not called a normalised target: the caller may have meant it in the score's units
        return (f"the optimality gap is the mean shortfall below gamma = {signif(gamma)}, and '{response}' was not "
                f"normalised here: {what}; set gamma= to a target that some runs fall short of, or, if gamma was meant "
                "on a normalised scale (1: the reference score), normalise the scores with normalize=")
    return (f"the optimality gap is the mean shortfall below gamma = {signif(gamma)}, a target on a normalised scale "
            f"(1: the reference score, e.g. human), but '{response}' was not normalised here: {what}; normalise the "
            f"scores with normalize= (e.g. normalize='atari100k_reference' or a reference frame), or set gamma= to the "
            f"target score in the units of '{response}'")

"""Audit s8 (inputs): bad input, the caller's frame untouched, bounded sizes, nothing evaluated as code.

Each test is a minimal reproducer of one defect found: a public name that crashed with a non-rlstats error, answered
a number that is false of its input, allocated without a bound, or refused in a message without the way on. A test
asserts the correct behaviour; while the defect stands it is a strict xfail with its reason.
"""

from __future__ import annotations

import contextlib
import signal

import numpy as np
import pandas as pd
import pytest

import rlstats
import rlstats.selection
from rlstats.errors import DesignError, OptionError, RlstatsError

TINY = rlstats.datasets.simulate(agents=2, tasks=3, seeds=3, rng=0)
CURVES = rlstats.datasets.simulate_curves(agents=2, tasks=3, seeds=3, steps=5, rng=0)
CURVES_FORMULA = "score ~ agent | task/seed"


@contextlib.contextmanager
def _within(seconds=2.0):
    """The block ends within ``seconds`` of wall-clock time, else TimeoutError (a size checked before any work
    is refused at once; one that is not would allocate or loop for minutes)."""
    def _late(*_):
        raise TimeoutError(f"still running after {seconds} s: the size was not checked before the work")

    previous = signal.signal(signal.SIGALRM, _late)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ----------------------------------------------------------------------------- rlstats.selection's planning helpers


@pytest.mark.parametrize("call", ["top_mean_null", "conservative_pvalue"])
def test_selection_null_of_a_huge_number_of_candidates_is_refused(call):
    """``rlstats.selection.top_mean_null(10, 10**12)`` asks numpy for 7 TiB and the user sees numpy's
    MemoryError; the number of candidate tasks must be bounded (as n_resamples is) before anything is drawn."""
    args = (10, 10**12) if call == "top_mean_null" else (1.0, 10, 10**12)
    with _within(), pytest.raises(OptionError, match="n_candidates=1000000000000 is more than"):
        getattr(rlstats.selection, call)(*args, n_resamples=100, rng=0)


@pytest.mark.parametrize("options", [{"n_candidates": 10**12}, {"n_heldout": 10**12}, {"n_trials": 10**12}],
                         ids=["candidates", "heldout", "trials"])
def test_selection_simulate_of_huge_sizes_is_refused(options):
    """``rlstats.selection.simulate(30, 10, 10, n_trials=10**12)`` ran for 92 s and then raised numpy's
    MemoryError; ``n_candidates=10**9`` or ``n_heldout=10**9`` raise it at once. Each size must be an OptionError
    naming it before anything is drawn."""
    arguments = {"n_candidates": 30, "n_reported": 10, "n_heldout": 10, "n_trials": 10, **options}
    name, value = next(iter(options.items()))
    with _within(), pytest.raises(OptionError, match=f"{name}={value}"):
        rlstats.selection.simulate(arguments.pop("n_candidates"), arguments.pop("n_reported"),
                                   arguments.pop("n_heldout"), rng=0, **arguments)


@pytest.mark.parametrize("arguments, phrase", [
    ({"n_reported": 5, "max_heldout": 10**12}, "max_heldout=1000000000000 is more than"),
    ({"n_reported": 0}, "n_reported must be at least 1, got 0"),
    ({"n_reported": 2.5}, "n_reported must be a whole number"),
], ids=["max_heldout 10**12", "no reported tasks", "fractional reported tasks"])
def test_selection_required_heldout_checks_its_counts(arguments, phrase):
    """``required_heldout(0.74, 5, max_heldout=10**12)`` raised numpy's MemoryError (7 TiB) and
    ``required_heldout(1.0, 0)`` a ZeroDivisionError; each count must be checked and named."""
    with _within(), pytest.raises(OptionError, match=phrase):
        rlstats.selection.required_heldout(0.74, **arguments)


@pytest.mark.parametrize("arguments, phrase", [
    ((1.0, 0, 5), "n_reported must be at least 1"),
    ((1.0, -5, 5), "n_reported must be at least 1"),
    ((1.0, 5, 0), "n_heldout must be at least 1"),
    ((1.0, 2.5, 5), "n_reported must be whole numbers"),
    (("a", 5, 5), "mean_reported must be"),
], ids=["no reported tasks", "negative reported tasks", "no fresh tasks", "fractional", "text mean"])
def test_selection_detection_probability_checks_its_inputs(arguments, phrase):
    """``detection_probability(1.0, -5, 5)`` returned 0.987, a probability of a design that cannot exist;
    ``(1.0, 0, 5)`` raised ZeroDivisionError and ``("a", 5, 5)`` a TypeError."""
    with pytest.raises(OptionError, match=phrase):
        rlstats.selection.detection_probability(*arguments)


@pytest.mark.parametrize("mean", [float("nan"), float("inf"), "x", [1.0, float("nan")]],
                         ids=["nan", "inf", "text", "a nan among numbers"])
def test_selection_conservative_pvalue_of_a_mean_that_is_not_a_number(mean):
    """``conservative_pvalue(float('nan'), 10, 30, n_resamples=100)`` returned (0.0099, 0.0099): the smallest
    p-value it can give, for a reported mean that is missing. A mean that is not a finite number must be an
    OptionError naming mean_reported (or a NaN p-value), never a significant one."""
    with pytest.raises(OptionError, match="mean_reported"):
        rlstats.selection.conservative_pvalue(mean, 10, 30, n_resamples=100, rng=0)


# ----------------------------------------------------------------------------- grids and sizes of the back ends


def test_performance_profile_of_a_huge_threshold_grid_is_refused():
    """``performance_profile(df, f, tau=np.linspace(0, 30, 10**8))`` spent 5 s and raised numpy's MemoryError
    (under a 6 GB cap; without one it takes the machine's memory). A threshold grid must be bounded, as curves'
    steps= grid is, before the resamples are drawn over it."""
    tau = np.linspace(0.0, 30.0, 10**6)
    with _within(), pytest.raises(OptionError, match="tau= has 1,000,000 thresholds"):
        rlstats.performance_profile(TINY, "score ~ agent | task", tau=tau, n_resamples=10, rng=0)


# ----------------------------------------------------------------------------- the step column


@pytest.mark.parametrize("function", ["align_steps", "summarize_runs", "curves"])
def test_step_naming_the_response_column_is_an_error(function):
    """``rlstats.summarize_runs(curves, 'score ~ agent | task/seed', step='score')`` returned, as each run's
    'final' score, the score at the run's largest score, i.e. its maximum, without a word; ``align_steps`` raised
    pandas' ``ValueError: cannot insert score, already exists`` and ``curves`` spoke of steps 8.855 to 17.89. A
    step column that is the response's own column is a mistake to name."""
    options = {"n_resamples": 50, "rng": 0} if function == "curves" else {}
    with pytest.raises(DesignError, match="step='score' is the response"):
        getattr(rlstats, function)(CURVES, CURVES_FORMULA, step="score", **options)


def test_align_steps_of_a_frame_that_forbids_duplicate_labels():
    """A frame whose ``flags.allows_duplicate_labels`` is False (a pandas option to catch accidental duplicates;
    the frame has none) made ``align_steps`` fail inside pandas with DuplicateLabelError: rlstats built a
    duplicated index of its own from the caller's flagged frame. The caller's flags must not reach rlstats'
    working copies, and the frame must be left as it was."""
    data = CURVES.copy()
    data.flags.allows_duplicate_labels = False
    before = data.copy(deep=True)
    aligned = rlstats.align_steps(data, CURVES_FORMULA, step="step")
    assert len(aligned) == len(CURVES)
    assert data.flags.allows_duplicate_labels is False
    pd.testing.assert_frame_equal(data, before)


# ----------------------------------------------------------------------------- messages with the way on


@pytest.mark.parametrize("function", ["bootstrap", "skillings_mack"])
def test_a_count_written_1e4_says_to_pass_the_int(function):
    """R and scipy users write ``n_resamples=1e4``. The message 'n_resamples must be a whole number, got
    10000.0' is false (10000.0 is whole) and says nothing of what to write; it must say to pass the int."""
    with pytest.raises(OptionError, match="n_resamples=10000"):
        getattr(rlstats, function)(TINY, "score ~ agent | task", n_resamples=1e4, rng=0)


def test_a_confidence_level_in_percent_says_to_pass_the_fraction():
    """``confidence_level=95`` answered 'confidence_level must be strictly between 0 and 1, got 95.0': the
    mistake is plain (a percentage) and the message must say ``confidence_level=0.95``, as it does for 0.05."""
    with pytest.raises(OptionError, match="confidence_level=0.95"):
        rlstats.bootstrap(TINY, "score ~ agent | task", confidence_level=95, n_resamples=100, rng=0)


@pytest.mark.parametrize("function, option, value", [("bootstrap", "confidence_level", 10**21),
                                                     ("skillings_mack", "alpha", 10**21),
                                                     ("equivalence", "margin", 10**400)])
def test_an_int_beyond_numpy_range_is_an_option_error(function, option, value):
    """``confidence_level=10**21`` (or alpha=; margin=10**400, beyond float) raised ``TypeError: ufunc 'isfinite'
    not supported``: numpy cannot hold the int, and the check that should name the option never ran."""
    with pytest.raises(OptionError, match=option):
        getattr(rlstats, function)(TINY, "score ~ agent | task", **{option: value})


# ----------------------------------------------------------------------------- the command line


def _cli(*args):
    """``rlstats ARGS`` in-process: (exit status, stdout, stderr); an exception that escapes is returned as such."""
    import io
    import types

    from rlstats.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main([str(a) for a in args], out=out)
        except SystemExit as exc:
            status = exc.code
        except Exception as exc:  # noqa: BLE001 - the defect under test: a traceback instead of a message
            status = f"{type(exc).__name__}: {exc}"
    return types.SimpleNamespace(returncode=status, stdout=out.getvalue(), stderr=err.getvalue())


def test_command_line_option_of_a_huge_int_is_a_clear_error(tmp_path):
    """``rlstats compare runs.csv F --method bootstrap -o confidence_level=100000000000000000000000`` (a mistyped
    level) ended in ``TypeError: ufunc 'isfinite' not supported``: the command must exit 2 with one line naming
    confidence_level."""
    TINY.to_csv(tmp_path / "runs.csv", index=False)
    done = _cli("compare", tmp_path / "runs.csv", "score ~ agent | task", "--method", "bootstrap",
                "-o", "confidence_level=100000000000000000000000")
    assert done.returncode == 2 and done.stderr.startswith("rlstats: error: confidence_level"), done


def test_command_line_file_with_a_repeated_column_name_is_an_error(tmp_path):
    """A file whose header is ``agent,task,seed,score,score`` (e.g. a train and an eval score, both named score)
    was analysed on its first 'score' column with exit status 0; pandas had silently renamed the second to
    'score.1'. The Python API refuses the same table ('column 'score' appears 2 times in the data; give columns
    unique names'); the command line must too, naming the column, not pick one."""
    frame = TINY.assign(other=1000.0).rename(columns={"other": "score"})
    frame.to_csv(tmp_path / "runs.csv", index=False)
    assert (tmp_path / "runs.csv").read_text().splitlines()[0] == "agent,task,seed,score,score"
    done = _cli("compare", tmp_path / "runs.csv", "score ~ agent | task")
    assert done.returncode == 2 and "'score'" in done.stderr and "2 times" in done.stderr, done


# ----------------------------------------------------------------------------- AdaStop batch by batch


def test_adastop_update_refuses_text_scores_as_adastop_does():
    """``AdaStop(...).update(batch)`` with a score column of text (``'1.0'``, read from a file without dtypes)
    recorded the batch as numbers [1.0, 2.0, 3.0] in the state; ``rlstats.adastop`` on the same column raised
    'column 'score' has dtype str; the response must be numeric ... pd.to_numeric'. The incremental test must
    not change the data silently where the batch test refuses it."""
    batch = pd.DataFrame({"agent": ["a"] * 3 + ["b"] * 3, "score": ["1.0", "2.0", "3.0", "4.0", "5.0", "6.0"]})
    state = rlstats.AdaStop(["a", "b"], n=3, K=2, n_resamples=200, rng=0)
    with pytest.raises(DesignError, match="pd.to_numeric"):
        state.update(batch)


def test_adastop_update_of_a_batch_with_a_repeated_column_names_it():
    """A batch with the score column twice made ``update`` say agent 'a' had 6 runs (it has 3, each row's score
    given twice); the message must name the repeated column, as design.build does."""
    batch = pd.DataFrame({"agent": ["a"] * 3 + ["b"] * 3, "score": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    batch = pd.concat([batch, batch[["score"]]], axis=1)
    state = rlstats.AdaStop(["a", "b"], n=3, K=2, n_resamples=200, rng=0)
    with pytest.raises(DesignError, match="column 'score' appears 2 times"):
        state.update(batch)


# ----------------------------------------------------------------------------- formulas and log helpers


def test_r_nesting_operator_in_the_blocks_gets_the_right_advice():
    """``score ~ agent | seed %in% task`` (R's spelling of seeds nested in tasks) was refused with "Use '| seed'
    (seeds are replicates within seed ...), '| seed/in' ... or '| seed:in'": the words of R's operator taken for
    columns. The advice must be the nesting R meant, '| task/seed', and name no column 'in'."""
    with pytest.raises(rlstats.FormulaError) as info:
        rlstats.parse("score ~ agent | seed %in% task")
    assert "'| task/seed'" in str(info.value) and "/in'" not in str(info.value)


@pytest.mark.parametrize("available", ["eval/return", 3], ids=["one name as text", "a number"])
def test_choose_return_tag_of_something_that_is_not_a_list_of_tags(available):
    """``choose_return_tag('eval/return')`` answered 'no logged tag looks like a return ... Logged tags: 'e', 'v',
    'a', ...' and ``choose_return_tag(3)`` raised TypeError; it must ask for a collection of tag names."""
    import rlstats.logs

    with pytest.raises(OptionError, match="available must be a collection of tag names"):
        rlstats.logs.choose_return_tag(available)


# ----------------------------------------------------------------------------- frames of other libraries


@pytest.mark.parametrize("column", ["struct", "array"])
def test_polars_frame_with_a_nested_column_the_formula_does_not_use(column):
    """A polars frame of runs with a ``config`` Struct column (the run's hyperparameters, a common polars layout)
    or a fixed-size Array column failed in the conversion to pandas with ValueError, before the formula was read,
    although the column plays no part in it. The conversion must keep such a column (as Python objects) so the
    analysis of the other columns runs, and leave the caller's frame as it was."""
    pl = pytest.importorskip("polars")
    frame = pl.from_pandas(TINY.assign(agent=TINY["agent"].astype(str), task=TINY["task"].astype(str)))
    extra = (pl.struct(lr=pl.lit(0.1), gamma=pl.lit(0.99)) if column == "struct"
             else pl.lit([1.0, 2.0]).cast(pl.Array(pl.Float64, 2)))
    frame = frame.with_columns(extra.alias("config"))
    before = frame.clone()
    result = rlstats.bootstrap(frame, "score ~ agent | task", n_resamples=50, rng=0)
    assert result.nobs == len(TINY)
    assert frame.equals(before)


# ----------------------------------------------------------------------------- log files


def _log(tmp_path, relative, text):
    path = tmp_path / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize("name, text", [
    ("progress.csv", "step,eval/return\n99999999999999999999999,1.0\n0,2.0\n"),
    ("log.jsonl", '{"step": 0, "return": 2}\n{"step": 99999999999999999999999, "return": 1}\n'),
], ids=["progress.csv", "json lines"])
def test_a_step_beyond_int64_in_a_log_is_not_wrapped(tmp_path, name, text):
    """A corrupt or mistyped step of 10**23 came out of read_logs as step -9223372036854775808 (int64's minimum,
    numpy's cast of an overflowing value), so the run's curve gained a point far before its start. The reader
    must refuse the file naming the value (or keep the step exact), never a different number."""
    _log(tmp_path, f"a/t/seed_0/{name}", text)
    try:
        frame = rlstats.read_logs(tmp_path, "{agent}/{task}/seed_{seed}", progress=False)
    except RlstatsError as err:
        assert "99999999999999999999999" in str(err)
    else:
        assert frame["step"].min() >= 0, frame


def test_a_log_file_whose_steps_go_back_is_stated(tmp_path):
    """A progress.csv of steps 0, 10, 20, then 5, 15 (a run restarted from its step-5 checkpoint, appending to the
    same file) was read as one curve 1, 100, 2, 200, 3 at steps 0, 5, 10, 15, 20: two attempts woven together,
    and no note. Across files read_logs tells a restart and supersedes the earlier attempt with a note; within a
    file the data change must at least be stated (or refused)."""
    _log(tmp_path, "a/t/seed_0/progress.csv", "step,eval/return\n0,1\n10,2\n20,3\n5,100\n15,200\n")
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/seed_{seed}", progress=False)
    notes = " ".join(frame.attrs.get("rlstats_notes", ()))
    assert "back" in notes or "restart" in notes or "order" in notes, notes


def test_a_monitor_file_with_missing_returns_is_named_truly(tmp_path):
    """SB3's monitor.csv with an 'r' column whose one value is NaN was refused with "missing tag: no 'r'; it logs
    'l'". The file has the column; the message must say its values are missing, not that the column is."""
    _log(tmp_path, "a/t/seed_0/0.monitor.csv", '#{"t_start": 1.0, "env_id": "X"}\nr,l,t\nnan,10,0.1\n')
    # audit s15: the episode's NaN return is a row (a value logged as NaN), and the notes say its value is NaN
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/seed_{seed}", progress=False)
    assert frame["step"].tolist() == [10] and frame["r"].isna().all()
    assert "1 value of 'r' is NaN" in " ".join(frame.attrs["rlstats_notes"])


# ----------------------------------------------------------------------------- found while fixing


def test_mixed_interval_at_a_level_in_percent_is_named_not_advised():
    """``rlstats.mixed(...).confidence_interval(confidence_level=95)`` answered 'rerun rlstats.mixed(...,
    confidence_level=95)', advice that mixed itself refuses; the level must be checked as mixed checks it."""
    result = rlstats.mixed(TINY, "score ~ agent | task", rng=0)
    with pytest.raises(OptionError, match="pass confidence_level=0.95"):
        result.confidence_interval(confidence_level=95)
    with pytest.raises(OptionError, match="confidence_level must be strictly between 0 and 1"):
        result.confidence_interval(confidence_level=0)


@pytest.mark.parametrize("rng, phrase", [("abc", "got str"), (-1, "non-negative"), (1.5, "got float"),
                                         (np.random.RandomState(0), "the legacy np.random.RandomState")],
                         ids=["text", "negative", "float", "RandomState"])
def test_rank_test_refuses_a_bad_rng_whatever_its_pvalue(rng, phrase):
    """``rlstats.compare(df, 'score ~ agent | task', rng=np.random.RandomState(0))`` (the default method, the rank
    test, with its default p-value) ran without a word, where every other back end refuses a legacy RandomState
    or a text seed: the rng went unchecked when the p-value drew nothing."""
    with pytest.raises(OptionError, match=phrase):
        rlstats.compare(TINY, "score ~ agent | task", rng=rng)


def test_percentiles_refuse_a_bad_rng_whatever_their_interval():
    """``rlstats.percentiles(df, f, rng='abc')`` with its default (asymptotic) interval ran without a word, as the
    rank test did: the rng was checked only where the bootstrap interval draws."""
    with pytest.raises(OptionError, match="rng must be"):
        rlstats.percentiles(TINY, "score ~ agent | task", rng="abc")


@pytest.mark.parametrize("make", ["pyarrow decimal", "polars Decimal"])
def test_a_decimal_score_column_gets_advice_that_works(make):
    """A score column of decimals (a pyarrow decimal128 column, or a polars Decimal one, from a database) was
    refused with 'the response must be numeric. Convert it first, e.g. df['score'] = pd.to_numeric(df['score'])';
    pd.to_numeric leaves a pyarrow decimal column as it is (dtype object), so the advice went round in a circle.
    The message must say what converts it: astype(float)."""
    pa = pytest.importorskip("pyarrow")
    if make == "pyarrow decimal":
        data = TINY.assign(score=TINY["score"].round(3).astype(pd.ArrowDtype(pa.decimal128(12, 4))))
    else:
        pl = pytest.importorskip("polars")
        data = pl.from_pandas(TINY.assign(agent=TINY["agent"].astype(str), task=TINY["task"].astype(str)))
        data = data.with_columns(pl.col("score").cast(pl.Decimal(12, 4)))
    way = r"astype\(float\)" if make == "pyarrow decimal" else r"pl\.col\('score'\)\.cast\(pl\.Float64\)"  # s31
    with pytest.raises(rlstats.FormulaError, match=r"holds decimals .*" + way):
        rlstats.bootstrap(data, "score ~ agent | task", n_resamples=50, rng=0)


def test_a_seed_beyond_int64_in_a_run_folder_name(tmp_path):
    """Runs in folders ``seed_12345678901234567890`` (an unsigned 64-bit seed, as some launchers draw) made
    read_logs raise OverflowError ('Python int too large to convert to C long'): the seed, written in digits,
    was cast to int64. It must be read (as text, the digits written), not crash."""
    for agent in ("a", "b"):
        _log(tmp_path, f"{agent}/t/seed_12345678901234567890/progress.csv", "step,eval/return\n0,1\n10,2\n")
    frame = rlstats.read_logs(tmp_path, "{agent}/{task}/seed_{seed}", progress=False)
    assert set(frame["seed"].astype(str)) == {"12345678901234567890"}


def test_a_marl_eval_step_count_beyond_int64(tmp_path):
    """A marl-eval JSON whose step_count is 10**23 raised OverflowError in read_logs instead of the LogReadError
    naming the file and the value that other corrupt step counts get."""
    import json

    layout = {"env": {"task": {"algo": {"0": {"step_0": {"step_count": 99999999999999999999999, "return": [1.0]},
                                              "step_1": {"step_count": 10, "return": [2.0]}}}}}}
    _log(tmp_path, "metrics.json", json.dumps(layout))
    with pytest.raises(rlstats.LogReadError, match="step_count is '99999999999999999999999'"):
        rlstats.read_logs(tmp_path, progress=False)


@pytest.mark.parametrize("library", ["polars", "pyarrow"])
def test_power_takes_a_polars_or_pyarrow_pilot(library):
    """``rlstats.power('skillings_mack', design=<a polars DataFrame>, ...)`` was refused with 'design must be None
    (simulated data) or a pilot DataFrame of runs, got DataFrame' (a DataFrame refused for not being one), where
    every other public function taking a frame takes polars and pyarrow tables."""
    module = pytest.importorskip(library)
    frame = TINY.assign(agent=TINY["agent"].astype(str), task=TINY["task"].astype(str))
    pilot = module.from_pandas(frame) if library == "polars" else module.Table.from_pandas(frame)
    result = rlstats.power("skillings_mack", design=pilot, formula="score ~ agent | task", seeds=[3], n_sim=4,
                           progress=False, rng=0)
    expected = rlstats.power("skillings_mack", design=frame, formula="score ~ agent | task", seeds=[3], n_sim=4,
                             progress=False, rng=0)
    pd.testing.assert_frame_equal(result.table, expected.table)


@pytest.mark.parametrize("function, options, phrase", [
    ("task_table", {}, "its tests' p-values are the p_value column of tidy()"),
    ("bootstrap", {"n_resamples": 50}, "it reports no p-value"),
])
def test_p_value_of_a_result_without_one_says_where_to_look(function, options, phrase):
    """``res.p_value`` (R's p.value, a property of every result) on a task table raised "'TaskTableResult' object
    has no attribute 'pvalue'. Did you mean: 'p_value'?": the name typed suggested back, and no word of the
    per-task p-values in tidy(). It stays an AttributeError (hasattr works) with a message that says where."""
    result = getattr(rlstats, function)(TINY, "score ~ agent | task", rng=0, **options)
    with pytest.raises(AttributeError, match=phrase):
        result.p_value
    assert not hasattr(result, "p_value")

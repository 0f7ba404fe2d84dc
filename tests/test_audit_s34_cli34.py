"""Audit s34 cli34: every suggestion the command line prints is a command it then takes.

Last session fixed compare's unknown-flag hints (tests/test_audit_s33_cli33b.py); ``rlstats power`` still suggested
``-o adjust=holm`` to ``power bootstrap``, which refuses it; ``--method mixed --alpha 0.1`` listed the methods taking
alpha= but not mixed's own ``-o confidence_level=0.9``; a suggested value was never checked (``--alternative greater``
to equivalence, whose alternative= refuses it); power's raw-scales warning named Python's rlstats.normalize() on the
command line. Each suggestion is run here (in process, :func:`conftest.cli_run`).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from conftest import cli_run, cli_shell

F = "score ~ agent | task/seed"
#: a power study small enough to run in a fraction of a second
SMALL = ["--n-sim", "4", "--seeds", "3", "--tasks", "3", "--seed", "0", "--no-progress"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """3 agents x 3 tasks x 3 seeds of final scores; and 2 agents x 3 tasks x 4 seeds on scales 1, 100 and 1000."""
    rng = np.random.default_rng(0)
    folder = tmp_path_factory.mktemp("cli34")
    rows = [(a, t, s, round(float(rng.normal(i, 1)), 6)) for i, a in enumerate("XYZ")
            for t in ("ant", "hopper", "walker") for s in range(3)]
    pd.DataFrame(rows, columns=["agent", "task", "seed", "score"]).to_csv(folder / "final.csv", index=False)
    rows = [(a, t, s, round(float((rng.normal(i, 1) + 5) * scale), 6)) for i, a in enumerate("XY")
            for t, scale in (("ant", 1), ("hopper", 100), ("walker", 1000)) for s in range(4)]
    pd.DataFrame(rows, columns=["agent", "task", "seed", "score"]).to_csv(folder / "scales.csv", index=False)
    return {"final": folder / "final.csv", "scales": folder / "scales.csv"}


def _refusal(argv):
    status, out, err = cli_run(*argv)
    assert status == 2 and out == "", err
    return err.strip().splitlines()[-1]


#: an -o item a message suggests: -o NAME=VALUE, the value up to the end of the word
_ITEM = re.compile(r"(?<![\w-])(?<!e\.g\. )-o ([A-Za-z_]\w*=[^\s;,)?]+)")  # not an example's ("e.g. -o ...")


#: a flag a message suggests: "pass --FLAG VALUE" (power's own flags, e.g. --alpha)
_FLAG = re.compile(r"^pass (--[a-z][\w-]*) ([^\s;,)?]+)$")


def _suggested(message, command):
    """Each command the refusal ``message`` suggests: (the method it runs, None for the one typed; the words it adds),
    one per clause: "pass -o NAME=VALUE", "pass --FLAG VALUE", "(did you mean -o NAME=VALUE?)" and
    "--method a, b do (-o NAME=VALUE)" (``rlstats power a does`` for power), whose first method is run. A clause
    that suggests something but whose words are not read here fails (no suggestion is passed over)."""
    said = message.split("unrecognized arguments: ", 1)[-1]
    other = r"--method ([a-z_]+)[a-z_, ]* do(?:es)? \(" if command == "compare" else \
        r"rlstats power ([a-z_]+)[a-z_, ]* do(?:es)? \("
    found = []
    for clause in said.split("; "):
        method = re.search(other, clause)
        refusal = any(word in clause for word in (" is not one of ", " is neither ", " must be "))
        if method is None and (refusal or not clause.startswith("pass ") and "did you mean" not in clause):
            continue  # no suggestion: a refusal quoted ("-o alternative=greater is not one of ...")
        words = [word for item in _ITEM.findall(clause) for word in ("-o", item)]
        flag = _FLAG.match(clause)
        words += list(flag.groups()) if flag else []
        assert words, f"a suggestion not read: {clause!r}"
        found.append((method.group(1) if method else None, words))
    return found


#: what a method needs beside the option to run on final.csv (equivalence: a margin and a control)
_NEEDS = {"equivalence": ["-o", "margin=0.5", "-o", "control=X"], "bootstrap": ["-o", "n_resamples=50"],
          "task_table": [], "performance_profile": ["-o", "n_resamples=50"],
          "probability_of_improvement": ["-o", "n_resamples=50"]}

#: (the method run, the flags typed, how many suggestions the refusal makes). No suggestion (0) where nothing would
#: take the value: the value is refused with the allowed ones, or no method takes the option (no compare method takes
#: metric=: bootstrap's is metrics=, task_table's statistic=, and neither is a spelling habit of metric=).
COMPARE_CASES = [
    ("skillings_mack", ["--adjust", "holm"], 2),
    ("skillings_mack", ["--confidence-level", "0.9"], 2),
    ("skillings_mack", ["--conf.level", "0.9"], 1),
    ("skillings_mack", ["--alternative", "greater"], 0),
    ("skillings_mack", ["--metric", "iqm"], 0),
    ("bootstrap", ["--alternative", "greater"], 0),
    ("bootstrap", ["--alpha", "0.1"], 2),
    ("bootstrap", ["--p.adjust", "bonferroni"], 1),
    ("mixed", ["--alpha", "0.1"], 2),
    ("mixed", ["--adjustment", "holm"], 2),
    ("mixed", ["--adjust", "sidak"], 1),
    ("equivalence", ["--alternative", "greater"], 0),
    ("equivalence", ["--alternative", "noninferior"], 1),
    ("equivalence", ["--confidence-level", "0.9"], 2),
    ("task_table", ["--alpha", "0.1"], 1),
    ("task_table", ["--adjust", "holm"], 2),
    ("skillings_mack", ["--normalize", "minmax"], 1),
    ("bootstrap", ["--normalize", "minmaxx"], 0),
    ("tuning", ["--views", "nonsense"], 0),
]

POWER_CASES = [  # (METHOD, the flags typed, how many suggestions)
    ("bootstrap", ["--adjust", "holm"], 0),
    ("bootstrap", ["--adjustment", "holm"], 1),
    ("bootstrap", ["--p.adjust", "holm"], 1),
    ("bootstrap", ["--posthoc", "ranks"], 1),
    ("bootstrap", ["--alternative", "greater"], 0),
    ("skillings_mack", ["--metric", "iqm"], 1),
    ("skillings_mack", ["--confidence-level", "0.9"], 2),  # pass --alpha 0.1 (a flag); bootstrap's confidence_level=
    ("permutation", ["--adjustment", "holm"], 1),
    ("skillings_mack", ["--pvalue", "exact"], 1),
    ("skillings_mack", ["--adjustment", "nonsense"], 0),
    ("bootstrap", ["--metric", "median"], 1),
    ("bootstrap", ["--metric", "nonsense"], 0),  # audit s35 small35: power's own metric= checked as power reads it
]

#: what a refusal with no suggestion says instead (the reason nothing is suggested)
_NONE_SAID = {
    "skillings_mack --alternative greater": "-o alternative=greater is not one of the allowed values",
    "skillings_mack --metric iqm": "--metric iqm; see rlstats compare --help",
    "bootstrap --alternative greater": "-o alternative=greater is not one of the allowed values",
    "equivalence --alternative greater": "-o alternative=greater is not one of the allowed values",
    "bootstrap --normalize minmaxx": "-o normalize=minmaxx is neither a dataset of reference scores",
    "tuning --views nonsense": "each must be one of 'expected_max', 'best_set', 'complete', 'sensitivity'",
    "power bootstrap --adjust holm": "nor does any method rlstats power simulates",
    "power bootstrap --alternative greater": "nor does any method rlstats power simulates",
    "power skillings_mack --adjustment nonsense": "-o adjustment=nonsense is not one of the allowed values",
    "power bootstrap --metric nonsense": "metric 'nonsense' is not one of the built-in metrics",
}


def _cases(cases):
    return [pytest.param(method, typed, count, id=f"{method} {' '.join(typed)}") for method, typed, count in cases]


def _accepted(argv):
    status, out, err = cli_run(*argv)
    assert status == 0, (argv, err)


@pytest.mark.parametrize("method, typed, count", _cases(COMPARE_CASES))
def test_every_compare_suggestion_is_taken(files, method, typed, count):
    message = _refusal(["compare", files["final"], F, "--method", method, *typed])
    suggestions = _suggested(message, "compare")
    assert len(suggestions) == count, message
    if count == 0:
        assert _NONE_SAID[f"{method} {' '.join(typed)}"] in message, message
    for suggested, extra in suggestions:
        run = suggested or method
        _accepted(["compare", files["final"], F, "--method", run, *extra, *_NEEDS.get(run, []), "--seed", "0",
                   "--no-progress"])


@pytest.mark.parametrize("method, typed, count", _cases(POWER_CASES))
def test_every_power_suggestion_is_taken(method, typed, count):
    message = _refusal(["power", method, *SMALL, *typed])
    suggestions = _suggested(message, "power")
    assert len(suggestions) == count, message
    if count == 0:
        assert _NONE_SAID[f"power {method} {' '.join(typed)}"] in message, message
    for suggested, extra in suggestions:
        extra = list(extra)
        if (suggested or method) == "bootstrap" and not any(word.startswith("n_resamples=") for word in extra):
            extra += ["-o", "n_resamples=50"]
        _accepted(["power", suggested or method, *SMALL, *extra])


def test_power_bootstrap_adjust_names_what_power_takes():
    message = _refusal(["power", "bootstrap", *SMALL, "--adjust", "holm"])
    assert "did you mean -o adjust=holm" not in message
    assert ("--adjust holm; rlstats power bootstrap takes no adjust=, nor does any method rlstats power simulates "
            "(skillings_mack, adastop, permutation, bootstrap); see rlstats power --help") in message, message
    message = _refusal(["power", "bootstrap", *SMALL, "--adjustment", "holm"])
    assert ("--adjustment holm; rlstats power bootstrap takes no adjustment=; rlstats power skillings_mack does "
            "(-o adjustment=holm)") in message, message


def test_alpha_to_mixed_offers_its_confidence_level(files):
    message = _refusal(["compare", files["final"], F, "--method", "mixed", "--alpha", "0.1"])
    assert ("--alpha 0.1; --method mixed has no option alpha=: its name here is -o confidence_level= (alpha= is the "
            "error rate other rlstats functions take; confidence_level = 1 - alpha); pass -o confidence_level=0.9; "
            "--method skillings_mack") in message, message
    _accepted(["compare", files["final"], F, "--method", "mixed", "-o", "confidence_level=0.9"])


def test_alpha_to_a_function_of_confidence_level_in_python():
    from rlstats.errors import OptionError
    from rlstats.options import unknown_option_error

    error = unknown_option_error("mixed()", "alpha", 0.1, ["ddf", "adjust", "confidence_level"])
    assert isinstance(error, OptionError)
    assert str(error) == ("mixed() has no option alpha=: its name here is confidence_level= (alpha= is the error rate "
                          "other rlstats functions take; confidence_level = 1 - alpha); pass confidence_level=0.9")
    error = unknown_option_error("skillings_mack()", "confidence_level", 0.95, ["alpha", "pvalue"])
    assert str(error).endswith("pass alpha=0.05")


def test_a_suggested_value_is_checked(files):
    message = _refusal(["compare", files["final"], F, "--method", "equivalence", "--alternative", "greater"])
    assert "did you mean -o alternative=greater" not in message
    assert ("--alternative greater; -o alternative=greater is not one of the allowed values: 'equivalence', "
            "'noninferior'; see rlstats compare --help") in message, message
    message = _refusal(["compare", files["final"], F, "--method", "bootstrap", "--alternative", "greater"])
    assert "(-o alternative=greater)" not in message
    assert ("--alternative greater; --method bootstrap takes no alternative=; --method equivalence does, but not "
            "this value: -o alternative=greater is not one of the allowed values: 'equivalence', 'noninferior'"
            ) in message, message
    # a value the option takes is suggested as before
    message = _refusal(["compare", files["final"], F, "--method", "equivalence", "--alternative", "noninferior"])
    assert "(did you mean -o alternative=noninferior?)" in message


def test_power_raw_scales_warning_names_the_command_line_way(files):
    done = cli_shell("power", "bootstrap", "--pilot", files["scales"], "--formula", F, "--n-sim", "4",
                     "--seeds", "3", "--seed", "0", "--no-progress", "-o", "n_resamples=50")
    err = done.stderr
    assert done.returncode == 0, err
    warned = [line for line in err.splitlines() if "own scales" in line]
    assert warned and "rlstats.normalize(" not in warned[0], err
    assert "rerun with --normalize REFERENCE" in warned[0], warned[0]
    # the way it names runs: min-max normalised, the warning goes
    done = cli_shell("power", "bootstrap", "--pilot", files["scales"], "--formula", F, "--n-sim", "4",
                     "--seeds", "3", "--seed", "0", "--no-progress", "-o", "n_resamples=50", "--normalize", "minmax")
    assert done.returncode == 0, done.stderr
    assert "own scales" not in done.stderr and "normalised" in done.stdout, done.stdout


def test_power_raw_scales_warning_in_python_names_normalize(files):
    import rlstats

    pilot = pd.read_csv(files["scales"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rlstats.power("bootstrap", design=pilot, formula=F, seeds=[3], n_sim=4, rng=0, progress=False,
                      n_resamples=50)
    said = [str(w.message) for w in caught if "own scales" in str(w.message)]
    assert said and "normalise the pilot first, rlstats.normalize(pilot, reference), and give that as design=" in said[0]


def test_pwr_spellings_have_one_home():
    """pwr's power= and n= are read from options.HABITS alone (audit s34): planning's ways on are keyed by the option
    the other function takes, and their messages are as before."""
    import rlstats
    from rlstats.errors import OptionError
    from rlstats.options import HABITS
    from rlstats.planning import _api

    assert {name for name, _ in _api._ANSWERED} == {"target_power", "seeds", "data", "pilot"}
    assert HABITS["power"][1] == ("target_power",) and HABITS["n"][1] == ("seeds",)
    with pytest.raises(OptionError, match=re.escape("power=0.9: power() estimates the power at the seeds given; for "
                                                    "the fewest seeds that reach a power of 0.9, call sample_size(..., "
                                                    "target_power=0.9)")):
        rlstats.power("skillings_mack", n_sim=4, power=0.9)
    with pytest.raises(OptionError, match=re.escape("n=10: sample_size() searches the number of seeds itself")):
        rlstats.sample_size("skillings_mack", 0.8, n_sim=4, n=10)

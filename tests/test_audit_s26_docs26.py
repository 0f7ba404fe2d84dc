"""Audit s26 (docs26): the documentation site read as a new user, every claim checked against the code today.

Each test is the reproducer of one wrong claim found; its docstring says what the page said and what the code does.
"""

import inspect
import re
from pathlib import Path

import pytest

import rlstats
import rlstats.datasets

ROOT = Path(__file__).resolve().parent.parent


def _public_functions():
    found = [(f"rlstats.{n}", getattr(rlstats, n)) for n in rlstats.__all__]
    found += [(f"rlstats.datasets.{n}", getattr(rlstats.datasets, n)) for n in rlstats.datasets.__all__]
    return [(name, obj) for name, obj in found if inspect.isfunction(obj)]


HEADING = re.compile(r"^(\S[^\n]*)\n(-{3,})$", re.M)


def _parameters_section_wrong(function):
    """What numpydoc reads wrong in ``function``'s Parameters (read here as numpydoc reads it, which needs a blank
    line before a section's heading; numpydoc itself is only in the docs extra): names it lists that are no
    parameter, parameters it leaves out, entries without a word of description, a heading run into the text above."""
    doc = inspect.getdoc(function)
    wrong = [f"no blank line before {m.group(1)!r}" for m in HEADING.finditer(doc)
             if len(m.group(1)) == len(m.group(2)) and doc[:m.start()].splitlines()[-1:] not in ([], [""])]
    found = re.search(r"^Parameters\n-{10}\n(.*?)(?:\n\n(?=\S[^\n]*\n-{3,}\n)|\Z)", doc, re.S | re.M)
    body = found.group(1).splitlines() if found else []
    entries = []  # (names, description lines)
    for line in body:
        if line and not line.startswith(" "):
            entries.append((line.split(" : ")[0], []))
        elif entries:
            entries[-1][1].append(line.strip())
    signature = inspect.signature(function).parameters
    wanted = {("**" if p.kind is p.VAR_KEYWORD else "") + name for name, p in signature.items()}
    listed = set()
    for header, description in entries:
        names = {name.strip() for name in header.split(",") if name.strip()}
        listed |= names
        wrong += [f"lists {name!r}, no parameter" for name in sorted(names - wanted)]
        if not " ".join(description).strip():
            wrong.append(f"{header!r} without a description")
    wrong += [f"leaves out {name!r}" for name in sorted(wanted - listed)]
    return wrong


@pytest.mark.parametrize("name, function", _public_functions(), ids=[name for name, _ in _public_functions()])
def test_api_page_documents_every_parameter_once(name, function):
    """The API pages of ``task_table`` and ``tuning`` listed "Returns", "-------" and "TaskTableResult" as
    parameters and had no Returns section (no blank line before the heading); ``summarize_runs`` listed a sentence
    as a parameter; ``sample_size``'s list of the options shared with ``power`` broke over two lines, so the
    second half read as the first half's description; ``task_table``, ``tuning`` and ``summarize_runs`` never said
    what ``na_action=`` does, five functions left ``eval_env=`` out and ``simulate_curves`` ``max_step=``; eighteen
    entries (``eval_env``, ``na_action``, ``confidence_level``, ``data``, ...) had no description."""
    assert _parameters_section_wrong(function) == []


def _words(path):
    return " ".join((ROOT / path).read_text(encoding="utf-8").split())


def _loaded_or_skip(name):
    try:
        return rlstats.datasets.load(name)
    except rlstats.DataUnavailableError as error:
        pytest.skip(f"{name} not on this machine: {error}")


def test_readme_counts_the_spinningup_runs_of_each_agent():
    """README's Data item: ``load("spinningup_halfcheetah")`` "(SAC and TD3, 193 runs x 400 evaluations)"; the
    loader gives 386 runs, 193 of each agent (its description: "193 runs each"), 400 evaluation steps."""
    curves = _loaded_or_skip("spinningup_halfcheetah")
    runs = curves.groupby("agent")["seed"].nunique().to_dict()
    evaluations = curves["step"].nunique()
    assert runs == {"SAC": 193, "TD3": 193} and evaluations == 400
    assert f"(SAC and TD3, {runs['SAC']} runs each x {evaluations} evaluations)" in _words("README.md")


def test_readme_says_what_ci_runs_last_and_which_interval_was_timed():
    """README, "Run the tests": ".ci/run ... Last, it rehearses a release"; .ci/run's last step is the conda
    recipe's check (README's conda section says so: "The last step of .ci/run, .ci/recipe-check"). And the
    Bootstrap item quoted "on Atari 100k 20-26x faster than rliable on one core and 22-24x with n_jobs=2" of the
    bootstrap, whose default is the studentised interval; benchmarks/README.md measured those ratios on the four
    metrics' percentile intervals (rliable has no studentised one): the ranges below are read from its table."""
    steps = re.findall(r'^step "([^"]+)"', (ROOT / ".ci" / "run").read_text(encoding="utf-8"), re.M)
    assert steps[-2].startswith("release rehearsal") and steps[-1].startswith("conda recipe")
    readme = _words("README.md")
    assert "Last, it rehearses a release" not in readme
    assert "Then it rehearses a release" in readme and "last, `.ci/recipe-check`" in readme

    benchmarks = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    now = benchmarks[benchmarks.index("### Now (main at e39575b"):]
    row = re.search(r"^\| four aggregate metrics, percentile \|([^\n]+)", now, re.M).group(1).split("|")
    one, two = (re.fullmatch(r"\s*([\d.]+)-([\d.]+)x\s*", row[i]).groups() for i in (1, 3))
    quoted = [f"{round(float(low))}-{round(float(high))}x" for low, high in (one, two)]
    assert quoted == ["20-26x", "22-24x"]
    assert (f"its percentile intervals (`interval=\"percentile\"`) on Atari 100k {quoted[0]} faster than rliable on "
            f"one core and {quoted[1]} with `n_jobs=2`") in readme


def _appended_scripts():
    """The scripts ``tests/reference/calibrate.py``'s ``APPENDED`` names (procedure -> script or scripts)."""
    import ast

    tree = ast.parse((ROOT / "tests" / "reference" / "calibrate.py").read_text(encoding="utf-8"))
    value = next(node.value for node in tree.body if isinstance(node, ast.Assign)
                 and any(getattr(target, "id", None) == "APPENDED" for target in node.targets))
    scripts = []
    for script in ast.literal_eval(value).values():
        scripts += [script] if isinstance(script, str) else list(script)
    return sorted(set(scripts))


def test_map_names_every_script_that_appends_calibration_rows():
    """rlstats/README.md: calibration.csv is written by calibrate.py "with the rows other scripts append, `APPENDED`
    there: ..." and named coverage_tuning_real.py, size_equivalence_mean.py and size_equivalence_spread.py;
    APPENDED also names coverage_curves_fresh.py (the curves' bands at 8 agents) and coverage_one_task.py (the
    bootstrap's default on one task), and since audit s28 (gapkinds28) coverage_curves_gap.py (the curves'
    optimality-gap bands of agents at or below gamma; the map named it since docs28), and since audit s28 (gapboot28)
    coverage_bootstrap_gap.py (the bootstrap's default gap interval of such agents)."""
    scripts = _appended_scripts()
    # s28: coverage_curves_early (early28) and coverage_bootstrap_gap (gapboot28) beside the six before; s32:
    # size_equivalence_incomplete (cal32); s33: coverage_fcr_difference and coverage_mixed_adjust (calib33); s34:
    # coverage_far_apart (iqmfar34) and coverage_mixed_unbalanced (mixbal34); s35: coverage_apart_by_chance
    # (farapart35); s36: coverage_mixed_spreads (calib36)
    assert len(scripts) == 15 and all((ROOT / "tests" / "reference" / f"{s}.py").is_file() for s in scripts)
    text = _words("rlstats/README.md")
    start = text.index("with the rows other scripts append, `APPENDED` there")
    sentence = text[start:text.index("); back ends quote its rows", start)]
    assert [s for s in scripts if f"`{s}.py`" not in sentence] == []


def test_rliable_page_counts_the_intervals_of_the_studentised_rows():
    """docs/rliable.md: the studentised interval was "Measured on 480 intervals a row (1,920 where a row was within 2
    standard errors of missing)" on 5 and 26 tasks; 11 of its 128 rows there, all of capped runs, count 282 to 1,455
    (intervals withheld where runs sit at the cap are not given)."""
    from rlstats import calibration

    rows = [row for row in calibration.rows("bootstrap.interval") if row["interval"] == "studentized"
            and row["tasks"] in ("5", "26") and row["metric"] != "probability_of_improvement"
            and not row.get("configuration")]
    odd = [row for row in rows if row["n_sim"] not in ("480", "1920")]
    assert len(rows) == 128 and len(odd) == 11 and {row["distribution"] for row in odd} == {"capped"}
    page = _words("docs/rliable.md")
    assert ("Measured on 480 intervals a row (1,920 where a row was within 2 standard errors of missing; fewer in "
            f"{len(odd)} rows of capped runs, where intervals are withheld)") in page


def test_improvement_docstring_quotes_every_measured_row():
    """``probability_of_improvement``'s API page: the score interval "covered 0.92-0.98 from 3 to 20 runs per task
    (0.89 in the worst design draw), where percentile ones covered 0.84-1.00": issue 40's rows on 1, 5 and 26 tasks.
    The table has had 2-task rows since audit s24, and README and the rliable page quote all 64: the worst draw is
    0.88 (2 tasks x 3 skewed runs) and the percentile interval's lowest 0.78. Read here from the table."""
    from rlstats import calibration

    rows = [row for row in calibration.rows("bootstrap.interval") if row["metric"] == "probability_of_improvement"
            and int(row["runs"]) >= 3]
    score = [row for row in rows if row["interval"] == "score"]
    percentile = [row for row in rows if row["interval"] == "percentile"]
    assert len(score) == len(percentile) == 64 and {row["tasks"] for row in score} == {"1", "2", "5", "26"}
    low, high = (f(float(row["coverage"]) for row in score) for f in (min, max))
    worst = min(score, key=lambda row: float(row["coverage_min"]))
    shortest = min(float(row["coverage"]) for row in percentile)
    quoted = (f"covered {low:.2f}-{high:.2f} from 3 to 20 runs per task on 1, 2, 5 and 26 tasks "
              f"({float(worst['coverage_min']):.2f} in the worst design draw, at {worst['tasks']} tasks x "
              f"{worst['runs']} {worst['distribution']} runs), where percentile ones covered {shortest:.2f}-1.00")
    assert quoted in " ".join(inspect.getdoc(rlstats.probability_of_improvement).split())


def test_readme_names_what_the_test_extra_brings():
    """README, "Run the tests": "The test extra brings everything the tests import (pytest and pytest-xdist,
    hypothesis, statsmodels as an independent reference, dask, pyarrow, tensorboard and tensorboardX)"; setup.cfg's
    test extra also brings polars, fsspec, baycomp, markdown-it-py, mypy, pyright, pandas-stubs, typing_extensions,
    setuptools and tomli. The list is read from setup.cfg."""
    import configparser

    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    wanted = [re.match(r"[A-Za-z0-9_.-]+", line.strip()).group(0)
              for line in config["options.extras_require"]["test"].strip().splitlines()]
    readme = _words("README.md")
    start = readme.index("The test extra brings")
    paragraph = readme[start:readme.index("The default run", start)]
    # each as a name of its own: "pytest" is not named by "pytest-xdist" (review26b)
    assert [name for name in wanted if not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", paragraph)] == []


def test_calibration_page_states_the_runs_the_table_measures():
    """docs/calibration.md's opening: the grid has "2 to 8 agents, 1 to 26 tasks, 2 to 20 runs per cell, and four
    kinds of scores". The table holds rows at 1 run per cell (the rank test's size and post hoc, Friedman's case, and
    bayes' decisions: 132 rows), the bootstrap's one-task rows from 30 to 200 runs (160 rows), and scores beyond
    the four kinds (runs mostly at a cap, ``saturated``; real tuning sweeps, ``real_dierkes2024``)."""
    table = rlstats.calibration_table()
    comparisons = table[table["agents"].fillna(2) >= 2]
    beyond = table[table["runs"] > 20]
    cut = comparisons["configuration"].astype(str).str.startswith(rlstats.calibration.RUNS_CUT)  # early28: 10 alike agents a data set
    cut |= comparisons["configuration"] == rlstats.calibration.FAR_APART  # iqmfar34: 10 too
    assert (comparisons["agents"].min(), comparisons[~cut]["agents"].max(), comparisons[cut]["agents"].max()) == (2, 8, 10)
    assert (table["tasks"].min(), table["tasks"].max()) == (1, 26)
    # audit s36 (calib36): equivalence's decision that the runs rule out unlike spreads, one task at 20-100 runs
    assert table["runs"].min() == 1 and set(beyond["tasks"]) == {1} and set(beyond["procedure"]) == {
        "bootstrap.interval", "equivalence.spread_ruled_out"}
    assert {"saturated", "real_dierkes2024"} <= set(table["distribution"])
    page = _words("docs/calibration.md")
    assert (f"2 to 8 agents (10 alike agents in the curves' rows of runs cut short and of tasks far apart), 1 to 26 tasks, 1 to 20 runs per cell (to {beyond['runs'].max()} on one task), and four "
            "kinds of scores (with, for some procedures, runs mostly at a cap and real tuning sweeps)") in page


def test_compare_docstring_says_a_categorical_order_draws_the_same_numbers():
    """``rlstats.compare``'s API page: random streams "are drawn in the order of the agents and tasks (sorted names,
    or a categorical's order)". Since the streams are keyed by the names' places among the names sorted
    (``resampling.label_ranks``; the map, and ``permutation``'s own docstring, say so), a Categorical's category
    order draws the same numbers: the Monte Carlo p-value below is equal to the last bit."""
    import pandas as pd

    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=4, effect=0.3, rng=0)
    reordered = df.assign(agent=pd.Categorical(df["agent"], categories=["agent_3", "agent_1", "agent_2"]),
                          task=pd.Categorical(df["task"], categories=sorted(df["task"].unique(), reverse=True)))
    options = {"pvalue": "monte_carlo", "n_resamples": 999, "rng": 0}
    assert (rlstats.compare(df, "score ~ agent | task", **options).pvalue
            == rlstats.compare(reordered, "score ~ agent | task", **options).pvalue)
    doc = " ".join(inspect.getdoc(rlstats.compare).split())
    assert "or a categorical's order" not in doc
    assert "in the order of the agents' and tasks' names sorted (a Categorical's category order changes none;" in doc


#: the files every back-end folder may hold, which the map names once for all (``methods/<backend>/``)
FOLDER_FILES = {"__init__.py", "_api.py", "_backend.py", "_kernels.py", "_power.py", "_result.py", "plots.py"}


def test_map_names_every_module_of_the_package():
    """rlstats/README.md, "the layout for a newcomer", named neither ``methods/bootstrap/_small_runs.py`` (the
    studentised default and what simulation measured at few runs), ``methods/selection/_planning.py`` (how many
    held-out tasks, the paper's simulations), ``methods/adastop/_defaults.py`` (the defaults the command line's help
    shows without importing the back end), ``logs/_pieces.py`` (what every log reader returns), the command line's
    ``cli/adastop.py`` and ``cli/logs.py`` ("one module per command group", unnamed) nor ``__main__.py``
    (``python -m rlstats``): seven modules. A name counts where it stands as one, not inside another file's name
    (review26b: ``methods/task_table/_calibration.py`` passed on ``benchmarks/cost_calibration.py``)."""
    text = (ROOT / "rlstats" / "README.md").read_text(encoding="utf-8")
    package = ROOT / "rlstats"
    unnamed = [str(path.relative_to(package)) for path in sorted(package.rglob("*.py"))
               if not re.search(r"(?<![\w.-])" + re.escape(path.name), text)
               and not (path.parent.parent.name == "methods" and path.name in FOLDER_FILES)]
    assert unnamed == []


def test_readme_lists_every_page_of_the_site():
    """README: "The documentation site (a landing page, "which method for my data?", API reference, the vignettes as
    an executed gallery ..., a page per back end, pages for R and rliable users)"; the landing page's table of
    contents (docs/index.md) also holds the calibration table's page and the overview (this README)."""
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    toctree = re.search(r"```\{toctree\}\n(.*?)```", index, re.S).group(1).splitlines()
    pages = [line.strip() for line in toctree if line.strip() and not line.startswith(":")]
    said = {"which_method": '"which method for my data?"', "overview": "this README as its overview",
            "generated/gallery/index": "executed gallery", "generated/backends/index": "a page per back end",
            "r_users": "pages for R and rliable users", "rliable": "pages for R and rliable users",
            "calibration": "the calibration table's page", "generated/api": "API reference"}
    assert sorted(pages) == sorted(said)
    readme = _words("README.md")
    listing = readme[readme.index("The documentation site ("):readme.index("builds from a plain clone")]
    assert [page for page in pages if said[page] not in listing] == []


def test_readme_says_d4rl_scores_are_a_fraction():
    """README's Data item said ``"d4rl_reference"`` gives "D4RL's normalised score"; D4RL's tables print
    100 * (score - random) / (expert - random) (rlstats/datasets/_d4rl_reference.py), and ``normalize`` gives the
    fraction, 0 random and 1 expert (hopper-medium-v2: the expert's score normalises to 1, not 100)."""
    import pandas as pd

    reference = rlstats.datasets.load("d4rl_reference").set_index("task").loc["hopper-medium-v2"]
    runs = pd.DataFrame({"agent": ["a", "b"], "task": "hopper-medium-v2", "seed": 0,
                         "score": [reference["random"], reference["expert"]]})
    assert rlstats.normalize(runs, "d4rl_reference")["score"].tolist() == [0.0, 1.0]
    assert ("`\"d4rl_reference\"` D4RL's normalised score as a fraction, 0 random and 1 expert (D4RL's tables print "
            "100 times it;") in _words("README.md")


def _result_methods():
    """(qualified name, function) of the public methods of the package face's classes whose docstrings have
    Parameters (what ``help(res.report)`` shows)."""
    found = {}
    for name in rlstats.__all__:
        cls = getattr(rlstats, name)
        if inspect.isclass(cls):
            for method_name, method in inspect.getmembers(cls, inspect.isfunction):
                if not method_name.startswith("_") and "Parameters\n---" in (inspect.getdoc(method) or ""):
                    found.setdefault(method.__qualname__, method)
    return sorted(found.items())


def test_result_methods_document_every_parameter_once():
    """``help(res.report)``: the paragraph after ``format``'s entry ("A seed drawn by NumPy ... keep all of it.") was
    read as two more parameters, as numpydoc reads a Parameters section (it lasts to the next heading)."""
    wrong = {name: [w for w in _parameters_section_wrong(method) if "'self'" not in w]
             for name, method in _result_methods()}
    assert {name: found for name, found in wrong.items() if found} == {}

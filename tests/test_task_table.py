"""rlstats.task_table: the per-task table, checked against scipy, statsmodels, enumeration and simulation."""

import itertools
import shutil
import subprocess

import numpy as np
import pytest
from scipy import stats

import rlstats
from rlstats.errors import DesignError, OptionError
from rlstats.methods.task_table import _kernels

FORMULA = "score ~ agent | task/seed"


@pytest.fixture(scope="module")
def data():
    return rlstats.datasets.simulate(agents=3, tasks=4, seeds=6, effect=1.5, heterogeneity=1.0, rng=4)


@pytest.fixture(scope="module")
def table(data):
    return rlstats.task_table(data, FORMULA)


def _cell(data, task, agent):
    return data[(data["task"] == task) & (data["agent"] == agent)]["score"].to_numpy()


def test_best_and_welch_holm_match_scipy_and_statsmodels(data, table):
    from statsmodels.stats.multitest import multipletests

    for t, task in enumerate(table.tasks):
        means = {a: _cell(data, task, a).mean() for a in table.agents}
        best = max(means, key=means.get)
        assert table.agents[table.best[t]] == best
        others = [a for a in table.agents if a != best]
        p = [stats.ttest_ind(_cell(data, task, best), _cell(data, task, a), equal_var=False).pvalue for a in others]
        adjusted = multipletests(p, method="holm")[1]
        for a, raw, adj in zip(others, p, adjusted):
            j = table.agents.index(a)
            assert table.p_values[t, j] == pytest.approx(raw, rel=1e-12)
            assert table.p_adjusted[t, j] == pytest.approx(adj, rel=1e-12)
            assert table.not_worse[t, j] == (adj > 0.05)


def test_effect_sizes_match_their_definitions(data, table):
    tidy = table.tidy().set_index(["task", "agent"])
    for t, task in enumerate(table.tasks):
        best = table.agents[table.best[t]]
        x = _cell(data, task, best)
        for a in table.agents:
            if a == best:
                continue
            y = _cell(data, task, a)
            pairs = list(itertools.product(x, y))
            a12 = np.mean([(u > v) + 0.5 * (u == v) for u, v in pairs])
            n, m = x.size, y.size
            pooled = np.sqrt(((n - 1) * x.var(ddof=1) + (m - 1) * y.var(ddof=1)) / (n + m - 2))
            g = (1 - 3 / (4 * (n + m) - 9)) * (x.mean() - y.mean()) / pooled
            row = tidy.loc[(task, a)]
            assert row["a12"] == pytest.approx(a12) and row["cliffs_delta"] == pytest.approx(2 * a12 - 1)
            assert row["hedges_g"] == pytest.approx(g, rel=1e-12)
            assert row["a12_low"] <= row["a12"] <= row["a12_high"]
            assert row["hedges_g_low"] < row["hedges_g"] < row["hedges_g_high"]


def test_other_tests_match_scipy(data):
    for test, reference in [("mannwhitney", lambda x, y: stats.mannwhitneyu(x, y, alternative="two-sided").pvalue),
                            ("brunnermunzel", lambda x, y: stats.brunnermunzel(x, y).pvalue)]:
        res = rlstats.task_table(data, FORMULA, test=test, adjustment="none")
        for t, task in enumerate(res.tasks):
            x = _cell(data, task, res.agents[res.best[t]])
            for j, a in enumerate(res.agents):
                if j != res.best[t]:
                    assert res.p_values[t, j] == pytest.approx(reference(x, _cell(data, task, a)), rel=1e-10)


def test_permutation_is_exact_enumeration():
    x, y = np.array([3.0, 5.0, 4.0, 6.0]), np.array([1.0, 2.0, 2.5, 4.5])
    p, how = _kernels.permutation(x, y, np.random.default_rng(0), 1000)
    pooled = np.concatenate([x, y])
    observed = abs(x.mean() - y.mean())
    splits = [abs(pooled[list(c)].mean() - np.delete(pooled, list(c)).mean()) >= observed - 1e-12
              for c in itertools.combinations(range(8), 4)]
    assert how == "exact" and p == pytest.approx(np.mean(splits))


@pytest.mark.parametrize("interval", ["a12", "hedges_g"])
def test_effect_size_intervals_cover(interval):
    # Normal runs, 10 per agent, shift 0.8: true A12 = Phi(0.8 / sqrt 2), true g = 0.8 (reduced: 400 samples).
    rng = np.random.default_rng(1)
    truth = stats.norm.cdf(0.8 / np.sqrt(2)) if interval == "a12" else 0.8
    hits = 0
    for _ in range(400):
        x, y = rng.normal(0.8, 1.0, 10), rng.normal(0.0, 1.0, 10)
        _, low, high = (_kernels.a12_interval if interval == "a12" else _kernels.hedges_g)(x, y, 0.95)
        hits += low <= truth <= high
    assert abs(hits / 400 - 0.95) < 3 * np.sqrt(0.95 * 0.05 / 400)


def test_outputs_render(table):
    latex = table.to_latex()
    assert r"\textbf{" in latex and r"$^\dagger$" in latex and r"\toprule" in latex
    assert "Welch t test" in latex and "Holm" in latex and "alpha = 0.05" in latex and "6 runs" in latex
    assert "**" in table.to_markdown() and "<b>" in table._repr_html_()
    assert table.tidy().shape == (12, 16) and len(table.glance()) == 1
    assert "Welch t test" in str(table) and "Best per task" in table.report()


def test_wide_tables_are_resized():
    wide = rlstats.datasets.simulate(agents=6, tasks=2, seeds=3, rng=0)
    assert r"\resizebox{\columnwidth}" in rlstats.task_table(wide, FORMULA).to_latex()


def test_aggregate_row_comes_from_the_bootstrap(data):
    res = rlstats.task_table(data, FORMULA, aggregate="bootstrap", statistic="iqm", n_resamples=300, rng=0)
    boot = rlstats.bootstrap(data, "score ~ agent | task/seed", metrics=["iqm"], n_resamples=300,
                             rng=np.random.SeedSequence(0).spawn(1)[0])
    np.testing.assert_allclose(res.aggregate["estimates"], boot.estimates[:, 0])
    assert "Aggregate" in res.to_latex() and any("normalize=" in n for n in res.notes)


def test_errors(data):
    with pytest.raises(OptionError, match="test"):
        rlstats.task_table(data, FORMULA, test="ttest")
    with pytest.raises(DesignError, match="needs tasks"):
        rlstats.task_table(data[data["task"] == "task_01"], "score ~ agent")


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed (apt-get install "
                    "texlive-latex-recommended); the LaTeX output is checked for compilation where it is")
def test_latex_output_compiles(table, tmp_path):
    summary = rlstats.compare(rlstats.datasets.simulate(agents=3, tasks=5, seeds=3, rng=0), "score ~ agent | task")
    document = "\n".join([r"\documentclass{article}", r"\usepackage{booktabs}", r"\usepackage{graphicx}",
                          r"\begin{document}", table.to_latex(), summary.to_latex(), r"\end{document}"])
    (tmp_path / "t.tex").write_text(document, encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:]


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed (apt-get install "
                    "texlive-latex-recommended)")
def test_every_report_compiles_as_latex(tmp_path):
    # pvalue="monte_carlo" in the prose used to stop pdflatex with "Missing $ inserted".
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=3, effect=1.0, rng=0)
    reports = [rlstats.compare(df, "score ~ agent | task", pvalue="monte_carlo", n_resamples=200, rng=0),
               rlstats.bootstrap(df, "score ~ agent | task", n_resamples=200, rng=0),
               rlstats.task_table(df, FORMULA)]
    body = "\n\n".join(r.report(format="latex") for r in reports)
    assert "monte\\_carlo" in body or "Monte Carlo" in body
    (tmp_path / "r.tex").write_text("\\documentclass{article}\\begin{document}\n" + body + "\n\\end{document}\n",
                                    encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "r.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]

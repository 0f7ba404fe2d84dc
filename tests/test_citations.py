"""rlstats.cite: BibTeX for the method, the package and the data, for every result."""

import re
import shutil
import subprocess

import pytest

from conftest import HANG_SECONDS
import rlstats
from rlstats import citations, datasets, methods


def test_every_method_and_dataset_has_entries():
    # The back ends' citations are declared in their folders and collected by the registry.
    for keys in list(methods.CITATIONS.values()) + list(citations.OTHER_RESULTS.values()) + \
            list(citations.DATA_ENTRIES.values()):
        assert set(keys) <= set(citations.ENTRIES)
    assert {d.result_name for d in methods.DECLARATIONS.values()} <= set(methods.CITATIONS)
    assert set(citations.DATA_ENTRIES) == set(datasets.available()["name"])


def test_citations_that_depend_on_the_result():
    # Friedman (1937) for a Friedman test, Hesterberg (2015) for expanded intervals: declared by their back ends.
    one_run = rlstats.datasets.simulate(agents=3, tasks=8, seeds=1, effect=1.0, rng=0)
    assert _keys(rlstats.cite(rlstats.compare(one_run, "score ~ agent | task"))) == [
        "friedman1937", "skillings1981", "mack1980", "casesa2024", "rlstats"]
    df = rlstats.datasets.simulate(agents=3, tasks=6, seeds=4, effect=1.0, rng=0)
    expanded = rlstats.bootstrap(df, "score ~ agent | task", n_resamples=100, interval="expanded", rng=0)
    assert _keys(rlstats.cite(expanded)) == ["agarwal2021", "efron1987", "hesterberg2015", "rlstats"]
    assert _keys(rlstats.cite(expanded.inferential_intervals("agent_1", "agent_2"))) == [
        "casesa2024", "agarwal2021", "rlstats"]
    table = rlstats.compare(df, "score ~ agent | task", method="task_table", rng=0)
    assert _keys(table.cite()) == ["mogstad2024", "holm1979", "neubert2007", "brunner2000", "vargha2000",
                                   "steiger1997", "rlstats"]
    # Hall (1992) wherever his skewness-corrected t is used: the kind="tasks" profile's default band and the
    # selection check's default reporter test; not for their Student t options
    profile = rlstats.performance_profile(df, "score ~ agent | task", kind="tasks", normalize=False)
    assert _keys(profile.cite()) == ["agarwal2021", "hall1992", "rlstats"]
    profile_t = rlstats.performance_profile(df, "score ~ agent | task", kind="tasks", normalize=False, interval="t")
    assert _keys(profile_t.cite()) == ["agarwal2021", "rlstats"]
    chosen = dict(treatment="agent_1", baseline="agent_2", reported=["task_01", "task_02", "task_03"])
    assert _keys(rlstats.selection_check(df, "score ~ agent | task", **chosen).cite()) == [
        "komiyama2018", "hall1992", "rlstats"]
    assert _keys(rlstats.selection_check(df, "score ~ agent | task", reporter="t", **chosen).cite()) == [
        "komiyama2018", "rlstats"]


def _keys(text):
    return re.findall(r"^@\w+\{(\w+),", text, flags=re.M)


def test_result_cites_method_package_and_data():
    df = rlstats.datasets.simulate(agents=3, tasks=5, seeds=3, rng=0)
    text = rlstats.compare(df, "score ~ agent | task").cite(data="atari100k")
    keys = re.findall(r"^@\w+\{(\w+),", text, flags=re.M)
    assert keys == ["skillings1981", "mack1980", "casesa2024", "agarwal2021", "rlstats"]
    assert f"version = {{{rlstats.__version__}}}" in text
    assert rlstats.cite(data=["dopamine_atari", "atari_reference"]).count("@") == 3


def test_unknown_dataset():
    with pytest.raises(rlstats.OptionError, match="not a dataset rlstats knows"):
        rlstats.cite(data="mnist")


@pytest.mark.skipif(shutil.which("pdflatex") is None or shutil.which("bibtex") is None,
                    reason="pdflatex/bibtex are not installed (apt-get install texlive-latex-recommended)")
def test_entries_compile_with_bibtex(tmp_path):
    (tmp_path / "refs.bib").write_text("\n\n".join(citations.ENTRIES.values()) % {"version": "0"}, encoding="utf-8")
    (tmp_path / "doc.tex").write_text("\\documentclass{article}\\begin{document}\\nocite{*}"
                                      "\\bibliographystyle{plain}\\bibliography{refs}\\end{document}\n")
    run = lambda *cmd: subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True,  # noqa: E731
                                      timeout=HANG_SECONDS)
    assert run("pdflatex", "-interaction=nonstopmode", "doc.tex").returncode == 0
    bib = run("bibtex", "doc")
    assert bib.returncode == 0 and "error" not in bib.stdout.lower(), bib.stdout
    assert run("pdflatex", "-interaction=nonstopmode", "doc.tex").returncode == 0

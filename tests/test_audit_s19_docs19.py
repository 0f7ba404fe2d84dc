"""Audit s19 (docs19): the documentation site followed as a new user, each defect's reproducer."""

import importlib.util
from pathlib import Path

import pytest

import rlstats
from rlstats.citations import ENTRIES

DOCS = Path(__file__).resolve().parent.parent / "docs"
_spec = importlib.util.spec_from_file_location("rlstats_docs_generate_s19", DOCS / "_generate.py")
_generate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_generate)


def test_backend_pages_name_every_papers_authors():
    """The bayes page listed " (2017). *Time for a change: ...*." with no author: the field reader allowed one level
    of braces and Demsar's {\\v{s}} has two; Plagborg-Moller's {\\o} reached the page as a backslash."""
    assert _generate._paper(ENTRIES["benavoli2017"]).startswith("Benavoli et al. (2017).")
    assert _generate._paper(ENTRIES["corani2017"]).startswith("Corani et al. (2017).")
    assert _generate._paper(ENTRIES["montielolea2019"]).startswith("Montiel Olea and Plagborg-Møller (2019).")
    for key, entry in ENTRIES.items():
        if key == "rlstats":  # the package's own entry has no author field and is on no back-end page
            continue
        shown = _generate._paper(entry)
        assert not shown.startswith(" ") and "\\" not in shown and "n.d." not in shown, (key, shown)


def test_power_raw_scales_warning_at_heterogeneity_zero_does_not_offer_it():
    """vignettes/power_reproductions.py's gallery page showed, under power("bootstrap", heterogeneity=0.0, ...): "scores
    of 2 tasks are aggregated on their own scales (largest scores from 0.147 to 1.51) ...; power() runs the method on
    the simulated scores as they are (heterogeneity=0 simulates tasks alike)": the way on the call already took. At
    heterogeneity=0 every simulated task has offset 0 and scale 1, so a few runs' draws set the warning off."""
    with pytest.warns(rlstats.RlstatsWarning) as caught:
        rlstats.power("bootstrap", effect=0.0, seeds=[2], tasks=2, distribution="normal", heterogeneity=0.0,
                      n_sim=30, rng=0, n_resamples=100, interval="percentile", progress=False)
    texts = [str(w.message) for w in caught if "on their own scales" in str(w.message)]
    assert texts, [str(w.message) for w in caught]
    for text in texts:
        assert "(heterogeneity=0 simulates tasks alike)" not in text, text
        assert "share one offset and scale (heterogeneity=0)" in text, text


def test_backend_pages_show_the_demo_call_rlstats_demo_prints():
    """The bootstrap page's "rlstats demo" row read ``"score ~ agent | task"``, n_resamples=2000, na_action='drop';
    `rlstats demo` prints "===== bootstrap: compare(data, 'score ~ agent | task', method='bootstrap',
    normalize='minmax', n_resamples=2000, na_action='drop', rng=0)": it normalises every back end that takes
    normalize= (its tasks are on scales a hundredfold apart)."""
    def demo_row(folder, name):
        section = _generate.backend_page(folder).split(f'method="{name}"', 1)[1]
        return next(line for line in section.splitlines() if '``"score' in line or "not run" in line)

    assert "normalize='minmax', n_resamples=2000, na_action='drop'" in demo_row("bootstrap", "bootstrap")
    assert "normalize='minmax', margin=0.1" in demo_row("equivalence", "equivalence")
    assert "normalize" not in demo_row("skillings_mack", "skillings_mack")  # takes no normalize=

"""Audit s25 vocab25b: the codes meta25's option paths still printed in LaTeX, said in words.

A power study or sample-size search from a pilot printed its data-generating settings ``shifted\\_agent``,
``pilot\\_runs`` and ``within\\_cell\\_sd`` in its settings table's cells; a selection check with ``heldout=`` printed
its tests ``reporter\\_conservative`` (a cell) and ``reporter\\_gap`` (the transposed tests table's header) and the
p-value method ``monte\\_carlo``. Their labels are in :data:`rlstats.vocabulary.VALUE_LABELS` (the survey of
test_audit_s25_vocab25.py now passes on these cases); tidy(), to_dict(), CSV, Markdown and the text print keep the codes.
"""

from __future__ import annotations

import test_audit_s25_vocab25 as survey  # its SLOW cases: the option paths of meta25 surveyed with -m slow


def test_power_from_a_pilot_says_its_settings_in_words():
    res = survey.SLOW["s25_power_bootstrap"]()
    tex = res.to_latex()
    # (before: "shifted\\_agent & Ag2", "pilot\\_runs & T01: ...", "within\\_cell\\_sd & T01: 7.6497; ...")
    assert "shifted agent & Ag2 \\\\" in tex
    assert "pilot runs & T01: Ag1: 5; Ag2: 5; T02: Ag1: 5; Ag2: 5; T03: Ag1: 5; Ag2: 5 \\\\" in tex
    assert "within-cell sd & T01: 7.6497; T02: 0.28588; T03: 3.2589 \\\\" in tex
    assert "\\_" not in tex.split("Data-generating settings")[1].replace("pilot\\_spread", "")
    # the machine record keeps the codes
    settings = res.summary().tables["Data-generating settings"]
    assert {"shifted_agent", "pilot_runs", "within_cell_sd"} <= set(settings["setting"])
    assert {"shifted_agent", "pilot_runs", "within_cell_sd"} <= set(res.to_dict()["simulation"])
    assert res.simulation["shifted_agent"] == "Ag2" and "pilot_runs" in settings.to_csv(index=False)
    assert "within_cell_sd" in res.to_markdown()
    search = survey.SLOW["s25_sample_size_bootstrap"]()
    assert "within-cell sd & " in search.to_latex() and "within\\_cell" not in search.to_latex()


def test_selection_tests_say_the_reporters_and_the_pvalue_method_in_words():
    gap = survey.SLOW["s25_selection_heldout_frame"]()
    # (before: "term & inspector & reporter & reporter\\_gap \\\\", the tests table transposed)
    assert "term & inspector & reporter & reporter (minimum gap) \\\\" in gap.to_latex()
    assert list(gap.tidy()["term"]) == ["inspector", "reporter", "reporter_gap"]
    assert "reporter with minimum improvement mu_gap = 0.2: t = 0.98988, p-value = 0.2516" in str(gap)

    known = survey.SLOW["s25_selection_heldout_z"]()
    tex = known.to_latex()
    # (before: "reporter\\_conservative & 3.608 & ... & conservative (best 3 of 6) & monte\\_carlo & 1e+05")
    assert ("reporter (conservative) & 3.608 &  & 3.608 & 1e$-$05 &  &  &  & conservative (best 3 of 6) & "
            "Monte Carlo & 1e+05 \\\\") in tex
    tidy = known.tidy()
    assert list(tidy["term"]) == ["inspector", "reporter", "reporter_conservative"]
    assert tidy["pvalue_method"].iloc[-1] == "monte_carlo" and "reporter_conservative" in tidy.to_csv(index=False)
    assert "| reporter_conservative | 3.608 |" in known.to_markdown() and "monte_carlo" in known.to_markdown()
    assert "conservative (best 3 of 6 candidate tasks, sd 1): p-value = 1e-05 (Monte Carlo SE 1e-05)" in str(known)

    drawn = survey.SLOW["s25_selection_heldout_drawn"]()
    # (before: "... & permutation test over task labels & monte\\_carlo & 199 \\\\")
    assert "inspector & 1.1048 & 2.3253 & 1.1048 &  & 0.365 & $-$2.4596 & permutation test over task labels & " \
           "Monte Carlo & 199 \\\\" in drawn.to_latex()
    assert drawn.to_dict()["pvalue_method"] == "monte_carlo" and drawn.glance()["pvalue_method"][0] == "monte_carlo"

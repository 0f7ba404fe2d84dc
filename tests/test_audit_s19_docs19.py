"""Audit s19 (docs19): the documentation site followed as a new user, each defect's reproducer."""

import importlib.util
from pathlib import Path

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

"""Sphinx configuration of the rlstats documentation site.

Build it offline with one command (``pip install ".[docs]"`` first)::

    python -m sphinx -W -b html docs docs/_build/html

Everything that follows the package is generated at each build into ``docs/generated/`` by
``docs/_generate.py``: the API list (from ``rlstats.__all__`` and the registry's public names), one page per
back-end folder (from its declarations and its ``_backend.py`` docstring) and the gallery (the vignettes,
executed once per build at their fast size; ``RLSTATS_DOCS_VIGNETTES=default`` runs them at their default
size, ``skip`` shows them unexecuted).
"""

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# The checkout comes first, so the site documents the code beside it even when another copy is installed.
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS))
os.environ.setdefault("MPLBACKEND", "Agg")
# The published data sets are read from the shared offline mirror beside the clone when there is one.
_MIRROR = ROOT.parent / "shared" / "data" / "raw"
if "RLSTATS_DATA_MIRROR" not in os.environ and _MIRROR.is_dir():
    os.environ["RLSTATS_DATA_MIRROR"] = str(_MIRROR)

import _generate  # noqa: E402

import rlstats  # noqa: E402

_generate.generate(DOCS, vignettes=os.environ.get("RLSTATS_DOCS_VIGNETTES", "fast"))

project = "rlstats"
copyright = "the rlstats authors"  # noqa: A001 (Sphinx's name)
release = version = rlstats.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_nb",  # Markdown pages and the executed vignettes (brings myst_parser)
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
# generated/gallery/downloads holds the vignettes' notebooks to download, not pages of the site.
exclude_patterns = ["_build", "**.ipynb_checkpoints", "figures", "readme_figure.py", "generated/gallery/downloads"]
templates_path = ["_templates"]

# The API pages: one per public name, written by autosummary from the numpydoc docstrings.
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"            # numpydoc's Parameters give each type in words; the annotations are for checkers
numpydoc_show_class_members = False   # result classes document their fields in their own docstrings
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# The gallery's notebooks are executed by _generate.py (once per build, at the chosen size), not by myst-nb.
nb_execution_mode = "off"
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3
# Straight quotes everywhere: code in tables and literals (``method="bootstrap"``) must copy as typed.
smartquotes = False

html_theme = "alabaster"
html_title = f"rlstats {release}"
html_theme_options = {
    "description": "R-style formula statistics for reinforcement-learning evaluation",
    "page_width": "1180px",
    "sidebar_width": "240px",
}
html_static_path = ["_static"]
html_css_files = ["custom.css"]

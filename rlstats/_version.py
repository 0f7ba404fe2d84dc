"""The package version: the one place it is written (pyproject.toml reads it; so do the package face, the
command's --version, cite() and results' exported metadata).

Between releases it is the next release's version with ``.dev0``; RELEASING.md says how a release changes it, and
tests/test_packaging.py checks that CITATION.cff and CHANGELOG.md follow.
"""

__version__ = "0.2.0.dev0"

"""setup.cfg declares exactly what the package imports, and the test extra covers what the tests import.

A fresh virtual environment has nothing else, so an undeclared import fails there (CI builds one);
this test names the module before it gets that far, and also catches a runtime requirement that
nothing imports any more.
"""

import ast
import configparser
import re
import sys
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Import name -> distribution name, where they differ.
DISTRIBUTION = {"dask": "dask", "distributed": "dask", "mpl_toolkits": "matplotlib", "yaml": "pyyaml"}


def _requirements(text):
    return {re.split(r"[<>=!~\[; ]", line.strip())[0].lower() for line in text.splitlines() if line.strip()}


def _declared():
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    runtime = _requirements(config.get("options", "install_requires"))
    extras = {name: _requirements(value) for name, value in config["options.extras_require"].items()}
    return runtime, extras


@lru_cache
def _imports(folder):
    found = set()
    for path in (ROOT / folder).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    local = {path.stem for path in (ROOT / folder).glob("*.py")}  # a test module importing another
    third_party = found - set(sys.stdlib_module_names) - local - {"rlstats", "conftest", "__future__"}
    return {DISTRIBUTION.get(name, name).lower() for name in third_party}


def test_every_runtime_requirement_is_imported_by_the_package():
    runtime, _ = _declared()
    unused = runtime - _imports("rlstats")
    assert not unused, f"install_requires lists {sorted(unused)} but no module of rlstats imports them"


def test_every_package_import_is_a_runtime_requirement_or_an_extra():
    runtime, extras = _declared()
    optional = set().union(*extras.values())
    missing = _imports("rlstats") - runtime - optional
    assert not missing, f"rlstats imports {sorted(missing)}, which setup.cfg does not declare"


def test_the_test_extra_covers_every_test_import():
    runtime, extras = _declared()
    missing = _imports("tests") - runtime - extras["test"]
    assert not missing, f"tests import {sorted(missing)}; add them to the 'test' extra in setup.cfg"


def test_oldest_constraints_pin_the_lower_bounds():
    """.ci/oldest-constraints.txt pins each runtime requirement at its lower bound in setup.cfg."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    bounds = dict(re.fullmatch(r"([\w-]+)>=([\d.]+)", line.strip()).groups()
                  for line in config.get("options", "install_requires").splitlines() if line.strip())
    pins = dict(line.split("==") for line in (ROOT / ".ci" / "oldest-constraints.txt").read_text().splitlines()
                if line and not line.startswith("#"))
    assert set(bounds) <= set(pins), f"pin the lower bound of {sorted(set(bounds) - set(pins))}"
    for name, bound in bounds.items():
        assert pins[name] == bound or pins[name].startswith(bound + "."), (name, bound, pins[name])


def test_the_license_file_carries_the_declared_license():
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    assert config["metadata"]["license"] == "BSD-3-Clause" and config["metadata"]["license_files"] == "LICENSE"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("BSD 3-Clause License") and "Neither the name of the copyright holder" in text


def _citation_fields():
    """The top-level ``key: value`` lines of CITATION.cff (a flat YAML read without a YAML library)."""
    fields = {}
    for line in (ROOT / "CITATION.cff").read_text(encoding="utf-8").splitlines():
        found = re.fullmatch(r"([a-z-]+):\s*(.+)", line)
        if found:
            fields[found[1]] = found[2].strip().strip('"')
    return fields


def test_citation_file_agrees_with_cite_the_version_and_the_license():
    import rlstats
    from rlstats._version import __version__

    fields = _citation_fields()
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    assert fields["cff-version"] == "1.2.0" and fields["type"] == "software"
    assert fields["version"] == __version__ == config["metadata"]["version"]
    assert fields["license"] == config["metadata"]["license"] == "BSD-3-Clause"
    entry = rlstats.cite()
    assert re.search(r"title = \{(.*)\}", entry)[1] == fields["title"]
    assert re.search(r"version = \{(.*)\}", entry)[1] == fields["version"]
    assert "The rlstats developers" in (ROOT / "CITATION.cff").read_text(encoding="utf-8")


def test_the_changelog_starts_from_this_release():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    from rlstats._version import __version__

    assert text.startswith("# Changelog") and f"## {__version__}" in text and "## Unreleased" in text

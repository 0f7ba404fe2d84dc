"""What a release is made of: the metadata in pyproject.toml, the sdist and the wheel, and the version.

pyproject.toml declares exactly what the package imports, and the test extra covers what the tests import: a
fresh virtual environment has nothing else, so an undeclared import fails there (CI builds one); these tests name
the module before it gets that far, and also catch a runtime requirement that nothing imports any more. The sdist
is built here (setuptools' PEP 517 hooks, no network) and must hold the whole source tree, so that the default
suite runs from it; the wheel built from that sdist must hold the package and nothing else.
"""

import ast
import fnmatch
import importlib.metadata
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from functools import lru_cache
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
# Import name -> distribution name, where they differ.
DISTRIBUTION = {"dask": "dask", "distributed": "dask", "mpl_toolkits": "matplotlib", "yaml": "pyyaml",
                "tomllib": "tomli"}


def _requirements(lines):
    return {re.split(r"[<>=!~\[; ]", line.strip())[0].lower() for line in lines if line.strip()}


@lru_cache
def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _declared():
    project = _pyproject()["project"]
    runtime = _requirements(project["dependencies"])
    extras = {name: _requirements(value) for name, value in project["optional-dependencies"].items()}
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
    assert not unused, f"pyproject.toml's dependencies list {sorted(unused)} but no module of rlstats imports them"


def test_every_package_import_is_a_runtime_requirement_or_an_extra():
    runtime, extras = _declared()
    optional = set().union(*extras.values())
    missing = _imports("rlstats") - runtime - optional
    assert not missing, f"rlstats imports {sorted(missing)}, which pyproject.toml does not declare"


def test_the_test_extra_covers_every_test_import():
    runtime, extras = _declared()
    missing = _imports("tests") - runtime - extras["test"]
    assert not missing, f"tests import {sorted(missing)}; add them to the 'test' extra in pyproject.toml"


def test_oldest_constraints_pin_the_lower_bounds():
    """.ci/oldest-constraints.txt pins each runtime requirement at its lower bound in pyproject.toml."""
    bounds = dict(re.fullmatch(r"([\w-]+)>=([\d.]+)", line.strip()).groups()
                  for line in _pyproject()["project"]["dependencies"])
    pins = dict(line.split("==") for line in (ROOT / ".ci" / "oldest-constraints.txt").read_text().splitlines()
                if line and not line.startswith("#"))
    assert set(bounds) <= set(pins), f"pin the lower bound of {sorted(set(bounds) - set(pins))}"
    for name, bound in bounds.items():
        assert pins[name] == bound or pins[name].startswith(bound + "."), (name, bound, pins[name])


def test_the_license_file_carries_the_declared_license():
    project = _pyproject()["project"]
    assert project["license"] == "BSD-3-Clause" and project["license-files"] == ["LICENSE"]
    # PEP 639: a License-Expression replaces the legacy classifier, which setuptools refuses beside it.
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("BSD 3-Clause License") and "Neither the name of the copyright holder" in text


def test_metadata_a_packager_reads():
    """Python versions from requires-python on, Typed, a development status; the version read from _version.py."""
    config = _pyproject()
    project = config["project"]
    low = re.fullmatch(r">=3\.(\d+)", project["requires-python"])[1]
    minors = sorted(int(c.rsplit(".", 1)[1]) for c in project["classifiers"]
                    if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c))
    assert minors == list(range(int(low), int(low) + len(minors))) and minors[0] == 10 and minors[-1] >= 13
    assert {"Typing :: Typed", "Development Status :: 3 - Alpha", "Operating System :: OS Independent",
            "Intended Audience :: Science/Research"} <= set(project["classifiers"])
    assert project["dynamic"] == ["version"] and "version" not in project
    assert config["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "rlstats._version.__version__"}
    assert project["scripts"] == {"rlstats": "rlstats.cli:main"}
    # setuptools 77 is the first to write `license` as a License-Expression (metadata 2.4).
    assert config["build-system"]["requires"] == ["setuptools>=77"]


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
    assert fields["cff-version"] == "1.2.0" and fields["type"] == "software"
    assert fields["version"] == __version__
    assert fields["license"] == _pyproject()["project"]["license"] == "BSD-3-Clause"
    entry = rlstats.cite()
    assert re.search(r"title = \{(.*)\}", entry)[1] == fields["title"]
    assert re.search(r"version = \{(.*)\}", entry)[1] == fields["version"]
    assert "The rlstats developers" in (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert _pyproject()["project"]["authors"] == [{"name": "The rlstats developers"}]


# X.Y.Z for a release; X.Y.Z.dev0 on main between releases, X.Y.Z being the next release (RELEASING.md).
VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)(\.dev0)?")


def _release(text):
    return tuple(int(part) for part in VERSION.match(text).groups()[:3])


def test_one_version_rule_for_the_package_the_citation_and_the_changelog():
    """Between releases the changelog starts with "Unreleased" and every release in it is older than the version
    main is heading for; a release's changelog starts with that release's section and has no "Unreleased"."""
    from rlstats._version import __version__

    found = VERSION.fullmatch(__version__)
    assert found, f"{__version__!r} is neither X.Y.Z nor X.Y.Z.dev0"
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    sections = re.findall(r"^## (.+)$", text, flags=re.M)
    assert text.startswith("# Changelog") and sections
    released = [_release(s) for s in sections if VERSION.match(s)]
    assert len(released) == len(sections) - (sections[0] == "Unreleased"), sections  # one heading form
    assert released == sorted(released, reverse=True) and len(set(released)) == len(released), released
    if found[4]:
        assert sections[0] == "Unreleased" and released and released[0] < _release(__version__), sections
    else:
        assert sections[0].split()[0] == __version__ and "Unreleased" not in sections, sections


# ----------------------------------------------------------------------------- the sdist and the wheel


def _source_files():
    """The files of the source tree, relative to ROOT: git's view in a clone (tracked, and new files not ignored),
    else every file not matched by .gitignore (in an unpacked sdist, which carries no .git)."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout

    try:
        if Path(git("rev-parse", "--show-toplevel").strip()).resolve() == ROOT:
            listed = git("ls-files", "--cached", "--others", "--exclude-standard", "-z").split("\0")
            return sorted(name for name in listed if name and (ROOT / name).is_file())
    except (OSError, subprocess.CalledProcessError):
        pass  # no git, or not a clone
    ignored = [line.rstrip("/") for line in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
               if line.strip() and not line.startswith("#")]
    names = []
    for path in ROOT.rglob("*"):
        name = path.relative_to(ROOT).as_posix()
        parts = name.split("/")
        if path.is_file() and not any(fnmatch.fnmatch(part, pattern) for pattern in ignored for part in parts) \
                and not any(name.startswith(pattern + "/") for pattern in ignored):
            names.append(name)
    return sorted(names)


def _build(hook, source, out):
    """Run one of setuptools' PEP 517 hooks in ``source`` as pip or build would, without build isolation."""
    code = "import sys; from setuptools import build_meta; print(getattr(build_meta, sys.argv[1])(sys.argv[2]))"
    done = subprocess.run([sys.executable, "-c", code, hook, str(out)], cwd=source, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return out / done.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The sdist built from a copy of the source tree, and the wheel built from that sdist (what pip does)."""
    needed = _pyproject()["build-system"]["requires"][0]
    try:
        have = importlib.metadata.version("setuptools")
    except importlib.metadata.PackageNotFoundError:
        have = "none"
    if have == "none" or int(have.split(".")[0]) < int(needed.split(">=")[1]):
        pytest.skip(f"building needs {needed} (the test extra has it); setuptools here: {have}")
    work = tmp_path_factory.mktemp("release")
    files = _source_files()
    for name in files:
        (work / "tree" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, work / "tree" / name)
    sdist = _build("build_sdist", work / "tree", work / "dist")
    with tarfile.open(sdist) as archive:
        archive.extractall(work / "unpacked", **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        top = archive.getnames()[0].split("/")[0]
        sdist_files = {member.name.split("/", 1)[1] for member in archive.getmembers() if member.isfile()}
    wheel = _build("build_wheel", work / "unpacked" / top, work / "dist")
    with zipfile.ZipFile(wheel) as archive:
        wheel_files = set(archive.namelist())
        info = next(name for name in wheel_files if name.endswith(".dist-info/METADATA"))
        metadata = archive.read(info).decode("utf-8")
    return {"files": files, "sdist": sdist, "sdist_files": sdist_files, "wheel": wheel,
            "wheel_files": wheel_files, "metadata": metadata}


def test_the_sdist_holds_the_whole_source_tree(built):
    from rlstats._version import __version__

    assert built["sdist"].name == f"rlstats-{__version__}.tar.gz"
    missing = set(built["files"]) - built["sdist_files"]
    assert not missing, f"the sdist lacks {sorted(missing)}: MANIFEST.in should take them"
    # What the default suite and the docs read, named here so that a shrinking tree cannot hide a loss.
    for name in ("tests/conftest.py", "tests/reference/recorded_outputs.json", "tests/reference/mixed_r.json",
                 "tests/reference/quade_posthoc.csv", "tests/reference/mixed_r.R", "docs/conf.py",
                 "docs/figures/atari100k_profiles.png", "vignettes/getting_started.py", "vignettes/render.py",
                 "benchmarks/README.md", "CHANGELOG.md", "CITATION.cff", "LICENSE", "README.md", "RELEASING.md",
                 ".ci/run", ".ci/oldest-constraints.txt", "MANIFEST.in", "pyproject.toml", "setup.cfg",
                 "rlstats/README.md", "rlstats/calibration.csv", "rlstats/py.typed", "rlstats/__init__.pyi"):
        assert name in built["sdist_files"], name
    assert len([n for n in built["sdist_files"] if n.startswith("tests/test_")]) >= 40
    assert not [n for n in built["sdist_files"] if "__pycache__" in n or n.endswith((".pyc", ".ipynb"))]


def test_the_wheel_holds_the_package_only(built):
    from rlstats._version import __version__

    info = f"rlstats-{__version__}.dist-info/"
    assert built["wheel"].name == f"rlstats-{__version__}-py3-none-any.whl"
    outside = {n for n in built["wheel_files"] if not n.startswith(("rlstats/", info))}
    assert not outside, f"the wheel should hold the package only, not {sorted(outside)}"
    package = {n for n in built["files"] if n.startswith("rlstats/") and n.endswith(".py")}
    assert package and package <= built["wheel_files"]
    data = {n for n in built["wheel_files"] if n.startswith("rlstats/") and not n.endswith(".py")}
    assert data == {"rlstats/calibration.csv", "rlstats/py.typed", "rlstats/__init__.pyi", "rlstats/selection.pyi"}
    assert f"{info}licenses/LICENSE" in built["wheel_files"]


def test_the_wheel_metadata_is_what_installers_and_recipe_generators_read(built):
    """Metadata 2.4 with a License-Expression, the Python bound and every runtime requirement (grayskull builds a
    conda recipe's run requirements from these)."""
    from rlstats._version import __version__

    head = built["metadata"].split("\n\n", 1)[0]
    fields = [tuple(line.split(": ", 1)) for line in head.splitlines()]
    value = {key: text for key, text in fields}
    assert value["Metadata-Version"] == "2.4" and value["Name"] == "rlstats" and value["Version"] == __version__
    assert value["License-Expression"] == "BSD-3-Clause" and "License" not in value
    assert value["Requires-Python"] == ">=3.10" and value["Description-Content-Type"] == "text/markdown"
    runtime = [text for key, text in fields if key == "Requires-Dist" and "extra ==" not in text]
    assert runtime == _pyproject()["project"]["dependencies"]
    classifiers = [text for key, text in fields if key == "Classifier"]
    assert classifiers == _pyproject()["project"]["classifiers"]
    assert {text for key, text in fields if key == "Provides-Extra"} == set(_pyproject()["project"][
        "optional-dependencies"])
    assert built["metadata"].split("\n\n", 1)[1].startswith("# rlstats")  # the README as the long description

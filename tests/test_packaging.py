"""What a release is made of: the metadata in pyproject.toml and setup.cfg, the sdist and the wheel, and the version.

setup.cfg declares exactly what the package imports, and the test extra covers what the tests import: a
fresh virtual environment has nothing else, so an undeclared import fails there (CI builds one); these tests name
the module before it gets that far, and also catch a runtime requirement that nothing imports any more. The sdist
is built here (setuptools' PEP 517 hooks, no network) and must hold the whole source tree, so that the default
suite runs from it; the wheel built from that sdist must hold the package and nothing else.
"""

import ast
import configparser
import fnmatch
import functools
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

from package_source import MODULES, parse, statements, tree

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


@lru_cache
def _setup_cfg():
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    return config


def _lines(value):
    return [line.strip() for line in value.splitlines() if line.strip()]


def _dependencies():
    """setup.cfg's install_requires, in order: the runtime requirements (pyproject.toml lists them as dynamic)."""
    return _lines(_setup_cfg()["options"]["install_requires"])


def _extras():
    return {name: _lines(value) for name, value in _setup_cfg()["options.extras_require"].items()}


def _declared():
    runtime = _requirements(_dependencies())
    extras = {name: _requirements(value) for name, value in _extras().items()}
    return runtime, extras


_PACKAGE_MODULES = {path: name for name, path in MODULES.items()}


@functools.lru_cache(maxsize=None)  # each file parsed once: tests/ holds 4 MB of source, tests/reference/ read twice
def _file_imports(path):
    # the package's modules as the layout tests parsed them (package_source, once a process: 1.3 s of CPU)
    name = _PACKAGE_MODULES.get(path)
    found = set()
    for node in statements((tree(name) if name else parse(path)).body):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return frozenset(found)


@functools.lru_cache(maxsize=None)
def _imports(folder):
    found = set().union(*map(_file_imports, (ROOT / folder).rglob("*.py")))
    local = {path.stem for path in (ROOT / folder).rglob("*.py")}  # a test module importing another, or a helper
    third_party = found - set(sys.stdlib_module_names) - local - {"rlstats", "conftest", "__future__"}
    return frozenset(DISTRIBUTION.get(name, name).lower() for name in third_party)


def test_every_runtime_requirement_is_imported_by_the_package():
    runtime, _ = _declared()
    unused = runtime - _imports("rlstats")
    assert not unused, f"setup.cfg's install_requires lists {sorted(unused)} but no module of rlstats imports them"


def test_every_package_import_is_a_runtime_requirement_or_an_extra():
    runtime, extras = _declared()
    optional = set().union(*extras.values())
    missing = _imports("rlstats") - runtime - optional
    assert not missing, f"rlstats imports {sorted(missing)}, which setup.cfg does not declare"


def test_the_test_extra_covers_every_test_import():
    # the 'reference' extra holds references too heavy for the test extra; only tests/reference/ may import them
    runtime, extras = _declared()
    missing = _imports("tests") - runtime - extras["test"] - extras["reference"]
    assert not missing, f"tests import {sorted(missing)}; add them to the 'test' extra in setup.cfg"
    heavy = (_imports("tests") - _imports("tests/reference")) & (extras["reference"] - extras["test"])
    assert not heavy, f"tests outside tests/reference import {sorted(heavy)}, which only the 'reference' extra has"


def test_oldest_constraints_pin_the_lower_bounds():
    """.ci/oldest-constraints.txt pins each runtime requirement at its lower bound in setup.cfg."""
    bounds = dict(re.fullmatch(r"([\w-]+)>=([\d.]+)", line.strip()).groups()
                  for line in _dependencies())
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
    assert project["dynamic"] == ["version", "optional-dependencies"]
    assert not {"version", "optional-dependencies"} & set(project)
    # the runtime requirements are in both files: setup.cfg (the house's home) and pyproject.toml (what grayskull
    # reads: with the list dynamic it made a recipe without run requirements); the two lists are one
    assert project["dependencies"] == _dependencies()
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
    """Run one of setuptools' PEP 517 hooks in ``source`` as pip or build would, without build isolation; its
    archive deflated at zlib's level 1, not tarfile's 9 (what it holds is tested, not how small it is: level 9 took
    1.2 s of CPU for the sdist's 17 MB)."""
    code = ("import sys, zlib; compressobj = zlib.compressobj; "
            "zlib.compressobj = lambda level=-1, *args, **kwargs: compressobj(1, *args, **kwargs); "
            "from setuptools import build_meta; print(getattr(build_meta, sys.argv[1])(sys.argv[2]))")
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
    assert runtime == _dependencies()
    classifiers = [text for key, text in fields if key == "Classifier"]
    assert classifiers == _pyproject()["project"]["classifiers"]
    assert {text for key, text in fields if key == "Provides-Extra"} == set(_extras())
    assert built["metadata"].split("\n\n", 1)[1].startswith("# rlstats")  # the README as the long description


# ----------------------------------------------------------------------------- the conda recipe (issue 42 item 2)

# PyPI name -> conda-forge name, where they differ. conda-forge's `matplotlib` adds a Qt GUI; `matplotlib-base` is
# the library alone, what a package depends on there (grayskull --strict-conda-forge maps it the same way).
CONDA_NAME = {"matplotlib": "matplotlib-base"}
# What the recipe's test runs (conda-build: in a new temporary folder); the README's conda section lists the same.
RECIPE_TEST = ['python -c "import rlstats"', "pip check", "rlstats --version", "rlstats demo"]


@lru_cache
def _recipe_reader():
    """.ci/recipe.py, the reader of the recipe that .ci/recipe-check uses too (one reader for both)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("ci_recipe", ROOT / ".ci" / "recipe.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _recipe(name="meta.yaml"):
    return _recipe_reader().read(ROOT / "recipe" / name)


def _requires_python_minor():
    return re.fullmatch(r">=(3\.\d+)", _pyproject()["project"]["requires-python"])[1]


def test_the_recipe_runs_on_every_runtime_requirement_under_its_conda_forge_name():
    expected = [f"python >={_requires_python_minor()}"]
    for line in _dependencies():
        name, spec = re.fullmatch(r"([\w.-]+)\s*(.*)", line).groups()
        expected.append(f"{CONDA_NAME.get(name, name)} {spec}")
    assert _recipe_reader().run_requirements(_recipe()) == expected
    assert set(CONDA_NAME) <= _declared()[0], "a renamed package that is no runtime requirement any more"


def test_the_recipe_follows_requires_python_with_conda_forges_python_min():
    """noarch: python with CFEP-25's python_min: host and test at the lowest Python, run from it on."""
    recipe = _recipe()
    assert recipe["set"]["python_min"] == _requires_python_minor() == "3.10"
    assert recipe["build"]["noarch"] == "python"
    assert recipe["requirements"]["host"][0] == "python {{ python_min }}.*"
    assert recipe["requirements"]["run"][0] == "python >={{ python_min }}"
    assert "python {{ python_min }}.*" in recipe["test"]["requires"] and "pip" in recipe["test"]["requires"]


def test_the_recipe_takes_the_version_build_and_about_from_the_package():
    from rlstats._version import __version__

    recipe, project = _recipe(), _pyproject()["project"]
    assert recipe["set"]["version"] == __version__
    assert recipe["package"] == {"name": project["name"], "version": "{{ version }}"}
    assert recipe["source"]["url"] == "https://pypi.org/packages/source/r/rlstats/rlstats-{{ version }}.tar.gz"
    assert recipe["build"]["entry_points"] == [f"{name} = {target}" for name, target in project["scripts"].items()]
    assert recipe["build"]["script"] == "{{ PYTHON }} -m pip install . -vv --no-deps --no-build-isolation"
    setuptools = _pyproject()["build-system"]["requires"][0].replace(">=", " >=")
    assert set(recipe["requirements"]["host"]) == {"python {{ python_min }}.*", "pip", setuptools}
    about = recipe["about"]
    assert about["summary"] == project["description"] and about["license"] == project["license"]
    assert [about["license_file"]] == project["license-files"] and about["license_family"] == "BSD"
    # The home page is the repository once pyproject.toml names one; until then the PyPI page the source comes from.
    assert about["home"] == project.get("urls", {}).get("Repository", "https://pypi.org/project/rlstats/")


def test_the_recipe_test_runs_the_readme_commands_and_ci_runs_the_recipe_test():
    assert _recipe_reader().test_commands(_recipe()) == RECIPE_TEST
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## conda\n", 1)[1].split("\n## ", 1)[0]
    assert re.search(r"```sh\n(.*?)\n```", section, flags=re.S)[1].splitlines() == RECIPE_TEST
    # The README's first CI step (a fresh venv holding the runtime requirements only) runs the demo too.
    assert "rlstats demo" in RECIPE_TEST and "installs `.` alone and runs `rlstats demo`" in readme
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'bash .ci/recipe-check "$work/release/sdist-venv" "$work"/release/dist/rlstats-*.tar.gz' in run
    check = (ROOT / ".ci" / "recipe-check").read_text(encoding="utf-8")
    assert "python3 .ci/recipe.py commands recipe/meta.yaml" in check
    assert 'python3 .ci/recipe.py compare recipe/meta.yaml "$work"/generated/rlstats/meta.yaml' in check


def test_grayskulls_recipe_from_the_sdist_agrees_with_the_kept_recipe():
    """recipe/grayskull-meta.yaml is grayskull's output kept as generated (recipe/README.md): what it derives from the
    package metadata is what the recipe says; CI compares a new run the same way (.ci/recipe-check)."""
    reader = _recipe_reader()
    generated = _recipe("grayskull-meta.yaml")
    assert reader.compare(_recipe(), generated) == []
    assert generated["test"]["commands"] == ["pip check", "rlstats --help"]  # the recipe runs more than this


def test_the_recipe_comparison_fails_with_both_lists(tmp_path):
    reader = _recipe_reader()
    text = (ROOT / "recipe" / "grayskull-meta.yaml").read_text(encoding="utf-8")
    path = tmp_path / "meta.yaml"
    path.write_text(text.replace("matplotlib-base >=3.7", "matplotlib >=3.7").replace("    - joblib >=1.4\n", "")
                    .replace('python_min = "3.10"', 'python_min = "3.9"'), encoding="utf-8")
    problems = reader.compare(_recipe(), reader.read(path))
    assert len(problems) == 2, problems
    assert "matplotlib-base >=3.7, pooch >=1.7, tqdm >=4.60, joblib >=1.4" in problems[0]
    assert "grayskull:        python >=3.9, numpy >=1.24" in problems[0] and "joblib" not in problems[0].split(
        "grayskull:")[1]
    assert problems[1] == "python_min differs: recipe/meta.yaml '3.10', grayskull '3.9'"
    assert reader.main(["compare", str(ROOT / "recipe" / "meta.yaml"), str(path)]) == 1


@pytest.mark.parametrize("line, message", [
    ("    - __win  # [win]", "a selector"),
    ("      - nested", "not read by .ci/recipe.py"),
    ('{% set python_min = python_min|default("3.10") %}', "not read by .ci/recipe.py"),
])
def test_the_recipe_reader_refuses_what_it_does_not_read(tmp_path, line, message):
    path = tmp_path / "meta.yaml"
    path.write_text((ROOT / "recipe" / "meta.yaml").read_text(encoding="utf-8").replace(
        "    - pip check\n", f"    - pip check\n{line}\n"), encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(message)):
        _recipe_reader().read(path)


def test_the_sdist_carries_the_recipe_and_the_wheel_does_not(built):
    """The recipe and its reader travel with the sdist, so that these tests and .ci/recipe-check run from it."""
    for name in ("recipe/meta.yaml", "recipe/grayskull-meta.yaml", "recipe/README.md", ".ci/recipe.py",
                 ".ci/recipe-check"):
        assert name in built["sdist_files"], name
    assert not [n for n in built["wheel_files"] if "recipe" in n.split("/")[0]]

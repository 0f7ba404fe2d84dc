"""The package's shape: imports point down, back ends stay apart (read with ast, nothing is imported).

Every module of ``rlstats`` is parsed, each ``import``/``from ... import`` (also
those inside functions) is resolved to the package module it names, and the
resulting graph must have no cycle, no arrow back to the package face, and no
module of one back end (``rlstats/methods/<x>/``) importing a module of another.
Code that needs another back end goes through the registry, ``rlstats.methods``;
outside its folder a back end is named as code only in its registry line.
"""

import ast
import functools
import importlib
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

from conftest import HANG_SECONDS

from package_source import MODULES, PACKAGE, statements
from package_source import tree as _tree


def _is_package(name):
    return MODULES[name].name == "__init__.py"


def _resolve(name, node):
    """The package modules an import node names (``from X import Y`` names X.Y when that is a module)."""
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    else:
        if node.level:
            base = name.split(".") if _is_package(name) else name.split(".")[:-1]
            base = base[:len(base) - (node.level - 1)]
            origin = ".".join(base + ([node.module] if node.module else []))
        else:
            origin = node.module or ""
        targets = []
        for alias in node.names:
            submodule = f"{origin}.{alias.name}"
            targets.append(submodule if submodule in MODULES else origin)
    found = []
    for target in targets:
        while target and target not in MODULES:  # "rlstats.x.y" where y is an attribute
            target = target.rpartition(".")[0]
        if target.startswith("rlstats") and target:
            found.append(target)
    return found


@functools.cache
def import_graph():
    """module name -> set of package modules it imports (anywhere in its body)."""
    graph = {}
    for name, path in MODULES.items():
        tree = _tree(name)
        edges = set()
        for node in statements(tree.body):  # an import is a statement: no expression needs a visit
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges.update(_resolve(name, node))
        edges.discard(name)
        graph[name] = edges
    return graph



def _backend(name):
    """The back-end folder a module belongs to (``rlstats.methods.<folder>...``), or None."""
    parts = name.split(".")
    folder = ".".join(parts[:3])
    return parts[2] if len(parts) > 2 and parts[1] == "methods" and _is_package(folder) else None


def _cycle(graph):
    """One import cycle as a list of modules, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_walk_sees_the_layout():
    for name in ("rlstats", "rlstats.methods", "rlstats.methods.skillings_mack._kernels", "rlstats.methods.adastop._api",
                 "rlstats.cli", "rlstats.planning", "rlstats.statistics", "rlstats.resampling"):
        assert name in MODULES
    assert "rlstats.methods.skillings_mack._kernels" in import_graph()["rlstats.methods.skillings_mack._api"]
    assert "rlstats.format" in import_graph()["rlstats.results"]


def test_no_import_cycle():
    cycle = _cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_nothing_imports_the_package_face():
    offenders = sorted(name for name, edges in import_graph().items() if "rlstats" in edges)
    assert offenders == [], f"{offenders} import the package face (rlstats/__init__.py); import the module instead"


def test_no_back_end_imports_another():
    offenders = sorted((name, target) for name, edges in import_graph().items() for target in edges
                       if _backend(name) and _backend(target) and _backend(name) != _backend(target))
    assert offenders == [], f"back ends reach each other directly (go through rlstats.methods.backend): {offenders}"


# The modules that read the back ends' declarations (rlstats.methods._declaration) instead of knowing them.
READERS = ("rlstats", "rlstats.methods", "rlstats.methods._declaration", "rlstats.comparison", "rlstats.citations",
           "rlstats.cli", "rlstats.planning", "rlstats.planning._api", "rlstats.planning._result",
           "rlstats.planning._sources", "rlstats.planning.plots")


def test_readers_reach_back_ends_only_through_the_registry():
    assert set(READERS) <= set(MODULES) and {n for n in MODULES if n.startswith("rlstats.planning")} <= set(READERS)
    offenders = sorted((name, target) for name, edges in import_graph().items() for target in edges
                       if name in READERS and _backend(target))
    assert offenders == [], f"use rlstats.methods.backend / DECLARATIONS instead: {offenders}"


def _back_end_names():
    """Every name a back end goes by: its folder, its method names and its public functions' names."""
    from rlstats.methods import DECLARATIONS, FOLDERS

    names = set(FOLDERS) | set(DECLARATIONS) | {declared.function_name for declared in DECLARATIONS.values()}
    return re.compile(r"\b(" + "|".join(sorted(names, key=len, reverse=True)) + r")\b", re.IGNORECASE)


def _code_words(tree):
    """(line, text) of every identifier and string constant of the code, docstrings left out."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant) and isinstance(node.body[0].value.value, str)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value
        elif isinstance(node, ast.Name):
            yield node.lineno, node.id
        elif isinstance(node, ast.Attribute):
            yield node.lineno, node.attr
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            yield node.lineno, node.name
        elif isinstance(node, ast.arg):
            yield node.lineno, node.arg
        elif isinstance(node, ast.keyword) and node.arg:
            yield node.value.lineno, node.arg
        elif isinstance(node, ast.alias):
            yield node.lineno if hasattr(node, "lineno") else 0, node.asname or node.name


#: back-end names that are also ordinary words of the package's code, and what they mean there: a string that is
#: exactly such a word is not taken for the back end (``rlstats.mixed``, ``method="mixed"``, ``mixed(`` still are)
HOMONYMS = {"mixed": "simulate()'s distribution='mixed', D4RL's 'mixed' datasets, a mix of sources or families"}


def test_a_back_end_is_named_outside_its_folder_only_in_its_registry_line():
    # Scope: the modules that read the declarations (READERS): their code (identifiers and strings, not
    # docstrings or comments, which may show examples) names no back end, not even as a word of prose. The
    # registry names each folder once, in FOLDERS. The rest of the package is held to the narrower rule of
    # test_a_back_end_is_named_as_code_only_in_its_folder_and_its_registry_line (words such as "bootstrap" in
    # resampling.py are the statistics' names there).
    pattern = _back_end_names()
    found = []
    for name in READERS:
        tree = _tree(name)
        # a BibTeX entry (citations.ENTRIES) is a paper's title, not a back end's name
        found += [(name, line, text) for line, text in _code_words(tree) if pattern.search(text)
                  and not text.startswith("@") and (name == "rlstats.methods" or text.split()[0] not in HOMONYMS)]
    from rlstats.methods import FOLDERS

    registry_lines = [(name, line, text) for name, line, text in found if name == "rlstats.methods"]
    assert sorted(text for _, _, text in registry_lines) == sorted(FOLDERS)
    assert len({line for _, line, _ in registry_lines}) == len(FOLDERS)  # one line each
    assert [hit for hit in found if hit[0] != "rlstats.methods"] == []


def test_the_name_check_sees_what_it_must():
    pattern = _back_end_names()
    tree = ast.parse('"""A docstring may name skillings_mack."""\nif method == "adastop":\n    x = {"permutation": 1}\n'
                     'label = "AdaStop and the permutation test"\nf(bootstrap=2, reads_curves=True)\n')
    assert sorted((line, text) for line, text in _code_words(tree) if pattern.search(text)) == [
        (2, "adastop"), (3, "permutation"), (4, "AdaStop and the permutation test"), (5, "bootstrap")]


def _names_by_folder():
    """folder -> every name its back ends go by: the folder, their method names and their public functions' names."""
    from rlstats.methods import DECLARATIONS, FOLDERS

    names = {folder: {folder} for folder in FOLDERS}
    for declared in DECLARATIONS.values():
        names[declared.function.split(".")[2]] |= {declared.name, declared.function_name}
    return names


def _references(tree, names):
    """(line, name) wherever code names a back end as code: an attribute of the package or the registry
    (``rlstats.curves``, ``methods.adastop``), a string that is the name (``method == "bootstrap"``) or a path into its
    folder (``"rlstats.methods.curves._api"``), or text that calls it (``rlstats.curves(``, ``curves(``,
    ``method='curves'``). Docstrings, comments and words of prose (``"learning curves"``) are not code; nor is a
    variable or keyword that happens to be spelled like one (``curves=True``, ``gen.permutation``)."""
    alternatives = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in names:
            base = node.value
            if (isinstance(base, ast.Name) and base.id in ("rlstats", "methods", "_methods")) or \
                    (isinstance(base, ast.Attribute) and base.attr == "methods"):
                yield node.lineno, node.attr
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            text = node.value.strip()
            if text in HOMONYMS:
                continue
            if text in names:
                yield node.lineno, text
                continue
            for match in re.finditer(rf"(?:rlstats\.(?:methods\.)?|methods\.)({alternatives})\b"
                                     rf"|\bmethod\s*=\s*['\"]({alternatives})\b|\b({alternatives})\(", text):
                yield node.lineno, next(group for group in match.groups() if group)


#: where a module outside a back end's folder still names it as code, and why: (module, name) -> reason.
NAMED_OUTSIDE = {
    ("rlstats.cli.adastop", "adastop"):
        "the `rlstats adastop` command runs the incremental AdaStop from the shell and imports it from its folder; "
        "it would move there if the command line read its commands from the declarations",
    ("rlstats.design", "curves"):
        "build()'s keyword curves= (rows are learning curves, one per run and step), and the error that points a "
        "frame of such rows at rlstats.curves",
}


def test_a_back_end_is_named_as_code_only_in_its_folder_and_its_registry_line():
    # Every module outside the back-end folders (the registry is test_a_back_end_is_named_outside_its_folder_...):
    # no import of a back end's modules and no name of a back end as code (see _references: prose, docstrings,
    # comments and variables spelled like a back end are allowed), except NAMED_OUTSIDE. Back-end folders are kept
    # apart by test_no_back_end_imports_another and reach each other only through rlstats.methods.backend("name").
    by_folder = _names_by_folder()
    names = set().union(*by_folder.values())
    owner = {name: folder for folder, spelled in by_folder.items() for name in spelled}
    found = set()
    for module, path in MODULES.items():
        if _backend(module) or module == "rlstats.methods":
            continue
        found |= {(module, _backend(target)) for target in import_graph()[module] if _backend(target)}
        tree = _tree(module)
        found |= {(module, owner[name]) for _, name in _references(tree, names)}
    assert sorted(found - set(NAMED_OUTSIDE)) == []
    assert sorted(set(NAMED_OUTSIDE) - found) == []  # an exception no longer needed is taken off the list


def test_the_reference_check_sees_what_it_must():
    code = ('"""Docstrings may name rlstats.curves(df)."""\nif method == "adastop":\n    pass\n'
            'x = rlstats.bootstrap\nmsg = "or compare the curves with rlstats.curves(df, ...)"\n'
            'path = "rlstats.methods.task_table._api:task_table"\nf(curves=True)\ncurves = gen.permutation(3)\n'
            'note = "learning curves and a permutation test"\nhint = "pass method=\'percentiles\'"\n'
            'y = methods.selection\n')
    names = {"adastop", "bootstrap", "curves", "task_table", "permutation", "percentiles", "selection"}
    assert sorted(_references(ast.parse(code), names)) == [
        (2, "adastop"), (4, "bootstrap"), (5, "curves"), (6, "task_table"), (10, "percentiles"), (11, "selection")]


def test_power_has_no_per_method_branches():
    # A branch on the method's name (`if method == ...`, `m in (...)`) in planning/: what differs between methods
    # is a field or hook of their PowerRule, declared in their folders.
    names = {"method", "methods", "m", "name"}
    offenders = []
    for module in (n for n in READERS if n.startswith("rlstats.planning")):
        for node in ast.walk(_tree(module)):
            if isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                named = any(isinstance(o, ast.Name) and o.id in names for o in operands)
                literal = any(isinstance(o, ast.Constant) and isinstance(o.value, str)
                              or isinstance(o, (ast.Tuple, ast.List, ast.Set)) for o in operands)
                if named and literal:
                    offenders.append((module, node.lineno))
    assert offenders == []


@functools.cache
def _enclosed_nodes():
    """(node, module, names of the functions and classes enclosing it) of every AST node of the package, listed once
    a process for :func:`_functions_with`'s several questions (each walk of the whole package took about 0.6 s)."""
    found = []

    def visit(node, module, enclosing):
        found.append((node, module, enclosing))
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            enclosing = (*enclosing, node.name)
        for child in ast.iter_child_nodes(node):
            visit(child, module, enclosing)

    for module in MODULES:
        visit(_tree(module), module, ())
    return found


def _functions_with(predicate):
    """(module, enclosing function or class) of every AST node the predicate accepts, over the whole package:
    one entry per enclosing definition, "<module>" for a node outside any."""
    return [(module, name) for node, module, enclosing in _enclosed_nodes() if predicate(node)
            for name in enclosing or ["<module>"]]


def test_one_capture_site():
    # The caller's environment is captured in one helper (formula.capture_environment), so a move to another
    # formula library changes one function; patsy's EvalEnvironment is named nowhere but in formula.py, and
    # only the front door (design.design_of), the public build() and the callers that add a frame before it
    # capture (compare, power's _prepare, and the wrapper of every public function, design.public_function).
    captures = _functions_with(lambda n: isinstance(n, ast.Attribute) and n.attr == "capture")
    assert sorted(set(captures)) == [("rlstats.formula", "capture_environment")]
    patsy_names = _functions_with(lambda n: isinstance(n, ast.Attribute) and n.attr == "EvalEnvironment")
    assert {module for module, _ in patsy_names} == {"rlstats.formula"}
    callers = _functions_with(lambda n: isinstance(n, ast.Call) and getattr(n.func, "attr", getattr(
        n.func, "id", None)) == "capture_environment")
    assert sorted(set(callers)) == [("rlstats.comparison", "compare"), ("rlstats.design", "build"),
                                    ("rlstats.design", "called"), ("rlstats.design", "design_of"),
                                    ("rlstats.design", "public_function"),
                                    ("rlstats.formula", "check_columns"), ("rlstats.formula", "evaluate_response"),
                                    ("rlstats.planning._api", "_prepare")]


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.endswith("._kernels")))
def test_kernels_import_no_pandas_and_no_result(name):
    tree = _tree(name)
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {(node.module or "").split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and not node.level}
    assert "pandas" not in imported
    assert not any(target.endswith(("._result", "._api", ".plots", "rlstats.results"))
                   for target in import_graph()[name])


# --------------------------------------------------------------------------- documented attribute paths

README = PACKAGE.parent / "README.md"
_DOTTED = re.compile(r"\brlstats(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


@functools.cache
def _documented_paths():
    """(where, 'rlstats.x.y') for every dotted name in a docstring of the package or in the README."""
    texts = [("README.md", README.read_text(encoding="utf-8"))] if README.exists() else []
    texts += [(name, doc) for node, name, _ in _enclosed_nodes()
              if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
              and (doc := ast.get_docstring(node))]
    return tuple(sorted({(where, match) for where, text in texts for match in _DOTTED.findall(text)}))


def _resolves(dotted):
    """Attribute access from the package, importing a submodule only below a module (as ``import`` would)."""
    obj = importlib.import_module("rlstats")
    prefix = "rlstats"
    for part in dotted.split(".")[1:]:
        prefix += "." + part
        if not hasattr(obj, part):
            if not isinstance(obj, types.ModuleType) or prefix not in MODULES:
                return False
            importlib.import_module(prefix)
        obj = getattr(obj, part)
    return True


def test_documented_attribute_paths_resolve():
    # A documented dotted name is reachable by attribute access: ``rlstats.selection.simulate`` and the like.
    broken = [(where, dotted) for where, dotted in _documented_paths() if not _resolves(dotted)]
    assert broken == []


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n != "rlstats.__main__"))
def test_every_all_name_exists(name):
    module = importlib.import_module(name)
    missing = [n for n in getattr(module, "__all__", ()) if not hasattr(module, n)]
    assert missing == []


def test_importing_the_package_does_not_import_matplotlib():
    # Plots import matplotlib when they draw, so `import rlstats` and the command line stay quick.
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import sys, rlstats; print('matplotlib' in sys.modules)"],
                          capture_output=True, text=True, timeout=HANG_SECONDS, cwd=Path(__file__).resolve().parents[1])
    assert done.stdout.strip() == "False", done.stderr


_IMPORT_LINE = re.compile(r"^\s*(?:>>> )?((?:from rlstats(?:\.\w+)* import [\w, ]+)|(?:import rlstats(?:\.\w+)*))\s*$",
                          re.MULTILINE)


@functools.cache
def _documented_imports():
    """Every ``import rlstats.x`` / ``from rlstats.x import y`` line of the READMEs, vignettes and docstrings."""
    files = (README, PACKAGE / "README.md", *sorted((PACKAGE.parent / "vignettes").glob("*.py")))
    texts = [p.read_text(encoding="utf-8") for p in files if p.exists()]
    texts += [doc for node, _, _ in _enclosed_nodes()
              if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and (doc := ast.get_docstring(node))]
    return tuple(sorted({line for text in texts for line in _IMPORT_LINE.findall(text)}))


def test_the_walk_finds_the_documented_imports():
    found = _documented_imports()
    assert {"from rlstats.planning import power", "from rlstats.normalization import normalize"} <= set(found)


def test_documented_import_paths_resolve():
    # Each documented import runs, and a documented module path imports as the very object attribute access gives.
    for line in _documented_imports():
        exec(line, {})  # noqa: S102 (the lines come from our own docs)
    modules = {d for _, d in _documented_paths() if isinstance(_value(d), types.ModuleType)} | {"rlstats.selection"}
    assert all(importlib.import_module(d) is _value(d) for d in sorted(modules)), sorted(modules)


def _value(dotted):
    if not _resolves(dotted):
        return None
    return functools.reduce(getattr, dotted.split(".")[1:], importlib.import_module("rlstats"))


def test_no_public_name_hides_a_module_of_the_same_name():
    # ``import rlstats.X`` and ``rlstats.X`` agree: a package's public name that is also its submodule is that
    # submodule, read in a fresh interpreter before the submodule is imported (importing it would rebind the name).
    pairs = [(n.rpartition(".")[0], n.rpartition(".")[2]) for n in MODULES if n.count(".") and "__" not in n]
    code = ("import importlib, types\n"
            f"for package, name in {pairs!r}:\n"
            "    face = importlib.import_module(package)\n"
            "    if name in dir(face):\n"
            "        value = getattr(face, name)\n"
            "        assert value is importlib.import_module(package + '.' + name), (package, name, value)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_SECONDS,
                          cwd=PACKAGE.parent)
    assert done.returncode == 0, done.stderr


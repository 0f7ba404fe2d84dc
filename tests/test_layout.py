"""The package's shape: imports point down, back ends stay apart (read with ast, nothing is imported).

Every module of ``rlstats`` is parsed, each ``import``/``from ... import`` (also
those inside functions) is resolved to the package module it names, and the
resulting graph must have no cycle, no arrow back to the package face, and no
module of one back end (``rlstats/methods/<x>/``) importing a module of another.
Code that needs another back end goes through the registry, ``rlstats.methods``.
"""

import ast
import importlib
import re
import types
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "rlstats"


def _module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules():
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


MODULES = _modules()


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


def import_graph():
    """module name -> set of package modules it imports (anywhere in its body)."""
    graph = {}
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        edges = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges.update(_resolve(name, node))
        edges.discard(name)
        graph[name] = edges
    return graph


GRAPH = import_graph()


def _backend(name):
    parts = name.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "methods" else None


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
                 "rlstats.cli", "rlstats.power", "rlstats.statistics", "rlstats.resampling"):
        assert name in MODULES
    assert "rlstats.methods.skillings_mack._kernels" in GRAPH["rlstats.methods.skillings_mack._api"]
    assert "rlstats.format" in GRAPH["rlstats.results"]


def test_no_import_cycle():
    cycle = _cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_nothing_imports_the_package_face():
    offenders = sorted(name for name, edges in GRAPH.items() if "rlstats" in edges)
    assert offenders == [], f"{offenders} import the package face (rlstats/__init__.py); import the module instead"


def test_no_back_end_imports_another():
    offenders = sorted((name, target) for name, edges in GRAPH.items() for target in edges
                       if _backend(name) and _backend(target) and _backend(name) != _backend(target))
    assert offenders == [], f"back ends reach each other directly (go through rlstats.methods.backend): {offenders}"


def test_power_and_compare_reach_back_ends_only_through_the_registry():
    offenders = sorted((name, target) for name, edges in GRAPH.items() for target in edges
                       if name.startswith(("rlstats.power", "rlstats.compare")) and _backend(target))
    assert offenders == [], f"use rlstats.methods.backend / OPERATIONS instead: {offenders}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.endswith("._kernels")))
def test_kernels_import_no_pandas_and_no_result(name):
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {(node.module or "").split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and not node.level}
    assert "pandas" not in imported
    assert not any(target.endswith(("._result", "._api", ".plots", "rlstats.results")) for target in GRAPH[name])


# --------------------------------------------------------------------------- documented attribute paths

README = PACKAGE.parent / "README.md"
_DOTTED = re.compile(r"\brlstats(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


def _documented_paths():
    """(where, 'rlstats.x.y') for every dotted name in a docstring of the package or in the README."""
    texts = [("README.md", README.read_text(encoding="utf-8"))] if README.exists() else []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                if doc:
                    texts.append((name, doc))
    return sorted({(where, match) for where, text in texts for match in _DOTTED.findall(text)})


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
    # A function that shadows a module of the same name (rlstats.compare, rlstats.power) must not be
    # documented as if it were the module: ``rlstats.compare.METHODS`` would raise AttributeError.
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
                          capture_output=True, text=True, timeout=120, cwd=Path(__file__).resolve().parents[1])
    assert done.stdout.strip() == "False", done.stderr

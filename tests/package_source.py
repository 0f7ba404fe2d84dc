"""The package's source as the layout tests read it (with ast; nothing is imported): module names, their paths, and
each module's parsed tree, parsed once a process and only when a test first asks, since parsing all of it at
collection cost every test worker seconds whether or not it ran a layout test."""

import ast
import functools
import gc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "rlstats"


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}
"""Dotted module name -> path of every module of the package."""


def parse(path):
    """The parsed source of the file ``path``, read with the cyclic garbage collector paused: the nodes of a parse
    are no garbage, but their number sets off full collections over every object of the test process (a third of
    the layout and packaging tests' CPU, gc.callbacks)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    finally:
        if paused:
            gc.enable()


@functools.cache
def tree(name):
    """The parsed source of one package module."""
    return parse(MODULES[name])


def statements(body):
    """Every statement in ``body`` and in the bodies nested in it (functions, classes, if, try, with, match, ...):
    where an import can be, without visiting every expression as ast.walk does (a fifth of the time of the parse itself)."""
    for node in body:
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            nested = getattr(node, field, None)
            if isinstance(nested, list):
                yield from statements(nested)


def trees():
    """Dotted module name -> parsed source, for every module of the package."""
    return {name: tree(name) for name in MODULES}

"""Public names of a package that load on first use (PEP 562).

The ``rlstats`` command imports the package before it parses its arguments, so a
package face that imported every back end would make ``rlstats --version`` pay
for pandas and scipy.  A package that uses :func:`lazy_names` keeps only a map
of where each name lives and imports that module when the name is first read.
"""

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def lazy_names(package: str, sources: Mapping[str, Iterable[str]], *,
               submodules: bool = False) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose names come from ``sources``.

    ``sources`` maps a module (relative to ``package``) to the names read from it, as
    ``from module import name`` would: an attribute, or else a submodule of that name.
    A name read once is kept in the package's namespace.  With ``submodules``, any
    other public name is tried as a submodule of ``package`` (``rlstats.results``).
    """
    where = {name: module for module, names in sources.items() for name in names}
    namespace = vars(sys.modules[package])

    def missing(name: str) -> AttributeError:
        return AttributeError(f"module {package!r} has no attribute {name!r}")

    def __getattr__(name: str) -> Any:
        if name in where:
            module = importlib.import_module(where[name], package)
            try:
                value = getattr(module, name)
            except AttributeError:
                value = importlib.import_module(f"{module.__name__}.{name}")
        elif submodules and not name.startswith("_"):  # never rlstats.__main__, which runs the command
            try:
                value = importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
                raise missing(name) from None
        else:
            raise missing(name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where) | set(namespace.get("__all__", ())))

    return __getattr__, __dir__

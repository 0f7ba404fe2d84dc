"""Every public function, method, property and result field carries a type annotation that resolves (issue 33).

The walk starts from what users import: ``rlstats.__all__`` (the lazily loaded names included), the public
submodules (``rlstats.datasets``, ``rlstats.logs``, ``rlstats.selection``, ``rlstats.normalization``,
``rlstats.calibration``, ``rlstats.formula``, ``rlstats.conditions``, ``rlstats.planning``, each back-end folder's
``__all__``), and the result classes. A class's public methods and properties are those defined in
rlstats along its MRO (not pandas' or object's); every rlstats class named in a resolved return annotation is
walked too, so a ``summary()`` returning ``Summary`` brings ``Summary`` in. Annotations are resolved with
``typing.get_type_hints`` in the namespace a type checker sees: the module's globals plus the imports under its
``if TYPE_CHECKING:`` (and those of ``rlstats._typing``, whose aliases name their classes in strings).
``mypy`` (pyproject.toml) checks the bodies; this test checks that nothing public is left out of its reach.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import inspect
import sys
import typing

import rlstats

# the package face, the public submodules, and every back-end folder's own __all__ (rlstats.methods.adastop's
# AdaStop, the options classes)
MODULES = ("rlstats", "rlstats.datasets", "rlstats.logs", "rlstats.selection", "rlstats.normalization",
           "rlstats.calibration", "rlstats.results", "rlstats.formula", "rlstats.conditions", "rlstats.planning",
           *(f"rlstats.methods.{folder}" for folder in rlstats.methods.FOLDERS))
# dunders that are public API: construction, R's res["p.value"], a callable object
PUBLIC_DUNDERS = ("__init__", "__call__", "__getitem__")


def is_rlstats(obj):
    return (getattr(obj, "__module__", None) or "").split(".")[0] == "rlstats"


class _Missing:
    """An optional library's module or name, when it is not installed: any attribute is a placeholder class."""

    def __getattr__(self, name):
        return type(name, (), {})


@functools.lru_cache(maxsize=None)
def type_checking_names(module_name):
    """The names a module imports under ``if TYPE_CHECKING:``, imported here as a type checker would see them."""
    module = importlib.import_module(module_name)
    tree = ast.parse(inspect.getsource(module))
    namespace = {"__name__": module.__name__, "__package__": module.__package__}
    for node in tree.body:
        test = getattr(node, "test", None)
        if isinstance(node, ast.If) and ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
                                         or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")):
            for statement in node.body:
                try:
                    exec(compile(ast.Module([statement], []), module.__file__, "exec"), namespace)
                except ImportError:
                    if getattr(statement, "level", 0):  # one of rlstats' own modules: a real error
                        raise
                    # an optional library that is not installed (polars, pyarrow): its names stand in for it
                    for alias in statement.names:
                        namespace[alias.asname or alias.name.split(".")[0]] = _Missing()
    return {k: v for k, v in namespace.items() if not k.startswith("__")}


def namespace_of(*module_names):
    out = dict(type_checking_names("rlstats._typing"))
    for name in module_names:
        if name in sys.modules:
            out.update(type_checking_names(name))
    return out


def classes_in(hint):
    """The rlstats classes a resolved annotation names (inside unions, generics, ...)."""
    if isinstance(hint, type) and is_rlstats(hint):
        yield hint
    for arg in typing.get_args(hint):
        yield from classes_in(arg)
    origin = typing.get_origin(hint)
    if isinstance(origin, type) and is_rlstats(origin):
        yield origin


class Walk:
    def __init__(self):
        self.callables = {}   # qualified name -> list of problems ([] when fully annotated)
        self.fields = {}      # "Class.field" -> problem or None
        self.seen = set()
        self.pending = []

    def function(self, qualname, func, *, skip_first=False, is_init=False):
        func = inspect.unwrap(func)
        problems = []
        try:
            hints = typing.get_type_hints(func, localns=namespace_of(func.__module__))
        except Exception as exc:  # NameError, TypeError, ...: the annotations do not resolve
            self.callables[qualname] = [f"annotations do not resolve ({type(exc).__name__}: {exc})"]
            return
        parameters = list(inspect.signature(func).parameters.values())
        for parameter in parameters[1:] if skip_first else parameters:
            variadic = parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
            if parameter.name not in hints and not variadic:
                problems.append(f"parameter {parameter.name!r}")
        if "return" not in hints and not is_init:
            problems.append("return")
        self.callables[qualname] = problems
        for hint in hints.values():
            self.enqueue_classes(hint)

    def enqueue_classes(self, hint):
        for cls in classes_in(hint):
            if cls not in self.seen:
                self.pending.append(cls)

    def klass(self, cls):
        if cls in self.seen:
            return
        self.seen.add(cls)
        ours = [base for base in cls.__mro__ if is_rlstats(base)]
        for base in ours:
            self.enqueue_classes(base)
            for name, member in vars(base).items():
                if name.startswith("_") and name not in PUBLIC_DUNDERS:
                    continue
                qualname = f"{base.__module__}.{base.__qualname__}.{name}"
                if qualname in self.callables:
                    continue
                if isinstance(member, property):
                    self.function(qualname, member.fget, skip_first=True)
                elif isinstance(member, functools.cached_property):
                    self.function(qualname, member.func, skip_first=True)
                elif isinstance(member, (classmethod, staticmethod)):
                    self.function(qualname, member.__func__, skip_first=isinstance(member, classmethod))
                elif inspect.isfunction(member):
                    if name == "__init__" and member.__code__.co_filename == "<string>":
                        continue  # a dataclass's generated __init__: its fields are checked below
                    self.function(qualname, member, skip_first=True, is_init=name == "__init__")
        self.class_fields(cls, ours)

    def class_fields(self, cls, ours):
        try:
            hints = typing.get_type_hints(cls, localns=namespace_of(*(base.__module__ for base in ours)))
        except Exception as exc:
            self.fields[f"{cls.__module__}.{cls.__qualname__}"] = f"field annotations do not resolve ({exc})"
            return
        for hint in hints.values():
            self.enqueue_classes(hint)
        if dataclasses.is_dataclass(cls) or hasattr(cls, "_fields"):  # a dataclass or NamedTuple: fields annotated
            for name in (f.name for f in dataclasses.fields(cls)) if dataclasses.is_dataclass(cls) else cls._fields:
                self.fields[f"{cls.__module__}.{cls.__qualname__}.{name}"] = None
        # a plain class's public attributes are those its __init__ assigns (self.name = ...)
        init = vars(cls).get("__init__")
        if dataclasses.is_dataclass(cls) or not inspect.isfunction(init) or init.__code__.co_filename == "<string>":
            return
        try:
            tree = ast.parse(inspect.cleandoc("\n" + inspect.getsource(init)))
        except (OSError, SyntaxError):
            return
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            for target in targets:
                if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                        and target.value.id == "self" and not target.attr.startswith("_")):
                    key = f"{cls.__module__}.{cls.__qualname__}.{target.attr}"
                    self.fields[key] = None if target.attr in hints else "attribute set in __init__ has no annotation"

    def module(self, module_name):
        module = importlib.import_module(module_name)
        names = getattr(module, "__all__", None)
        if names is None:
            names = [n for n, v in vars(module).items()
                     if not n.startswith("_") and getattr(v, "__module__", None) == module_name]
        for name in names:
            value = getattr(module, name)
            if inspect.isclass(value) and is_rlstats(value):
                self.pending.append(value)
            elif inspect.isfunction(value) and is_rlstats(value):
                self.function(f"{value.__module__}.{value.__qualname__}", value)

    def run(self):
        for name in MODULES:
            self.module(name)
        while self.pending:
            self.klass(self.pending.pop())
        return self


@functools.lru_cache(maxsize=None)
def walked():
    return Walk().run()


def test_the_walk_reaches_the_public_api():
    walk = walked()
    names = set(walk.callables)
    for expected in ("rlstats.comparison.compare", "rlstats.normalization.normalize",
                     "rlstats.datasets._simulated.simulate", "rlstats.logs._read.read_logs",
                     "rlstats.results.Result.tidy", "rlstats.results.Summary.to_latex",
                     "rlstats.design.Design.select_agents", "rlstats.calibration.shortfall"):
        assert expected in names, expected
    assert len(names) > 150


def test_every_public_callable_is_annotated():
    walk = walked()
    missing = {name: problems for name, problems in sorted(walk.callables.items()) if problems}
    total = len(walk.callables)
    lines = [f"{name}: {', '.join(problems)}" for name, problems in missing.items()]
    assert not missing, (f"{total - len(missing)} of {total} public callables fully annotated; missing:\n"
                         + "\n".join(lines))


def test_every_result_field_is_annotated():
    walk = walked()
    missing = {name: problem for name, problem in sorted(walk.fields.items()) if problem}
    total = len(walk.fields)
    assert not missing, (f"{total - len(missing)} of {total} public fields annotated; missing:\n"
                         + "\n".join(f"{k}: {v}" for k, v in missing.items()))


def test_the_package_ships_py_typed():
    from pathlib import Path

    assert (Path(rlstats.__file__).parent / "py.typed").is_file()


def test_the_face_stub_names_every_public_name_where_it_lives():
    # rlstats/__init__.py loads its names on first use, so type checkers read rlstats/__init__.pyi instead: it must
    # re-export (``name as name``) exactly rlstats.__all__, each the object the package gives at run time.
    from pathlib import Path

    stub = Path(rlstats.__file__).with_suffix(".pyi")
    named = {}
    for node in ast.parse(stub.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef):  # compare's overloads, typed per method (test_compare_overloads_...)
            named[node.name] = getattr(rlstats, node.name)
        if isinstance(node, ast.ImportFrom) and node.module in ("typing", "_typing"):
            continue  # what the overloads' signatures use, not re-exported
        if isinstance(node, ast.ImportFrom):
            assert node.level == 1, ast.unparse(node)
            module = importlib.import_module("rlstats" + (f".{node.module}" if node.module else ""))
            for alias in node.names:
                assert alias.asname == alias.name, f"{alias.name}: re-export as `{alias.name} as {alias.name}`"
                value = getattr(module, alias.name, None)
                named[alias.name] = importlib.import_module(f"{module.__name__}.{alias.name}") if value is None \
                    else value
    missing = sorted(set(rlstats.__all__) - set(named))
    assert not missing, f"add these names of rlstats.__all__ to {stub.name}: {missing}"
    assert sorted(set(named) - set(rlstats.__all__)) == ["__version__"]
    assert [name for name in rlstats.__all__ if named[name] is not getattr(rlstats, name)] == []


def test_every_public_alias_of_a_module_has_a_stub():
    # rlstats.selection is a back end's folder entered in sys.modules under its public name; with no file of that
    # name, type checkers read rlstats/<name>.pyi, which star-imports the folder.
    from pathlib import Path

    import rlstats.methods as methods

    aliases = [name for name, path in methods.PUBLIC.items() if path.partition(":")[0] == methods.__name__]
    assert aliases
    for name in aliases:
        stub = Path(rlstats.__file__).with_name(f"{name}.pyi")
        [node] = [n for n in ast.parse(stub.read_text(encoding="utf-8")).body if isinstance(n, ast.ImportFrom)]
        assert [alias.name for alias in node.names] == ["*"]
        assert importlib.import_module(f"rlstats.{node.module}") is sys.modules[f"rlstats.{name}"]


def test_tidy_and_glance_show_the_names_keyword_to_type_checkers():
    # Result wraps every subclass's tidy and glance to take names= at run time (results._column_names); the
    # signature says so too, or a type checker would reject res.tidy(names="broom").
    from rlstats.results import Result

    results = [cls for cls in walked().seen if issubclass(cls, Result)]
    assert len(results) > 10
    lacking = [f"{cls.__name__}.{method}" for cls in results for method in ("tidy", "glance")
               if "names" not in inspect.signature(getattr(cls, method)).parameters]
    assert lacking == []

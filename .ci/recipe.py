"""Read a conda-build recipe (recipe/meta.yaml, or grayskull's output) without conda-build, jinja2 or a YAML library.

Only the subset those recipes use is read: ``{% set name = "value" %}`` lines, top-level sections, two-space keys
with a scalar or a list of ``- item`` lines, and comments. Anything else (a selector such as ``# [win]``, a deeper
level, a line it does not know) is an error rather than a silent misreading: a noarch: python recipe needs none.

Used by tests/test_packaging.py (the recipe against pyproject.toml and setup.cfg) and by .ci/recipe-check:
    python .ci/recipe.py commands RECIPE            the test section as shell commands, one a line
    python .ci/recipe.py compare RECIPE GRAYSKULL   exit 1, printing both lists, if the requirements differ
"""

import re
import sys
from pathlib import Path

SET = re.compile(r'\{%\s*set\s+(\w+)\s*=\s*"([^"]*)"\s*%\}')


def read(path):
    """The recipe as ``{"set": {name: value}, section: {key: scalar or list}}``, values as written (unrendered)."""
    recipe = {"set": {}}
    section = key = None
    for number, raw in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if re.search(r"#\s*\[", raw):
            raise ValueError(f"{path}:{number}: a selector ({raw.strip()!r}); a noarch: python recipe has none")
        line = re.sub(r"(^|\s)#.*$", "", raw).rstrip()
        if not line:
            continue
        found = SET.fullmatch(line.strip())
        if found:
            recipe["set"][found[1]] = found[2]
        elif re.fullmatch(r"[a-z_]+:", line):
            section = recipe.setdefault(line[:-1], {})
        elif section is not None and (found := re.fullmatch(r"  ([a-z0-9_-]+):(?: (.+))?", line)):
            key = found[1]
            section[key] = found[2] if found[2] is not None else []
        elif key is not None and isinstance(section.get(key), list) and (found := re.fullmatch(r"    - (.+)", line)):
            section[key].append(found[1])
        else:
            raise ValueError(f"{path}:{number}: not read by .ci/recipe.py: {raw!r}")
    return recipe


def render(text, recipe):
    """``text`` with each ``{{ name }}`` of the recipe's set lines replaced by its value (others left as written)."""
    return re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: recipe["set"].get(m[1], m[0]), text)


def run_requirements(recipe):
    """The rendered run requirements, as ``name spec`` strings with one space, in the recipe's order."""
    return [" ".join(render(item, recipe).split()) for item in recipe["requirements"]["run"]]


def test_commands(recipe):
    """The test section as shell commands: each import as ``python -c "import X"``, then the commands."""
    test = recipe["test"]
    return [f'python -c "import {name}"' for name in test.get("imports", [])] + list(test.get("commands", []))


def compare(kept, generated):
    """The differences between two recipes in what grayskull derives from the package metadata (empty: none)."""
    problems = []
    if sorted(run_requirements(kept)) != sorted(run_requirements(generated)):
        problems.append("run requirements differ:\n  recipe/meta.yaml: " + ", ".join(run_requirements(kept))
                        + "\n  grayskull:        " + ", ".join(run_requirements(generated)))
    for section, key in (("build", "entry_points"), ("build", "noarch"), ("about", "license"),
                         ("about", "license_file"), ("about", "summary")):
        mine, theirs = kept[section].get(key), generated[section].get(key)
        if mine != theirs:
            problems.append(f"{section}/{key} differs: recipe/meta.yaml {mine!r}, grayskull {theirs!r}")
    if kept["set"]["python_min"] != generated["set"].get("python_min"):
        problems.append(f"python_min differs: recipe/meta.yaml {kept['set']['python_min']!r}, "
                        f"grayskull {generated['set'].get('python_min')!r}")
    return problems


def main(argv):
    if len(argv) == 2 and argv[0] == "commands":
        print("\n".join(test_commands(read(argv[1]))))
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        problems = compare(read(argv[1]), read(argv[2]))
        print("\n".join(problems) or f"{argv[1]} and grayskull's {argv[2]} agree: " + ", ".join(
            run_requirements(read(argv[1]))))
        return 1 if problems else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The pages of the site that follow the package, written into ``docs/generated/`` at each build.

* ``calibration.png``: the calibration page's figure, drawn from the table that ships with the package;
* ``api.rst``: every name of ``rlstats.__all__`` (the back ends' names come from the registry, so a new back end
  appears by itself) and of ``rlstats.datasets``, grouped, as autosummary tables;
* ``backends/``: one page per back-end folder of ``rlstats.methods.FOLDERS``: what each of its back ends declares
  (function, result, options, power rule or why none, demo call, papers) and the folder's own "When to use"
  section (and any section after it), the docstring of its ``_backend.py`` (a back end's knowledge stays in its
  folder);
* ``gallery/``: the vignettes executed into notebooks (``vignettes/render.py``'s ``execute``), with an index of
  their titles and first figures.  Executed notebooks are reused while neither the vignette nor the package
  changes (a hash of both is kept in the notebook).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import inspect
import io
import os
import re
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VIGNETTES = ROOT / "vignettes"
WHEN_HEADING = re.compile(r"^When to use\n-{11}\n", re.MULTILINE)

#: the package face's names that the registry does not declare, by section of the API page
SECTIONS = {
    "Comparing agents": ("compare",),
    "Planning a study": ("power", "sample_size", "PowerResult"),
    "Learning curves and training logs": ("summarize_runs", "align_steps", "read_logs", "read_wandb"),
    "Scores and data": ("normalize",),
    "Measured coverage": ("calibration_table",),
    "Citing": ("cite",),
    "Formulas and designs": ("parse", "Formula", "build", "Design"),
    "Errors and warnings": ("RlstatsError", "FormulaError", "DesignError", "OptionError", "DataUnavailableError",
                            "LogReadError", "RlstatsWarning"),
}


def _logger():
    """Sphinx's logger (imported here so that tests/test_docs.py reads this module without Sphinx)."""
    from sphinx.util import logging

    return logging.getLogger("rlstats.docs")


def generate(docs: Path, vignettes: str = "fast") -> None:
    out = docs / "generated"
    out.mkdir(exist_ok=True)
    _write(out / "api.rst", api_page())
    landing_figure(docs, out / "landing.png")
    calibration_figure(out / "calibration.png")
    backend_pages(out / "backends")
    gallery(out / "gallery", vignettes)


def _write(path: Path, text: str) -> None:
    """Write only when the text changes, so Sphinx rebuilds only what changed."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _heading(text: str, underline: str = "=") -> str:
    return f"{text}\n{underline * len(text)}\n\n"


def _autosummary(names, *, toctree: bool = True) -> str:
    lines = [".. autosummary::", *(["   :toctree: api/"] if toctree else []), "   :nosignatures:", ""]
    return "\n".join([*lines, *(f"   {name}" for name in names), "", ""])


# --- the landing page's figure ----------------------------------------------------------------------------------

def landing_figure(docs: Path, target: Path) -> None:
    """Run the ten-line example of ``index.md`` and save the figure it draws (so page and figure cannot differ)."""
    import matplotlib.pyplot as plt

    text = (docs / "index.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1).replace("plt.show()", "")
    plt.close("all")
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # the page shows the code; the build log stays short
            exec(compile(code, str(docs / "index.md"), "exec"), {"__name__": "docs"})  # noqa: S102 (our own page)
        figure = plt.gcf()
        figure.set_size_inches(6.4, 2.6)
        target.parent.mkdir(exist_ok=True)
        figure.savefig(target, dpi=110, bbox_inches="tight", metadata={"Software": None})
    finally:
        plt.close("all")


# --- the calibration page's figure -------------------------------------------------------------------------------

def calibration_figure(target: Path) -> None:
    """Draw the package's calibration table (``calibration.md``): the figure follows every row measured again."""
    import matplotlib.pyplot as plt

    import rlstats

    plt.close("all")
    try:
        figure = rlstats.plotting.calibration_figure(rlstats.calibration_table())
        target.parent.mkdir(exist_ok=True)
        figure.savefig(target, dpi=150, metadata={"Software": None})
    finally:
        plt.close("all")


# --- the API page ------------------------------------------------------------------------------------------------

def api_sections() -> dict[str, list[str]]:
    """Section -> fully qualified public names; every name of ``rlstats.__all__`` is in exactly one."""
    import rlstats
    import rlstats.datasets
    from rlstats import methods

    declared = {d.function_name for d in methods.DECLARATIONS.values()}
    results = {d.result_name for d in methods.DECLARATIONS.values()}
    placed = {name for names in SECTIONS.values() for name in names} | set(methods.PUBLIC) | {"datasets"}
    sections = {
        "Comparing agents": [*SECTIONS["Comparing agents"], *(n for n in methods.PUBLIC if n in declared)],
        "Results": [n for n in methods.PUBLIC if n in results or n.endswith("Result")],
        "Back ends' other public names": [n for n in methods.PUBLIC if n not in declared and n not in results
                                          and not n.endswith("Result")],
        **{title: list(names) for title, names in SECTIONS.items() if title != "Comparing agents"},
        "Other": [n for n in rlstats.__all__ if n not in placed],
    }
    sections = {title: [f"rlstats.{n}" for n in names] for title, names in sections.items()}
    sections["Scores and data"] += [f"rlstats.datasets.{n}" for n in rlstats.datasets.__all__]
    return {title: names for title, names in sections.items() if names}


def api_page() -> str:
    text = _heading("API reference") + textwrap.dedent("""\
        Every public name of the package, from its numpydoc docstring. The back ends' functions and results are
        read from the registry (``rlstats.methods``), so a new back end is listed here as soon as its folder is
        registered; :doc:`backends/index` says when to use each.

        """)
    for title, names in api_sections().items():
        text += _heading(title, "-") + _autosummary(names)
    return text


# --- one page per back-end folder --------------------------------------------------------------------------------

def when_to_use(folder: str) -> str | None:
    """The "When to use" section of ``methods/<folder>/_backend.py``'s docstring, or None."""
    import importlib

    doc = inspect.getdoc(importlib.import_module(f"rlstats.methods.{folder}._backend")) or ""
    found = WHEN_HEADING.search(doc + "\n")
    if not found:
        return None
    rest = doc[found.end():]
    following = re.search(r"^\S[^\n]*\n-{3,}\n", rest, re.MULTILINE)  # the next section, if any
    return (rest[:following.start()] if following else rest).strip()


def further_sections(folder: str) -> list[tuple[str, str]]:
    """The sections after "When to use" of ``methods/<folder>/_backend.py``'s docstring, as (heading, text)."""
    import importlib

    doc = inspect.getdoc(importlib.import_module(f"rlstats.methods.{folder}._backend")) or ""
    found = WHEN_HEADING.search(doc + "\n")
    if not found:
        return []
    parts = re.split(r"^(\S[^\n]*)\n-{3,}\n", doc[found.end():], flags=re.MULTILINE)
    return [(heading, text.strip()) for heading, text in zip(parts[1::2], parts[2::2])]


#: LaTeX accents of the citations' BibTeX (``{\'e}``, ``{\v{s}}``) as Unicode combining marks, and its letters (``{\o}``)
_ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304", ".": "\u0307",
            "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327"}
_LETTERS = {"o": "ø", "O": "Ø", "l": "ł", "L": "Ł", "ss": "ß", "aa": "å", "AA": "Å", "ae": "æ", "AE": "Æ", "i": "i"}


def _bibtex_fields(bibtex: str) -> dict[str, str]:
    """``key = {value}`` pairs of one BibTeX entry, braces nested to any depth."""
    fields, at = {}, 0
    while found := re.compile(r"(\w+)\s*=\s*\{").search(bibtex, at):
        depth, end = 1, found.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(bibtex[end], 0)
            end += 1
        fields[found.group(1)] = " ".join(bibtex[found.end():end - 1].split())
        at = end
    return fields


def _plain(latex: str) -> str:
    """BibTeX text as a reader sees it: accents as Unicode, no braces or backslashes."""
    import unicodedata

    text = re.sub(r"\\([a-zA-Z]+)\b\s*", lambda m: _LETTERS.get(m.group(1), m.group(0)), latex)
    text = re.sub(r"\\([^\w\s]|[uvHc](?![a-zA-Z]))\s*\{?\s*(\\?\w)\}?",
                  lambda m: m.group(2).lstrip("\\") + _ACCENTS.get(m.group(1), ""), text)
    return unicodedata.normalize("NFC", text.replace("{", "").replace("}", ""))


def _paper(bibtex: str) -> str:
    fields = {key: _plain(value) for key, value in _bibtex_fields(bibtex).items()}
    authors = fields.get("author", "").split(" and ")
    first = authors[0].split(",")[0].strip()
    who = first if len(authors) == 1 else f"{first} and {authors[1].split(',')[0].strip()}" if len(authors) == 2 \
        else f"{first} et al."
    title = fields.get("title", "")
    return f"{who} ({fields.get('year', 'n.d.')}). *{title}*."


def _declaration_rows(declared) -> list[tuple[str, str]]:
    from rlstats.citations import ENTRIES
    from rlstats.methods import load

    def options(function_name):
        # What a reader types: the public function's own keywords and defaults (its options class also holds fields
        # the function sets itself, such as the permutation test's fixed K, which are no keywords)
        import inspect

        import rlstats

        parameters = inspect.signature(getattr(rlstats, function_name)).parameters.values()
        default = [f"``{p.name}={p.default!r}``" if p.default is not p.empty else f"``{p.name}``"
                   for p in parameters if p.name not in ("data", "formula") and p.kind is not p.VAR_KEYWORD]
        return (f"keyword arguments of :func:`rlstats.{function_name}` and of ``rlstats.compare()`` "
                "(defaults shown): " + ", ".join(default))

    rows = [("function", f":func:`rlstats.{declared.function_name}`"),
            ("result", f":class:`rlstats.{declared.result_name}`"),
            ("compare()", f'``rlstats.compare(df, formula, method="{declared.name}")``'
                          + (f", the default {declared.default_for}" if declared.default_for else "")),
            ("data", "learning curves: one row per agent, task, run and step" if declared.reads_curves
             else "one row per run (agent, task, seed)"),
            ("options", options(declared.function_name))]
    if declared.power is not None:
        rule = declared.power
        rows.append(("power()", f'``rlstats.power("{declared.name}", ...)`` counts the decisions of the '
                                f"{rule.label}" + (f", one per task ({rule.called})" if rule.per_task else "")))
    else:
        rows.append(("power()", f"not available: {declared.no_power}"))
    if declared.demo is not None:
        formula, options = declared.demo
        if not isinstance(options, str) and "normalize" in inspect.signature(load(declared.function)).parameters:
            options = {"normalize": "minmax", **options}  # as `rlstats demo` calls it (cli's demo, its scales apart)
        shown = "options chosen from the data" if isinstance(options, str) else \
            ", ".join(f"{k}={v!r}" for k, v in options.items())
        rows.append(("rlstats demo", f'``"{formula}"``' + (f", {shown}" if shown else "")))
    else:
        rows.append(("rlstats demo", f"not run: {declared.no_demo}"))
    rows.append(("papers", " ".join(_paper(ENTRIES[key]) for key in declared.citations)))
    summary = (inspect.getdoc(load(declared.function)) or "").split("\n\n")[0].replace("\n", " ")
    return [("what it does", summary), *rows]


def backend_page(folder: str) -> str:
    from rlstats import methods

    declared = [d for d in methods.DECLARATIONS.values() if d.function.startswith(f"rlstats.methods.{folder}.")]
    when = when_to_use(folder)
    if when is None:
        _logger().warning(f"rlstats/methods/{folder}/_backend.py: its docstring has no 'When to use' section "
                       "(a heading 'When to use' underlined with 11 dashes, then a paragraph)")
        when = "Not stated yet."
    names = [d.name for d in declared]
    text = _heading(f"``{folder}``" if names == [folder] else f"``{folder}``: " + ", ".join(names))
    text += _heading("When to use", "-") + when + "\n\n"
    for heading, body in further_sections(folder):  # e.g. the rank test's post hocs and figures
        text += _heading(heading, "-") + body + "\n\n"
    for d in declared:
        text += _heading(f'method="{d.name}"', "-") + ".. list-table::\n   :stub-columns: 1\n   :widths: 1 4\n\n"
        for key, value in _declaration_rows(d):
            text += f"   * - {key}\n     - {value}\n"
        text += "\n"
    text += ("Not sure this is the method for your runs? :doc:`../../which_method` answers by design: one run per "
             "environment, 3 to 5 runs, many tasks, tuned agents, agents on different task sets.\n\n")
    text += (f"This page is generated from ``rlstats/methods/{folder}/_backend.py``: its declarations and the "
             "'When to use' section of its docstring.\n")
    return text


def backend_pages(out: Path) -> None:
    from rlstats import methods

    out.mkdir(exist_ok=True)
    folders = [f.split(".")[-1] for f in methods.FOLDERS]
    index = _heading("Back ends") + textwrap.dedent("""\
        Each back end lives in its own folder of ``rlstats/methods/`` and declares itself there: its public
        function, result, options, papers and what :func:`rlstats.power` can plan for it. These pages are written
        from those declarations; the "When to use" text of each is the docstring of the folder's ``_backend.py``.
        To choose among them from the way your runs were made, see :doc:`../../which_method`.

        .. list-table::
           :header-rows: 1
           :widths: 1 1 3

           * - folder
             - ``method=``
             - what it does
        """)
    for folder in folders:
        _write(out / f"{folder}.rst", backend_page(folder))
        declared = [d for d in methods.DECLARATIONS.values() if d.function.startswith(f"rlstats.methods.{folder}.")]
        for row, d in enumerate(declared):
            summary = dict(_declaration_rows(d))["what it does"]
            index += f"   * - {f':doc:`{folder} <{folder}>`' if row == 0 else ''}\n     - ``{d.name}``\n     - {summary}\n"
    index += "\n.. toctree::\n   :hidden:\n\n" + "".join(f"   {folder}\n" for folder in folders)
    _write(out / "index.rst", index)


# --- the gallery -------------------------------------------------------------------------------------------------

def vignette_paths() -> list[Path]:
    return sorted(p for p in VIGNETTES.glob("*.py") if p.name != "render.py" and not p.name.startswith("_"))


def _fingerprint(path: Path, size: str) -> str:
    digest = hashlib.sha256(size.encode())
    for source in [path, Path(__file__), *sorted((ROOT / "rlstats").rglob("*.py"))]:
        digest.update(source.read_bytes())
    return digest.hexdigest()


BOX_TITLE = "Data not available here: how to get it"


class DataMissing(Exception):
    """A vignette stopped because the data it reads are not on this machine (the message says which)."""


#: Variables of the dataset loader: a message naming another RLSTATS_ variable (the SB3 logs' RLSTATS_SB3_LOGS) is
#: about data no download or mirror holds, and its own way on is the box's.
_LOADER_VARIABLES = {"RLSTATS_DATA_MIRROR", "RLSTATS_DATA_DIR"}


def data_box(reason: str) -> str:
    """The Markdown box a gallery page shows instead of outputs when the vignette's data are missing."""
    own = set(re.findall(r"RLSTATS_[A-Z0-9_]+", reason)) - _LOADER_VARIABLES
    way = ("To run it (or to build this page with its outputs): do what the message above says; these data are not "
           "published files, so no download or `RLSTATS_DATA_MIRROR` holds them." if own else
           "To run it (or to build this page with its outputs): let `rlstats.datasets.load` download the pinned "
           "files once (it needs the network; they are cached, `RLSTATS_DATA_DIR` says where), or set the "
           "environment variable `RLSTATS_DATA_MIRROR` to a folder holding copies of them under "
           "`<owner>/<repo>/<commit>/<path>`; `rlstats.datasets.available()` lists every data set with its files "
           "and their URLs.")
    return textwrap.dedent("""\
        :::{{admonition}} {title}
        :class: warning

        This site was built where the data of this vignette are not available, so its code is shown without
        outputs. The vignette said:

        > {reason}

        {way} Then run `python vignettes/{{name}}` or rebuild the site.
        :::
        """).format(title=BOX_TITLE, reason=_literal_markdown(" ".join(reason.split())), way=way)


def _literal_markdown(text: str) -> str:
    """``text`` as Markdown that shows it as it is (``<owner>`` is not an HTML tag, ``_`` not emphasis)."""
    return re.sub(r"([\\`*_\[\]<>|#])", r"\\\1", text)


def unavailable_notebook(path: Path, reason: str):
    """The vignette unexecuted, with the "data not available here" box after its title."""
    import jupytext
    import nbformat

    notebook = jupytext.read(path)
    notebook.metadata["language_info"] = {"name": "python"}
    notebook.cells.insert(1, nbformat.v4.new_markdown_cell(data_box(reason).replace("{name}", path.name)))
    return notebook


def _execute(path: Path, size: str):
    """The vignette executed by ``vignettes/render.py`` at ``size``, in a kernel of this interpreter."""
    sys.path.insert(0, str(VIGNETTES))
    saved = dict(os.environ)
    try:
        import render

        render.kernel_environment(size)
        try:
            return render.execute(path, timeout=1800, kernel=None, quiet=True)
        except Exception as err:  # nbclient's error holds the cell's traceback
            if getattr(err, "ename", None) == "DataUnavailableError":  # the kernel's error, by its class name
                raise DataMissing(str(getattr(err, "evalue", err))) from None
            raise RuntimeError(
                f"vignettes/{path.name} failed while the gallery was built ({type(err).__name__}: {err}). "
                "Offline, the published data sets need RLSTATS_DATA_MIRROR (docs/conf.py sets it to "
                "../shared/data/raw when that folder exists); RLSTATS_DOCS_VIGNETTES=skip builds the site "
                "without executing the vignettes") from err
    finally:
        os.environ.clear()
        os.environ.update(saved)
        sys.path.remove(str(VIGNETTES))


def _first_png(notebook) -> bytes | None:
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if "image/png" in output.get("data", {}):
                return base64.b64decode(output["data"]["image/png"])
    return None


def _title(notebook, fallback: str) -> str:
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            found = re.search(r"^#\s+(.+)$", cell.source, re.MULTILINE)
            if found:
                return found.group(1).strip()
    return fallback


def _require(module: str, why: str) -> None:
    """A SystemExit naming ``module`` and the extra that installs it, where it is absent (not an ImportError from
    wherever it is first imported, after the gallery's folders are made)."""
    import importlib

    try:
        importlib.import_module(module)
    except ImportError:
        raise SystemExit(f"the docs' gallery needs {module}, which {why} (also with RLSTATS_DOCS_VIGNETTES=skip): "
                         f"pip install 'rlstats[docs]', or {module} alone") from None


def vignette_notebook(path: Path, size: str, said: str = "") -> tuple:
    """(notebook, the line saying how it was made, whether its data were available) for one gallery page."""
    import jupytext

    if size == "skip":
        notebook = jupytext.read(path)
        notebook.metadata["language_info"] = {"name": "python"}
        return notebook, f"*Not executed in this build (`RLSTATS_DOCS_VIGNETTES=skip`); from `vignettes/{path.name}`.*", True
    try:
        return _execute(path, size), f"*Executed {said}; from `vignettes/{path.name}`.*", True
    except DataMissing as missing:
        return (unavailable_notebook(path, str(missing)),
                f"*Not executed: its data are not available where this site was built; from `vignettes/{path.name}`.*",
                False)


def download_links(stem: str) -> str:
    """The page's links to its code as a script and as a notebook (Sphinx's download role copies the files)."""
    return (f"Download the code: {{download}}`{stem}.py <downloads/{stem}.py>` (a script, or jupytext's percent "
            f"notebook) or {{download}}`{stem}.ipynb <downloads/{stem}.ipynb>` (a notebook, without outputs).")


def write_downloads(path: Path, folder: Path) -> None:
    """The vignette as it is (``.py``) and as an unexecuted notebook (``.ipynb``, written by jupytext)."""
    import jupytext

    _write(folder / path.name, path.read_text(encoding="utf-8"))
    notebook = jupytext.read(path)
    notebook.metadata.pop("jupytext", None)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    _write(folder / f"{path.stem}.ipynb", jupytext.writes(notebook, fmt="ipynb"))


def gallery(out: Path, size: str) -> None:
    if size not in ("fast", "default", "full", "skip"):
        raise SystemExit(f"RLSTATS_DOCS_VIGNETTES={size!r}: use fast, default, full or skip")
    _require("jupytext", "reads the vignettes into notebooks")  # before any folder is made or vignette executed
    import nbformat
    out.mkdir(exist_ok=True)
    (out / "thumbs").mkdir(exist_ok=True)
    said = {"fast": "at their fast size (``RLSTATS_VIGNETTE_FAST=1``: the smallest simulation counts, so rough "
                    "numbers)",
            "default": "at their default size", "full": "at their full size",
            "skip": "not executed in this build (``RLSTATS_DOCS_VIGNETTES=skip``)"}[size]
    index = _heading("Gallery") + textwrap.dedent(f"""\
        The vignettes of ``vignettes/``, executed {said} when this site was built. Each vignette prints the
        counts it used and says which statements need the full size; ``python vignettes/render.py`` renders them
        at their default size, ``--full`` at the full size (see ``vignettes/README.md``).

        """)
    names = []
    (out / "downloads").mkdir(exist_ok=True)
    for path in vignette_paths():
        write_downloads(path, out / "downloads")
        target = out / f"{path.stem}.ipynb"
        key = _fingerprint(path, size)
        notebook = nbformat.read(target, as_version=4) if target.exists() else None
        if notebook is None or notebook.metadata.get("rlstats_docs", {}).get("fingerprint") != key:
            started = time.perf_counter()
            if size != "skip":
                _logger().info(f"executing vignette {path.name} ({size} size)")
            notebook, stamp, available = vignette_notebook(path, size, said)
            if not available:
                # Shown, not failed: a plain clone without the data still builds. Never cached as done, so the
                # next build that has the data executes it.
                _logger().info(f"vignette {path.name}: its data are not available here; shown with a box")
                key = "data not available"
            notebook.metadata["rlstats_docs"] = {"fingerprint": key, "size": size,
                                                 "seconds": round(time.perf_counter() - started, 1)}
            notebook.metadata.pop("jupytext", None)
            notebook.cells.insert(1, nbformat.v4.new_markdown_cell(stamp + " " + download_links(path.stem)))
            nbformat.write(notebook, target)
        png = _first_png(notebook)
        if png is not None:
            thumb = out / "thumbs" / f"{path.stem}.png"
            if not thumb.exists() or thumb.read_bytes() != png:
                thumb.write_bytes(png)
        title = _title(notebook, path.stem)
        if notebook.metadata["rlstats_docs"]["fingerprint"] == "data not available":
            title += " (data not available here)"
        names.append((path.stem, title, png is not None))
    # two vignettes a row: the title, then the first figure the vignette draws
    index += ".. list-table::\n   :widths: 1 1\n   :class: gallery\n\n"
    rows = [names[i:i + 2] for i in range(0, len(names), 2)]
    for row in rows:
        for column, (stem, title, has_png) in enumerate(row):
            index += ("   * - " if column == 0 else "     - ") + f":doc:`{title} <{stem}>`\n"
            if has_png:
                index += (f"\n       .. image:: thumbs/{stem}.png\n          :target: {stem}.html\n"
                          "          :width: 100%\n")
        if len(row) == 1:
            index += "     -\n"
    index += "\n.. toctree::\n   :hidden:\n\n" + "".join(f"   {stem}\n" for stem, _, _ in names)
    _write(out / "index.rst", index)

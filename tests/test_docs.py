"""The documentation site's promises that need no Sphinx (the site itself is built by .ci/run with -W).

Every public function documents its neighbours (a numpydoc See Also whose names resolve) and has Examples;
the examples themselves run as doctests in the default suite (pyproject's ``--doctest-modules`` over
``rlstats/``), on simulated data. Every back-end folder says when to use it, the API page lists every public
name, and the code of the hand-written pages (R habits, migrating from rliable) runs.
"""

import importlib
import importlib.util
import inspect
import os
import re
from pathlib import Path

import pytest

import rlstats
import rlstats.datasets
from rlstats import methods

DOCS = Path(__file__).resolve().parent.parent / "docs"
# docs/_generate.py writes the pages that follow the package; it is a file of the site, not a module of ours
_spec = importlib.util.spec_from_file_location("rlstats_docs_generate", DOCS / "_generate.py")
_generate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_generate)


def public_functions():
    """(name, function) of every public function of the package face and of rlstats.datasets."""
    found = [(f"rlstats.{n}", getattr(rlstats, n)) for n in rlstats.__all__]
    found += [(f"rlstats.datasets.{n}", getattr(rlstats.datasets, n)) for n in rlstats.datasets.__all__]
    return [(name, obj) for name, obj in found if inspect.isfunction(obj)]


def section(doc, title):
    """The body of a numpydoc section of ``doc`` (dedented), or None."""
    found = re.search(rf"^{title}\n-{{{len(title)}}}\n(.*?)(?=^\S[^\n]*\n-{{3,}}\n|\Z)", doc, re.S | re.M)
    return found.group(1) if found else None


def resolve(dotted):
    """The object a dotted name of the package names (attribute by attribute, as the docs link it)."""
    parts = dotted.split(".")
    obj = importlib.import_module(parts[0])
    for part in parts[1:]:
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("name, function", public_functions(), ids=lambda value: value if isinstance(value, str)
                         else "")
def test_public_function_has_see_also_and_examples(name, function):
    doc = inspect.getdoc(function)
    see_also = section(doc, "See Also")
    assert see_also, f"{name}: no See Also section"
    targets = re.findall(r"^([\w.]+)(?: :|$)", see_also, re.M)
    assert targets, f"{name}: See Also names nothing"
    for target in targets:
        assert target != name, f"{name}: See Also names itself"
        resolve(target)  # raises when the name does not exist
    examples = section(doc, "Examples")
    assert examples and ">>> " in examples, f"{name}: no Examples with code"


def test_every_backend_folder_says_when_to_use_it():
    for folder in methods.FOLDERS:
        text = _generate.when_to_use(folder)
        assert text and len(text.split()) >= 20, (
            f"rlstats/methods/{folder}/_backend.py: its docstring needs a 'When to use' section (a heading "
            f"'When to use' underlined with 11 dashes, then a paragraph); the site's back-end page shows it")


def test_api_page_lists_every_public_name_once():
    listed = [name for names in _generate.api_sections().values() for name in names]
    assert len(listed) == len(set(listed))
    expected = {f"rlstats.{n}" for n in rlstats.__all__ if n != "datasets"}
    expected |= {f"rlstats.datasets.{n}" for n in rlstats.datasets.__all__}
    assert set(listed) == expected
    for name in listed:
        resolve(name)


def test_backend_page_is_generated_from_the_declarations():
    page = _generate.backend_page("skillings_mack")
    assert ":func:`rlstats.skillings_mack`" in page and "the default with blocks" in page
    assert "When to use" in page and "Friedman" in page


def _run_page_code(page, monkeypatch):
    import matplotlib.pyplot as plt

    monkeypatch.setattr(plt, "show", lambda *a, **k: None)
    code = "\n".join(re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(encoding="utf-8"), re.S))
    assert code
    try:
        exec(compile(code, str(DOCS / page), "exec"), {"__name__": "docs"})  # noqa: S102 (our own pages)
    finally:
        plt.close("all")


@pytest.mark.parametrize("page", ["r_users.md", "rliable.md", "index.md", "which_method.md",
                                  pytest.param("calibration.md", marks=pytest.mark.slow)])
def test_code_of_hand_written_pages_runs(page, monkeypatch):
    _run_page_code(page, monkeypatch)


def test_code_of_the_calibration_page_runs_on_two_procedures_a_figure(monkeypatch):
    """calibration.md's code as written, its figures drawn by the real calibration_figure with the page's arguments
    on the first two procedures of the table each call passes (the whole table for none). The page's two figures of
    the whole and the skewed table took 13.5 s CPU of the default run (50 panels, 7 s a figure); they are drawn as
    written under -m slow (test_code_of_hand_written_pages_runs[calibration.md]) and the whole table's by the docs
    build (.ci/run, sphinx -W, docs/_generate.py)."""
    real = rlstats.plotting.calibration_figure
    drawn = []

    def first_two_procedures(*args, **kwargs):
        bound = inspect.signature(real).bind(*args, **kwargs)  # the page's call fits the real signature
        table = bound.arguments.get("table")
        table = rlstats.calibration_table() if table is None else table
        kept = list(dict.fromkeys(table["procedure"]))[:2]
        bound.arguments["table"] = table[table["procedure"].isin(kept)]
        figure = real(*bound.args, **bound.kwargs)
        assert [panel.get_title() for panel in figure.axes] == kept
        drawn.append(kept)
        return figure

    monkeypatch.setattr(rlstats.plotting, "calibration_figure", first_two_procedures)
    _run_page_code("calibration.md", monkeypatch)
    assert len(drawn) == 2 and all(len(kept) == 2 for kept in drawn)


def test_backend_pages_show_public_paths_and_link_the_chooser():
    """A reader sees what to type (rlstats.bootstrap, its keywords), never a private module, and the chooser page."""
    for folder in [f.split(".")[-1] for f in methods.FOLDERS]:
        page = _generate.backend_page(folder)
        assert "rlstats.methods" not in page and "._" not in page, folder
        assert ":doc:`../../which_method`" in page, folder
    page = _generate.backend_page("bootstrap")
    assert "``n_resamples=10000``" in page and ":func:`rlstats.bootstrap`" in page
    assert 'method="bootstrap"' in page  # straight quotes: conf.py turns smartquotes off
    assert "smartquotes = False" in (DOCS / "conf.py").read_text(encoding="utf-8")


def test_chooser_page_covers_every_design_and_is_linked_from_the_index():
    text = (DOCS / "which_method.md").read_text(encoding="utf-8")
    for heading in ("## One run per environment", "## 3 to 5 runs per task", "## Many tasks", "## Tuned agents",
                    "## Agents on different task sets"):
        assert heading in text
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    assert "{doc}`which_method`" in index and "generated/landing.png" in index
    code = re.search(r"```python\n(.*?)```", index, re.S).group(1)
    assert len(code.strip().splitlines()) <= 10  # the landing page's "ten lines"


def test_landing_figure_is_drawn_by_the_landing_code(tmp_path):
    target = tmp_path / "landing.png"
    _generate.landing_figure(DOCS, target)
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and target.stat().st_size > 5_000


def test_calibration_page_is_linked_and_explains_every_column():
    # issue 40 item 4: the page is in the index's toctree and shows the figure the build draws, which is the package
    # table's (one panel per procedure of rlstats.calibration_table(): the test below, and the page's code)
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    toctree = re.search(r"```\{toctree\}(.*?)```", index, re.S).group(1)
    assert "calibration" in toctree.split() and "{doc}`calibration`" in index
    page = (DOCS / "calibration.md").read_text(encoding="utf-8")
    assert "generated/calibration.png" in page
    for column in rlstats.calibration_table().columns:  # every column is explained
        assert f"`{column}`" in page, column


@pytest.mark.slow  # 4-5 s, the default run's budget: the docs build (.ci/run) draws the same figure with sphinx -W
def test_calibration_figure_is_the_tables_a_page_wide(tmp_path):
    target = tmp_path / "calibration.png"
    _generate.calibration_figure(target)
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and target.stat().st_size > 50_000
    import matplotlib.image

    height, width = matplotlib.image.imread(target).shape[:2]
    assert width == round(rlstats.plotting.PAGE_WIDTH * 150)


def test_data_box_says_what_to_get_and_which_variable_to_set():
    box = _generate.data_box("file a/b/c/d.csv is missing from the mirror /x (RLSTATS_DATA_MIRROR)")
    assert box.startswith(":::{admonition} Data not available here: how to get it")
    assert "file a/b/c/d.csv is missing from the mirror" in box
    assert "RLSTATS_DATA_MIRROR" in box and "rlstats.datasets.available()" in box
    # the error's own text is shown as it is: no HTML tag, no emphasis
    assert r"under \<owner\>/\<path\> (RLSTATS\_DATA\_MIRROR)" in _generate.data_box(
        "under <owner>/<path> (RLSTATS_DATA_MIRROR)")


@pytest.mark.parametrize("vignette, variable", [("mixed_atari100k", "RLSTATS_DATA_MIRROR"),
                                                ("sb3_logs_to_paper", "RLSTATS_SB3_LOGS")])
def test_gallery_page_of_a_vignette_without_its_data_shows_the_box(vignette, variable, tmp_path, monkeypatch):
    """With the data hidden (an empty mirror, no logs folder), the gallery page is the code with the box, not an
    error: a plain clone builds its docs."""
    for module in ("nbclient", "jupytext", "ipykernel", "matplotlib_inline"):
        pytest.importorskip(module, reason=f"{module} is in the docs extra (pip install '.[docs]')")
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("RLSTATS_DATA_MIRROR", str(empty))
    monkeypatch.setenv("RLSTATS_SB3_LOGS", str(tmp_path / "no-logs"))
    monkeypatch.delenv("RLSTATS_DATA_DIR", raising=False)
    notebook, stamp, available = _generate.vignette_notebook(DOCS.parent / "vignettes" / f"{vignette}.py", "fast")
    assert not available and "not available" in stamp
    box = notebook.cells[1].source.replace("\\", "")  # the vignette's message, without its Markdown escapes
    assert box.startswith(":::{admonition} Data not available here: how to get it")
    assert variable in box and str(tmp_path) in box  # the vignette's own message, naming where it looked
    assert not any(cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")


def test_gallery_pages_offer_the_code_as_py_and_ipynb(tmp_path):
    jupytext = pytest.importorskip("jupytext", reason="jupytext is in the docs extra (pip install '.[docs]')")
    path = DOCS.parent / "vignettes" / "getting_started.py"
    _generate.write_downloads(path, tmp_path)
    assert (tmp_path / "getting_started.py").read_text(encoding="utf-8") == path.read_text(encoding="utf-8")
    notebook = jupytext.read(tmp_path / "getting_started.ipynb")
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    assert "rlstats.datasets.load" in code and not any(cell.get("outputs") for cell in notebook.cells
                                                       if cell.cell_type == "code")
    links = _generate.download_links("getting_started")
    assert "{download}`getting_started.py <downloads/getting_started.py>`" in links
    assert "{download}`getting_started.ipynb <downloads/getting_started.ipynb>`" in links


# --- the built site in a real browser ----------------------------------------------------------------------------

SITE = Path(os.environ.get("RLSTATS_DOCS_SITE", DOCS / "_build" / "html"))
PHONE = {"width": 390, "height": 844}


def _browser_pages():
    """The hand-written, chooser, back-end and gallery pages, and one API page (the API pages share a template)."""
    if not (SITE / "index.html").is_file():
        return []
    pages = ["index.html", "which_method.html", "overview.html", "r_users.html", "rliable.html",
             "generated/api.html", "generated/api/rlstats.compare.html"]
    pages += sorted(str(p.relative_to(SITE)) for p in (SITE / "generated" / "backends").glob("*.html"))
    pages += sorted(str(p.relative_to(SITE)) for p in (SITE / "generated" / "gallery").glob("*.html"))
    return pages


def test_built_site_in_a_browser_at_phone_width():
    """Console errors, broken links and images, and sideways scrolling at 390 px, on the site built by
    ``python -m sphinx -W -b html docs docs/_build/html`` (or RLSTATS_DOCS_SITE). Chromium from the system
    (Debian's ``chromium``) or playwright's own download."""
    pages = _browser_pages()
    if not pages:
        pytest.skip(f"no built site at {SITE}: build it first (README: the docs command), or set RLSTATS_DOCS_SITE")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    import shutil

    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    problems = []
    with sync_api.sync_playwright() as driver:
        try:
            browser = driver.chromium.launch(**({"executable_path": executable} if executable else {}))
        except Exception as err:  # playwright's error when no browser is installed
            pytest.skip(f"no Chromium to drive: install Debian's chromium or run `playwright install chromium` ({err})")
        page = browser.new_page(viewport=PHONE)
        errors = []
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        for name in pages:
            errors.clear()
            page.goto((SITE / name).as_uri())
            page.wait_for_load_state("load")
            problems += [f"{name}: console error: {text}" for text in errors]
            wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            if wide > 1:
                problems.append(f"{name}: scrolls sideways by {wide} px at {PHONE['width']} px wide")
            broken = page.evaluate("[...document.images].filter(i => !i.complete || i.naturalWidth === 0)"
                                   ".map(i => i.getAttribute('src'))")
            problems += [f"{name}: broken image {src}" for src in broken]
            for href in page.evaluate("[...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'))"):
                target = href.split("#")[0]
                if target and "://" not in target and not target.startswith("mailto:"):
                    if not ((SITE / name).parent / target).exists():
                        problems.append(f"{name}: broken link {href}")
        browser.close()
    assert not problems, "\n".join(problems)

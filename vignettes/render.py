"""Render the vignettes to HTML with their figures.

Usage (from anywhere)::

    python vignettes/render.py                 # every vignette, full mode
    python vignettes/render.py --fast          # fewer permutations / split seeds
    python vignettes/render.py getting_started # only the named vignette(s)

Each ``vignettes/<name>.py`` (jupytext "percent" format) is converted to a
notebook with jupytext, executed with nbclient in the Jupyter kernel named
``python3`` and written as ``vignettes/_build/<name>.html`` by nbconvert.  The
executed notebooks are written beside them (``<name>.ipynb``).

The kernel imports ``rlstats`` from this checkout (the repository root is put
first on ``PYTHONPATH``), so the HTML documents the code you have.  Offline,
set ``RLSTATS_DATA_MIRROR`` to a local mirror of the data files first.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BUILD = HERE / "_build"
KERNEL = "python3"


def vignette_paths(names=()):
    """The vignettes to render: all ``vignettes/*.py`` but this script, or the named ones."""
    available = {p.stem: p for p in sorted(HERE.glob("*.py")) if p.name != Path(__file__).name}
    if not names:
        return list(available.values())
    unknown = [n for n in names if Path(n).stem not in available]
    if unknown:
        sys.exit(f"unknown vignette(s): {', '.join(unknown)}; available: {', '.join(available)}")
    return [available[Path(n).stem] for n in names]


def kernel_environment(fast):
    """Environment the kernel inherits: this checkout first on the path, inline figures."""
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    # MPLBACKEND=Agg (as the tests set it) would stop figures from reaching the notebook.
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    if fast:
        os.environ["RLSTATS_VIGNETTE_FAST"] = "1"
    else:
        os.environ.pop("RLSTATS_VIGNETTE_FAST", None)


def check_kernel():
    from jupyter_client.kernelspec import KernelSpecManager

    if KERNEL not in KernelSpecManager().find_kernel_specs():
        sys.exit(f"no Jupyter kernel named {KERNEL!r}; install one with:  python -m ipykernel install --user")


def render(path, timeout):
    import jupytext
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    notebook = jupytext.read(path)
    notebook.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Python 3", "language": "python"}
    NotebookClient(notebook, kernel_name=KERNEL, timeout=timeout,
                   resources={"metadata": {"path": str(HERE)}}).execute()
    nbformat.write(notebook, BUILD / f"{path.stem}.ipynb")
    html, _ = HTMLExporter().from_notebook_node(notebook)
    out = BUILD / f"{path.stem}.html"
    out.write_text(html, encoding="utf-8")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description="Render the rlstats vignettes to HTML in vignettes/_build/.")
    parser.add_argument("names", nargs="*", help="vignettes to render (default: all)")
    parser.add_argument("--fast", action="store_true", help="set RLSTATS_VIGNETTE_FAST=1 (quick, less precise)")
    parser.add_argument("--timeout", type=int, default=1200, help="seconds allowed per cell (default 1200)")
    args = parser.parse_args(argv)

    check_kernel()
    kernel_environment(args.fast)
    BUILD.mkdir(exist_ok=True)
    for path in vignette_paths(args.names):
        start = time.perf_counter()
        out = render(path, args.timeout)
        print(f"{path.name} -> {out.relative_to(ROOT)} ({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()

"""Render the vignettes to HTML with their figures.

Usage (from anywhere)::

    python vignettes/render.py                 # every vignette, default size (each < 2 min on 2 cores)
    python vignettes/render.py --fast          # smoke size: seconds, rough numbers
    python vignettes/render.py --full          # full-size simulations (tens of minutes)
    python vignettes/render.py getting_started # only the named vignette(s)

Each vignette reads its size itself, from ``RLSTATS_VIGNETTE_FAST`` /
``RLSTATS_VIGNETTE_FULL``, which ``--fast`` / ``--full`` set for the kernel.

Each ``vignettes/<name>.py`` (jupytext "percent" format; files starting with
``_`` are helpers, not vignettes) is converted to a notebook with jupytext,
executed with nbclient and written as ``vignettes/_build/<name>.html`` by
nbconvert.  The executed notebooks are written beside them (``<name>.ipynb``).
Progress goes to stderr: a line when a vignette starts and ends (with its
time), and the code cell being run; ``--quiet`` keeps only the summary.

By default the kernel runs the Python interpreter that runs this script, so
no kernel has to be installed; ``--kernel NAME`` uses an installed Jupyter
kernel instead.  The kernel imports ``rlstats`` from this checkout (the
repository root is put first on ``PYTHONPATH``), so the HTML documents the
code you have.  Offline, set ``RLSTATS_DATA_MIRROR`` to a local mirror of the
data files first.
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


def vignette_paths(names=()):
    """The vignettes to render: every ``vignettes/*.py`` but this script and ``_`` helpers, or the named ones."""
    available = {p.stem: p for p in sorted(HERE.glob("*.py"))
                 if p.name != Path(__file__).name and not p.name.startswith("_")}
    if not names:
        return list(available.values())
    unknown = [n for n in names if Path(n).stem not in available]
    if unknown:
        sys.exit(f"unknown vignette(s): {', '.join(unknown)}; available: {', '.join(available)}")
    return [available[Path(n).stem] for n in names]


def kernel_environment(size):
    """Environment the kernel inherits: this checkout first on the path, inline figures, the size."""
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    # MPLBACKEND=Agg (as the tests set it) would stop figures from reaching the notebook.
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    # One BLAS thread per process unless you say otherwise: the vignettes parallelise with
    # processes (n_jobs=2), and BLAS threads on top of them made a busy 2-core machine up to
    # four times slower in the percentile game's linear solves.
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    for variable, wanted in (("RLSTATS_VIGNETTE_FAST", "fast"), ("RLSTATS_VIGNETTE_FULL", "full")):
        if size == wanted:
            os.environ[variable] = "1"
        elif size is not None:
            os.environ.pop(variable, None)


def this_interpreter():
    """A kernel manager class whose kernel is ``ipykernel`` in the interpreter running this script."""
    from jupyter_client.kernelspec import KernelSpec
    from jupyter_client.manager import AsyncKernelManager

    class ThisInterpreter(AsyncKernelManager):
        @property
        def kernel_spec(self):
            return KernelSpec(argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                              display_name="Python 3", language="python")

    return ThisInterpreter


def check_kernel(name):
    from jupyter_client.kernelspec import KernelSpecManager

    if name is None:
        try:
            import ipykernel  # noqa: F401
        except ImportError:
            sys.exit(f"ipykernel is not installed for {sys.executable}: pip install '.[docs]'")
    elif name not in KernelSpecManager().find_kernel_specs():
        sys.exit(f"no Jupyter kernel named {name!r}; see `jupyter kernelspec list`")


def render(path, timeout, kernel, quiet):
    import nbformat
    from nbconvert import HTMLExporter

    notebook = execute(path, timeout, kernel, quiet)
    nbformat.write(notebook, BUILD / f"{path.stem}.ipynb")
    html, _ = HTMLExporter().from_notebook_node(notebook)
    out = BUILD / f"{path.stem}.html"
    out.write_text(html, encoding="utf-8")
    return out


def execute(path, timeout, kernel, quiet):
    """The vignette at ``path`` as an executed notebook (the documentation site's gallery calls this too)."""
    import jupytext
    from nbclient import NotebookClient

    notebook = jupytext.read(path)
    notebook.metadata["kernelspec"] = {"name": kernel or "python3", "display_name": "Python 3",
                                       "language": "python"}
    code = [i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"]
    started = time.perf_counter()

    def cell_started(cell, cell_index):
        if not quiet and cell_index in code:
            print(f"  {path.stem}: cell {code.index(cell_index) + 1}/{len(code)} "
                  f"({time.perf_counter() - started:.0f} s so far)", file=sys.stderr, flush=True)

    options = {} if kernel else {"kernel_manager_class": this_interpreter()}
    NotebookClient(notebook, kernel_name=kernel or "python3", timeout=timeout, on_cell_start=cell_started,
                   resources={"metadata": {"path": str(HERE)}}, **options).execute()
    return notebook


def main(argv=None):
    parser = argparse.ArgumentParser(description="Render the rlstats vignettes to HTML in vignettes/_build/.")
    parser.add_argument("names", nargs="*", help="vignettes to render (default: all)")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--fast", dest="size", action="store_const", const="fast",
                      help="smoke size: set RLSTATS_VIGNETTE_FAST=1 (seconds, rough numbers)")
    size.add_argument("--full", dest="size", action="store_const", const="full",
                      help="full-size simulations: set RLSTATS_VIGNETTE_FULL=1 (tens of minutes)")
    parser.add_argument("--kernel", help="run an installed Jupyter kernel of this name "
                                         "(default: this Python interpreter, no kernel to install)")
    parser.add_argument("--quiet", action="store_true", help="no per-cell progress, only one line per vignette")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds allowed per cell (default 1800)")
    args = parser.parse_args(argv)

    check_kernel(args.kernel)
    # No size option: the default size, unless RLSTATS_VIGNETTE_FAST / _FULL is already set.
    kernel_environment(args.size)
    BUILD.mkdir(exist_ok=True)
    paths = vignette_paths(args.names)
    total = time.perf_counter()
    for number, path in enumerate(paths, 1):
        if not args.quiet:
            print(f"[{number}/{len(paths)}] {path.name}: started", file=sys.stderr, flush=True)
        start = time.perf_counter()
        out = render(path, args.timeout, args.kernel, args.quiet)
        print(f"[{number}/{len(paths)}] {path.name} -> {out.relative_to(ROOT)} "
              f"({time.perf_counter() - start:.1f} s)", flush=True)
    if len(paths) > 1:
        print(f"{len(paths)} vignettes in {time.perf_counter() - total:.1f} s", flush=True)


if __name__ == "__main__":
    main()

"""The Result base class: printing, summary, tidy frames, report, export and plots.

Every back end returns a frozen dataclass derived from :class:`Result`.  A
subclass supplies its numbers as fields and a few small hooks
(``_statistic_line``, ``_extra_lines``, ``_summary_tables``, ``tidy``,
``glance``, ``report`` and its plot kinds); rendering is a pure function of the
fields, and nothing here recomputes a statistic.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import platform
import sys
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable, Mapping, NamedTuple, Sequence, TypeVar

T = TypeVar("T")

if TYPE_CHECKING:  # tells type checkers that @resultclass makes a frozen dataclass (PEP 681)
    from typing_extensions import dataclass_transform

    from ._typing import ColumnNames, ReportFormat
    from .formula import Formula
else:
    def dataclass_transform(**kwargs: Any) -> Callable[[T], T]:
        return lambda decorator: decorator

import numpy as np
import pandas as pd

from . import format as fmt
from ._version import __version__
from .errors import OptionError


REPORT_FORMATS = ("text", "latex")
#: R's htest components -> the result attribute holding each (``res["p.value"]`` as ``res$p.value`` in R)
HTEST_COMPONENTS = {"statistic": "statistic", "parameter": "df", "p.value": "pvalue", "estimate": "estimate",
                    "null.value": "null_value", "alternative": "alternative", "method": "method",
                    "data.name": "data_name"}


def _column_names(method):
    """Give a subclass's ``tidy``/``glance`` the ``names=`` keyword: ``"broom"`` renames the columns once, here."""
    @functools.wraps(method)
    def with_names(self, *args, names="rlstats", **kwargs):
        from .vocabulary import COLUMN_NAMES, broom_names

        if not isinstance(names, str) or names not in COLUMN_NAMES:
            raise OptionError(f"names={names!r:.40} is not one of the allowed values: "
                              + ", ".join(map(repr, COLUMN_NAMES)))
        frame = method(self, *args, **kwargs)
        if names == "rlstats":
            return frame
        frame = frame.copy()
        frame.columns = broom_names(frame.columns)
        return frame

    with_names.names_keyword = True
    return with_names


def package_versions() -> dict[str, str]:
    """The versions of rlstats, its dependencies and Python that every exported result records."""
    return {"rlstats": __version__, "numpy": np.__version__, "scipy": _installed_version("scipy"),
            "pandas": pd.__version__, "matplotlib": _installed_version("matplotlib"),
            "python": platform.python_version()}


def _installed_version(name):
    # Read from the installed metadata unless the package is already imported: `rlstats compare --format
    # json` would otherwise import matplotlib (about 0.1 s) only to print its version.
    module = sys.modules.get(name)
    if module is not None:
        return module.__version__
    from importlib.metadata import version

    return version(name)


class ConfidenceInterval(NamedTuple):
    """A confidence interval of one quantity, as scipy returns it (``low``, ``high``).

    Every result's ``confidence_interval(confidence_level=None)`` follows one
    convention: a ``ConfidenceInterval`` for a single quantity; a DataFrame with
    ``conf_low`` and ``conf_high`` columns (one row per agent, metric or
    comparison, in ``tidy()``'s order) for several.  ``None`` means the level the
    result was computed at.
    """

    low: float
    high: float


def check_layout(environment: object, resize: object) -> None:
    """The LaTeX layout options shared by every ``to_latex``: OptionError naming the allowed values."""
    if environment not in (None, "table", "table*"):
        raise OptionError(f"environment must be None (chosen by width), 'table' or 'table*', got {environment!r}")
    if resize not in (None, True, False):
        raise OptionError(f"resize must be None (only when nothing else fits), True or False, got {resize!r}")


def sentences(notes: Iterable[str], names: Iterable[str] = ()) -> str:
    """Notes as prose: each starts with a capital (unless it opens with code, such as ``expected_max()``, or with one
    of the data's column ``names`` as a label, ``r: ...``) and ends with a full stop, joined by spaces ("" for none)."""
    names = tuple(names)
    return " ".join(fmt.sentence_start(note, names) + ("" if note.endswith(".") else ".") for note in notes if note)


def to_jsonable(value: Any) -> Any:
    """Convert numpy, pandas and dataclass values into JSON-serialisable Python objects."""
    if isinstance(value, pd.DataFrame):
        return {"columns": [str(c) for c in value.columns],
                # the rows as itertuples gives them, from each column's Series (itertuples' iloc per column and its
                # namedtuple cost more than the rows; session 40)
                "data": [[to_jsonable(v) for v in row] for row in fmt._rows(value, [c for _, c in value.items()])]}
    if isinstance(value, pd.Series):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if hasattr(value, "text") and hasattr(value, "response"):  # a Formula: its text says it all
            return value.text
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        value = float(value)
        return value if math.isfinite(value) else str(value)
    if value is None or isinstance(value, (str, int)):
        return value
    return str(value)


#: set while a result renders its summary as LaTeX, Markdown or HTML (:meth:`Result._rendered`), which never read the
#: summary's text: the text is then not formatted
_UNFORMATTED: ContextVar[bool] = ContextVar("rlstats_summary_unformatted", default=False)
#: Set while a result renders its LaTeX, which reads a summary's tables, captions and statistic line but never its
#: header block: the header (each back end's extra lines, the slowest part of a summary) is left empty (session 40)
_HEADERLESS: ContextVar[bool] = ContextVar("rlstats_summary_headerless", default=False)


class Summary(str):
    """The full output of a result: the test block, its tables and notes.

    A ``str`` holding the printed text, so that it slices, measures and searches as text (``summary[:3000]``,
    ``len(summary)``, ``"P(better)" in summary``, ``summary.splitlines()``: audit s38 fixc38, where
    ``res.summary()[:3000]`` was a TypeError); ``to_latex()`` (booktabs), ``to_markdown()`` and ``_repr_html_()``
    render the same content, and ``tables`` holds the DataFrames at full precision.  Its ``repr`` is the text itself
    (a prompt shows the summary, not a quoted string).  The text is set when it is made: its fields are read, not
    meant to be changed after.
    """

    method: str  # the caption's start (not ``title``, which is str's own method)
    statistic_line: str | None
    header: str
    tables: dict[str, pd.DataFrame]
    notes: tuple[str, ...]
    digits: int
    latex: dict[str, Callable[..., str]]
    markdown: dict[str, Callable[[], str]]
    captions: dict[str, str]
    headings: dict[str, str]
    keys: dict[str, str]

    def __new__(cls, title: str, header: str, tables: Mapping[str, pd.DataFrame], notes: Iterable[str] = (),
                digits: int = fmt.DIGITS, statistic_line: str | None = None,
                latex: Mapping[str, Callable[..., str]] | None = None,
                markdown: Mapping[str, Callable[[], str]] | None = None,
                captions: Mapping[str, str] | None = None, keys: Mapping[str, str] | None = None,
                alpha: Iterable[float] = (), headings: Mapping[str, str] | None = None) -> Summary:
        tables = dict(tables)
        # the levels the result judges its p-values at: every format prints no p-value as one of them that it differs
        # from (0.049999 beside "shown" read "0.05": audit s22), through the tables' attrs that format reads
        alpha = tuple(alpha)  # read once: an iterator gives its levels to the first table only (audit s22)
        for name, table in tables.items():
            if alpha:
                tables[name] = table = table.copy()
                table.attrs["rlstats_alpha"] = alpha
        notes, keys = tuple(notes), dict(keys or {})
        text = "" if _UNFORMATTED.get() else _summary_text(header, tables, notes, digits, keys)
        self = super().__new__(cls, text)
        self.method = title
        # a table's name as its LaTeX caption says it, where the name says a column or an option by its code, as the
        # text shows them ("P(agent_1 > agent_2)", "mean_diff"): name -> the words, from the vocabulary (audit s25)
        self.headings = dict(headings or {})
        # what a table's columns mean where they could be misread: name -> a line under the table as text, Markdown
        # and HTML, in the tidy names those show (a LaTeX table, headed by labels, says it in its caption); audit s19:
        # p_adjusted below p_value read as an adjustment that lowered a p-value
        self.keys = keys
        # what a table's numbers are, which the print says above it and a LaTeX table pasted alone must say in its
        # caption: name -> sentences ending that caption
        self.captions = dict(captions or {})
        # tables whose cells carry marks (bold, daggers) that only their result can set in LaTeX: name -> a
        # function of (caption, label, environment, resize, notes) giving the float
        self.latex = dict(latex or {})
        self.markdown = dict(markdown or {})  # the same tables' Markdown (bold as **x**), name -> a function of nothing
        self.statistic_line = statistic_line
        self.header = header
        self.tables = tables
        self.notes = notes
        self.digits = digits
        return self

    def __str__(self) -> str:
        return str.__str__(self)  # the text as a plain str

    def __repr__(self) -> str:
        return str.__str__(self)

    def __reduce__(self) -> tuple[Any, ...]:
        # copy and pickle: the text and the fields as they are (str's own would call __new__ with the text alone)
        return _restored_summary, (str.__str__(self), dict(self.__dict__))

    def to_markdown(self) -> str:
        """The summary as Markdown: the test line, one table per section, notes as a list."""
        # names render as written (audit s19): escaped in prose and tables, the test's block fenced as code
        lines = [f"**{fmt.markdown_escape(self.method)}**", "", fmt.markdown_code(self.header.strip("\n"))]
        for name, table in self.tables.items():
            body = self.markdown[name]() if name in self.markdown else fmt.table_markdown(table, self.digits)
            lines += ["", f"*{fmt.markdown_escape(name)}*", "", body]
            if name in self.keys:
                lines += ["", f"({fmt.markdown_escape(self.keys[name])})"]
        if self.notes:
            lines += [""] + [f"- {fmt.markdown_escape(n, start=True)}" for n in self.notes]
        return "\n".join(lines) + "\n"

    def to_latex(self, label: str | None = None, mc_se: bool = False, environment: str | None = None,
                 resize: bool | None = None) -> str:
        """The summary's tables as booktabs LaTeX tables for a paper.

        Each caption names the method, the table and the test's line (statistic, df, p-value);
        headers are readable labels, p-values never read 0, Monte Carlo standard errors are left
        out unless ``mc_se=True``, and a column holding one value in every row is stated in the caption.
        Each table is a ``table`` when it fits one column of a two-column paper (about 230 pt), else a
        ``table*`` spanning both (``environment=`` "table" or "table*" chooses); ``resize=True`` shrinks
        a table to its float's width (graphicx), which None does only for a table wider than the page.
        A comment line above each table names the packages it needs (booktabs; graphicx when resized)
        and its width; the notes (what was dropped, changed or withheld) are set under the first table, as
        the print gives them; see :func:`rlstats.format.table_latex`.
        """
        if label is not None and not isinstance(label, str):
            raise OptionError(f"label must be text for \\label{{...}}, e.g. label='tab:results', got {label!r}")
        if not isinstance(mc_se, bool):
            raise OptionError(f"mc_se must be True or False, got {mc_se!r}")
        check_layout(environment, resize)
        blocks = []
        for i, (name, table) in enumerate(self.tables.items()):
            table_label = f"{label}:{i}" if label else None
            caption = (f"{self.method}: {self.headings.get(name, name)}."
                       + (f" {self.statistic_line.strip()}." if self.statistic_line else "")
                       + (f" {self.captions[name]}" if name in self.captions else ""))
            if name in self.latex:
                blocks.append(self.latex[name](caption, label=table_label, environment=environment, resize=resize,
                                               notes=self.notes if not i else ()))
                continue
            blocks.append(fmt.table_latex(table, self.digits, caption=caption, label=table_label, mc_se=mc_se,
                                          environment=environment, resize=resize, notes=self.notes if not i else ()))
        return "\n\n".join(blocks) + "\n"

    def _repr_html_(self):
        """Jupyter's view: the test block as a table (method as its caption), then each table, then the notes."""
        import html

        lines = [line.strip("\t") for line in self.header.strip("\n").split("\n")]
        rows = []
        for line in lines[1:]:
            label, said, value = line.partition(":  ")  # R's "data:  score and agent and task"
            if said and label == "data":
                rows.append(f"<tr><th style=\"text-align:left\">data</th><td style=\"text-align:left\">"
                            f"{html.escape(value)}</td></tr>")
            elif line.strip():  # statistic and extra lines keep their spacing (aligned intervals)
                rows.append(f"<tr><td colspan=\"2\" style=\"text-align:left; white-space:pre; "
                            f"font-family:monospace\">{html.escape(line)}</td></tr>")
        title = lines[0] if lines else self.method
        # at the left, where the print puts it: centred over a block as wide as its longest line (an interval's, a
        # few hundred characters), the method sat past the right of a notebook's view (audit s24)
        parts = [f"<table><caption style=\"text-align:left\">{html.escape(title)}</caption><tbody>{''.join(rows)}"
                 f"</tbody></table>"]
        for name, table in self.tables.items():
            parts.append(f"<p><b>{html.escape(name)}</b></p>{fmt.table_html(table, self.digits)}"
                         + (f"<p>({html.escape(self.keys[name])})</p>" if name in self.keys else ""))
        if self.notes:
            parts.append("<ul>" + "".join(f"<li>{html.escape(n)}</li>" for n in self.notes) + "</ul>")
        return "\n".join(parts)


def _summary_text(header: str, tables: Mapping[str, pd.DataFrame], notes: tuple[str, ...], digits: int,
                  keys: Mapping[str, str]) -> str:
    """The printed text of a :class:`Summary`: the test block, each table (with its key), the notes."""
    parts = [header.rstrip("\n")]
    for name, table in tables.items():
        parts.append(f"{name}:\n{fmt.table_text(table, digits)}" + (f"\n({keys[name]})" if name in keys else ""))
    if notes:
        parts.append("Notes:\n" + "\n".join(f"  - {n}" for n in notes))
    return "\n\n".join(parts) + "\n"


def _restored_summary(text: str, fields: dict[str, Any]) -> Summary:
    """A :class:`Summary` again from its text and fields (:meth:`Summary.__reduce__`)."""
    summary = str.__new__(Summary, text)
    summary.__dict__.update(fields)
    return summary


@dataclass_transform(frozen_default=True, eq_default=False)
def resultclass(cls: type[T]) -> type[T]:
    """Decorator for Result subclasses: a frozen dataclass that keeps the R-style ``repr``."""
    return dataclass(frozen=True, eq=False, repr=False)(cls)


class _RAccessor:
    """An R accessor's name on a result (``confint``, ``anova``, ...: :attr:`Result._r_accessors`): reading it is an
    AttributeError saying where the result keeps what it would give (``hasattr`` is False). A descriptor of its own
    name, so that no other lookup is repeated (review s33: a ``__getattr__`` ran a property twice when it raised)."""

    def __init__(self, name: str, where: str) -> None:
        self.name, self.where = name, where
        self.__doc__ = f"R's ``{name}(m)`` is not a method here: {where}."  # what the API pages list

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if instance is None:  # the class's own attribute (documentation tools read it): the descriptor
            return self
        raise AttributeError(f"{type(instance).__name__} has no {self.name}() (R's {self.name}(m)): {self.where}")


@dataclass(frozen=True, eq=False, repr=False)
class Result:
    """Fields and behaviour shared by every result.

    Attributes
    ----------
    method : str
        Name of the test or procedure, as printed.
    formula : Formula or None
        The parsed formula.
    data_name : str
        R's data name, e.g. ``"score and agent and task"``.
    nobs : int
        Number of runs used.
    notes : tuple of str
        What was dropped, aggregated or changed on the way, and caveats.
    options : dict
        The options the method ran with (``n_resamples`` only where resamples were drawn).
    seed : int, str or None
        How the random stream was seeded (None when nothing was random): the int given as ``rng=``, the entropy
        NumPy drew for ``rng=None``, or the int drawn from a Generator or from a spawned SeedSequence (or one of a
        list of ints) given, so that ``rng=seed`` repeats the run.
    """

    method: str
    formula: Formula | None
    data_name: str
    nobs: int
    notes: tuple[str, ...]
    options: dict[str, Any]
    seed: object

    #: plot kind -> function(result, ax=None, **kwargs); the first is the default.
    _plot_kinds: ClassVar[dict[str, Any]] = {}
    #: R's accessor functions on a fit of this kind -> where the result keeps what they give (audit s33 mixed33:
    #: ``m.confint()`` raised Python's bare AttributeError); each made a :class:`_RAccessor` of the class
    _r_accessors: ClassVar[dict[str, str]] = {}

    def __post_init__(self) -> None:
        """The options record only what the method used: ``n_resamples=`` is among them only where
        :meth:`_resamples_used` (audit s30: the PBP interval recorded ``"n_resamples": 10000``; so did the probability
        of improvement's score interval, the Wilson and t profile bands and the rank test's exact p-value), as
        ``seed`` is None where nothing was random."""
        if "n_resamples" in self.options and not self._resamples_used():
            object.__setattr__(self, "options", {k: v for k, v in self.options.items() if k != "n_resamples"})

    def _resamples_used(self) -> bool:
        """Whether ``n_resamples=`` decided anything: by default where the result's own count of resamples (its
        ``n_resamples`` field) is not None, a result with it None having drawn none. A method where the count
        decides more than draws (a rank test enumerating because it allows as many; audit s30 w2fix30), or where
        a result has no such field (the task table), says so in its own."""
        return getattr(self, "n_resamples", 0) is not None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("tidy", "glance"):
            method = cls.__dict__.get(name)
            if callable(method) and not getattr(method, "names_keyword", False):
                setattr(cls, name, _column_names(method))
        for name, where in cls.__dict__.get("_r_accessors", {}).items():  # R's accessors, said where they live
            setattr(cls, name, _RAccessor(name, where))

    def __getitem__(self, key: str) -> Any:
        """R's htest components: ``res["p.value"]``, ``res["statistic"]``, ``res["parameter"]`` (df), ...

        A KeyError names the components this result has.
        """
        components = self._htest()
        if key not in components:
            raise KeyError(f"{key!r:.40} is not a component of this {type(self).__name__}; it has: "
                           + ", ".join(map(repr, components)) + " (R's htest names; or use the attributes)")
        return components[key]

    def _htest(self):
        """The htest components this result has (attribute present and not None)."""
        out = {}
        for component, attribute in HTEST_COMPONENTS.items():
            value = self._htest_parameter() if component == "parameter" else getattr(self, attribute, None)
            if value is not None and not callable(value):
                out[component] = value
        return out

    def _htest_parameter(self):
        """R's ``parameter``: the degrees of freedom (a subclass with two returns them named)."""
        return getattr(self, "df", None)

    @property
    def _block_word(self) -> str:
        """The blocks as the result's sentences about the data call them: the formula's block column
        (:attr:`rlstats.formula.Formula.block_word`), "task" without a formula (audit s32 block32)."""
        return "task" if self.formula is None else self.formula.block_word

    @property
    def _arm_word(self) -> str:
        """The arms as the result's sentences about the data call them: the formula's arm column, "agent" without a
        formula."""
        return "agent" if self.formula is None else self.formula.arm_word

    @property
    def _run_word(self) -> str:
        """The runs' labels as the result's sentences call them (:attr:`rlstats.formula.Formula.run_word`), "seed"
        without a formula."""
        return "seed" if self.formula is None else self.formula.run_word

    @property
    def n_agents(self) -> int:
        """Number of agents compared (results that have ``agents``)."""
        return len(self.agents)  # type: ignore[attr-defined]  # a field of the subclasses with agents

    @property
    def n_tasks(self) -> int:
        """Number of tasks used (results that have ``tasks``)."""
        return len(self.tasks)  # type: ignore[attr-defined]  # a field of the subclasses with tasks

    def cite(self, data: str | Sequence[str] | None = None) -> str:
        """BibTeX for this result's method, the package and (``data=``) the datasets used; see :func:`rlstats.cite`."""
        from .citations import cite

        return cite(self, data=data)

    @property
    def p_value(self) -> float | np.ndarray:  # an array where a result has one per comparison
        """``pvalue`` under the spelling of R (``p.value``) and broom's ``p_value`` column, for results of a test."""
        if not hasattr(self, "pvalue"):  # Python's own message named 'pvalue' and suggested 'p_value', the name typed
            raise AttributeError(f"{type(self).__name__} has no single p-value: {self._pvalues_where()}")
        return self.pvalue  # a field of the subclasses that test (hasattr narrows it)

    def _pvalues_where(self) -> str:
        """Where a result without a single p-value keeps its p-values, for ``p_value``'s error."""
        return ("its tests' p-values are the p_value column of tidy()" if "p_value" in self.tidy().columns
                else "it reports no p-value")

    # ---- hooks a subclass provides ------------------------------------------------
    def _statistic_line(self):
        """The ``name = value, df = ..., p-value = ...`` line of the test block."""
        raise NotImplementedError

    def _extra_lines(self):
        """Lines printed after the statistic line (alternative, intervals, estimates)."""
        return []

    def _summary_tables(self):
        """Named DataFrames shown by summary()."""
        return {}

    def _latex_captions(self):
        """Sentences ending the LaTeX captions of summary()'s tables (name -> text): what a table's numbers are,
        where the print says it in lines the table does not carry; by default the keys under the tables
        (:meth:`_summary_keys`) as sentences."""
        return {name: fmt.sentence_start(key) + "." for name, key in self._summary_keys().items()}

    def _latex_headings(self):
        """summary()'s table names as their LaTeX captions say them (name -> text, :class:`Summary`'s ``headings``),
        where a name says a code the LaTeX table's labels do not."""
        return {}

    def _summary_keys(self):
        """Lines under summary()'s tables as text, Markdown and HTML (name -> text, :class:`Summary`'s ``keys``):
        what a table's columns mean where they could be misread."""
        return {}

    # names= ("broom": broom's column names) is applied around every subclass's tidy and glance by _column_names
    def tidy(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        raise NotImplementedError

    def glance(self, *, names: ColumnNames = "rlstats") -> pd.DataFrame:
        raise NotImplementedError

    def _prose(self):
        """The methods paragraph as plain text, before the notes (a subclass writes it from its fields)."""
        raise NotImplementedError

    def report(self, format: ReportFormat = "latex") -> str:
        """A methods-section paragraph: what was tested or estimated, how, on what, and what was found.

        A seed drawn by NumPy (``rng=None``, 39 digits) is printed by its first 8 digits; ``seed`` and
        ``to_dict()`` keep all of it.

        Parameters
        ----------
        format : {"latex", "text"}
            ``"latex"`` (the default) escapes everything LaTeX would read as markup (``_``, ``%``, ``&``,
            ``<``, ``~``, ...), so the paragraph compiles as it is when pasted into a paper: agent names
            such as ``agent_1`` and the notes carry characters that stop pdflatex, and ``95%`` would start
            a comment that silently drops the rest of the paragraph. ``\\_``, ``\\%``, ``\\&`` and ``\\#`` are
            also Markdown's escapes, so names and percentages read right in Markdown too. ``"text"`` gives
            the paragraph unescaped, for a terminal or a word processor.
        """
        if format not in REPORT_FORMATS:
            raise OptionError(f"format={format!r} is not one of: {', '.join(map(repr, REPORT_FORMATS))}")
        text = self._prose().rstrip()
        if self.notes:  # what was dropped, aggregated or changed, in every report; a paragraph of their own after
            text += (("\n\n" if "\n\n" in text else " ")  # paragraphs (AdaStop's tasks)
                     + sentences(self.notes, () if self.formula is None else self.formula.columns))
        seed = "" if self.seed is None else f", random seed {fmt.short_seed(self.seed)}"
        text += f" Computed with rlstats {__version__}{seed}" + ("" if seed.endswith("...") else ".")
        return fmt.latex_escape(text) if format == "latex" else text

    # ---- rendering ------------------------------------------------------------------
    def _header(self):
        if _HEADERLESS.get():  # a LaTeX rendering (to_latex), which does not read it
            return ""
        lines = ["", f"\t{self.method}", "", f"data:  {self.data_name}", self._statistic_line()]
        lines += self._extra_lines()
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        text = self._header()
        if self.notes:
            text += "\n" + "\n".join(f"Note: {n}" for n in self.notes) + "\n"
        return text

    __repr__ = __str__

    def summary(self) -> Summary:
        """The full tables (with ``to_latex()``, ``to_markdown()`` and HTML in notebooks)."""
        return Summary(self.method, self._header(), self._summary_tables(), self.notes,
                       statistic_line=self._statistic_line(), captions=self._latex_captions(),
                       keys=self._summary_keys(), alpha=self._levels(), headings=self._latex_headings())

    def _levels(self):
        """The levels this result judges p-values at (its alpha, beta, 1 - confidence_level), for the tables."""
        levels = [getattr(self, "alpha", None), getattr(self, "beta", None)]
        level = getattr(self, "confidence_level", None)
        levels.append(None if level is None else round(1 - level, 12))
        return tuple(float(x) for x in levels if isinstance(x, (int, float)) and not isinstance(x, bool) and 0 < x < 1)

    def _rendered(self) -> Summary:
        """:meth:`summary` for a rendering of its own (LaTeX, Markdown, HTML), which reads its fields, never its text:
        the text, not formatted, is left empty (it cost 15-100% of such a rendering again)."""
        token = _UNFORMATTED.set(True)
        try:
            return self.summary()
        finally:
            _UNFORMATTED.reset(token)

    def _repr_html_(self):
        return self._rendered()._repr_html_()

    def to_latex(self, label: str | None = None, mc_se: bool = False, environment: str | None = None,
                 resize: bool | None = None) -> str:
        """The summary tables as booktabs LaTeX for a paper; see :meth:`Summary.to_latex`."""
        token = _HEADERLESS.set(True)
        try:
            summary = self._rendered()
        finally:
            _HEADERLESS.reset(token)
        return summary.to_latex(label=label, mc_se=mc_se, environment=environment, resize=resize)

    def to_markdown(self) -> str:
        """The summary as Markdown; see :meth:`Summary.to_markdown`."""
        return self._rendered().to_markdown()

    def to_dict(self) -> dict[str, Any]:
        """Every field as JSON-serialisable data, with the class name and package versions."""
        out: dict[str, Any] = {"result": type(self).__name__}
        for f in dataclasses.fields(self):
            out[f.name] = to_jsonable(getattr(self, f.name))
        out["versions"] = package_versions()
        return out

    def to_json(self, **kwargs: Any) -> str:
        """``json.dumps(self.to_dict())``."""
        return json.dumps(self.to_dict(), **kwargs)

    def plot(self, ax: Any = None, kind: str | None = None, *, figsize: tuple[float, float] | None = None,
             **kwargs: Any) -> Any:
        """Draw the method's standard figure.

        Parameters
        ----------
        ax : matplotlib Axes or sequence of Axes, optional
            Where to draw (one Axes per panel for a multi-panel plot); a new
            figure is made when None.
        kind : str, optional
            One of the result's plot kinds; the first one by default.
        figsize : (float, float), optional
            Width and height in inches of the new figure (laid out again at
            that size, several panels in the grid that draws them largest,
            titles and axis labels broken at words where they
            would cross its edge; tick labels that would overlap thinned where
            they are numbers, turned where they are names along x); None: the
            plot's own size (grown where long agent or task names leave its
            layout no room). An OptionError, with a size that would do, when the
            size cannot hold the panels with their labels or an axis' tick
            labels apart. Not with ``ax=``, whose figure is the caller's.
            Names are drawn as written: a ``$`` in one is not mathtext.
        **kwargs
            Passed to the drawing function; user keywords win over defaults.

        Returns
        -------
        matplotlib.axes.Axes or matplotlib.figure.Figure
            One rule for every result: the Axes when the plot is one panel,
            the Figure when it is several (one per metric, task, ...), since
            no single Axes stands for the whole drawing then (as matplotlib's
            and seaborn's plotting functions return their Axes). An Axes has
            no ``savefig``: save its figure, ``ax = res.plot();
            ax.figure.savefig("fig.pdf")``; a Figure saves itself,
            ``fig.savefig("fig.pdf")``. ``ax.figure`` of either is the figure.
        """
        kinds = type(self)._plot_kinds
        from .plotting import (ASKED_SIZE, check_figsize, fit_at_draw, hold_labels, literal_dollars, names_as_written,
                               resized, texts_of)

        if not kinds:
            raise OptionError(f"{type(self).__name__} has no plots")
        kind = next(iter(kinds)) if kind is None else kind
        if kind not in kinds:
            raise OptionError(f"kind={kind!r} is not one of the allowed values: {', '.join(map(repr, kinds))}")
        if isinstance(ax, str) and ax in kinds:  # the kind passed first, as many plotting APIs take it
            raise OptionError(f"the first argument of plot() is ax=, the Axes to draw on; for the plot kind {ax!r} "
                              f"pass kind={ax!r}: res.plot(kind={ax!r})")
        if ax is not None and not _all_axes(ax):
            raise OptionError(f"ax= must be a matplotlib Axes (or a sequence of them, one per panel), got "
                              f"{type(ax).__name__}: {ax!r:.60}")
        size = check_figsize(figsize, ax)  # before anything is drawn
        token, before = ASKED_SIZE.set(size), texts_of(ax)
        try:
            with names_as_written():  # "$x$" is a name, not mathtext
                drawn = kinds[kind](self, ax=ax, **kwargs)
        finally:
            ASKED_SIZE.reset(token)
        literal_dollars(drawn, before)
        # the texts it wrote fitted where the layout puts them, at each draw: on the caller's figure, laid out by the
        # caller, and on its own (fig37: the curves' y label at 4.5 x 3 in reached both edges)
        fit_at_draw(drawn, before)
        if ax is None and size is None:  # its own figure: grown where long names leave the layout no room
            hold_labels(drawn, [*getattr(self, "agents", ()), *getattr(self, "tasks", ())])
        return resized(drawn, size)


def _all_axes(ax):
    """Whether ``ax`` is a matplotlib Axes or a (nested) sequence of them."""
    from matplotlib.axes import Axes

    if isinstance(ax, Axes):
        return True
    if isinstance(ax, (list, tuple, np.ndarray)):
        return len(ax) > 0 and all(_all_axes(a) for a in ax)
    return False

"""How a frame was made: notes bound to the rows they describe, carried in ``DataFrame.attrs`` into results.

Functions that return a changed frame (reading logs, summarising runs, normalising) record what they did as
:class:`Note` records in ``attrs[PROVENANCE_ATTR]`` (a :class:`Provenance`), with their sentences in
``attrs[NOTES_ATTR]`` for readers. A note has a scope:

- ``"operation"``: true of every row the operation touched ("scores normalised with X"); it stays whatever rows
  are analysed. :func:`add_note` writes these, for callers that only have a sentence;
- ``"frame"``: a fact about the frame as a whole ("1 task kept out", "3 files not read"); it stays only while the
  rows are those it was written for (in any order);
- ``"rows"``: facts about particular runs or tasks, bound to their values in the ``keys`` columns, with the numbers
  needed to word them again (:attr:`Note.word` names the function that does).

A note that code acts on says so by its :attr:`Note.kind` (:data:`KINDS`), read by :func:`has_note`, never by its
sentence: :data:`SUBSET` marks :func:`rlstats.design.subset_rows`' count, which tells the min-max normaliser that its
bounds are those of the rows a ``subset=`` kept.

pandas keeps ``attrs`` through a subset, a reorder or a copy, so a result may receive rows the notes were not
written for. :func:`carried`, at the front door (``design.build``), checks the rows against the frame the notes
were written for (its row count and an order-free hash of the key columns, :func:`fingerprint`): the same rows
keep every note; other rows keep the operation notes, the row notes re-worded for the keys present, and one line
saying how many rows of the frame are not in these data, whose notes are not shown. ``pandas.concat`` keeps ``attrs`` only when every
frame's are equal (pandas >= 2.1; pandas 2.0 never does): a concat of differently made frames arrives without notes,
so it says nothing of them (never something false). :func:`concat_frames` stacks frames keeping each one's notes for
its own rows, bound by a column telling them apart where the stack would mistake them for notes of other rows.
Nothing is remembered between calls: equal rows are no proof of the same history.
"""

from __future__ import annotations

import base64
import collections
import dataclasses
import importlib
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from .format import count, join_and, plural, verb

#: Key of ``DataFrame.attrs`` with the sentences about how the frame was made (what results print).
NOTES_ATTR = "rlstats_notes"
#: Key of ``DataFrame.attrs`` with the :class:`Provenance`: the same notes, bound to the rows they describe.
PROVENANCE_ATTR = "rlstats_provenance"
SCOPES = ("operation", "frame", "rows")
#: Rows hashed at a time (a bounded transient beside the columns' label hashes, 8 bytes a row each).
HASH_BLOCK = 1 << 16
#: ``Note.word`` of the line that counts the rows not in these data, whose notes are not shown (it adds up over subsets).
LEFT_OUT = "left out"
#: ``Note.word`` of a count (:func:`counted`).
COUNTED = "rlstats.provenance:counted"
#: ``Note.word`` of a note of one of several stacked frames, said of its rows by what tells them apart (:func:`_of_rows`).
OF_ROWS = "rlstats.provenance:_of_rows"
#: ``Note.word`` of a note whose column holds the values it was written of times a positive common factor
#: (:func:`values_checked`): ``data`` is ``[the note's word, its data, its text, the factor, the maker]``
SCALED = "rlstats.provenance:_reword_scaled"
#: ``Note.kind`` of :func:`rlstats.design.subset_rows`' note: these rows are those a ``subset=`` kept.
SUBSET = "subset"
#: ``Note.kind`` of :func:`rlstats.normalize`'s note: a column put on a normalised scale (which its ``data`` names).
NORMALISED = "normalised"
#: ``Note.kind`` of :func:`rlstats.summarize_runs`' note on a time to a threshold: smaller is better in the column
#: its ``data["column"]`` names, which the functions taking ``higher_is_better=`` read
#: (:func:`rlstats.design.direction_read`).
SMALLER_BETTER = "smaller_better"
#: The kinds of note that code reads (:func:`has_note`), never their sentences, whose wording may change.
KINDS = frozenset({SUBSET, NORMALISED, SMALLER_BETTER})


@dataclasses.dataclass(frozen=True)
class Note:
    """One note about a frame.

    Attributes
    ----------
    text : str
        The sentence, as written for the rows it describes now.
    scope : {"operation", "frame", "rows"}
        What it is true of (see the module's docstring).
    keys : tuple of str
        The columns whose values bind it: a ``"rows"`` note's items, a ``"frame"`` note's fingerprint.
    items : tuple
        ``(key values, payload)`` per run or task a ``"rows"`` note describes; the payload holds its numbers.
    word : str or None
        ``"module:function"`` that words a ``"rows"`` note again: ``function(note, items, n_rows)`` returns the
        sentence for the items present (a tuple like ``items``) among ``n_rows`` rows, or None when nothing of it
        applies. Without ``keys``, the sentence depends on the number of rows alone.
    data : object
        What the wording needs besides the items (a template, the tasks' order, ...).
    kind : str or None
        What the note records, one of :data:`KINDS`, for code that acts on it (:func:`has_note`), so that a note's
        wording can change without changing what is done; None for a note that is only said.
    values : dict or None
        The values of a column the note was written of (``{"column", "keys", "hashes", "maker"}``: each row's key
        values and value as one 64-bit hash, :func:`value_hashes` and :func:`hashes_text`; ``maker`` the function
        that wrote them, named in the line of :func:`values_checked`): the note is true only of rows holding them,
        which :func:`carried` checks (audit s33 norm33: raw scores put back under the normaliser's note). None: not
        checked.
    """

    text: str
    scope: str = "operation"
    keys: tuple[str, ...] = ()
    items: tuple[tuple[tuple[Any, ...], Any], ...] = ()
    word: str | None = None
    data: Any = None
    kind: str | None = None
    values: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.scope not in SCOPES:
            raise ValueError(f"scope must be one of {SCOPES}, got {self.scope!r}")
        if self.kind is not None and self.kind not in KINDS:
            raise ValueError(f"kind must be None or one of {sorted(KINDS)}, got {self.kind!r}")


class Provenance(dict[str, Any]):
    """The notes of a frame and the frame they were written for: its row count and :func:`fingerprint`.

    A dict of JSON values (``notes``: one dict per :class:`Note`, ``n_rows``, ``columns``, ``digest``), so that
    pandas can write the frame's ``attrs`` to Parquet (it stores them as JSON) and read them back
    (:func:`provenance_of` takes the plain dict then). Shared, never copied (pandas deep-copies ``attrs`` on every
    operation; this is never changed): equal provenances compare equal in ``attrs``, so ``pandas.concat`` of parts
    of one frame keeps it (pandas >= 2.1).
    """

    def __init__(self, notes: Iterable[Note], n_rows: int, columns: Sequence[str], digest: int):
        self._notes = tuple(notes)
        super().__init__(notes=[dataclasses.asdict(note) for note in self._notes], n_rows=int(n_rows),
                         columns=list(columns), digest=int(digest))

    def __deepcopy__(self, memo: object) -> Provenance:
        return self

    def __copy__(self) -> Provenance:
        return self

    def __reduce__(self) -> tuple[type[Provenance], tuple[tuple[Note, ...], int, tuple[str, ...], int]]:
        return Provenance, (self._notes, self.n_rows, self.columns, self.digest)

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Provenance:
        """The Provenance of a dict read back from JSON (lists where tuples were)."""
        notes = [Note(text=n["text"], scope=n["scope"], keys=tuple(n["keys"]),
                      items=tuple((tuple(key), payload) for key, payload in n["items"]), word=n["word"],
                      data=n["data"], kind=n.get("kind"), values=n.get("values"))
                 for n in value["notes"]]  # no kind (values): written before it
        return cls(notes, value["n_rows"], value["columns"], value["digest"])

    @property
    def notes(self) -> tuple[Note, ...]:
        return self._notes

    @property
    def n_rows(self) -> int:
        return self["n_rows"]

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(self["columns"])

    @property
    def digest(self) -> int:
        return self["digest"]

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(note.text for note in self._notes)


def provenance_of(frame: pd.DataFrame) -> Provenance | None:
    """``frame``'s Provenance, also when read back from a Parquet file as a plain dict (None when it has none)."""
    value = frame.attrs.get(PROVENANCE_ATTR)
    if isinstance(value, Provenance) or value is None:
        return value
    try:
        return Provenance.from_json(value)
    except (TypeError, KeyError, ValueError, AttributeError):
        return None  # not one of ours: its sentences, if any, are kept as they are


def fingerprint(frame: pd.DataFrame, columns: Sequence[str]) -> int:
    """An order-free hash of the rows of ``frame[columns]``: the sum of their hashes modulo 2**64, each row's values
    hashed as the labels build() reads (:func:`label_hashes`, as a values record's keys are: seeds 3 and 3.0, or a
    Categorical or text of them, are the same rows; notes34: recast seeds dropped a frame's notes)."""
    if not columns or len(frame) == 0:
        return 0
    return int(_rows_hashed(frame, columns).sum(dtype=np.uint64))


def value_hashes(keys: pd.DataFrame, values: Any) -> np.ndarray:
    """A 64-bit hash of each row's key values (``keys``, each as the label it reads as: :func:`label_hashes`, so that
    seed 3, 3.0, "3" and a Categorical of them hash alike) with its value in ``values`` (as float64): what names a
    run's summary value, for checking that a column still holds the values a note was written of
    (:func:`values_record`, :class:`ValuesAt`)."""
    return _rows_hashed(keys, keys.columns, np.asarray(values, dtype=np.float64))


def _rows_hashed(frame, columns, values=None):
    """The hash of each row's labels in ``columns`` (and its value in ``values``), made a block of rows at a time
    (a bounded transient)."""
    return _hashes_of([label_hashes(frame[c]) for c in columns] + ([] if values is None else [values]), len(frame))


def _hashes_of(hashed, n):
    """The hash of each of ``n`` rows of the columns ``hashed`` (labels' :func:`label_hashes`, values), a block of rows
    at a time (a bounded transient)."""
    out = np.empty(n, dtype=np.uint64)
    for start in range(0, n, HASH_BLOCK):
        block = pd.DataFrame({i: column[start:start + HASH_BLOCK] for i, column in enumerate(hashed)})
        out[start:start + len(block)] = pd.util.hash_pandas_object(block, index=False).to_numpy()
    return out


def label_hashes(column: pd.Series, distinct: int = 0) -> Any:
    """A 64-bit hash of each of ``column``'s values in one form, the label as build() and
    :func:`rlstats.errors.label_named` read it, whatever the column's dtype (audit s33 hash33: a seed column recast to
    a Categorical or to text was read as another run): a Categorical through its categories' values; a number, or text
    that is how ``str()`` prints one ("3", "3.0", "inf"; not "03" or "1e3", labels of their own), as that number, an
    integral one exactly (int64: seeds 2**62 + 1 and 2**62 + 2 differ); a missing value as NaN; anything else (a bool
    too: True is not the agent 1) as its text. Hashes each distinct value once (``pd.factorize``); with ``distinct``,
    only those (a missing value left out), or None where there are more than ``distinct`` of them."""
    codes: Any
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes, uniques = column.cat.codes.to_numpy(), column.cat.categories
    else:
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
    uniques = pd.Index(uniques)
    if distinct:
        if len(uniques) > distinct:
            return None
        codes = None
    if pd.api.types.is_bool_dtype(uniques.dtype) or not pd.api.types.is_numeric_dtype(uniques.dtype):
        numbers = np.full(len(uniques), np.nan)
        integers = np.zeros(len(uniques), dtype=np.int64)
        exact = np.zeros(len(uniques), dtype=bool)
        text = np.empty(len(uniques), dtype=object)
        objects = uniques.to_numpy(dtype=object)
        words = pd.Series(objects, dtype=object)
        is_text = words.map(type).eq(str).to_numpy()
        if is_text.any():  # text, vectorised: "3" an integer, "3.0" a float, where str() prints the number so
            said = words[is_text].astype(str)
            whole = said.str.fullmatch(r"0|-?[1-9][0-9]{0,18}").to_numpy(dtype=bool, copy=True)
            huge = {i: int(said.iloc[i]) for i in np.flatnonzero(whole & (said.str.len().to_numpy() >= 19))}
            huge = {i: number for i, number in huge.items() if not -2**63 <= number < 2**63}
            whole[list(huge)] = False  # beyond int64: a float, as an int of that size is
            rest = said[~whole]  # read as a float only where str() prints it so ("3.0", "inf"; not "1e3", " 3")
            read = pd.to_numeric(rest.where(~rest.str.contains(r"[_\s]", regex=True), ""), errors="coerce")
            read = read.to_numpy(dtype=np.float64, na_value=np.nan)
            printed = np.zeros(len(said), dtype=bool)
            printed[~whole] = ~np.isnan(read) & (read.astype(str) == rest.to_numpy(dtype=str))
            read = np.concatenate([[np.nan], read])[np.where(whole, 0, np.cumsum(~whole))]  # by position in said
            at = np.flatnonzero(is_text)
            integers[at[whole]] = said[whole].astype(np.int64).to_numpy()
            exact[at[whole]] = True
            numbers[at[printed]] = read[printed]
            numbers[at[list(huge)]] = [float(number) for number in huge.values()]
            text[at] = said.to_numpy(dtype=object)
        for i in np.flatnonzero(~is_text):  # other objects (numbers in an object column, bools): one at a time
            value = objects[i]
            number = value.item() if isinstance(value, np.generic) and not isinstance(value, np.bool_) else value
            if isinstance(number, (int, float)) and not isinstance(number, bool) and number == number:
                if isinstance(number, int) and -2**63 <= number < 2**63:
                    integers[i], exact[i] = number, True
                else:
                    numbers[i] = float(number)
            else:
                text[i] = str(value)
        hashes = _number_hashes(numbers, integers, exact)
        words = np.flatnonzero(np.isnan(numbers) & ~exact)
        if words.size:
            hashes[words] = pd.util.hash_array(text[words])
    elif pd.api.types.is_integer_dtype(uniques.dtype) and uniques.dtype.kind == "i":
        integers = uniques.to_numpy(dtype=np.int64)
        hashes = _number_hashes(np.zeros(len(integers)), integers, np.ones(len(integers), dtype=bool))
    else:
        numbers = uniques.to_numpy(dtype=np.float64, na_value=np.nan)
        hashes = _number_hashes(numbers, np.zeros(len(numbers), dtype=np.int64), np.zeros(len(numbers), dtype=bool))
    if codes is None:
        return hashes  # the distinct labels' hashes alone (:func:`labels_record`)
    missing = pd.util.hash_array(np.array([np.nan]))
    return np.where(codes >= 0, hashes[np.maximum(codes, 0)] if hashes.size else missing[0], missing[0])


#: The most distinct labels of one key column whose hashes a record keeps (:func:`labels_record`; 8 bytes each).
LABELS_CAP = 1 << 16


def labels_record(keys: pd.DataFrame) -> dict[str, str]:
    """Each key column's distinct labels, hashed (:func:`label_hashes`, :func:`hashes_text`), for a column of at most
    :data:`LABELS_CAP` of them: what says, where a row's hash is not held, that its key values are what changed
    (:func:`keys_not_held`)."""
    out = {}
    for column in keys.columns:
        hashes = label_hashes(keys[column], distinct=LABELS_CAP)
        if hashes is not None:
            out[str(column)] = hashes_text(hashes)
    return out


def keys_not_held(keys: pd.DataFrame, record: Any) -> tuple[str, Any] | None:
    """(the first of ``keys``' columns holding a label ``record``, a :func:`labels_record`, does not, its first such
    value) or None where every label is one recorded (or none can say)."""
    if not isinstance(record, dict):
        return None
    for column in keys.columns:
        text = record.get(str(column))
        if isinstance(text, str):
            missing = ~held(label_hashes(keys[column]), text) & keys[column].notna().to_numpy(dtype=bool)
            if missing.any():
                return str(column), _scalar(keys[column].iloc[int(np.flatnonzero(missing)[0])])
    return None


def _number_hashes(numbers, integers, exact):
    """The hash of each number: ``integers`` where ``exact``, else ``numbers`` (float64), an integral float in int64's
    range as that integer (3.0 as 3)."""
    integral = ~exact & np.isfinite(numbers) & (np.floor(numbers) == numbers) & (np.abs(numbers) < 2.0**63)
    integers = np.where(integral, np.where(integral, numbers, 0.0).astype(np.int64), integers)
    exact = exact | integral
    return np.where(exact, pd.util.hash_array(integers), pd.util.hash_array(numbers))


def hashes_text(hashes: np.ndarray) -> str:
    """``hashes`` sorted, each once, as a JSON string (base64 of their little-endian bytes, 8 bytes a value; Parquet
    keeps it)."""
    return base64.b64encode(np.unique(hashes).astype("<u8").tobytes()).decode("ascii")


def held(hashes: np.ndarray, text: str) -> np.ndarray:
    """Whether each of ``hashes`` is among those :func:`hashes_text` wrote into ``text`` (False where it cannot be
    read: a note edited by hand)."""
    try:
        known = np.frombuffer(base64.b64decode(text.encode("ascii"), validate=True), dtype="<u8")
    except (ValueError, TypeError, AttributeError):
        return np.zeros(len(hashes), dtype=bool)
    if known.size == 0:
        return np.zeros(len(hashes), dtype=bool)
    where = np.minimum(np.searchsorted(known, hashes), known.size - 1)
    return known[where] == hashes


#: The most hashes a :func:`values_record` holds (8 bytes each, 0.7 MB of text; pandas writes a frame's attrs
#: to Parquet three times, base64 again in one: about 3.4 MB of a file's footer). 2**20 (norm33) made a normalised
#: frame of 10**6 rows' Parquet file 65 MB where it was 15. The one rule of every such record, normalize()'s note and
#: a time summary's alike (notes34): beyond the cap a fixed share of rows is checked (:class:`ValuesAt`), so a
#: column replaced wholesale is still found and a few rows changed by hand are found by chance (the share); the
#: refusal or line then says "rows checked (1 in k)".
VALUES_CAP = 1 << 16


def values_record(keys: pd.DataFrame, values: Any, column: str, maker: str) -> dict[str, Any]:
    """A record of ``values`` of ``column`` at rows whose key values ``keys`` holds (those missing left out: a missing
    value is dropped where it is read, never taken for another), written by ``maker``: normalize()'s
    :attr:`Note.values`, and a time summary's ``data["values"]``, both checked by :class:`ValuesAt`.

    Bounded: of more than :data:`VALUES_CAP` distinct hashes, those divisible by ``modulus`` (a deterministic
    ``1 / modulus`` share) are kept, and only rows whose hash is divisible by it are checked: values replaced
    wholesale are found at once, one changed row with chance ``1 / modulus``."""
    values = np.asarray(values, dtype=np.float64)
    present = ~np.isnan(values)
    if not present.all():
        keys, values = keys[present], values[present]
    labels = [label_hashes(keys[c]) for c in keys.columns]
    hashes, modulus = np.unique(_hashes_of([*labels, values], len(keys))), 1
    while hashes.size > VALUES_CAP:
        modulus = 2 * modulus if modulus > 1 else 2 * -(-hashes.size // VALUES_CAP)
        hashes = hashes[hashes % np.uint64(modulus) == 0]
    largest = _largest_distinct(np.abs(values[np.isfinite(values)]), ANCHORS)
    return {"column": column, "keys": list(keys.columns), "hashes": hashes_text(hashes), "maker": maker,
            "modulus": modulus, "labels": labels_record(keys), "largest": [float(v) for v in largest],
            "rows": _row_anchors(_hashes_of(labels, len(keys)), values)}


def _row_anchors(key_hashes: np.ndarray, values: np.ndarray) -> list[list[Any]]:
    """[key hash (16 hex digits), value] of the :data:`ROW_ANCHORS` rows with a finite non-zero value whose key
    values hash smallest: a deterministic sample spread over the rows, whatever their order, from which
    :meth:`ValuesAt.factor` reads a common factor on any rows that keep one of them (review s36 rv36a: read off the
    8 largest values alone, x 100 was lost once the agent holding them was left out)."""
    usable = np.flatnonzero(np.isfinite(values) & (values != 0))
    if usable.size > ROW_ANCHORS:
        usable = usable[np.argpartition(key_hashes[usable], ROW_ANCHORS - 1)[:ROW_ANCHORS]]
    return [[f"{int(h):016x}", float(v)] for h, v in zip(key_hashes[usable], values[usable])]


def _largest_distinct(values: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` largest distinct of ``values``, largest first: of the 4 k largest (np.partition, linear) where they
    hold k distinct ones, else of all (np.unique sorts them all; review s36 rv36a: it did so for every normalize())."""
    m = min(values.size, 4 * k)
    top = np.unique(np.partition(values, values.size - m)[values.size - m:])[::-1][:k] if m else values[:0]
    return top if top.size == k or m == values.size else np.unique(values)[::-1][:k]


#: The largest magnitudes of the values a :func:`values_record` keeps besides their hashes: the anchors from which
#: :meth:`ValuesAt.factor` reads a common factor the values were multiplied by (rows that keep none of them: none read)
ANCHORS = 8

#: The rows a :func:`values_record` keeps with their key values' hash and value (:func:`_row_anchors`), from which
#: :meth:`ValuesAt.factor` reads a factor where the rows kept hold none of the largest values
ROW_ANCHORS = 64

#: How far, in units in the last place, a value divided by the factor read may lie from the value written: the
#: rounding of the product, of the factor read from it and of the quotient (:meth:`ValuesAt.factor`)
FACTOR_ULPS = 4


def _merged_values(first, second):
    """The :attr:`Note.values` of one note said by two stacked frames: both frames' hashes where both record the
    same column and keys, else None (not checked, as before such records)."""
    if first == second:
        return first
    if not (isinstance(first, dict) and isinstance(second, dict)) or \
            any(first.get(k) != second.get(k) for k in ("column", "keys", "maker", "modulus")):
        return None
    try:
        both = [np.frombuffer(base64.b64decode(r["hashes"].encode("ascii"), validate=True), dtype="<u8")
                for r in (first, second)]
    except (ValueError, TypeError, AttributeError, KeyError):
        return None
    try:  # the anchors of both (:meth:`ValuesAt.factor`), where both have them
        largest = sorted({float(v) for v in (*first["largest"], *second["largest"])}, reverse=True)[:ANCHORS]
    except (KeyError, TypeError, ValueError):
        return {**first, "hashes": hashes_text(np.concatenate(both)), "largest": []}
    rows = sorted({(str(h), float(v)) for r in (first, second) for h, v in _anchor_rows(r)})[:ROW_ANCHORS]
    return {**first, "hashes": hashes_text(np.concatenate(both)), "largest": largest, "rows": [list(r) for r in rows]}


def _anchor_rows(record: dict[str, Any]) -> list[tuple[str, float]]:
    """A record's row anchors (:func:`_row_anchors`) as (hex hash, value), those it can read (none: written before
    review s36 rv36a, or edited)."""
    out = []
    for item in record.get("rows", ()) if isinstance(record.get("rows", ()), list) else ():
        try:
            h, v = item
            int(str(h), 16)
            out.append((str(h), float(v)))
        except (TypeError, ValueError):
            continue
    return out


class ValuesAt:
    """A column's values at rows with their key values (``keys``, a frame of the record's key columns), hashed once
    (:func:`value_hashes`): what a :func:`values_record` is checked against (:meth:`unheld`), the one check of
    normalize()'s note (:func:`values_checked`) and of a time summary's (:func:`rlstats.design.direction_read`)."""

    def __init__(self, keys: pd.DataFrame, values: Any):
        column = values if isinstance(values, pd.Series) else pd.Series(np.asarray(values))
        self.keys = keys
        self.values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        self.read = ~column.isna().to_numpy(dtype=bool)  # a missing value is dropped where it is read
        self._labels = [label_hashes(keys[c]) for c in keys.columns]  # hashed once (factor() reads them again)
        self.hashes = _hashes_of([*self._labels, self.values], len(keys))

    def unheld(self, record: dict[str, Any], among: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(the rows whose value, with their key values, is none ``record`` holds; the rows checked): each row with a
        value (``among`` them), of a bounded record only those whose hash its modulus divides (:data:`VALUES_CAP`)."""
        checked = self.read if among is None else self.read & among
        modulus = _modulus(record)
        if modulus > 1:
            checked = checked & (self.hashes % np.uint64(modulus) == 0)
        return checked & ~held(self.hashes, str(record.get("hashes", ""))), checked

    def factor(self, record: dict[str, Any], among: np.ndarray | None = None) -> float | None:
        """The positive common factor c, not 1, such that each row's value (``among`` them) is c times one ``record``
        holds at its key values (to the rounding of the product, :data:`FACTOR_ULPS`), or None: no such factor (a
        shift, a factor per task, a sign changed, values replaced), a record without anchors (:data:`ANCHORS`;
        written before session 36) or none of whose anchors the rows keep, or a bounded one (:data:`VALUES_CAP`),
        whose share of the values cannot tell a row left unchecked from one replaced once divided by a factor
        (audit s36 small36: normalize()'s scores in percent were read as raw scales). c is read as the largest
        magnitude over one of the 8 largest written (kept where a row holding one is), or as a value over the one
        written at one of the :data:`ROW_ANCHORS` rows the record names (:func:`_row_anchors`, kept where the rows
        keep one: review s36 rv36a, x 100 was lost once the agent holding the largest values was left out), a
        12-digit number where it is one to that rounding (x 100 is 100); every candidate is checked on every row."""
        if _modulus(record) > 1:
            return None
        rows = self.read if among is None else self.read & among
        try:
            anchors = np.asarray(record.get("largest", ()), dtype=np.float64).ravel()
        except (TypeError, ValueError):  # edited attrs
            return None
        anchors = anchors[np.isfinite(anchors) & (anchors > 0)]
        top = float(np.max(np.abs(self.values[rows]))) if rows.any() else 0.0
        if not np.isfinite(top) or top == 0:
            return None
        ratios = [top / anchor for anchor in anchors]
        pinned = _anchor_rows(record)  # rows the record names: the value kept there over the one written
        if pinned:
            written = dict((int(h, 16), v) for h, v in pinned)
            key_hashes = _hashes_of(self._labels, len(self.keys))
            at = np.flatnonzero(rows & np.isin(key_hashes, np.fromiter(written, dtype=np.uint64, count=len(written))))
            ratios += [self.values[i] / written[int(key_hashes[i])] for i in at[:ANCHORS]]
        factors: list[float] = []
        for ratio in ratios:
            c = float(ratio)
            rounded = float(f"{c:.12g}")
            c = rounded if abs(rounded - c) <= FACTOR_ULPS * np.spacing(c) else c
            if c != 1 and np.isfinite(c) and c > 0 and c not in factors:
                factors.append(c)
        where = np.flatnonzero(rows)
        # a few rows first, every factor at once: a wrong factor fails there; then every row, of those left in turn
        few = self._held_times(record, factors, where[:64]) if factors else []
        return next((c for c, ok in zip(factors, few) if ok and self._held_times(record, [c], where)[0]), None)

    def _held_times(self, record, factors, where):
        """For each of ``factors``, whether every row of ``where`` (some) holds a value ``record`` holds (every one: an
        unbounded record) times it: its quotient by it, or a float within :data:`FACTOR_ULPS` of it, is one of them;
        one hashing of every factor, quotient and rounding step together (review s36 rv36a: a hashing of the keys
        and values per factor and step, 73 of them, took 0.2 to 0.5 s of each build of a changed normalised
        frame)."""
        ok = np.full(len(factors), where.size > 0)
        chunk = max(1, HASH_BLOCK // (len(factors) * (2 * FACTOR_ULPS + 1)))  # a bounded transient
        for start in range(0, where.size, chunk):
            part = where[start:start + chunk]
            quotient = self.values[part][None, :] / np.asarray(factors, dtype=np.float64)[:, None]  # (factors, rows)
            found = self._held(record, part, quotient[:, None, :])[:, 0, :]  # the quotient itself, then its steps
            if not found.all():
                steps, up, down = [], quotient, quotient
                for _ in range(FACTOR_ULPS):
                    up, down = np.nextafter(up, np.inf), np.nextafter(down, -np.inf)
                    steps += [up, down]
                found |= self._held(record, part, np.stack(steps, axis=1)).any(axis=1)
            ok &= found.all(axis=1)
            if not ok.any():
                break
        return ok.tolist()

    def _held(self, record, where, values):
        """Whether each of ``values`` (factors, steps, rows ``where``) at its row's key values is held by ``record``."""
        labels = [np.tile(np.asarray(label)[where], values.shape[0] * values.shape[1]) for label in self._labels]
        found = held(_hashes_of([*labels, values.ravel()], values.size), str(record.get("hashes", "")))
        return found.reshape(values.shape)

    def relabelled(self, record: dict[str, Any], wrong: np.ndarray) -> tuple[str, Any] | None:
        """(a key column holding, at a ``wrong`` row, a label ``record`` does not, its first such label) or None."""
        return keys_not_held(self.keys[wrong], record.get("labels"))

    def first(self, wrong: np.ndarray) -> str:
        """The first ``wrong`` row's key values, as ``"agent='fast', seed=0"``."""
        first = int(np.flatnonzero(wrong)[0])
        return ", ".join(f"{k}={_scalar(self.keys[k].iloc[first])!r}" for k in self.keys.columns)


def _modulus(record):
    modulus = record.get("modulus", 1) if isinstance(record, dict) else 1
    return modulus if isinstance(modulus, int) and modulus > 1 else 1


def checked_share(record: Any) -> str:
    """What follows "rows" where a refusal or a line counts the rows a :func:`values_record` checks: nothing, or
    " checked (1 in k)" for a bounded one (:data:`VALUES_CAP`)."""
    return "" if _modulus(record) == 1 else f" checked (1 in {_modulus(record):,})"


def values_checked(notes: Sequence[Note], frame: pd.DataFrame) -> list[Note]:
    """``notes`` less those whose :attr:`Note.values` record ``frame``'s rows do not hold (a row's value of the
    column, with its key values, is not one the note was written of; missing values are not read), with one line per
    column saying so; a record whose column ``frame`` lacks (renamed, dropped) names nothing here and is not read. A
    note of some rows (``scope="rows"``) is read at the rows its items bind.
    Each column's hashes are made once (:class:`ValuesAt`)."""
    if not any(isinstance(note.values, dict) for note in notes):
        return list(notes)
    out: list[Note] = []
    said: dict[str, str] = {}
    checked: dict[tuple[str, tuple[str, ...]], ValuesAt] = {}
    for note in notes:
        record = note.values
        column = record.get("column") if isinstance(record, dict) else None
        if not isinstance(column, str) or column not in frame.columns or not isinstance(record, dict):
            out.append(note)
            continue
        keys, maker = record.get("keys"), str(record.get("maker", "the function that wrote them"))
        keys = tuple(keys) if isinstance(keys, (list, tuple)) and all(isinstance(k, str) for k in keys) else None
        if keys is None or any(k not in frame.columns for k in keys):
            why = ("its record is not readable" if keys is None else
                   f"no column {join_and([repr(k) for k in keys if k not in frame.columns])} in these data")
            said.setdefault(column, f"whether '{column}' holds the values {maker} wrote cannot be checked ({why}), "
                                    f"so {maker}'s note on it is not shown")
            continue
        if (column, keys) not in checked:
            checked[(column, keys)] = ValuesAt(frame[list(keys)], frame[column])
        at = checked[(column, keys)]
        among = None
        if note.scope == "rows" and note.keys and all(k in frame.columns for k in note.keys):
            # a note of some runs or tasks (one stacked frame's rows, :func:`_of_frame`) is read at theirs alone
            among = pd.MultiIndex.from_frame(frame[list(note.keys)]).isin(list({tuple(key) for key, _ in note.items}))
        wrong, read = at.unheld(record, among)
        if not wrong.any():
            out.append(note)
            continue
        relabelled = at.relabelled(record, wrong)
        if relabelled is not None:  # audit s33 hash33: the key column, not the values, no longer matches
            key, label = relabelled
            said.setdefault(column, f"the key column {key!r} holds labels {maker} did not write '{column}' for "
                                    f"(first: {key}={label!r}; relabelled or recoded, or rows of other data added), "
                                    f"so {maker}'s note on '{column}' is not shown")
            continue
        factor = at.factor(record, among)
        if factor is not None:  # the values written times a positive common factor (audit s36 small36)
            if note.kind == NORMALISED:
                out.append(dataclasses.replace(
                    note, text=_scaled_text(note.text, factor, maker), word=SCALED, values=None,
                    data=[note.word, note.data, note.text, factor, maker]))
            else:  # what it says of the values themselves (a range, their units) is not said of these
                said.setdefault(column, f"'{column}' holds the values {maker} wrote times {factor:.12g}, so "
                                        f"{maker}'s notes on those values are not shown")
            continue
        value = at.values[int(np.flatnonzero(wrong)[0])]
        said.setdefault(column, f"'{column}' holds, in {int(wrong.sum()):,} of {int(read.sum()):,} "
                                f"rows{checked_share(record)}, values that are not those {maker} wrote (first: "
                                f"{at.first(wrong)}, {column}={value:g}), so {maker}'s note on it is not shown")
    return out + [Note(text) for text in said.values()]


def _scaled_text(text, factor, maker):
    """A note's sentence said of its column's values times ``factor`` (:data:`SCALED`)."""
    said = f"{factor:.12g}"
    return f"{text}; the scores analysed are those times {said} (every row holds {maker}'s value times {said})"


def _reword_scaled(note, items, n_rows):
    """A note of values times a factor (:data:`SCALED`) said again of ``items``: its own note's words, with it."""
    word, data, text, factor, maker = note.data
    if word is not None:
        inner = dataclasses.replace(note, word=word, data=data)
        text = _wording(inner)(inner, items, n_rows)
        if text is None:
            return None
    return _scaled_text(text, float(factor), maker)


def scaled_by(note: Note) -> float | None:
    """The factor a note's column holds its values times (:data:`SCALED`), else None."""
    if note.word != SCALED:
        return None
    try:
        return float(note.data[3])
    except (TypeError, ValueError, IndexError):  # edited attrs
        return None


def unscaled(word: Any, data: Any) -> tuple[Any, Any]:
    """(word, data) of a note as written, under a :data:`SCALED` note's (``word``, ``data``) where it is one."""
    if word == SCALED:
        try:
            return data[0], data[1]
        except (TypeError, IndexError, KeyError):  # edited attrs
            return None, None
    return word, data


def _scalar(value):
    return value.item() if isinstance(value, np.generic) else value


def _columns_of(notes, extra=()):
    seen = dict.fromkeys(extra)
    for note in notes:
        if note.scope != "operation":
            seen.update(dict.fromkeys(note.keys))
    return tuple(seen)


def _made_for(provenance, frame):
    """True when ``frame`` holds the rows the notes were written for (in any order)."""
    if len(frame) != provenance.n_rows or any(c not in frame.columns for c in provenance.columns):
        return False
    return fingerprint(frame, provenance.columns) == provenance.digest


#: ``Note.word`` of :func:`rlstats.summarize_runs`' note, whose data :func:`rlstats.design.direction_read` reads.
SUMMARY_WORDING = "rlstats.runs:_reword_summary"

#: The functions that word a ``"rows"`` note again. Notes can come back from a file (Parquet keeps ``attrs``), so a
#: ``Note.word`` is looked up here and never taken as a name to import: nothing read from a file runs as code.
WORDINGS = frozenset({
    COUNTED, OF_ROWS, "rlstats.interop:_reword_positions", "rlstats.runs:_reword_grids", SUMMARY_WORDING,
    "rlstats.runs:_reword_cells", "rlstats.runs:_reword_dropped",
    "rlstats.runs:_reword_cut", "rlstats.runs:_reword_whole",
    "rlstats.normalization:_reword_minmax", "rlstats.normalization:_reword_minmax_analysed",
    "rlstats.normalization:_reword_sources",
    "rlstats.logs._read:_reword_early", "rlstats.logs._read:_reword_segments", "rlstats.logs._read:_reword_reruns",
    "rlstats.logs._read:_reword_joined", "rlstats.logs._read:_reword_copies",
    "rlstats.datasets._hpo:_reword_identical", SCALED,
})


#: Wordings of row notes whose sentence also counts rows of the frame they were written for besides their items' ("1
#: of 143 rows dropped"): said again of any other rows, all their items present or not (session 28 curvenotes28).
RECOUNTED = frozenset({"rlstats.runs:_reword_dropped"})


def _wording(note):
    if note.word not in WORDINGS:
        raise ValueError(f"a note's wording must be one of rlstats' own, got {note.word!r}")
    module, _, name = note.word.partition(":")
    return getattr(importlib.import_module(module), name)


def _said_again(note, items, n_rows):
    """The note worded for ``items`` among ``n_rows`` rows, or None when it cannot be (it is then left out, and the
    line says so: never a sentence about other rows)."""
    try:
        return _wording(note)(note, items, n_rows)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, ImportError):  # e.g. edited attrs
        return None


class _Present:
    """The key values present in some rows, per set of key columns (computed once each)."""

    def __init__(self, frame):
        self.frame = frame
        self.cache = {}

    def __call__(self, keys):
        have = tuple(k for k in keys if k in self.frame.columns)
        if have not in self.cache:
            unique = self.frame[list(have)].drop_duplicates() if have else None
            self.cache[have] = None if unique is None else set(zip(*(unique[c].tolist() for c in have)))
        return [keys.index(k) for k in have], self.cache[have]

    def rows_of(self, keys, items):
        """How many rows hold the key values of one of ``items`` (in the key columns present)."""
        where, _ = self(keys)
        columns = [keys[i] for i in where]
        if not columns:
            return len(self.frame)
        wanted = list({tuple(key[i] for i in where) for key, _ in items})
        return int(pd.MultiIndex.from_frame(self.frame[columns]).isin(wanted).sum())


def _restrict(note, present, n_rows):
    """(the note as true of rows whose keys ``present`` gives, or None; whether part of it was left out)."""
    if note.scope == "operation":
        return note, False
    if note.scope == "frame":
        return None, True
    if not note.keys:
        text = _said_again(note, (), n_rows)
        return (None if text is None else dataclasses.replace(note, text=text)), text is None
    where, values = present(note.keys)
    if values is None:
        return None, True
    kept = tuple(item for item in note.items if tuple(item[0][i] for i in where) in values)
    # a count of one stacked frame's rows is counted again on its rows here, which a subset can thin without taking
    # any of the values binding it (audit s18: "(18 rows)" said of 9)
    recount = _counts_rows(note.word, note.data)
    if len(kept) == len(note.items) and not recount and note.word not in RECOUNTED:
        return note, False
    if not kept:
        return None, True
    text = _said_again(note, kept, present.rows_of(note.keys, kept) if recount else n_rows)
    # A count said again of fewer runs or rows leaves nothing out; any other note that says less of fewer items does.
    lost = text is None or (text != note.text and note.word != COUNTED and not recount)
    return (None if text is None else dataclasses.replace(note, text=text, items=kept)), lost


def _settle(notes, rows, n_other):
    """(the notes true of ``rows``, the line saying what was left out or None): ``n_other`` rows of the frame
    they were written for are not among ``rows``, besides those an earlier such line counted."""
    present = _Present(rows)
    kept, left_out, earlier = [], False, None
    for note in notes:
        if note.word == LEFT_OUT:
            earlier = note
            continue
        restricted, lost = _restrict(note, present, len(rows))
        left_out |= lost
        if restricted is not None:
            kept.append(restricted)
    if not left_out and (earlier is None or earlier.data is None):
        return kept, earlier
    # The rows of the frame the notes were written for that are not here (an earlier line counted those it lost).
    return kept, left_out_note(max(n_other, 0) + (earlier.data or 0 if earlier is not None else 0))


def _counts_rows(word, data):
    """True when a note worded by ``word`` with ``data`` is a count of rows said of one stacked frame's rows (a note
    without keys of that frame, :func:`_of_frame`, perhaps stacked again)."""
    if word != OF_ROWS:
        return False
    try:
        _, inner_word, inner_data, keys, _, _ = data
    except (TypeError, ValueError):  # edited attrs: worded as any other note
        return False
    return (not keys and inner_word is not None) or _counts_rows(inner_word, inner_data)


def left_out_note(n_rows: int) -> Note:
    """The one line saying how many rows of the frame are not in these data, whose notes are not shown."""
    if n_rows > 0:
        text = (f"these data lack {count(n_rows, 'row')} of the frame they were taken from; notes "
                f"about {'that row' if n_rows == 1 else 'those rows'} alone are not shown")
    else:  # every row is here, but among others (a concat) or under other column names: notes that name them fail
        text = "notes of the frame these rows came from that no longer hold for them are not shown"
    return Note(text, scope="operation", word=LEFT_OUT, data=int(n_rows))


def _legacy(frame, provenance):
    """Sentences in ``attrs[NOTES_ATTR]`` that no Note holds (a frame's notes set by hand, or read back from a
    file): operation notes, kept as they are."""
    sentences = frame.attrs.get(NOTES_ATTR, ())
    if isinstance(sentences, str):
        sentences = (sentences,)
    known = collections.Counter(() if provenance is None else provenance.texts)
    out = []
    for sentence in sentences:
        if known[sentence] > 0:
            known[sentence] -= 1
        else:
            out.append(Note(str(sentence)))
    return out


def carried(frame: pd.DataFrame, source: pd.DataFrame | None = None) -> tuple[Note, ...]:
    """The notes of ``source``'s attrs (default: ``frame``'s) that are true of ``frame``'s rows.

    The rows the notes were written for (any order) keep every note. Other rows keep the operation notes and
    the row notes re-worded for the keys they hold, and get one line counting the rows not in these data, whose
    notes are not shown. A note recording the values of a column it was written of (:attr:`Note.values`) is kept
    only where every row holds them, else one line says so (:func:`values_checked`). A frame without notes gets none.
    """
    provenance = provenance_of(frame if source is None else source)
    legacy = _legacy(frame if source is None else source, provenance)
    if provenance is not None:
        if _made_for(provenance, frame):
            return tuple(values_checked(provenance.notes, frame)) + tuple(legacy)
        notes, line = _settle(provenance.notes, frame, provenance.n_rows - len(frame))
        return tuple(values_checked(notes, frame)) + tuple(legacy) + ((line,) if line else ())
    return tuple(legacy)


# ------------------------------------------------------------------------------------------------------ writing

def set_notes(frame: pd.DataFrame, notes: Iterable[Note], *, columns: Sequence[str] = ()) -> pd.DataFrame:
    """Make ``notes`` the provenance of ``frame`` (the frame they were written for); returns ``frame``.

    ``columns`` are fingerprinted besides the notes' keys (a frame note without keys is then bound to them).
    """
    notes = tuple(notes)
    present = [c for c in _columns_of(notes, columns) if c in frame.columns]
    provenance = Provenance(notes, len(frame), tuple(present), fingerprint(frame, present))
    frame.attrs[PROVENANCE_ATTR] = provenance
    frame.attrs[NOTES_ATTR] = provenance.texts
    return frame


def add_note(frame: pd.DataFrame, note: str | Note, source: pd.DataFrame | None = None) -> pd.DataFrame:
    """Set ``frame``'s notes to those of ``source`` (default: its own) true of its rows, followed by ``note``.

    A sentence is an operation note: true of every row, it stays whatever rows are analysed. Returns ``frame``.
    """
    inherited = carried(frame, source)
    previous = provenance_of(frame if source is None else source)
    columns = previous.columns if previous is not None else ()
    return set_notes(frame, inherited + (note if isinstance(note, Note) else Note(str(note)),), columns=columns)


def concat_frames(frames: list[pd.DataFrame], missing: Sequence[Sequence[str]] | None = None,
                  **kwargs: Any) -> pd.DataFrame:
    """``pandas.concat`` of the rows of pandas ``frames``, keeping each frame's notes for its own rows: the stacking
    behind :func:`rlstats.concat` (:func:`rlstats.interop.concat`, which converts other tables and checks the items).

    pandas keeps ``attrs`` on a concat only when every frame's are equal, so a concat of frames read or made
    apart (two log folders, two normalisations) loses what they say about how they were made. Here each frame's
    notes are re-derived for the rows it brings (parts of one annotated frame are taken together, so that rows of
    it left out are counted once), the same note said by several frames is kept once, and one line counts the
    rows of the frames the parts came from that are not here. A note that would be read as true of other frames'
    rows (one frame's operation, or a row note bound to values the other frames have too: two agents' logs read
    apart, each run named by task and seed) is said of its frame's rows by a column telling them apart ("(rows with
    agent 'PPO')"), and re-worded for the rows present like any row note (:func:`_of_rows`); without such a column it
    is not shown, and the line says so.

    ``missing``: the columns each frame lacks, which the stack leaves missing (NaN) in its rows (``join="outer"``):
    said of each frame's rows as its own notes are, or, where no column tells them apart, of the stack by the frames'
    places (audit s38: the gaps were left unsaid, and an analysis refused the missing scores without saying why).
    """
    out = pd.concat(frames, **kwargs)
    together = _parts_of_frames(frames)
    groups = [parts[0] if len(parts) == 1 else pd.concat(parts) for parts in together]
    said_by = [carried(rows, source=parts[0]) for rows, parts in zip(groups, together)]
    gaps = _gap_notes(frames, together, groups, missing) if missing is not None and any(missing) else {}
    for g, (note, _) in gaps.items():
        said_by[g] = (*said_by[g], note)
    # an operation note every frame says is true of every row; any other is said of its own frame's rows
    shared = set.intersection(*({n.text for n in notes if n.scope == "operation" and n.word != LEFT_OUT}
                                for notes in said_by))
    notes: list[Note] = []
    seen, n_left, left, apart = {}, 0, False, {}
    for g, group_notes in enumerate(said_by):
        for note in group_notes:
            if note.word == LEFT_OUT:
                n_left, left = n_left + int(note.data or 0), True
                continue
            gap = gaps.get(g, (None, None))
            if note is gap[0] and len(groups) == 1:
                note = gap[1]  # one frame's parts: said of the stack, by the frames' places
            elif len(groups) > 1 and _said_of_others(note, g, groups, shared):
                if g not in apart:
                    apart[g] = _telling_apart(g, groups)
                said = _of_frame(note, apart[g], groups[g])
                if said is None and note is gap[0]:  # a gap is never left unsaid: said by the frames' places
                    said = gap[1]
                if said is None:  # nothing tells this frame's rows apart: not shown, and the line says so
                    left = True
                    continue
                note = said
            said = (note.text, note.scope, repr(note.items))
            if said not in seen:
                seen[said] = len(notes)
                notes.append(note)
            elif notes[seen[said]].values != note.values:  # one note of each frame's values: of both frames' rows
                kept = notes[seen[said]]
                notes[seen[said]] = dataclasses.replace(kept, values=_merged_values(kept.values, note.values))
    notes += [left_out_note(n_left)] if left else []
    columns = dict.fromkeys(c for frame in frames if (p := provenance_of(frame)) is not None for c in p.columns)
    out.attrs = {}
    return set_notes(out, notes, columns=tuple(columns)) if notes else out


def _gap_notes(frames, together, groups, missing):
    """{group: (the note of the columns its frames lack, said of its rows; the same said of the stack by the frames'
    places)} for :func:`concat_frames`' ``missing``."""
    place = {id(frame): i for i, frame in enumerate(frames)}
    out = {}
    for g, parts in enumerate(together):
        places = sorted({place[id(part)] for part in parts})
        columns = list(dict.fromkeys(c for i in places for c in missing[i]))
        if not columns:
            continue
        named, n = join_and([repr(c) for c in columns]), len(columns)
        what = f"{named} left missing (NaN) by rlstats.concat(join='outer')"
        tables = (f"table {places[0] + 1}" if len(places) == 1
                  else f"tables {join_and([str(i + 1) for i in places])}") + f" of {len(frames)}"
        out[g] = (Note(f"{what}: the table of these rows has no such {plural('column', n)}"),
                  Note(f"{what} in the {count(len(groups[g]), 'row')} of {tables}, which "
                       f"{verb(len(places), 'has')} no such {plural('column', n)}", scope="frame"))
    return out


def _parts_of_frames(frames):
    """The frames grouped by the annotated frame they are parts of, a list of parts each. Parts of one frame share its
    Provenance object (pandas copies ``attrs``, never this object); equal provenances (read back from
    a file, or pickled) are one frame's parts while their rows add up to no more than it had. Frames made alike but apart
    (two agents' logs read from folders of the same tasks and seeds) have equal provenances and more rows than
    either: apart (audit s17: one frame's notes were said of both, "read 6 runs" of 12)."""
    together: dict[Any, list[pd.DataFrame]] = {}
    for position, frame in enumerate(frames):
        provenance = provenance_of(frame)
        together.setdefault(("frame", position) if provenance is None else id(provenance), []).append(frame)
    merged: list[tuple[Any, list[int], list[pd.DataFrame]]] = []  # (provenance's content, [rows], parts)
    for parts in together.values():
        provenance = provenance_of(parts[0])
        same = None if provenance is None else (provenance.digest, provenance.n_rows, provenance.columns,
                                                provenance.texts)
        rows = sum(map(len, parts))
        for content, total, earlier in merged:
            if same is not None and content == same and total[0] + rows <= provenance.n_rows:
                total[0] += rows
                earlier.extend(parts)
                break
        else:
            merged.append((same, [rows], list(parts)))
    return [parts for _, _, parts in merged]


def _key_set(rows, keys):
    unique = rows[list(keys)].drop_duplicates()
    return set(key_values(unique, keys))


def _said_of_others(note, g, groups, shared):
    """True when ``note`` of ``groups[g]`` would be read, in their stack, as true of other groups' rows too."""
    if note.scope == "operation":
        return note.text not in shared
    if note.scope != "rows":
        return False  # a fact about a frame as a whole, bound to the stack's rows as before
    if not note.keys:
        return True  # a count of rows: of this frame's
    mine = {key for key, _ in note.items}
    return any(all(k in rows.columns for k in note.keys) and mine & _key_set(rows, note.keys)
               for h, rows in enumerate(groups) if h != g)


def _telling_apart(g, groups):
    """A column whose values in ``groups[g]`` none of the other groups has (not a float, nothing missing), the one
    with fewest values there (an agent before its tasks), or None."""
    rows, best = groups[g], None
    for position, column in enumerate(rows.columns):
        if not all(column in other.columns for other in groups) or pd.api.types.is_float_dtype(rows[column]) \
                or rows[column].isna().any():
            continue
        mine = set(rows[column].drop_duplicates().tolist())
        others = set().union(*(set(other[column].drop_duplicates().tolist())
                               for h, other in enumerate(groups) if h != g))
        if mine and not mine & others and (best is None or (len(mine), position) < best[:2]):
            best = (len(mine), position, column)
    return None if best is None else best[2]


def _of_frame(note, by, rows):
    """``note`` of a frame whose ``rows`` the column ``by`` tells apart from the other frames' in a stack, said of
    them (a row note bound to ``by`` besides its own keys, worded by :func:`_of_rows`); None without ``by``."""
    if by is None:
        return None
    keys = note.keys if note.scope == "rows" else ()
    pairs = rows[[*keys, by]].drop_duplicates()
    values: dict[tuple, list] = {}
    for *key, value in key_values(pairs, (*keys, by)):
        values.setdefault(tuple(key), []).append(value)
    payloads = note.items if keys else (((), None),)
    items = tuple(((*key, value), payload) for key, payload in payloads for value in values.get(tuple(key), ()))
    # n: the frame's items, so that all of them are said as the frame said them; 0 for a count of rows, which is
    # counted again on the frame's rows present (_restrict)
    n = len(payloads) if keys or note.scope == "operation" else 0
    return Note(f"{note.text} {_rows_with(by, [value for (*_, value), _ in items])}", scope="rows",
                keys=(*keys, by), items=items, word=OF_ROWS, data=[note.text, note.word, note.data, list(keys), by, n],
                kind=note.kind, values=note.values)  # what it records, of these rows


def _rows_with(column, values):
    return f"(rows with {column} {join_and([repr(v) for v in dict.fromkeys(values)], limit=5)})"


def _of_rows(note: Note, items: tuple[Any, ...], n_rows: int) -> str | None:
    """Wording of a note of one of several stacked frames (:func:`_of_frame`): the frame's note said again of its
    items present, followed by the values of the column telling its rows apart."""
    text, word, data, keys, by, n = note.data
    if tuple(note.keys) != (*keys, by):  # bound again to fewer columns (a summary without them): not said
        return None
    inner = tuple(dict((tuple(key[:len(keys)]), payload) for key, payload in reversed(items)).items())[::-1]
    if len(inner) == n:
        said = text
    elif word is None:
        return None
    elif not keys:  # a count of the frame's rows: n_rows are those present (:func:`_restrict`)
        said = _said_again(Note(text, "rows", (), (), word, data), (), n_rows)
        if said is None:
            return None
    else:
        said = _said_again(Note(text, "rows", tuple(keys), inner, word, data), inner, n_rows)
        if said is None:
            return None
    return f"{said} {_rows_with(by, [key[-1] for key, _ in items])}"


def notes_for(frame: pd.DataFrame) -> tuple[str, ...]:
    """The sentences of :func:`carried`: what a result built from ``frame`` prints about how it was made."""
    return tuple(note.text for note in carried(frame))


def has_note(frame: pd.DataFrame, kind: str) -> bool:
    """Whether a note of ``kind`` (one of :data:`KINDS`) is among :func:`carried`'s of ``frame``: true of its rows.
    Read by the note's record, never by its sentence (audit s23: the normaliser matched the text 'subset=')."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {sorted(KINDS)}, got {kind!r}")
    return any(note.kind == kind for note in carried(frame))


def rebind(notes: Iterable[Note], frame: pd.DataFrame, *, as_read: bool = False) -> list[Note]:
    """``notes`` of another frame carried onto ``frame``, which was made from its rows (a summary of its runs):
    row notes keep the keys ``frame`` has and the items it holds (no line for the others: the maker states what
    it left out); row notes binding none of its columns, and frame notes, become frame notes of ``frame``.

    ``as_read``: rlstats itself left the missing rows out (``na_action="drop"``, a task kept out), whose own note
    says so: a count of what was read (:data:`COUNTED`, "read 15 runs from 15 files") keeps every item and its
    words, as read (re-counted it read "read 9 runs" beside "6 runs dropped"; audit s23, lead; s24 onehome24: the
    one rule of :func:`rlstats.design.build`, a Design's own drop and ``summarize_runs``)."""
    present, out = _Present(frame), []
    for note in notes:
        # ``frame``'s values are made from the other's (a run's mean of normalised scores): no longer those recorded
        note = dataclasses.replace(note, values=None) if note.values is not None else note
        if note.scope == "rows" and (not note.keys or _counts_rows(note.word, note.data)):
            # a count of the other frame's rows (or of a stacked frame's rows of it): true of it as it was
            note = dataclasses.replace(note, scope="frame", word=None, data=None)
        elif note.scope == "rows":
            where, values = present(note.keys)
            if not where:
                out.append(dataclasses.replace(note, scope="frame", keys=(), items=(), word=None))
                continue
            keys = tuple(note.keys[i] for i in where)
            items = tuple((tuple(key[i] for i in where), payload) for key, payload in note.items)
            note = dataclasses.replace(note, keys=keys, items=items)
            if not (as_read and note.word == COUNTED):
                note, _ = _restrict(note, present, len(frame))
            if note is None:
                continue
        elif note.scope == "frame":
            note = dataclasses.replace(note, keys=())
        elif note.word == LEFT_OUT:  # its count is of the other frame's rows: not added to this one's
            note = dataclasses.replace(note, data=None)
        out.append(note)
    return out


def key_values(frame: pd.DataFrame, columns: Sequence[str]) -> list[tuple[Any, ...]]:
    """Each row's values in ``columns`` as Python scalars (how items' keys are stored and compared)."""
    return list(zip(*(frame[c].tolist() for c in columns))) if columns else [()] * len(frame)


def counted(note: Note, items: tuple[Any, ...], n_rows: int) -> str:
    """Wording of a count: ``note.data`` is ``(template, unit)``, ``{n}`` in the template replaced by the count of
    the items present (or of the rows, for a note without keys)."""
    template, unit = note.data
    n = len(items) if note.keys else n_rows
    return template.replace("{n}", f"{n:,} {unit if n == 1 else unit + 's'}")

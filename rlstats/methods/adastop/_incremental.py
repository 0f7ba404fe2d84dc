"""AdaStop run while the experiments run: the :class:`AdaStop` class, its JSON state and batch parsing."""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import stat
import tempfile
import time
import warnings
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from ...errors import INDEX_LABELS, DesignError, close_names, OptionError, RlstatsError, rows_named, warn
from ...design import ALL_RUNS, block_like_columns, booleans_read, build, repeated_run
from ...format import count, join_and, listed, name_list, plural
from ...interop import as_pandas, unmasked
from ...logs import loads_json
from ...options import check_bool
from ...resampling import label_ranks, seed_sequence
from . import _integrity as integrity
from . import _kernels as kernels
from ._defaults import LOCK_TIMEOUT
from ._api import (DEFAULT_K, MAX_AGENTS, MAX_COMPARISONS, AdaStopOptions, _assemble, _calibration_notes,
                   _decision_rows, _flips, _interim_generator, _labelled, _monte_carlo_notes, _repeat_notes,
                   _resolve_pairs, _no_level_notes, _schedule, _spread_notes, _TaskRun, _warn_if_powerless,
                   _powerless_way, holm_shares, rejecting_sizes_of)
from ._result import AdaStopResult

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..._typing import Label, Permutations, Seed, Table


_STATE_FORMAT = "rlstats.AdaStop"
# Version 4 records "draws": the order the random paths lay the agents out in, "sorted" (their names sorted, so that
# the order they are listed in draws nothing different) or "listed" (as versions 1-3 drew them: a state begun so
# continues so, keeping its decisions), and its digests cover it.  Version 3 chains each batch's digest to the one
# before, the options, the agents and the seed (_integrity.py); it loads without a warning (its digests checked as
# written) and the next save writes version 4.  Version 2 states carry one SHA-256 digest per batch of its scores
# alone; version 1 was written both before digests existed (until fcc6f46) and after.  Both load (their digests,
# where present, checked), with a warning that what their digests did not cover is taken as found, and are
# migrated: the next save writes the current version and keeps a record of the migration, which the result's notes
# quote.
_STATE_VERSION = 4
_READ_VERSIONS = (1, 2, 3, 4)
_FIRST_VERSION_WITH_CHAIN = 3
#: the orders the random paths may lay the agents out in (see _STATE_VERSION)
_DRAWS = ("sorted", "listed")
_FIRST_VERSION_WITH_DIGESTS = 2


class AdaStop:
    """AdaStop run while the experiments run: feed batches, train what it asks for, stop when done.

    Parameters
    ----------
    agents : sequence of str
        The agents compared (their order sets the printing order and how "all pairs" are named; the random
        paths follow the names sorted, as numbers when every name reads as one, so it draws nothing different).
    n : int
        Runs per agent per batch.
    K : int
        Maximum number of batches (interims).
    n_resamples, alpha, beta, comparisons, reference, permutations
        As in :func:`adastop`.
    rng : None, int, numpy.random.Generator or SeedSequence
        Seed of the random permutation paths.  Each interim's paths come
        from its own generator derived from this seed, so a state saved and
        loaded continues exactly as an uninterrupted run.
    key : None, bytes or pathlib.Path
        Key of the state's digests (at least 16 bytes, or a key file, all of
        whose bytes are the key; refused if users other than its owner and
        group may read or write it).  With a
        key the saved state's digests are HMAC-SHA256, so that someone who
        edits the state and recomputes them without the key is refused; the
        same key must be given to :meth:`load` it.  A key can be set only
        when the test starts.  A ``str`` is refused: wrap a file name in
        ``pathlib.Path``.

    Notes
    -----
    The saved state (:meth:`save`, JSON) records, besides the batches, one
    digest per batch that chains the digest of the batch before, the agents
    in their order, every option (``n``, ``K``, ``n_resamples``, ``alpha``,
    ``beta``, comparisons, ``reference``, ``permutations``), the seed and
    the batch's scores.  :meth:`load` walks the chain and refuses, naming the
    batch and what differs, an edited option or score and a dropped,
    repeated or reordered batch.  Without a key the digests are plain
    SHA-256: they catch hand edits, not someone who recomputes them.  No
    digest stops the whole file being replaced by an older copy of itself.

    Examples
    --------
    >>> import numpy as np, rlstats
    >>> from rlstats.methods.adastop import AdaStop
    >>> seq = AdaStop(["a", "b"], n=5, K=4, rng=0)
    >>> gen = np.random.default_rng(1)
    >>> while not seq.done:
    ...     batch = {agent: gen.normal(3.0 if agent == "b" else 0.0, 1.0, 5) for agent in seq.agents_to_run}
    ...     _ = seq.update(batch)
    >>> seq.decisions["decision"].tolist()
    ['smaller']
    """

    def __init__(self, agents: Iterable[str], n: int = 5, K: int = DEFAULT_K, *, n_resamples: int = 10_000,
                 alpha: float = 0.05, beta: float = 0.0, comparisons: str | Sequence[tuple[Label, Label]] = "all",
                 reference: Label | None = None, permutations: Permutations = "holm",
                 rng: Seed | np.random.SeedSequence = None,
                 key: bytes | os.PathLike[str] | None = None) -> None:
        agents = _check_agents(agents)
        self._key = integrity.checked_key(key)
        if K is None:
            raise OptionError("K (the maximum number of batches) must be fixed before the first batch")
        self._options = AdaStopOptions.checked(n=n, K=K, n_resamples=n_resamples, alpha=alpha, beta=beta,
                                               comparisons=comparisons, reference=reference, batch=None,
                                               permutations=permutations, na_action="raise", progress=False)
        # the agents' labels they name, recorded as adastop() records them (review s31: np.int64(2) and (0, 2.0) were
        # kept as given, and a state holding (0, 2.0) was refused on load)
        self._options = _labelled(self._options, agents)
        self._agents: tuple[str, ...] = tuple(agents)  # already a tuple (_check_agents)
        self._pairs = _resolve_pairs(agents, self._options.comparisons, self._options.reference)
        self._schedule, joint = _schedule(self._options, self._options.n, self._options.K,
                                          [a for p in self._pairs for a in p])
        _warn_if_powerless(self._schedule, shares=holm_shares(self._options, self._pairs), joint=joint)
        self._ss, self._seed_record = seed_sequence(rng)
        self._joint = joint
        self._use_draws("sorted")
        self._batches: list[dict[str, list[float]]] = []  # one {agent: list of floats} per interim fed
        # {"from_version", "batches", "scores_verified"} when loaded from a state of version 1 or 2
        self._migrated: dict[str, Any] | None = None

    def _use_draws(self, draws):
        """A fresh test whose random paths lay the agents out in the names' sorted order or in the order listed
        (a state begun before rlstats drew them sorted); before any batch is fed."""
        self._draws = draws
        places = label_ranks(self._agents) if draws == "sorted" else np.arange(len(self._agents))
        self._test = kernels.SequentialTest(self._pairs, self._schedule, joint=self._joint, places=places,
                                            flip=_flips(self._pairs, places, self._options),
                                            holm=self._options.permutations == "holm")

    # ---- what the user asks --------------------------------------------------------
    @property
    def agents(self) -> tuple[str, ...]:
        return self._agents

    @property
    def n(self) -> int:
        return self._options.n

    @property
    def K(self) -> int:
        return self._options.K  # type: ignore[return-value]  # never None here (checked at construction)

    @property
    def interim(self) -> int:
        """Number of batches fed so far."""
        return self._test.interim

    @property
    def done(self) -> bool:
        """No comparison is left undecided (at the latest after K batches)."""
        return self._test.done

    @property
    def agents_to_run(self) -> tuple[str, ...]:
        """Agents that must provide the next batch: those in an undecided comparison (empty when done)."""
        return tuple(self._agents[a] for a in self._test.active_agents())

    @property
    def decisions(self) -> pd.DataFrame:
        """The decisions so far, one row per comparison (as in :meth:`result`)."""
        run = self._task_run()
        return _decision_rows([run], self._pairs, self._agents, lambda _: self.n, blocked=False)

    def __repr__(self) -> str:
        state = "done" if self.done else f"next: {name_list(self.agents_to_run, among=self._agents)}"
        return (f"AdaStop({len(self._agents)} agents, n={self.n}, K={self.K}, interim {self.interim} of "
                f"{self.K}, {state})")

    # ---- feeding batches --------------------------------------------------------------
    def update(self, batch: Table | Mapping[str, ArrayLike], *, agent: str = "agent", score: str = "score",
               allow_repeat: bool = False) -> pd.DataFrame:
        """Feed the next batch: ``n`` new runs of every agent in :attr:`agents_to_run`.

        Parameters
        ----------
        batch : DataFrame or mapping
            Long format with columns ``agent`` and ``score`` (names set by the
            keywords), or one column per agent (the reference tool's CSV
            layout), or a mapping ``{agent: scores}``.  Other columns of the
            long format are not read, nor are a wide batch's index columns
            (unnamed, ``index``, ``seed``, ``run``), but a ``task``,
            ``environment``, ``batch`` or ``interim`` column must hold one
            value: one test compares agents on one task, one batch at a time.
            Rows of learning curves (a step column taking several values
            within one run), rows repeated whole and a ``seed`` or ``run`` id
            repeated within an agent are refused, as :func:`rlstats.adastop`
            refuses them (the batch's rows are built into the same Design,
            :func:`check_batch_columns`): a batch holds one score per run.
        agent, score : str
            Column names of the long format.
        allow_repeat : bool
            Accept a batch whose scores equal those of an earlier batch for
            every agent, or in which some agent's runs equal its runs of an
            earlier batch, in any order and up to the rounding of their
            representation (refused by default: it is almost
            always the same file fed twice, or one agent's column copied from
            an earlier file; runs all at one value, as at a score's cap, are
            not counted).

        Returns
        -------
        DataFrame
            The decisions so far.

        Raises
        ------
        DesignError
            The test is finished, an agent is missing, unknown or should not
            run, a count differs from ``n``, a score is not finite, the batch
            holds several tasks or batches, rows of learning curves or a run
            twice, or it (or an agent's runs in it) repeats an earlier one.
            The state is then unchanged.
        """
        scores, booleans = _batch_scores(batch, agent, score, self._agents)
        self._check_batch(scores, check_bool("allow_repeat", allow_repeat))
        if booleans:  # once the batch is accepted: as rlstats.adastop's note says it
            warn(f"batch {self.interim + 1}: {booleans}")
        self._advance(scores)
        return self.decisions

    def _check_batch(self, scores, allow_repeat):
        if self.done:
            raise DesignError(f"the test is finished after {count(self.interim, 'batch')}: every "
                              "comparison is decided; start a new AdaStop to test again")
        expected = self.agents_to_run
        quoted = functools.partial(name_list, among=self._agents)  # every name quoted where one holds a comma
        extra = [a for a in scores if a not in expected]
        if extra:
            raise DesignError(f"{plural('agent', len(extra))} {quoted(extra)} should not run: all their comparisons "
                              "are decided; "
                              f"this batch needs exactly: {quoted(expected)}")
        missing = [a for a in expected if a not in scores]
        if missing:
            lacked = f"{plural('agent', len(missing))} {quoted(missing)}"
            found = (f"the batch lacks {lacked}; batch {self.interim + 1} needs "
                     f"n = {count(self.n, 'run')} of each of: {quoted(expected)}")
            if not scores:  # no run at all: no test stopped every agent it still needs (audit s23)
                found = found.replace(f"lacks {lacked}", "is empty (no runs)")
            if not scores or self.interim == 0 or self._options.permutations == "pairwise":
                raise DesignError(found)
            # Files of a run under the paper's scheme hold no more runs of the agents it stopped (audit s18; holm
            # states too, holmfix29: the hint was given to joint ones only)
            replay = (f"; if these batches come from a run whose test stopped {lacked} (the "
                      "AdaStop paper's pairwise scheme stops agents sooner), replay it from its first batch in a new ")
            raise DesignError(found + replay + 'AdaStop with permutations="pairwise"',
                              command_line=found + replay + "state file with --permutations pairwise")
        for a, values in scores.items():
            if values.size != self.n:
                raise DesignError(f"agent {a!r} has {count(values.size, 'run')} in this batch; every batch needs "
                                  f"exactly n = {count(self.n, 'run')} per agent")
            if not np.isfinite(values).all():
                bad = values[~np.isfinite(values)]
                raise DesignError(f"agent {a!r} has {count(bad.size, 'missing or infinite score')} in this batch ("
                                  f"{', '.join(str(v) for v in bad.tolist())}) among {values.tolist()}; every run of a "
                                  "batch needs a finite score: rerun the failed run (or fix its score) and feed the "
                                  "batch again")
        if not allow_repeat:
            for k, earlier in enumerate(self._batches, start=1):
                if not all(a in earlier for a in scores):
                    continue
                if all(kernels.same_runs(earlier[a], v) for a, v in scores.items()):
                    raise DesignError(f"this batch repeats batch {k} (the same runs for every agent, in any order); "
                                      "it was probably fed twice. Pass allow_repeat=True if it is genuine")
                if all(kernels.same_runs(earlier[a], v, kernels.NEAR_REPEAT) for a, v in scores.items()):
                    warnings.warn(f"this batch is nearly identical to batch {k} (every agent's runs, sorted, agree to "
                                  f"{kernels.NEAR_REPEAT:.1%} of their range); check that it is not the same runs "
                                  "rounded or re-exported", UserWarning, stacklevel=4)
            # one agent's column copied from an earlier file, the others new (the AdaStop paper's hopper3.csv and
            # hopper4.csv repeat hopper1.csv and hopper2.csv for three of four agents: audit s20)
            copied = {}  # batch repeated -> agents
            for a in self._agents:  # an agent runs in batches 1, 2, ... until it stops: its k-th is batch k
                earlier = [b[a] for b in self._batches if a in b]
                for k, first in kernels.repeated_batches(earlier + [scores[a]]) if a in scores else ():
                    if k == len(earlier):
                        copied.setdefault(first + 1, []).append(a)
            if copied:
                said = "; ".join(f"{'agent' if len(names) == 1 else 'agents'} {quoted(names)}: "
                                 f"{'its' if len(names) == 1 else 'their'} runs in this batch repeat batch {k} exactly"
                                 for k, names in sorted(copied.items()))
                raise DesignError(f"{said} (the same {count(self.n, 'score')} in any order); a batch holds new runs: "
                                  "check that its file was not copied from an earlier one. Pass allow_repeat=True "
                                  "if they are genuine")

    def _advance(self, scores):
        k = self.interim + 1
        block = np.full((len(self._agents), self.n), np.nan)
        index = {a: i for i, a in enumerate(self._agents)}
        for a, values in scores.items():  # one batch's runs are exchangeable: in score order, as adastop() takes them
            block[index[a]] = np.sort(values)
        self._test.run_interim(block, _interim_generator(self._ss, None, k))
        self._batches.append({a: [float(v) for v in values] for a, values in scores.items()})

    # ---- results ------------------------------------------------------------------------
    def _task_run(self):
        """The state in the form the result tables are built from."""
        blocks = {}
        for i, a in enumerate(self._agents):
            rows = [batch[a] for batch in self._batches if a in batch]
            # a batch's runs are exchangeable: in score order, as the test took them (_advance) and as adastop()
            # lists them, so the result does not follow the order a batch's rows came in (the state keeps it)
            blocks[i] = np.sort(np.asarray(rows, dtype=float).reshape(-1, self.n), axis=1)
        used = {i: len(b) for i, b in blocks.items()}
        return _TaskRun(ALL_RUNS, self._test, list(range(len(self._pairs))), {}, used, dict(used), blocks,
                        None, self._test.joint)

    def result(self) -> AdaStopResult:
        """The :class:`AdaStopResult` of the batches fed so far (as :func:`adastop` on the same data)."""
        run = self._task_run()
        nobs = sum(len(v) for batch in self._batches for v in batch.values())
        notes = [f"incremental AdaStop: {count(self.interim, 'batch')} fed"]
        if self._migrated is not None:
            notes.append(_migration_note(self._migrated))
        if self._draws == "listed":
            notes.append(f"the random paths lay the agents out in the order listed ({name_list(self._agents)}), as "
                         "when this test began under an rlstats that drew them so (a state of version 3 or earlier), "
                         "so that resuming it keeps its decisions; a new test draws them in the names' sorted order")
        if not self.done:
            notes.append("the test is still running: next batch needs "
                         + name_list(self.agents_to_run, among=self._agents))
        # accepted with allow_repeat (or read from a state): said, not warned, at every result
        notes += _repeat_notes([run], self._agents, blocked=False, warn_user=False)
        # the level notes of adastop() on the same batches: the test is the same (audit s24; s28: its note that a
        # test spending no level finds no difference whatever the scores, the advice a new test's, as the warning's)
        # (review s31: the warning's way on, one that works: a larger n or K, n_resamples= or both)
        shares = first_step_shares(self)
        powerless = kernels.spendable_level(self._schedule, shares) == 0
        notes += _no_level_notes(None, [run], advice=_powerless_way(self._schedule, shares, self._joint, True)
                                 if powerless else "")
        notes += _calibration_notes("adastop", [run], self._options)
        notes += _spread_notes([run], self._agents, self._options, blocks=None)
        notes += _monte_carlo_notes([run], self._pairs, self._agents, blocked=False)
        return _assemble(
            AdaStopResult, [run], self._pairs, self._agents,
            method="AdaStop sequential permutation test", formula=None,
            data_name=f"{count(self.interim, 'batch')} of n = {count(self.n, 'run')}", nobs=nobs,
            notes=notes,
            options={**asdict(self._options), "batch": None}, seed=self._seed_record, blocked=False)

    # ---- persistence --------------------------------------------------------------------
    def _settings(self, version=_STATE_VERSION):
        """What decides besides the batches: agents in their order, every option, the seed, any migration and
        (from version 4) the order the paths draw the agents in; ``version``: as a state of that version holds them.
        """
        options = asdict(self._options)
        options["comparisons"] = options["comparisons"] if options["comparisons"] == "all" \
            else [list(p) for p in options["comparisons"]]
        entropy = self._ss.entropy
        settings = {"agents": list(self._agents),
                    "options": {k: options[k] for k in ("n", "K", "n_resamples", "alpha", "beta", "comparisons",
                                                         "reference", "permutations")},
                    "seed": {"entropy": entropy if isinstance(entropy, int) else [int(e) for e in entropy],
                             "spawn_key": [int(s) for s in self._ss.spawn_key], "record": self._seed_record},
                    "migrated": self._migrated}
        if version >= 4:
            settings["draws"] = self._draws
        return settings

    def to_state(self) -> dict[str, Any]:
        """The JSON-serialisable state: options, seed, every batch fed and their digests (no pickle)."""
        settings = self._settings()
        digests, record = integrity.record(settings, self._batches, self._key)
        migrated = settings.pop("migrated")
        return {"format": _STATE_FORMAT, "version": _STATE_VERSION, **settings,
                **({} if migrated is None else {"migrated": migrated}),
                "batches": self._batches, "digests": digests, "integrity": record}

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the state as JSON atomically (a temporary file then ``os.replace``).

        A symbolic link is followed (its target is replaced, the link kept), an
        existing file keeps its permission bits, and temporary files that an
        earlier, interrupted save left next to the state are removed.  Use
        :func:`rlstats.methods.adastop.state_lock` around load-update-save when several processes may
        update the same state.
        """
        path = Path(os.path.realpath(path))
        text = json.dumps(self.to_state(), indent=1)
        _remove_stale_temporaries(path)
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fchmod(fh.fileno(), mode)
                os.fsync(fh.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return path

    @classmethod
    def from_state(cls, state: dict[str, Any], *,
                   key: bytes | os.PathLike[str] | None = None) -> AdaStop:
        """Rebuild an AdaStop from :meth:`to_state` output by replaying its batches.

        Sizes (``n``, ``K``, ``n_resamples``, agents, comparisons, batches) are checked before anything is
        allocated, and the digest chain before any batch is replayed: an edited option, agent order, seed or
        score, and a dropped, repeated or reordered batch are refused, naming the batch and what differs.  A
        state written with a key needs it (``key=``, as in :class:`AdaStop`); a key given to a state written
        without one is refused.  A state of version 1 or 2 (whose digests, where it has them, cover the scores
        alone) loads with a warning, is migrated to the current version by the next save, and keeps a note that
        its options were taken as found.  A state of version 3 or earlier drew its paths with the agents in the
        order listed: it continues so (with a note in the result), so that it keeps its decisions; version 4
        records that order.
        """
        key = integrity.checked_key(key)
        if not isinstance(state, dict) or state.get("format") != _STATE_FORMAT:
            way = "give the JSON state file that rlstats adastop update (or AdaStop.save) wrote"
            if isinstance(state, dict) and isinstance(state.get("result"), str) and "method" in state:
                # a result's record (res.to_json()), the other JSON rlstats writes (audit s26)
                raise DesignError(f"this is a result's record (to_json()), not an AdaStop state: it holds no test to "
                                  f"continue; {way}")
            raise DesignError(f"this is not an rlstats AdaStop state (missing \"format\": \"rlstats.AdaStop\"); {way}")
        version = state.get("version")
        if isinstance(version, bool) or version not in _READ_VERSIONS:
            raise DesignError(f"AdaStop state version {version!r} is not supported (this rlstats reads versions "
                              f"{', '.join(map(str, _READ_VERSIONS))}); it was written by another rlstats: "
                              "continue the test with that one")
        _check_state_shape(state)
        _check_state_sizes(state)
        digests = state.get("digests")
        if version >= _FIRST_VERSION_WITH_CHAIN:
            integrity.check_shape(state)
            migrated = _check_migrated(state.get("migrated"), len(state["batches"]))
        else:
            if digests is None and version >= _FIRST_VERSION_WITH_DIGESTS:
                raise DesignError(f"the AdaStop state has no \"digests\": a version {version} state always "
                                  "records one per batch, so it was edited by hand or corrupted; restore it from a "
                                  "copy, or start a new test")
            if digests is not None:
                integrity.check_legacy(state["batches"], digests)
            migrated = {"from_version": version, "batches": len(state["batches"]),
                        "scores_verified": digests is not None}
        integrity.check_key(state, key)
        with _state_errors():
            options = dict(state["options"])
            # states written before the option existed ran the old default, the paper's pairwise scheme
            options.setdefault("permutations", "pairwise")
            if options["comparisons"] != "all":
                options["comparisons"] = [tuple(p) for p in options["comparisons"]]
            seed = state["seed"]
            ss = np.random.SeedSequence(seed["entropy"], spawn_key=tuple(seed["spawn_key"]))
            seq = cls(state["agents"], rng=ss, key=key, **options)
            # the state's own stream as it was fed, not one drawn from it: a state begun on a spawned SeedSequence
            # under an rlstats before s19 saved that one's entropy and key (review s19)
            seq._ss, seq._seed_record = ss, seed["record"]
            seq._migrated = migrated
        seq._use_draws(_state_draws(state, version))
        if version >= _FIRST_VERSION_WITH_CHAIN:
            # the settings as this AdaStop holds them, so that 0.05 written 5e-2 is no edit; before any replay. The
            # agents named as the state records them: before s31 reference= and comparisons= were recorded as given
            # (2, [0, 2.0]), not as the labels they name ('2'), and the digests cover what was recorded
            settings = seq._settings(version)
            settings["options"].update({k: state["options"][k] for k in ("reference", "comparisons")
                                        if k in state["options"]})
            integrity.verify(settings, state, key)
        with _state_errors():
            for batch in state["batches"]:
                scores = {a: np.asarray(v, dtype=float) for a, v in batch.items()}
                seq._check_batch(scores, allow_repeat=True)
                seq._advance(scores)
        if version < _FIRST_VERSION_WITH_CHAIN:
            warn(_migration_warning(migrated))
        return seq

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, key: bytes | os.PathLike[str] | None = None) -> AdaStop:
        """Read a state written by :meth:`save` (with its ``key``, if it was written with one)."""
        path = Path(path)
        if path.is_dir():
            raise DesignError(f"{path} is a folder, not an AdaStop state file")
        if not path.is_file():
            from ...tables import not_regular

            raise DesignError(not_regular(path, "give the JSON file AdaStop.save wrote")
                              or f"no AdaStop state at {path}")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise DesignError(f"cannot read the AdaStop state {path}: {exc}; give the JSON file AdaStop.save (or "
                              "rlstats adastop update) wrote") from exc
        except OSError as exc:
            raise DesignError(f"cannot read the AdaStop state {path}: {exc.strerror or exc}") from None
        return cls._from_json(text, str(path), key=key)

    @classmethod
    def _from_json(cls, text, where, key=None):
        """The AdaStop of a state's JSON text; errors name ``where`` it came from."""
        try:
            state = loads_json(text)
        except json.JSONDecodeError as exc:
            raise DesignError(f"cannot read the AdaStop state {where}: {exc}; give the JSON file AdaStop.save (or "
                              "rlstats adastop update) wrote, or restore it from a copy") from exc
        except RecursionError:
            raise DesignError(f"cannot read the AdaStop state {where}: it is nested too deeply to be a state "
                              "written by rlstats") from None
        try:
            return cls.from_state(state, key=key)
        except DesignError as exc:  # a damaged or edited state: which file (audit s23: the digest errors named none)
            def named(message):
                if where in message:
                    return message
                if "the AdaStop state" not in message:
                    return f"the AdaStop state {where}: {message}"
                return message.replace("the AdaStop state", f"the AdaStop state {where}", 1)

            raise DesignError(named(str(exc)), command_line=exc.command_line and named(exc.command_line)) from exc


def first_step_shares(seq: AdaStop) -> int:
    """J, the comparisons among which ``seq``'s first step divides alpha: Holm's step-down (the default) tests each
    at alpha / J first; 1 for the other schemes."""
    return holm_shares(seq._options, seq._pairs)


def rejecting_sizes(seq: AdaStop) -> tuple[int | None, int | None] | None:
    """Where ``seq``'s test, which can never reject (its schedule spends no level; AdaStop warns), would: the smallest
    n at its K and the smallest K at its n whose schedule spends some, its other options the same; None for a test
    that can reject. Each is None where none can: the level is at most alpha times ``n_resamples`` paths, so with
    fewer than 1/alpha paths no n or K can (three agents or more relabelled jointly draw that many at any n and K).
    With Holm's step-down (the default) the level is the alpha / J its first step spends on each of the J
    comparisons (audit s29: judged at alpha, 3 agents at n = 3, K = 1 were sent to n = 4, where alpha / 3 spends
    nothing either), and no n or K can with fewer than J/alpha paths.

    Past the n or K at which the exact tree of the first (or the last) interim outgrows ``n_resamples``, every
    interim draws ``n_resamples`` paths whatever a larger n or K: the searches stop there."""
    shares = first_step_shares(seq)
    if kernels.spendable_level(seq._schedule, shares) > 0:
        return None
    return rejecting_sizes_of(seq._schedule, shares, seq._joint)


def _state_draws(state, version):
    """The order a state's paths lay the agents out in: as recorded (version 4), else as the order listed, which
    versions 1-3 drew in ("sorted" when that is the names' sorted order: the same paths)."""
    if version >= 4:
        draws = state.get("draws")
        if draws not in _DRAWS:
            raise DesignError(f"the AdaStop state is damaged: \"draws\" must be one of {', '.join(map(repr, _DRAWS))} "
                              f"(the order its random paths lay the agents out in), got {draws!r}; it was not written "
                              "by rlstats (or was edited)")
        return draws
    agents = state["agents"]
    return "sorted" if label_ranks(agents).tolist() == list(range(len(agents))) else "listed"


@contextlib.contextmanager
def _state_errors():
    """A state's options or batches that this AdaStop refuses, as one error that says it is the state's."""
    try:
        yield
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        if isinstance(exc, RlstatsError):
            raise DesignError(f"the AdaStop state is inconsistent: {exc}") from exc
        raise DesignError(f"the AdaStop state is damaged: {type(exc).__name__}: {exc}") from exc


@contextlib.contextmanager
def state_lock(path, timeout=LOCK_TIMEOUT):
    """Hold an exclusive lock (``fcntl.flock``; ``msvcrt.locking`` on Windows) for the state at ``path`` while the
    block runs.

    The lock is taken on a companion file ``<state>.lock`` (the state itself is
    replaced on every save, so it cannot carry the lock), waits up to ``timeout``
    seconds for another holder, and is released when the block ends or the
    process dies.  The holder writes its process id into the lock file, so a
    wait that times out can name it, and removes the file when the block ends,
    so that nothing stays next to the state.  A file left by a process that was
    killed holds no lock (the system releases it with the process): the next
    update takes it and removes it.

    Raises
    ------
    DesignError
        Another process held the lock for ``timeout`` seconds; the message names
        the lock file and, where the platform says, that process.
    """
    timeout = _check_timeout(timeout)
    target = Path(os.path.realpath(path))
    lock_path = target.with_name(target.name + ".lock")
    deadline = time.monotonic() + timeout
    while True:
        handle = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            _acquire(handle, lock_path, target, timeout, deadline)
        except BaseException:
            os.close(handle)
            raise
        if _still_at(handle, lock_path):
            break
        # the lock of a file its holder removed on release (below): another process may hold the file now at
        # the path, so start over on that one
        os.close(handle)
    try:
        with contextlib.suppress(OSError):
            os.ftruncate(handle, 0)
            os.lseek(handle, 0, os.SEEK_SET)  # os.pwrite is POSIX-only
            os.write(handle, f"{os.getpid()}\n".encode())
        try:
            yield target
        finally:
            try:  # removed while still held, so that nothing stays next to the state (audit s16); only if it is
                # still this file: one removed by hand and made anew by another process is that process's lock
                if _still_at(handle, lock_path):
                    os.unlink(lock_path)
            except OSError:  # e.g. Windows, where an open file cannot be removed: no stale process id at least
                with contextlib.suppress(OSError):
                    os.ftruncate(handle, 0)
    finally:
        os.close(handle)  # closing releases the lock


def _still_at(handle, lock_path):
    """The locked file ``handle`` is the one at ``lock_path`` (not one removed since it was opened)."""
    try:
        here, there = os.fstat(handle), os.stat(lock_path)
    except FileNotFoundError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _check_timeout(timeout):
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 <= timeout < math.inf:
        raise OptionError(f"lock timeout must be a number of seconds, 0 or more, got {timeout!r}")
    return float(timeout)


def _acquire(handle, lock_path, target, timeout, deadline):
    """Take the lock, polling with growing pauses until the ``deadline`` (``timeout`` seconds after the wait began)."""
    pause = 0.005
    while True:
        if _try_lock(handle):
            return
        left = deadline - time.monotonic()
        if left <= 0:
            raise DesignError(f"the AdaStop state {target} is being updated by another process "
                              f"({_lock_holder(handle, lock_path)}) and its lock {lock_path} was not released "
                              f"within {timeout:g} s; wait for that update to finish and retry, or allow a longer "
                              "wait (--lock-timeout SECONDS)")
        time.sleep(min(pause, left))
        pause = min(2 * pause, 0.25)


def _try_lock(handle):
    """Take the exclusive lock on the open file ``handle`` without waiting: True when taken.

    ``fcntl.flock`` where it exists (POSIX); else ``msvcrt.locking`` of the file's first byte (Windows), whose lock
    is released, like flock's, when the handle is closed or the process ends. Imported here, not at module level,
    so that the package imports on every platform.
    """
    try:
        import fcntl
    except ImportError:
        fcntl = None
    if fcntl is not None:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False
    try:
        import msvcrt
    except ImportError:
        raise DesignError("this platform offers no file lock (neither fcntl nor msvcrt): the AdaStop state cannot be "
                          "protected from two updates at once") from None
    os.lseek(handle, 0, os.SEEK_SET)
    try:
        msvcrt.locking(handle, msvcrt.LK_NBLCK, 1)
        return True
    except OSError:
        return False


def _lock_holder(handle, lock_path):
    """Who holds the lock: from /proc/locks where there is one, else the process id the holder wrote."""
    pid = _proc_locks_holder(handle)
    if pid is None:
        with contextlib.suppress(OSError, ValueError):
            pid = int(lock_path.read_text(encoding="ascii").strip())
    if pid is None:
        return "a process this platform does not name"
    with contextlib.suppress(OSError):
        command = " ".join(Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").replace("\0", " ")
                           .split())  # one line, whatever the arguments hold
        if command:
            return f"process {pid}: {command[:200]}"
    return f"process {pid}"


def _proc_locks_holder(handle):
    """The process id that /proc/locks (Linux) gives for a FLOCK held on this file, or None."""
    if not hasattr(os, "major"):  # not a POSIX system: no /proc/locks either
        return None
    info = os.fstat(handle)
    key = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/locks").read_text().splitlines():
            fields = line.split()
            if fields[1] == "FLOCK" and fields[5] == key:  # "-> FLOCK" lines are waiters
                return int(fields[4])
    return None


_STALE_SECONDS = 60.0


def _remove_stale_temporaries(path):
    """Delete ``.<state>.*.tmp`` files older than a minute: left by a save that was killed."""
    now = time.time()
    for leftover in path.parent.glob(f".{path.name}.*.tmp"):
        with contextlib.suppress(OSError):
            if now - leftover.stat().st_mtime > _STALE_SECONDS:
                leftover.unlink()


def _migration_warning(migrated):
    version = migrated["from_version"]
    covered = ("recorded no digests, so its batches, options and seed" if not migrated["scores_verified"] else
               "had digests of the batches' scores only, so its options, seed and batch order")
    return (f"the AdaStop state was written in version {version}, which {covered} cannot be verified against hand "
            f"edits and are taken as found; the next save writes version {_STATE_VERSION}, whose digests cover them")


def _migration_note(migrated):
    count, version = migrated["batches"], migrated["from_version"]
    which = f"batches 1-{count} were" if count > 1 else ("batch 1 was" if count else "no batch was")
    covered = ("without digests: their scores, the options and the seed" if not migrated["scores_verified"] else
               "whose digests covered their scores only: the options, the seed and the batch order")
    return (f"{which} fed under a version {version} AdaStop state {covered} were taken as found when it was "
            "migrated to a version whose digests cover them")


def _check_migrated(migrated, count):
    """A version 3 or 4 state's record of its migration: None, or what :func:`_migration_note` reads."""
    if migrated is None:
        return None
    if not (isinstance(migrated, dict) and set(migrated) == {"from_version", "batches", "scores_verified"}
            and migrated["from_version"] in (1, 2) and not isinstance(migrated["from_version"], bool)
            and isinstance(migrated["batches"], int) and not isinstance(migrated["batches"], bool)
            and 0 <= migrated["batches"] <= count and isinstance(migrated["scores_verified"], bool)):
        raise DesignError("the AdaStop state is damaged: \"migrated\" must record from_version (1 or 2), batches "
                          "and scores_verified; it was not written by rlstats (or was edited)")
    return migrated


def _check_state_shape(state):
    """One clear error for a state whose parts have the wrong types."""
    def bad(what):
        return DesignError(f"the AdaStop state is damaged: {what}; it was not written by rlstats (or was edited)")

    if not isinstance(state.get("agents"), list) or not all(isinstance(a, str) for a in state["agents"]):
        raise bad("\"agents\" must be a list of names")
    if not isinstance(state.get("options"), dict):
        raise bad("\"options\" must be an object")
    for name, value in state["options"].items():
        if name == "comparisons":
            # names or numbers: before s31 the pairs were recorded as given ([0, 2.0] names the agents '0' and '2')
            if value != "all" and not (isinstance(value, list) and all(
                    isinstance(p, list) and len(p) == 2
                    and all(isinstance(x, (str, int, float)) and not isinstance(x, bool) for x in p) for p in value)):
                raise bad("\"options.comparisons\" must be \"all\" or a list of pairs of agents (names or numbers)")
        elif not (value is None or isinstance(value, (str, int, float))):
            raise bad(f"\"options.{name}\" must be a number or a name")
    seed = state.get("seed")
    if not isinstance(seed, dict) or not isinstance(seed.get("spawn_key"), list) \
            or not all(isinstance(x, int) for x in seed["spawn_key"]) \
            or not (isinstance(seed.get("entropy"), int) or (isinstance(seed.get("entropy"), list)
                                                            and all(isinstance(x, int) for x in seed["entropy"]))):
        raise bad("\"seed\" must hold an integer entropy and spawn key")
    batches = state.get("batches")
    if not isinstance(batches, list) or not all(
            isinstance(b, dict) and all(isinstance(v, list) and all(
                isinstance(x, (int, float)) and not isinstance(x, bool) for x in v) for v in b.values())
            for b in batches):
        raise bad("\"batches\" must be a list of {agent: [scores]} objects")


def _check_state_sizes(state):
    """More batches than K, or more agents than AdaStop takes: refused before anything is replayed."""
    K = state["options"].get("K")
    if isinstance(K, int) and not isinstance(K, bool) and len(state["batches"]) > K:
        raise DesignError(f"the AdaStop state holds {len(state['batches'])} batches but K = {K}: a test takes at "
                          "most K; it was edited by hand or corrupted")
    if len(state["agents"]) > MAX_AGENTS:
        raise DesignError(f"the AdaStop state lists {len(state['agents']):,} agents, more than {MAX_AGENTS}, the most "
                          "AdaStop takes; it was not written by rlstats (or was edited)")


def _check_agent_count(count):
    if count > MAX_AGENTS:
        raise OptionError(f"agents lists {count:,} agents, more than {MAX_AGENTS}, the most AdaStop takes (twice "
                          f"its {MAX_COMPARISONS} comparisons); compare fewer agents")


def _check_agents(agents):
    if isinstance(agents, str) or not hasattr(agents, "__iter__"):
        raise OptionError(f"agents must be a list of agent names, got {agents!r}")
    if hasattr(agents, "__len__"):
        _check_agent_count(len(agents))
    agents = tuple(agents)
    _check_agent_count(len(agents))
    bad = [a for a in agents if not isinstance(a, str) or not a]
    if bad:
        raise OptionError(f"agent names must be non-empty strings, got {bad[0]!r}")
    if len(set(agents)) != len(agents):
        raise OptionError(f"agent names must be unique, got {list(agents)}")
    if len(agents) < 2:
        raise OptionError(f"AdaStop compares at least two agents, got {list(agents)}")
    return agents


#: columns of a batch that say what its runs are one of: several values would pool tasks (or interims) into one
#: batch of one test, so they are refused (audit s12: hopper and walker fed as one batch of n = 10)
ONE_VALUE_COLUMNS = {"task": "task", "environment": "task", "batch": "batch", "interim": "batch"}
#: columns of a wide batch that hold a written index or run ids, not an agent (audit s12: pandas' pivot(index="seed")
#: .to_csv() wrote a column 'seed', read as a fifth agent scoring 0 to 4), and the columns above
INDEX_COLUMNS = ("", "Unnamed: 0", "index", "seed", "run") + tuple(ONE_VALUE_COLUMNS)


def check_batch_columns(batch: pd.DataFrame, agent: str = "agent", score: str = "score") -> None:
    """A DesignError when a batch frame is not one task's runs of one interim, one row per run: a task or batch
    column holding several values, rows of learning curves, or a run id (``seed`` or ``run``) repeated within an
    agent.

    The batch's rows (a wide batch's columns melted into rows) are built into the :class:`~rlstats.design.Design`
    that :func:`rlstats.adastop` builds from a frame (:func:`rlstats.design.build`), so they are refused where the
    formula's rows would be: one home for those checks. :meth:`AdaStop.update` checks every batch so;
    ``rlstats adastop update`` checks the first before it reads ``n`` from the batch's counts.
    """
    _check_agents_named(batch, agent, score)
    design, run = _batch_design(batch, agent, score)
    if design is None:
        return
    columns = [(design.formula.blocks, design.tasks, "task")] if design.has_blocks else []
    columns += [(c, design.extra[c], what) for c, what in ONE_VALUE_COLUMNS.items() if c in design.extra]
    for column, values, what in columns:
        values = list(dict.fromkeys(str(v) for v in values))
        if len(values) < 2:
            continue
        way = ("feed each task to its own AdaStop (one state file per task), or run rlstats.adastop(df, "
               f"'score ~ agent | {column}', batch=...) for one test per task" if what == "task" else
               "feed one batch at a time, in order, or run rlstats.adastop(df, 'score ~ agent', batch=...) on "
               "all of them")
        command = ("give each task its own state file and batch files (rlstats adastop update STATE BATCH, one "
                   "state per task)" if what == "task" else
                   "feed one batch file at a time, in order (rlstats adastop update STATE BATCH, once per batch)")
        pooled = (f"the batch's column {column!r} holds {len(values)} values ({listed(values, limit=5)}), but one "
                  "AdaStop tests one task and a batch is one interim's runs, so they would be pooled; ")
        raise DesignError(pooled + way, command_line=pooled + command)  # the command's way, not a Python call
    found = None if run is None else repeated_run(design, design.extra[run])
    if found is not None:  # the same refusal as the formula's replicate column (rlstats.design.repeated_run)
        i, where, rows, repeats = found
        long = agent in batch.columns and score in batch.columns
        keys = f"['{agent}', '{run}']" if long else repr(run)
        # a wide batch's repeats are counted in its cells, one per agent of a repeated row (audit s18)
        said = (f"run {run}={_plain(design.extra[run][i])} of {where} has {rows} rows in this batch "
                f"({count(repeats, 'repeated row' if long else 'repeated score')} in all), but each run gives one "
                "score; drop the repeated rows "
                "(the same file read twice?)")
        raise DesignError(said + f", e.g. df.drop_duplicates({keys})", command_line=said + " from the batch file")


def _check_agents_named(batch, agent, score):
    """A long batch's row without its agent is an error, as the formula's are (design.build): grouped by name, it
    would be an agent 'nan' (audit s18: an agent named 'None' in a CSV is read as missing). So is a batch with one of
    the long layout's two columns: read as wide, its column of agents was an agent (audit s28: "scores of agent
    'agent' are not numbers" of a batch whose scores were headed 'points')."""
    has = [name for name in (agent, score) if name in batch.columns]
    if len(has) == 1:
        other, what = (score, "scores") if has[0] == agent else (agent, "agents")
        raise DesignError(f"the batch has a column '{has[0]}' but none named '{other}': a long batch has both (each "
                          f"run's agent and score), a wide one a column per agent; name its column of {what} "
                          f"'{other}'")
    if agent in batch.columns and score in batch.columns and (missing := batch[agent].isna().to_numpy()).any():
        raise DesignError(f"column '{agent}' has {count(missing.sum(), 'missing value')} (first rows: "
                          f"{rows_named(batch.index, np.flatnonzero(missing), 5)}); remove or fill them: every run of "
                          "a batch needs its agent")


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _batch_design(batch, agent, score):
    """The Design of a batch's rows, as rlstats.adastop builds one (its refusals: learning curves, whole rows
    repeated), blocked by its task column if it has one, its batch columns and run column kept; and the run column
    (``seed`` or ``run``) or None.  (None, None) for a batch without rows.

    A wide batch (one column per agent) is melted into rows first.  Missing values are left out of the Design (the
    scores are read and checked from the batch itself, :func:`_batch_scores`)."""
    _check_unique_columns(batch)
    if batch.empty:
        return None, None
    said, in_batch = "this batch's rows are refused as rlstats.adastop's formula refuses them: ", None
    if not (agent in batch.columns and score in batch.columns):  # wide: one column per agent, index columns
        ids = [c for c in batch.columns if str(c) in INDEX_COLUMNS]
        agent, score = _unused("agent", batch.columns), _unused("score", batch.columns)
        # the refusals name rows of the melted frame, which the caller's batch (and file) does not have: said again
        # as the batch's cells
        said = ("this batch's scores, read as one row per agent and run, are refused as rlstats.adastop's formula "
                "refuses them: ")
        in_batch = functools.partial(_in_wide_batch, batch, [c for c in batch.columns if c not in ids])
        batch = batch.melt(id_vars=ids, var_name=agent, value_name=score)
        batch[score] = pd.to_numeric(batch[score], errors="coerce")  # what is not a number is refused later
    elif batch[score].dtype.kind not in "biuf":  # text: refused by name where the scores are read (_as_scores)
        return None, None
    names = [c for c in batch.columns if c not in (agent, score)]
    task = next((c for c in ("task", "environment") if c in names), None)
    run = next((c for c in ("seed", "run") if c in names), None)
    kept = [c for c in (*ONE_VALUE_COLUMNS, run) if c in names and c != task]
    if task is None:  # a 'game' or 'env' column whose values each hold several agents is a task column too
        task = next((c for c, _ in block_like_columns(batch, agent, {agent, score, *kept, *INDEX_COLUMNS})), None)
    quoted = lambda c: str(c) if str(c).isidentifier() else f"`{c}`"  # noqa: E731
    formula = f"{quoted(score)} ~ {quoted(agent)}" + (f" | {quoted(task)}" if task else "")
    try:
        # pool_tasks: a wide batch's index column (0, 1, ... a run) reads as blocks to build(); a column that looks
        # like tasks is the task column above
        design = build(batch, formula, na_action="drop", min_agents=1, pool_tasks=True, extra_columns=kept,
                       curve_summaries=False)  # a batch is final scores: curves are no way on here
    except DesignError as error:  # its command_line wording goes with it (the rlstats command shows that)
        reword = in_batch or (lambda text: text)
        raise DesignError(said + reword(str(error)),
                          command_line=error.command_line and said + reword(error.command_line)) from None
    return design, run


def _in_wide_batch(batch, columns, message):
    """``message`` about the rows of a wide ``batch`` melted (its ``columns`` stacked, a RangeIndex), its "index
    labels 2, 6" said as the batch's cells: "columns 'A' and 'B' of index label 2"."""
    n_rows = len(batch)

    def cells(match):
        at = {}  # row -> the columns named there
        for label in map(int, match.group(1).split(", ")):
            at.setdefault(label % n_rows, []).append(repr(str(columns[label // n_rows])))
        return "; ".join(f"{plural('column', len(names))} {join_and(names)} of {rows_named(batch.index, [row])}"
                         for row, names in at.items()) + (match.group(2) or "")

    return INDEX_LABELS.sub(cells, message)


def _unused(name, columns):
    """``name``, or ``name_`` ... where the batch has a column so named."""
    while name in columns:
        name += "_"
    return name


def _check_unique_columns(batch):
    repeated = batch.columns[batch.columns.duplicated()]
    if len(repeated):  # each row's score would count as several runs
        name = repeated[0]
        raise DesignError(f"column {str(name)!r} appears {list(batch.columns).count(name)} times in the batch; "
                          "give columns unique names")


def _batch_scores(batch, agent, score, agents):
    """{agent: float array} from a long or wide DataFrame (pandas, polars or pyarrow) or a mapping, and the sentence
    saying where True/False scores were read as 1/0 (None when there were none)."""
    batch = as_pandas(batch)
    if isinstance(batch, pd.DataFrame):
        _check_unique_columns(batch)
        if agent in batch.columns and score in batch.columns:
            _check_agents_named(batch, agent, score)
            out = {}
            groups = list(batch.groupby(batch[agent].astype(str), sort=False)[score])
            # a text column is refused naming an agent with a value that is not a number, not the first agent (whose
            # scores may all be numbers: review s17)
            groups.sort(key=lambda group: not len(_not_numbers(group[1].to_numpy())))
            for name, values in groups:
                out[name] = _as_scores(values.to_numpy(), name)
            booleans = booleans_read(f"column {str(score)!r}") if batch[score].dtype.kind == "b" else None
        else:
            columns = [c for c in batch.columns if str(c) not in INDEX_COLUMNS]
            unknown = [str(c) for c in columns if str(c) not in agents]
            if len(unknown) == len(columns):  # no column is an agent: neither layout
                raise DesignError(
                    f"cannot read the batch: expected long format with columns '{agent}' and '{score}', or one "
                    f"column per agent ({name_list(agents)}); got columns {[str(c) for c in batch.columns]}")
            if unknown:  # a wide batch with a column named for no agent: named, as the long format names it
                raise DesignError(_unknown_agents(unknown, agents, given=[str(c) for c in columns]) + " (a wide batch has one column per agent, "
                                  "besides an index column: unnamed, index, seed or run)")
            out = {str(c): _as_scores(batch[c].to_numpy(), str(c)) for c in columns}
            booleans = _booleans("column", [str(c) for c in columns if batch[c].dtype.kind == "b"])
        check_batch_columns(batch, agent, score)  # after the scores are found to be numbers
    elif hasattr(batch, "items"):
        given = {str(k): np.atleast_1d(unmasked(v)) for k, v in batch.items()}  # masked entries: missing
        out = {k: _as_scores(v, k) for k, v in given.items()}
        booleans = _booleans("the scores of agent", [k for k, v in given.items() if v.dtype.kind == "b"], several=True)
    else:
        raise DesignError(f"a batch must be a DataFrame or a mapping {{agent: scores}}, got {type(batch).__name__}")
    unknown = [a for a in out if a not in agents]
    if unknown:
        raise DesignError(_unknown_agents(unknown, agents, given=out))
    return out, booleans


def _unknown_agents(unknown, agents, given=()):
    """"unknown agent ppo in the batch (did you mean 'PPO'?); this test compares PPO, DQN": the agents a batch
    names that the test does not, each with the test's agent it most likely misspells (audit s23): first among those
    the batch lacks (``given``: the names it holds), then among all (audit s26: 'agent_two' beside agent_1's runs was
    taken for agent_1, not the agent_2 it lacked)."""
    quoted = functools.partial(name_list, among=[*agents, *unknown])
    lacking = [a for a in agents if a not in given]
    close = {name: close_names(name, lacking, n=1) or close_names(name, agents, n=1) for name in unknown}
    guesses = [(name, found[0]) for name, found in close.items() if found]
    if len(unknown) == 1 and guesses:
        hint = f" (did you mean {guesses[0][1]!r}?)"
    elif guesses:
        hint = " (did you mean " + join_and([f"{guess!r} for {name!r}" for name, guess in guesses[:5]]) + "?)"
    else:
        hint = ""
    return (f"unknown {plural('agent', len(unknown))} {quoted(unknown)} in the batch{hint}; this test compares "
            f"{quoted(agents)}")


def _booleans(what, names, several=False):
    """The sentence saying the ``names`` (columns, agents) held True/False scores, read as 1/0; None for no names."""
    if not names:
        return None
    return booleans_read(f"{plural(what, len(names))} {join_and(repr(n) for n in names)}",
                         plural=several or len(names) > 1)


def _not_numbers(values):
    """The values of a text or object array that pd.to_numeric would not read as numbers (missing ones aside)."""
    values = pd.Series(np.asarray(values).ravel())
    if values.dtype.kind in "biuf":
        return []
    return values[pd.to_numeric(values, errors="coerce").isna() & values.notna()].tolist()


def _as_scores(values, name):
    given = np.asarray(values)
    # text or objects are not read as numbers here, as rlstats.adastop's formula does not read them
    if given.dtype.kind not in "biuf":
        shown = (_not_numbers(given) or given.ravel().tolist())[:5]  # those to correct first, where there are any
        found = f"scores of agent {name!r} are not numbers: {shown} (dtype {given.dtype}); "
        raise DesignError(found + "convert them first, e.g. df['score'] = pd.to_numeric(df['score'])",
                          command_line=found + "write them as numbers in the batch file")
    return given.astype(float).ravel()

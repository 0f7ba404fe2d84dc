"""The AdaStop state's digests: a chain that binds every batch to the options, the seed and the batch before it.

A state of version 3 or 4 records, besides its batches:

``digests``
    one digest per batch, of (its number, the digest of the batch before, the settings, its scores);
``integrity``
    ``algorithm`` (``"sha256"``, or ``"hmac-sha256"`` when a key was given), ``key_id`` (keyed states only),
    ``fields`` (a short tag per setting: agents, each option, seed, migration and, from version 4, the order the
    random paths draw the agents in), ``scores`` (a short tag per batch,
    of its number and scores) and ``end`` (a digest of the number of batches and the last digest, so that a batch
    dropped from the end is seen).

The chain and ``end`` decide; the short tags only say what differs (which setting, which batch was fed where).
Everything hashed is canonical JSON: keys sorted, no spaces, floats as Python's shortest exact repr, scores as
floats, so a value written ``1`` or ``1.0``, ``0.05`` or ``5e-2`` hashes alike.  A plain SHA-256 catches hand
edits; only a key (HMAC-SHA256) stops someone who recomputes the digests.  Nothing here protects against
replacing the whole file by an older copy of itself.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
from pathlib import Path
from typing import Any, Sequence

from ...errors import DesignError, OptionError
from ...format import count as plural_count

#: what every message hashed starts with: the format and its version
_DOMAIN = b"rlstats.AdaStop/3"  # kept by version 4, whose settings add "draws"
PLAIN, KEYED = "sha256", "hmac-sha256"
_TAG = 16  # hex digits kept of a diagnostic tag (64 bits); chain digests keep all 64
#: a key shorter than this is refused: an HMAC is only as strong as its key is hard to guess
MIN_KEY_BYTES = 16
#: a longer "key" file is almost surely another file given by mistake
MAX_KEY_BYTES = 4096


def canonical(value: Any) -> bytes:
    """Canonical JSON bytes: sorted keys, no spaces, ASCII, exact float repr, no NaN."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False).encode("ascii")


def batch_bytes(batch: dict[str, Any]) -> bytes:
    """A batch ``{agent: scores}`` as canonical bytes, every score a float."""
    try:
        return canonical({str(a): [float(x) for x in values] for a, values in batch.items()})
    except (OverflowError, ValueError, TypeError) as exc:
        raise DesignError(f"the AdaStop state is damaged: a batch holds a score that is not a finite number "
                          f"({exc}); it was not written by rlstats (or was edited)") from None


class _Signer:
    """Digests with or without a key; messages are the domain, a purpose and canonical parts, one per line."""

    def __init__(self, key: bytes | None) -> None:
        self.key = key

    def digest(self, purpose: str, *parts: bytes) -> str:
        message = b"\n".join([_DOMAIN + b" " + purpose.encode("ascii"), *parts])
        if self.key is None:
            return hashlib.sha256(message).hexdigest()
        return hmac.new(self.key, message, hashlib.sha256).hexdigest()

    def tag(self, purpose: str, *parts: bytes) -> str:
        return self.digest(purpose, *parts)[:_TAG]


def key_id(key: bytes) -> str:
    """A short public name of a key: which key wrote a state, without revealing it."""
    return _Signer(key).tag("key id")


def _fields(settings: dict[str, Any]) -> list[tuple[str, Any]]:
    """The settings one by one, in the order a message names the first that differs."""
    out = [("agents", settings["agents"])]
    out += [(f"options.{name}", value) for name, value in settings["options"].items()]
    out += [("seed", settings["seed"]), ("migrated", settings["migrated"])]
    return out + ([("draws", settings["draws"])] if "draws" in settings else [])


_LABELS = {"agents": "the agents (their names or their order)", "seed": "the seed",
           "migrated": "the record of its migration from an older state",
           "draws": "the order its random paths draw the agents in"}


def _label(field):
    return _LABELS.get(field, f"option {field.removeprefix('options.')}")


def _chain(signer, settings_bytes, number, previous, body):
    return signer.digest("batch", canonical({"batch": number, "previous": previous}), settings_bytes, body)


def _end(signer, settings_bytes, count, last):
    return signer.digest("end", canonical({"batches": count, "last": last}), settings_bytes)


def _scores_tag(signer, number, body):
    return signer.tag("scores", canonical({"batch": number}), body)


def record(settings: dict[str, Any], batches: Sequence[dict[str, Any]],
           key: bytes | None) -> tuple[list[str], dict[str, Any]]:
    """``(digests, integrity)`` of a state's settings and batches, as :meth:`AdaStop.to_state` writes them."""
    signer = _Signer(key)
    settings_bytes = canonical(settings)
    digests, tags, previous = [], [], None
    for number, batch in enumerate(batches, start=1):
        body = batch_bytes(batch)
        previous = _chain(signer, settings_bytes, number, previous, body)
        digests.append(previous)
        tags.append(_scores_tag(signer, number, body))
    integrity: dict[str, Any] = {"algorithm": PLAIN if key is None else KEYED}
    if key is not None:
        integrity["key_id"] = key_id(key)
    integrity["fields"] = {name: signer.tag("field", canonical({name: value})) for name, value in _fields(settings)}
    integrity["scores"] = tags
    integrity["end"] = _end(signer, settings_bytes, len(batches), previous)
    return digests, integrity


# ---- verification ---------------------------------------------------------------------------------------------

_RESTORE = "restore the state from a copy, or start a new test (the decisions depend on every batch as it was fed)"


def _damaged(what):
    return DesignError(f"the AdaStop state is damaged: {what}; it was not written by rlstats (or was edited)")


def check_shape(state: dict[str, Any]) -> None:
    """One clear error for a version 3 or 4 state whose digests or integrity record are missing or malformed."""
    digests, integrity = state.get("digests"), state.get("integrity")
    version = state["version"]
    count = len(state["batches"])
    if digests is None:
        raise DesignError(f"the AdaStop state has no \"digests\": a version {version} state always records one per "
                          f"batch, so it was edited by hand or corrupted; {_RESTORE}")
    if not isinstance(digests, list) or not all(isinstance(d, str) for d in digests):
        raise _damaged("\"digests\" must be a list of hexadecimal digests")
    if len(digests) != count:
        raise _not_one_each("\"digests\"", count, len(digests), "digest")
    if not isinstance(integrity, dict):
        raise DesignError(f"the AdaStop state has no \"integrity\" record: a version {version} state always has one, "
                          f"so it was edited by hand or corrupted; {_RESTORE}")
    if integrity.get("algorithm") not in (PLAIN, KEYED):
        raise _damaged(f"\"integrity.algorithm\" must be {PLAIN!r} or {KEYED!r}, got {integrity.get('algorithm')!r}")
    if integrity["algorithm"] == KEYED and not isinstance(integrity.get("key_id"), str):
        raise _damaged("a keyed state's \"integrity.key_id\" must name its key")
    fields, tags = integrity.get("fields"), integrity.get("scores")
    if not isinstance(fields, dict) or not all(isinstance(v, str) for v in fields.values()):
        raise _damaged("\"integrity.fields\" must map each setting to its tag")
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise _damaged("\"integrity.scores\" must be a list of tags")
    if len(tags) != count:
        raise _not_one_each("\"integrity.scores\"", count, len(tags), "tag")
    if not isinstance(integrity.get("end"), str):
        raise _damaged("\"integrity.end\" must be a digest")


def _not_one_each(what, count, recorded, noun):
    """A list of the integrity record longer or shorter than the batches: the first batch without its pair."""
    if recorded < count:
        why = f"batch {recorded + 1} has none, so it was added by hand (or its {noun} dropped)"
    else:
        why = f"batch {count + 1} is missing, so it was dropped by hand (or a {noun} added)"
    return DesignError(f"the AdaStop state is damaged: {what} does not have one entry per batch "
                       f"({plural_count(count, 'batch')}, {plural_count(recorded, noun)}): {why}; {_RESTORE}")


def check_key(state: dict[str, Any], key: bytes | None) -> None:
    """A keyed state needs its key; a key given to a plain (or older) state is refused, never added."""
    chained = state.get("version") in (3, 4)  # the versions with an integrity record
    integrity = state.get("integrity") if chained else None
    recorded = integrity.get("key_id") if isinstance(integrity, dict) and integrity.get("algorithm") == KEYED \
        else None
    count = len(state["batches"])
    which = f"batches 1-{count}" if count > 1 else ("batch 1" if count else "the settings (no batch fed yet)")
    if recorded is not None and key is None:
        found = (f"the digests of {which} of the AdaStop state were made with a key (HMAC-SHA256, key id "
                 f"{recorded}), and none was given: give that key to read or update the state ")
        raise DesignError(found + "(--key-file PATH, or key= in Python)", command_line=found + "(--key-file PATH)")
    if recorded is not None and key is not None and key_id(key) != recorded:
        raise DesignError(f"the digests of {which} of the AdaStop state were made with another key than the one "
                          f"given (key id {recorded}; the key given has {key_id(key)}): give the key "
                          "file the state was created with")
    if recorded is None and key is not None:
        what = ("the digests of the AdaStop state are plain SHA-256: it was created without a key, or rewritten "
                "without one" if chained
                else f"a version {state.get('version')} AdaStop state has no keyed digests")
        found = (f"a key was given, but {what}; a key applies only when a state is created, so that nobody can "
                 "bless an edited state by adding one: ")
        raise DesignError(found + "drop the key (--key-file, key=), or start a new test with it",
                          command_line=found + "leave out --key-file, or start a new test with it")


def verify(settings: dict[str, Any], state: dict[str, Any], key: bytes | None) -> None:
    """Refuse, naming the batch and what differs, a state whose settings or batches are not those recorded.

    ``settings`` are those of the AdaStop rebuilt from the state's options (so ``0.05`` and ``5e-2`` agree),
    ``state`` has passed :func:`check_shape` and :func:`check_key`.
    """
    problem = _first_problem(_Signer(key), settings, state)
    if problem is None:
        return
    if key is not None and _first_problem(_Signer(None), settings, state) is None:
        problem = _mismatch(1, len(state["batches"]), "its digests are plain SHA-256, recomputed without the key "
                                                      "it was written with, by someone who did not have the key")
    raise DesignError(f"{problem}; {_RESTORE}")


def _mismatch(number, count, why):
    where = f"batch {number}" if count else "the settings (no batch fed yet)"
    return f"{where} of the AdaStop state does not match its recorded digest: {why}"


def _first_problem(signer, settings, state):
    """``(where, why)`` of the first thing that does not match, or None."""
    batches, digests, integrity = state["batches"], state["digests"], state["integrity"]
    count = len(batches)
    recorded = integrity["fields"]
    named = _fields(settings)
    differ = [name for name, value in named if recorded.get(name) != signer.tag("field", canonical({name: value}))]
    if len(differ) == len(named):  # an edit changes a setting or two, not every one
        return _mismatch(1, count, "none of its settings matches its tags: its digests were made with another key "
                                   "(or rewritten)")
    if differ:
        return _mismatch(1, count, f"{_label(differ[0])} changed since the batches were fed (edited by hand?)")
    extra = sorted(set(recorded) - {name for name, _ in named})
    if extra:
        return _mismatch(1, count, f"it records a setting {extra[0]!r} this state does not have")
    settings_bytes = canonical(settings)
    previous = None
    for number, batch in enumerate(batches, start=1):
        body = batch_bytes(batch)
        chained = _chain(signer, settings_bytes, number, previous, body)
        if chained != digests[number - 1]:
            return _mismatch(number, count, _batch_problem(signer, number, batches, integrity["scores"], body,
                                                           settings["options"]["K"]))
        previous = chained
    if _end(signer, settings_bytes, count, previous) != integrity["end"]:
        return (f"batch {count + 1} of the AdaStop state is missing: the state ends after "
                f"{plural_count(count, 'batch')}, but "
                "its digests were recorded with more (a batch was dropped from the end, or \"integrity.end\" "
                "was edited)")
    return None


def _batch_problem(signer, number, batches, tags, body, K):
    """Why batch ``number`` breaks the chain when every batch before it matched."""
    if _scores_tag(signer, number, body) == tags[number - 1]:
        return "its scores are those fed as this batch, but its recorded digest was edited"
    fed_as = next((j for j in range(1, max(K, len(batches)) + 1) if _scores_tag(signer, j, body) == tags[number - 1]),
                  None)
    if fed_as is None:
        return "its scores are not those that were fed (edited by hand?)"
    if fed_as < number and batch_bytes(batches[fed_as - 1]) == body:
        return f"it repeats batch {fed_as} (the same batch appended twice with its digest)"
    return f"it was fed as batch {fed_as}: batches were dropped or reordered"


# ---- keys --------------------------------------------------------------------------------------------------------

def checked_key(key: object) -> bytes | None:
    """The key of ``key=``: None, bytes (the key itself) or a path-like to a key file (read by :func:`read_key`)."""
    if key is None:
        return None
    if isinstance(key, (bytes, bytearray)):
        return _checked_bytes(bytes(key), "key")
    if isinstance(key, os.PathLike):
        return read_key(key, option="key")
    # a str is refused whole: it may be a key typed in code (then it would end up in histories and tracebacks) or
    # a file name, and guessing which is how a key leaks; its value is never quoted
    raise OptionError(f"key must be bytes (the key itself) or a pathlib.Path to a key file, got "
                      f"{type(key).__name__}{' (wrap a file name in pathlib.Path)' if isinstance(key, str) else ''}")


def _checked_bytes(key, option):
    if not key:
        raise OptionError(f"{option} is empty: an empty key would protect nothing; write at least {MIN_KEY_BYTES} "
                          "random bytes, e.g. head -c 32 /dev/urandom > adastop.key; chmod 600 adastop.key")
    if len(key) < MIN_KEY_BYTES:
        raise OptionError(f"{option} is {len(key)} bytes, fewer than the {MIN_KEY_BYTES} a key needs to resist "
                          "guessing; use random bytes, e.g. head -c 32 /dev/urandom > adastop.key")
    return key


def read_key(path: str | os.PathLike[str], *, option: str = "--key-file") -> bytes:
    """The bytes of a key file, all of them (a final newline included), after checking who may read it.

    Refused: a missing, unreadable or empty file, one shorter than 16 bytes or longer than 4096, anything but a
    regular file or a pipe (``--key-file <(pass show adastop)``), and, where the platform has POSIX permissions,
    a file that users other than its owner and group may read or write: anyone on the machine could then
    recompute the digests (or change the key), as ssh refuses such private keys.
    """
    path = Path(path)
    where = f"{option} {path}" if option.startswith("-") else f"{option} file {path}"
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise OptionError(f"{where}: no such file; give the file that holds the state's key (a new state's key is "
                          "made with: head -c 32 /dev/urandom > KEY; chmod 600 KEY)") from None
    except OSError as exc:
        raise OptionError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    if stat.S_ISDIR(info.st_mode):
        raise OptionError(f"{where} is a folder; give the file that holds the key")
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISFIFO(info.st_mode)):
        raise OptionError(f"{where} is not a regular file or a pipe; give the file that holds the key")
    if os.name != "nt" and info.st_mode & 0o007:  # Windows reports no such bits
        raise OptionError(f"{where} may be read or written by every user (mode {stat.S_IMODE(info.st_mode):04o}): "
                          f"anyone could then recompute the digests; restrict it (chmod 600 {path})")
    try:
        with open(path, "rb") as fh:
            key = fh.read(MAX_KEY_BYTES + 1)
    except OSError as exc:
        raise OptionError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    if len(key) > MAX_KEY_BYTES:
        raise OptionError(f"{where} holds more than {MAX_KEY_BYTES} bytes: it is not a key file (was another file "
                          "given?)")
    return _checked_bytes(key, where)


# ---- states of versions 1 and 2 ----------------------------------------------------------------------------------

def legacy_digest(batch: dict[str, Any]) -> str:
    """A version 1 or 2 digest: SHA-256 of the batch's JSON alone (agents sorted, scores as written)."""
    return hashlib.sha256(json.dumps(batch, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def check_legacy(batches: Sequence[dict[str, Any]], digests: object) -> None:
    """Each batch of a version 1 or 2 state as it was fed: its digest must be the one recorded when it was saved."""
    if not isinstance(digests, list) or len(digests) != len(batches):
        raise DesignError("the AdaStop state is damaged: \"digests\" does not have one entry per batch")
    for number, (batch, digest) in enumerate(zip(batches, digests), start=1):
        if legacy_digest(batch) != digest:
            raise DesignError(f"batch {number} of the AdaStop state does not match its recorded digest: the state "
                              f"was edited by hand or corrupted; {_RESTORE}")

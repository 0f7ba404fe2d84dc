"""Stable-Baselines3 EvalCallback's ``evaluations.npz``: one row per evaluation.

After every evaluation, ``stable_baselines3.common.callbacks.EvalCallback`` saves
``np.savez(<log_path>/evaluations, timesteps=..., results=..., ep_lengths=...)``, plus ``successes``
when the environment reports ``is_success``: ``timesteps`` (evaluations,) is the step of each
evaluation, ``results`` and ``ep_lengths`` (evaluations, episodes) the return and length of each
evaluation episode, ``successes`` the same shape of booleans. An evaluation's row holds the means
over its episodes under the tags SB3 logs them as in TensorBoard (``eval/mean_reward``,
``eval/mean_ep_length``, ``eval/success_rate``) and the number of episodes (``eval/episodes``).

SB3 before 1.1 wrote ``results`` of shape (evaluations, episodes, 1) when the evaluation environment
had no ``Monitor`` (before 0.11, always): ``evaluate_policy`` added each step's reward, an array of
shape (1,) from the ``DummyVecEnv`` EvalCallback wraps the environment in, to an episode's return
``0.0`` (stable_baselines3/common/evaluation.py at v1.0), until "Added support for vector envs in
evaluation" (DLR-RM/stable-baselines3#447, commit a038044d, in 1.1.0) kept one number per episode.
A trailing axis of length 1 of a per-episode array is read away (no value changes); any other shape
is an error naming it. An episode return that is NaN or infinite (a diverged run) makes its evaluation's
mean NaN or infinite: a row like any other, which ``read_logs``' notes count, as they count such values in
a text log (an evaluation with both infinities has no mean: NaN).

The archive is a zip of ``.npy`` files. It is opened without unpickling (``allow_pickle=False``:
unpickling can run code, so an array of Python objects is refused), and the sizes its directory
declares are bounded before any array is read (zipfile never inflates a member beyond its declared
size, so a small compressed file cannot expand past the bound).
"""

from __future__ import annotations

import zipfile

import numpy as np

from ._pieces import FileProblem, from_columns

#: The most bytes the arrays of one archive may hold once read: 256 MiB, 32M values (a million evaluations of
#: 10 episodes is 80 MB a member).
MAX_NPZ_BYTES = 1 << 28
SCORE, LENGTH, EPISODES, SUCCESS = "eval/mean_reward", "eval/mean_ep_length", "eval/episodes", "eval/success_rate"
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
#: The arrays read (EvalCallback's, and ``successes`` when it writes them); other members are never opened.
ARRAYS = ("timesteps", "results", "ep_lengths", "successes")
#: The arrays of one value per evaluation episode: (evaluations, episodes), or (evaluations, episodes, 1).
PER_EPISODE = ARRAYS[1:]


def default_tags(available):
    """The mean return and the episode count, stated."""
    return ({SCORE: SCORE, EPISODES: EPISODES},
            f"tags {SCORE!r} (each evaluation's mean return over its episodes) and {EPISODES!r} (their number); "
            f"pass tags= for {LENGTH!r}" + (f" or {SUCCESS!r}" if SUCCESS in available else ""))


#: What each tag of an evaluation's row is, for the note.
_MEANINGS = {SCORE: "the mean return over that evaluation's episodes (as EvalCallback logs 'eval/mean_reward')",
             LENGTH: "the mean length of that evaluation's episodes", SUCCESS: "the share of its episodes that succeeded"}


def note(mapping):
    """The note on the columns read (``mapping``: tag -> column), naming only those the frame holds (audit s20: it
    spoke of 'eval/episodes' in a frame of the return alone)."""
    parts = []
    for tag, column in mapping.items():
        if tag in _MEANINGS:
            subject = "the score" if column == SCORE else repr(column)
            parts.append(f"{subject}{'' if parts else ' of an evaluations.npz row'} is {_MEANINGS[tag]}")
    if EPISODES in mapping:
        parts.append(f"{mapping[EPISODES]!r} counts them" if parts else
                     f"{mapping[EPISODES]!r} of an evaluations.npz row counts that evaluation's episodes")
    return "; ".join(parts) or None


def _headers(handle):
    """{array name: (shape, dtype)} from each member's .npy header of the archive ``handle`` (a seekable binary
    stream, left where it was), read before any array.

    Checks the file is an .npz archive, its members declare at most MAX_NPZ_BYTES in all, and each
    header's shape fits in its member (numpy allocates the shape a header declares before reading).
    """
    try:
        start = handle.tell()
        head = handle.read(4)
        handle.seek(start)
        if not head:
            raise FileProblem("empty", "the file has no bytes")
        if head not in _ZIP_MAGIC:
            raise FileProblem("unreadable", "not an .npz archive (a zip of .npy arrays, as EvalCallback writes with "
                                            f"np.savez); it starts with {head!r}")
        with zipfile.ZipFile(handle) as archive:  # closing the archive leaves the stream open
            members = archive.infolist()
            total = sum(info.file_size for info in members)
            if total > MAX_NPZ_BYTES:
                raise FileProblem("unreadable", f"its arrays hold {total:,} bytes once read, more than the "
                                                f"{MAX_NPZ_BYTES:,} an evaluations.npz may have; EvalCallback writes "
                                                "a few numbers per evaluation, so this file was not written by it")
            headers = {}
            for info in members:
                name = info.filename.removesuffix(".npy")
                if name not in ARRAYS:
                    headers[name] = None  # never read
                    continue
                with archive.open(info) as member:
                    try:
                        version = np.lib.format.read_magic(member)
                        read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0) else
                                       np.lib.format.read_array_header_2_0)
                        shape, _, dtype = read_header(member)
                    except ValueError as exc:
                        raise FileProblem("corrupt", f"member {info.filename!r} is not a .npy array ({exc})") from exc
                if dtype.hasobject:
                    raise FileProblem("unreadable", f"array {name!r} holds Python objects ({dtype}); rlstats reads "
                                                    "numbers only and never unpickles, which can run code")
                if int(np.prod(shape, dtype=object)) * dtype.itemsize > info.file_size:
                    raise FileProblem("corrupt", f"array {name!r} declares shape {shape} of {dtype}, more than its "
                                                 f"{info.file_size:,} bytes hold")
                headers[name] = shape, dtype
    except OSError as exc:
        raise FileProblem("unreadable", exc.strerror or str(exc)) from exc
    except (RuntimeError, NotImplementedError) as exc:  # an encrypted member, a compression zipfile lacks
        raise FileProblem("unreadable", f"a member cannot be opened ({exc})") from exc
    except zipfile.BadZipFile as exc:
        raise FileProblem("corrupt", f"not a readable zip archive ({exc}); the file may have been cut off "
                                     "while being written") from exc
    handle.seek(start)
    return headers


def _integral(name, array, ndim):
    """``array`` as int64 when it has ``ndim`` dimensions of whole, non-negative numbers; else FileProblem."""
    if array.ndim != ndim or array.dtype.kind not in "iuf":
        wanted = "(evaluations,)" if ndim == 1 else "(evaluations, episodes)"
        raise FileProblem("corrupt", f"'{name}' is an array of {array.dtype} with shape {array.shape}; EvalCallback "
                                     f"writes whole numbers of shape {wanted}")
    if array.dtype.kind == "f" and not (np.isfinite(array).all() and (array == np.round(array)).all()):
        raise FileProblem("corrupt", f"'{name}' holds values that are not whole numbers")
    if (array < 0).any():
        raise FileProblem("corrupt", f"'{name}' holds a negative value ({array.min()}); steps and episode lengths "
                                     "count up from 0")
    flat = array.ravel()
    beyond = np.flatnonzero(flat.astype(float) >= 2.0**63)  # int64 would wrap it (audit s23: 1e19 read as -2**63)
    if beyond.size:
        value = flat[beyond[0]]
        shown = f"{value:g}" if array.dtype.kind == "f" else str(value)
        raise FileProblem("corrupt", f"'{name}' holds {shown}, more steps than any run takes (2**63 or more)")
    return array.astype(np.int64)


def _arrays(path):
    """{array name: array} of the arrays of ARRAYS the archive holds, from one opening of the file (a file of a URL is
    read once: ``._remote`` opens it as its bytes); a FileProblem when it is too large, not an archive of them, or
    cannot be read."""
    try:
        size = path.stat().st_size
        if size > MAX_NPZ_BYTES:
            raise FileProblem("unreadable", f"it has {size:,} bytes, more than the {MAX_NPZ_BYTES:,} an "
                                            "evaluations.npz may have")
        handle = path.open("rb")  # a Path, or a file of a URL (._remote)
    except OSError as exc:
        raise FileProblem("unreadable", exc.strerror or str(exc)) from exc
    with handle:
        headers = _headers(handle)
        missing = [name for name in ARRAYS[:3] if name not in headers]
        if missing:
            raise FileProblem("unreadable", f"no array {', '.join(map(repr, missing))} (EvalCallback writes "
                                            f"timesteps, results and ep_lengths); it holds "
                                            f"{', '.join(map(repr, headers)) or 'none'}")
        try:
            with np.load(handle, allow_pickle=False) as archive:
                return {name: archive[name] for name in ARRAYS if name in headers}
        except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:  # data shorter than its header, a bad CRC
            raise FileProblem("corrupt", f"an array cannot be read ({type(exc).__name__}: {exc})") from exc


def read(path):
    """An ``evaluations.npz`` as a list of one Piece (format in the module docstring)."""
    arrays = _arrays(path)
    for name in PER_EPISODE:
        if name in arrays and arrays[name].ndim == 3 and arrays[name].shape[2] == 1:
            arrays[name] = arrays[name][:, :, 0]  # (evaluations, episodes, 1): SB3 < 1.1 (module docstring)
    steps = _integral("timesteps", arrays["timesteps"], 1)
    results = arrays["results"]
    if results.ndim != 2 or results.shape[0] != steps.size or results.dtype.kind not in "iuf":
        raise FileProblem("corrupt", f"'results' is an array of {results.dtype} with shape {results.shape}; "
                                     f"EvalCallback writes numbers of shape (evaluations, episodes) = "
                                     f"({steps.size}, episodes) (SB3 before 1.1: (evaluations, episodes, 1)), one "
                                     "row per entry of 'timesteps'")
    if results.size == 0:
        raise FileProblem("empty", f"'results' has shape {results.shape}: no evaluation episode")
    lengths = _integral("ep_lengths", arrays["ep_lengths"], 2)
    if lengths.shape != results.shape:
        raise FileProblem("corrupt", f"'ep_lengths' has shape {lengths.shape} and 'results' {results.shape}; "
                                     "EvalCallback writes one length per episode")
    with np.errstate(invalid="ignore"):  # inf - inf: an evaluation of both signs' infinite returns has no mean, NaN
        score = results.astype(float).mean(axis=1)  # float32 summed in float64
    columns = {SCORE: score, LENGTH: lengths.mean(axis=1), EPISODES: np.full(steps.size, float(results.shape[1]))}
    if "successes" in arrays:
        successes = arrays["successes"]
        if successes.shape != results.shape or successes.dtype.kind not in "biuf":
            raise FileProblem("corrupt", f"'successes' is an array of {successes.dtype} with shape "
                                         f"{successes.shape}; EvalCallback writes booleans of the shape of 'results' "
                                         f"{results.shape}")
        columns[SUCCESS] = successes.astype(float).mean(axis=1)
    # a NaN return is a diverged evaluation, kept as a row the notes count as the text readers keep theirs (audit
    # s15: the file was refused as corrupt); an infinite one is an infinite mean
    return [from_columns(steps, columns, written_nan={SCORE: np.isnan(score)})]

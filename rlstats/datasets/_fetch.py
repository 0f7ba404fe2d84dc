"""Pinned files, read from an offline mirror (``RLSTATS_DATA_MIRROR``) or downloaded once into a cache and checked
against their SHA-256 on every read."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
from pathlib import Path

from ..errors import DataUnavailableError
from ._pins import SHA256

#: Where pinned files are downloaded from: ``<URL_ROOT>/<owner>/<repo>/<commit>/<path>``.
URL_ROOT = "https://raw.githubusercontent.com"
#: Environment variable naming an offline mirror with the ``owner/repo/commit/path`` layout.
MIRROR_ENV = "RLSTATS_DATA_MIRROR"
#: Environment variable naming the download cache (default: ``pooch.os_cache("rlstats")``).
CACHE_ENV = "RLSTATS_DATA_DIR"
# Seconds to wait for a connection (and between bytes of a reply) before saying the data are unavailable.
CONNECT_TIMEOUT = (5, 30)


def _url(key):
    return f"{URL_ROOT}/{key}"


def _what_to_do():
    return (
        f"Check the network connection, or set {MIRROR_ENV} to a directory holding copies "
        "of the pinned files under <owner>/<repo>/<commit>/<path> (the layout of the URL "
        "after the host)."
    )


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _from_mirror(key, mirror):
    """Path of ``key`` under the mirror, after checking that it is the pinned file."""
    root = Path(mirror).expanduser()
    if not root.is_dir():
        raise DataUnavailableError(
            f"{MIRROR_ENV}={mirror!r} is not a directory. Point it at a mirror with the "
            "<owner>/<repo>/<commit>/<path> layout, or unset it to download from the pinned URLs."
        )
    path = root / key
    if not path.is_file():
        raise DataUnavailableError(
            f"file {key} is missing from the mirror {root} ({MIRROR_ENV}); expected it at "
            f"{path}. Copy it there from {_url(key)}, or unset {MIRROR_ENV} to download it."
        )
    actual = _sha256(path)
    if actual != SHA256[key]:
        raise DataUnavailableError(
            f"file {key} in the mirror {root} does not match its pinned SHA-256: expected "
            f"{SHA256[key]}, got {actual}. Replace {path} with the file served at {_url(key)}."
        )
    return path


@contextlib.contextmanager
def _quiet_pooch():
    """Keep pooch's progress messages off the user's terminal while fetching."""
    import pooch

    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield pooch
    finally:
        logger.setLevel(level)


def _cache_root(cache_dir):
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    import pooch

    return Path(pooch.os_cache("rlstats"))


def _short_reason(exc):
    """The innermost cause of a download error, without urllib3's repeated host prefix."""
    while True:
        inner = getattr(exc, "reason", None)
        if not isinstance(inner, BaseException) and exc.args and isinstance(exc.args[0], BaseException):
            inner = exc.args[0]
        if not isinstance(inner, BaseException):
            break
        exc = inner
    text = str(exc)
    return text.rsplit("): ", 1)[-1] if "): " in text else text


def _download(key, cache_dir):
    """Path of ``key`` in the cache, downloading and verifying it if needed.

    Failures raise one :class:`DataUnavailableError` (no chained traceback) naming the URL,
    the cache folder and the mirror variable; a short connect timeout keeps an offline
    machine from waiting.
    """
    url = _url(key)
    target = _cache_root(cache_dir) / key
    try:
        with _quiet_pooch() as pooch:
            downloader = pooch.HTTPDownloader(progressbar=False, timeout=CONNECT_TIMEOUT)
            path = pooch.retrieve(
                url,
                known_hash=f"sha256:{SHA256[key]}",
                fname=target.name,
                path=target.parent,
                downloader=downloader,
            )
    except PermissionError as exc:
        raise DataUnavailableError(
            f"cannot write file {key} to the cache {target.parent} ({exc}). Pass cache_dir= or "
            f"set {CACHE_ENV} to a writable directory, or set {MIRROR_ENV} to read a mirror."
        ) from None
    except ValueError as exc:
        got = re.search(r"but got ([0-9a-fA-F]{64})", str(exc))
        if got is None:  # not pooch's checksum failure
            raise DataUnavailableError(_cannot_download(key, url, _cache_root(cache_dir), exc)) from None
        raise DataUnavailableError(
            f"file {key} downloaded from {url} does not match its pinned SHA-256: expected "
            f"{SHA256[key]}, got {got.group(1)}. The download was deleted. Retry later; if it "
            f"persists, set {MIRROR_ENV} to a mirror holding the pinned file."
        ) from None
    except OSError as exc:  # requests' errors derive from OSError
        raise DataUnavailableError(_cannot_download(key, url, _cache_root(cache_dir), exc)) from None
    return Path(path)


def _cannot_download(key, url, cache_folder, exc):
    return (f"could not download file {key} from {url} ({_short_reason(exc)}) into the cache "
            f"folder {cache_folder}. {_what_to_do()}")


def _fetch(key, cache_dir):
    """Local, verified path of the pinned file ``key``: from the mirror if set, else pooch."""
    mirror = os.environ.get(MIRROR_ENV)
    if mirror:
        return _from_mirror(key, mirror)
    return _download(key, cache_dir)

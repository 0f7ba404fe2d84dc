"""Logs where they live: a URL (``s3://``, ``gs://``, ``https://``, ``file://``, ``memory://``, chained as
``simplecache::s3://``) listed and read through fsspec, with the reader table of local folders.

fsspec is optional (``pip install fsspec``, or ``pip install ".[remote]"`` in a source checkout) and imported only
when a URL is read; the filesystem
of a protocol (s3fs, gcsfs, ...) is the user's to install, and the error names its package. The listing is
bounded (``max_files``: a bucket of millions of files is refused before its files are read, though one folder's
listing is fetched whole first: :func:`list_url`); each file is checked against ``max_file_bytes`` before its
bytes are allocated (and while they are read, when the listing gives no size), read whole into memory one file
per worker (as the local readers read a file), and files are read in order on a bounded thread pool with at most
:data:`BYTES_IN_FLIGHT` bytes of files being read at once (a larger file alone), so the tree is never in memory,
only its parsed scalars. Nothing read is evaluated: the readers are the local ones.
"""

from __future__ import annotations

import collections
import dataclasses
import io
import posixpath
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterator

from ..errors import LogReadError, OptionError, RlstatsError, install_hint
from ._pieces import FileProblem

#: A URL: ``protocol://``, possibly after chained protocols (``simplecache::s3://``).
URL = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.\-]*::)*[A-Za-z][A-Za-z0-9+.\-]*://")
#: Most files a listing may hold (every file counts, log or not): a bucket of millions (or a home folder named by
#: mistake) is refused.
MAX_FILES = 100_000
#: Most bytes one file read from a URL may have: checked before its bytes are allocated.
MAX_FILE_BYTES = 1 << 30
#: Most bytes of files being read at once, over all workers (a file larger than this is read alone).
BYTES_IN_FLIGHT = 1 << 28
#: Bytes asked of a stream at once when its size is not known (or it grew past its listed size).
READ_BLOCK_BYTES = 1 << 23
#: Files listed per message line when a bound is passed.
_SHOWN = 3


def is_url(path: object) -> bool:
    """Whether ``path`` is a URL for fsspec rather than a local path.

    >>> is_url("s3://bucket/runs"), is_url("simplecache::gs://b/x"), is_url("runs/ppo"), is_url("C:\\\\runs")
    (True, True, False, False)
    """
    return isinstance(path, str) and URL.match(path) is not None


@dataclasses.dataclass(frozen=True)
class RemoteOptions:
    """How a URL is opened and bounded: fsspec's storage options, the listing's and a file's bounds."""

    storage_options: dict
    max_files: int = MAX_FILES
    max_file_bytes: int = MAX_FILE_BYTES


def _protocols(url):
    """The protocols of a (possibly chained) URL, outermost first."""
    head = url.split("://", 1)[0]
    return head.split("::")


def filesystem(url: str, storage_options: dict) -> tuple[Any, str]:
    """(fsspec filesystem, path in it) for ``url``; an OptionError for an unknown protocol or options the filesystem
    refuses, a LogReadError naming the pip package when fsspec or a protocol's implementation is missing."""
    try:
        import fsspec
        from fsspec.registry import known_implementations, registry
    except ImportError as exc:
        raise LogReadError(f"reading {url} needs fsspec: {install_hint('remote')} ({exc})") from exc
    for protocol in _protocols(url):
        if protocol not in known_implementations and protocol not in registry:
            known = sorted(p for p in known_implementations if len(p) > 1)
            raise OptionError(f"{url!r} names the protocol {protocol!r}, which fsspec does not know; give a URL of "
                              f"a known protocol ({', '.join(known[:20])}, ...), or a local folder")
        if protocol in registry:
            continue
        implementation = known_implementations[protocol]
        try:
            fsspec.get_filesystem_class(protocol)
        except ImportError as exc:
            package = implementation["class"].split(".", 1)[0]
            needed = (f"pip install {package}" if package != "fsspec" else
                      f"pip install {' '.join(_needed_modules(implementation.get('err', '')))}".rstrip())
            raise LogReadError(f"reading {protocol}:// URLs needs the package that implements that protocol for "
                               f"fsspec: {needed} ({implementation.get('err') or exc})") from exc
    try:
        fs, path = fsspec.core.url_to_fs(url, **storage_options)
    except (TypeError, ValueError) as exc:
        raise OptionError(f"the filesystem of {url!r} refused storage_options={storage_options!r}: {exc}") from exc
    return fs, path


def _needed_modules(message):
    """The quoted package names in fsspec's message for a missing implementation (``requires "aiohttp"``)."""
    return re.findall(r'"([A-Za-z0-9_.\-]+)"', message)


def _walk_key(relative):
    """A listing's order as ``os.walk`` gives it with names sorted: a folder's files, then its folders in turn."""
    *folders, name = relative.split("/")
    return [(1, folder) for folder in folders] + [(0, name)]


@dataclasses.dataclass(frozen=True)
class RemoteFile:
    """One file of a URL, with what the local readers ask of a Path: ``name``, ``stat().st_size``,
    ``open(mode, encoding=)`` and ``read_bytes()`` (bounded by ``limit`` bytes before anything is allocated)."""

    fs: Any
    path: str
    url: str
    size: int | None
    limit: int

    @property
    def name(self) -> str:
        return posixpath.basename(self.path)

    def __str__(self) -> str:
        return self.url

    def stat(self) -> Any:
        size = self.size
        if size is None:
            try:
                size = self.fs.size(self.path)
            except Exception as exc:  # a filesystem's own errors: the file is unreadable, whatever raised
                raise OSError(f"{type(exc).__name__}: {exc}") from exc
        return _Stat(size if size is not None else -1)

    def open(self, mode: str = "r", encoding: str | None = None) -> Any:
        """In binary mode, the file's bytes (:meth:`read_bytes`) as a seekable stream: a zip archive is read without
        the range requests some servers refuse. In text mode, a stream of the file (a header is read without the rest)
        whose errors are OSErrors, as a local file's, and which gives a FileProblem once more than ``limit`` bytes
        are read (when the listing gave no size, as an HTTP folder's page, the bound is found while reading)."""
        if "b" in mode:
            return io.BytesIO(self.read_bytes())
        if self.size is not None and self.size > self.limit:
            raise FileProblem("unreadable", _too_large(self.size, self.limit))
        # decoded here from a bounded byte stream: fsspec's text mode would read a line without end whole
        return _Guarded(lambda: io.TextIOWrapper(io.BufferedReader(_Bounded(self.fs.open(self.path, "rb"),
                                                                             self.limit)), encoding=encoding))

    def read_bytes(self) -> bytes:
        """The file's bytes; a FileProblem when it has more than ``limit`` (known from the listing, else found
        while reading: never more than ``limit + 1`` bytes are read) or cannot be read."""
        if self.size is not None and self.size > self.limit:
            raise FileProblem("unreadable", _too_large(self.size, self.limit))
        try:
            with self.fs.open(self.path, "rb") as handle:
                return _read_bounded(handle, self.limit, self.size)
        except FileProblem:
            raise
        except Exception as exc:  # a filesystem's own errors (botocore's, aiohttp's): the file is unreadable
            detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else f"{type(exc).__name__}: {exc}"
            raise FileProblem("unreadable", detail) from exc


def _read_bounded(handle, limit, size):
    """A stream's bytes, at most ``limit`` (a FileProblem past it): one read of the listed ``size`` (and a byte, to
    see the end), else blocks of READ_BLOCK_BYTES. Never ``read(limit)``: a file object allocates what it is asked
    for before it reads (1 GiB for each file of a few MB)."""
    chunks, total = [], 0
    want = min(limit + 1, READ_BLOCK_BYTES if size is None else size + 1)
    while want > 0:
        chunk = handle.read(want)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise FileProblem("unreadable", _too_large(None, limit))
        want = min(limit + 1 - total, READ_BLOCK_BYTES)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _too_large(size, limit):
    has = f"it has {size:,} bytes, more than" if size is not None else "it has more than"
    return (f"{has} the max_file_bytes={limit:,} a file read from a URL may have (its bytes are held in memory while "
            "it is read); pass a larger max_file_bytes= to read it")


class _Bounded(io.RawIOBase):
    """A filesystem's binary stream of which at most ``limit + 1`` bytes are ever asked: past ``limit``, the
    FileProblem :meth:`RemoteFile.read_bytes` gives."""

    def __init__(self, handle: Any, limit: int) -> None:
        super().__init__()
        self._handle, self._limit, self._total = handle, limit, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        want = min(len(buffer), self._limit + 1 - self._total)
        chunk = self._handle.read(want) if want > 0 else b""
        self._total += len(chunk)
        if self._total > self._limit:
            raise FileProblem("unreadable", _too_large(None, self._limit))
        buffer[:len(chunk)] = chunk
        return len(chunk)

    def close(self) -> None:
        if not self.closed:
            self._handle.close()
        super().close()


class _Guarded:
    """A filesystem's stream whose errors are OSErrors (botocore's, aiohttp's, a server's refusal), as the readers
    expect of a file; it is opened on entering ``with``."""

    def __init__(self, opener: Callable[[], Any]) -> None:
        self._handle = self._call(opener)

    @staticmethod
    def _call(function, *args):
        try:
            return function(*args)
        except (OSError, UnicodeDecodeError, FileProblem):
            raise
        except Exception as exc:
            raise OSError(f"{type(exc).__name__}: {exc}") from exc

    def __enter__(self) -> _Guarded:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._handle.close()

    def readline(self, *args: Any) -> Any:
        return self._call(self._handle.readline, *args)

    def read(self, *args: Any) -> Any:
        return self._call(self._handle.read, *args)

    def close(self) -> None:
        self._handle.close()


@dataclasses.dataclass(frozen=True)
class _Stat:
    st_size: int


@dataclasses.dataclass(frozen=True)
class RemoteRoot:
    """The folder a URL names: ``root / relative`` is a :class:`RemoteFile`; ``str(root)`` the URL."""

    fs: Any
    path: str
    url: str
    sizes: dict
    limit: int

    def __truediv__(self, relative: str) -> RemoteFile:
        path = f"{self.path.rstrip('/')}/{relative}" if self.path.rstrip("/") else relative
        return RemoteFile(self.fs, path, f"{self.url.rstrip('/')}/{relative}", self.sizes.get(relative), self.limit)

    def __str__(self) -> str:
        return self.url


def list_url(url: str, options: RemoteOptions) -> tuple[RemoteRoot, str | None, list[str], list[str]]:
    """(the folder, the one file named or None, every file under the folder relative to it in ``os.walk``'s order,
    the folders under symbolic links, not followed, as ``os.walk`` leaves them) for a URL naming a folder or one file. LogReadError when it names neither, cannot be listed, or its listing
    passes ``options.max_files`` files.

    The files are counted as the listing goes, folder by folder: folders after the one that passes the bound are
    never listed. One folder's listing cannot be cut short: fsspec's interface (``ls``, ``walk``, ``find``) hands a
    folder's entries over only once it has them all (s3fs's ls gathers every page of a prefix before it returns),
    and no filesystem-independent call pages through them. So a flat folder of millions of objects is listed in full
    (its entries held in memory) before it is refused; give the URL of a narrower folder (a prefix) there."""
    fs, path = filesystem(url, options.storage_options)
    try:
        # a URL ending in / names a folder (over HTTP, a folder's index page is a file too)
        if not url.endswith("/") and fs.isfile(path):
            parent, name = posixpath.split(path.rstrip("/"))
            info = fs.info(path)
            root = RemoteRoot(fs, parent, url.rstrip("/").rsplit("/", 1)[0], {name: info.get("size")},
                              options.max_file_bytes)
            return root, name, [], []
        if not fs.isdir(path):
            raise LogReadError(f"no such folder: {url}; give the URL of the folder of runs (or of one log file)")
        base = path.rstrip("/")
        sizes, unfollowed = {}, []
        # listed one folder at a time (each folder's subfolders after it is handed on), so no folder after the one
        # that passes the bound is listed; that folder's own listing (fs.ls) comes whole
        for folder, files in _walk(fs, path, url):
            prefix = posixpath.relpath(folder.rstrip("/"), base) if folder.rstrip("/") != base else "."
            for name, info in files.items():
                relative = name if prefix == "." else f"{prefix}/{name}"
                if info.get("islink") and fs.isdir(info["name"]):  # fsspec's local files list a link as a file
                    unfollowed.append(relative)
                    continue
                sizes[relative] = info.get("size")
                if len(sizes) > options.max_files:
                    raise too_many_files(url, options.max_files, sorted(sizes, key=_walk_key))
    except RlstatsError:
        raise
    except Exception as exc:  # a filesystem's own errors (credentials, a refused connection): say what it said
        raise LogReadError(f"cannot list {url}: {type(exc).__name__}: {exc}") from exc
    root = RemoteRoot(fs, base, url.rstrip("/"), sizes, options.max_file_bytes)
    return root, None, sorted(sizes, key=_walk_key), sorted(unfollowed)


def _walk(fs, path, url):
    """(folder, {name: info} of its files) for ``path`` and each folder under it, depth first in the listing's order.

    fs.walk one level at a time: its ``on_error`` holds for the folder it is given only (fsspec 2026.9 walks the
    subfolders with the default, which leaves a folder that cannot be listed out without a word)."""
    stack = [path]
    while stack:
        for folder, subfolders, files in fs.walk(stack.pop(), maxdepth=1, detail=True,
                                                 on_error=lambda error: refuse_unlistable(error, url)):
            yield folder, files
            stack.extend(reversed([info["name"] for info in subfolders.values()]))


def too_many_files(where: object, max_files: int, listed: list[str]) -> LogReadError:
    """The error of a listing (of a URL or a local folder) that passed ``max_files`` files."""
    files = "1 file" if max_files == 1 else f"{max_files:,} files"  # no pandas here (format.count): the CLI's start
    return LogReadError(f"the listing of {where} passed {files} (e.g. {', '.join(listed[:_SHOWN])}) "
                        "before it ended; give a narrower folder, or pass a larger max_files= to list them all")


def refuse_unlistable(error: BaseException, root: object) -> None:
    """Raise a LogReadError for a folder under ``root`` that cannot be listed: os.walk and fsspec's walk leave such
    a folder out without a word (audit s17: an unreadable A2C folder, and its 6 runs, gone from the frame)."""
    folder = getattr(error, "filename", None) or root
    reason = error.strerror if isinstance(error, OSError) and error.strerror else f"{type(error).__name__}: {error}"
    raise LogReadError(f"cannot list the folder {folder} under {root}: {reason}; its runs would be left out, so make "
                       "it readable (e.g. chmod), or read a folder that does not hold it") from error


def read_in_order(items: list, read: Callable[[Any], Any], workers: int,
                  size_of: Callable[[Any], int | None], budget: int = BYTES_IN_FLIGHT) -> Iterator[Any]:
    """``read(item)`` for each item, in order, on ``workers`` threads: a file is started while the files being read
    (started, not yet handed on) hold at most ``budget`` bytes (a file of unknown size, as an HTTP folder's page lists
    them, counts as ``budget``: it may hold up to max_file_bytes; a larger file is read alone) and at most two per
    worker are waiting, so the bytes in flight stay bounded."""
    if workers <= 1 or len(items) < 2:
        yield from map(read, items)
        return
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending: collections.deque = collections.deque()
        in_flight, position = 0, 0
        while True:
            while position < len(items) and len(pending) < 2 * workers:
                size = size_of(items[position])
                size = budget if size is None else min(size, budget)
                if pending and in_flight + size > budget:
                    break
                pending.append((pool.submit(read, items[position]), size))
                in_flight += size
                position += 1
            if not pending:
                return
            future, size = pending.popleft()
            in_flight -= size
            yield future.result()

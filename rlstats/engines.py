"""Where independent pieces of work run: this thread, threads or joblib workers of this machine, or a Dask cluster.

The one home of the ``n_jobs=`` / ``backend=`` / ``client=`` choice that :func:`rlstats.power`,
:func:`rlstats.bootstrap`, :func:`rlstats.tuning` and the calibration grid (``tests/reference/calibrate.py``) share:
:func:`engine` checks it once into an :class:`Engine`, and :func:`map_ordered` runs a function over items on it and
yields the results in the items' order.  Callers key every item's random stream by the item (a block of
simulations, a chunk of resamples, a sweep), never by the worker that runs it, so results are the same bits
whatever the engine and its number of workers.

On Dask the function is sent to the cluster once (``Client.scatter``: a closure over a large design travels once,
not with every item), each item is a task, at most a few per worker thread are in flight (memory stays bounded
whatever the number of items), and results come back in order.  ``backend="dask"`` runs on the Client passed as
``client=`` or, without one, on the process's default Client (the one made last, ``distributed.Client.current()``).
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from .errors import OptionError, install_hint
from .options import check_n_jobs
from .resampling import parallel_map, worker_count

__all__ = ["Engine", "engine", "check_backend", "map_ordered", "workers", "one_blas_thread"]

_T = TypeVar("_T")
_R = TypeVar("_R")

DASK = "dask"
#: ``backend=`` where the local engine is threads (bootstrap, tuning): None or one of these (_typing.DaskBackend)
CLUSTER_BACKENDS = (DASK,)
#: Dask tasks in flight per worker thread: enough to keep every thread busy while results are read in order
IN_FLIGHT_PER_THREAD = 4

def _install():
    return install_hint("distributed")


@dataclass(frozen=True)
class Engine:
    """Where work runs: ``n_jobs`` local workers, a joblib ``backend``, or Dask (``backend="dask"`` on ``client``).

    Attributes
    ----------
    n_jobs : int
        Local workers (-1: one per core); with a joblib backend, its workers.  Not read on Dask, where the
        cluster's worker threads run the items.
    backend : str or None
        None (threads or joblib's default, as the caller runs locally), ``"dask"``, or a joblib backend name.
    client : distributed.Client or None
        The Dask client when ``backend="dask"`` (never recorded in a result: it is a live connection).
    """

    n_jobs: int = 1
    backend: str | None = None
    client: Any = field(default=None, repr=False, compare=False)

    @property
    def is_dask(self) -> bool:
        """Whether the work goes to a Dask cluster."""
        return self.backend == DASK

    @property
    def serial(self) -> bool:
        """Whether the work runs in the caller's thread, in order."""
        return self.backend is None and self.n_jobs == 1


def check_backend(backend: Any, *, joblib: bool = True) -> str | None:
    """``backend=`` checked: None, ``"dask"`` (dask.distributed importable), or, where ``joblib``, a joblib backend
    that can stream results back.  Raises OptionError naming the value and the choices."""
    choices = "None, 'dask' or the name of a joblib backend" if joblib else "None or 'dask'"
    if backend is None:
        return None
    if not isinstance(backend, str):
        raise OptionError(f"backend must be {choices}, got {backend!r}")
    if backend == DASK:
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise OptionError(f"backend='dask' needs dask.distributed: {_install()}") from None
        return backend
    if not joblib:
        raise OptionError(f"backend={backend!r} is not available here; use backend=None (threads of this machine, "
                          f"n_jobs=) or backend='dask' (a Dask cluster)")
    from joblib.parallel import BACKENDS

    # Results stream back as workers finish (return_as="generator"); a backend that cannot do that
    # (joblib's 'multiprocessing') is not offered.
    usable = sorted(name for name, kind in BACKENDS.items() if kind.supports_return_generator is not False)
    if backend not in usable:
        raise OptionError(f"backend={backend!r} is not a joblib backend rlstats can use; use 'dask' or one of: "
                          f"{', '.join(usable)}")
    return backend


def _check_client(client: Any, backend: str | None) -> Any:
    """The running Client to use: ``client`` or, without one, the default Client; an OptionError otherwise."""
    if backend != DASK:
        if client is not None:
            raise OptionError(f"client= is a Dask client and runs only with backend='dask', got backend={backend!r}; "
                              f"pass backend='dask' or leave client=None")
        return None
    import distributed

    if client is None:
        try:
            return distributed.Client.current()
        except ValueError:
            raise OptionError("backend='dask' runs on a dask.distributed Client, and none is running: create one "
                              "first, e.g. `from dask.distributed import Client; client = Client()` for this "
                              "machine or `client = Client('tcp://scheduler:8786')` for a cluster, or pass "
                              "client=") from None
    if not isinstance(client, distributed.Client):
        raise OptionError(f"client must be a dask.distributed Client (or None for the default one), got "
                          f"{type(client).__name__} {client!r}")
    if client.status != "running":
        raise OptionError(f"client= is a dask.distributed Client that is not running (status {client.status!r}): "
                          f"pass a connected Client, or None for the default one")
    return client


def engine(n_jobs: Any = 1, backend: Any = None, client: Any = None, *, joblib: bool = True) -> Engine:
    """Check ``n_jobs``, ``backend`` and ``client`` once into an :class:`Engine`.

    ``joblib=False`` where the caller runs locally on threads only (``backend`` is then None or ``"dask"``).
    On Dask, ``n_jobs`` may exceed this machine's cores (a cluster may have more workers).
    """
    backend = check_backend(backend, joblib=joblib)
    n_jobs = check_n_jobs(n_jobs, local=backend != DASK)
    return Engine(n_jobs=n_jobs, backend=backend, client=_check_client(client, backend))


def workers(where: int | Engine) -> int:
    """Items that can run at once: the Dask cluster's worker threads, or the local worker count."""
    if isinstance(where, Engine):
        if where.is_dask:
            return max(1, sum(where.client.nthreads().values()))
        return worker_count(where.n_jobs)
    return worker_count(where)


def map_ordered(function: Callable[[_T], _R], items: Iterable[_T], where: int | Engine = 1, *,
                local: Literal["threads", "joblib"] = "threads") -> Iterator[_R]:
    """``map(function, items)`` on ``where`` (an :class:`Engine`, or a number of local threads), in order.

    ``local`` says how the caller runs on this machine: ``"threads"`` (numpy's work shares the inputs, see
    :func:`rlstats.resampling.parallel_map`) or ``"joblib"`` (processes, or the ``Engine``'s joblib backend).
    A function sent to other processes (joblib's, Dask's) must be picklable, closures included (cloudpickle).
    """
    if not isinstance(where, Engine):
        where = Engine(n_jobs=where)
    if where.is_dask:
        return _dask_map(function, items, where.client)
    if where.serial:
        return map(function, items)
    if local == "threads" and where.backend is None:
        return parallel_map(function, items, where.n_jobs)
    return _joblib_map(function, items, where)


def _joblib_map(function: Callable[[Any], Any], items: Iterable[Any], where: Engine) -> Iterator[Any]:
    """Items through joblib; Parallel is made inside parallel_config, which it reads when created."""
    from joblib import Parallel, delayed, parallel_config

    config = parallel_config(backend=where.backend) if where.backend is not None else contextlib.nullcontext()
    with config:
        parallel = Parallel(n_jobs=where.n_jobs, return_as="generator")
        yield from parallel(delayed(function)(item) for item in items)


def _call(function: Callable[[Any], Any], item: Any) -> Any:
    return function(item)


def _dask_map(function: Callable[[Any], Any], items: Iterable[Any], client: Any) -> Iterator[Any]:
    """Items as Dask tasks, a bounded number in flight, results in order; pending tasks cancelled on the way out."""
    bound = IN_FLIGHT_PER_THREAD * max(1, sum(client.nthreads().values()))
    shipped = client.scatter(function, hash=False)  # once per cluster, not once per item
    pending: deque[Any] = deque()
    try:
        for item in items:
            pending.append(client.submit(_call, shipped, item, pure=False))
            if len(pending) >= bound:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        if pending:
            client.cancel(list(pending))
        client.cancel([shipped])


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS and LAPACK on one thread inside the block (numpy's and scipy's libraries, whatever the caller set).

    For back ends whose work is many small products and factorisations (PBP's 234 x 234 blocks on Atari 100k):
    there a threaded OpenBLAS spends its time waking and spinning its threads. Measured on 2 cores with the
    library's default of 2 threads, another process busy: 165 s of CPU (and of wall time) against 5.3 s on one
    thread; the bounds also differed in the last bits with the thread count. Back ends parallelise over their own
    work (``n_jobs``) instead.
    """
    import scipy.linalg  # noqa: F401  (scipy's own OpenBLAS is loaded on first use; the limit reaches loaded ones)
    from threadpoolctl import threadpool_limits

    global _one_thread_users, _one_thread_limit
    # The limit is the process's, not the thread's: callers in several threads share one limit, set by the first
    # in and restored by the last out (restoring when the first left would leave the others on many threads).
    with _ONE_THREAD_LOCK:
        if _one_thread_users == 0:
            _one_thread_limit = threadpool_limits(limits=1, user_api="blas")
        _one_thread_users += 1
    try:
        yield
    finally:
        with _ONE_THREAD_LOCK:
            _one_thread_users -= 1
            if _one_thread_users == 0:
                _one_thread_limit.restore_original_limits()
                _one_thread_limit = None


_ONE_THREAD_LOCK = threading.Lock()
_one_thread_users = 0
_one_thread_limit: Any = None

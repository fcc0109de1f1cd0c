"""Worker processes, as `play_games` (`gdl run -j`) and `gdl fuzz -j` start them.

Both use a `concurrent.futures` pool of spawned processes: a worker killed from outside
(out of memory, say) breaks the pool, which the parent learns at once, where a
`multiprocessing` pool would wait for the lost task for ever.  Spawned workers import the
calling script again, as every spawned process does, so a script must start them
from under `if __name__ == "__main__":`; `check_main_guard` says so plainly instead of
multiprocessing's page-long RuntimeError.  (`multiprocessing` and `concurrent.futures` are
imported where a pool is made: every `gdl` command imports this module's users.)
"""
from __future__ import annotations

import time

from gdl.errors import OptionError

#: what a broken pool means, for the Python API (the command line cannot miss the guard);
#: the pool's own message, "A process in the process pool was terminated abruptly", does
#: not say
LOST_WORKER = ("a worker process stopped before its work was done: killed from outside "
               "(out of memory?), or, from a script, the call that starts the workers is "
               "not under `if __name__ == \"__main__\":` (each worker imports the script "
               "again)")


def usable_cores() -> int:
    """The cores this process may run on (`-j 0`): its CPU affinity where the system has
    one (a container or `taskset` may allow fewer than the machine has), else all."""
    import os
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def ignore_interrupts():
    """A worker's first step: Ctrl-C reaches the whole process group, and it is the
    parent's to handle (it stops the pool), not each worker's.  The worker was born with
    SIGINT blocked (`_quiet_spawn`): ignoring it drops one pressed while it started up,
    and then it is unblocked, as a process's mask should be."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def check_main_guard(call: str):
    """Raises OptionError if this process is a worker still importing the main script,
    which calls `call` with workers at its top level: the worker would start workers."""
    import multiprocessing
    # `_inheriting` is set while a spawned process imports the main script: the test
    # multiprocessing itself makes before its RuntimeError
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        raise OptionError(
            f"{call} with more than one job starts worker processes, and each imports the "
            f"main script again: put the code that calls it under "
            f"`if __name__ == \"__main__\":`")


def worker_pool(jobs: int, initializer, initargs: tuple):
    """A pool of `jobs` spawned workers, each starting with `initializer(*initargs)`."""
    from concurrent.futures import ProcessPoolExecutor

    from ._quiet_spawn import QuietSpawn
    return ProcessPoolExecutor(jobs, QuietSpawn(), initializer, initargs)


def stop_now(pool):
    """Stops a pool at once (an error, Ctrl-C): the tasks not started are dropped and the
    workers ended, rather than left to finish tasks nobody will read."""
    # the pool's own record of its workers (Python 3.14's `terminate_workers` reads it
    # too), and any started whose start a Ctrl-C ended before the pool recorded it
    workers = list((getattr(pool, "_processes", None) or {}).values())
    workers += [p for p in getattr(getattr(pool, "_mp_context", None), "started", ())
                if p.pid is not None and p not in workers]
    results = getattr(pool, "_result_queue", None)     # `shutdown` forgets it
    manager = getattr(pool, "_executor_manager_thread", None)       # and this
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.join()
    # The pool's own thread joins its workers too, and where it reaps one first this
    # join returns at once, before that thread has recorded the exit: the worker is gone
    # but still listed as running (`active_children`) for a moment.  Wait for the record.
    deadline = time.monotonic() + 1.0
    while any(w.exitcode is None for w in workers) and time.monotonic() < deadline:
        time.sleep(0.001)
    # A worker ended in the middle of sending a result leaves the pool's thread reading
    # the rest of that message, which never comes while this process keeps the pipe's
    # other end open; Python's exit joins that thread and would wait for ever.  With
    # every worker gone, closing that end lets the read end (the pool's thread then
    # finds the pool broken and stops).
    writer = getattr(results, "_writer", None)
    if writer is not None:
        writer.close()
    # That thread, seeing the pool broken, closes its wake-up pipe, and Python's exit
    # writes to every pool's wake-up pipe without the lock the thread closes it under:
    # an exit in the middle of the closing printed "Exception ignored ... handle is
    # closed" after a Ctrl-C.  Let the thread finish first (it has nothing left to wait
    # for; the bound is for a pool in a state nobody foresaw).
    # A Ctrl-C as the pool starts may come between the thread's making and its start:
    # there is nothing to join then.
    if manager is not None and manager.is_alive():
        manager.join(timeout=2.0)

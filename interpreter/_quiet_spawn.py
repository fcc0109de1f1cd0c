"""The spawn start method, with each worker process born with SIGINT blocked and a Ctrl-C
during a start held back until the start is done.

A new Python process takes a second or more (longer on a busy machine) to reach the
pool's initializer, which ignores Ctrl-C (`_workers.ignore_interrupts`); a Ctrl-C in that
time printed the starting worker's KeyboardInterrupt traceback.  A child inherits the
signal mask of the thread that starts it, so that thread blocks SIGINT while it starts
one: the child's Ctrl-C waits, blocked, until the initializer ignores it (which drops it).

The parent's own Ctrl-C must not be lost, nor break a start in the middle: the pool
records a worker only once `start` returns, and a worker started but not recorded was
not stopped with the others (it printed a traceback when the parent left under it).  So,
in the main thread, a Ctrl-C during a start is noted and handed to the handler that was
in place once the process is running; and every process is listed on its context before
it starts (`QuietSpawn.started`), where `_workers.stop_now` finds one the pool missed.
A module of its own because a spawned process unpickles its Process object by class
name, and every command imports `_workers` (`multiprocessing` is imported only here).
"""
from __future__ import annotations

import signal
import threading
from multiprocessing.context import SpawnContext, SpawnProcess

_SIGINT = {signal.SIGINT}


class QuietProcess(SpawnProcess):
    def start(self):
        if not hasattr(signal, "pthread_sigmask"):      # Windows: no signal masks
            return super().start()
        pressed: list = []
        previous = None
        if threading.current_thread() is threading.main_thread():
            previous = signal.getsignal(signal.SIGINT)
            if previous is None or previous is signal.SIG_IGN:
                previous = None                          # not Python's, or ignored: leave it
            else:
                signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(signum))
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGINT)
        try:
            super().start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            if previous is not None:
                signal.signal(signal.SIGINT, previous)  # runs a pending handler first
        if pressed:                                      # the Ctrl-C, now that it is safe
            if callable(previous):
                previous(signal.SIGINT, None)
            else:                                        # SIG_DFL: end as it would have
                signal.raise_signal(signal.SIGINT)


class QuietSpawn(SpawnContext):
    """A spawn context whose processes are QuietProcess, each listed in `started`."""

    def __init__(self):
        self.started: list = []

    def Process(self, *args, **kwargs):                 # noqa: N802 - the context's name
        process = QuietProcess(*args, **kwargs)
        self.started.append(process)
        return process

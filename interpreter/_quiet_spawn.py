"""The spawn start method, with each worker process born with SIGINT blocked.

A new Python process takes a second or more (longer on a busy machine) to reach the
pool's initializer, which ignores Ctrl-C (`_workers.ignore_interrupts`); a Ctrl-C in that
time printed the starting worker's KeyboardInterrupt traceback.  A child inherits the
signal mask of the thread that starts it, so that thread blocks SIGINT while it starts
one: the child's Ctrl-C waits, blocked, until the initializer ignores it (which drops
it).  Blocking, not ignoring, keeps the parent's own Ctrl-C: one that comes while the
thread starts a process is delivered to another thread or when the mask is restored.  A
module of its own because a spawned process unpickles its Process object by class name,
and every command imports `_workers` (`multiprocessing` is imported only here).
"""
from __future__ import annotations

import signal
from multiprocessing.context import SpawnContext, SpawnProcess

_SIGINT = {signal.SIGINT}


class QuietProcess(SpawnProcess):
    def start(self):
        if not hasattr(signal, "pthread_sigmask"):      # Windows: no signal masks
            return super().start()
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGINT)
        try:
            return super().start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class QuietSpawn(SpawnContext):
    Process = QuietProcess

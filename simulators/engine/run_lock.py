"""One run per directory: a lock a run holds on its run directory for as long as it runs.

Why: a run appends to `episodes.jsonl` and resumes by skipping what is logged there. Two
runs into the same directory (a sweep started twice, a launcher that retries a job that
is still running) would both run every missing episode and append both copies, so the
log would no longer be one run's. The first run into a directory therefore holds
`crsim.lock` there; a second one stops at once (`RunDirInUse`: one `crsim: error:` line,
status 2) before it writes anything, naming the holder's pid and host.

How: the lock is the kernel's (`fcntl.flock` on the lock file), so it ends with the
process however the process ends: a run killed with SIGKILL, or lost with its machine
(on a network file system, once the server drops its locks), leaves no lock held, and
the next run into the directory takes it over and resumes as usual. The file also holds
the holder's pid, host, start time and command (JSON), which is what the refusal names;
a file left behind by a killed run is reported when it is taken over. The lock file is
removed when the run ends. Only the process that writes the logs holds the lock (worker
processes and Ray actors never write them); a Hydra multirun's jobs each lock their own
directory. On a file system without locks (`flock` fails), the file alone decides: a
holder on this host that is still alive, or any holder on another host, keeps it.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path

from environments.errors import CrsimError

LOCK_FILE = "crsim.lock"
_READ_RETRIES = 20  # a holder writes its details right after it takes the lock: wait that long (~1 s) at most


class RunDirInUse(CrsimError):
    """Another process is running into this directory."""


@dataclass(frozen=True, slots=True)
class Holder:
    """Who holds (or held) a run directory's lock, as its lock file says."""

    pid: int
    host: str
    started: str
    command: str = "crsim"

    @classmethod
    def me(cls, command: str) -> Holder:
        return cls(os.getpid(), socket.gethostname(), datetime.now().astimezone().isoformat(timespec="seconds"),
                   command)

    @classmethod
    def parse(cls, data: bytes) -> Holder | None:
        try:
            fields = json.loads(data)
            return cls(int(fields["pid"]), str(fields["host"]), str(fields["started"]),
                       str(fields.get("command", "crsim")))
        except (ValueError, KeyError, TypeError):
            return None

    def encode(self) -> bytes:
        return (json.dumps(asdict(self), sort_keys=True) + "\n").encode("utf-8")

    def is_me(self) -> bool:
        return self.pid == os.getpid() and self.host == socket.gethostname()

    def gone(self) -> bool:
        """Known to have ended: on this host and no such process (elsewhere we cannot tell)."""
        return self.host == socket.gethostname() and not _alive(self.pid)

    def __str__(self) -> str:
        return f"{self.command}, pid {self.pid} on host {self.host}, started {self.started}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


class RunLock:
    """The lock on `run_dir`: `acquire()` or `RunDirInUse`; `release()` when the run ends.
    `hint` ends the refusal: how to run the refused command elsewhere."""

    def __init__(self, run_dir: Path, command: str = "crsim run", hint: str = "give it its own hydra.run.dir"):
        self.run_dir = Path(run_dir).resolve()
        self.path = self.run_dir / LOCK_FILE
        self.command = command
        self.hint = hint
        self.taken_over: Holder | None = None  # the holder a killed run left in the file
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> RunLock:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)  # never truncated: the holder's details stay
            try:
                locked = _flock(fd)
                if locked is False:
                    raise self._in_use(self._holder(fd))
                if locked is None:  # no locks on this file system: the file alone decides
                    previous = _read(fd)
                    if previous is not None and not previous.is_me() and not previous.gone():
                        raise self._in_use(previous, unlocked=True)
                if not _same_file(fd, self.path):  # the holder removed it as we opened it: start again
                    os.close(fd)
                    continue
                self.taken_over = _read(fd)
                os.ftruncate(fd, 0)
                os.pwrite(fd, Holder.me(self.command).encode(), 0)
            except BaseException:
                os.close(fd)
                raise
            self._fd = fd
            return self

    def release(self) -> None:
        """Remove the lock file (while still holding it, so no one holds a removed file) and unlock."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if _same_file(fd, self.path):
                self.path.unlink()
        except OSError:
            pass  # a directory already removed: nothing to leave behind
        finally:
            os.close(fd)

    def _holder(self, fd: int) -> Holder | None:
        """The holder's details; it writes them just after it locks, so an empty file, or a
        killed run's details still in it, is read again for a moment."""
        holder = None
        for _ in range(_READ_RETRIES):
            holder = _read(fd)
            if holder is not None and not holder.gone():
                return holder
            time.sleep(0.05)
        return holder

    def _in_use(self, holder: Holder | None, unlocked: bool = False) -> RunDirInUse:
        if holder is None:
            who, stop = "another process", "stop it"
        else:
            where = f" on {holder.host}" if holder.host != socket.gethostname() else ""
            who, stop = f"another run ({holder})", f"stop it (kill {holder.pid}{where})"
        remove = f"; if it has ended, remove {self.path}" if unlocked else ""
        return RunDirInUse(f"{self.run_dir} is in use by {who}; one run at a time writes a run directory: wait for "
                           f"it to finish, or {stop} and run the same command again to resume it{remove}; to run "
                           f"this one beside it, {self.hint}")


def _flock(fd: int) -> bool | None:
    """True: locked; False: someone holds it; None: this file system has no locks."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            return False
        if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
            return None
        raise
    return True


def _read(fd: int) -> Holder | None:
    return Holder.parse(os.pread(fd, 4096, 0))


def _same_file(fd: int, path: Path) -> bool:
    try:
        here, there = os.fstat(fd), os.stat(path)
    except FileNotFoundError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


_HELD: dict[Path, RunLock] = {}  # locks this process took before the code that runs into the directory


def take_run_dir(run_dir: Path, command: str = "crsim run", hint: str = "give it its own hydra.run.dir") -> RunLock:
    """Lock `run_dir` now, for `run_dir_lock` in this process to use later (a Hydra
    callback takes it before Hydra writes its own files into the directory)."""
    key = Path(run_dir).resolve()
    if key in _HELD:
        return _HELD[key]
    lock = RunLock(key, command, hint).acquire()
    _note_takeover(lock)
    _HELD[key] = lock
    return lock


@contextmanager
def run_dir_lock(run_dir: Path, command: str = "crsim run",
                 hint: str = "give it its own hydra.run.dir") -> Iterator[RunLock]:
    """Hold `run_dir`'s lock for the block (the one this process took already, if any);
    released, and its file removed, when the block ends however it ends."""
    key = Path(run_dir).resolve()
    lock = _HELD.pop(key, None)
    if lock is None:
        lock = RunLock(key, command, hint).acquire()
        _note_takeover(lock)
    try:
        yield lock
    finally:
        lock.release()


def release_run_dir(run_dir: Path) -> None:
    """Release a lock `take_run_dir` took, if no `run_dir_lock` block has taken it on."""
    lock = _HELD.pop(Path(run_dir).resolve(), None)
    if lock is not None:
        lock.release()


def _note_takeover(lock: RunLock) -> None:
    if lock.taken_over is not None and not lock.taken_over.is_me():
        print(f"crsim: note: {lock.run_dir} was locked by a run that is no longer running ({lock.taken_over}); "
              "taking over its lock", file=sys.stderr)

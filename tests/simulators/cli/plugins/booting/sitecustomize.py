"""On `PYTHONPATH` in one test only: a spawned worker process (`--multiprocessing-fork` on its
command line) appends its process id to the file named by `$CRSIM_TEST_BOOTING` before any
crsim code runs in it, then waits (at most a minute) until the test removes that file. The
test interrupts the run in that window: Python is up, the worker's own set-up not begun."""

import os
import sys
import time

_FLAG = os.environ.get("CRSIM_TEST_BOOTING")
if _FLAG and "--multiprocessing-fork" in sys.argv:
    with open(_FLAG, "a", encoding="utf-8") as _handle:
        _handle.write(f"{os.getpid()}\n")
    _deadline = time.monotonic() + 60
    while os.path.exists(_FLAG) and time.monotonic() < _deadline:
        time.sleep(0.05)

"""Running `crsim` as a subprocess, the way a user does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
CRSIM = str(Path(sys.executable).parent / "crsim")


def crsim(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([CRSIM, *args], cwd=cwd, env={**os.environ, **(env or {})},
                          capture_output=True, text=True, timeout=900)

"""What the benchmarks measure of their own process, on any platform.

Peak memory comes from Linux's ``VmHWM`` where there is one, else from
``getrusage`` (in bytes on macOS, in KiB on other Unixes); Windows has neither without
another dependency, so it is unknown there. Time limits need ``fork`` (a child that
inherits the loaded data and the estimator factory, lambdas included); Windows has no
``fork``, so the benchmarks run their fits in-process there, without a limit.
"""

from __future__ import annotations

import multiprocessing
import sys
from pathlib import Path

try:
    import resource
except ImportError:  # Windows
    resource = None


def peak_rss_bytes() -> float | None:
    """Peak resident memory of this process in bytes, or None where it is not known.

    ``VmHWM`` where Linux has it (reset by ``exec``, where ``ru_maxrss`` keeps the
    parent's peak across it), else ``ru_maxrss``."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text(encoding="utf-8").splitlines():
            if line.startswith("VmHWM:"):
                return float(int(line.split()[1]) * 1024)
    if resource is None:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return float(peak if sys.platform == "darwin" else peak * 1024)


def fork_available() -> bool:
    """Whether children can be forked (not on Windows)."""
    return "fork" in multiprocessing.get_all_start_methods()

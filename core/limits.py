"""How many live streams one server process may hold, from what the machine allows.
Each granian worker (WORKERS) is one such process, with descriptors of its own.

Each open stream is one socket: one file descriptor. The process-wide cap stays well
below the descriptor limit (raised to its hard limit at start), leaving room for the
database, static files and page requests; granian's backpressure is set above it
(`core.serving`), so pages keep answering however many streams are open.
"""

import functools
import os
import resource

# Descriptors kept for everything that is not a stream (pages, database, files).
RESERVED_FILES = 512
DEFAULT_MAX_STREAMS = 10_000


def open_files_limit() -> int:
    """The soft limit on open files, raised to the hard limit first when allowed."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = 1 << 20
    if soft != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return hard if soft == resource.RLIM_INFINITY else soft


@functools.cache
def max_streams() -> int:
    """MAX_STREAMS from the environment, else what the file descriptors allow (at most
    10,000): half of what is left after the reserve, and never above the environment's."""
    allowed = max(16, (open_files_limit() - RESERVED_FILES) // 2)
    configured = os.environ.get("MAX_STREAMS", "").strip()
    if configured.isascii() and configured.isdigit():
        return min(int(configured), allowed)
    return min(DEFAULT_MAX_STREAMS, allowed)

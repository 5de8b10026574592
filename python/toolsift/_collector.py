"""What a batch (`parse_many`, either backend) does to Python's cyclic garbage collector
while it builds its results: fresh, acyclic objects, which full collections would scan
again and again (each full collection scans every object alive, and with a small heap
they come due every few thousand results).

Up to Python 3.13 the collector has three generations: the batch holds off the full
(third-generation) collections only, by raising their threshold; the young collections
go on, scanning each result while it is still in the cache (pausing the collector
outright left one scan of all the results for the end, when they are no longer in the
cache: measured slower, with a small heap and with a large one). Python 3.14's collector
has no third generation (it scans the old objects a part at a time, and ignores the
third threshold): there the collector is paused, as before.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable

__all__ = ["hold"]

# The third threshold while a batch holds it (the largest a C int holds): no full
# collection comes due.
_HELD = 2**31 - 1
_INCREMENTAL = sys.version_info >= (3, 14)


def _nothing() -> None:
    pass


def hold() -> Callable[[], None]:
    """Hold off the collector's scans of a batch's results (see the module docstring);
    returns the function that restores the collector as it was. Nothing is changed
    where the collector is off, or where another batch already holds it (that batch
    restores it)."""
    if not gc.isenabled():
        return _nothing
    if _INCREMENTAL:
        gc.disable()
        return gc.enable
    first, second, third = gc.get_threshold()
    if third == _HELD:
        return _nothing
    gc.set_threshold(first, second, _HELD)

    def release() -> None:
        now = gc.get_threshold()
        if now[2] == _HELD:  # else changed meanwhile: left as it is
            gc.set_threshold(now[0], now[1], third)

    return release

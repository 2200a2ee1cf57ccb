"""Progress of the long calls (``ingest``, ``report``, ``simulate``).

The native side calls a hook ``hook(done, total)`` at most ten times a
second, and once more when the work ends; ``done`` and ``total`` only grow.
``progress=`` chooses the hook: ``None`` (the default) draws a tqdm bar
when tqdm is installed (``tqdm.auto``: a widget in Jupyter, text on a
terminal) and nothing otherwise, ``True`` insists on the bar, ``False``
turns progress off, and any callable is called as the hook itself.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, Optional

from ._tracelab import UsageError

Hook = Callable[[int, int], Any]


def _tqdm() -> Optional[Any]:
    """tqdm.auto's tqdm, or None when tqdm is not installed."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm


class _Bar:
    """A tqdm bar opened at the first call, its total following the work's."""

    def __init__(self, tqdm: Any, desc: str, unit: str) -> None:
        self._tqdm = tqdm
        self._desc = desc
        self._unit = unit
        self._bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self._bar is None:
            in_bytes = self._unit == "B"
            self._bar = self._tqdm(
                total=total,
                desc=self._desc,
                unit=self._unit,
                unit_scale=in_bytes,
                unit_divisor=1024 if in_bytes else 1000,
            )
        if total != self._bar.total:
            self._bar.total = total
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


@contextlib.contextmanager
def hook(progress: Any, desc: str, unit: str) -> Iterator[Optional[Hook]]:
    """The hook for ``progress=`` (see the module's doc); a bar it opened is
    closed when the call ends, however it ends."""
    if progress is False:
        yield None
        return
    if callable(progress) and progress is not True:
        yield progress
        return
    if progress is not None and progress is not True:
        raise UsageError(f"progress={progress!r}: expected None, True, False or a callable hook(done, total)")
    tqdm = _tqdm()
    if tqdm is None:
        if progress is True:
            raise UsageError("progress=True draws a tqdm bar: install tqdm (pip install tqdm)")
        yield None
        return
    bar = _Bar(tqdm, desc, unit)
    try:
        yield bar
    finally:
        bar.close()

"""Passes that carry the kernels of more than one computation.

A pass over the chunks costs a read (or a generation) of every row, whatever its
kernels compute, so computations that each need a pass share one where they can:

* :class:`SharedPasses`: computations running in threads, each with its own runner; a
  pass runs when every one still running has asked for one (ROBPCA's C-steps and
  FAST-MCD's, :mod:`robustpca.solvers.chunked_rrcov`);
* :class:`RideAlong`: a runner whose next pass also runs one more kernel, chosen ahead
  of time (FAST-MCD's reweighting of its best fit in the pass of a C-step,
  :mod:`robustpca.solvers.chunked_mcd`).
"""

from __future__ import annotations

import threading

import numpy as np

__all__ = ["RideAlong", "SharedPasses", "together", "with_extra"]


def together(x, rows=None, *, calls) -> dict:
    """The results of several kernels on one chunk, keyed ``"slot|key"``.

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
        A row chunk.
    rows : ndarray or None, default=None
        The chunk's block of the pass's ``rows``, given to every kernel.
    calls : sequence of (int, callable, dict)
        ``(slot, kernel, params)``: each runs as ``kernel(x, rows, **params)``.

    Returns
    -------
    dict
    """
    out = {}
    for slot, kernel, params in calls:
        for key, value in kernel(x, rows, **params).items():
            out[f"{slot}|{key}"] = value
    return out


def _same_rows(a, b) -> bool:
    """Whether two passes' row selections are the same (None: all rows)."""
    if a is None or b is None:
        return a is b
    return a is b or (np.shape(a) == np.shape(b) and bool(np.array_equal(a, b)))


class SharedPasses:
    """Passes shared by computations running in threads, each with its own runner
    (:meth:`runner`): a pass runs when every computation still running has asked for
    one, and carries all their kernels (:func:`together`). ``passes`` counts the passes
    run; an error in one computation stops the others.

    Parameters
    ----------
    run : callable
        The pass runner that runs the shared passes (one per distinct ``rows``).
    slots : int
        The number of computations, numbered ``0`` to ``slots - 1``.
    """

    def __init__(self, run, slots: int):
        self.run = run
        self.live = set(range(slots))
        self.pending: dict = {}
        self.results: dict = {}
        self.passes = 0
        self.error: BaseException | None = None
        self.cond = threading.Condition()

    def runner(self, slot: int):
        """The pass runner of computation ``slot``: a call waits for the shared pass.

        Parameters
        ----------
        slot : int
            The computation's number.

        Returns
        -------
        callable
            ``call(kernel, rows=None, **params) -> dict``, the kernel's summed results;
            it raises ``RuntimeError`` when another computation failed.
        """

        def call(kernel, rows=None, **params):
            with self.cond:
                self.pending[slot] = (kernel, rows, params)
                self._flush()
                while slot not in self.results and self.error is None:
                    self.cond.wait()
                if slot not in self.results:
                    raise RuntimeError("a computation sharing the passes failed")
                return self.results.pop(slot)

        return call

    def serve(self, slot: int, fn, *args):
        """``fn(*args)`` as the computation ``slot``; it leaves the passes when done. An
        error is kept (:meth:`check`), and raised again in the main thread's slot 0.

        Parameters
        ----------
        slot : int
            The computation's number.
        fn : callable
            The computation, which runs its passes through ``self.runner(slot)``.
        *args : tuple
            Passed to ``fn``.

        Returns
        -------
        object
            What ``fn`` returns; ``None`` after an error outside slot 0.
        """
        try:
            return fn(*args)
        except BaseException as error:
            with self.cond:
                self.error = self.error or error
            if slot == 0:
                raise
            return None
        finally:
            with self.cond:
                self.live.discard(slot)
                self._flush()
                self.cond.notify_all()

    def check(self):
        """Raise the first error of a computation, if any."""
        if self.error is not None:
            raise self.error

    def _flush(self):
        if not self.pending or not set(self.pending) >= self.live or self.error is not None:
            return
        # in slot order, not the order the threads asked in: the pass is then the same
        # from run to run (its results do not depend on the order)
        calls, self.pending = dict(sorted(self.pending.items())), {}
        # one pass per distinct row selection (the same one, all rows, in ROBPCA's use)
        groups: list = []
        for s, (k, r, p) in calls.items():
            group = next((g for g in groups if _same_rows(g[0], r)), None)
            if group is None:
                group = (r, [])
                groups.append(group)
            group[1].append((s, k, p))
        out: dict = {}
        try:
            for rows, group in groups:
                out.update(self.run(together, rows, calls=tuple(group)))
                self.passes += 1
        except BaseException as error:
            self.error = error
            self.cond.notify_all()
            return
        for slot in calls:
            prefix = f"{slot}|"
            self.results[slot] = {
                key[len(prefix) :]: value for key, value in out.items() if key.startswith(prefix)
            }
        self.cond.notify_all()


def with_extra(x, rows=None, *, main, params, extra, extra_params) -> dict:
    """``main``'s results for the chunk, and ``extra``'s keyed ``"extra|key"``.

    Parameters
    ----------
    x : ndarray of shape (n_rows, n_features)
        A row chunk.
    rows : ndarray or None, default=None
        The chunk's block of the pass's ``rows``, given to both kernels.
    main : callable
        The kernel of the pass.
    params : dict
        The keyword arguments of ``main``.
    extra : callable
        The kernel riding along.
    extra_params : dict
        The keyword arguments of ``extra``.

    Returns
    -------
    dict
    """
    out = main(x, rows, **params)
    for key, value in extra(x, rows, **extra_params).items():
        out[f"extra|{key}"] = value
    return out


class RideAlong:
    """A pass runner whose next pass also runs one more kernel on the same rows
    (:func:`with_extra`); its results are then in ``result``, else None.

    Parameters
    ----------
    run : callable
        The pass runner the passes run on.
    kernel : callable
        The kernel that rides along with the next pass.
    **params : dict
        The keyword arguments of ``kernel``.
    """

    def __init__(self, run, kernel, **params):
        self.run = run
        self.extra: tuple | None = (kernel, params)
        self.result: dict | None = None

    def __call__(self, kernel, rows=None, **params):
        if self.extra is None:
            return self.run(kernel, rows, **params)
        (extra, extra_params), self.extra = self.extra, None
        out = self.run(
            with_extra, rows, main=kernel, params=params, extra=extra, extra_params=extra_params
        )
        self.result = {k[6:]: out.pop(k) for k in [k for k in out if k.startswith("extra|")]}
        return out

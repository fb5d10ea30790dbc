"""The stack level of the library's warnings: the user's line, however deep the call."""

from __future__ import annotations

import inspect
import os

__all__ = ["external_stacklevel"]


def _library_folders() -> tuple[str, ...]:
    """The folders of robustpca, of scikit-learn (whose fit wrappers, meta-estimators and
    ``available_if`` methods call ours) and of joblib (which runs a search's fits)."""
    import joblib
    import sklearn

    folders = (os.path.dirname(__file__), *(os.path.dirname(m.__file__) for m in (sklearn, joblib)))
    return tuple(os.path.abspath(folder) + os.sep for folder in folders)


def external_stacklevel() -> int:
    """``stacklevel`` for :func:`warnings.warn` that names the first frame outside
    robustpca, scikit-learn and joblib: the user's line, whichever public method (``fit``,
    ``fit_predict``, a ``GridSearchCV``) led to the warning, as pandas'
    ``find_stack_level`` does. A fixed level names a library line on the other paths,
    and the default filter then shows the warning once for all of them."""
    folders = _library_folders()
    frame = inspect.currentframe()
    level = 0
    try:
        while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(folders):
            frame = frame.f_back
            level += 1
    finally:
        del frame
    return max(level, 1)

"""The one switch between compiled and plain-Python loops.

Every hot loop in physbook is written as a plain Python function over numpy arrays and
decorated with :func:`njit`. When numba imports and the environment variable
``NUMBA_DISABLE_JIT`` is unset (or ``0``), the function is compiled with
``numba.njit(cache=True)``; otherwise it is returned unchanged, so a reader can step
through it in a debugger and the engine still runs where numba is missing.

``fastmath`` is never enabled: it lets the compiler reorder floating-point arithmetic, and
then two runs of the same scene on two machines need not agree bit for bit.

A compiled function takes a reference to each array it is given and drops it on return:
two atomic operations per array and call. In a helper called once per body, per contact point
or per tree level they cost more than the helper's arithmetic (a helper that sets one body's
origin from four arrays ran 24 times slower than the same lines written into its loop). A
kernel that allocates no array and returns none needs no reference of its own, since its
caller holds every array for the whole call; ``@njit(refcounted=False)`` compiles it without
them. numba enforces half of that rule (such a kernel cannot allocate), and
``tests/test_jit.py`` the other half (none returns an array or calls a kernel that does).

The same references are taken again at every call between two reference-counted kernels: a
kernel handed a hundred columns (the world's compiled step) spends longer taking and
dropping them than a small world's whole step takes. ``@njit(inline=True)`` has numba copy
such a kernel into its caller, where the caller's references serve.

numba's on-disk cache checks only the source file that defines a function, so a compiled
kernel that calls a kernel in another module would keep running the old callee after that
module changed (after a ``git pull``, say). physbook's functions are therefore cached under a
stamp of the whole package's source: change any module and every kernel recompiles once.
They are kept in a folder named for the stamp, in whichever directory numba would use
(``NUMBA_CACHE_DIR``, the module's ``__pycache__``, the user's cache), and the folders of
older stamps are deleted when a new one is first used, so that edits and upgrades do not
pile up compiled kernels.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TypeVar

F = TypeVar("F", bound=Callable)


def _numba_enabled() -> bool:
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return False
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


ENABLED: bool = _numba_enabled()
"""True when :func:`njit` compiles (numba present and not disabled)."""

if ENABLED:
    from numba import get_num_threads as thread_count
    from numba import prange
else:
    prange = range  #: a loop whose iterations numba may run on several threads

    def thread_count() -> int:
        """How many threads a parallel kernel runs on (numba's ``get_num_threads``)."""
        return 1

PACKAGE_DIR = Path(__file__).resolve().parent


@cache
def package_stamp() -> str:
    """A hash of every physbook source file: the cache key of all compiled kernels."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        digest.update(str(path.relative_to(PACKAGE_DIR)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_folder() -> str:
    """The folder, inside each of numba's cache directories, that holds the kernels
    compiled from this source of physbook: ``physbook-`` and the first 16 digits of
    :func:`package_stamp`."""
    return f"physbook-{package_stamp()[:16]}"


def remove_stale_caches(directory: Path) -> None:
    """Delete from ``directory`` (a cache directory of physbook's modules) the kernels of
    other sources of physbook: ``physbook-*`` folders other than :func:`cache_folder`, and
    numba files (``*.nbi``, ``*.nbc``) kept there before the folders existed.

    Without this every edit or upgrade would leave a full set of compiled kernels behind.
    A process still running an older source loses nothing it has loaded; it recompiles
    what it had not, into its own folder. Files that cannot be deleted are left.
    """
    keep = cache_folder()
    try:
        entries = list(directory.iterdir())
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith("physbook-") and entry.name != keep and entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        elif entry.suffix in (".nbi", ".nbc") and entry.is_file():
            with contextlib.suppress(OSError):
                entry.unlink()


_remove_stale_caches_once = cache(remove_stale_caches)  # a directory per process


def _package_locator(numba_locator: type) -> type:
    """``numba_locator`` (one of numba's cache locators) for physbook's own kernels: keyed
    on :func:`package_stamp`, stored in the :func:`cache_folder` of the directory numba
    would use, whose stale folders it removes the first time it is used."""

    class PackageCacheLocator(numba_locator):
        from_physbook = True

        def __init__(self, py_func, py_file):
            super().__init__(py_func, py_file)
            self._cache_path = os.path.join(self._cache_path, cache_folder())

        def get_source_stamp(self):
            return package_stamp()

        @classmethod
        def from_function(cls, py_func, py_file):
            if not Path(py_file).resolve().is_relative_to(PACKAGE_DIR):
                return None
            locator = super().from_function(py_func, py_file)
            if locator is not None:
                _remove_stale_caches_once(Path(locator.get_cache_path()).parent)
            return locator

    return PackageCacheLocator


def _install_package_cache_locator() -> None:
    """Make numba key the cache of physbook's kernels on :func:`package_stamp`, wherever
    it keeps them: the directory ``NUMBA_CACHE_DIR`` names, else the module's
    ``__pycache__``, else the user's cache directory (numba's order)."""
    from numba.core import caching

    locators = getattr(caching.CacheImpl, "_locator_classes", None)
    if locators is None:
        return  # an unknown numba layout: keep its own per-file cache
    if any(getattr(c, "from_physbook", False) for c in locators):
        return
    known = ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator")
    ours = [_package_locator(c) for c in locators if c.__name__.lstrip("_") in known]
    # Before all of numba's own, in numba's order: a physbook kernel takes the first of
    # them that can be written; any other function falls through to numba's.
    locators[:0] = ours


def njit(function: F | None = None, *, refcounted: bool = True, inline: bool = False,
         parallel: bool = False):
    """Compile ``function`` with ``numba.njit(cache=True)``, or return it unchanged.

    Use as a bare decorator, ``@njit``, or as ``@njit(refcounted=False)`` for a kernel that
    allocates no array and returns none, ``@njit(inline=True)`` for one numba should
    copy into each compiled caller (see the module docstring), or ``@njit(parallel=True)``
    for one whose :data:`prange` loops numba spreads over its threads. The compiled and the
    plain function take the same arguments and return the same results. A function numba
    cannot cache, because its source is in no file (``python -c``, an interactive ``python``
    prompt, ``exec``), is compiled without the on-disk cache instead of failing.
    """
    if function is None:
        return lambda function: _compiled(function, refcounted, inline, parallel)
    return _compiled(function, refcounted, inline, parallel)


def _compiled(function: F, refcounted: bool, inline: bool, parallel: bool) -> F:
    if not ENABLED:
        return function
    import numba

    _install_package_cache_locator()
    options = {} if refcounted else {"_nrt": False}
    if inline:
        options["inline"] = "always"
    if parallel:
        options["parallel"] = True
    try:
        return numba.njit(cache=True, **options)(function)
    except RuntimeError as error:
        if "cannot cache" not in str(error):
            raise
        return numba.njit(**options)(function)

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
stamp of the source that compiled code can read (every module that makes kernels, and every
module those import): change any of them and every kernel recompiles once. A module no
kernel can reach (the world's bookkeeping in Python, the drawing) is left out of the stamp,
so editing it recompiles nothing.
They are kept in a folder named for the stamp, in the first directory of these that can be
written: ``NUMBA_CACHE_DIR``, the module's ``__pycache__``, the user's cache (numba's order),
and last a private folder in the temporary directory, which numba would not use (a read-only
install run by a user without a writable home). A folder earlier in that order that cannot
be written but holds kernels of this source (an install warmed by a first run, then made
read-only) is read as well, where numba would skip it. The folders of older stamps are
deleted when a new one is first used, so that edits and upgrades do not pile up compiled
kernels. :mod:`physbook._kernel_cache` reads and writes the folders, checking every file.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import inspect
import os
import re
import shutil
import stat
import tempfile
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


def _module_path(name: str) -> Path | None:
    """The file of physbook module ``name`` (dotted), or None if it is not a module."""
    parts = name.split(".")[1:]
    path = PACKAGE_DIR.joinpath(*parts)
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


#: The start of a line that may begin an import statement: ``import a.b as c, d`` or
#: ``from a.b import x, y``, at any indentation (under a function, say).
_IMPORT_START = re.compile(rb"[ \t]*(?:from[ \t]+[\w.]+[ \t]+)?import[ \t(\\]")
#: The most lines an import statement is read over (a long parenthesised list of names).
_IMPORT_LINES = 64


def _import_statements(path: Path) -> list[ast.Import | ast.ImportFrom]:
    """The import statements of the module at ``path``, wherever they stand.

    Parsing every module whole took most of a second at each ``import physbook``, so only
    the lines that may start an import are parsed: each with as many of the lines after it
    as make a statement (a parenthesised list, a trailing backslash). A line of prose that
    parses as an import (in a docstring, say) counts too, which can only add to the stamp.
    """
    lines = path.read_bytes().splitlines()
    found = []
    for first, line in enumerate(lines):
        if not _IMPORT_START.match(line):
            continue
        statement = b""
        for following in lines[first:first + _IMPORT_LINES]:
            statement += following.strip() + b"\n"
            try:
                tree = ast.parse(statement)
            except (SyntaxError, ValueError):
                continue  # not a whole statement yet, or prose that starts like one
            found.extend(node for node in tree.body
                         if isinstance(node, (ast.Import, ast.ImportFrom)))
            break
    return found


def _physbook_imports(statements: list[ast.Import | ast.ImportFrom]) -> set[Path]:
    """The files of the physbook modules that a module's import ``statements`` import;
    ``from physbook.x import y`` counts ``physbook.x.y`` when it is a module, else
    ``physbook.x``."""
    found = set()
    for node in statements:
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif node.level == 0 and node.module:
            # The names imported, where they are modules; else the module they come from.
            names = [node.module if _module_path(f"{node.module}.{alias.name}") is None
                     else f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            if name == "physbook" or name.startswith("physbook."):
                module = _module_path(name)
                if module is not None:
                    found.add(module)
    return found


#: Modules that the makers of kernels import but compiled code never reads: the notice
#: printed while numba compiles. Editing them recompiles nothing.
OUTSIDE_THE_STAMP = ("compile_notice.py",)


def kernel_sources() -> list[Path]:
    """The source files compiled code can read: every physbook module that imports numba
    or :mod:`physbook._jit` (where kernels are made), and every physbook module those
    import, and so on, but for :data:`OUTSIDE_THE_STAMP`. A module outside them (the
    world's bookkeeping in Python, the drawing) changes no compiled kernel."""
    outside = {PACKAGE_DIR / name for name in OUTSIDE_THE_STAMP}
    files = sorted(path for path in PACKAGE_DIR.rglob("*.py") if path not in outside)
    statements = {path: _import_statements(path) for path in files}
    imports = {path: _physbook_imports(statements[path]) - outside for path in files}
    jit = PACKAGE_DIR / "_jit.py"
    pending = [path for path in files if path == jit or jit in imports[path]
               or _imports_numba(statements[path])]
    reached = set(pending)
    while pending:
        for module in imports.get(pending.pop(), ()):
            if module not in reached:
                reached.add(module)
                pending.append(module)
    return sorted(reached)


def _imports_numba(statements: list[ast.Import | ast.ImportFrom]) -> bool:
    """Whether a module's import ``statements`` import numba or a part of it."""
    return any(isinstance(node, ast.Import) and any(alias.name.split(".")[0] == "numba"
                                                    for alias in node.names)
               or isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0]
               == "numba" for node in statements)


@cache
def package_stamp() -> str:
    """A hash of the source files compiled code can read (:func:`kernel_sources`): the
    cache key of all compiled kernels."""
    digest = hashlib.sha256()
    for path in kernel_sources():
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


def private_temp_folder() -> str | None:
    """A folder of this user's own in the temporary directory, for numba's cache where no
    other directory can be written; ``None`` where there is none to be had.

    It is created readable by its owner only, and refused when it is a link, is owned by
    another user or may be written by others: anyone who can write a cached kernel chooses
    the code this process runs.
    """
    uid = os.getuid() if hasattr(os, "getuid") else None
    try:
        folder = os.path.join(tempfile.gettempdir(), "physbook-numba"
                              + ("" if uid is None else f"-{uid}"))
        with contextlib.suppress(FileExistsError):
            os.mkdir(folder, 0o700)
        status = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(status.st_mode):
        return None
    if uid is not None and (status.st_uid != uid or status.st_mode & 0o022):
        return None
    return folder


def _package_locator(numba_locator: type, applies: Callable[[], bool]) -> type:
    """``numba_locator`` (one of numba's cache locators) for physbook's own kernels: keyed
    on :func:`package_stamp`, stored in the :func:`cache_folder` of the directory numba
    would use, whose stale folders it removes the first time it is used. ``applies`` says
    whether the directory exists in this process at all (``NUMBA_CACHE_DIR`` set, say)."""

    class PackageCacheLocator(numba_locator):
        from_physbook = True

        def __init__(self, py_func, py_file):
            super().__init__(py_func, py_file)
            self._cache_path = os.path.join(self._cache_path, cache_folder())

        def get_source_stamp(self):
            return package_stamp()

        @classmethod
        def candidate(cls, py_func, py_file):
            """This locator for a physbook kernel, whether or not its folder can be
            written; ``None`` for any other function, or where the directory does not
            apply."""
            if not Path(py_file).resolve().is_relative_to(PACKAGE_DIR) or not applies():
                return None
            return cls(py_func, py_file)

        def writable(self) -> bool:
            """Create the folder if need be and say whether a file can be written in it
            (numba's test); the first time a directory can, remove its stale folders."""
            try:
                self.ensure_cache_path()
            except OSError:
                return False
            _remove_stale_caches_once(Path(self.get_cache_path()).parent)
            return True

        @classmethod
        def from_function(cls, py_func, py_file):
            locator = cls.candidate(py_func, py_file)
            return locator if locator is not None and locator.writable() else None

    return PackageCacheLocator


def _temp_locator(numba_locator: type) -> type:
    """``numba_locator`` (numba's user-wide locator) moved to :func:`private_temp_folder`."""

    class TempCacheLocator(numba_locator):
        def __init__(self, py_func, py_file):
            super().__init__(py_func, py_file)
            self._cache_path = os.path.join(private_temp_folder() or "",
                                            self.get_suitable_cache_subpath(py_file))

    return TempCacheLocator


@cache
def package_locators() -> tuple[type, ...]:
    """The cache locators of physbook's kernels, in the order their directories are tried:
    ``NUMBA_CACHE_DIR``, the module's ``__pycache__``, the user's cache, then
    :func:`private_temp_folder`. Empty on a numba without the locators this builds on."""
    from numba.core import caching, config

    def named(name: str) -> type | None:
        return getattr(caching, name, None) or getattr(caching, "_" + name, None)

    provided, in_tree, user_wide = (named(name) for name in (
        "UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator"))
    if None in (provided, in_tree, user_wide):
        return ()
    return (_package_locator(provided, lambda: bool(config.CACHE_DIR)),
            _package_locator(in_tree, lambda: True),
            _package_locator(user_wide, lambda: True),
            _package_locator(_temp_locator(user_wide),
                             lambda: private_temp_folder() is not None))


def kernel_cache_folders(py_func: Callable) -> tuple[list, list, object | None]:
    """The folders physbook's cache may use for the kernel ``py_func``, as numba locators:
    every one tried, in order; those before the first that can be written which already
    exist (to read from); and that first writable one (``None`` if none is)."""
    py_file = inspect.getfile(py_func)
    tried, readable = [], []
    for locator_class in package_locators():
        locator = locator_class.candidate(py_func, py_file)
        if locator is None:
            continue
        tried.append(locator)
        if locator.writable():
            return tried, readable, locator
        if os.path.isdir(locator.get_cache_path()):
            readable.append(locator)
    return tried, readable, None


def _install_package_cache_locator() -> None:
    """Make numba key the cache of physbook's kernels on :func:`package_stamp`, wherever
    it keeps them (:func:`package_locators`), for a kernel whose cache is numba's own
    (see :func:`_disk_cache`)."""
    from numba.core import caching

    locators = getattr(caching.CacheImpl, "_locator_classes", None)
    if locators is None:
        return  # an unknown numba layout: keep its own per-file cache
    if any(getattr(c, "from_physbook", False) for c in locators):
        return
    # Before all of numba's own, in numba's order: a physbook kernel takes the first of
    # them that can be written; any other function falls through to numba's.
    locators[:0] = package_locators()


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

    from physbook import compile_notice

    compile_notice.install()  # a compile of a minute is announced, not silent
    _install_package_cache_locator()
    options = {} if refcounted else {"_nrt": False}
    if inline:
        options["inline"] = "always"
    if parallel:
        options["parallel"] = True
    dispatcher = numba.njit(**options)(function)
    _disk_cache(dispatcher)
    return dispatcher


def _disk_cache(dispatcher) -> None:
    """Give ``dispatcher`` (a numba dispatcher, compiling nothing yet) its on-disk cache:
    :class:`physbook._kernel_cache.KernelCache` for physbook's own kernels, numba's cache
    otherwise and on a numba whose caching differs from what that class builds on, and
    none for a function whose source is in no file."""
    function = dispatcher.py_func
    kernel_cache = _package_kernel_cache()
    if kernel_cache is not None and hasattr(dispatcher, "_cache"):
        tried, readable, writable = kernel_cache_folders(function)
        if tried:
            dispatcher._cache = kernel_cache.KernelCache(function, tried, readable, writable)
            return
    try:
        dispatcher.enable_caching()  # what numba.njit(cache=True) does
    except RuntimeError as error:
        if "cannot cache" not in str(error):
            raise


@cache
def _package_kernel_cache():
    """:mod:`physbook._kernel_cache`, or ``None`` where it cannot serve: on a numba whose
    caching module lacks what it builds on, or where ``NUMBA_CACHE_LOCATOR_CLASSES``
    chooses the locators."""
    from numba.core import config

    if getattr(config, "CACHE_LOCATOR_CLASSES", None):
        return None
    try:
        from physbook import _kernel_cache
    except (ImportError, AttributeError):
        return None
    return _kernel_cache if _kernel_cache.SUPPORTED else None

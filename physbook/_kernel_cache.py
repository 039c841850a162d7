"""numba's on-disk cache of physbook's kernels, checked before it is trusted.

numba keeps a compiled function as a pickle of its machine code, and loading it unpickles and
links whatever the file holds. A cached file cut short (a full disk, a copy or a sync
interrupted) then fails every start with an ``EOFError`` or an ``UnpicklingError``, and a
few bytes changed inside one can crash the interpreter. Each file this module writes
therefore begins with a SHA-256 digest of the rest, and is handed to numba only when the
digest matches. A file that fails the check, or that numba then cannot load, is deleted
and its kernel compiled again and cached anew. The digest costs a hash of each file when a
kernel is loaded or saved (once per kernel and process), nothing at a call.

A kernel is looked up first in the folder its cache is written to, then in folders that
cannot be written but hold kernels of the same source (chosen by
:func:`physbook._jit.kernel_cache_folders`); with no folder to write to, it compiles in every
process.

Each of these events is told once per process, in one line on the ``physbook`` logger: a
damaged file dropped; nowhere to keep compiled kernels (and how to give them a place); a
kernel that could not be saved. A log line and not a warning: the calling code can do
nothing about a cache, and a warning turned into an error (``python -W error``, pytest's
``filterwarnings``) would make the repair itself fail the start. Without any logging set up,
Python prints the line as it is to standard error.
"""

from __future__ import annotations

import hashlib
import inspect
import io
import logging
import os
import pickle
import sys

import numba
from numba.core import caching

log = logging.getLogger("physbook")

#: The first bytes of every file written here: a pickled string, so that numba's own reader
#: (on a numba this module does not support) takes the file for another version's and
#: ignores it, as it does a stale cache, instead of failing.
HEADER = pickle.dumps(f"{numba.__version__} physbook-sha256", protocol=4)
_DIGEST_BYTES = 32

#: Whether this numba has every part of its caching module that this one builds on (the
#: same from numba 0.58 to 0.68); where it has not, physbook uses numba's cache unchecked.
SUPPORTED = all(
    callable(getattr(cls, name, None))
    for cls, names in (
        (caching.IndexDataCacheFile, ("_load_index", "_save_index", "_load_data",
                                      "_save_data", "_open_for_write", "_dump", "load",
                                      "save")),
        (caching.FunctionCache, ("_index_key", "load_overload", "save_overload",
                                 "_save_overload", "_guard_against_spurious_io_errors")),
        (caching.CompileResultCacheImpl, ("rebuild", "reduce", "check_cachable",
                                          "get_filename_base")),
    )
    for name in names
)

_told: set[str] = set()


def tell_once(topic: str, message: str, level: int = logging.WARNING) -> None:
    """Log ``message`` on the ``physbook`` logger, unless a message on ``topic`` was
    logged before in this process."""
    if topic not in _told:
        _told.add(topic)
        log.log(level, message)


class DamagedCacheFile(Exception):
    """A cache file whose bytes are not those that were written to it."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class _StringsOnly(pickle.Unpickler):
    """An unpickler that builds plain values only, to read a file's first pickle safely."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError("not a plain value")


def _of_another_version(raw: bytes) -> bool:
    """Whether ``raw`` starts as a cache file of another numba (a pickled version string)."""
    try:
        first = _StringsOnly(io.BytesIO(raw[:256])).load()
    except Exception:  # noqa: BLE001 (any failure means: not a version string)
        return False
    return isinstance(first, str)


class ChecksummedCacheFile(caching.IndexDataCacheFile):
    """numba's index and data files of one function, each written as :data:`HEADER`, the
    SHA-256 digest of the rest and numba's own bytes, and read only when the digest
    matches (:class:`DamagedCacheFile` when it does not)."""

    def _read(self, path: str) -> bytes | None:
        """numba's bytes in the file ``path``, checked; ``None`` if another numba wrote it."""
        with open(path, "rb") as file:
            raw = file.read()
        if not raw.startswith(HEADER):
            if _of_another_version(raw):
                return None
            reason = "empty" if not raw else "not a physbook cache file"
            raise DamagedCacheFile(path, reason)
        digest = raw[len(HEADER):len(HEADER) + _DIGEST_BYTES]
        body = raw[len(HEADER) + _DIGEST_BYTES:]
        if hashlib.sha256(body).digest() != digest:
            raise DamagedCacheFile(path, "its checksum does not match")
        return body

    def _write(self, path: str, body: bytes) -> None:
        with self._open_for_write(path) as file:
            file.write(HEADER + hashlib.sha256(body).digest() + body)

    def _load_index(self):
        try:
            body = self._read(self._index_path)
        except FileNotFoundError:
            return {}
        if body is None:
            return {}  # another numba's index: stale, as numba itself treats it
        stamp, overloads = pickle.loads(body)
        return overloads if stamp == self._source_stamp else {}

    def _save_index(self, overloads):
        self._write(self._index_path, self._dump((self._source_stamp, overloads)))

    def _load_data(self, name):
        path = self._data_path(name)
        body = self._read(path)
        if body is None:
            raise FileNotFoundError(path)  # numba's load takes it for a missing entry
        return pickle.loads(body)

    def _save_data(self, name, data):
        self._write(self._data_path(name), self._dump(data))


class _KernelCacheImpl(caching.CompileResultCacheImpl):
    """numba's serialisation of a compile result, for a locator chosen beforehand."""

    def __init__(self, py_func, locator):
        # What numba's CacheImpl.__init__ sets, without its own search for a locator.
        self._lineno = py_func.__code__.co_firstlineno
        self._locator = locator
        module = os.path.splitext(os.path.basename(inspect.getfile(py_func)))[0]
        self._filename_base = self.get_filename_base(f"{module}.{py_func.__qualname__}",
                                                     getattr(sys, "abiflags", ""))


class KernelCache(caching.FunctionCache):
    """numba's on-disk cache of one compiled function, through :class:`ChecksummedCacheFile`.

    Parameters
    ----------
    py_func : function
        The function numba compiles.
    tried : list
        numba cache locators of every folder physbook's cache could use for it, in order.
    readable : list
        Those of them that cannot be written but exist, to load from.
    writable : locator or None
        The one it is saved to, and loaded from first; ``None`` when none can be written.
    """

    def __init__(self, py_func, tried, readable, writable):
        # What numba's Cache.__init__ sets, for the folders given.
        self._name = repr(py_func)
        self._py_func = py_func
        self._tried = tried
        self._writable = writable
        self._impl = _KernelCacheImpl(py_func, writable or (readable or tried)[0])
        self._cache_path = self._impl.locator.get_cache_path()
        stamp = self._impl.locator.get_source_stamp()
        self._files = [
            ChecksummedCacheFile(locator.get_cache_path(), self._impl.filename_base, stamp)
            for locator in ([writable] if writable is not None else []) + readable
        ]
        self._cache_file = self._files[0] if writable is not None else None
        self.enable()

    def flush(self):
        if self._cache_file is not None:
            self._cache_file.flush()

    def _load_overload(self, sig, target_context):
        if not self._enabled:
            return None
        key = self._index_key(sig, target_context.codegen())
        for file in self._files:
            try:
                data = file.load(key)
                if data is not None:
                    return self._impl.rebuild(target_context, data)
            except OSError:
                continue  # a folder that cannot be read: nothing to load from it
            except Exception as error:  # noqa: BLE001 (a cache file must never fail a start)
                self._drop(file, error)
        if self._writable is None:
            folders = ", ".join(locator.get_cache_path() for locator in self._tried)
            tell_once("nowhere", (
                f"physbook: no folder for numba's cache can be written ({folders}), so "
                "physbook's kernels compile again in every process, a minute or more at "
                "a world's first step; set NUMBA_CACHE_DIR to a writable folder to keep "
                "them"))
        return None

    def _drop(self, file: ChecksummedCacheFile, error: Exception) -> None:
        """Delete the file behind ``error`` (the function's index when it is not known)
        so that the kernel compiles and is cached anew, and say so."""
        if isinstance(error, DamagedCacheFile):
            path, reason = error.path, error.reason
        else:
            path = file._index_path
            reason = f"numba could not load it: {type(error).__name__}: {error}"
        try:
            os.unlink(path)
            done = "deleted it"
        except FileNotFoundError:
            done = "deleted it"  # another process did, at the same time
        except OSError:
            done = "could not delete it"
        tell_once("damaged", (
            f"physbook: found a damaged file of numba's cache, {path} ({reason}), and {done}; "
            "its kernel compiles again and is cached anew"))

    def save_overload(self, sig, data):
        if self._writable is None:
            return
        try:
            super().save_overload(sig, data)
        except (OSError, DamagedCacheFile) as error:
            if isinstance(error, DamagedCacheFile):
                self._drop(self._cache_file, error)
            tell_once("unsaved", (
                f"physbook: could not save a compiled kernel in {self._cache_path} "
                f"({error}); it compiles again in the next process"))

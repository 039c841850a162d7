"""Chapter 16: a world saved to a file, which another process loads and steps on bit for bit.

A file holds one line of JSON, the header, then the world as ``pickle`` writes it (the
tables' arrays, the solver's and the tree's state, the settings; what ``pickle.dumps(world)``
holds). The header names the format and its version, so a file of another version is
refused with both versions named, and says what the file holds (bodies, step count, time)
without loading it (:func:`read_header`).

Loading unpickles with only the library's own classes, numpy's arrays and a few builtin
containers allowed: a file that names any other function or class is refused
(``ValueError``) before anything of it runs. That keeps a mistaken or damaged file from
running code, but a crafted file may still misuse the library's own classes: load files
you trust (your game's saves), as with any pickle.

The callbacks registered on the world are not saved (the attributes
:data:`physbook.snapshots.NOT_IN_SNAPSHOT` names, as a snapshot leaves them out): each
loads empty, and a game registers its callbacks again on the loaded world. :func:`save`
also takes a :class:`~physbook.snapshots.Snapshot`, and writes its world as it was then.
A world with a solver or broad phase of the program's own cannot be loaded from a file
(its class is not the library's); save those with ``pickle`` itself.
"""

from __future__ import annotations

import io
import json
import os
import pickle

from physbook.snapshots import Snapshot, callbacks_of, snapshot
from physbook.world import World

#: What the header's ``format`` says.
FORMAT = "physbook-world"

#: The version of the file layout this library writes and reads.
FORMAT_VERSION = 1

#: The longest header line read (bytes).
_HEADER_LIMIT = 4096

#: Globals a file may name besides the library's own: numpy's arrays and dtypes, and the
#: builtin containers pickle names.
_ALLOWED = {
    "numpy": {"ndarray", "dtype"},
    "numpy.core.multiarray": {"_reconstruct", "scalar"},
    "numpy._core.multiarray": {"_reconstruct", "scalar"},
    "numpy.core.numeric": {"_frombuffer"},
    "numpy._core.numeric": {"_frombuffer"},
    "copyreg": {"_reconstructor"},
    "builtins": {"set", "frozenset", "complex", "slice", "range", "object", "bytearray",
                 "list", "dict", "tuple"},
    "collections": {"OrderedDict"},
}

#: What a world's callbacks load as, by the type of the container that held them.
_EMPTY = {"list": list, "dict": dict, "set": set}


class _WorldPickler(pickle.Pickler):
    """Pickles a world without its callbacks: each container of them is written as a
    marker that loads as an empty one of its type (None for anything else)."""

    def __init__(self, file, callbacks: list):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._callbacks = {id(value) for value in callbacks if value is not None}

    def persistent_id(self, obj):
        if id(obj) in self._callbacks:
            return ("callbacks", type(obj).__name__)
        return None


class _WorldUnpickler(pickle.Unpickler):
    """Unpickles a world, allowing only the library's classes and numpy's arrays."""

    def find_class(self, module: str, name: str):
        if module == "physbook" or module.startswith("physbook.") or name in _ALLOWED.get(
                module, ()):
            return super().find_class(module, name)
        raise ValueError(f"the file names {module}.{name}, which is neither the library's "
                         "nor numpy's: it was not written by physbook's save, or holds a "
                         "solver or broad phase of a program's own (load those with "
                         "pickle, from files you trust)")

    def persistent_load(self, pid):
        if isinstance(pid, tuple) and len(pid) == 2 and pid[0] == "callbacks":
            empty = _EMPTY.get(pid[1])
            return None if empty is None else empty()
        raise ValueError(f"the file refers to an unknown object {pid!r}")


def _header(world) -> dict:
    return {"format": FORMAT, "version": FORMAT_VERSION, "bodies": world.count,
            "joints": len(world.joints), "step_count": world.step_count, "time": world.time}


def world_bytes(world) -> bytes:
    """The bytes :func:`save` writes for ``world`` (a World or a Snapshot)."""
    if isinstance(world, Snapshot):
        now = snapshot(world.world)  # the world as it is, put back after
        world.restore()
        try:
            return world_bytes(world.world)
        finally:
            now.restore()
    if not isinstance(world, World):
        raise TypeError(f"world must be a World or a Snapshot, got {type(world).__name__}")
    if world._log.in_callback():
        raise RuntimeError("save() was called from a contact callback; save the world "
                           "after the step and its callbacks return")
    buffer = io.BytesIO()
    buffer.write(json.dumps(_header(world)).encode() + b"\n")
    _WorldPickler(buffer, callbacks_of(world)).dump(world)
    return buffer.getvalue()


def save(world, path: str | os.PathLike) -> None:
    """Write ``world`` to the file ``path`` (see the module docstring): :func:`load_world`
    there or in another process gives a world that steps on bit for bit as this one. Given
    a :class:`~physbook.snapshots.Snapshot`, write its world as the snapshot holds it (the
    world itself is left as it is). The file is written whole or not at all (a temporary
    file renamed)."""
    data = world_bytes(world)
    path = os.fspath(path)
    temporary = f"{path}.partial"
    with open(temporary, "wb") as file:
        file.write(data)
    os.replace(temporary, path)


def _split(data: bytes, source: str) -> tuple[dict, bytes]:
    end = data.find(b"\n", 0, _HEADER_LIMIT)
    try:
        header = json.loads(data[:end]) if end > 0 else None
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ValueError(f"{source} is not a physbook world file (its first line must be a "
                         f"JSON header with format {FORMAT!r})")
    version = header.get("version")
    if version != FORMAT_VERSION:
        raise ValueError(f"{source} is a physbook world file of format version {version}; "
                         f"this physbook reads version {FORMAT_VERSION} only")
    return header, data[end + 1:]


def read_header(path: str | os.PathLike) -> dict:
    """The header of the world file ``path``: format, version, bodies, joints, step count
    and time (s). Raises ``ValueError`` for a file of another format or version."""
    with open(path, "rb") as file:
        start = file.read(_HEADER_LIMIT)
    return _split(start, os.fspath(path))[0]


def world_from_bytes(data: bytes, source: str = "the data"):
    """The world in ``data`` (bytes :func:`world_bytes` made)."""
    _, payload = _split(data, source)
    try:
        world = _WorldUnpickler(io.BytesIO(payload)).load()
    except (pickle.UnpicklingError, EOFError) as error:
        raise ValueError(f"{source} is damaged: {error}") from None
    if not isinstance(world, World):
        raise ValueError(f"{source} holds a {type(world).__name__}, not a World")
    return world


def load_world(path: str | os.PathLike):
    """The :class:`~physbook.world.World` saved in the file ``path`` by :func:`save`.

    Raises ``ValueError`` for a file of another format or version (naming both versions),
    a damaged file, or one naming classes other than the library's and numpy's. Load
    files you trust (see the module docstring).
    """
    with open(path, "rb") as file:
        data = file.read()
    return world_from_bytes(data, os.fspath(path))

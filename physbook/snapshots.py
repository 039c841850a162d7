"""Chapter 16: snapshots of a world, to rewind it, and save files, to continue it elsewhere.

A step is a function of the world's state alone: the same arrays, scalars and settings give
the same next state bit for bit. So a world can be rewound (rollback netcode re-simulates
the last frames with a late input) by putting its state back, and continued in another
process by loading its state there.

What the state is, is found rather than listed: :func:`snapshot` walks the objects a world
holds (its tables, step driver, broad-phase tree, sleep, event log, solver, queries, the
joints), as ``pickle`` would, and keeps

- a copy of every array, one per block of memory (a view's data is its base's);
- a shallow copy of every object's attributes and of every list, dict and set, which keeps
  the very objects they referred to (the tables' column arrays among them).

:func:`restore` puts each attribute, list, dict and set back as it was, then copies each
saved array back into the array it came from. Objects and arrays that a later change
replaced (a table that grew, a solver's new work arrays) come back along with the
references to them, so the world is again exactly the world of the snapshot, bodies and
joints included. When nothing was added or removed in between, restoring copies the
arrays back in place and touches no Python object per body.

Not part of a snapshot: immutable values (shapes, materials, filters, numbers), which are
kept by reference; the solver's work arrays, which nothing reads across a step (an object's
attributes that its ``__getstate__`` leaves out, as ``pickle`` does); and the contact
callbacks a game registered (the attributes in :data:`NOT_IN_SNAPSHOT`, or in a class's
``_NOT_IN_SNAPSHOT``): a restored world keeps the callbacks it has now.

Handles stay valid: a :class:`~physbook.dynamics.body.Body` the snapshot's world had works
after a restore even if its body was removed in between; a body added after the snapshot
reads ``alive == False`` (its methods raise ``LookupError``), and its id, which a later body
may get, never makes that handle alive again. A joint added after the snapshot leaves the
world (``joint.world is None``, keeping its settings); one removed in between is back.
Shape ids handed out after the snapshot are handed out again, as the snapshot's world would.
One case is left: a body of the snapshot removed after it, whose id a new body then took,
comes back with its old generation; should it be removed again later, the next body given
that id has the new body's generation, and the new body's stale handle would name it.

A snapshot lives in memory; :func:`physbook.world_files.save` writes the world as a
snapshot holds it to a file, which any process loads.
"""

from __future__ import annotations

import itertools
import types

import numpy as np

from physbook.dynamics.body import Body
from physbook.dynamics.materials import Material
from physbook.geometry.shape_filter import Filter
from physbook.geometry.shapes import AABB, Immutable, MassData

#: Attributes, by class name, that a snapshot leaves out (and a restore leaves as they are):
#: the functions a game registered, which belong to the program, not to the world's state.
NOT_IN_SNAPSHOT: dict[str, tuple[str, ...]] = {
    "EventLog": ("_handlers",),
    "ContactHooks": ("_pre_solve",),
}

#: Types whose instances hold no state that changes: kept by reference, never walked.
_VALUE_TYPES = (type(None), bool, int, float, complex, str, bytes, np.generic, range, slice,
                Body, Immutable, Material, Filter, AABB, MassData, type, types.FunctionType,
                types.BuiltinFunctionType, types.MethodType, types.ModuleType)


#: Whether each type met so far holds values only (see :func:`_is_value_type`).
_VALUE_KINDS: dict[type, bool] = {}


def _is_value_type(kind: type) -> bool:
    """Whether instances of ``kind`` are kept by reference: values
    (:data:`_VALUE_TYPES`), or numba's (a type, or a compiled structure whose fields are
    arrays the walk finds elsewhere)."""
    known = _VALUE_KINDS.get(kind)
    if known is None:
        known = _VALUE_KINDS[kind] = (
            issubclass(kind, _VALUE_TYPES) or kind.__module__.startswith("numba")
            or any(base.__name__ == "StructRefProxy" for base in kind.__mro__))
    return known


def _is_value(item) -> bool:
    return _is_value_type(type(item))


def _values_only(items) -> bool:
    """Whether every item of ``items`` (a list or tuple) is a value or a tuple of values,
    judged by type in C-speed passes: a table's per-body lists (shapes, materials,
    handles) are not walked item by item."""
    kinds = set(map(type, items))
    has_tuples = tuple in kinds
    kinds.discard(tuple)
    if not all(map(_is_value_type, kinds)):
        return False
    if has_tuples:  # tuples beside other items are looked at one by one
        return not kinds and all(map(_is_value_type, set(map(
            type, itertools.chain.from_iterable(items)))))
    return True


def _owner(array: np.ndarray) -> np.ndarray:
    """The array that owns ``array``'s memory (itself unless it is a view)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def _declared(item) -> tuple[str, ...]:
    """The attributes of ``item`` declared not part of a snapshot (the callbacks)."""
    return (*NOT_IN_SNAPSHOT.get(type(item).__name__, ()),
            *getattr(type(item), "_NOT_IN_SNAPSHOT", ()))


def callbacks_of(world) -> list:
    """The values of ``world``'s attributes that hold callbacks (:data:`NOT_IN_SNAPSHOT`),
    which neither a snapshot nor a save file holds."""
    walk = _Walk()
    walk.visit(world)
    return walk.callbacks


def _parts(item) -> tuple[frozenset, frozenset]:
    """The attribute names of ``item`` a snapshot leaves out, and those it keeps by
    reference without looking inside (caches: what ``pickle`` resets)."""
    left_out = set(_declared(item))
    cached: set = set()
    getstate = getattr(type(item), "__getstate__", None)
    if getstate is not None and getstate is not object.__getstate__:
        # What pickle leaves out holds nothing read across a step (work arrays). What it
        # resets (to None) is a cache of views and handles on arrays found elsewhere: kept
        # as it is, since it views the very arrays a restore copies back.
        state = item.__getstate__()
        attributes = item.__dict__
        left_out.update(set(attributes) - set(state))
        cached.update(name for name, value in state.items()
                      if name in attributes and attributes[name] is not value)
    return frozenset(left_out), frozenset(cached)


class _Walk:
    """The objects a world holds, found once: what a :class:`Snapshot` copies."""

    def __init__(self):
        self.seen: set[int] = set()
        self.arrays: dict[int, np.ndarray] = {}
        self.objects: list[tuple[object, dict, frozenset]] = []
        self.lists: list[tuple[list, tuple]] = []
        self.dicts: list[tuple[dict, dict]] = []
        self.sets: list[tuple[set, frozenset]] = []
        self.callbacks: list = []  # the values of the attributes NOT_IN_SNAPSHOT names

    def visit(self, item) -> None:
        if isinstance(item, np.ndarray):
            owner = _owner(item)
            self.arrays.setdefault(id(owner), owner)
            return
        if _is_value(item) or id(item) in self.seen:
            return
        self.seen.add(id(item))
        if isinstance(item, tuple):
            if not _values_only(item):
                for part in item:
                    self.visit(part)
        elif isinstance(item, list):
            self.lists.append((item, tuple(item)))
            if not _values_only(item):
                for part in item:
                    self.visit(part)
        elif isinstance(item, dict):
            self.dicts.append((item, dict(item)))
            for part in item.values():
                self.visit(part)
        elif isinstance(item, (set, frozenset)):
            if isinstance(item, set):
                self.sets.append((item, frozenset(item)))
        elif hasattr(item, "__dict__"):
            left_out, cached = _parts(item)
            self.callbacks.extend(item.__dict__[name] for name in _declared(item)
                                  if name in item.__dict__)
            kept = {name: value for name, value in item.__dict__.items()
                    if name not in left_out}
            self.objects.append((item, kept, left_out))
            for name, value in kept.items():
                if name not in cached:
                    self.visit(value)
        elif hasattr(type(item), "__slots__"):
            raise TypeError(f"a snapshot cannot hold a {type(item).__name__} (an object with "
                            "__slots__ that is not a known value)")


class Snapshot:
    """The state of a world at one moment (see the module docstring); :func:`restore` puts
    it back. Made by :func:`snapshot`; its copies are read-only and never change, so one
    snapshot can be restored any number of times.

    Attributes
    ----------
    step_count, time
        The world's step count and simulated time (s) when it was taken.
    nbytes
        Bytes of array data it holds.
    """

    def __init__(self, world, walk: _Walk):
        self._world = world
        arrays = list(walk.arrays.values())
        copies = [array.copy() for array in arrays]
        for copied in copies:
            copied.flags.writeable = False
        self._arrays = tuple(zip(arrays, copies, strict=True))
        self._objects = tuple(walk.objects)
        self._lists, self._dicts, self._sets = (tuple(walk.lists), tuple(walk.dicts),
                                                tuple(walk.sets))
        bodies = world._bodies
        self._live_slots = bodies._slot_of_row[: bodies.count].copy()
        self._joints = frozenset(map(id, world._joints.handles))
        self.step_count = world.step_count
        self.time = world.time
        self.nbytes = sum(copied.nbytes for copied in copies)

    @property
    def world(self):
        """The world the snapshot was taken of (the only one it restores)."""
        return self._world

    def __repr__(self) -> str:
        return (f"Snapshot(step_count={self.step_count}, time={self.time:g}, "
                f"bodies={len(self._live_slots)}, nbytes={self.nbytes})")

    def restore_into(self, world) -> None:
        """Put this state back into ``world`` (see :func:`restore`)."""
        if world is not self._world:
            raise ValueError("snapshot was taken of another world; restore it into the "
                             "world it was taken of (save and load_world carry a world to "
                             "another process)")
        _refuse_in_callback(world, "restore")
        bodies = world._bodies
        generations_now = bodies._generations.copy()
        live_now = bodies._slot_of_row[: bodies.count].copy()
        self._detach_new_joints(world)
        for item, kept, left_out in self._objects:
            attributes = item.__dict__
            if left_out:
                kept = {**kept, **{name: attributes[name] for name in left_out
                                   if name in attributes}}
            attributes.clear()
            attributes.update(kept)
        for items, saved in self._lists:
            items[:] = saved
        for mapping, saved in self._dicts:
            mapping.clear()
            mapping.update(saved)
        for items, saved in self._sets:
            items.clear()
            items.update(saved)
        for array, saved in self._arrays:
            if not array.flags.writeable:
                array.flags.writeable = True
                np.copyto(array, saved)
                array.flags.writeable = False
            else:
                np.copyto(array, saved)
        if not np.array_equal(live_now, self._live_slots) or not np.array_equal(
                generations_now[: len(bodies._generations)], bodies._generations):
            _retire_new_handles(bodies, generations_now, live_now)

    def restore(self) -> None:
        """Put the world this snapshot was taken of back in its state (:func:`restore`)."""
        self.restore_into(self._world)

    def _detach_new_joints(self, world) -> None:
        """Joints added since the snapshot leave the world, keeping their settings."""
        table = world._joints
        for joint in table.handles:
            if id(joint) not in self._joints:
                joint._leave(joint._settings(table))


def _retire_new_handles(bodies, generations_now: np.ndarray, live_now: np.ndarray) -> None:
    """After a restore, make every handle of a body that is not in the restored table stale
    for good: each id that a body holds now and did not hold at the snapshot moves to its
    next generation, and no id goes back to a generation already handed out."""
    if len(generations_now) > bodies.capacity:
        bodies.reserve(len(generations_now))  # ids beyond the snapshot's rows keep theirs
    generations = bodies._generations
    seen = generations_now.copy()
    seen[live_now] += 1  # handles of bodies alive now hold their generation: skip it
    top = np.maximum(generations[: len(seen)], seen)
    live_restored = bodies._slot_of_row[: bodies.count]
    top[live_restored[live_restored < len(top)]] = generations[
        live_restored[live_restored < len(top)]]
    generations[: len(top)] = top


def _refuse_in_callback(world, what: str) -> None:
    if world._log.in_callback():
        raise RuntimeError(f"{what}() was called from a contact callback; call it after "
                           "the step and its callbacks return")


def _is_world(value) -> bool:
    """Whether ``value`` is a :class:`~physbook.world.World` (or of a subclass), known by
    its class: ``World.snapshot`` calls this module, which therefore does not import it."""
    return any(kind.__module__ == "physbook.world" and kind.__name__ == "World"
               for kind in type(value).__mro__)


def snapshot(world) -> Snapshot:
    """The state of ``world`` now, for :func:`restore` (see the module docstring).

    It costs a copy of the world's arrays and a walk over the objects it holds (not over
    its bodies one by one).
    """
    if not _is_world(world):
        raise TypeError(f"world must be a physbook World, got {type(world).__name__}")
    _refuse_in_callback(world, "snapshot")
    walk = _Walk()
    walk.visit(world)
    return Snapshot(world, walk)


def restore(world, snapshot: Snapshot) -> None:
    """Put ``world`` back in the state ``snapshot`` (a :class:`Snapshot` of it) holds: stepping
    on gives the same states, bit for bit, as the world gave after the snapshot.

    Bodies and joints added since leave the world, those removed come back; handles stay
    valid (see the module docstring). The callbacks registered on the world are not part
    of a snapshot: those registered now stay. Raises ``ValueError`` for a snapshot of
    another world, ``RuntimeError`` inside a contact callback.
    """
    if not isinstance(snapshot, Snapshot):
        raise TypeError(f"snapshot must be a Snapshot (from snapshot(world)), got "
                        f"{type(snapshot).__name__}")
    snapshot.restore_into(world)


"""Chapter 16: changing contacts before the solver sees them — rules per pair of categories,
compiled into the step, and pre-solve callbacks in Python for everything else.

Between the narrow phase and the solver a game may want a say in a contact: let a player
through the platform he jumps up into, make ice slippery for one kind of boot only, make a
belt carry crates. The common cases need no code of the game's at all:

- a shape's own surface (``one_way``, ``surface_velocity``, its material) covers one-way
  platforms, conveyors and per-shape friction;
- a **rule** (:meth:`ContactHooks.add_rule`) sets, for every contact between a shape of one
  category and a shape of another, whether it acts and its friction, restitution and
  tangent speed. Rules are a small table the compiled step applies per contact, so they
  cost nothing a game would notice, and the step stays one compiled call.

For anything else a **pre-solve callback** (:meth:`ContactHooks.add_pre_solve`) gets each
contact of its categories, every step, as a :class:`PreSolveContact` it may change. That
puts Python between the narrow phase and the solver, so a world with one runs its stages
one by one (``World.step`` without the single compiled call): some tens of microseconds more
per step, and a call per matching contact.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from physbook import _check
from physbook.dynamics.contact_surface import (
    CONTACT_DISABLED,
    RULE_DISABLE,
    RULE_FRICTION,
    RULE_RESTITUTION,
    RULE_TANGENT_SPEED,
    RULE_WIDTH,
    ContactRules,
)


class ContactRule(NamedTuple):
    """A rule for the contacts between shapes of ``category_a`` and ``category_b``
    (bitmasks): ``enabled`` False turns them off; ``friction``, ``restitution`` and
    ``tangent_speed`` (m/s), when not None, replace the mixed values."""

    category_a: int
    category_b: int
    enabled: bool
    friction: float | None
    restitution: float | None
    tangent_speed: float | None


class PreSolveHandler(NamedTuple):
    """A pre-solve registration: the categories and the function to call."""

    category_a: int
    category_b: int
    function: Callable


def handler_order(category_a: int, category_b: int, handler) -> bool | None:
    """How a pair of shapes of categories ``category_a`` and ``category_b`` meets
    ``handler``'s categories: False in that order, True swapped (b is the handler's first),
    None if it is not the handler's pair."""
    if category_a & handler.category_a and category_b & handler.category_b:
        return False
    if category_b & handler.category_a and category_a & handler.category_b:
        return True
    return None


class PreSolveContact:
    """One contact as a pre-solve callback sees it, shapes in the order of the callback's
    categories: read ``shape_a``, ``shape_b`` (ids), ``body_a``, ``body_b`` (handles),
    ``normal`` (unit, from shape a to shape b), ``points`` (K, 2) (m) and ``depths`` (K,)
    (m, positive when overlapping); read or set ``enabled`` (False: the bodies pass through
    each other this step), ``friction``, ``restitution`` and ``tangent_speed`` (m/s: the
    speed at which friction makes b's surface slide along a's, positive counter-clockwise
    about a). What is set holds for this step only."""

    __slots__ = ("_columns", "_row", "_flipped", "shape_a", "shape_b", "body_a", "body_b")

    def __init__(self, columns, row: int, flipped: bool, body_a, body_b):
        self._columns, self._row, self._flipped = columns, row, flipped
        ids = columns.shape_ids[row]
        self.shape_a, self.shape_b = (int(ids[1]), int(ids[0])) if flipped else (
            int(ids[0]), int(ids[1]))
        self.body_a, self.body_b = body_a, body_b

    @property
    def normal(self) -> np.ndarray:
        normal = self._columns.normals[self._row].copy()
        return -normal if self._flipped else normal

    @property
    def points(self) -> np.ndarray:
        return self._columns.points[self._row, :self._columns.point_counts[self._row]].copy()

    @property
    def depths(self) -> np.ndarray:
        return self._columns.depths[self._row, :self._columns.point_counts[self._row]].copy()

    @property
    def enabled(self) -> bool:
        return not self._columns.flags[self._row] & CONTACT_DISABLED

    @enabled.setter
    def enabled(self, value) -> None:
        flags = self._columns.flags
        if _check.flag(value, "enabled"):
            flags[self._row] &= ~CONTACT_DISABLED
        else:
            flags[self._row] |= CONTACT_DISABLED

    @property
    def friction(self) -> float:
        return float(self._columns.frictions[self._row])

    @friction.setter
    def friction(self, value) -> None:
        self._columns.frictions[self._row] = _check.non_negative_scalar(value, "friction")

    @property
    def restitution(self) -> float:
        return float(self._columns.restitutions[self._row])

    @restitution.setter
    def restitution(self, value) -> None:
        self._columns.restitutions[self._row] = _restitution(value)

    @property
    def tangent_speed(self) -> float:
        # The tangential velocity of B relative to A does not change when A and B swap.
        return float(self._columns.tangent_speeds[self._row])

    @tangent_speed.setter
    def tangent_speed(self, value) -> None:
        self._columns.tangent_speeds[self._row] = _check.finite_scalar(value, "tangent_speed")

    def __repr__(self) -> str:
        return (f"PreSolveContact(shape_a={self.shape_a}, shape_b={self.shape_b}, "
                f"enabled={self.enabled})")


def _restitution(value) -> float:
    value = _check.non_negative_scalar(value, "restitution")
    if value > 1.0:
        raise ValueError(f"restitution must be in [0, 1], got {value}")
    return value


def _optional(value, name: str, check) -> float | None:
    return None if value is None else check(value, name)


class ContactHooks:
    """A world's contact rules and pre-solve callbacks (see the module docstring)."""

    def __init__(self) -> None:
        self._rules: list[ContactRule] = []
        self._pre_solve: list[PreSolveHandler] = []
        self._table = (np.zeros((0, 2), np.int64), np.zeros((0, RULE_WIDTH)))
        self.running = False  # a pre-solve callback is running: the world refuses changes

    def add_rule(self, category_a: int, category_b: int, *, enabled: bool = True,
                 friction: float | None = None, restitution: float | None = None,
                 tangent_speed: float | None = None) -> ContactRule:
        """Add a rule (:class:`ContactRule`, checked) and return it."""
        rule = ContactRule(
            _check.bitmask(category_a, "category_a"), _check.bitmask(category_b, "category_b"),
            _check.flag(enabled, "enabled"),
            _optional(friction, "friction", _check.non_negative_scalar),
            None if restitution is None else _restitution(restitution),
            _optional(tangent_speed, "tangent_speed", _check.finite_scalar))
        if rule[2:] == (True, None, None, None):
            raise ValueError("give enabled=False, friction, restitution or tangent_speed: a "
                             "rule with none changes nothing")
        self._rules.append(rule)
        self._rebuild()
        return rule

    def add_pre_solve(self, category_a: int, category_b: int,
                      function: Callable) -> PreSolveHandler:
        """Register ``function(contact)`` for the contacts of the two categories."""
        if not callable(function):
            raise TypeError("function must be callable")
        handler = PreSolveHandler(_check.bitmask(category_a, "category_a"),
                                  _check.bitmask(category_b, "category_b"), function)
        self._pre_solve.append(handler)
        return handler

    def remove(self, handle) -> bool:
        """Forget the rule or pre-solve registration ``handle``; whether it was one."""
        for registry in (self._rules, self._pre_solve):
            for i, registered in enumerate(registry):
                if registered is handle:
                    del registry[i]
                    self._rebuild()
                    return True
        return False

    @property
    def pre_solving(self) -> bool:
        """Whether a pre-solve callback is registered (the step then runs stage by stage)."""
        return bool(self._pre_solve)

    @property
    def masks(self) -> np.ndarray:
        """The rules' category pairs (R, 2), a new array whenever a rule is added or
        removed: what the world compares to see that the rules changed."""
        return self._table[0]

    def rules(self, categories: np.ndarray) -> ContactRules:
        """The rules as the compiled step reads them, for shapes of ``categories`` (S,)."""
        masks, values = self._table
        return ContactRules(categories, masks, values)

    def _rebuild(self) -> None:
        """The rules as arrays: new arrays, so that the world sees the change."""
        masks = np.array([[r.category_a, r.category_b] for r in self._rules],
                         np.int64).reshape(-1, 2)
        values = np.full((len(self._rules), RULE_WIDTH), math.nan)
        for i, rule in enumerate(self._rules):
            values[i, RULE_DISABLE] = 0.0 if rule.enabled else 1.0
            for column, value in ((RULE_FRICTION, rule.friction),
                                  (RULE_RESTITUTION, rule.restitution),
                                  (RULE_TANGENT_SPEED, rule.tangent_speed)):
                if value is not None:
                    values[i, column] = value
        self._table = (masks, values)

    def run_pre_solve(self, columns, categories: np.ndarray, shape_ids: np.ndarray,
                      shape_bodies: np.ndarray, handle: Callable) -> None:
        """Call the pre-solve callbacks for the contact rows ``columns`` (writable), the
        shapes' ``categories`` and ``shape_bodies`` (S,) by row, their ``shape_ids`` (S,,
        sorted), and ``handle(row)`` the handle of a body row. An exception in a callback
        propagates: the step is undone."""
        handlers = list(self._pre_solve)
        rows = np.searchsorted(shape_ids, columns.shape_ids)
        self.running = True
        try:
            self._call(handlers, columns, rows, categories, shape_bodies, handle)
        finally:
            self.running = False

    @staticmethod
    def _call(handlers, columns, rows, categories, shape_bodies, handle) -> None:
        for m in range(len(columns.point_counts)):
            row_a, row_b = int(rows[m, 0]), int(rows[m, 1])
            category_a, category_b = int(categories[row_a]), int(categories[row_b])
            for handler in handlers:
                flipped = handler_order(category_a, category_b, handler)
                if flipped is None:
                    continue
                body_a, body_b = handle(int(shape_bodies[row_a])), handle(
                    int(shape_bodies[row_b]))
                handler.function(PreSolveContact(columns, m, flipped, *(
                    (body_b, body_a) if flipped else (body_a, body_b))))

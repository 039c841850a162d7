"""Chapter 16: a contact's surface — its friction, restitution and tangent speed, whether it
acts at all this step — worked out from its two shapes' surfaces and the world's rules.

**Mixing.** A contact's friction and restitution are those of its two shapes' surfaces,
mixed by chapter 4's rules (:func:`~physbook.dynamics.materials.pair_friction`,
:func:`~physbook.dynamics.materials.pair_restitution`).

**Tangent speed.** Each shape's surface may move along itself at its surface velocity u
(a conveyor belt's, given in body coordinates and turned with the body). Friction makes two
surfaces move together: the relative velocity of the bodies at the contact, along the
tangent t = (−n_y, n_x), is driven not to 0 but to

    v_t* = (u_A − u_B)·t,

the contact's *tangent speed*: then (v_B + u_B) − (v_A + u_A) has no tangential part, the
surfaces do not slide over each other, and a box on a belt moving at u rides at u. Swapping
A and B reverses both n (so t) and the difference, so v_t* does not depend on the order.

**One-way shapes.** A shape with a one-way side d stops only what comes at it from that
side. Its contact acts when the normal from the one-way shape towards the other body leans
within :data:`ONE_WAY_COSINE` of d; otherwise the other body is *passing* through, and
stays so, its contact off, for as long as the two still overlap. That memory is what keeps a
body that jumped half way through a platform from being pushed up through the rest of it,
or back down, when the normal it meets there happens to point up: it entered from below, so
it may only leave. Once they no longer overlap, the next contact decides afresh, and a body
now above lands on the platform.

**Rules.** A world may also hold rules per pair of categories (:class:`ContactRules`): turn
the contact off for this step, or set its friction, restitution or tangent speed.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from physbook._jit import njit
from physbook.dynamics.materials import pair_friction, pair_restitution
from physbook.geometry.surface import (
    FRICTION,
    ONE_WAY_X,
    RESTITUTION,
    VELOCITY_X,
)

#: Bits of a contact row's ``flags``: off this step (the solver and the events skip it).
CONTACT_DISABLED = 1
#: Bits of a contact row's ``flags``: a body passing through a one-way shape (kept from step
#: to step while the pair overlaps).
CONTACT_PASSING = 2

#: A one-way shape's contact acts when its normal, from the one-way shape to the other,
#: leans at most 60° from the one-way side: cos 60° = 0.5. A body landing on a platform
#: meets it along the side itself (cosine 1); one coming from below or the side meets it
#: at 90° or more. A round body's contact with the platform's top corner leans in between,
#: and within 60° it acts, so that a capsule walking into the edge at its feet steps up.
ONE_WAY_COSINE = 0.5

#: Columns of a rule's values: whether it turns the contact off (1) or leaves it (0), then
#: the friction, restitution and tangent speed it sets (NaN: left as mixed).
RULE_DISABLE, RULE_FRICTION, RULE_RESTITUTION, RULE_TANGENT_SPEED = range(4)
RULE_WIDTH = 4


class ContactRules(NamedTuple):
    """The rules a world applies to its contacts each step, compiled: for rule r, the
    shapes' categories ``masks[r]`` = (category bits of one shape, of the other), and its
    ``values[r]`` (:data:`RULE_WIDTH` floats: off, friction, restitution, tangent speed;
    NaN for a value the rule leaves). ``categories`` (S,) is each shape's category."""

    categories: np.ndarray
    masks: np.ndarray
    values: np.ndarray


def no_rules(categories: np.ndarray) -> ContactRules:
    """:class:`ContactRules` with no rule, for the shapes' ``categories``."""
    return ContactRules(categories, np.zeros((0, 2), np.int64), np.zeros((0, RULE_WIDTH)))


@njit(refcounted=False, inline=True)
def world_vector(surface, s, x, angle):
    """Columns x, x + 1 of shape s's surface row, a vector in body coordinates, turned
    into the world by its body's ``angle`` (rad); zero stays zero, with no cosine taken
    (most shapes have no surface velocity and no one-way side)."""
    ux, uy = surface[s, x], surface[s, x + 1]
    if ux == 0.0 and uy == 0.0:
        return 0.0, 0.0
    cosine, sine = math.cos(angle), math.sin(angle)
    return cosine * ux - sine * uy, sine * ux + cosine * uy


@njit(refcounted=False, inline=True)
def faces_away(surface, s, angle, nx, ny):
    """Whether shape s is one-way and the normal (nx, ny), from s to the other shape,
    leans more than 60° from its one-way side (turned by its body's ``angle``): the other
    body comes from a side it lets through."""
    dx, dy = world_vector(surface, s, ONE_WAY_X, angle)
    if dx == 0.0 and dy == 0.0:
        return False
    return dx * nx + dy * ny < ONE_WAY_COSINE


@njit(refcounted=False, inline=True)
def contact_surface(surface, a, b, angle_a, angle_b, nx, ny, overlapping, passing_before):
    """The surface of a contact between shapes a and b (rows of ``surface``, their bodies
    at angles ``angle_a``, ``angle_b``) with normal (nx, ny) from a to b: returns
    (friction, restitution, tangent speed (m/s), flags). ``overlapping`` says a point of
    the contact overlaps; ``passing_before`` that the pair was passing last step."""
    friction = pair_friction(surface[a, FRICTION], surface[b, FRICTION])
    restitution = pair_restitution(surface[a, RESTITUTION], surface[b, RESTITUTION])
    uax, uay = world_vector(surface, a, VELOCITY_X, angle_a)
    ubx, uby = world_vector(surface, b, VELOCITY_X, angle_b)
    # v_t* = (u_A − u_B)·t, t = (−n_y, n_x)
    tangent_speed = (uax - ubx) * -ny + (uay - uby) * nx
    flags = 0
    if (passing_before and overlapping) or faces_away(surface, a, angle_a, nx, ny) \
            or faces_away(surface, b, angle_b, -nx, -ny):
        flags = CONTACT_DISABLED | CONTACT_PASSING
    return friction, restitution, tangent_speed, flags


@njit(refcounted=False)
def apply_rules(rules, shape_a, shape_b, frictions, restitutions, tangent_speeds, flags,
                row):
    """Apply the world's ``rules`` (:class:`ContactRules`) to contact ``row`` between the
    shapes at rows ``shape_a`` and ``shape_b``: each rule whose categories match the two
    shapes, in either order, in the order the rules were made (a later rule's value wins)."""
    masks, values = rules.masks, rules.values
    category_a, category_b = rules.categories[shape_a], rules.categories[shape_b]
    for r in range(masks.shape[0]):
        if not (((category_a & masks[r, 0]) != 0 and (category_b & masks[r, 1]) != 0)
                or ((category_b & masks[r, 0]) != 0 and (category_a & masks[r, 1]) != 0)):
            continue
        if values[r, RULE_DISABLE] != 0.0:
            flags[row] |= CONTACT_DISABLED
        if not math.isnan(values[r, RULE_FRICTION]):
            frictions[row] = values[r, RULE_FRICTION]
        if not math.isnan(values[r, RULE_RESTITUTION]):
            restitutions[row] = values[r, RULE_RESTITUTION]
        if not math.isnan(values[r, RULE_TANGENT_SPEED]):
            tangent_speeds[row] = values[r, RULE_TANGENT_SPEED]

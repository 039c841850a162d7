"""Chapter 10's scenes: things that must stand, and overlaps that must come apart.

Each scene function fills a :class:`~physbook.world.World` (a new one unless one is given)
and returns a :class:`~physbook.scenes.base.Scene`, on a static floor whose top is y = 0,
with dt = 1/60 s and gravity (0, −10). The card house, the arch, the mass-ratio pyramids
and the overlap recovery follow the samples of the same names in Box2D v3 (their sizes,
friction and densities).
"""

from __future__ import annotations

import math

import numpy as np

from physbook import _check
from physbook.geometry.shapes import Polygon
from physbook.scenes.base import Scene, new_world, scene_size, static_box, uniform_material
from physbook.scenes.standard import pyramid
from physbook.world import World


def vertical_stack(count: int = 10, world: World | None = None, *,
                   friction: float = 0.3) -> Scene:
    """``count`` unit boxes in one column on the floor, exactly touching, at rest.

    Box i (from 0 at the bottom) stands at (0, 0.5 + i); pair friction ``friction``, no
    restitution; 600 steps. Judge it with :func:`~physbook.scenes.quality.structure_quality`.
    """
    world = new_world(world)
    count = scene_size(count, "count")
    friction = _check.non_negative_scalar(friction, "friction")
    material = uniform_material(friction=friction, restitution=0.0)
    ground = static_box(world, 20.0, 0.5, (0.0, -0.5), material)
    box = Polygon.box(0.5, 0.5)
    boxes = [world.add_body(box, position=(0.0, 0.5 + i), material=material)
             for i in range(count)]
    return Scene("vertical-stack", world, 600, bodies={"ground": ground, "boxes": boxes},
                 params={"count": count, "friction": friction, "restitution": 0.0})


def large_pyramid(world: World | None = None) -> Scene:
    """:func:`~physbook.scenes.standard.pyramid` with 100 boxes in its base: 5 050 boxes,
    run for 500 steps. Judge it with :func:`~physbook.scenes.quality.pyramid_quality`."""
    scene = pyramid(100, world)
    scene.name = "large-pyramid"
    return scene


def card_house(levels: int = 5, world: World | None = None) -> Scene:
    """A house of playing cards ``levels`` storeys high, friction 0.7.

    A card is 0.002 m thick and 0.4 m tall. Each storey is a row of tents, two cards
    leaning 25° on each other, with a flat card across each pair of neighbouring tents;
    every storey has one tent fewer than the one below. 600 steps. Judge it with
    :func:`~physbook.scenes.quality.structure_quality`.
    """
    world = new_world(world)
    levels = scene_size(levels, "levels", lambda size: 3 * size * (size + 1) // 2 - size)
    material = uniform_material(friction=0.7, restitution=0.0)
    ground = static_box(world, 40.0, 2.0, (0.0, -2.0), material)
    half_height, lean, step = 0.2, math.radians(25.0), 0.175
    card = Polygon.box(0.001, half_height)
    cards = []
    y, first = half_height - 0.02, 0.0
    for tents in range(levels, 0, -1):
        x = first
        for tent in range(tents):
            if tent != tents - 1:
                cards.append(world.add_body(card, position=(x + 0.25,
                                                            y + half_height - 0.015),
                                            angle=0.5 * math.pi, material=material))
            cards.append(world.add_body(card, position=(x, y), angle=-lean,
                                        material=material))
            x += step
            cards.append(world.add_body(card, position=(x, y), angle=lean,
                                        material=material))
            x += step
        y += 2.0 * half_height - 0.03
        first += step
    return Scene("card-house", world, 600, bodies={"ground": ground, "cards": cards},
                 params={"levels": levels, "friction": 0.7, "restitution": 0.0})


#: The inner and outer outlines of the right half of the arch, from the floor to the
#: keystone (m, before scaling by 1/4): Box2D v3's "Arch" sample.
ARCH_INNER = np.array([
    [16.0, 0.0], [14.93803712795643, 5.133601056842984], [13.79871746027416, 10.24928069555078],
    [12.56252963284711, 15.34107019122473], [11.20040987372525, 20.39856541571217],
    [9.66521217819836, 25.40369899225096], [7.87179930638133, 30.3179337000085],
    [5.635199558196225, 35.03820717801641], [2.405937953536585, 39.09554102558315]])
ARCH_OUTER = np.array([
    [24.0, 0.0], [22.33619528222415, 6.02299846205841], [20.54936888969905, 12.00964361211476],
    [18.60854610798073, 17.9470321677465], [16.46769273811807, 23.81367936585418],
    [14.05325025774858, 29.57079353071012], [11.23551045834022, 35.13775818285372],
    [7.752568160730571, 40.30450679009583], [3.016931552701656, 44.28891593799322]])


def arch(world: World | None = None, *, friction: float = 0.6) -> Scene:
    """An arch of 17 stones without mortar, four slabs on its crown; pair friction 0.6.

    Each side is eight stones between :data:`ARCH_INNER` and :data:`ARCH_OUTER` (scaled by
    1/4, so the arch spans 12 m and stands 11 m high), the keystone closes it, and four
    slabs 4 × 1 m lie on top. It stands only if friction holds every joint; 600 steps.
    Judge it with :func:`~physbook.scenes.quality.structure_quality`.
    """
    world = new_world(world)
    friction = _check.non_negative_scalar(friction, "friction")
    material = uniform_material(friction=friction, restitution=0.0)
    ground = static_box(world, 100.0, 0.5, (0.0, -0.5), material)
    inner, outer = 0.25 * ARCH_INNER, 0.25 * ARCH_OUTER
    mirror = np.array([-1.0, 1.0])
    stones = []
    for side in (np.array([1.0, 1.0]), mirror):
        for i in range(8):
            outline = np.array([inner[i], outer[i], outer[i + 1], inner[i + 1]]) * side
            stones.append(world.add_body(Polygon(outline), material=material))
    keystone = np.array([inner[8], outer[8], outer[8] * mirror, inner[8] * mirror])
    stones.append(world.add_body(Polygon(keystone), material=material))
    slab = Polygon.box(2.0, 0.5)
    slabs = [world.add_body(slab, position=(0.0, 0.5 + outer[8, 1] + i), material=material)
             for i in range(4)]
    return Scene("arch", world, 600, bodies={"ground": ground, "stones": stones,
                                            "slabs": slabs},
                 params={"friction": friction, "restitution": 0.0})


def high_mass_ratio(world: World | None = None, *,
                    densities=(100.0, 200.0, 300.0)) -> Scene:
    """Three pyramids of 2 m boxes, 10 in the base, each crowned by a box 100, 200 and 300
    times denser than the rest, dropped from 2 m above its place; friction 0.6, 600 steps.

    A heavy body on light ones is what iterative solvers find hardest: the light boxes
    must carry a load a hundred times their weight. Judge each pyramid with
    :func:`~physbook.scenes.quality.structure_quality`.
    """
    world = new_world(world)
    densities = _check.finite_array(densities, "densities")
    if densities.ndim != 1 or not 1 <= len(densities) <= 3:
        raise ValueError(f"densities must hold 1 to 3 values, one per pyramid (the ground "
                         f"holds three), got shape {densities.shape}")
    densities = [_check.positive_scalar(d, f"densities[{i}]") for i, d in enumerate(densities)]
    light = uniform_material(friction=0.6, restitution=0.0)
    ground = static_box(world, 50.0, 1.0, (0.0, -1.0), light)
    box = Polygon.box(1.0, 1.0)
    bodies = {"ground": ground}
    for j, density in enumerate(densities):
        heavy = uniform_material(friction=0.6, restitution=0.0, density=density)
        offset = -20.0 + 22.0 * j
        pyramid_boxes = []
        for row, count in enumerate(range(10, 0, -1)):
            y = 1.0 + 2.0 * row + (2.0 if count == 1 else 0.0)
            for i in range(count):
                pyramid_boxes.append(world.add_body(
                    box, position=(2.0 * (i - 0.5 * count) + offset, y),
                    material=heavy if count == 1 else light))
        bodies[f"pyramid_{j}"] = pyramid_boxes
    return Scene("high-mass-ratio", world, 600, bodies=bodies,
                 params={"densities": tuple(densities), "friction": 0.6,
                         "restitution": 0.0})


def overlap_recovery(base: int = 4, world: World | None = None, *,
                     overlap: float = 0.25) -> Scene:
    """A pyramid of unit boxes, ``base`` in the bottom row, spawned overlapping their
    neighbours by ``overlap`` of their size; 120 steps.

    The boxes' centres are spaced 1 − ``overlap`` apart, across and up, the bottom row
    resting on the floor, so the solver starts with every contact between boxes deep; it
    must push them apart without launching any. Judge it with
    :func:`~physbook.scenes.quality.recovery_quality`.
    """
    world = new_world(world)
    base = scene_size(base, "base", lambda size: size * (size + 1) // 2)
    overlap = _check.non_negative_scalar(overlap, "overlap")
    if overlap >= 0.5:
        raise ValueError(f"overlap must be below 0.5 (half a box), got {overlap}")
    material = uniform_material(friction=0.6, restitution=0.0)
    ground = static_box(world, 40.0, 0.5, (0.0, -0.5), material)
    box = Polygon.box(0.5, 0.5)
    spacing = 1.0 - overlap
    boxes = []
    for row in range(base):
        for column in range(base - row):
            x = spacing * (0.5 * (row - base) + column)
            boxes.append(world.add_body(box, position=(x, 0.5 + spacing * row),
                                        material=material))
    return Scene("overlap-recovery", world, 120, bodies={"ground": ground, "boxes": boxes},
                 params={"base": base, "overlap": overlap, "friction": 0.6,
                         "restitution": 0.0})


def box_cluster(count: int = 100, world: World | None = None) -> Scene:
    """``count`` unit boxes created at the same place, resting on the floor; 120 steps.

    Every box overlaps every other completely: the hardest overlap to recover from, since
    contact normals between coincident boxes have no preferred direction. Judge it with
    :func:`~physbook.scenes.quality.recovery_quality`.
    """
    world = new_world(world)
    count = scene_size(count, "count")
    material = uniform_material(friction=0.6, restitution=0.0)
    ground = static_box(world, 40.0, 0.5, (0.0, -0.5), material)
    box = Polygon.box(0.5, 0.5)
    boxes = [world.add_body(box, position=(0.0, 0.5), material=material)
             for _ in range(count)]
    return Scene(f"box-cluster-{count}", world, 120, bodies={"ground": ground, "boxes": boxes},
                 params={"count": count, "friction": 0.6, "restitution": 0.0})

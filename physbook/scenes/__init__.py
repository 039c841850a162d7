"""The standard scenes shared by the book, the tests and the benchmarks, and their measures.

- :mod:`~physbook.scenes.base`: the :class:`Scene` record, materials given per pair;
- :mod:`~physbook.scenes.standard`: chapter 9's bounce, ramp, pyramid, rain and boxes;
- :mod:`~physbook.scenes.stacking`: chapter 10's stacks, card house, arch, mass ratios and
  overlaps;
- :mod:`~physbook.scenes.linked`: chapter 11's jointed scenes: pendulum, Newton's cradle,
  chain, bridge, ragdoll and car;
- :mod:`~physbook.scenes.box_fields`: chapter 12's fields of boxes for the broad phases;
- :mod:`~physbook.scenes.fast`: chapter 13's fast bodies and thin walls;
- :mod:`~physbook.scenes.pressed`: chapter 10's light boxes pressed against heavy moving
  bodies: a tumbler, a platform and a vice;
- :mod:`~physbook.scenes.terrain`: chapter 15's floors of tiles and chains, a chain slope,
  a capsule character and a marble run;
- :mod:`~physbook.scenes.platformer`: chapter 16's platformer: one-way platform, conveyor,
  moving platform and coins, played from a recorded input;
- :mod:`~physbook.scenes.quality`: pure functions of recorded states that say how well a
  scene went, for physbook and for the engines it is compared with.

Every scene function and measure is also a name of this package: ``pb.scenes.pyramid(20)``.
"""

from __future__ import annotations

from collections.abc import Callable

from physbook.scenes import (
    base,
    box_fields,
    fast,
    linked,
    platformer,
    pressed,
    quality,
    stacking,
    standard,
    terrain,
)
from physbook.scenes.base import DT, Scene, per_body_value, uniform_material
from physbook.scenes.box_fields import DISTRIBUTIONS, box_field, free_filters, moving_boxes
from physbook.scenes.fast import bullets, shot_at_wall, spinning_rod
from physbook.scenes.linked import bridge, car, chain, cradle, energy, pendulum, pin_gap, ragdoll
from physbook.scenes.platformer import RECORDED_INPUT, Platformer
from physbook.scenes.platformer import platformer as platformer_scene
from physbook.scenes.pressed import platform, tumbler, vice
from physbook.scenes.quality import (
    apex_heights,
    bounce_apexes,
    container_quality,
    deepest_sink,
    glide_quality,
    placed,
    polygon_depths,
    pyramid_quality,
    ramp_accelerations,
    ramp_motion,
    recovery_quality,
    run_quality,
    sink_quality,
    structure_quality,
)
from physbook.scenes.stacking import (
    arch,
    box_cluster,
    card_house,
    high_mass_ratio,
    large_pyramid,
    overlap_recovery,
    vertical_stack,
)
from physbook.scenes.standard import (
    RAMP_FRICTIONS,
    bounce,
    boxes,
    pyramid,
    rain,
    rain_positions,
    ramp,
)
from physbook.scenes.terrain import (
    FLOORS,
    GLIDERS,
    capsule_character,
    chain_slope,
    marble_run,
    tile_floor,
)

#: The scene functions by name.
SCENES: dict[str, Callable[..., Scene]] = {
    "bounce": bounce, "ramp": ramp, "pyramid": pyramid, "rain": rain, "boxes": boxes,
    "vertical_stack": vertical_stack, "large_pyramid": large_pyramid,
    "card_house": card_house, "arch": arch, "high_mass_ratio": high_mass_ratio,
    "overlap_recovery": overlap_recovery, "box_cluster": box_cluster,
    "pendulum": pendulum, "cradle": cradle, "chain": chain, "bridge": bridge,
    "ragdoll": ragdoll, "car": car,
    "shot_at_wall": shot_at_wall, "spinning_rod": spinning_rod, "bullets": bullets,
    "tumbler": tumbler, "platform": platform, "vice": vice,
    "tile_floor": tile_floor, "chain_slope": chain_slope,
    "capsule_character": capsule_character, "marble_run": marble_run,
    "platformer": platformer_scene,
}

__all__ = [
    "DT", "RAMP_FRICTIONS", "SCENES", "Scene", "apex_heights", "arch", "base", "bounce",
    "bounce_apexes", "box_cluster", "boxes", "bridge", "car", "card_house", "chain",
    "container_quality", "cradle", "energy", "high_mass_ratio", "large_pyramid", "linked",
    "overlap_recovery", "pendulum", "per_body_value", "pin_gap", "pyramid", "ragdoll",
    "pyramid_quality", "quality", "rain", "rain_positions", "ramp", "ramp_accelerations",
    "ramp_motion", "recovery_quality", "stacking", "standard", "structure_quality",
    "uniform_material",
    "vertical_stack",
    # chapter 12's box fields
    "DISTRIBUTIONS", "box_field", "box_fields", "free_filters", "moving_boxes",
    # chapter 13's fast bodies
    "bullets", "fast", "shot_at_wall", "spinning_rod",
    # light boxes pressed against heavy moving bodies
    "deepest_sink", "placed", "platform", "polygon_depths", "pressed", "sink_quality",
    "tumbler",
    "vice",
    # chapter 15's terrain
    "FLOORS", "GLIDERS", "capsule_character", "chain_slope", "glide_quality", "marble_run",
    "run_quality", "terrain", "tile_floor",
    # chapter 16's platformer
    "Platformer", "RECORDED_INPUT", "platformer", "platformer_scene",
]

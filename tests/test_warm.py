"""``python -m physbook.warm``: what it steps beside the scenes, and its argument checked.
(Its scenes are stepped by CI's warm-up, tools/warm_kernels.py, which calls it.)"""

from __future__ import annotations

import pytest

import physbook as pb
from physbook import warm


def test_a_pipeline_that_does_not_exist_is_refused_by_name():
    with pytest.raises(ValueError, match="pipeline must be one of"):
        warm.warm("fast", report=lambda line: None)


def test_playing_with_a_world_drags_senses_and_queries_and_leaves_no_joint():
    scene = pb.scenes.pyramid(3)
    world = scene.world
    before = world.count
    play_with_steps = 4
    warm.play_with(world, scene.dt, play_with_steps)
    assert world.count == before + 3  # the dragged ball, the sensor, the character (kinematic)
    assert world.joints == [] and world.step_count == play_with_steps
    assert world.shapes.sensor_count == 1

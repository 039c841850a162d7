"""Chapter 16's platformer: the recorded run collects every coin, and plays back bit for
bit, from the start and from a snapshot."""

from __future__ import annotations

import numpy as np
import pytest

import physbook as pb
from physbook.scenes.platformer import COINS, JUMP_SPEED, ONE_WAY_PLATFORM


def test_the_recorded_run_collects_every_coin_in_order():
    game = pb.scenes.Platformer()
    coin_ids = [coin.id for coin in game.scene.bodies["coins"]]
    path = game.play()
    # The coins lie left to right but for the first, to the left of the start.
    order = np.argsort([x if x > 0 else -np.inf for x, _ in COINS])
    assert game.collected == [coin_ids[k] for k in order]
    # It ends standing on the lift at its top (centre 0.6 m above the lift's top, 3.4 m).
    assert path[-1, 1] == pytest.approx(3.4 + 0.6, abs=0.01)


def test_the_character_jumps_through_the_one_way_platform_and_stands_on_it():
    game = pb.scenes.Platformer()
    path = game.play(steps=300)  # the jump at step 196, then the walk off its right end
    (x, y), (hw, hh) = ONE_WAY_PLATFORM
    # Free flight from the floor (centre 0.6 m up): 0.6 + v²/(2g), through the platform.
    assert path[:, 1].max() == pytest.approx(0.6 + JUMP_SPEED**2 / 20.0, abs=0.02)
    # It lands on the top and walks along it, never sinking in, until it reaches the end.
    top, apex = y + hh + 0.6, int(np.argmax(path[:, 1]))
    landed = apex + int(np.argmax((np.abs(path[apex:, 1] - top) < 0.01)
                                  & (np.abs(path[apex:, 0] - x) < hw)))
    left = landed + int(np.argmax(path[landed:, 0] > x + hw))
    assert landed > 0 and left - landed >= 5
    assert np.all(np.abs(path[landed:left, 1] - top) < 0.01)


def test_a_replay_and_a_rewound_replay_give_the_same_states_bit_for_bit():
    first, second = pb.scenes.Platformer(), pb.scenes.Platformer()
    path = first.play()
    snapshot_at = 600
    second.play(steps=snapshot_at)
    saved, collected = second.world.snapshot(), list(second.collected)
    rest = second.play(steps=100)
    # The world's snapshot holds the world; what the game keeps (its score) it saves itself.
    saved.restore()
    second.collected = collected
    again = second.play(steps=660)
    assert rest.tobytes() == again[:100].tobytes()
    assert path[snapshot_at:].tobytes() == again.tobytes()
    assert first.collected == second.collected

"""Chapter 17's games: inputs act at steps and replay bit for bit; each slingshot level's
recorded solution clears it; the drag, the launch, the break speed, the stars and the turns
do what the chapter derives; the keyboard platformer plays chapter 16's recorded run."""

from __future__ import annotations

import math

import numpy as np
import pytest

import physbook as pb
from physbook.games import PlatformGame, Slingshot, key_log
from physbook.games.game import checked_event, checked_log
from physbook.games.slingshot import (
    ANCHOR,
    BOUNDS,
    BREAK_SPEED,
    LAUNCH_GAIN,
    LEVELS,
    MAX_PULL,
    SOLID,
    STAR_POINTS,
    TARGET_POINTS,
    Level,
)
from physbook.games.solutions import SOLUTION_STEPS, SOLUTIONS
from physbook.scenes.platformer import COINS, Platformer

GRAVITY = -10.0


def state(game) -> bytes:
    """Every body column of the game's world, and its contacts' impulses, as bytes."""
    world = game.world
    columns = [np.ascontiguousarray(column).tobytes() for column in world.bodies.arrays]
    contacts = world.contacts
    return b"".join([*columns, np.ascontiguousarray(contacts.normal_impulses).tobytes()])


def drag(game, pull, *, moves: int = 12, hold: int = 20) -> None:
    """A player's drag, live: down on the projectile, the pointer moved to ``pull`` from
    the anchor in ``moves`` steps, two or none of the moves between two steps, held, then
    let go."""
    x, y = ANCHOR
    game.handle({"type": "down", "x": x, "y": y})
    game.step()
    for k in range(1, moves + 1):
        game.handle({"type": "move", "x": x + pull[0] * k / moves, "y": y + pull[1] * k / moves})
        if k % 3:  # two moves arrive between some steps, none between others
            game.step()
    for _ in range(hold):
        game.step()
    game.handle({"type": "up", "x": x + pull[0], "y": y + pull[1]})


def until_waiting(game, limit: int = 2000) -> int:
    """Step until a projectile waits at the sling; the steps taken."""
    for k in range(limit):
        if game.waiting or game.over:
            return k
        game.step()
    raise AssertionError("no projectile came to the sling")


# --- inputs and replays -------------------------------------------------------------------

@pytest.mark.parametrize("event, message", [
    ([], "must be a dict"),
    ({"type": "click", "x": 0, "y": 0}, "event\\['type'\\] must be one of"),
    ({"type": "down", "x": 0}, "must have 'y'"),
    ({"type": "move", "x": math.nan, "y": 0}, "must be finite"),
    ({"type": "keydown", "key": ""}, "non-empty string"),
    ({"type": "keyup", "key": 3}, "non-empty string"),
])
def test_a_bad_event_is_refused_naming_the_field(event, message):
    with pytest.raises((TypeError, ValueError), match=message):
        checked_event(event)
    with pytest.raises((TypeError, ValueError), match=message):
        Slingshot().handle(event)


@pytest.mark.parametrize("arguments, error, message", [
    (("", 3, print), TypeError, "name"),
    (("mine", 0, print), ValueError, "shots"),
    (("mine", 2.5, print), TypeError, "shots"),
    (("mine", 3, "build"), TypeError, "build"),
])
def test_a_level_of_ones_own_is_checked(arguments, error, message):
    with pytest.raises(error, match=message):
        Level(*arguments)
    with pytest.raises(ValueError, match="level"):
        Slingshot(len(LEVELS))


def test_a_log_must_be_pairs_in_step_order():
    with pytest.raises(ValueError, match="must not decrease"):
        checked_log([(5, {"type": "keydown", "key": "2"}), (4, {"type": "keyup", "key": "2"})])
    with pytest.raises(TypeError, match="pair"):
        checked_log([(5,)])
    with pytest.raises(TypeError, match="sequence"):
        Slingshot(replay="up")
    assert checked_log([(3, {"type": "up", "x": 1, "y": 2, "extra": 0})]) == (
        (3, {"type": "up", "x": 1.0, "y": 2.0}),)


@pytest.mark.parametrize("level", range(len(LEVELS)))
def test_a_replay_of_the_log_equals_the_live_game_bit_for_bit(level):
    """A live game (inputs arriving between steps, several or none at a time, keys pressed
    at any moment) and a replay of its log give the same states at every step."""
    live = Slingshot(level)
    states = [state(live)]

    def step():
        Slingshot.step(live)
        states.append(state(live))

    live.step = step
    until_waiting(live)
    live.handle({"type": "keydown", "key": "3"})
    live.handle({"type": "keyup", "key": "3"})
    drag(live, (-1.8, -0.9))
    for _ in range(90):
        live.step()
    live.handle({"type": "keydown", "key": "2"})  # in flight: logged, and ignored
    until_waiting(live)
    drag(live, (-1.9, -0.2), moves=5)
    for _ in range(60):
        live.step()
    assert live.log and live.steps == len(states) - 1
    replay = Slingshot(level, replay=live.log)
    assert state(replay) == states[0]
    for k in range(live.steps):
        replay.step()
        assert state(replay) == states[k + 1], f"step {k + 1}"
    assert (replay.score, replay.log) == (live.score, live.log)


def test_a_replaying_game_ignores_live_input_and_reset_starts_it_again():
    log = SOLUTIONS[0]
    game = Slingshot(0, replay=log)
    game.run(200)
    game.handle({"type": "keydown", "key": "3"})
    game.run(100)
    first = state(game), game.score
    game.reset()
    assert game.steps == 0 and game.log == []
    game.run(300)
    assert (state(game), game.score) == first
    assert game.log == [entry for entry in log if entry[0] < 300]


# --- the levels' recorded solutions ---------------------------------------------------------

@pytest.mark.parametrize("level", range(len(LEVELS)))
def test_each_level_recorded_solution_clears_it_and_leaves_it_at_rest(level):
    game = Slingshot(level, replay=SOLUTIONS[level])
    targets, stars = len(game.targets), len(game.stars)
    game.run(SOLUTION_STEPS[level])
    assert game.over and game.targets == []
    assert game.broken == targets
    stars_taken = stars - len(game.stars)
    assert game.score == TARGET_POINTS * targets + STAR_POINTS * stars_taken
    # More than one turn: the solution plays a turn's end and the next projectile.
    assert sum(entry[1]["type"] == "up" for entry in SOLUTIONS[level]) >= 2
    world = game.world
    assert world.sleep.awake_count == 0
    centres = world.bodies.centers
    left, bottom, right, top = BOUNDS
    assert np.isfinite(centres).all()
    assert ((centres[:, 0] > left) & (centres[:, 0] < right) & (centres[:, 1] > bottom)
            & (centres[:, 1] < top)).all()
    # Nothing rests sunk into anything: the deepest contact is within a centimetre.
    contacts = world.contacts
    depths = [contacts.depths[row, :count].max() for row, count in
              enumerate(contacts.point_counts) if count]
    assert max(depths) < 0.01


# --- the drag, the launch, the breaks, the stars, the turns -----------------------------------

def test_the_drag_holds_the_projectile_at_the_pointer_within_the_pull_and_launches_it():
    game = Slingshot(0)
    until_waiting(game)
    x, y = ANCHOR
    game.handle({"type": "down", "x": x + 0.2, "y": y + 0.1})
    game.step()
    assert game.drag is not None
    far = np.array([x - 5.0, y - 1.0])  # beyond the pull: held on the circle of MAX_PULL
    game.handle({"type": "move", "x": far[0], "y": far[1]})
    game.run(120)
    held = np.array(ANCHOR) + MAX_PULL * (far - ANCHOR) / np.linalg.norm(far - ANCHOR)
    body = game.projectile
    # The mouse joint's critically damped spring (10 Hz) leaves e^(-2π·10·2 s) of the pull.
    assert np.linalg.norm(body.center_of_mass - held) < 1e-9
    centre = body.center_of_mass.copy()
    game.handle({"type": "up", "x": far[0], "y": far[1]})
    game.step()
    # v = k·(anchor − position), then one free step of gravity (semi-implicit Euler).
    expected = LAUNCH_GAIN * (np.array(ANCHOR) - centre) + np.array([0.0, GRAVITY]) * game.dt
    np.testing.assert_allclose(body.velocity, expected, rtol=0, atol=1e-12)
    assert body.bullet and game.shots_left == LEVELS[0].shots - 1


def test_a_pointer_down_away_from_the_projectile_grabs_nothing():
    game = Slingshot(0)
    until_waiting(game)
    game.handle({"type": "down", "x": ANCHOR[0] + 1.0, "y": ANCHOR[1]})
    game.handle({"type": "up", "x": ANCHOR[0] - 1.0, "y": ANCHOR[1]})
    game.run(30)
    assert game.drag is None and game.waiting and game.shots_left == LEVELS[0].shots


@pytest.mark.parametrize("speed, breaks", [(0.85 * BREAK_SPEED, False),
                                           (1.15 * BREAK_SPEED, True)])
def test_a_target_breaks_only_when_hit_faster_than_the_break_speed(speed, breaks):
    """A block thrown down at ``speed`` onto the high ledge's target from half a step's
    travel above it: the hit's approach speed is ``speed``."""
    game = Slingshot(0)
    target = max(game.targets, key=lambda body: body.center_of_mass[1])
    top = target.center_of_mass + (0.0, 0.35)
    gap = 0.5 * speed * game.dt
    game.world.add_body(pb.Polygon.box(0.2, 0.2), position=top + (0.0, gap + 0.2),
                        velocity=(0.0, -speed), filter=pb.Filter(SOLID))
    count, score = len(game.targets), game.score
    game.run(10)
    assert target.alive is not breaks
    assert (len(game.targets), game.score) == ((count - 1, score + TARGET_POINTS) if breaks
                                                else (count, score))


def test_a_star_scores_once_when_the_projectile_passes_through_it():
    game = Slingshot(0)
    until_waiting(game)
    star = game.stars[0]
    body = game.projectile
    body.position = star.center_of_mass - (1.0, 0.0)
    body.gravity_scale = 1.0
    body.velocity = (10.0, 0.0)
    game.run(20)
    assert not star.alive and game.score == STAR_POINTS and game.stars == []


@pytest.mark.parametrize("key, kind", [("1", pb.Circle), ("2", pb.Polygon), ("3", pb.Capsule)])
def test_keys_choose_the_projectile_while_it_waits_and_only_then(key, kind):
    game = Slingshot(0)
    until_waiting(game)
    game.handle({"type": "keydown", "key": key})
    game.step()
    assert isinstance(game.projectile.shapes[0], kind)
    assert game.status().endswith(f"{game.choice and pb.games.slingshot.PROJECTILES[key][0]}"
                                  " (keys 1 2 3)")
    drag(game, (-1.5, -0.5))
    game.step()
    chosen = game.projectile
    game.handle({"type": "keydown", "key": "1" if key != "1" else "2"})  # in flight
    game.step()
    assert game.projectile is chosen and isinstance(chosen.shapes[0], kind)


def test_a_turn_ends_the_step_the_world_falls_asleep():
    game = Slingshot(0)
    until_waiting(game)
    drag(game, (-0.6, 0.0))  # a gentle shot that lands on the flat ground
    game.step()
    asleep_after = None
    while game.launched_at is not None:
        before = game.projectile
        game.step()
        if asleep_after is None and game.world.sleep.awake_count == 0:
            asleep_after = game.steps
        assert game.steps < 2000
    # The step after the one that left every body asleep ends the turn, and loads the
    # next projectile in its place.
    assert asleep_after is not None and game.steps == asleep_after + 1
    assert not before.alive and game.waiting and game.projectile is not before


def test_a_projectile_that_leaves_the_level_is_spent():
    game = Slingshot(0)
    until_waiting(game)
    drag(game, (1.9, -0.5))  # pulled forwards: it flies backwards, off the level's left
    game.step()
    flown = game.projectile
    steps = until_waiting(game)
    assert not flown.alive and game.shots_left == LEVELS[0].shots - 1
    # It left through the left bound: x(t) = x₀ − v t reaches it before the turn time.
    speed = LAUNCH_GAIN * 1.9
    assert steps * game.dt < (ANCHOR[0] - BOUNDS[0]) / speed + 0.5


# --- the keyboard platformer ----------------------------------------------------------------

def test_the_platform_game_replays_chapter_16s_run_bit_for_bit():
    game = PlatformGame(replay=key_log())
    reference = Platformer()
    path = reference.play()
    for k in range(len(path)):
        game.step()
        assert game.platformer.scene.bodies["player"].center_of_mass.tobytes() == \
            path[k].tobytes()
    assert len(game.platformer.collected) == len(COINS)
    assert game.status().startswith(f"coins {len(COINS)} of {len(COINS)}")


def test_two_keys_for_one_action_hold_it_until_both_are_up():
    game = PlatformGame()
    for key, kind in (("ArrowLeft", "keydown"), ("a", "keydown"), ("ArrowLeft", "keyup")):
        game.handle({"type": kind, "key": key})
    game.handle({"type": "keydown", "key": "q"})  # not a key of the game
    game.step()
    assert game.held == {"left"}
    game.handle({"type": "keyup", "key": "a"})
    game.step()
    assert game.held == set()
    # The camera follows the character: the view is centred on it, 16 m by 9 m.
    left, bottom, right, top = game.view
    x, y = game.platformer.scene.bodies["player"].center_of_mass
    assert (right - left, top - bottom) == pytest.approx((16.0, 9.0))
    assert (left + right) / 2 == pytest.approx(x)

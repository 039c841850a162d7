"""The compiled step (physbook.compiled_step) against the staged pipeline of World.step.

The oracle is the staged pipeline itself: the same kernels called one by one from Python. The
compiled step must give the same states bit for bit, so every comparison is exact.
"""

from __future__ import annotations

import numpy as np
import pytest

import physbook as pb
from physbook import scenes
from physbook import step_driver as driver_module
from physbook.dynamics.solver_steps import springs_from_table

#: Every column a step writes, the contact impulses, the contact and sensor events.
BODY_COLUMNS = ("origins", "centers", "angles", "velocities", "angular_velocities", "awake",
                "sleep_times")
EVENTS = ("began", "ended", "hit shape ids", "hit points", "hit normals", "hit speeds",
          "sensing began", "sensing ended")
STEPS = 600


def _state(world: pb.World) -> list[np.ndarray]:
    contacts, events, sensed = world.contacts, world.events.contacts, world.events.sensors
    return [getattr(world.bodies, name).copy() for name in BODY_COLUMNS] + [
        contacts.shape_ids.copy(), contacts.normal_impulses.copy(),
        contacts.tangent_impulses.copy(), events.begin, events.end, *events.hits,
        sensed.begin, sensed.end]


def _first_difference(compiled: pb.World, staged: pb.World, steps: int, dt: float):
    """The first (step, column) at which the two worlds differ, or None."""
    names = BODY_COLUMNS + ("contact shape ids", "normal impulses", "tangent impulses") + EVENTS
    for k in range(steps):
        compiled.step(dt)
        staged.step(dt)
        for name, a, b in zip(names, _state(compiled), _state(staged), strict=True):
            if a.shape != b.shape or not np.array_equal(a, b):
                return k, name
    return None


@pytest.fixture
def calls(monkeypatch):
    """Count the compiled step's calls, so that a test knows the compiled path ran."""
    counter = {"calls": 0}
    kernel = driver_module.step_from_state

    def counted(*arguments):
        counter["calls"] += 1
        return kernel(*arguments)

    monkeypatch.setattr(driver_module, "step_from_state", counted)
    return counter


@pytest.mark.parametrize("name", sorted(scenes.SCENES))
def test_every_scene_steps_bit_for_bit_as_the_staged_pipeline(name, calls):
    # Each scene as SCENES builds it, standard sizes included (rain-1000, boxes-1000, the
    # 5 050-box pyramid), sleep on as the scenes set it: islands, joints, bullets and
    # continuous collision are all in some scene.
    compiled, staged = scenes.SCENES[name](), scenes.SCENES[name]()
    staged.world.compiled = False
    assert _first_difference(compiled.world, staged.world, STEPS, scenes.DT) is None
    assert calls["calls"] >= STEPS  # every step ran compiled (a retry adds calls)


def test_standard_scenes_agree_with_sleep_off(calls):
    # The benchmark's setting: sleep off, every body solved every step.
    for name in ("pyramid", "rain", "vertical_stack"):
        kwargs = {"n": 200} if name == "rain" else {}
        compiled, staged = scenes.SCENES[name](**kwargs), scenes.SCENES[name](**kwargs)
        for world in (compiled.world, staged.world):
            world.sleep.enabled = False
        staged.world.compiled = False
        assert _first_difference(compiled.world, staged.world, 300, scenes.DT) is None, name


@pytest.mark.parametrize("solver", ["impulse", "sequential_impulses", "soft_step"])
@pytest.mark.parametrize("scene", ["pyramid", "car"])
def test_every_library_solver_runs_compiled(solver, scene, calls):
    # Each solver is compiled apart, with joints (the car) and without (the pyramid).
    build = scenes.SCENES[scene]
    compiled, staged = (build(world=pb.World(solver=solver)) for _ in range(2))
    staged.world.compiled = False
    assert _first_difference(compiled.world, staged.world, 200, scenes.DT) is None
    assert calls["calls"] >= 200


def test_a_changed_solver_setting_reaches_the_compiled_step(calls):
    # The compiled step caches the solver's settings per dt; a setter must refresh them.
    compiled, staged = (scenes.pyramid(base=6) for _ in range(2))
    staged.world.compiled = False
    assert _first_difference(compiled.world, staged.world, 30, scenes.DT) is None
    for world in (compiled.world, staged.world):
        world.solver.substeps = 2
        world.solver.speculative_distance = 0.0
    assert _first_difference(compiled.world, staged.world, 60, scenes.DT) is None
    # ... and a step of another length.
    assert _first_difference(compiled.world, staged.world, 30, scenes.DT / 2) is None


def test_other_stages_take_the_staged_pipeline(calls):
    # Another broad phase or a solver subclass: the world steps stage by stage.
    class MySolver(pb.SoftStepSolver):
        pass

    for world in (pb.World(broad_phase="sweep"), pb.World(solver=MySolver())):
        world.add_body(pb.Circle(0.5), position=(0.0, 1.0))
        world.step(scenes.DT)
    assert calls["calls"] == 0


def _sensor_gate(sleeping=True):
    """A static sensor box that a rain of boxes and balls falls through onto the ground,
    a sensor ring carried by a kinematic body sweeping across the pile, a dynamic body
    with a sensor shape beside its solid one, and two sensors that overlap each other."""
    world = pb.World(sleeping=sleeping)
    world.add_body(pb.Polygon.box(6.0, 0.5), position=(0.0, -0.5), kind="static")
    world.add_body(pb.Polygon.box(3.0, 1.0), position=(0.0, 3.0), kind="static",
                   sensor=True)
    world.add_body(pb.Circle(1.5), position=(0.0, 3.5), kind="static", sensor=True)
    for k in range(12):
        shape = pb.Circle(0.2) if k % 2 else pb.Polygon.box(0.2, 0.15)
        world.add_body(shape, position=(-2.2 + 0.4 * k, 6.0 + 0.5 * (k % 3)), angle=0.1 * k)
    world.add_body(pb.Circle(0.8), position=(-6.0, 1.0), velocity=(2.0, 0.0),
                   kind="kinematic", sensor=True)
    world.add_body([pb.Polygon.box(0.3, 0.3), pb.Circle(0.9)], position=(4.0, 4.0),
                   sensor=[False, True])
    return world


def test_worlds_with_sensors_run_compiled_bit_for_bit(calls):
    # Sensors in the pair lists of both paths: each sensor's overlaps begin and end as the
    # bodies fall through, and the contacts, impulses and states stay those of the staged
    # pipeline, with sleep on (sensors on sleeping bodies keep their rows) and off.
    for sleeping in (True, False):
        compiled, staged = _sensor_gate(sleeping), _sensor_gate(sleeping)
        staged.compiled = False
        began = ended = 0
        for k in range(240):
            assert _first_difference(compiled, staged, 1, scenes.DT) is None, (sleeping, k)
            began += len(compiled.events.sensors.begin)
            ended += len(compiled.events.sensors.end)
        assert began >= 12 and ended >= 12  # every falling body passed the gate
    assert calls["calls"] >= 480


def _add_sensor(world):
    world.add_body(pb.Polygon.box(2.0, 0.6), position=(0.0, 1.5), kind="static", sensor=True)


def _remove_sensors(world):
    # Every body with a sensor shape: the gate's two, the kinematic ring, the compound
    # body and the box just added (bodies keep the order they were added in).
    world.remove_bodies([body for k, body in enumerate(world.bodies) if k in (1, 2)
                         or k >= 15])


def test_sensors_added_and_removed_between_steps_reach_the_compiled_step(calls):
    # A sensor added into a settled pile (its first overlaps begin at once), then every
    # sensor body removed (their overlaps end, and the world's sensor rows empty), then
    # one added again: after each, both paths give the same states and events.
    compiled, staged = _sensor_gate(), _sensor_gate()
    staged.compiled = False
    assert _first_difference(compiled, staged, 150, scenes.DT) is None
    for change, sensors in ((_add_sensor, 5), (_remove_sensors, 0), (_add_sensor, 1)):
        for world in (compiled, staged):
            change(world)
        assert compiled.shapes.sensor_count == sensors
        assert _first_difference(compiled, staged, 60, scenes.DT) is None, change.__name__
    assert calls["calls"] >= 330


def test_more_sensor_pairs_than_sensor_rows_grow_them_within_the_step(calls):
    # Forty balls dropped at once into a sensor: more overlapping pairs than the sensor
    # rows the world has, so the compiled step asks for room and steps again.
    compiled, staged = (pb.World(capacity=4) for _ in range(2))
    staged.compiled = False
    for world in (compiled, staged):
        world.add_body(pb.Polygon.box(5.0, 0.5), position=(0.0, -0.5), kind="static")
        world.add_body(pb.Polygon.box(4.0, 2.0), position=(0.0, 2.0), kind="static",
                       sensor=True)
        for k in range(40):
            world.add_body(pb.Circle(0.2), position=(-3.8 + 0.4 * (k % 20), 0.5 + 0.45 * (k // 20)))
    assert _first_difference(compiled, staged, 1, scenes.DT) is None
    assert len(compiled.events.sensors.begin) == 40  # every ball, at the first step
    assert _first_difference(compiled, staged, 30, scenes.DT) is None
    assert calls["calls"] > 31  # a step that asked for room called again


def _grow(world):
    world.add_body(pb.Polygon.box(0.4, 0.3), position=(0.3, 9.0), angle=0.2)


def _shrink(world):
    world.remove_body(world.bodies[4])


def _hinge(world):
    first, second = world.bodies[7], world.bodies[8]
    world.add_joint(pb.RevoluteJoint(first, second, anchor=first.position))


def _unhinge(world):
    world.remove_joint(world.joints[0])


def _settle_faster(world):
    world.sleep.linear_speed = 0.2
    world.sleep.time_to_sleep = 0.1


def _slide(world):
    # A material the world has not seen: its table of mixed values grows.
    world.add_body(pb.Circle(0.3), position=(1.0, 6.0),
                   material=pb.Material(friction=0.05, restitution=0.4))


def _tilt(world):
    world.gravity = (1.5, -12.0)


def _fatten(world):
    world.broad_phase.margin = 0.3
    world.broad_phase.prediction = 1.0
    world.bodies[-1].velocity = (2.0, 6.0)  # the top box flies off: its leaf is refitted


def _flood(world):
    # More shapes than the contact sets have rows: the sets grow within the step.
    for k in range(40):
        world.add_body(pb.Circle(0.2), position=(-4.0 + 0.2 * k, 0.25 + 0.01 * k))


@pytest.mark.parametrize("change", [_grow, _shrink, _hinge, _settle_faster, _slide, _tilt,
                                    _fatten, _flood])
def test_changes_between_steps_reach_the_compiled_step(change, calls):
    """The compiled step keeps the world's columns between steps (a StepState), gathered
    again when one is replaced: each change below, made between two steps, must reach it,
    and a second change made later too (the joint is taken out again, the body count
    changes twice)."""
    compiled, staged = (scenes.pyramid(base=5) for _ in range(2))
    staged.world.compiled = False
    assert _first_difference(compiled.world, staged.world, 20, scenes.DT) is None
    for world in (compiled.world, staged.world):
        change(world)
    assert _first_difference(compiled.world, staged.world, 40, scenes.DT) is None
    # The trees are the same too (a new margin changes their fat boxes, not the states).
    trees = compiled.world.broad_phase.nodes, staged.world.broad_phase.nodes
    assert all(np.array_equal(a, b) for a, b in zip(*trees, strict=True))
    for world in (compiled.world, staged.world):
        (_unhinge if change is _hinge else _grow)(world)
    assert _first_difference(compiled.world, staged.world, 40, scenes.DT) is None
    assert calls["calls"] >= 100


def _entry_points(dispatcher) -> list:
    return [overload.entry_point for overload in dispatcher.overloads.values()]


def test_a_state_steps_through_the_compiled_function_itself_after_its_first_step():
    """After the first step from a gathered state, which goes through numba's dispatcher,
    the driver calls the overload's entry point directly (no fixture counts the calls here,
    so that it can). Those steps, and those after each change that gathers a new state,
    are the staged pipeline's bit for bit, and each new state finds its entry again."""
    compiled, staged = (scenes.pyramid(base=5) for _ in range(2))
    staged.world.compiled = False
    driver = compiled.world._driver
    assert _first_difference(compiled.world, staged.world, 30, scenes.DT) is None
    for change in (_grow, _hinge, _fatten, _flood, _shrink):
        handle, dispatcher, entry = driver._entry
        assert handle is driver._step_state.handle
        assert dispatcher is driver_module.step_from_state
        assert entry in _entry_points(dispatcher)
        for world in (compiled.world, staged.world):
            change(world)
        assert _first_difference(compiled.world, staged.world, 20, scenes.DT) is None, change
        assert driver._entry[0] is driver._step_state.handle is not handle, change
    handle, dispatcher, entry = driver._entry
    assert entry in _entry_points(dispatcher)
    # And the steps call it: a stand-in put in its place is called at each step.
    called = []

    def stand_in(*arguments):
        called.append(arguments[0])
        return entry(*arguments)

    driver._entry = (handle, dispatcher, stand_in)
    assert _first_difference(compiled.world, staged.world, 5, scenes.DT) is None
    assert len(called) == 5 and all(state is handle for state in called)


def test_the_compiled_entry_is_the_overload_for_the_arguments_or_the_dispatcher():
    numba = pytest.importorskip("numba")

    @numba.njit
    def twice(x):
        return 2 * x

    assert twice(1.5) == 3.0
    (overload,) = twice.overloads.values()
    entry = driver_module.compiled_entry(twice, (1.5,))
    assert entry is overload.entry_point and entry(4.0) == 8.0
    # No overload for an array yet: the dispatcher, which would compile one.
    assert driver_module.compiled_entry(twice, (np.ones(2),)) is twice
    # A plain function (numba switched off, or a test's stand-in) is its own entry.
    assert driver_module.compiled_entry(len, ("ab",)) is len


def test_a_driver_pickled_before_the_entry_existed_steps_on():
    world = scenes.pyramid(base=4).world
    for _ in range(5):
        world.step(scenes.DT)
    state = world._driver.__getstate__()
    assert state["_entry"] is None and state["_step_state"] is None
    del state["_entry"]  # as 0.6.2 pickled it
    driver = driver_module.StepDriver.__new__(driver_module.StepDriver)
    driver.__dict__.update(state)
    assert driver._entry is None
    world._driver = driver
    copy = scenes.pyramid(base=4).world
    copy.compiled = False
    for _ in range(5):
        copy.step(scenes.DT)
    assert _first_difference(world, copy, 10, scenes.DT) is None
    assert driver._entry[0] is driver._step_state.handle


def test_a_dt_that_changes_every_step_keeps_the_gathered_state(calls, monkeypatch):
    # A game that steps by the frame time it measured: dt differs at every step. The
    # softnesses follow it, and nothing gathered from the world's columns is gathered again.
    gathered = {"states": 0}
    new_step_state = driver_module.new_step_state

    def counted(*arguments):
        gathered["states"] += 1
        return new_step_state(*arguments)

    monkeypatch.setattr(driver_module, "new_step_state", counted)
    compiled, staged = (scenes.pyramid(base=5) for _ in range(2))
    staged.world.compiled = False
    # First at a steady dt, until the contact sets have the rows the pile needs.
    assert _first_difference(compiled.world, staged.world, 30, scenes.DT) is None
    gathered["states"] = 0
    frames = np.random.default_rng(7).uniform(0.9, 1.1, 120) * scenes.DT
    for k, dt in enumerate(frames):
        assert _first_difference(compiled.world, staged.world, 1, float(dt)) is None, k
    assert gathered["states"] == 0
    assert calls["calls"] >= len(frames)


def _scene_pair(flip):
    worlds = []
    for compiled in (True, False):
        world = scenes.pyramid(base=4).world
        world.compiled = compiled
        for _ in range(10):
            world.step(scenes.DT)
        flip(world)
        worlds.append(world)
    return worlds


def test_a_non_finite_state_is_refused_alike(calls):
    def poison(world):
        world.bodies.velocities[3, 0] = np.nan

    messages = []
    for world in _scene_pair(poison):
        before = _state(world)
        with pytest.raises(ValueError, match="velocities of body") as error:
            world.step(scenes.DT)
        messages.append(str(error.value))
        assert all(np.array_equal(a, b, equal_nan=True)
                   for a, b in zip(before, _state(world), strict=True))
    assert messages[0] == messages[1]


def test_a_step_that_overflows_is_undone_alike(calls):
    def push(world):
        world.bodies.gravity_scales[5] = 1e308  # finite, but g·scale is not

    for world in _scene_pair(push):
        before = _state(world)
        with pytest.raises(FloatingPointError):
            world.step(scenes.DT)
        after = _state(world)
        assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))
        # The world goes on from where it was once the scale is sensible again.
        world.bodies.gravity_scales[5] = 1.0
        world.step(scenes.DT)
    assert calls["calls"] >= 12


@pytest.mark.parametrize(("ground", "bullet", "handed_over"),
                         [(False, False, False), (True, False, True), (False, True, True)])
def test_a_fast_body_is_handed_to_continuous_collision_if_something_could_stop_it(
        ground, bullet, handed_over, monkeypatch, calls):
    # Continuous collision stops an ordinary fast body only at a static shape, a bullet at
    # any shape: the compiled step hands a fast body's step to Python only then. A shot at
    # 100 m/s (1.7 m a step, its radius 0.05 m) flies at a box 5 m away.
    handed = {"steps": 0}
    finish = driver_module.StepDriver.finish

    def counted(self, *arguments):
        handed["steps"] += self.compiled
        return finish(self, *arguments)

    monkeypatch.setattr(driver_module.StepDriver, "finish", counted)

    def build():
        world = pb.World(sleeping=False)
        if ground:  # far below: it stops nothing, but a fast body might have met it
            world.add_body(pb.Polygon.box(50.0, 0.5), position=(0.0, -50.0), kind="static")
        shot = world.add_body(pb.Circle(0.05), velocity=(100.0, 0.0))
        shot.bullet = bullet
        world.add_body(pb.Polygon.box(0.1, 0.1), position=(5.0, 0.0))
        return world

    compiled, staged = build(), build()
    staged.compiled = False
    assert _first_difference(compiled, staged, 30, scenes.DT) is None
    assert (handed["steps"] > 0) == handed_over


def test_compiled_is_a_flag():
    world = pb.World()
    assert world.compiled is True
    world.compiled = False
    assert world.compiled is False
    with pytest.raises(TypeError, match="compiled"):
        world.compiled = "yes"


@pytest.mark.parametrize("solver", [
    pb.SoftStepSolver(substeps=3, contact_hertz=25.0, static_hertz=40.0, joint_hertz=55.0),
    pb.SequentialImpulseSolver(joint_hertz=12.0)], ids=["soft", "impulse"])
def test_the_compiled_step_is_handed_the_springs_of_its_solver(solver):
    # The compiled call takes the softnesses as a table (numba types an array at once, a
    # named tuple by calling Python); read back, it holds exactly the solver's springs, each
    # row the one of its field. The joints' spring differs from the contacts' (and, in the
    # soft step, from the static contacts'), so a swapped row would show.
    settings = solver.compiled_settings(1 / 60)
    springs = settings.springs
    assert springs.joints not in (springs.contacts, springs.static_contacts)
    if isinstance(solver, pb.SoftStepSolver):
        assert springs.contacts != springs.static_contacts
    assert springs_from_table(settings.springs_table) == springs
    assert springs.joints == solver.joint_softness(1 / 60)

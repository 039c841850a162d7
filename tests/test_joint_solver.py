"""Chapter 11's joints through the public API, each against an analytic result."""

from __future__ import annotations

import math

import numpy as np
import pytest

import physbook as pb

DT = 1.0 / 60.0
G = 10.0
SOLVERS = ["soft_step", "sequential_impulses"]


def crossing_period(times, values) -> float:
    """Mean time between upward zero crossings of ``values``, each found by linear
    interpolation between the two samples around it."""
    values = np.asarray(values)
    rising = np.flatnonzero((values[:-1] < 0.0) & (values[1:] >= 0.0))
    crossings = times[rising] - values[rising] * (times[rising + 1] - times[rising]) / (
        values[rising + 1] - values[rising])
    return float(np.diff(crossings).mean())


def hanging_ball(solver="soft_step", length=3.0, angle=0.05, radius=0.1):
    scene = pb.scenes.pendulum(pb.World(solver=solver), length=length, angle=angle,
                               radius=radius)
    return scene, scene.bodies["ball"], scene.params["rod"]


# --- distance joints -------------------------------------------------------------------------


@pytest.mark.parametrize("solver", SOLVERS)
def test_pendulum_period_and_rod_length(solver):
    # Small-angle period 2π√(L/g) = 3.4414 s. The swing of 0.05 rad lengthens the true
    # period by θ²/16 = 1.6e-4 and symplectic Euler shifts it by O((ωΔt)²) = 1e-3 at most,
    # so 0.5 % is the bound with room. The rod is a rigid row held by a soft bias
    # of 120 Hz (15 Hz for one step of the rigid solver): at the bottom the load is
    # m(g + v²/L) ≈ 1.0 mg, which stretches it by g/ω² = 18 µm (1.1 mm at 15 Hz), under
    # 1e-3 of L = 3 m.
    scene, ball, rod = hanging_ball(solver)
    times, xs, lengths = [], [], []
    for k in range(600):
        scene.world.step(DT)
        times.append((k + 1) * DT)
        xs.append(ball.position[0])
        lengths.append(rod.current_length)
    period = crossing_period(np.array(times), xs)
    assert period == pytest.approx(scene.params["period"], rel=5e-3)
    assert np.max(np.abs(np.array(lengths) - 3.0)) / 3.0 < 1e-3


@pytest.mark.parametrize("hertz", [0.5, 1.0, 2.0])
def test_spring_distance_joint_oscillates_at_its_hertz(hertz):
    # A light ball on a spring to a body 10⁶ times heavier, no gravity: the soft
    # constraint is the implicit step of m·ẍ = −m ω² x − 2ζmω ẋ with ζ = 0, whose
    # frequency error is O((ωh)²) with h = 1/480 s: 1e-3 at 2 Hz, inside 2 %.
    world = pb.World(gravity=(0, 0))
    anchor = world.add_body(pb.Circle(0.5), material=pb.Material(density=1e6))
    ball = world.add_body(pb.Circle(0.1), position=(2.3, 0.0))
    world.add_joint(pb.DistanceJoint(anchor, ball, (0, 0), (2.3, 0), length=2.0,
                                     hertz=hertz))
    times = DT * np.arange(1, 901)
    stretch = []
    for _ in times:
        world.step(DT)
        stretch.append(ball.position[0] - anchor.position[0] - 2.0)
    assert 1.0 / crossing_period(times, stretch) == pytest.approx(hertz, rel=0.02)


def test_rope_is_slack_until_taut():
    # A ball 1 m below the pin on a 2 m rope falls freely while the rope is slack:
    # symplectic Euler over n substeps of h gives y = −g·h²·n(n+1)/2 exactly (to
    # rounding), then it hangs at 2 m.
    world = pb.World()
    pin = world.add_body(pb.Circle(0.1), position=(0, 0), kind="static")
    ball = world.add_body(pb.Circle(0.1), position=(0, -1.0))
    rope = world.add_joint(pb.DistanceJoint(pin, ball, (0, 0), (0, -1.0), max_length=2.0))
    assert rope.min_length == 0.0 and rope.max_length == 2.0
    substeps = world.solver.substeps
    h = DT / substeps
    for k in range(1, 16):
        world.step(DT)
        n = k * substeps
        assert ball.position[1] == pytest.approx(-1.0 - G * h * h * n * (n + 1) / 2,
                                                 abs=1e-12)
        assert np.all(rope.reaction_force == 0.0)
    for _ in range(300):
        world.step(DT)
    assert rope.current_length == pytest.approx(2.0, abs=1e-3)


def test_reaction_of_a_hanging_ball_is_its_weight():
    # At rest the rod holds the weight: the force on the ball is (0, m·g). The ball starts
    # hanging still, so the only error is the soft rod's settling, which decays.
    world = pb.World()
    pin = world.add_body(pb.Circle(0.1), position=(0, 0), kind="static")
    ball = world.add_body(pb.Circle(0.2), position=(0, -2.0))
    rod = world.add_joint(pb.DistanceJoint(pin, ball, (0, 0), (0, -2.0)))
    world.sleep.enabled = False
    for _ in range(120):
        world.step(DT)
    np.testing.assert_allclose(rod.reaction_force, [0.0, ball.mass * G], rtol=1e-6,
                               atol=1e-9)


def test_cantilever_weld_holds_the_beams_weight_and_moment():
    # A 2 m beam welded at one end to a wall: the weld carries the weight m·g and the
    # moment m·g·d, d = 1 m from the weld to the beam's centre.
    world = pb.World(sleeping=False)
    wall = world.add_body(pb.Polygon.box(0.5, 0.5), position=(0, 5), kind="static")
    beam = world.add_body(pb.Polygon.box(1.0, 0.1), position=(1.5, 5))
    weld = world.add_joint(pb.WeldJoint(wall, beam, (0.5, 5)))
    for _ in range(300):
        world.step(DT)
    np.testing.assert_allclose(weld.reaction_force, [0.0, beam.mass * G], atol=1e-6)
    assert weld.reaction_torque == pytest.approx(beam.mass * G * 1.0, rel=1e-6)
    assert abs(beam.angle) < 1e-3


# --- revolute joints --------------------------------------------------------------------------


@pytest.mark.parametrize("solver, tolerance", [("soft_step", 0.01),
                                               ("sequential_impulses", 0.02)])
def test_revolute_limits_hold(solver, tolerance):
    # A bar pinned at one end swings down under gravity onto a lower limit of −0.5 rad
    # (then leans on it) or, turned the other way, onto an upper limit of 0.3 rad. The
    # limit row is speculative, so the bar stops at it; what overshoot is left comes from
    # turning the arms within the step, a second-order effect of ω·Δt (0.07 rad for the
    # soft step's substeps, 8 times that for one rigid step), hence the looser bound of
    # the rigid solver.
    for lower, upper, sign in ((-0.5, 0.3, 1.0), (-0.3, 0.5, -1.0)):
        world = pb.World(solver=solver)
        pin = world.add_body(pb.Circle(0.1), position=(0, 5), kind="static")
        bar = world.add_body(pb.Polygon.box(1.0, 0.1), position=(sign * 1.0, 5.0))
        hinge = world.add_joint(pb.RevoluteJoint(pin, bar, (0, 5), lower_angle=lower,
                                                 upper_angle=upper))
        angles = []
        for _ in range(300):
            world.step(DT)
            angles.append(hinge.angle)
        assert min(angles) > lower - tolerance and max(angles) < upper + tolerance
        resting = lower if sign > 0 else upper
        assert hinge.angle == pytest.approx(resting, abs=tolerance)
        # Leaning on the limit at angle θ the torque holds m·g·d·cos θ (d = 1 m).
        assert abs(hinge.reaction_torque) == pytest.approx(
            bar.mass * G * math.cos(resting), rel=0.02)


def test_motor_reaches_its_speed_when_its_torque_suffices():
    # A free disc in zero gravity: a motor of 10 N·m drives it to 3 rad/s, exactly.
    world = pb.World(gravity=(0, 0))
    axle = world.add_body(pb.Circle(0.1), kind="static")
    disc = world.add_body(pb.Circle(0.5))
    world.add_joint(pb.RevoluteJoint(axle, disc, (0, 0), motor_speed=3.0,
                                     max_motor_torque=10.0))
    for _ in range(60):
        world.step(DT)
    assert disc.angular_velocity == pytest.approx(3.0, rel=1e-9)


def test_motor_stalls_when_its_torque_does_not_suffice():
    # A bar pinned at its end and held horizontal needs m·g·d = 4 N·m to lift; a motor of
    # 3 N·m cannot, and the bar hangs down; with 6 N·m it turns up at its speed.
    for torque, lifts in ((3.0, False), (6.0, True)):
        world = pb.World()
        pin = world.add_body(pb.Circle(0.1), position=(0, 5), kind="static")
        bar = world.add_body(pb.Polygon.box(1.0, 0.1), position=(1.0, 5.0))
        hinge = world.add_joint(pb.RevoluteJoint(pin, bar, (0, 5), motor_speed=0.5,
                                                 max_motor_torque=torque))
        assert bar.mass * G * 1.0 == pytest.approx(4.0)
        for _ in range(30):
            world.step(DT)
        if lifts:
            # The motor row reaches its speed; the pin row solved after it moves ω by
            # what the pin's own correction needs (well under 1e-4 of it).
            assert bar.angular_velocity == pytest.approx(0.5, rel=1e-4)
            assert hinge.angle > 0.2
        else:
            assert bar.angular_velocity < 0.0 and hinge.angle < 0.0


def test_angular_spring_oscillates_at_its_hertz():
    world = pb.World(gravity=(0, 0))
    axle = world.add_body(pb.Circle(0.1), kind="static")
    disc = world.add_body(pb.Polygon.box(0.5, 0.1), angle=0.2)
    world.add_joint(pb.RevoluteJoint(axle, disc, (0, 0), hertz=1.5))
    disc.angle = 0.3  # turn it away from the spring's rest angle, 0.2
    times = DT * np.arange(1, 601)
    turns = []
    for _ in times:
        world.step(DT)
        turns.append(disc.angle - 0.2)
    assert 1.0 / crossing_period(times, turns) == pytest.approx(1.5, rel=0.02)


# --- prismatic, wheel and mouse joints ----------------------------------------------------


@pytest.mark.parametrize("solver", SOLVERS)
def test_prismatic_joint_slides_only_along_its_axis(solver):
    # A box on a 45° slide: it may move along the axis only, without turning, and stops
    # at the upper limit of 2 m.
    world = pb.World(solver=solver)
    frame = world.add_body(pb.Polygon.box(0.5, 0.1), position=(0, 5), kind="static")
    box = world.add_body(pb.Polygon.box(0.3, 0.3), position=(1, 5))
    axis = np.array([1.0, -1.0]) / math.sqrt(2.0)
    slide = world.add_joint(pb.PrismaticJoint(frame, box, (1, 5), axis, lower=-1.0,
                                              upper=2.0))
    for _ in range(300):
        world.step(DT)
        offset = box.position - np.array([1.0, 5.0])
        assert abs(offset[0] * axis[1] - offset[1] * axis[0]) < 1e-3
        assert abs(box.angle) < 1e-3
        assert slide.translation < 2.0 + 0.005
    assert slide.translation == pytest.approx(2.0, abs=0.005)
    slide.max_motor_force = 1000.0
    slide.motor_speed = -1.0
    for _ in range(30):
        world.step(DT)
    assert np.dot(box.velocity, axis) == pytest.approx(-1.0, rel=1e-6)


def test_wheel_suspension_sags_by_the_weight_over_its_stiffness():
    # A 1 kg block on a wheel joint with a vertical spring of f = 2 Hz to a static
    # axle: it settles m·g/k lower, k = m·(2πf)², so the sag is g/(2πf)² = 63.3 mm.
    world = pb.World(sleeping=False)
    axle = world.add_body(pb.Circle(0.2), position=(0, 1), kind="static")
    block = world.add_body(pb.Polygon.box(0.5, 0.5), position=(0, 1),
                           material=pb.Material(density=1.0))
    spring = world.add_joint(pb.WheelJoint(axle, block, (0, 1), (0, 1), hertz=2.0,
                                           damping_ratio=1.0))
    assert block.mass == pytest.approx(1.0)
    for _ in range(600):
        world.step(DT)
    assert -spring.translation == pytest.approx(G / (2 * math.pi * 2.0) ** 2, rel=1e-3)


def test_wheel_motor_drives_the_car():
    scene = pb.scenes.car(bumps=0)
    for _ in range(300):
        scene.world.step(DT)
    rear = scene.bodies["wheels"][0]
    assert rear.angular_velocity == pytest.approx(scene.params["motor_speed"], rel=1e-3)
    # Rolling without slipping moves the car at ω·r; it started from rest, so it has
    # covered less than 5 s of that.
    travelled = scene.bodies["chassis"].position[0]
    assert 0.5 * 5.0 * 8.0 * 0.4 < travelled < 5.0 * 8.0 * 0.4


def test_mouse_joint_pulls_a_body_to_the_target_with_a_bounded_force():
    world = pb.World(gravity=(0, 0))
    box = world.add_body(pb.Polygon.box(0.5, 0.5), material=pb.Material(density=4.0))
    mouse = world.add_joint(pb.MouseJoint(box, (0, 0), max_force=2.0))
    mouse.target = (3.0, 0.0)
    # At most 2 N on 4 kg: 0.5 m/s² at most. Symplectic Euler over n substeps of h covers
    # a·h²·n(n+1)/2 under a constant a, the most it can cover here.
    for _ in range(60):
        world.step(DT)
    n = 60 * world.solver.substeps
    h = DT / world.solver.substeps
    assert 0.0 < box.position[0] <= 0.5 * h * h * n * (n + 1) / 2 + 1e-12
    mouse.max_force = 1000.0
    for _ in range(600):
        world.step(DT)
    assert np.linalg.norm(mouse.point - mouse.target) < 1e-3


# --- the velocity constraint is the derivative of the position constraint ----------------


def _moved(world, seconds):
    """Advance every body by its velocity only (no forces, no joints): c + v·t, θ + ω·t."""
    centers, angles = world.bodies.arrays.centers, world.bodies.arrays.angles
    centers += seconds * world.bodies.arrays.velocities
    angles += seconds * world.bodies.arrays.angular_velocities
    world.bodies.update_origins()


@pytest.mark.parametrize("kind", ["distance", "revolute", "prismatic"])
def test_velocity_form_is_the_time_derivative_of_the_constraint(kind):
    # Ċ = J·v: move two bodies by their velocities over ±ε and difference C; the
    # central difference is exact to O(ε²), 1e-8 for ε = 1e-4 and speeds of order 1.
    rng = np.random.default_rng(3)
    world = pb.World(gravity=(0, 0))
    a = world.add_body(pb.Polygon.box(0.4, 0.3), position=(0.1, 0.2), angle=0.3,
                       velocity=rng.normal(size=2), angular_velocity=rng.normal())
    b = world.add_body(pb.Polygon.box(0.3, 0.2), position=(1.4, 0.9), angle=-0.2,
                       velocity=rng.normal(size=2), angular_velocity=rng.normal())
    axis = np.array([0.8, 0.6])
    joint = {"distance": lambda: pb.DistanceJoint(a, b, (0.3, 0.1), (1.2, 1.0)),
             "revolute": lambda: pb.RevoluteJoint(a, b, (0.7, 0.5)),
             "prismatic": lambda: pb.PrismaticJoint(a, b, (0.7, 0.5), axis)}[kind]()
    world.add_joint(joint)

    def constraint() -> float:
        return {"distance": lambda: joint.current_length,
                "revolute": lambda: joint.angle,
                "prismatic": lambda: joint.translation}[kind]()

    if kind == "distance":
        anchor_a, anchor_b = joint.anchors
        u = (anchor_b - anchor_a) / np.linalg.norm(anchor_b - anchor_a)
        analytic = np.dot(u, b.velocity_at(anchor_b) - a.velocity_at(anchor_a))
    elif kind == "revolute":
        analytic = b.angular_velocity - a.angular_velocity
    else:
        # d/dt [u·(p_B − p_A)] with u turning with A: u·(v_B(p_B) − v_A(p_A)) +
        # (ω_A × u)·(p_B − p_A).
        turn = a.angular_velocity
        u = axis / np.linalg.norm(axis)
        point = np.array([0.7, 0.5])
        gap = np.zeros(2)  # the two anchors coincide at the start
        analytic = np.dot(u, b.velocity_at(point) - a.velocity_at(point)) + np.dot(
            turn * np.array([-u[1], u[0]]), gap)
    epsilon = 1e-4
    _moved(world, epsilon)
    ahead = constraint()
    _moved(world, -2 * epsilon)
    behind = constraint()
    assert (ahead - behind) / (2 * epsilon) == pytest.approx(analytic, abs=1e-7)


# --- filtering, removal and bad input ---------------------------------------------------------


def test_jointed_bodies_do_not_collide_unless_asked():
    for collide, expected in ((False, 0), (True, 1)):
        world = pb.World(gravity=(0, 0))
        a = world.add_body(pb.Polygon.box(0.5, 0.5), position=(0, 0))
        b = world.add_body(pb.Polygon.box(0.5, 0.5), position=(0.6, 0))
        world.add_joint(pb.RevoluteJoint(a, b, (0.3, 0), collide_connected=collide))
        world.step(DT)
        assert world.contacts.count == expected


def test_removing_a_body_removes_its_joints_and_rows_shift():
    world = pb.World()
    pin = world.add_body(pb.Circle(0.1), position=(0, 5), kind="static")
    spare = world.add_body(pb.Circle(0.2), position=(-5, 0))
    first = world.add_body(pb.Circle(0.2), position=(1, 5))
    second = world.add_body(pb.Circle(0.2), position=(2, 5))
    rod_one = world.add_joint(pb.DistanceJoint(pin, first, (0, 5), (1, 5)))
    rod_two = world.add_joint(pb.DistanceJoint(first, second, (1, 5), (2, 5)))
    world.remove_body(spare)  # rows of the jointed bodies move up one
    for _ in range(120):
        world.step(DT)
    assert rod_one.current_length == pytest.approx(1.0, abs=1e-3)
    assert rod_two.current_length == pytest.approx(1.0, abs=1e-3)
    world.remove_body(first)
    assert rod_one.world is None and rod_two.world is None and world.joints == []
    with pytest.raises(ValueError, match="joint is not in this world"):
        world.remove_joint(rod_one)


def test_a_removed_joint_can_be_added_again():
    world = pb.World()
    pin = world.add_body(pb.Circle(0.1), position=(0, 5), kind="static")
    ball = world.add_body(pb.Circle(0.2), position=(1, 5))
    rod = world.add_joint(pb.DistanceJoint(pin, ball, (0, 5), (1, 5)))
    world.remove_joint(rod)
    assert rod.world is None and rod.length == 1.0
    world.add_joint(rod)
    assert world.joints == [rod]


def test_bad_joints_are_refused():
    world = pb.World()
    other = pb.World()
    static = world.add_body(pb.Circle(0.1), kind="static")
    ball = world.add_body(pb.Circle(0.2), position=(1, 0))
    stranger = other.add_body(pb.Circle(0.2))
    with pytest.raises(ValueError, match="two different bodies"):
        pb.RevoluteJoint(ball, ball, (0, 0))
    with pytest.raises(ValueError, match="same world"):
        pb.RevoluteJoint(ball, stranger, (0, 0))
    with pytest.raises(ValueError, match="at least one dynamic"):
        pb.RevoluteJoint(static, world.add_body(pb.Circle(0.1), kind="static"), (0, 0))
    with pytest.raises(ValueError, match="hertz"):
        pb.DistanceJoint(static, ball, (0, 0), (1, 0), hertz=-1.0)
    with pytest.raises(ValueError, match="lower_angle must not exceed upper_angle"):
        pb.RevoluteJoint(static, ball, (0, 0), lower_angle=1.0, upper_angle=0.0)
    with pytest.raises(ValueError, match="axis"):
        pb.PrismaticJoint(static, ball, (0, 0), (0, 0))
    with pytest.raises(ValueError, match="length"):
        pb.DistanceJoint(static, ball, (0, 0), (0, 0))
    with pytest.raises(ValueError, match="body must be dynamic"):
        pb.MouseJoint(static, (0, 0), max_force=1.0)
    with pytest.raises(TypeError, match="joint"):
        world.add_joint("a rod")
    rod = world.add_joint(pb.DistanceJoint(static, ball, (0, 0), (1, 0)))
    with pytest.raises(ValueError, match="added to a world already"):
        world.add_joint(rod)
    foreign = pb.DistanceJoint(stranger, other.add_body(pb.Circle(0.1), position=(3, 0)),
                               (0, 0), (3, 0))
    with pytest.raises(ValueError, match="another world"):
        world.add_joint(foreign)
    with pytest.raises(ValueError, match="motor_speed"):
        pb.RevoluteJoint(static, ball, (0, 0), motor_speed=math.nan)

"""Chapter 11's joints through the public API, beyond ``test_joint_solver``: the weld, the
wheel's suspension between two moving bodies, statics of a beam on two supports, motors
against a load, the velocity form of the wheel and mouse joints, removal and bad input.

Each test states its oracle (statics, an oscillator's frequency, the exact free flight of
symplectic Euler) and where its tolerance comes from.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import physbook as pb

DT = 1.0 / 60.0
G = 10.0
SOLVERS = ["soft_step", "sequential_impulses"]


def crossing_frequency(times: np.ndarray, values) -> float:
    """Frequency (Hz) of ``values`` from the mean time between upward zero crossings, each
    found by linear interpolation between the two samples around it."""
    values = np.asarray(values)
    rising = np.flatnonzero((values[:-1] < 0.0) & (values[1:] >= 0.0))
    crossings = times[rising] - values[rising] * (times[rising + 1] - times[rising]) / (
        values[rising + 1] - values[rising])
    return 1.0 / float(np.diff(crossings).mean())


def pose_in(body_a: pb.Body, body_b: pb.Body) -> np.ndarray:
    """B's centre in A's frame (m) and B's angle relative to A's (rad): (x, y, θ)."""
    cosine, sine = math.cos(body_a.angle), math.sin(body_a.angle)
    dx, dy = body_b.position - body_a.position
    return np.array([cosine * dx + sine * dy, -sine * dx + cosine * dy,
                     body_b.angle - body_a.angle])


def correction_per_step(hertz: float, damping_ratio: float, h: float) -> float:
    """Fraction of a rigid row's position error the soft bias removes in one (sub)step of
    ``h`` s: bias rate ω/(2ζ + hω) times the mass scale hω(2ζ + hω)/(1 + hω(2ζ + hω)),
    times h, with ω = 2π·hertz and hertz capped at a quarter of the (sub)step rate."""
    omega = 2.0 * math.pi * min(hertz, 0.25 / h)
    stiffness = h * omega * (2.0 * damping_ratio + h * omega)
    return h * omega / (2.0 * damping_ratio + h * omega) * stiffness / (1.0 + stiffness)


def solver_substep(world: pb.World) -> float:
    """The time (s) one joint solve covers: a substep of the soft step, else the step."""
    return DT / getattr(world.solver, "substeps", 1)


# --- weld joints ------------------------------------------------------------------------------


@pytest.mark.parametrize("solver", SOLVERS)
def test_rigid_weld_keeps_two_spinning_boxes_in_one_pose(solver):
    # Two boxes welded, thrown spinning at ω = 3 rad/s through gravity: free fall loads
    # the weld with nothing, so all the pose error is the rows' linearisation. Moving a
    # point at r from its centre along its velocity for h overshoots the circle by
    # r(ωh)²/2 each solve; the soft bias removes a fraction β of the error per solve, so
    # the error settles near r(ωh)²/(2β), r = |r_A| + |r_B| (both arms turn). Twice that
    # allows the angle row's share: 0.13 mm for the soft step, 8.5 mm for one rigid step.
    world = pb.World(solver=solver)
    spin = 3.0
    left = world.add_body(pb.Polygon.box(0.5, 0.2), position=(0.0, 5.0),
                          velocity=(1.0, 0.0), angular_velocity=spin)
    # B's velocity is the rigid motion of A carried to B's centre: v_A + ω × (c_B − c_A).
    right = world.add_body(pb.Polygon.box(0.2, 0.5), position=(0.7, 5.3),
                           velocity=(1.0 - spin * 0.3, spin * 0.7), angular_velocity=spin)
    anchor = np.array([0.5, 5.0])
    world.add_joint(pb.WeldJoint(left, right, anchor))
    arms = np.linalg.norm(anchor - left.position) + np.linalg.norm(anchor - right.position)
    h = solver_substep(world)
    beta = correction_per_step(world.solver.joint_hertz, world.solver.joint_damping_ratio, h)
    bound = 2.0 * arms * (spin * h) ** 2 / (2.0 * beta)
    start = pose_in(left, right)
    for _ in range(60):
        world.step(DT)
        error = pose_in(left, right) - start
        assert math.hypot(error[0], error[1]) < bound
        assert abs(error[2]) < bound / arms  # the same error, turned into an angle


@pytest.mark.parametrize("hertz", [0.5, 1.0, 2.0])
def test_soft_weld_oscillates_at_its_hertz(hertz):
    # A plate welded at its centre to a static body, no gravity, damping 0: turned away it
    # swings at angular_hertz, pushed aside it shakes at linear_hertz (the weld's anchor is
    # the centre, so neither motion drives the other). The soft rows are the implicit step
    # of ẍ = −ω²x, whose frequency error is O((ωh)²) with h = 1/480 s: 7e-4 at 2 Hz,
    # well inside 2 %.
    times = DT * np.arange(1, 601)
    for spring, disturb, read in (
            ({"angular_hertz": hertz, "angular_damping_ratio": 0.0},
             lambda plate: setattr(plate, "angle", 0.1), lambda plate: plate.angle),
            ({"linear_hertz": hertz, "linear_damping_ratio": 0.0},
             lambda plate: setattr(plate, "position", (0.1, 0.0)),
             lambda plate: plate.position[0])):
        world = pb.World(gravity=(0, 0))
        base = world.add_body(pb.Circle(0.1), kind="static")
        plate = world.add_body(pb.Polygon.box(0.5, 0.1))
        world.add_joint(pb.WeldJoint(base, plate, (0.0, 0.0), **spring))
        disturb(plate)
        samples = []
        for _ in times:
            world.step(DT)
            samples.append(read(plate))
        assert crossing_frequency(times, samples) == pytest.approx(hertz, rel=0.02)


# --- statics: reactions ------------------------------------------------------------------------


@pytest.mark.parametrize("solver", SOLVERS)
def test_a_beam_on_a_pin_and_a_rope_shares_its_weight(solver):
    # A uniform 2 m beam pinned at x = 0 and hung by a vertical rope at x = 2: moments
    # about either end give each support m·g/2, both on the beam (body B) and upward; a
    # free pin carries no torque. The beam starts at rest in that pose, so what is left
    # of the soft rows' settling is rounding (1e-9 of the load).
    world = pb.World(solver=solver, sleeping=False)
    wall = world.add_body(pb.Circle(0.1), position=(0, 5), kind="static")
    hook = world.add_body(pb.Circle(0.1), position=(2, 7), kind="static")
    beam = world.add_body(pb.Polygon.box(1.0, 0.05), position=(1, 5))
    hinge = world.add_joint(pb.RevoluteJoint(wall, beam, (0, 5)))
    rope = world.add_joint(pb.DistanceJoint(hook, beam, (2, 7), (2, 5)))
    for _ in range(120):
        world.step(DT)
    half_weight = beam.mass * G / 2.0
    np.testing.assert_allclose(hinge.reaction_force, [0.0, half_weight], atol=1e-9)
    np.testing.assert_allclose(rope.reaction_force, [0.0, half_weight], atol=1e-9)
    assert hinge.reaction_torque == 0.0


def test_reaction_is_the_force_on_body_b():
    # The same hanging ball with its bodies given the other way round: the reaction is
    # the force on B, now the pin, so it is the ball's weight pointing down.
    world = pb.World(sleeping=False)
    pin = world.add_body(pb.Circle(0.1), position=(0, 0), kind="static")
    ball = world.add_body(pb.Circle(0.2), position=(0, -2.0))
    rod = world.add_joint(pb.DistanceJoint(ball, pin, (0, -2.0), (0, 0)))
    for _ in range(60):
        world.step(DT)
    np.testing.assert_allclose(rod.reaction_force, [0.0, -ball.mass * G], atol=1e-9)


# --- motors against a load --------------------------------------------------------------------


@pytest.mark.parametrize("solver", SOLVERS)
def test_wheel_and_revolute_motors_reach_their_speed(solver):
    # A free disc on a friction-free axle, no gravity: the motor row is the only one that
    # turns it, and its bound (5 N·m on I = 0.1 kg·m²: 50 rad/s² ≥ 4 rad/s in 0.1 s)
    # suffices within a second, so the speed is the motor's within 1 %.
    for make in (lambda axle, disc: pb.WheelJoint(axle, disc, (0, 0), (0, 1), motor_speed=4.0,
                                                  max_motor_torque=5.0),
                 lambda axle, disc: pb.RevoluteJoint(axle, disc, (0, 0), motor_speed=4.0,
                                                     max_motor_torque=5.0)):
        world = pb.World(gravity=(0, 0), solver=solver)
        axle = world.add_body(pb.Circle(0.1), kind="static")
        disc = world.add_body(pb.Circle(0.5), material=pb.Material(density=0.8))
        world.add_joint(make(axle, disc))
        for _ in range(60):
            world.step(DT)
        assert disc.angular_velocity == pytest.approx(4.0, rel=0.01)
        assert np.all(disc.position == 0.0)


def test_a_slider_motor_lifts_only_when_it_outweighs_the_load():
    # A 1 kg box on a vertical slide, motor at 0.5 m/s upward: with 15 N > m·g = 10 N it
    # rises at the motor's speed; with 5 N it sinks, accelerating at (m·g − 5 N)/m =
    # 5 m/s², so after 1 s of symplectic Euler it moves at −5 m/s exactly.
    for force, speed in ((15.0, 0.5), (5.0, -5.0)):
        world = pb.World()
        frame = world.add_body(pb.Polygon.box(0.1, 1.0), position=(0, 5), kind="static")
        box = world.add_body(pb.Polygon.box(0.5, 0.5), position=(1, 5))
        assert box.mass == pytest.approx(1.0)
        slide = world.add_joint(pb.PrismaticJoint(frame, box, (1, 5), (0, 1), motor_speed=0.5,
                                                  max_motor_force=force))
        for _ in range(60):
            world.step(DT)
        assert box.velocity[1] == pytest.approx(speed, rel=1e-6)
        assert abs(box.velocity[0]) < 1e-9 and (slide.translation > 0) == (speed > 0)


# --- wheel suspension between two moving bodies -------------------------------------------------


def test_suspension_of_a_chassis_on_two_wheels_sags_by_its_load_over_the_stiffness():
    # A chassis on two wheels resting on the ground. Each spring of frequency f has the
    # stiffness k = m_eff·(2πf)² of the row's effective mass along the axis u,
    # m_eff = 1/(1/m_c + 1/m_w + a²/I_c), where a = (c_wheel − c_chassis) × u = ±1 m (the
    # wheels sit 1 m either side of the chassis's centre; the wheel's own arm is zero).
    # Each carries half the chassis's weight, so the sag is m_c·g/(2k). Critically damped,
    # the start-up has decayed by e^(−ωt) ≈ 1e-50 after 10 s: what remains is rounding.
    world = pb.World(sleeping=False)
    world.add_body(pb.Polygon.box(10.0, 0.5), position=(0, -0.5), kind="static")
    chassis = world.add_body(pb.Polygon.box(1.0, 0.1), position=(0, 1.0))
    wheels = [world.add_body(pb.Circle(0.3), position=(x, 0.3)) for x in (-1.0, 1.0)]
    hertz = 2.0
    springs = [world.add_joint(pb.WheelJoint(chassis, wheel, wheel.position, (0, 1),
                                             hertz=hertz, damping_ratio=1.0))
               for wheel in wheels]
    for _ in range(600):
        world.step(DT)
    arm = 1.0
    effective_mass = 1.0 / (1.0 / chassis.mass + 1.0 / wheels[0].mass
                            + arm ** 2 / chassis.inertia)
    stiffness = effective_mass * (2.0 * math.pi * hertz) ** 2
    sag = chassis.mass * G / (2.0 * stiffness)
    # The chassis's anchor sinks towards the wheel along +u: the travel grows by the sag.
    for spring in springs:
        assert spring.translation == pytest.approx(sag, rel=1e-6)
    assert abs(chassis.angle) < 1e-9


# --- the velocity form of the wheel and mouse joints --------------------------------------------


def _drift(bodies, seconds: float) -> None:
    """Move each body by its velocities alone: c + v·t, θ + ω·t (centres are origins)."""
    for body in bodies:
        velocity, turn = body.velocity, body.angular_velocity
        body.position = body.position + seconds * velocity
        body.angle = body.angle + seconds * turn
        body.velocity, body.angular_velocity = velocity, turn


def test_velocity_form_of_wheel_and_mouse_joints_is_the_derivative_of_the_constraint():
    # Ċ = J·v, checked by a central difference of C along the bodies' own motion, exact
    # to O(ε²): 1e-8 for ε = 1e-4 and speeds of order 1. For the wheel C is the travel
    # u_A·(p_B − p_A), u_A turning with A, so Ċ = u·(v_B(p_B) − v_A(p_A)) + (ω_A × u)·
    # (p_B − p_A); for the mouse C is the pulled point, whose rate is v_B at that point.
    rng = np.random.default_rng(11)
    world = pb.World(gravity=(0, 0))
    a = world.add_body(pb.Polygon.box(0.4, 0.3), position=(0.1, 0.2), angle=0.3,
                       velocity=rng.normal(size=2), angular_velocity=rng.normal())
    b = world.add_body(pb.Circle(0.3), position=(1.4, 0.9),
                       velocity=rng.normal(size=2), angular_velocity=rng.normal())
    axis = np.array([0.6, 0.8])
    wheel = world.add_joint(pb.WheelJoint(a, b, (1.4, 0.9), axis, hertz=0.0))
    mouse = world.add_joint(pb.MouseJoint(b, (1.6, 0.7), max_force=1.0))
    # Slide B 0.3 m along the axis first, so the travel and its turning term are not zero.
    b.position = b.position + 0.3 * axis
    point_b = b.position  # the wheel's anchor on B is B's centre
    point_a = point_b - wheel.translation * axis
    normal_turn = a.angular_velocity * np.array([-axis[1], axis[0]])
    wheel_rate = (np.dot(axis, b.velocity_at(point_b) - a.velocity_at(point_a))
                  + np.dot(normal_turn, point_b - point_a))
    mouse_rate = b.velocity_at(mouse.point)
    epsilon = 1e-4
    _drift((a, b), epsilon)
    ahead = wheel.translation, mouse.point
    _drift((a, b), -2.0 * epsilon)
    behind = wheel.translation, mouse.point
    assert (ahead[0] - behind[0]) / (2 * epsilon) == pytest.approx(wheel_rate, abs=1e-7)
    np.testing.assert_allclose((ahead[1] - behind[1]) / (2 * epsilon), mouse_rate, atol=1e-7)


# --- removal, re-adding and bad input -----------------------------------------------------------


def test_a_removed_rod_stops_acting_and_holds_again_once_added_back():
    world = pb.World()
    pin = world.add_body(pb.Circle(0.1), position=(0, 5), kind="static")
    ball = world.add_body(pb.Circle(0.2), position=(1, 5))
    rod = world.add_joint(pb.DistanceJoint(pin, ball, (0, 5), (1, 5)))
    for _ in range(20):
        world.step(DT)
    world.remove_joint(rod)
    assert world.joints == [] and rod.world is None
    # Free now: symplectic Euler over n substeps of h moves the ball by n·h·v₀ −
    # g·h²·n(n+1)/2, exactly to rounding.
    start, velocity = ball.position, ball.velocity
    for _ in range(10):
        world.step(DT)
    n, h = 10 * world.solver.substeps, DT / world.solver.substeps
    expected = start + n * h * velocity - np.array([0.0, G * h * h * n * (n + 1) / 2])
    np.testing.assert_allclose(ball.position, expected, atol=1e-12)
    world.add_joint(rod)
    assert world.joints == [rod] and rod.world is world and ball.awake
    for _ in range(120):
        world.step(DT)
    # Held again at its rest length, to the rod's stretch under its load (under 1e-3).
    assert rod.current_length == pytest.approx(1.0, abs=1e-3)


def test_a_joint_keeps_its_bodies_while_others_come_and_go():
    world = pb.World()
    pin = world.add_body(pb.Circle(0.1), position=(0, 5), kind="static")
    before = [world.add_body(pb.Circle(0.2), position=(-5.0 - k, 0)) for k in range(3)]
    ball = world.add_body(pb.Circle(0.2), position=(0, 3))
    rod = world.add_joint(pb.DistanceJoint(pin, ball, (0, 5), (0, 3)))
    for step in range(90):
        if step % 30 == 0 and before:
            world.remove_body(before.pop(0))  # the ball's row moves up one
        if step % 30 == 15:
            world.add_body(pb.Circle(0.2), position=(5.0 + step, 0))
        world.step(DT)
    assert rod.body_b is ball and rod.body_a is pin
    # The ball still hangs 2 m below the pin, at rest (it started there).
    np.testing.assert_allclose(ball.position, [0.0, 3.0], atol=1e-3)
    assert rod.reaction_force[1] == pytest.approx(ball.mass * G, rel=1e-3)


def _three_bodies():
    world = pb.World()
    static = world.add_body(pb.Circle(0.1), kind="static")
    ball = world.add_body(pb.Circle(0.2), position=(1, 0))
    other = world.add_body(pb.Circle(0.2), position=(2, 0))
    return world, static, ball, other


@pytest.mark.parametrize("make, error, name", [
    (lambda s, b: pb.PrismaticJoint(s, b, (0, 0), (1, 0), lower=1.0, upper=0.0),
     ValueError, "lower must not exceed upper"),
    (lambda s, b: pb.WheelJoint(s, b, (0, 0), (0, 1), lower=1.0, upper=0.0),
     ValueError, "lower must not exceed upper"),
    (lambda s, b: pb.WheelJoint(s, b, (0, 0), (0.0, 0.0)), ValueError, "axis"),
    (lambda s, b: pb.DistanceJoint(s, b, (0, 0), (1, 0), min_length=2.0, max_length=1.0),
     ValueError, "min_length must not exceed max_length"),
    (lambda s, b: pb.DistanceJoint(s, b, (0, 0), (1, 0), damping_ratio=-1.0),
     ValueError, "damping_ratio"),
    (lambda s, b: pb.WeldJoint(s, b, (0, 0), angular_hertz=-1.0), ValueError,
     "angular_hertz"),
    (lambda s, b: pb.WeldJoint(s, b, (0, 0), linear_damping_ratio=-1.0), ValueError,
     "linear_damping_ratio"),
    (lambda s, b: pb.RevoluteJoint(s, b, (0, 0), max_motor_torque=-1.0), ValueError,
     "max_motor_torque"),
    (lambda s, b: pb.PrismaticJoint(s, b, (0, 0), (1, 0), max_motor_force=-1.0), ValueError,
     "max_motor_force"),
    (lambda s, b: pb.WheelJoint(s, b, (0, 0), (0, 1), hertz=-1.0), ValueError, "hertz"),
    (lambda s, b: pb.MouseJoint(b, (0, 0), max_force=0.0), ValueError, "max_force"),
    (lambda s, b: pb.MouseJoint(b, (0, 0), max_force=1.0, hertz=0.0), ValueError, "hertz"),
    (lambda s, b: pb.RevoluteJoint(s, "ball", (0, 0)), TypeError, "body_b"),
    (lambda s, b: pb.RevoluteJoint(s, b, (0, 0), collide_connected=1), TypeError,
     "collide_connected"),
    (lambda s, b: pb.RevoluteJoint(s, b, (0, math.nan)), ValueError, "anchor"),
])
def test_bad_joint_arguments_are_named(make, error, name):
    _, static, ball, _ = _three_bodies()
    with pytest.raises(error, match=name):
        make(static, ball)


def test_removed_bodies_and_bad_settings_are_named():
    world, static, ball, other = _three_bodies()
    waiting = pb.DistanceJoint(static, other, (0, 0), (2, 0))
    world.remove_body(other)
    with pytest.raises(ValueError, match="body_b was removed"):
        world.add_joint(waiting)
    with pytest.raises(ValueError, match="body_b was removed"):
        pb.RevoluteJoint(static, other, (0, 0))
    hinge = world.add_joint(pb.RevoluteJoint(static, ball, (0, 0)))
    with pytest.raises(ValueError, match="lower_angle must not exceed upper_angle"):
        hinge.set_limits(1.0, 0.0)
    with pytest.raises(ValueError, match="motor_speed"):
        hinge.motor_speed = math.inf
    with pytest.raises(ValueError, match="max_motor_torque"):
        hinge.max_motor_torque = -1.0
    mouse = world.add_joint(pb.MouseJoint(ball, (1, 0), max_force=1.0))
    with pytest.raises(ValueError, match="target"):
        mouse.target = (math.nan, 0.0)
    with pytest.raises(ValueError, match="joint is not in this world"):
        pb.World().remove_joint(hinge)
    # Nothing refused was half done: the world holds the two joints added.
    assert world.joints == [hinge, mouse]
    assert hinge.lower_angle == -math.inf and hinge.motor_speed == 0.0

"""World views are labelled in metres unless the caller labelled them (physbook.viz.world)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import physbook as pb  # noqa: E402
from physbook.geometry.shapes import Circle, Polygon  # noqa: E402
from physbook.vecmath import vec  # noqa: E402


def _world():
    world = pb.World(solver="impulse")
    world.add_body(Polygon.box(2.0, 0.25), position=(0, -0.25), kind="static")
    world.add_body(Circle(0.3), position=(0.0, 0.29))
    world.step(1 / 60)
    return world


def test_draw_world_labels_axes_in_metres():
    fig, ax = plt.subplots()
    pb.viz.draw_world(ax, _world(), contacts=True)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x (m)", "y (m)")
    plt.close(fig)


def test_a_label_set_before_or_after_drawing_is_kept():
    fig, (before, after) = plt.subplots(1, 2)
    before.set_ylabel("height (mm)")
    pb.viz.draw_world(before, _world())
    assert (before.get_xlabel(), before.get_ylabel()) == ("x (m)", "height (mm)")
    pb.viz.draw_world(after, _world())
    after.set_xlabel("x (m), shifted")
    assert after.get_xlabel() == "x (m), shifted"
    plt.close(fig)


def test_draw_bodies_labels_a_cleared_axis_of_an_animation():
    world = _world()
    fig, ax = plt.subplots()
    ax.set_xlabel("old")
    ax.clear()                                   # what the player does before each frame
    pb.viz.draw_bodies(ax, [body.shapes for body in world.bodies], world.bodies.kinds,
                       world.bodies.ids,
                       world.bodies.origins, world.bodies.angles)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x (m)", "y (m)")
    plt.close(fig)


def test_impulse_arrows_are_the_impulses_given_to_body_b():
    # A ball resting on a floor: every arrow is j·n + j_t·t with t = perp(n), scaled.
    world = _world()
    for _ in range(30):
        world.step(1 / 60)
    fig, ax = plt.subplots()
    pb.viz.draw_contacts(ax, world.contacts, normals=False, impulses=True, impulse_scale=2.0)
    (arrows,) = ax.collections
    contacts = world.contacts
    normal, j, jt = contacts.normals[0], contacts.normal_impulses[0, 0], \
        contacts.tangent_impulses[0, 0]
    expected = 2.0 * (j * normal + jt * vec.perp(normal))
    np.testing.assert_allclose([arrows.U[0], arrows.V[0]], expected, rtol=1e-12)
    # At rest the floor carries the ball's weight over the step: j = m g Δt.
    ball = world.bodies[1]
    assert abs(j - ball.mass * 10.0 / 60) < 0.02 * ball.mass * 10.0 / 60
    plt.close(fig)

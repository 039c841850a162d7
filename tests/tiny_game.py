"""A tiny game for the tests of the live view and the replay player: a floor, a ball, a
box on a hinge, a capsule, a sensor; a pointer press throws the ball towards the point."""

from __future__ import annotations

import physbook as pb
from physbook.draw import Style

#: The style of the game's own marker (where the pointer was last pressed).
MARKER = Style("marker", None, (10, 10, 10))


class TinyGame:
    """The game protocol of :class:`physbook.viz.GameView`, on a world small enough to step
    quickly without numba.

    ``script`` maps a step number to the events applied at that step (a recording, played
    back as the lead's games do); ``fail_at`` makes that step raise RuntimeError.
    """

    dt = 1 / 64

    def __init__(self, script=None, fail_at=None):
        self.script = dict(script or {})
        self.fail_at = fail_at
        self.handled: list[dict] = []
        self.resets = 0
        self.reset()
        self.resets = 0

    def reset(self) -> None:
        world = pb.World()
        world.add_body(pb.Polygon.box(5.0, 0.5), position=(0.0, -0.5), kind="static")
        self.ball = world.add_body(pb.Circle(0.3), position=(-2.0, 1.0))
        hinge = world.add_body(pb.Polygon.box(0.1, 0.1), position=(2.0, 3.0), kind="static")
        box = world.add_body(pb.Polygon.box(0.4, 0.2, radius=0.05), position=(2.6, 3.0))
        world.add_joint(pb.RevoluteJoint(hinge, box, anchor=(2.0, 3.0)))
        world.add_body(pb.Capsule((-0.4, 0.0), (0.4, 0.0), 0.15), position=(0.0, 2.0))
        world.add_body(pb.Circle(0.5), position=(-3.5, 0.5), kind="static", sensor=True)
        self.world = world
        self.queue: list[dict] = []
        self.step_count = 0
        self.pressed = None
        self.resets += 1

    @property
    def view(self):
        return (-5.0, -1.0, 5.0, 5.0)

    def handle(self, event: dict) -> None:
        self.handled.append(event)
        self.queue.append(event)

    def step(self) -> None:
        events = self.queue + list(self.script.get(self.step_count, ()))
        self.queue = []
        for event in events:
            if event["type"] == "down":
                self.pressed = (event["x"], event["y"])
                centre = self.ball.position
                self.ball.velocity = (2.0 * (event["x"] - centre[0]),
                                      2.0 * (event["y"] - centre[1]))
        if self.fail_at is not None and self.step_count == self.fail_at:
            raise RuntimeError("the game broke on purpose")
        self.world.step(self.dt)
        self.step_count += 1

    def status(self) -> str:
        return f"step {self.step_count}"

    def draw(self, drawer) -> None:
        if self.pressed is not None:
            drawer.point(self.pressed, 6.0, MARKER)

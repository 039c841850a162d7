"""What every game of chapter 17 shares: inputs taken between steps, and recorded.

A game receives its player's inputs whenever they happen (a mouse moves, a key goes down)
but acts on them only at its next fixed step, and writes each into its log with the number
of that step. Physics is deterministic (chapter 3): the same world, stepped the same number
of times with the same inputs at the same steps, gives the same states bit for bit. So a
game started from its level with a log replays it exactly: at step *n* it applies the
events logged at *n*, in their order, instead of live ones. A replay needs nothing else: no
state copied, no clock.

An event is a small dict, as :class:`physbook.viz.GameView` sends them:

- ``{"type": "down" | "move" | "up", "x": ..., "y": ...}``: the pointer (mouse button or
  touch) in world coordinates (m);
- ``{"type": "keydown" | "keyup", "key": ...}``: a key, by the browser's name for it
  (``"ArrowLeft"``, ``" "``, ``"1"``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from physbook import _check
from physbook.world import World

#: The event types a game takes, and the fields each carries besides its type.
EVENT_FIELDS = {"down": ("x", "y"), "move": ("x", "y"), "up": ("x", "y"),
                "keydown": ("key",), "keyup": ("key",)}

#: One logged input: the step it acts at and the event.
LoggedInput = tuple[int, dict]


def checked_event(event) -> dict:
    """A copy of ``event`` holding only its type and fields, checked: a pointer event's
    ``x`` and ``y`` finite numbers (m), a key event's ``key`` a non-empty string.

    Raises
    ------
    TypeError, ValueError
        If ``event`` is not a dict, or its type or a field is missing or wrong.
    """
    if not isinstance(event, dict):
        raise TypeError(f"event must be a dict, got {type(event).__name__}")
    kind = event.get("type")
    if kind not in EVENT_FIELDS:
        raise ValueError(f"event['type'] must be one of {sorted(EVENT_FIELDS)}, got {kind!r}")
    clean = {"type": kind}
    for name in EVENT_FIELDS[kind]:
        if name not in event:
            raise ValueError(f"a {kind!r} event must have {name!r}")
        value = event[name]
        if name == "key":
            if not isinstance(value, str) or not value:
                raise ValueError(f"event['key'] must be a non-empty string, got {value!r}")
        else:
            value = _check.finite_scalar(value, f"event[{name!r}]")
        clean[name] = value
    return clean


def checked_log(log) -> tuple[LoggedInput, ...]:
    """``log`` as a tuple of (step, event), each event checked and the steps never
    decreasing (a log is in the order the inputs acted)."""
    if isinstance(log, (str, bytes, dict)) or not isinstance(log, Iterable):
        raise TypeError(f"log must be a sequence of (step, event) pairs, got "
                        f"{type(log).__name__}")
    entries, last = [], 0
    for i, entry in enumerate(log):
        if not isinstance(entry, Sequence) or isinstance(entry, str) or len(entry) != 2:
            raise TypeError(f"log[{i}] must be a (step, event) pair, got {entry!r}")
        step = _check.non_negative_int(entry[0], f"log[{i}] step")
        if step < last:
            raise ValueError(f"log steps must not decrease: log[{i}] acts at step {step}, "
                             f"after step {last}")
        last = step
        entries.append((step, checked_event(entry[1])))
    return tuple(entries)


class Game:
    """A game's inputs and its steps: subclasses build a level in :meth:`build` and act
    on one input in :meth:`apply` and on the time passing in :meth:`update`.

    Parameters
    ----------
    replay
        A log ((step, event) pairs, as :attr:`log` holds them) to play instead of live
        inputs; live inputs are then ignored. None (the default): play live.

    Attributes
    ----------
    dt
        The fixed step (s).
    log
        Every input that acted since the level began, as (step, event).
    """

    dt = 1.0 / 60.0

    def __init__(self, replay=None):
        self._replay = None if replay is None else checked_log(replay)
        self._queue: list[dict] = []
        self.log: list[LoggedInput] = []
        self.reset()

    # --- what a subclass writes ----------------------------------------------------------

    def build(self, world: World) -> None:
        """Fill the empty ``world`` with the level."""
        raise NotImplementedError

    def apply(self, event: dict) -> None:
        """Act on one checked input, just before a step."""

    def update(self) -> None:
        """The game's own work before each step, after the inputs (lifts, timers, turns)."""

    def advance(self) -> None:
        """Move the level on by one step: :meth:`update`, then the world's step by
        :attr:`dt`. A game that steps its world its own way overrides this."""
        self.update()
        self.world.step(self.dt)

    def status(self) -> str:
        """One line for the heads-up display."""
        return f"step {self.steps}"

    # --- the loop ------------------------------------------------------------------------

    @property
    def replaying(self) -> bool:
        """Whether the game plays a log rather than live inputs."""
        return self._replay is not None

    def reset(self) -> None:
        """Start the level again in a new world, with an empty log (a replay starts its
        log from the beginning)."""
        self.world = World()
        self.build(self.world)
        self.steps = 0
        self._queue.clear()
        self.log = []
        self._next = 0

    def handle(self, event) -> None:
        """Take a live input; it acts at the next :meth:`step`. A replaying game ignores
        live inputs (it has its log)."""
        event = checked_event(event)
        if not self.replaying:
            self._queue.append(event)

    def step(self) -> None:
        """One fixed step: the inputs that arrived since the last (or the replay's inputs
        logged for this step), logged and applied in order; the game's update; the world
        stepped by :meth:`advance`."""
        if self.replaying:
            replay, events = self._replay, []
            while self._next < len(replay) and replay[self._next][0] == self.steps:
                events.append(replay[self._next][1])
                self._next += 1
        else:
            events, self._queue = self._queue, []
        for event in events:
            self.log.append((self.steps, event))
            self.apply(event)
        self.advance()
        self.steps += 1

    def run(self, steps: int) -> None:
        """Take ``steps`` steps (a replay plays its log as it goes)."""
        for _ in range(_check.non_negative_int(steps, "steps")):
            self.step()

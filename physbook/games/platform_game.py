"""Chapter 16's platformer as a game played with the keys: the arrows (or A, D, W) walk
and jump, and the view follows the character.

The level, its character and its mechanics are :class:`~physbook.scenes.platformer.
Platformer`'s; this adds what a player's keyboard needs: keys held down between a
``keydown`` and its ``keyup``, turned into the level's "left", "right" and "jump" at each
step, and a camera.
"""

from __future__ import annotations

from physbook.games.game import Game, LoggedInput
from physbook.scenes.platformer import COINS, RECORDED_INPUT, Platformer
from physbook.world import World

#: The level's action for each key, by the browser's key names.
KEY_ACTIONS = {"ArrowLeft": "left", "a": "left", "ArrowRight": "right", "d": "right",
               "ArrowUp": "jump", "w": "jump", " ": "jump"}
#: The view's size (m), 16:9, and how far above the character its centre sits (m).
VIEW_SIZE, VIEW_LIFT = (16.0, 9.0), 2.0


def key_log(spans=RECORDED_INPUT) -> tuple[LoggedInput, ...]:
    """The key events that hold the actions of (first step, last step, actions) spans, as
    :attr:`Platformer.play <physbook.scenes.platformer.Platformer.play>` reads them: a
    ``keydown`` at the first step of a span for each action not held before, a ``keyup``
    the step after its last."""
    key_of = {"left": "ArrowLeft", "right": "ArrowRight", "jump": "ArrowUp"}
    log = []
    for first, last, actions in spans:
        for action in actions:
            log.append((first, {"type": "keydown", "key": key_of[action]}))
            log.append((last + 1, {"type": "keyup", "key": key_of[action]}))
    return tuple(sorted(log, key=lambda entry: entry[0]))


class PlatformGame(Game):
    """:class:`~physbook.scenes.platformer.Platformer` played with keys (see the module
    docstring); ``replay`` as for :class:`~physbook.games.game.Game`.

    Attributes
    ----------
    platformer
        The level.
    held
        The actions whose keys are down.
    """

    def build(self, world: World) -> None:
        self.platformer = Platformer(world)
        self.held: set[str] = set()
        self._keys: set[str] = set()

    def apply(self, event: dict) -> None:
        action = KEY_ACTIONS.get(event.get("key"))
        if action is None:
            return
        if event["type"] == "keydown":
            self._keys.add(event["key"])
        elif event["type"] == "keyup":
            self._keys.discard(event["key"])
        self.held = {KEY_ACTIONS[key] for key in self._keys}

    def advance(self) -> None:
        self.platformer.step(tuple(sorted(self.held)))

    @property
    def view(self) -> tuple[float, float, float, float]:
        """The world rectangle shown (m): centred on the character, a little above it."""
        x, y = self.platformer.scene.bodies["player"].center_of_mass
        width, height = VIEW_SIZE
        y = y + VIEW_LIFT
        return (x - width / 2, y - height / 2, x + width / 2, y + height / 2)

    def status(self) -> str:
        return (f"coins {len(self.platformer.collected)} of {len(COINS)} · arrows walk, "
                f"up jumps")

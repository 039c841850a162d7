"""Chapter 17: games played live in JupyterLab, and replayed bit for bit.

A game takes its player's inputs between fixed steps and logs them with the step they acted
at (:mod:`physbook.games.game`), so a log replays the game exactly. Two games:

- :class:`~physbook.games.slingshot.Slingshot`: drag a projectile back with the mouse and
  let go at a structure, three levels, each with a recorded solution
  (:mod:`physbook.games.solutions`);
- :class:`~physbook.games.platform_game.PlatformGame`: chapter 16's platformer, played with
  the arrow keys.

:class:`physbook.viz.GameView` plays either in a notebook; ``replay=`` plays a log back.
"""

from physbook.games.game import Game, checked_event, checked_log
from physbook.games.platform_game import PlatformGame, key_log
from physbook.games.slingshot import LEVELS, Slingshot
from physbook.games.solutions import SOLUTION_STEPS, SOLUTIONS

__all__ = ["LEVELS", "SOLUTIONS", "SOLUTION_STEPS", "Game", "PlatformGame", "Slingshot",
           "checked_event", "checked_log", "key_log"]

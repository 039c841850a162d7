"""Chapter 17: a game played live in a notebook.

:class:`GameView` is a widget that runs a *game* (an object with a world, a fixed step, a
view rectangle, input, step, reset and a status line; see :class:`GameView`) in real time
and draws it in the browser.

Why anywidget. The view is one anywidget: one small JavaScript module (``game_view.js``,
shipped in the package, no CDN) that draws on a canvas, receives each frame as one binary
message and sends the pointer, the keys and the buttons back on the same channel. A frame is
one float32 buffer (:mod:`physbook.viz.frame_encoding`), not a list of canvas commands, and
our own script acknowledges it once it is on screen. ipycanvas with ipyevents would do the
drawing and the events in two further front-end extensions, with no say over when a frame
counts as drawn.

Why asyncio, and why acknowledgements. A loop that steps and draws inside a cell blocks the
kernel: the messages that carry the reader's clicks queue behind it and are read only when
it ends. The loop here is an asyncio task in the kernel's own event loop, started when the
browser says it has shown the view (so a notebook run with no browser, by nbval or nbconvert,
never starts it). Once ``in_flight`` frames are on their way it awaits the browser's
acknowledgement of the oldest, and while it waits the kernel reads other messages: input,
buttons, other cells. The browser draws the oldest waiting frame on each display refresh
(passing over the oldest when more than :data:`QUEUE_LIMIT` wait) and acknowledges frames
in batches (:attr:`GameView.ack_every`, :data:`ACK_INTERVAL`), so frames go out no faster
than the display shows them and never pile up in a slow browser. A kernel may read the page's
messages on a thread of its own (an ipykernel subshell); the view hands each to the game's
loop (``call_soon_threadsafe``), so one thread steps the world.

Each frame runs chapter 3's fixed step: the real time since the last frame (clamped to
:data:`MAX_FRAME_TIME`) fills an accumulator, ``game.step()`` runs while it holds a step,
and the frame is drawn ``alpha`` = leftover / dt of the way from the previous step's poses
to the current ones (:func:`~physbook.draw.poses.interpolate_poses`).

Testing hooks of the page (for a browser test): the root element has class
``physbook-game`` and attributes ``data-fps`` (frames drawn in the last second),
``data-frames`` (frames drawn) and ``data-view`` ("left bottom right top" of the last frame,
m); the canvas has class ``physbook-game-canvas``, the status line ``physbook-game-status``;
the buttons have titles ``"Pause"`` (``"Play"`` while paused), ``"Step"`` and ``"Reset"``.
"""

from __future__ import annotations

import asyncio
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable
from pathlib import Path

import anywidget
import numpy as np
import traitlets

from physbook import _check
from physbook.draw.poses import body_poses, interpolate_poses
from physbook.vecmath.timestep import FixedTimestep
from physbook.viz import _arguments
from physbook.viz.frame_encoding import FrameEncoder, encode_game, palette_entry
from physbook.world import World

__all__ = ["ACK_INTERVAL", "ACK_TIMEOUT", "GameView", "IN_FLIGHT", "MAX_FRAME_TIME",
           "MAX_IN_FLIGHT", "QUEUE_LIMIT", "STATIC_NOTE", "check_game", "game_view_rectangle"]

#: The longest real time (s) one frame catches up on: after a stall the game slows for a
#: moment rather than taking ever more steps per frame (chapter 3's spiral of death).
MAX_FRAME_TIME = 0.25

#: How long (s) the loop waits for a frame's acknowledgement before it counts the frame
#: as lost and sends the next in its place.
ACK_TIMEOUT = 1.0

#: The longest (s) the page keeps a handled frame before acknowledging it: it gathers
#: acknowledgements into batches (see :attr:`GameView.ack_every`), and sends a batch this long
#: after its first frame at the latest.
ACK_INTERVAL = 0.1

#: The most frames the page keeps waiting for the display (three refreshes, 50 ms at 60 Hz):
#: enough to smooth the bursts frames arrive in, few enough to add little delay.
QUEUE_LIMIT = 3

#: The most frames a view lets travel unacknowledged (``in_flight``), and how many it lets
#: travel by default. The page acknowledges in batches of half the window, or ACK_INTERVAL
#: after a frame at the latest, so the window must hold a batch and a round trip through a
#: busy Jupyter server (some 100 ms on a loaded two-core machine) at 60 frames a second.
MAX_IN_FLIGHT, IN_FLIGHT = 32, 12

#: What a game must have, beside ``world`` and ``dt``.
_GAME_METHODS = ("handle", "step", "reset", "status")


def check_game(game, name: str = "game"):
    """``game`` if it has what a game needs: ``world`` (a World), ``dt`` (s, positive),
    ``view``, and the methods ``handle``, ``step``, ``reset`` and ``status`` (``draw``,
    if it has one, callable)."""
    for method in _GAME_METHODS:
        if not callable(getattr(game, method, None)):
            raise TypeError(f"{name} must have a {method}() method (a game has handle, step, "
                            f"reset and status), a {type(game).__name__} has none")
    if getattr(game, "draw", None) is not None and not callable(game.draw):
        raise TypeError(f"{name}.draw must be callable or absent")
    _check.instance(getattr(game, "world", None), f"{name}.world", World, "a physbook World")
    _check.positive_scalar(getattr(game, "dt", None), f"{name}.dt")
    game_view_rectangle(game, name)
    return game


def game_view_rectangle(game, name: str = "game") -> list[float]:
    """``game.view`` as [left, bottom, right, top] (m), checked: finite, left < right,
    bottom < top."""
    rectangle = _check.finite_array(getattr(game, "view", None), f"{name}.view")
    if rectangle.shape != (4,):
        raise ValueError(f"{name}.view must be (left, bottom, right, top) in metres, got "
                         f"shape {rectangle.shape}")
    left, bottom, right, top = (float(value) for value in rectangle)
    if not (left < right and bottom < top):
        raise ValueError(f"{name}.view must have left < right and bottom < top, got "
                         f"{(left, bottom, right, top)}")
    return [left, bottom, right, top]


#: What a page with no kernel shows in the view's place.
STATIC_NOTE = ("A live game is here: it needs a running Python kernel (JupyterLab or VS "
               "Code). A replay, further on, plays in any browser.")


class GameView(anywidget.AnyWidget):
    """A game, played live in the notebook: shown when it is the cell's last value.

    Parameters
    ----------
    game
        The game: ``world`` (a :class:`~physbook.World`, which may be another object after
        ``reset()``), ``dt`` (the fixed step, s), ``view`` (the world rectangle to show,
        ``(left, bottom, right, top)`` in m, read each frame), ``handle(event)`` (queue an
        input for the next step: ``{"type": "down" | "move" | "up", "x": m, "y": m}`` for
        the pointer, ``{"type": "keydown" | "keyup", "key": str}`` with the browser's key
        name), ``step()``, ``reset()``, ``status()`` (the line under the canvas); optionally
        ``draw(drawer)`` (its own drawing, in world coordinates, through the
        :class:`~physbook.draw.DebugDraw` methods) and ``styles`` (role → Style, as
        :func:`~physbook.draw.draw_world` takes).
    width, height
        The canvas in CSS pixels, 16 to 8192 each; the view keeps its aspect inside.
    fps
        The most frames per second to send (the display's refresh limits them too).
    clock
        A function giving the time in seconds (what the loop measures frames by).
    in_flight
        How many frames may be on their way before the loop waits for an acknowledgement,
        1 to :data:`MAX_IN_FLIGHT` (:data:`IN_FLIGHT` by default). With 1 a frame goes out
        only once the last one is drawn and acknowledged. The trip from the kernel to
        JupyterLab's page and back takes some 50 ms on a small idle machine and twice that
        on a busy one (the page draws in a few), so 1 gives 10 to 20 frames a second there;
        with several in flight the next frames travel while the last are drawn and
        acknowledged (in batches of half the window), and frames still never pile up beyond
        ``in_flight``.

    Attributes
    ----------
    paused : bool
        Whether the game is paused (the Pause and Play buttons set it; so may code).
    error : BaseException or None
        What the game raised, which stopped the loop.

    Notes
    -----
    The loop starts when the browser has shown the view; :meth:`stop` ends it and
    :meth:`start` starts it again. The Step button runs one step and pauses; Reset calls
    ``game.reset()``. A page with no kernel (the static site) cannot show the view and
    shows :data:`STATIC_NOTE` instead, in an element of class ``physbook-game-static``.
    """

    _esm = Path(__file__).with_name("game_view.js")
    width = traitlets.Int(720).tag(sync=True)
    height = traitlets.Int(405).tag(sync=True)
    paused = traitlets.Bool(False).tag(sync=True)

    def __init__(self, game, *, width: int = 720, height: int = 405, fps: float = 60.0,
                 clock: Callable[[], float] = time.perf_counter,
                 in_flight: int = IN_FLIGHT) -> None:
        game = check_game(game)
        width = _check.integer(width, "width", 16, 8192)
        height = _check.integer(height, "height", 16, 8192)
        self._target_fps = _arguments.fps(fps)
        self._clock = _arguments.callback(clock, "clock")
        self._in_flight = _check.integer(in_flight, "in_flight", 1, MAX_IN_FLIGHT)
        super().__init__(width=width, height=height)
        self.game = game
        self.error: BaseException | None = None
        self._encoder = FrameEncoder()
        self._timestep = FixedTimestep(game.dt, max(MAX_FRAME_TIME, game.dt))
        self._task: asyncio.Task | None = None
        # (frame number, future) of each frame sent and not yet acknowledged, oldest first
        self._unacknowledged: deque[tuple[int, asyncio.Future]] = deque()
        self._visible = asyncio.Event()  # the page's view is in sight
        self._visible.set()
        self._running = False
        self._frames_sent = 0
        self._frames_drawn = 0
        self._steps = 0
        self._ack_times: deque[float] = deque()
        self._previous = None  # (world, ids, poses) before the last step
        self._last_time = 0.0
        # The event loop the game runs in: the kernel's, in which the view is made.
        self._home: asyncio.AbstractEventLoop | None = _running_loop()
        self.on_msg(self._on_message)

    def _repr_mimebundle_(self, **kwargs):
        # JupyterLab and VS Code show the widget view; a static export, which keeps no
        # widget state, falls back to the HTML: a note where the game would be.
        data = super()._repr_mimebundle_(**kwargs)
        if isinstance(data, tuple):
            data, metadata = data
        else:
            metadata = None
        data = dict(data or {})
        data["text/html"] = (f'<div class="physbook-game-static"><p><em>{STATIC_NOTE}'
                             '</em></p></div>')
        return (data, metadata) if metadata is not None else data

    # --- what a notebook reads -------------------------------------------------------

    @property
    def frames(self) -> int:
        """Frames the browser has drawn (and acknowledged)."""
        return self._frames_drawn

    @property
    def steps(self) -> int:
        """Steps of the game since it was shown or last reset."""
        return self._steps

    @property
    def fps(self) -> float:
        """Frames acknowledged in the last second of ``clock``."""
        self._forget_old_acks(self._clock())
        return float(len(self._ack_times))

    @property
    def ack_every(self) -> int:
        """How many handled frames the page gathers into one acknowledgement (or fewer, after
        :data:`ACK_INTERVAL`): half the window, so that the next batch travels while the
        last is acknowledged."""
        return max(1, self._in_flight // 2)

    @property
    def target_fps(self) -> float:
        """The most frames per second the loop sends (the ``fps`` it was made with)."""
        return self._target_fps

    @property
    def running(self) -> bool:
        """Whether the loop is running (False at once after :meth:`stop`)."""
        return self._running and self._task is not None and not self._task.done()

    # --- the loop ----------------------------------------------------------------------

    def start(self) -> None:
        """Start the loop (in the running asyncio loop: a Jupyter kernel's). The view starts
        it itself once the browser shows it; call this after :meth:`stop`."""
        if self.running:
            return
        loop = _running_loop()
        if self._away_from_home(loop):
            self._home.call_soon_threadsafe(self.start)
            return
        if loop is None:
            raise RuntimeError("GameView.start needs a running asyncio event loop, as a "
                               "Jupyter kernel has; in a script, drive the game directly")
        self._home = loop
        self.error = None
        self._running = True
        self._last_time = self._clock()
        self._task = loop.create_task(self._run())

    def stop(self) -> None:
        """End the loop (the frame on screen stays)."""
        self._running = False
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def _run(self) -> None:
        try:
            while self._running:
                await self._frame()
        except asyncio.CancelledError:
            pass
        except Exception as error:  # the game's: shown, kept, and the loop ends
            self._fail(error)

    async def _frame(self) -> None:
        """Step what the time since the last frame holds, send one frame, and, while
        ``in_flight`` frames are unacknowledged, await the oldest one's acknowledgement."""
        if not self._visible.is_set():
            await self._visible.wait()
            self._last_time = self._clock()  # the time out of sight is not caught up on
        now = self._clock()
        elapsed, self._last_time = max(now - self._last_time, 0.0), now
        if self.paused:
            alpha = 1.0
        else:
            for _ in range(self._timestep.advance(min(elapsed, MAX_FRAME_TIME))):
                self._step_game()
            alpha = self._timestep.alpha
        header, frame = self.encode_frame(alpha)
        loop = asyncio.get_running_loop()
        acknowledged = loop.create_future()
        entry = (header["frame"], acknowledged)
        self._unacknowledged.append(entry)
        loop.call_later(ACK_TIMEOUT, self._lose, entry)
        self.send(header, buffers=[frame.tobytes()])
        self._frames_sent += 1
        while len(self._unacknowledged) >= self._in_flight:
            await self._unacknowledged[0][1]  # the oldest frame's acknowledgement
        # Let the kernel read its messages even if the acknowledgement came at once, and
        # keep to the highest frame rate asked for.
        wait = 1.0 / self._target_fps - (self._clock() - now)
        await asyncio.sleep(wait if wait > 0.0 else 0.0)

    def _step_game(self) -> None:
        world = self.game.world
        self._previous = (world, world.bodies.ids.copy(), body_poses(world))
        self.game.step()
        self._steps += 1

    def drawn_poses(self, alpha: float):
        """The poses a frame shows at ``alpha``: between the last two steps, or the
        current ones (None) when there is no previous step of the same bodies (just reset,
        a body added or removed)."""
        if self._previous is None or alpha == 1.0:
            return None
        world, ids, poses = self._previous
        current = self.game.world
        if current is not world or not np.array_equal(current.bodies.ids, ids):
            return None
        return interpolate_poses(poses, body_poses(current), alpha,
                                 current.bodies.local_centers)

    def encode_frame(self, alpha: float = 1.0) -> tuple[dict, np.ndarray]:
        """The message of one frame: its header (frame number, view rectangle, status line,
        step count, paused, the styles new to the browser) and its float32 buffer (the
        world's shapes, sensors and joints at ``alpha`` of the last step, then the game's
        own drawing)."""
        game = self.game
        frame = encode_game(game, self._encoder, self.drawn_poses(alpha))
        header = {"type": "frame", "frame": self._frames_sent,
                  "view": game_view_rectangle(game), "status": str(game.status()),
                  "steps": self._steps, "paused": bool(self.paused),
                  "ack_every": self.ack_every, "ack_interval": 1000.0 * ACK_INTERVAL,
                  "queue_limit": QUEUE_LIMIT,
                  "palette": [[index, palette_entry(style)]
                              for index, style in self._encoder.new_styles()]}
        return header, frame

    # --- the browser's messages --------------------------------------------------------

    def _away_from_home(self, loop) -> bool:
        """Whether a call in ``loop`` (the caller's running loop, or None) is on another
        thread than the game's loop, which still runs."""
        return (self._home is not None and loop is not self._home
                and not self._home.is_closed() and self._home.is_running())

    def _on_message(self, widget, content, buffers) -> None:
        # A Jupyter kernel may read a widget's messages on a thread of its own (a subshell,
        # with its own event loop). The game and its loop live on the kernel's main loop:
        # a future resolved from another thread would not wake that loop, and two threads
        # would step one world, so the message is handed over to the game's thread.
        if self._away_from_home(_running_loop()):
            self._home.call_soon_threadsafe(self._dispatch, content)
        else:
            self._dispatch(content)

    def _dispatch(self, content) -> None:
        """Act on one message of the page, in the game's thread."""
        kind = content.get("type") if isinstance(content, dict) else None
        try:
            if kind == "ack":
                self._acknowledged(int(content["frame"]), int(content.get("drawn", 1)))
            elif kind == "visible":
                self._seen(bool(content.get("visible", True)))
            elif kind == "ready":
                self._ready()
            elif kind in ("down", "move", "up"):
                self.game.handle({"type": kind, "x": float(content["x"]),
                                  "y": float(content["y"])})
            elif kind in ("keydown", "keyup"):
                self.game.handle({"type": kind, "key": str(content["key"])})
            elif kind == "button":
                self.press(content.get("name"))
        except Exception as error:  # the game's: shown and kept, and the loop stops
            self._fail(error)

    def _ready(self) -> None:
        """A browser view has been shown: start, or send it the whole palette and a frame."""
        self._encoder.resend_palette()
        if self.running:
            # the frames sent to a view now gone will not be acknowledged
            while self._unacknowledged:
                self._unacknowledged.popleft()[1].set_result(None)
        elif self.error is None:
            self.start()

    def _acknowledged(self, frame: int, drawn: int = 1) -> None:
        """The page has handled every frame up to number ``frame`` and drawn ``drawn`` of
        those it had not yet acknowledged (the others a newer frame overtook before the
        display refreshed): their places go to new frames."""
        now, drawn = self._clock(), max(drawn, 0)
        self._frames_drawn += drawn
        self._ack_times.extend([now] * drawn)
        self._forget_old_acks(now)
        while self._unacknowledged and self._unacknowledged[0][0] <= frame:
            self._unacknowledged.popleft()[1].set_result(None)

    def _seen(self, visible: bool) -> None:
        """The page's view came into sight or went out of it: out of sight, the loop waits
        (the game does not run unseen, and costs nothing)."""
        if visible:
            self._visible.set()
        else:
            self._visible.clear()

    def _lose(self, entry: tuple[int, asyncio.Future]) -> None:
        """A frame no page acknowledged within ACK_TIMEOUT (the view that had it went away,
        or it was lost on the way): its place goes to the next frame."""
        if not entry[1].done():
            self._unacknowledged.remove(entry)
            entry[1].set_result(None)

    def _forget_old_acks(self, now: float) -> None:
        while self._ack_times and self._ack_times[0] <= now - 1.0:
            self._ack_times.popleft()

    def press(self, name: str) -> None:
        """What a button does: ``"pause"``, ``"play"``, ``"step"`` (one step, paused) or
        ``"reset"`` (``game.reset()``, the step count and the accumulator emptied)."""
        name = _check.choice(name, "name", ("pause", "play", "step", "reset"))
        if name == "pause":
            self.paused = True
        elif name == "play":
            self._last_time = self._clock()  # the paused time is not caught up on
            self.paused = False
        elif name == "step":
            self.paused = True
            self._step_game()
        else:
            self.game.reset()
            self._timestep.reset()
            self._previous = None
            self._steps = 0

    def _fail(self, error: BaseException) -> None:
        """Keep ``error``, stop the loop, print the traceback and show the error's line."""
        self.error = error
        self._running = False
        traceback.print_exception(type(error), error, error.__traceback__, file=sys.stderr)
        self.send({"type": "error", "text": f"stopped: {type(error).__name__}: {error}"})
        if self._task is not None and self._task is not _current_task():
            self._task.cancel()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, or None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _current_task():
    try:
        return asyncio.current_task()
    except RuntimeError:
        return None


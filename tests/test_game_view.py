"""The live view's loop, without a browser: a fake front end takes each frame message,
moves an injected clock and acknowledges from a coroutine, as the page does after drawing.

Checked: the steps taken are floor(elapsed / dt) (chapter 3's accumulator); no frame goes
out before the last one's acknowledgement; pause, Step and Reset; input reaches the game;
a game that raises stops the loop and keeps its error; another coroutine (a notebook's next
cell) runs while the loop runs; a frame decodes to the world drawn at the interpolated
poses."""

from __future__ import annotations

import asyncio
import concurrent.futures
import math
import threading
from pathlib import Path

import numpy as np
import pytest
from test_frame_encoding import Recorder, assert_same_calls
from tiny_game import TinyGame

from physbook.draw import draw_world
from physbook.draw.poses import body_poses, interpolate_poses
from physbook.viz import GameView
from physbook.viz.frame_encoding import decode_frame


class Clock:
    """Time (s) that moves only when told: exact binary fractions, so sums are exact."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


class FakePage:
    """What the browser does: take a frame, draw it (here: advance the clock by ``tick``),
    acknowledge it from a coroutine; it also checks that no frame comes unacknowledged."""

    def __init__(self, view: GameView, clock: Clock, tick: float, in_flight: int = 1):
        self.view, self.clock, self.tick, self.in_flight = view, clock, tick, in_flight
        self.headers, self.frames, self.errors = [], [], []
        self.waiting = set()  # frames sent and not yet acknowledged
        self.most_waiting = 0
        self.sent_at = []  # the clock when each frame was sent
        self.inbox: asyncio.Queue = asyncio.Queue()
        view.send = self.receive  # the widget's messages come here

    def receive(self, content, buffers=None):
        if content["type"] == "error":
            self.errors.append(content["text"])
            return
        assert len(self.waiting) < self.in_flight, (
            f"a frame was sent while {len(self.waiting)} were unacknowledged")
        self.waiting.add(content["frame"])
        self.most_waiting = max(self.most_waiting, len(self.waiting))
        self.sent_at.append(self.clock.now)
        self.headers.append(content)
        self.frames.append(np.frombuffer(buffers[0], dtype=np.float32).copy())
        self.inbox.put_nowait(content["frame"])

    def say(self, **content):
        self.view._handle_custom_msg(content, [])

    async def run(self, frames: int, between=None):
        """Show the view, then draw and acknowledge ``frames`` frames; a slow page (one that
        acknowledges only once ``in_flight`` frames wait) when ``in_flight`` > 1."""
        self.say(type="ready")
        for _ in range(frames):
            frame = await self.inbox.get()
            for _ in range(1000):
                if len(self.waiting) >= self.in_flight:
                    break
                await asyncio.sleep(0)
            self.clock.now += self.tick
            if between is not None:
                between(len(self.headers))
            self.waiting.discard(frame)
            self.say(type="ack", frame=frame)
        # the frame the last acknowledgement lets out
        await asyncio.wait_for(self.inbox.get(), timeout=60)


def run_apart(coroutine):
    """``asyncio.run(coroutine)`` in a thread of its own: on a test worker whose thread
    already runs an event loop (Playwright's, when the browser tests share the worker),
    another cannot start in the same thread."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def play(game, frames: int, tick: float, between=None, fps: float = 1000.0,
         in_flight: int = 1):
    """Run ``game`` in a view for ``frames`` acknowledged frames; the view and the page."""
    clock = Clock()

    async def main():
        view = GameView(game, clock=clock, fps=fps, in_flight=in_flight)
        page = FakePage(view, clock, tick, in_flight)
        await page.run(frames, between)
        view.stop()
        await asyncio.sleep(0)
        return view, page

    return run_apart(main())


def test_the_steps_taken_are_the_elapsed_time_over_dt():
    game = TinyGame()  # dt = 1/64 s
    tick = 3 / 128  # 1.5 steps of real time per frame
    view, page = play(game, 40, tick)
    # The frame sent after k acknowledgements saw k·tick of real time.
    steps = [header["steps"] for header in page.headers]
    assert steps == [math.floor(k * tick / game.dt) for k in range(len(steps))]
    assert game.step_count == steps[-1] == view.steps
    assert view.frames == 40 and len(page.headers) == 41
    assert [header["frame"] for header in page.headers] == list(range(41))
    assert page.headers[0]["view"] == [-5.0, -1.0, 5.0, 5.0]
    assert page.headers[-1]["status"] == f"step {game.step_count}"
    # The clock is the page's: 40 frames in 40·3/128 s, of which the last second holds all.
    assert view.fps == 40.0
    assert not view.running


@pytest.mark.parametrize("in_flight", [2, 3])
def test_frames_in_flight_are_bounded_and_steps_follow_the_clock(in_flight):
    game = TinyGame()
    tick = 3 / 128
    view, page = play(game, 40, tick, in_flight=in_flight)
    assert page.most_waiting == in_flight  # reached, and never passed (FakePage checks)
    start = page.sent_at[0]
    assert [header["steps"] for header in page.headers] == [
        math.floor((sent - start) / game.dt) for sent in page.sent_at]
    assert view.frames == 40 and len(page.headers) == 40 + in_flight


def test_a_frame_passed_over_frees_the_loop_but_is_not_counted_as_drawn():
    game = TinyGame()
    clock = Clock()

    async def main():
        view = GameView(game, clock=clock, fps=1000.0, in_flight=2)
        page = FakePage(view, clock, 1 / 64, in_flight=2)
        page.say(type="ready")
        for frame in range(10):
            await page.inbox.get()
            clock.now += 1 / 64
            page.waiting.discard(frame)
            page.say(type="ack", frame=frame, drawn=0 if frame % 2 else 1)
        await asyncio.wait_for(page.inbox.get(), timeout=60)
        view.stop()
        return view, page

    view, page = run_apart(main())
    assert view.frames == 5 and len(page.headers) >= 11


def test_one_acknowledgement_frees_every_frame_up_to_the_one_it_names():
    """The page acknowledges in batches: "frame k, d drawn" frees frame k and every one
    before it, and counts d frames drawn."""
    game = TinyGame()
    clock = Clock()

    async def main():
        view = GameView(game, clock=clock, fps=1000.0, in_flight=4)
        page = FakePage(view, clock, 1 / 64, in_flight=4)
        page.say(type="ready")
        for frame in range(16):
            await page.inbox.get()
            clock.now += 1 / 64
            if frame % 2 == 1:  # frames 2j and 2j + 1 in one message, one of them drawn
                for _ in range(1000):  # a slow page: the window fills first
                    if len(page.waiting) >= 4:
                        break
                    await asyncio.sleep(0)
                page.waiting -= {frame - 1, frame}
                page.say(type="ack", frame=frame, drawn=1)
        await asyncio.wait_for(page.inbox.get(), timeout=60)
        view.stop()
        return view, page

    view, page = run_apart(main())
    assert view.frames == 8  # 8 messages, each with one frame drawn
    assert page.most_waiting == 4  # the window filled, and FakePage saw it never passed
    assert {header["ack_every"] for header in page.headers} == {2}  # half the window
    assert {header["ack_interval"] for header in page.headers} == {100.0}  # ms
    assert {header["queue_limit"] for header in page.headers} == {3}


class ThreadRecordingGame(TinyGame):
    """A tiny game that notes the thread of every call that changes it."""

    def __init__(self):
        self.threads = set()
        super().__init__()

    def handle(self, event):
        self.threads.add(threading.get_ident())
        super().handle(event)

    def step(self):
        self.threads.add(threading.get_ident())
        super().step()


def test_messages_read_on_another_thread_act_on_the_games_thread():
    """A kernel may read the page's messages on a thread of its own (a subshell, with its own
    event loop): acknowledgements, input and buttons still act on the thread of the game's
    loop, which they wake."""
    game = ThreadRecordingGame()
    clock = Clock()

    async def page_thread(view, page, home):
        # what the kernel's other thread does: it reads every message after "ready"
        for frame in range(12):
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(page.inbox.get(),
                                                                      home))
            clock.now += 1 / 64
            page.waiting.discard(frame)
            if frame == 4:
                view._handle_custom_msg({"type": "keydown", "key": "a"}, [])
                view._handle_custom_msg({"type": "button", "name": "step"}, [])
                view._handle_custom_msg({"type": "button", "name": "play"}, [])
            view._handle_custom_msg({"type": "ack", "frame": frame}, [])

    async def main():
        home = asyncio.get_running_loop()
        view = GameView(game, clock=clock, fps=1000.0, in_flight=1)
        page = FakePage(view, clock, 1 / 64, in_flight=1)
        page.say(type="ready")
        other = threading.Thread(target=lambda: asyncio.run(page_thread(view, page, home)))
        other.start()
        await asyncio.wait_for(asyncio.to_thread(other.join), timeout=60)
        await asyncio.wait_for(page.inbox.get(), timeout=60)  # the last ack lets one out
        view.stop()
        return view, page, threading.get_ident()

    view, page, home_thread = run_apart(main())
    assert game.threads == {home_thread}
    assert {"type": "keydown", "key": "a"} in game.handled
    assert view.frames == 12 and len(page.headers) == 13


def test_a_long_stall_is_clamped():
    game = TinyGame()
    view, page = play(game, 2, tick=10.0)  # two frames ten seconds apart
    assert [header["steps"] for header in page.headers] == [0, 16, 32]  # 0.25 s each


def test_a_frame_is_the_world_at_the_interpolated_poses():
    game = TinyGame()
    tick = 3 / 128  # 1.5 steps a frame: alpha alternates between 0 and 1/2, exactly
    view, page = play(game, 12, tick)
    palette = view._encoder.palette
    checked = []
    for k, header in enumerate(page.headers):
        steps = header["steps"]
        if steps == 0:
            continue
        alpha = k * tick / game.dt - steps
        # A second run of the game to the same step, drawn at alpha of its last step
        # (alpha 0: the step before, as chapter 3's display is one step behind).
        twin = TinyGame()
        for _ in range(steps - 1):
            twin.step()
        before = body_poses(twin.world)
        twin.step()
        shown = interpolate_poses(before, body_poses(twin.world), alpha,
                                  twin.world.bodies.local_centers)
        recorder = Recorder()
        draw_world(twin.world, recorder, poses=tuple(shown))
        assert_same_calls(decode_frame(page.frames[k], palette), recorder.calls)
        checked.append(alpha)
    assert checked.count(0.5) >= 4 and checked.count(0.0) >= 4


def test_pause_stops_stepping_and_step_steps_once():
    game = TinyGame()

    def buttons(sent):
        if sent == 3:
            page.say(type="button", name="pause")
        if sent == 6:
            page.say(type="button", name="step")
        if sent == 8:
            page.say(type="button", name="play")

    clock = Clock()

    async def main():
        nonlocal page
        view = GameView(game, clock=clock, fps=1000.0, in_flight=1)
        page = FakePage(view, clock, 1 / 64)
        await page.run(12, buttons)
        view.stop()
        return view

    page = None
    view = run_apart(main())
    steps = [header["steps"] for header in page.headers]
    paused = [header["paused"] for header in page.headers]
    # One step a frame (a frame is one dt of the clock), none while paused (frames 3 to
    # 7), one for Step (shown by frame 6); Play (before frame 8) does not catch up on the
    # time spent paused, so frame 8 takes none, then one a frame again.
    assert steps == [0, 1, 2, 2, 2, 2, 3, 3, 3, 4, 5, 6, 7]
    assert paused == [False] * 3 + [True] * 5 + [False] * 5
    assert game.step_count == 7 and not view.paused


def test_reset_resets_the_game_and_the_count():
    game = TinyGame()

    def reset(sent):
        if sent == 5:
            page.say(type="button", name="reset")

    clock = Clock()
    page = None

    async def main():
        nonlocal page
        view = GameView(game, clock=clock, fps=1000.0, in_flight=1)
        page = FakePage(view, clock, 1 / 64)
        await page.run(8, reset)
        view.stop()
        return view

    view = run_apart(main())
    assert game.resets == 1
    assert [header["steps"] for header in page.headers] == [0, 1, 2, 3, 4, 1, 2, 3, 4]
    assert view.steps == game.step_count == 4


def test_input_reaches_the_game_with_its_fields():
    game = TinyGame()

    def press(sent):
        if sent == 2:
            page.say(type="down", x=1.5, y=2)
            page.say(type="move", x=1.25, y=2.5)
            page.say(type="up", x=1, y=3)
            page.say(type="keydown", key="ArrowLeft")
            page.say(type="keyup", key="ArrowLeft")

    clock = Clock()
    page = None

    async def main():
        nonlocal page
        view = GameView(game, clock=clock, fps=1000.0, in_flight=1)
        page = FakePage(view, clock, 1 / 64)
        await page.run(4, press)
        view.stop()

    run_apart(main())
    assert game.handled == [
        {"type": "down", "x": 1.5, "y": 2.0}, {"type": "move", "x": 1.25, "y": 2.5},
        {"type": "up", "x": 1.0, "y": 3.0}, {"type": "keydown", "key": "ArrowLeft"},
        {"type": "keyup", "key": "ArrowLeft"}]
    assert all(isinstance(event.get("x", 0.0), float) for event in game.handled)
    assert game.pressed == (1.5, 2.0)  # the game applied it at its next step


def test_a_game_that_raises_stops_the_loop_and_keeps_the_error(capsys):
    game = TinyGame(fail_at=3)
    clock = Clock()

    async def main():
        view = GameView(game, clock=clock, fps=1000.0, in_flight=1)
        page = FakePage(view, clock, 1 / 64)
        page.say(type="ready")
        for _ in range(20):  # far more than the loop lives
            if page.inbox.empty():
                await asyncio.sleep(0)
                continue
            frame = await page.inbox.get()
            clock.now += 1 / 64
            page.waiting.discard(frame)
            page.say(type="ack", frame=frame)
            await asyncio.sleep(0)
        return view, page

    view, page = run_apart(main())
    assert isinstance(view.error, RuntimeError) and "on purpose" in str(view.error)
    assert not view.running
    assert len(page.headers) == 4 and game.step_count == 3
    assert page.errors == ["stopped: RuntimeError: the game broke on purpose"]
    assert "the game broke on purpose" in capsys.readouterr().err


def test_another_coroutine_runs_while_the_loop_runs():
    game = TinyGame()
    clock = Clock()
    seen = []

    async def another_cell(view):
        # a cell run while the game plays: it gets the kernel between frames
        for _ in range(10):
            await asyncio.sleep(0)
            seen.append((view.frames, view.running))

    async def main():
        view = GameView(game, clock=clock, fps=1000.0, in_flight=1)
        page = FakePage(view, clock, 1 / 64)
        await asyncio.gather(page.run(30), another_cell(view))
        view.stop()

    run_apart(main())
    frames = [frames for frames, _ in seen]
    assert all(running for _, running in seen)  # it ran to its end while the loop ran
    assert frames == sorted(frames) and frames[-1] > frames[0]  # interleaved with frames
    assert frames[-1] < 30  # and finished before the game did


def test_without_a_browser_nothing_runs():
    game = TinyGame()

    def made_and_started_without_a_loop():
        # in a thread of its own: this one may run Playwright's loop, which the view would
        # take for the kernel's and start in
        view = GameView(game)
        assert not view.running and view.frames == 0 and game.step_count == 0
        with pytest.raises(RuntimeError, match="running asyncio event loop"):
            view.start()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(made_and_started_without_a_loop).result()


def test_a_view_started_from_another_thread_starts_in_its_own_loop():
    """start() called where no loop runs (a thread of the kernel's) starts the game in the
    loop the view was made in."""
    game = TinyGame()
    clock = Clock()

    async def main():
        view = GameView(game, clock=clock, fps=1000.0, in_flight=1)
        page = FakePage(view, clock, 1 / 64)
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            await asyncio.wrap_future(pool.submit(view.start))
        await asyncio.wait_for(page.inbox.get(), timeout=60)  # the first frame came
        running_here = view._task.get_loop() is asyncio.get_running_loop()
        view.stop()
        return running_here

    assert run_apart(main())


@pytest.mark.parametrize(("arguments", "error", "named"), [
    ({"game": object()}, TypeError, "game must have a handle"),
    ({"width": 0}, ValueError, "width"),
    ({"height": 2.5}, TypeError, "height"),
    ({"fps": 0.0}, ValueError, "fps"),
    ({"clock": 3.0}, TypeError, "clock"),
])
def test_bad_arguments_raise_naming_them(arguments, error, named):
    arguments = {"game": TinyGame(), **arguments}
    with pytest.raises(error, match=named):
        GameView(arguments.pop("game"), **arguments)


def test_a_game_with_a_bad_view_or_world_is_refused():
    game = TinyGame()
    game.world = None
    with pytest.raises(TypeError, match="game.world"):
        GameView(game)

    class Flat(TinyGame):
        view = (0.0, 1.0, 0.0, 2.0)

    with pytest.raises(ValueError, match="game.view must have left < right"):
        GameView(Flat())


def test_the_front_end_ships_with_the_package():
    tomllib = pytest.importorskip("tomllib")
    root = Path(__file__).resolve().parent.parent
    config = tomllib.loads((root / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["physbook.viz"]
    source = root / "physbook" / "viz" / "game_view.js"
    assert source.is_file() and any(source.match(pattern) for pattern in patterns)
    assert str(GameView._esm) == source.read_text(encoding="utf-8")  # what the widget loads
    assert "anywidget>=0.9" in config["project"]["optional-dependencies"]["viz"]


def test_a_page_without_a_kernel_gets_a_note_and_a_page_with_one_the_widget():
    view = GameView(TinyGame())
    data, _ = view._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data  # what JupyterLab shows
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == view.model_id
    note = data["text/html"]  # what a static export shows
    assert 'class="physbook-game-static"' in note and "needs a running Python kernel" in note


def test_a_frame_never_acknowledged_gives_its_place_to_the_next(monkeypatch):
    """A page that loses a frame (a view gone with it) would hold the loop for ever; after
    ACK_TIMEOUT the frame counts as lost and the next goes out."""
    from physbook.viz import game_view

    monkeypatch.setattr(game_view, "ACK_TIMEOUT", 0.05)
    clock = Clock()

    async def main():
        view = GameView(TinyGame(), clock=clock, fps=1000.0, in_flight=1)
        sent = []
        view.send = lambda content, buffers=None: sent.append(content["frame"])
        view._handle_custom_msg({"type": "ready"}, [])
        await asyncio.sleep(0.01)
        assert sent == [0]  # waiting for frame 0's acknowledgement, which never comes
        await asyncio.sleep(0.2)
        view.stop()
        return sent

    sent = run_apart(main())
    assert sent[:2] == [0, 1] and 2 <= len(sent) <= 6  # one every 0.05 s, not a stall


def test_a_view_out_of_sight_stops_the_game_until_it_is_seen_again():
    game = TinyGame()
    clock = Clock()

    async def main():
        view = GameView(game, clock=clock, fps=1000.0, in_flight=1)
        sent = []

        def send(content, buffers=None):
            sent.append(content["frame"])
            view._handle_custom_msg({"type": "ack", "frame": content["frame"]}, [])

        view.send = send
        view._handle_custom_msg({"type": "ready"}, [])
        await asyncio.sleep(0.02)
        view._handle_custom_msg({"type": "visible", "visible": False}, [])
        await asyncio.sleep(0.01)
        hidden_at, steps = len(sent), game.step_count
        clock.now += 10.0  # ten seconds out of sight
        await asyncio.sleep(0.05)
        assert (len(sent), game.step_count) == (hidden_at, steps)
        view._handle_custom_msg({"type": "visible", "visible": True}, [])
        clock.now += TinyGame.dt  # one step's time after it is seen again
        await asyncio.sleep(0.02)
        view.stop()
        return sent, hidden_at, steps

    sent, hidden_at, steps = run_apart(main())
    assert len(sent) > hidden_at + 1  # it runs again ...
    assert game.step_count <= steps + 1  # ... without catching up on the ten seconds

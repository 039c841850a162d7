"""The replay player: its HTML holds the frames asked for, which decode to the frames of a
second, independent run of the same recorded game; it loads nothing from the network and
carries the live view's own drawing code."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pytest
from test_frame_encoding import Recorder, assert_same_calls
from tiny_game import TinyGame

from physbook.draw import draw_world
from physbook.draw.protocol import Style
from physbook.viz import replay_player
from physbook.viz.frame_encoding import decode_frame
from physbook.viz.replay import replay_script

#: A recorded game: the pointer pressed at step 5 and at step 30.
SCRIPT = {5: [{"type": "down", "x": 3.0, "y": 4.0}], 30: [{"type": "down", "x": -4.0, "y": 0.5}]}


def embedded(html: str) -> dict:
    """The data the player's page reads, and its frames as float32 arrays."""
    (payload,) = re.findall(r'<script type="application/json" id="[^"]+">(.*?)</script>',
                            html, flags=re.S)
    data = json.loads(payload)
    values = np.frombuffer(base64.b64decode(data["frames"]), dtype="<f4")
    offsets = data["offsets"]
    data["arrays"] = [values[offsets[k]:offsets[k + 1]] for k in range(len(offsets) - 1)]
    return data


def palette_styles(data) -> list[Style]:
    """The palette back as Styles (from its CSS colours)."""
    def colour(css):
        return None if css is None else tuple(int(c) for c in re.findall(r"\d+", css))
    return [Style(entry["name"], colour(entry["fill"]), colour(entry["line"]))
            for entry in data["palette"]]


def test_the_player_holds_the_frames_of_a_second_run():
    steps, every = 45, 4
    html = replay_player(TinyGame(script=SCRIPT), steps, every=every, fps=15.0).data
    data = embedded(html)
    frames = data["arrays"]
    assert len(frames) == 1 + steps // every == 12
    assert data["steps"] == list(range(0, steps + 1, every))
    assert data["fps"] == 15.0 and data["width"] == 720 and data["height"] == 405
    assert f'data-frames="{len(frames)}"' in html and 'data-frame="0"' in html
    palette = palette_styles(data)
    # A second game, run and drawn step by step with a recording drawer.
    twin = TinyGame(script=SCRIPT)
    for index, step in enumerate(data["steps"]):
        while twin.step_count < step:
            twin.step()
        recorder = Recorder()
        draw_world(twin.world, recorder)
        twin.draw(recorder)
        assert_same_calls(decode_frame(frames[index], palette), recorder.calls)
        assert data["statuses"][data["status_index"][index]] == f"step {step}"
        assert data["views"][index] == [-5.0, -1.0, 5.0, 5.0]
    assert twin.pressed == (-4.0, 0.5)  # the recording was played: its last press shows


def test_the_player_needs_no_network_and_draws_with_the_live_views_code():
    html = replay_player(TinyGame(), 10).data
    assert not re.search(r"https?://", html)
    assert replay_script() in html
    assert "export default" not in html  # a plain script cannot hold a module's export
    assert 'class="physbook-replay"' in html
    assert html.count("<script") == 2


def test_a_600_step_replay_at_every_2_stays_small():
    html = replay_player(TinyGame(script=SCRIPT), 600, every=2).data
    data = embedded(html)
    assert len(data["arrays"]) == 301
    # seven shapes, a joint and a marker a frame: a few hundred bytes of float32 each
    assert len(html.encode()) < 2_000_000


def test_a_status_line_cannot_end_the_script():
    class Sly(TinyGame):
        def status(self):
            return "</script><script>alert(1)</script>"

    html = replay_player(Sly(), 2).data
    assert html.count("</script>") == 2
    assert embedded(html)["statuses"] == ["</script><script>alert(1)</script>"]


@pytest.mark.parametrize(("arguments", "error", "named"), [
    ({"game": 3}, TypeError, "game"),
    ({"steps": 0}, ValueError, "steps"),
    ({"steps": 1.5}, TypeError, "steps"),
    ({"every": 0}, ValueError, "every"),
    ({"every": 11}, ValueError, "every"),
    ({"fps": -1.0}, ValueError, "fps"),
    ({"width": 10}, ValueError, "width"),
    ({"height": "tall"}, TypeError, "height"),
])
def test_bad_arguments_raise_naming_them(arguments, error, named):
    arguments = {"game": TinyGame(), "steps": 10, **arguments}
    with pytest.raises(error, match=named):
        replay_player(arguments.pop("game"), arguments.pop("steps"), **arguments)

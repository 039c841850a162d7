"""Helpers the browser tests share: a free port, pressing players' Play buttons, and what
the page shows that it should not (outputs too wide, TeX left untypeset)."""

from __future__ import annotations

import re
import socket
import time


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def assert_players_play(page, name: str) -> int:
    """Every ``pb.viz.animate`` player of the page has its buttons, and pressing Play on
    each shows a different frame within 10 s. Returns how many players there are.

    Raises
    ------
    AssertionError
        If a player has no Play button or its frame stays the same.
    """
    frames = page.locator("img[id^=_anim_img]")
    for index in range(frames.count()):
        frame = frames.nth(index)
        frame.scroll_into_view_if_needed()
        # The picture takes up its space once in view, before any click.
        assert frame.evaluate("img => img.getBoundingClientRect().height") > 0, (
            f"{name}: player {index + 1} shows no picture")
        before = frame.get_attribute("src")
        player = frame.locator("xpath=ancestor::div[contains(@class,'animation')][1]")
        play = player.locator("button[title='Play']")
        assert play.count() == 1, f"{name}: player {index + 1} has no Play button"
        play.click()
        deadline = time.monotonic() + 10
        while frame.get_attribute("src") == before:
            assert time.monotonic() < deadline, (
                f"{name}: pressing Play did not advance player {index + 1}")
            time.sleep(0.2)
        player.locator("button[title='Pause']").click()
    return frames.count()


def overflowing_outputs(page) -> list[str]:
    """Outputs wider than the space the page gives them (the reader would scroll sideways
    to see all of a figure or a line), as the start of their text or their image size."""
    return page.locator(".jp-OutputArea-output").evaluate_all(
        "nodes => nodes.filter(n => n.scrollWidth > n.clientWidth + 1).map(n =>"
        " n.querySelector('img') ? `image ${n.querySelector('img').naturalWidth} px wide in"
        " ${n.clientWidth} px` : n.textContent.slice(0, 80))")


#: TeX that shows MathJax left a formula as source.
TEX = re.compile(r"\\(frac|mathbf|omega|lambda|Delta|sqrt|cdot)\b|\$\$")


def leftover_tex(page, markdown: str, typeset: str) -> list[str]:
    """The rendered Markdown (elements matching ``markdown``) whose text, once the typeset
    math (elements matching ``typeset``) and code are removed, still holds TeX: formulas
    MathJax did not typeset. Returns the start of each such text."""
    texts = page.locator(markdown).evaluate_all(
        "(nodes, typeset) => nodes.map(n => { const c = n.cloneNode(true);"
        " c.querySelectorAll(typeset + ', code, pre').forEach(m => m.remove());"
        " return c.textContent; })", typeset)
    return [text[:120] for text in texts if TEX.search(text)]

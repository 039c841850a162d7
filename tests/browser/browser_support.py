"""Helpers the browser tests share: a free port, pressing players' Play buttons, and what
the page shows that it should not (outputs too wide, TeX left untypeset)."""

from __future__ import annotations

import contextlib
import os
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


def descendants(pid: int) -> list[int]:
    """The processes started, directly or not, by process ``pid`` (Linux: read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    # the parent is the second field after the name, which is in parentheses
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


@contextlib.contextmanager
def in_front(niceness: int = -10):
    """Run the block with this test worker's processes (its JupyterLab server and kernels,
    Playwright and its Chromium, every thread of each) ahead of the machine's others, as a
    game a reader plays is: a reader plays with one notebook open, while the test's other
    worker runs another chapter on the same two cores. Yields how many threads were moved
    (none where the user may not raise priorities); they are put back after."""
    moved = []
    for pid in descendants(os.getpid()):
        try:
            threads = [int(tid) for tid in os.listdir(f"/proc/{pid}/task")]
        except OSError:
            continue
        for tid in threads:
            try:
                before = os.getpriority(os.PRIO_PROCESS, tid)
                os.setpriority(os.PRIO_PROCESS, tid, niceness)
                moved.append((tid, before))
            except OSError:  # gone, or not allowed
                pass
    try:
        yield len(moved)
    finally:
        for tid, before in moved:
            try:
                os.setpriority(os.PRIO_PROCESS, tid, before)
            except OSError:
                pass

"""Helpers the browser tests share: a free port, pressing players' Play buttons, and what
the page shows that it should not (outputs too wide, TeX left untypeset)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
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


def children_by_parent() -> dict[int, list[int]]:
    """Each process's direct children, by the parent's id (Linux: read from /proc)."""
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
    return children


def descendants(pid: int, children: dict[int, list[int]] | None = None) -> list[int]:
    """The processes started, directly or not, by process ``pid`` (Linux: read from /proc,
    or from ``children``, a :func:`children_by_parent`)."""
    children = children_by_parent() if children is None else children
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _command_line(pid: int) -> bytes | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as line:
            return line.read()
    except OSError:
        return None


@contextlib.contextmanager
def others_paused():
    """Pause, for the block, the other pytest-xdist workers of this run and every process
    they started (their JupyterLab, kernels and Chromium), as a reader plays with no other
    chapter running; yields how many processes were paused, and resumes them after.

    The other workers are the processes this worker's parent (pytest-xdist's controller)
    started with this worker's own command line. Outside pytest-xdist nothing is paused:
    this process's parent is then a shell, whose other children are not the test's."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        yield 0
        return
    me, command = os.getpid(), _command_line(os.getpid())
    children = children_by_parent()
    workers = [pid for pid in children.get(os.getppid(), [])
               if pid != me and command is not None and _command_line(pid) == command]
    paused = []
    try:
        for worker in workers:
            for pid in [worker, *descendants(worker, children)]:
                try:
                    os.kill(pid, signal.SIGSTOP)
                    paused.append(pid)
                except OSError:  # gone since
                    pass
        yield len(paused)
    finally:
        for pid in reversed(paused):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGCONT)


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

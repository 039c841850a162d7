"""The static site as a reader meets it: pages served over HTTP, opened in Chromium.

Three chapters (the preface and chapter 3, which between them hold formulas, players and a
widget, and chapter 17, whose game replays in the page), the appendix, which comes after
chapter 17 and shows the benchmark runner's table and chart, and the API reference are built
with ``tools/export_book.py`` as the README's command builds the whole book, served from a
local port, and opened with every request that leaves the machine refused and recorded: a
page must read offline. The checks are what only
a browser sees: MathJax typesets the formulas, Play advances a player's frames, a game's
replay plays and scrubs, the links between pages lead somewhere, and the API reference opens
on the engine's classes.
"""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest
from browser_support import assert_players_play, free_port, leftover_tex
from tool_scripts import load_tool

SITE_CHAPTERS = ["00", "03", "17", "A"]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # the test reports what fails; the log would be noise
        pass


@pytest.fixture(scope="module")
def site(browser, tmp_path_factory):
    """Base URL of the built site (three chapters, the appendix and the API reference)
    served locally."""
    tool = load_tool("export_book")
    folder = tmp_path_factory.mktemp("site")
    tool.export_book(tool.chapter_notebooks(SITE_CHAPTERS), folder)
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture()
def offline_page(browser, site):
    """A page whose requests beyond the local server are refused; ``page.remote`` lists
    them, and ``page.missing`` the local addresses that answered with an error."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.remote, page.missing = [], []
    local = urlparse(site).netloc

    def route(request_route):
        address = request_route.request.url
        if urlparse(address).scheme in ("http", "https") and urlparse(address).netloc != local:
            page.remote.append(address)
            request_route.abort()
        else:
            request_route.continue_()

    page.route("**/*", route)
    page.on("response", lambda response: response.status >= 400
            and page.missing.append(f"{response.status} {response.url}"))
    yield page
    page.close()


def typeset(page) -> None:
    """Wait until MathJax 2 has typeset the page (its queue is empty)."""
    page.wait_for_function("window.MathJax && MathJax.Hub && MathJax.Hub.queue.pending === 0"
                           " && document.querySelectorAll('.MathJax, .MathJax_Display')"
                           ".length > 0", timeout=60_000)


def test_the_index_leads_to_every_chapter_and_the_api(offline_page, site, screenshots):
    page = offline_page
    page.goto(f"{site}/index.html")
    links = page.locator("a").evaluate_all("nodes => nodes.map(n => n.getAttribute('href'))")
    assert links == ["00_preface.html", "03_timestepping.html", "17_a_game.html",
                     "A_making_it_fast.html", "api/physbook.html"]
    page.screenshot(path=str(screenshots / "site_index.png"))
    assert page.remote == [] and page.missing == []


@pytest.mark.parametrize("name", ["00_preface.html", "03_timestepping.html"])
def test_a_chapter_page_reads_offline_with_math_and_players(offline_page, site, screenshots,
                                                             name):
    page = offline_page
    page.goto(f"{site}/{name}")
    typeset(page)
    assert page.locator(".MathJax_Error").count() == 0
    assert leftover_tex(page, ".jp-RenderedMarkdown",
                        "script, .MathJax, .MathJax_Display, .MathJax_Preview") == []
    assert assert_players_play(page, name) >= 1
    page.screenshot(path=str(screenshots / f"site_{Path(name).stem}.png"), full_page=False)
    assert page.remote == [], "the page asked the network"
    assert page.missing == [], "the page asked for files the site does not have"


def test_a_widget_shows_its_figure_and_says_it_needs_a_kernel(offline_page, site):
    page = offline_page
    page.goto(f"{site}/00_preface.html")
    widget = page.locator(".physbook-widget")
    assert widget.count() == 1
    figure = widget.locator("img")
    figure.scroll_into_view_if_needed()
    assert figure.evaluate("img => img.complete && img.naturalWidth > 0")
    assert "needs a live Python kernel" in widget.inner_text()


def test_the_links_walk_the_chapters_and_open_the_api(offline_page, site, screenshots):
    page = offline_page
    page.goto(f"{site}/00_preface.html")
    page.locator("nav a[rel=next]").first.click()
    page.wait_for_url(f"{site}/03_timestepping.html")
    page.locator("nav a[rel=prev]").first.click()
    page.wait_for_url(f"{site}/00_preface.html")
    page.locator("nav a", has_text="API reference").first.click()
    page.wait_for_url(f"{site}/api/physbook.html")
    assert "class World" in page.locator("body").inner_text().replace("\n", " ")
    page.locator("a[href='physbook/world.html']").first.click()
    page.wait_for_url(f"{site}/api/physbook/world.html")
    assert page.locator("#World").count() == 1
    assert "def step" in page.locator("[id='World.step']").inner_text()
    page.screenshot(path=str(screenshots / "site_api_world.png"))
    assert page.remote == [] and page.missing == []


def test_the_appendix_follows_chapter_17_with_its_table_and_chart(offline_page, site,
                                                                   screenshots):
    page = offline_page
    page.goto(f"{site}/17_a_game.html")
    page.locator("nav a[rel=next]").first.click()
    page.wait_for_url(f"{site}/A_making_it_fast.html")
    typeset(page)
    assert page.locator(".MathJax_Error").count() == 0
    text = page.locator("body").inner_text()
    assert "Appendix A" in text and "ms per step" in text   # the runner's numbers
    charts = page.locator(".jp-OutputArea-output img")
    assert charts.count() >= 2                        # the colours, and the runner's chart
    assert all(charts.nth(k).evaluate("img => img.complete && img.naturalWidth > 0")
               for k in range(charts.count()))
    page.locator("nav a[rel=prev]").first.click()
    page.wait_for_url(f"{site}/17_a_game.html")
    page.screenshot(path=str(screenshots / "site_appendix.png"))
    assert page.remote == [] and page.missing == []


def test_chapter_17_replays_a_game_offline(offline_page, site, screenshots):
    """The live game needs a kernel and says so; the replay plays in the page, and its
    slider shows the frame it is moved to."""
    page = offline_page
    page.goto(f"{site}/17_a_game.html")
    assert page.locator(".physbook-game-static").count() == 2  # the two live games
    note = page.locator(".physbook-game-static").first.inner_text()
    assert "needs a running Python kernel" in note
    replay = page.locator(".physbook-replay")
    assert replay.count() == 1
    replay.scroll_into_view_if_needed()
    page.wait_for_function("node => node.dataset.frame === '0'", arg=replay.element_handle(),
                           timeout=10_000)
    replay.locator("button[title='Play']").click()
    page.wait_for_function("node => Number(node.dataset.frame) >= 10",
                           arg=replay.element_handle(), timeout=10_000)
    replay.screenshot(path=str(screenshots / "site_17_replay.png"))
    slider = replay.locator(".physbook-replay-slider")
    last = int(slider.get_attribute("max"))
    slider.evaluate("(node, value) => { node.value = value;"
                    " node.dispatchEvent(new Event('input', {bubbles: true})); }", last // 2)
    page.wait_for_function("(args) => args[0].dataset.frame === String(args[1])",
                           arg=[replay.element_handle(), last // 2], timeout=10_000)
    assert page.remote == [] and page.missing == []

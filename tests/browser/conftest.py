"""The browser tests' shared fixtures: Debian's Chromium driven by Playwright, and a folder
for screenshots. The fixtures folder holds notebooks for the tests to open, not tests for
nbval to run.

Without the ``playwright`` package or a Chromium binary (``PHYSBOOK_CHROMIUM``, or
``chromium`` on the path) every browser test is skipped with a message saying what to
install. Playwright never downloads a browser here: it launches the one given.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from chromium import CHROMIUM

collect_ignore_glob = ["fixtures/*"]

#: No sandbox (CI runs as root), no GPU, and none of Chromium's own calls to Google's
#: servers, which a machine without network refuses many at a time.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium, shared by every browser test of the session."""
    try:
        from playwright import sync_api
    except ImportError:
        pytest.skip("the browser tests need Playwright: pip install -e '.[dev]' installs it")
    if CHROMIUM is None:
        pytest.skip("the browser tests need Chromium: install Debian's package "
                    "(apt install chromium) or set PHYSBOOK_CHROMIUM to a Chromium binary")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory) -> Path:
    """The folder named by ``PHYSBOOK_SCREENSHOTS``, or a temporary one."""
    chosen = os.environ.get("PHYSBOOK_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder

"""Which Chromium the browser tests drive, and whether they can run on this machine."""

from __future__ import annotations

import importlib.util
import os
import shutil

#: The Chromium binary: ``PHYSBOOK_CHROMIUM``, or ``chromium`` (Debian's package) on the path.
CHROMIUM = (os.environ.get("PHYSBOOK_CHROMIUM") or shutil.which("chromium")
            or shutil.which("chromium-browser"))


def browser_tests_can_run() -> bool:
    """Whether Playwright is installed and a Chromium binary found (else they skip)."""
    return CHROMIUM is not None and importlib.util.find_spec("playwright") is not None

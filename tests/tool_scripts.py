"""The scripts of ``tools/`` and ``benchmarks/`` as modules, for the tests to call: both are
folders of scripts run from the command line, not packages."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load_script(path: Path, name: str) -> ModuleType:
    """The script at ``path``, imported as a module called ``name`` (and registered under
    that name, as an import would, so that its dataclasses can resolve their annotations)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_tool(name: str) -> ModuleType:
    """The script ``tools/<name>.py``, imported as a module called ``name``."""
    return load_script(ROOT / "tools" / f"{name}.py", name)

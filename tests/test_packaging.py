"""The package as a library: the engine installs and runs without the book's drawing
libraries, the drawing layer names the extra it needs, and the version, the licence and the
changelog each have one source."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import physbook
from physbook.viz import _requirements

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = None

ROOT = Path(__file__).resolve().parent.parent

# A process in which the drawing libraries are not installed: a None in sys.modules makes
# every import of them raise ModuleNotFoundError, as on a machine without them.
WITHOUT_DRAWING = """
import sys
for name in ("matplotlib", "ipywidgets", "IPython"):
    sys.modules[name] = None
"""


def run_without_drawing(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", WITHOUT_DRAWING + code], capture_output=True,
                          text=True, cwd=ROOT, timeout=900, check=False)


def project() -> dict:
    if tomllib is None:
        pytest.skip("tomllib needs Python 3.11")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_engine_runs_a_pile_without_the_drawing_libraries():
    result = run_without_drawing("""
import physbook as pb
scene = pb.scenes.pyramid(base=5)
scene.run(60)
assert scene.world.count == 16, scene.world.count
assert not {"matplotlib", "ipywidgets"} & {n for n, m in sys.modules.items() if m is not None}
print("ran")
""")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ran"


def test_the_drawing_layer_without_its_libraries_names_the_extra():
    result = run_without_drawing("import physbook as pb\npb.viz")
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last == ('ImportError: physbook.viz needs matplotlib and ipywidgets, which the '
                    'engine alone does not install: pip install "physbook[viz]"'), last


def test_the_engine_depends_on_numpy_and_numba_alone_and_viz_brings_the_drawing():
    metadata = project()["project"]
    names = {requirement.split(">")[0] for requirement in metadata["dependencies"]}
    assert names == {"numpy", "numba"}
    viz = {requirement.split(">")[0] for requirement in metadata["optional-dependencies"]["viz"]}
    assert viz == set(_requirements.REQUIRED)
    assert "physbook[viz]" in metadata["optional-dependencies"]["book"]
    assert "physbook[book]" in metadata["optional-dependencies"]["dev"]


def test_the_version_is_written_once():
    config = project()
    assert "version" not in config["project"] and "version" in config["project"]["dynamic"]
    assert config["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "physbook.__version__"}
    # The changelog's newest release is this version.
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = next(line for line in changelog.splitlines() if line.startswith("## "))
    assert newest.split()[1] == physbook.__version__, newest


def test_the_licence_is_stated_where_pip_reads_it():
    metadata = project()["project"]
    assert metadata["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert metadata["license-files"] == ["LICENSE"]

"""A reader's path: set up a clone, run and save every chapter, then run the hygiene tests.

JupyterLab saves every output into the notebooks a reader runs. This does the same to a
scratch copy of the repository set up as the README says (the git filter of
tools/install_git_filter.py): every chapter is run and saved, outputs and all. The browser
test runs every chapter in JupyterLab and saves it with JupyterLab's own Save; when it has,
these tests check its files, so that the book runs once for both (tests/reader_clone.py).
Without a browser each chapter is run here with nbclient and saved with nbformat, as
JupyterLab would save it. Every code cell must have run without an error (nbval's check,
made on the one run). Then git must find nothing to store, and the book's hygiene tests
must pass there. The saved outputs are also what a reader sees when they reopen a chapter,
so they are checked too: every animation cell holds its player with its first picture in
place, and every widget cell a figure that shows without a kernel, its controls at their
defaults.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from chromium import browser_tests_can_run
from nbclient import NotebookClient
from notebook_source import ANIMATION_CALL, argument_defaults, widget_functions
from reader_clone import (
    cells_that_did_not_run,
    git,
    is_clone,
    read_in_jupyterlab,
    set_up_clone,
)

WIDGET_CALL = re.compile(r"\bpb\.viz\.interact\(")

pytestmark = pytest.mark.skipif(not is_clone(), reason="needs git and a git clone of physbook")


@pytest.fixture(scope="module")
def read_clone(request, tmp_path_factory) -> tuple[Path, dict[str, nbformat.NotebookNode]]:
    """A clone set up as the README says, whose every chapter was run and saved.

    When the browser test of this run runs every chapter in JupyterLab (it starts first, on
    each worker) and has saved each, these are its clone and files: the book runs once for
    both. Otherwise each chapter is run here with nbclient and saved with nbformat.
    """
    in_lab = {item.callspec.params["chapter"].name for item in request.session.items
              if item.nodeid.startswith("tests/browser/test_jupyterlab.py::Test")}
    shared = read_in_jupyterlab(tmp_path_factory, in_lab) if browser_tests_can_run() else None
    if shared is not None:
        return shared
    clone = set_up_clone(tmp_path_factory.mktemp("reader") / "physbook")
    saved = {}
    for path in sorted((clone / "book").glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        NotebookClient(notebook, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
        nbformat.write(notebook, path)
        saved[path.name] = notebook
    return clone, saved


def test_every_saved_chapter_ran_every_cell(read_clone):
    _, saved = read_clone
    for name, notebook in saved.items():
        assert cells_that_did_not_run(notebook) == [], f"{name}: cells did not run"


def test_reading_every_chapter_changes_nothing_git_stores(read_clone):
    clone, saved = read_clone
    assert saved, "the book has chapters"
    assert all(any(cell.get("outputs") for cell in notebook.cells)
               for notebook in saved.values()), "the saved chapters hold their outputs"
    # Nothing is staged: what git stores is the clone's commit.
    assert git("diff", "--cached", "--name-only", cwd=clone) == ""
    # git lists a saved chapter as modified until it refreshes the file's entry (its size
    # changed, and git does not look further); storing every file runs the git filter on
    # each chapter once (a git diff first would run it once more, to find the same), and
    # nothing differs from the commit once the filter has run: there is nothing to commit.
    git("add", "--all", cwd=clone)
    assert git("status", "--porcelain", cwd=clone) == "", git("diff", "--cached", "--stat",
                                                               cwd=clone)
    # So git diff, the filtered files beside what git stores, is empty.
    differs = subprocess.run(["git", "diff", "--quiet"], cwd=clone, check=False).returncode
    assert differs == 0, git("diff", "--stat", cwd=clone)


def test_the_hygiene_tests_pass_after_reading(read_clone):
    clone, _ = read_clone
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "tests/test_book.py"], cwd=clone, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


def outputs_of(notebook, pattern: re.Pattern):
    for cell in notebook.cells:
        if cell.cell_type == "code" and pattern.search(cell.source):
            yield cell.source, cell.get("outputs", [])


def test_every_saved_animation_shows_its_player_with_a_sized_picture(read_clone):
    _, saved = read_clone
    players = 0
    for name, notebook in saved.items():
        for source, outputs in outputs_of(notebook, ANIMATION_CALL):
            html = "".join(output.get("data", {}).get("text/html", "") for output in outputs)
            image = re.search(r"<img id=\"_anim_img\w+\"[^>]*>", html)
            assert image, f"{name}: a cell calling an animation shows no player: {source[:80]!r}"
            tag = image.group(0)
            assert re.search(r"\bwidth=\"\d+\"", tag) and re.search(r"\bheight=\"\d+\"", tag), (
                f"{name}: the player's picture has no size, so JupyterLab may draw it 0×0")
            assert 'src="data:image/png;base64,' in tag, f"{name}: no first picture"
            players += 1
    assert players > 0


def test_every_saved_widget_shows_a_figure_without_a_kernel(read_clone):
    _, saved = read_clone
    widgets = 0
    for name, notebook in saved.items():
        for source, outputs in outputs_of(notebook, WIDGET_CALL):
            bundles = [output.get("data", {}) for output in outputs]
            assert any("application/vnd.jupyter.widget-view+json" in data
                       and "image/png" in data for data in bundles), (
                f"{name}: a widget cell keeps no static figure: {source[:80]!r}")
            widgets += 1
    assert widgets > 0


def widget_defaults(notebook) -> dict[str, dict[str, object]]:
    """Each widget function's arguments with literal defaults (others are compared nowhere)."""
    import ast

    sources = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
    defaults = {}
    for name, definition, _ in widget_functions(sources):
        values = {}
        for argument, default in argument_defaults(definition).items():
            try:
                values[argument] = ast.literal_eval(default)
            except ValueError:
                pass
        defaults[name] = values
    return defaults


def model_defaults(model_name: str) -> dict:
    """The state a widget model starts from, as ipywidgets defines it. JupyterLab saves only
    what differs from it (a slider at 0.0 is saved without its value); nbclient saves it
    all."""
    import ipywidgets

    classes = [ipywidgets.Widget]
    while classes:
        cls = classes.pop()
        classes.extend(cls.__subclasses__())
        if cls.class_traits().get("_model_name") and cls._model_name.default_value == model_name:
            return {name: trait.default_value
                    for name, trait in cls.class_traits(sync=True).items()}
    raise LookupError(f"no ipywidgets class has the model {model_name!r}")


def control_value(model: dict):
    """What a saved control shows: a slider's or box's value, a menu's chosen label."""
    state = {**model_defaults(model["model_name"]), **model["state"]}
    if "index" in state and "_options_labels" in state:
        return state["_options_labels"][state["index"]]
    return state.get("value")


def test_every_saved_widget_opens_at_its_functions_defaults(read_clone):
    _, saved = read_clone
    compared = 0
    for name, notebook in saved.items():
        models = notebook.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
        defaults = widget_defaults(notebook)
        for source, outputs in outputs_of(notebook, WIDGET_CALL):
            (function, _, _), = widget_functions([source])
            view = next(output["data"]["application/vnd.jupyter.widget-view+json"]["model_id"]
                        for output in outputs
                        if "application/vnd.jupyter.widget-view+json" in output.get("data", {}))
            for child in models[view]["state"]["children"]:
                model = models[child.removeprefix("IPY_MODEL_")]
                argument = model["state"].get("description")
                if argument not in defaults[function]:
                    continue
                default = defaults[function][argument]
                shown = control_value(model)
                expected = str(default) if isinstance(shown, str) else default
                assert shown == pytest.approx(expected) if isinstance(default, float) else (
                    shown == expected), (
                    f"{name}: {function}'s {argument} opens at {shown!r}, not its default "
                    f"{default!r}")
                compared += 1
    assert compared > 0

"""A reader's clone of physbook: a scratch copy of the work tree set up as the README says,
where every chapter is run and saved, shared by two tests so that the book runs once.

The reader's path (``test_reader_path.py``) checks what a reader's saved chapters hold; the
browser test (``browser/test_jupyterlab.py``) runs every chapter in JupyterLab, in such a
clone, and saves it there with JupyterLab's own Save. The clone is in a folder all
pytest-xdist workers of the run share, so that the chapters can be run by two workers at
once, and each chapter the JupyterLab test is done with is recorded there. When it has saved
every chapter, the reader's path checks those files (:func:`read_in_jupyterlab`) instead of
running the book a second time; otherwise it runs and saves the chapters itself with
nbclient.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from tool_scripts import load_tool

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))
#: The git filter's name, as ``.gitattributes`` gives it to notebooks.
GIT_FILTER = load_tool("install_git_filter").FILTER


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout


def is_clone() -> bool:
    try:
        return git("rev-parse", "--is-inside-work-tree", cwd=ROOT).strip() == "true"
    except (FileNotFoundError, subprocess.CalledProcessError):
        return False


def copy_of_the_work_tree(target: Path) -> None:
    """Every file git tracks or would track, copied as it is now (not as last committed)."""
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT)
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            destination = target / name
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)


def notebooks_as_stored() -> list[str]:
    """The notebooks of the work tree whose bytes are those git stores for them (staged),
    as paths relative to it: the others are new, or changed, or hold a reader's outputs."""
    staged = {}
    for line in git("ls-files", "-s", "-z", "--", "*.ipynb", cwd=ROOT).split("\0"):
        if line:
            info, name = line.split("\t", 1)
            staged[name] = info.split()[1]
    names = [name for name in staged if (ROOT / name).is_file()]
    if not names:
        return []
    hashed = git("hash-object", "--no-filters", "--", *names, cwd=ROOT).split()
    return [name for name, blob in zip(names, hashed, strict=True) if blob == staged[name]]


def set_up_clone(clone: Path) -> Path:
    """Make ``clone`` a copy of the work tree, committed once, with the git filter of
    tools/install_git_filter.py set as the README's set-up sets it. Returns ``clone``."""
    clone.mkdir(parents=True, exist_ok=True)
    copy_of_the_work_tree(clone)
    git("init", "--quiet", cwd=clone)
    subprocess.run([sys.executable, "tools/install_git_filter.py"], cwd=clone, check=True,
                   capture_output=True)
    # A notebook copied with the bytes git stores is committed with those bytes, as a clone
    # has them, without starting the filter's Python for it (1-2 s a notebook; the filter
    # gives back the same bytes, which tests/test_book.py checks). The others, a notebook
    # saved with outputs among them, go through the filter.
    as_stored = notebooks_as_stored()
    if as_stored:
        git("-c", f"filter.{GIT_FILTER}.clean=cat", "add", "--", *as_stored, cwd=clone)
    git("add", "--all", cwd=clone)
    git("-c", "user.name=reader", "-c", "user.email=reader@example.invalid", "commit",
        "--quiet", "--no-verify", "-m", "as cloned", cwd=clone)
    return clone


def cells_that_did_not_run(notebook: nbformat.NotebookNode) -> list[str]:
    """The code cells of a saved chapter that show no execution count or show an error (a
    cell that raised, as nbval would report it), each as the start of its source."""
    failed = []
    for cell in notebook.cells:
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        raised = any(output.get("output_type") == "error" for output in cell.get("outputs", []))
        if cell.get("execution_count") is None or raised:
            failed.append(cell.source[:80])
    return failed


#: Longest the reader's path waits for the JupyterLab test's runs on another worker (s).
WAIT_LIMIT = 1800


def shared_folder(tmp_path_factory) -> Path:
    """A folder every pytest-xdist worker of this run shares (the run's base folder)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def shared_lab_folder(tmp_path_factory, fixtures: list[Path]) -> Path:
    """The folder JupyterLab serves, shared by the workers of this run: the reader's clone
    in ``physbook/`` (outside a git clone, the chapters alone) beside the ``fixtures``. The
    first worker to ask sets it up; the others wait for it."""
    folder = shared_folder(tmp_path_factory) / "lab"
    ready = folder / ".ready"
    try:
        folder.mkdir()
    except FileExistsError:
        deadline = time.monotonic() + 300
        while not ready.exists():
            assert time.monotonic() < deadline, "the reader's clone was not set up in 300 s"
            time.sleep(0.5)
        return folder
    if is_clone():
        set_up_clone(folder / "physbook")
    else:  # a downloaded archive: its chapters, without git
        shutil.copytree(ROOT / "book", folder / "physbook" / "book")
    for fixture in fixtures:
        shutil.copy2(fixture, folder / fixture.name)
    ready.touch()
    return folder


def done_with(tmp_path_factory) -> Path:
    """The shared folder where the JupyterLab test records each chapter it is done with."""
    return shared_folder(tmp_path_factory) / "done-in-jupyterlab"


def record_chapter(tmp_path_factory, name: str, saved: bool) -> None:
    """Record that the JupyterLab test is done with chapter ``name``: ``saved`` if it ran
    every cell and saved the chapter in the reader's clone."""
    folder = done_with(tmp_path_factory)
    folder.mkdir(exist_ok=True)
    written = folder / f"{name}.json.part"
    written.write_text(json.dumps({"saved": saved}))
    written.replace(folder / f"{name}.json")  # at once: the reader's path may be looking


def read_in_jupyterlab(tmp_path_factory, chapters: set[str],
                       ) -> tuple[Path, dict[str, nbformat.NotebookNode]] | None:
    """(clone, saved chapters by name) when the JupyterLab test of this run, which runs
    ``chapters``, ran and saved every chapter of the book in the reader's clone; None if it
    runs fewer, or did not save one. Waits for it to be done with every chapter it runs (on
    another worker, it may still be running)."""
    if chapters != {path.name for path in CHAPTERS} or not is_clone():
        return None
    marks = done_with(tmp_path_factory)
    deadline = time.monotonic() + WAIT_LIMIT
    while not all((marks / f"{name}.json").exists() for name in chapters):
        if time.monotonic() > deadline:
            return None
        time.sleep(1)
    if not all(json.loads((marks / f"{name}.json").read_text())["saved"] for name in chapters):
        return None
    clone = shared_folder(tmp_path_factory) / "lab" / "physbook"
    return clone, {path.name: nbformat.read(path, as_version=4)
                   for path in sorted((clone / "book").glob("*.ipynb"))}

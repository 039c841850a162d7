"""A reader's clone of physbook: a scratch copy of the work tree set up as the README says,
where every chapter is run and saved, and the registry that lets two tests share one run.

The reader's path (``test_reader_path.py``) checks what a reader's saved chapters hold; the
browser test (``browser/test_jupyterlab.py``) runs every chapter in JupyterLab, in such a
clone, and saves it there with JupyterLab's own Save. When it has saved every chapter, the
reader's path checks those files (:func:`read_in_jupyterlab`) instead of running the book a
second time; without a browser it runs and saves the chapters itself with nbclient.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))


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


def set_up_clone(clone: Path) -> Path:
    """Make ``clone`` a copy of the work tree, committed once, with the git filter of
    tools/install_git_filter.py set as the README's set-up sets it. Returns ``clone``."""
    clone.mkdir(parents=True, exist_ok=True)
    copy_of_the_work_tree(clone)
    git("init", "--quiet", cwd=clone)
    subprocess.run([sys.executable, "tools/install_git_filter.py"], cwd=clone, check=True,
                   capture_output=True)
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


#: What the browser test read in this process: the clone and every chapter JupyterLab saved
#: there, by file name, as saved (before the test moved any control).
_READ_IN_JUPYTERLAB: dict = {}


def record_jupyterlab_clone(clone: Path) -> None:
    """Name the clone in which JupyterLab runs and saves the chapters of this session."""
    _READ_IN_JUPYTERLAB.clear()
    _READ_IN_JUPYTERLAB.update(clone=clone, saved={})


def record_saved_by_jupyterlab(name: str, notebook: nbformat.NotebookNode) -> None:
    """Record chapter ``name`` as JupyterLab saved it, every cell run, in the clone named by
    :func:`record_jupyterlab_clone` (outside a git clone there is none: nothing to record)."""
    if "saved" in _READ_IN_JUPYTERLAB:
        _READ_IN_JUPYTERLAB["saved"][name] = notebook


def read_in_jupyterlab() -> tuple[Path, dict[str, nbformat.NotebookNode]] | None:
    """(clone, saved chapters by name) if JupyterLab ran and saved every chapter of the book
    in this process, else None."""
    saved = _READ_IN_JUPYTERLAB.get("saved", {})
    if sorted(saved) != [path.name for path in CHAPTERS]:
        return None
    return _READ_IN_JUPYTERLAB["clone"], dict(sorted(saved.items()))

"""Keep the book's notebooks stripped in git while readers keep their outputs.

Run once per clone, from anywhere inside it (the README's set-up commands do)::

    .venv/bin/python tools/install_git_filter.py

JupyterLab saves every output into the notebook a reader runs. This registers nbstripout as
the clean filter that ``.gitattributes`` names for ``*.ipynb``, so git stores (and diffs)
notebooks without outputs, execution counts and the metadata a run adds, while the files on
disk keep what the reader saw: after reading, ``git diff`` is empty and nothing of it can be
committed by accident (``git status`` may list a saved notebook until ``git add`` refreshes
its entry, since its size changed). Cell ids are kept (nbstripout renumbers them unless
told not to). The tests check that every stored notebook is already what this filter makes
of it.

Outside a git clone (a downloaded archive) there is nothing to set up: it says so and
exits 0, so the README's one-line commands still go on to open the book.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

#: What the filter strips beyond nbstripout's defaults: the kernel's language details that
#: running a notebook fills in, and the trust flag JupyterLab may record per cell.
EXTRA_KEYS = "metadata.language_info cell.metadata.trusted"

#: The filter's name, as ``.gitattributes`` gives it.
FILTER = "nbstripout"


def strip_command(python: str = sys.executable) -> str:
    """The clean filter: nbstripout on standard input, keeping cell ids."""
    return (f"{shlex.quote(python)} -m nbstripout --keep-id "
            f"--extra-keys {shlex.quote(EXTRA_KEYS)}")


def settings(python: str = sys.executable) -> dict[str, str]:
    """The ``git config`` entries that define the filter and the notebook diff."""
    command = strip_command(python)
    return {
        f"filter.{FILTER}.clean": command,
        f"filter.{FILTER}.smudge": "cat",
        "diff.ipynb.textconv": f"{command} -t",
    }


def repository_root(start: Path) -> Path | None:
    """The top of the git work tree holding ``start``, or None outside one."""
    try:
        found = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=start,
                               capture_output=True, text=True, check=False)
    except FileNotFoundError:  # no git on this machine
        return None
    return Path(found.stdout.strip()) if found.returncode == 0 else None


def install(root: Path, python: str = sys.executable) -> None:
    """Write the filter into ``root``'s local git config."""
    for key, value in settings(python).items():
        subprocess.run(["git", "config", "--local", key, value], cwd=root, check=True)


def main() -> int:
    root = repository_root(Path(__file__).resolve().parent)
    if root is None:
        print("Not a git clone: notebooks are saved as they are, nothing to set up.")
        return 0
    install(root)
    print(f"git now stores the notebooks of {root} stripped of outputs "
          f"(filter '{FILTER}', see .gitattributes).")
    return 0


if __name__ == "__main__":
    sys.exit(main())

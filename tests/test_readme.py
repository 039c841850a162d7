"""The README's example and commands are true."""

import contextlib
import io
import re
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_example_runs_and_the_ball_comes_to_rest_on_the_floor():
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert len(blocks) == 1
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(blocks[0], "README.md", "exec"), namespace)
    assert printed.getvalue().strip()
    ball, crate = namespace["ball"], namespace["crate"]
    # After three seconds both rest on the floor whose top is y = 0.
    assert abs(ball.position[1] - 0.5) < 0.05
    assert abs(crate.position[1] - 0.5) < 0.05
    assert np.all(np.isfinite(crate.position))


def test_readme_commands_match_ci():
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'pip install -e ".[dev]"' in README and '-e ".[dev]"' in ci
    assert ('pip install -e ".[book]" && .venv/bin/python tools/install_git_filter.py && '
            '.venv/bin/python -m physbook.warm && .venv/bin/jupyter lab book/') in README
    assert (ROOT / "tools" / "install_git_filter.py").is_file()
    assert ".venv/bin/pytest" in README and "-m pytest" in ci

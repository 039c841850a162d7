"""Hygiene of the book: stored notebooks, the README's chapter table, the dependency lists."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import pkgutil
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from notebook_source import ANIMATION_CALL, argument_defaults, argument_names
from notebook_source import widget_functions as notebook_widgets
from tool_scripts import load_tool

import physbook

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the pyproject checks skip
    tomllib = None

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
NOTEBOOKS = sorted(BOOK.glob("*.ipynb"))
NOTEBOOK_IDS = [path.name for path in NOTEBOOKS]


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def code_cells(path: Path) -> list[dict]:
    return [cell for cell in load(path)["cells"] if cell["cell_type"] == "code"]


def source(cell: dict) -> str:
    text = cell["source"]
    return text if isinstance(text, str) else "".join(text)


#: A notebook's name: a chapter, ``NN_slug.ipynb``, or an appendix, ``A_slug.ipynb`` (a
#: capital letter), which sorts after every chapter.
NOTEBOOK_NAME = r"(?:\d\d|[A-Z])_[a-z0-9_]+\.ipynb"


def test_book_has_chapters():
    assert NOTEBOOKS, "book/ holds no notebooks"
    for path in NOTEBOOKS:
        assert re.fullmatch(NOTEBOOK_NAME, path.name), path.name


def test_the_appendices_come_after_the_chapters():
    names = [path.name for path in NOTEBOOKS]
    appendices = [name for name in names if not name[:2].isdigit()]
    assert "A_making_it_fast.ipynb" in appendices
    assert names == sorted(name for name in names if name[:2].isdigit()) + sorted(appendices)
    assert names.index("A_making_it_fast.ipynb") > names.index("17_a_game.ipynb")


def stored_text(path: Path) -> str:
    """The notebook as git stores it (the staged version), or the file outside a git clone.

    A reader's outputs live in the working copy, where JupyterLab saves them; the git filter
    of tools/install_git_filter.py strips them from what git stores. The hygiene checks
    are about what git stores.
    """
    relative = path.relative_to(ROOT).as_posix()
    try:
        shown = subprocess.run(["git", "show", f":{relative}"], cwd=ROOT, capture_output=True,
                               check=False)
    except FileNotFoundError:  # no git
        shown = None
    if shown is None or shown.returncode != 0:  # not a clone, or not tracked yet
        return path.read_text(encoding="utf-8")
    return shown.stdout.decode("utf-8")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebook_is_stored_stripped(path):
    for cell in json.loads(stored_text(path))["cells"]:
        if cell["cell_type"] != "code":
            continue
        assert cell.get("outputs", []) == [], f"{path.name}: a code cell has outputs"
        assert cell.get("execution_count") is None, f"{path.name}: a cell has an execution count"


def filter_command() -> list[str]:
    return shlex.split(load_tool("install_git_filter").strip_command(sys.executable))


def filtered_notebooks(folder: Path) -> dict[str, str]:
    """Every stored notebook after the git filter's command, run once over copies of them
    all in ``folder`` (the command given files cleans each in place, as it cleans one given
    on its input: the first notebook is checked both ways)."""
    copies = []
    for path in NOTEBOOKS:
        copy = folder / path.name
        copy.write_bytes(stored_text(path).encode("utf-8"))
        copies.append(copy)
    subprocess.run(filter_command() + [str(copy) for copy in copies], capture_output=True,
                   check=True)
    return {copy.name: copy.read_bytes().decode("utf-8") for copy in copies}


@pytest.fixture(scope="module")
def filtered(tmp_path_factory) -> dict[str, str]:
    return filtered_notebooks(tmp_path_factory.mktemp("filtered"))


def test_the_filter_cleans_a_file_as_it_cleans_its_input(filtered):
    text = stored_text(NOTEBOOKS[0])
    cleaned = subprocess.run(filter_command(), input=text.encode("utf-8"),
                             capture_output=True, check=True).stdout.decode("utf-8")
    assert cleaned == filtered[NOTEBOOKS[0].name]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebook_is_stored_as_the_git_filter_writes_it(path, filtered):
    # Then a reader who runs and saves a chapter changes nothing git stores: the filter turns
    # the saved file back into exactly these bytes.
    assert filtered[path.name] == stored_text(path), (
        f"{path.name} is not in the filter's form: run {' '.join(filter_command())} < "
        f"{path.name} and store its output")


def test_gitattributes_names_the_filter_for_notebooks():
    attributes = (ROOT / ".gitattributes").read_text(encoding="utf-8")
    tool = load_tool("install_git_filter")
    assert f"*.ipynb filter={tool.FILTER} diff=ipynb" in attributes.splitlines()
    assert set(tool.settings("python")) == {f"filter.{tool.FILTER}.clean",
                                           f"filter.{tool.FILTER}.smudge",
                                           "diff.ipynb.textconv"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_every_cell_has_a_unique_id(path):
    # nbformat 4.5 requires cell ids; a cell added without one is rejected in future.
    ids = [cell.get("id") for cell in load(path)["cells"]]
    assert None not in ids and len(set(ids)) == len(ids), path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebook_starts_with_setup(path):
    first = source(code_cells(path)[0])
    assert "import physbook as pb" in first and "pb.viz.setup_notebook()" in first


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebook_has_no_path_hacks_or_installs(path):
    for cell in code_cells(path):
        text = source(cell)
        assert "sys.path" not in text, f"{path.name}: sys.path hack"
        assert not re.search(r"^\s*[!%]\s*pip\b", text, re.M), f"{path.name}: pip in a cell"


def _public_functions() -> set[str]:
    """Every public function, compiled kernel and class defined anywhere in physbook."""
    names = set()
    for info in pkgutil.walk_packages(physbook.__path__, "physbook."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            defined_here = getattr(obj, "__module__", None) == info.name
            callable_kind = inspect.isfunction(obj) or inspect.isclass(obj) or hasattr(
                obj, "py_func")  # a numba dispatcher keeps the Python function as py_func
            if defined_here and callable_kind and not name.startswith("_"):
                names.add(name)
    return names


def test_public_functions_cover_every_layer():
    public = _public_functions()
    # One name from each layer, and a compiled kernel: the walk reaches them all.
    assert {"FixedTimestep", "Polygon", "polygon_contact", "sweep_pairs", "ContactTable",
            "integrate_velocities", "World", "VerletWorld", "show_source"} <= public


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_notebook_does_not_copy_library_code(path):
    """A chapter derives with small inline code, but never redefines a library name."""
    public = _public_functions()
    for cell in code_cells(path):
        try:
            tree = ast.parse(source(cell))
        except SyntaxError:
            continue  # cell magics; nbval runs them
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                assert node.name not in public, (
                    f"{path.name} defines {node.name}, a physbook name: show it with "
                    "pb.viz.show_source instead of copying it"
                )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_chapter_has_exercises_with_hidden_solutions(path):
    if path.name.startswith("00_"):
        return  # the preface has no exercises
    solutions = [c for c in code_cells(path) if "solution" in c.get("metadata", {}).get("tags", [])]
    assert solutions, f"{path.name}: no cell tagged 'solution'"
    for cell in solutions:
        hidden = cell["metadata"].get("jupyter", {})
        assert hidden.get("source_hidden") is True, (
            f"{path.name}: solution cells are collapsed by default (jupyter.source_hidden)"
        )
        # Not outputs_hidden: JupyterLab drops that flag from a cell it runs, so saving a
        # chapter would change it; a stored chapter has no outputs to hide.
        assert "outputs_hidden" not in hidden, (
            f"{path.name}: jupyter.outputs_hidden is dropped by JupyterLab when the cell "
            "runs; leave it out, so that saving a chapter changes nothing git stores")




@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_every_animation_is_its_cells_last_expression(path):
    """A player that is not the cell's last expression is thrown away, never shown."""
    for cell in code_cells(path):
        text = source(cell)
        if not ANIMATION_CALL.search(text):
            continue
        last = ast.parse(text).body[-1]
        assert isinstance(last, ast.Expr) and ANIMATION_CALL.search(ast.unparse(last)), (
            f"{path.name}: a cell calls an animation helper but ends with "
            f"{ast.unparse(last)[:60]!r}; make the player its last expression"
        )


def test_every_notebook_is_in_the_readme_table():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = [line for line in readme.splitlines() if line.startswith("|")]
    for path in NOTEBOOKS:
        assert any(path.name in row for row in rows), f"README's chapter table lacks {path.name}"
    for name in re.findall(rf"\b{NOTEBOOK_NAME}", "\n".join(rows)):
        assert (BOOK / name).exists(), f"README lists {name}, which is not in book/"


def _requirement_names(requirements) -> dict[str, str]:
    out = {}
    for requirement in requirements:
        match = re.match(r"\s*([A-Za-z0-9_.\-]+)\s*(.*)", requirement)
        out[match.group(1).lower().replace("_", "-")] = match.group(2).replace(" ", "")
    return out


def test_environment_yml_matches_pyproject():
    if tomllib is None:
        pytest.skip("tomllib needs Python 3.11")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = _requirement_names(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        # An extra that names another ("physbook[viz]") adds nothing of its own.
        wanted.update(_requirement_names(r for r in extra if not r.startswith("physbook[")))
    lines = (ROOT / "environment.yml").read_text().splitlines()
    start = lines.index("dependencies:") + 1
    conda = [
        line.strip()[2:] for line in lines[start:]
        if line.startswith("  - ") and not line.strip().startswith("- pip")
    ]
    listed = _requirement_names(conda)
    listed.pop("python", None)
    assert listed == wanted


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_chapter_shows_the_library_code_it_builds(path):
    if path.name.startswith("00_"):
        return
    text = "\n".join(source(cell) for cell in code_cells(path))
    assert "pb.viz.show_source(" in text, f"{path.name} never shows the library's code"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_every_widget_is_also_run_headless(path):
    """``interact`` swallows exceptions, so each widget function is run by check_widget too."""
    text = "\n".join(source(cell) for cell in code_cells(path))
    for function in re.findall(r"pb\.viz\.interact\(\s*([A-Za-z_]\w*)", text):
        assert re.search(rf"pb\.viz\.check_widget\(\s*{function}\b", text), (
            f"{path.name}: widget {function} is not run through pb.viz.check_widget"
        )
    assert "ipywidgets.interact(" not in text, f"{path.name}: use pb.viz.interact"


def widget_functions(path: Path):
    return notebook_widgets([source(cell) for cell in code_cells(path)])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_every_widget_control_has_a_default_to_open_at(path):
    """A control opens at its argument's default: without one it would open at its range's
    middle, which is rarely the case the prose discusses."""
    for name, definition, controls in widget_functions(path):
        assert definition is not None, f"{path.name}: widget {name} is not defined in the chapter"
        with_default = argument_defaults(definition)
        named = argument_names(definition)
        if None in controls:    # controls passed as ``**mapping``: any argument may be one
            controls = named
        missing = [control for control in controls
                   if control in named and control not in with_default]
        assert not missing, f"{path.name}: {name}'s {missing} have no default to open at"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_widget_functions_leave_showing_to_the_widget(path):
    """The preface's rule: a widget function draws and returns; the widget shows its figures."""
    for name, definition, _ in widget_functions(path):
        calls = [ast.unparse(node) for node in ast.walk(definition) if isinstance(node, ast.Call)]
        assert "plt.show()" not in calls, f"{path.name}: widget {name} calls plt.show()"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NOTEBOOK_IDS)
def test_chapter_ends_with_further_reading(path):
    cells = load(path)["cells"]
    headings = [source(cell).splitlines()[0] for cell in cells
                if cell["cell_type"] == "markdown" and source(cell).strip()]
    assert "## Further reading" in headings, f"{path.name} has no further reading"
    if not path.name.startswith("00_"):
        last = source(cells[-1])
        assert cells[-1]["cell_type"] == "markdown" and last.startswith("## Further reading"), (
            f"{path.name}: further reading is not the chapter's last cell")
        assert last.count("\n- ") >= 2, f"{path.name}: further reading lists under two works"

"""The architecture as a test: each module imports only its own layer and the layers below,
nothing imports in a circle, and only the drawing layer imports the drawing libraries.

Imports are read from the source with ``ast``, wherever they stand: at the top, inside a
function, or under ``if TYPE_CHECKING``, since each of these is a dependency all the same.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "physbook"

#: Layer of each part of the package, by module prefix (the longest prefix wins).
LAYER_OF_PREFIX = {
    "physbook._jit": "base",
    "physbook._kernel_cache": "base",
    "physbook._check": "base",
    "physbook._buffers": "base",
    "physbook._stack": "base",
    "physbook.compile_notice": "base",
    "physbook.warm": "package",
    "physbook.constants": "base",
    "physbook.kinds": "base",
    "physbook.vecmath": "vecmath",
    "physbook.geometry": "geometry",
    "physbook.collision": "collision",
    "physbook.broadphase": "broadphase",
    "physbook.dynamics": "dynamics",
    "physbook.world": "world",
    "physbook.step_driver": "world",
    "physbook.body_removal": "world",
    "physbook.recording": "world",
    "physbook.queries": "world",
    "physbook.events": "world",
    "physbook.event_log": "world",
    "physbook.contact_hooks": "world",
    "physbook.continuous": "world",
    "physbook.compiled_step": "world",
    "physbook.shape_cast": "world",
    "physbook.character": "world",
    "physbook.explosion": "world",
    "physbook.stages": "world",
    "physbook.scenes": "world",
    "physbook.snapshots": "world",
    "physbook.world_files": "world",
    "physbook.world_queries": "world",
    "physbook.games": "games",
    "physbook.verlet": "verlet",
    "physbook.viz": "viz",
    "physbook.draw": "viz",
    "physbook": "package",
}

_ENGINE = {"base", "vecmath", "geometry", "collision", "broadphase", "dynamics", "world"}

#: The layers each layer may import besides its own. The broad phase and the narrow phase
#: are siblings: boxes in, pairs out, and neither knows the other; dynamics works on the
#: narrow phase's answers but never sees how pairs were found.
ALLOWED = {
    "base": set(),
    "vecmath": {"base"},
    "geometry": {"base", "vecmath"},
    "collision": {"base", "vecmath", "geometry"},
    "broadphase": {"base", "vecmath", "geometry"},
    "dynamics": {"base", "vecmath", "geometry", "collision"},
    "world": _ENGINE - {"world"},
    "verlet": {"base", "vecmath", "geometry"},
    "viz": _ENGINE | {"verlet"},
    # Games draw their own marks through the drawing protocol (physbook.draw), which
    # imports no drawing library.
    "games": _ENGINE | {"viz"},
    "package": _ENGINE | {"verlet", "games"},
}

#: Third-party packages for drawing and widgets, which only ``physbook.viz`` may import.
DRAWING = {"matplotlib", "ipywidgets", "IPython", "pygame", "anywidget"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_exists(name: str) -> bool:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def imported_names(path: Path) -> set[str]:
    """Every module the file imports: physbook's by full name, others by top-level name."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative import; name the module in full"
            # "from physbook.geometry import shapes" names the module physbook.geometry.shapes.
            submodules = {f"{node.module}.{alias.name}" for alias in node.names}
            found = {name for name in submodules if module_exists(name)}
            names.update(found or {node.module})
    return names


def layer(module: str) -> str:
    prefix = max((p for p in LAYER_OF_PREFIX if module == p or module.startswith(p + ".")),
                 key=len)
    return LAYER_OF_PREFIX[prefix]


def physbook_imports(names: set[str], importer: str) -> set[str]:
    """The physbook modules among ``names`` that ``importer`` imports. "physbook" itself
    stays in: ``import physbook as pb`` or ``from physbook import World`` inside a lower
    layer reaches the whole package, the top layer."""
    return {m for m in names if (m == "physbook" or m.startswith("physbook.")) and m != importer}


def import_graph() -> dict[str, set[str]]:
    """Module name -> the physbook modules it imports."""
    graph = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        graph[name] = physbook_imports(imported_names(path), name)
    return graph


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a layer the importer's layer may not import."""
    wrong = []
    for module, targets in graph.items():
        own = layer(module)
        for target in sorted(targets):
            if layer(target) != own and layer(target) not in ALLOWED[own]:
                wrong.append(f"{module} ({own}) imports {target} ({layer(target)})")
    return wrong


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Import cycles, each as a list of modules, found by depth-first search.

    A package and its own submodules are not a cycle: ``physbook.geometry`` imports
    ``physbook.geometry.shapes`` to make it an attribute, and Python loads the package
    first whichever is imported.
    """
    def related(a: str, b: str) -> bool:
        return a.startswith(b + ".") or b.startswith(a + ".")

    found, state, path = [], {}, []

    def visit(module: str) -> None:
        state[module] = "open"
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if related(module, target):
                continue
            if state.get(target) == "open":
                found.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target)
        path.pop()
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module)
    return found


GRAPH = import_graph()


def test_every_module_has_a_known_layer():
    assert len(GRAPH) > 30
    for module in GRAPH:
        assert layer(module) in ALLOWED, module


def test_no_module_imports_a_layer_above_its_own():
    assert upward_imports(GRAPH) == []


def test_no_modules_import_each_other():
    assert cycles(GRAPH) == []


def test_only_the_drawing_layer_imports_drawing_libraries():
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        drawing = {name.split(".")[0] for name in imported_names(path)} & DRAWING
        if layer(module) != "viz":
            assert not drawing, f"{module} imports {drawing}"


def test_the_engine_imports_without_the_drawing_layer():
    engine = [m for m in GRAPH if layer(m) not in ("viz", "package")]
    assert all(not target.startswith("physbook.viz") for m in engine for target in GRAPH[m])


@pytest.mark.parametrize("graph, expected", [
    ({"physbook.geometry.shapes": {"physbook.world"}},
     ["physbook.geometry.shapes (geometry) imports physbook.world (world)"]),
    ({"physbook.broadphase.sweep": {"physbook.collision.manifold"}},
     ["physbook.broadphase.sweep (broadphase) imports physbook.collision.manifold "
      "(collision)"]),
    ({"physbook.verlet.world": {"physbook.dynamics.body"}},
     ["physbook.verlet.world (verlet) imports physbook.dynamics.body (dynamics)"]),
    ({"physbook.world": {"physbook.geometry.shapes"}}, []),
])
def test_an_upward_import_is_caught(graph, expected):
    assert upward_imports(graph) == expected


def test_a_cycle_is_caught_however_long():
    assert cycles({"physbook.world": {"physbook.broadphase.sweep"},
                   "physbook.broadphase.sweep": {"physbook.world"}}) == [
        ["physbook.broadphase.sweep", "physbook.world", "physbook.broadphase.sweep"]]
    ring = {"a.x": {"a.y"}, "a.y": {"a.z"}, "a.z": {"a.x"}}
    assert cycles(ring) == [["a.x", "a.y", "a.z", "a.x"]]
    assert cycles({"a": {"a.b"}, "a.b": {"a"}}) == []  # a package and its own module


@pytest.mark.parametrize("line", ["import physbook as pb", "from physbook import World",
                                  "import physbook"])
def test_an_import_of_the_package_from_a_lower_layer_is_caught(tmp_path, line):
    source = tmp_path / "shapes.py"
    source.write_text(f"def f():\n    {line}\n")
    graph = {"physbook.geometry.shapes": physbook_imports(imported_names(source),
                                                          "physbook.geometry.shapes")}
    assert upward_imports(graph) == [
        "physbook.geometry.shapes (geometry) imports physbook (package)"]


def test_a_lazy_import_counts(tmp_path):
    source = tmp_path / "lazy.py"
    source.write_text("def f():\n    from physbook.world import World\n    return World\n")
    assert "physbook.world" in imported_names(source)


def private_imports(path: Path) -> list[str]:
    """Every underscore name the file imports from another physbook module: a module's
    private name is its own. A package-private module (``physbook._check``) is a module,
    not a name, and may be imported."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("physbook"):
            for alias in node.names:
                name = alias.name
                if (name.startswith("_") and not name.startswith("__")
                        and not module_exists(f"{node.module}.{name}")):
                    found.append(f"{node.module}.{name}")
    return found


def test_no_module_imports_another_modules_private_name():
    wrong = {module_name(path): private_imports(path) for path in sorted(PACKAGE.rglob("*.py"))}
    assert {module: names for module, names in wrong.items() if names} == {}


@pytest.mark.parametrize("line, expected", [
    ("from physbook.broadphase.pairs import _boxes_overlap", ["physbook.broadphase.pairs."
                                                             "_boxes_overlap"]),
    ("from physbook.collision.toi import HIT, _HIT", ["physbook.collision.toi._HIT"]),
    ("from physbook import _check", []),  # a package-private module
    ("from physbook.broadphase.pairs import __all__", []),
    ("from physbook.broadphase.pairs import boxes_overlap", []),
])
def test_a_private_import_is_caught(tmp_path, line, expected):
    source = tmp_path / "module.py"
    source.write_text(f"def f():\n    {line}\n")
    assert private_imports(source) == expected

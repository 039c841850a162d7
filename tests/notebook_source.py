"""Reading a chapter's code without running it: its widgets and the functions they call."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

#: A call that displays an animation player: ``pb.viz.animate``, ``animate_verlet``,
#: ``animate_judder`` or ``play``.
ANIMATION_CALL = re.compile(r"\bpb\.viz\.(animate\w*|play)\(")


def code_sources(path: Path) -> list[str]:
    """The source of every code cell of the notebook at ``path``, in order."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]


def argument_defaults(definition: ast.FunctionDef) -> dict[str, ast.expr]:
    """Each argument of ``definition`` that has a default, mapped to the default's expression."""
    arguments = definition.args
    positional = arguments.posonlyargs + arguments.args
    with_default = positional[len(positional) - len(arguments.defaults):]
    defaults = dict(zip((a.arg for a in with_default), arguments.defaults, strict=True))
    defaults.update((a.arg, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults,
                                               strict=True) if d is not None)
    return defaults


def argument_names(definition: ast.FunctionDef) -> set[str]:
    arguments = definition.args
    return {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}


def widget_functions(sources: list[str]):
    """(function name, its definition or None, the controls' argument names) for each
    ``pb.viz.interact(function, ...)`` call in a chapter's code ``sources``; a control given
    as ``**mapping`` is listed as None."""
    definitions, calls = {}, []
    for text in sources:
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef):
                definitions[node.name] = node
            elif (isinstance(node, ast.Call) and ast.unparse(node.func) == "pb.viz.interact"
                  and node.args and isinstance(node.args[0], ast.Name)):
                calls.append((node.args[0].id, [k.arg for k in node.keywords]))
    return [(name, definitions.get(name), controls) for name, controls in calls]

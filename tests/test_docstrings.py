"""Docstrings read as numpydoc, as the API reference (pdoc, in the static site) reads them.

In a ``Parameters``, ``Other Parameters``, ``Attributes`` or ``Raises`` section every line
at the section's indentation starts an entry (``name``, ``name : type``, ``a, b``); prose
there would be rendered as a parameter named by its first words, in bold, so prose after a
section needs a section of its own (``Notes``).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import physbook

ENTRY_SECTIONS = {"Parameters", "Other Parameters", "Attributes", "Raises"}
NAME = r"\*{0,2}[A-Za-z_][\w.]*"
ENTRY = re.compile(rf"{NAME}(\s*,\s*{NAME})*(\s*:.*)?")
UNDERLINE = re.compile(r"-{3,}")


def module_names() -> list[str]:
    found = pkgutil.walk_packages(physbook.__path__, "physbook.")
    return ["physbook"] + sorted(info.name for info in found)


def documented(module) -> list[tuple[str, str]]:
    """(qualified name, docstring) of the module, and of each function, class and class
    member it defines itself."""
    found = [(module.__name__, module.__doc__ or "")]
    for name, value in vars(module).items():
        if getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(value) or inspect.isclass(value) or hasattr(value, "py_func"):
            found.append((f"{module.__name__}.{name}", value.__doc__ or ""))
        if inspect.isclass(value):
            for member_name, member in vars(value).items():
                doc = getattr(member, "__doc__", None)
                if (inspect.isfunction(member) or isinstance(member, property)) and doc:
                    found.append((f"{module.__name__}.{name}.{member_name}", doc))
    return found


def misplaced_prose(docstring: str) -> list[str]:
    """Lines of ``docstring`` that sit where an entry of an entry section should start but
    are not an entry."""
    lines = inspect.cleandoc(docstring).splitlines()
    section, bad = None, []
    for index, line in enumerate(lines):
        following = lines[index + 1].strip() if index + 1 < len(lines) else ""
        if line.strip() and UNDERLINE.fullmatch(following):
            section = line.strip()
        elif (section in ENTRY_SECTIONS and line and not line[0].isspace()
              and not UNDERLINE.fullmatch(line.strip()) and not ENTRY.fullmatch(line.strip())):
            bad.append(line)
    return bad


def test_the_checker_finds_prose_in_a_parameters_section():
    good = "Sum.\n\nParameters\n----------\na, b : float\n    Terms (m).\n\nNotes\n-----\nText."
    bad = "Sum.\n\nParameters\n----------\na : float\n    A term.\n\nThe sum is exact.\n"
    assert misplaced_prose(good) == []
    assert misplaced_prose(bad) == ["The sum is exact."]


@pytest.mark.parametrize("module_name", module_names())
def test_entry_sections_hold_only_entries(module_name):
    module = importlib.import_module(module_name)
    problems = {name: misplaced_prose(doc) for name, doc in documented(module)}
    assert {name: lines for name, lines in problems.items() if lines} == {}

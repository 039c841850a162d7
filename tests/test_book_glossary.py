"""The preface's table of symbols agrees with the chapters it cites.

Each row of the table names the chapters that introduce its symbol. For every Greek letter
in the table, the cited chapters' markdown must use that letter, so that a chapter that
renames a symbol, or a table row that cites the wrong chapter, fails here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parent.parent / "book"
PREFACE = BOOK / "00_preface.ipynb"

#: Greek letters the table may use, by LaTeX name, with their Unicode forms.
GREEK = {"alpha": "α", "beta": "β", "zeta": "ζ", "theta": "θ", "kappa": "κ", "lambda": "λ",
         "mu": "μ", "rho": "ρ", "tau": "τ", "omega": "ω"}


def _markdown(path: Path) -> str:
    """All markdown of a notebook, joined."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")


def _chapters() -> dict[int, Path]:
    """Chapter number -> notebook path, from the ``NN_name.ipynb`` file names."""
    return {int(path.name[:2]): path for path in sorted(BOOK.glob("[0-9][0-9]_*.ipynb"))}


def _glossary_rows() -> list[tuple[str, list[int]]]:
    """(symbol column, cited chapters) for each row of the preface's table of symbols."""
    text = _markdown(PREFACE)
    section = text.split("## Symbols", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0].startswith("$"):
            continue                                  # the header, its rule, or prose
        rows.append((cells[0], [int(number) for number in re.findall(r"\d+", cells[3])]))
    return rows


def _greek_cases() -> list:
    """One case per (Greek letter of a row's symbol, chapter the row cites)."""
    cases = []
    for symbol, chapters in _glossary_rows():
        for name in sorted(set(re.findall(r"\\([a-z]+)", symbol)) & GREEK.keys()):
            if "\\dot\\omega" in symbol:
                name = "dot_omega"
            for chapter in chapters:
                cases.append(pytest.param(name, chapter, id=f"{name}-ch{chapter}"))
    return cases


def test_preface_has_a_table_of_symbols():
    rows = _glossary_rows()
    assert len(rows) >= 25, f"only {len(rows)} rows in the preface's table of symbols"
    symbols = " ".join(symbol for symbol, _ in rows)
    for needed in ("\\lambda", "\\kappa", "\\dot\\omega", "\\mathbf t", "\\mathbf n", "K",
                   "$M$", "$J$"):
        assert needed in symbols, f"the table of symbols lacks {needed}"


def test_every_cited_chapter_exists():
    chapters = _chapters()
    for symbol, cited in _glossary_rows():
        assert cited, f"row {symbol} cites no chapter"
        for chapter in cited:
            assert chapter in chapters, f"row {symbol} cites chapter {chapter}, not in the book"


@pytest.mark.parametrize("name, chapter", _greek_cases())
def test_cited_chapter_uses_the_letter(name, chapter):
    text = _markdown(_chapters()[chapter])
    if name == "dot_omega":
        assert "\\dot\\omega" in text, f"chapter {chapter} never writes the angular acceleration ω̇"
        return
    pattern = rf"\\{name}(?![a-z])|{GREEK[name]}"
    assert re.search(pattern, text), f"chapter {chapter} never uses {GREEK[name]} ({name})"


def test_tangent_row_matches_the_library():
    """The table's tangent t = perp(n) = (−n_y, n_x) is what ``vec.perp`` computes."""
    import numpy as np

    from physbook.vecmath import vec

    rows = dict(_glossary_rows())
    assert any("\\mathbf t" in symbol for symbol in rows)
    text = _markdown(PREFACE)
    assert "\\mathbf t = \\operatorname{perp}(\\mathbf n) = (-n_y, n_x)" in text
    normals = vec.normalize(np.random.default_rng(4).normal(size=(50, 2)))
    tangents = vec.perp(normals)
    assert np.allclose(tangents, np.column_stack([-normals[:, 1], normals[:, 0]]))
    assert np.allclose(vec.cross(normals, tangents), 1.0)       # n × t = +1: a left turn


def _math(text: str) -> list[str]:
    """The LaTeX between dollar signs in ``text``, display and inline."""
    return [display or inline for display, inline in
            re.findall(r"\$\$(.+?)\$\$|\$([^$]+?)\$", text, re.DOTALL)]


def _capital_cases() -> list:
    """One case per (single capital-letter symbol of a row, plain or bold, cited chapter)."""
    cases = []
    for symbol, chapters in _glossary_rows():
        for bold, letter in re.findall(r"\$(\\mathbf )?([A-Z])\$", symbol):
            for chapter in chapters:
                name = f"{'bold-' if bold else ''}{letter}"
                cases.append(pytest.param(letter, bool(bold), chapter, id=f"{name}-ch{chapter}"))
    return cases


@pytest.mark.parametrize("letter, bold, chapter", _capital_cases())
def test_cited_chapter_uses_the_capital(letter, bold, chapter):
    """A row such as $M$ (the mass matrix) or $\\mathbf J$ (an impulse) cites chapters whose
    formulas write that letter, plain or bold as the row writes it."""
    formulas = "\n".join(_math(_markdown(_chapters()[chapter])))
    if bold:
        pattern = rf"\\mathbf\s*\{{?{letter}(?![A-Za-z])"
    else:
        pattern = rf"(?<![\\A-Za-z])(?<!\\mathbf )(?<!\\mathbf\{{){letter}(?![A-Za-z])"
    assert re.search(pattern, formulas), \
        f"chapter {chapter} never writes {'bold ' if bold else ''}{letter} in a formula"

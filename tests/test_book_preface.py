"""The preface's table of chapters lists the chapters and appendices the book has, and no
others."""

from __future__ import annotations

import json
import re
from pathlib import Path

BOOK = Path(__file__).resolve().parent.parent / "book"


def test_the_table_of_chapters_lists_exactly_the_notebooks():
    cells = json.loads((BOOK / "00_preface.ipynb").read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
    section = text.split("## The chapters", 1)[1].split("\n## ", 1)[0]
    listed = [int(number) for number in re.findall(r"^\| (\d+) \|", section, re.MULTILINE)]
    present = sorted(int(path.name[:2]) for path in BOOK.glob("[0-9][0-9]_*.ipynb"))
    assert listed == present, f"the preface lists chapters {listed}; the book has {present}"
    # The appendices, by letter, after the chapters.
    letters = re.findall(r"^\| ([A-Z]) \|", section, re.MULTILINE)
    appendices = sorted(path.name[0] for path in BOOK.glob("[A-Z]_*.ipynb"))
    assert letters == appendices, (
        f"the preface lists appendices {letters}; the book has {appendices}")
    rows = re.findall(r"^\| (\d+|[A-Z]) \|", section, re.MULTILINE)
    assert rows[len(listed):] == letters, "the appendices come after the chapters"

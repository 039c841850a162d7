"""The preface's table of chapters lists the chapters the book has, and no others."""

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

"""tools/export_book.py: the static site runs notebooks from copies and writes pages that
need nothing from the network (local MathJax, sized players, widgets as static figures),
with an index, links between neighbouring pages, and the API reference."""

from __future__ import annotations

import base64
import html
import inspect
import io
import re
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from PIL import Image
from tool_scripts import load_tool

import physbook

ROOT = Path(__file__).resolve().parent.parent
PREFACE = ROOT / "book" / "00_preface.ipynb"


export_book = load_tool("export_book")

FIXTURE_CELLS = [
    nbformat.v4.new_markdown_cell("# A small fixture\n\nThe area is $a^2$."),
    nbformat.v4.new_code_cell("import matplotlib.pyplot as plt\nimport physbook as pb\n"
                              "pb.viz.setup_notebook()"),
    nbformat.v4.new_code_cell(
        "pb.viz.animate([0.0, 1.0, 2.0], lambda ax, x: ax.plot([x], [0.0], 'o'),\n"
        "               figsize=(2.0, 1.0))"),
    nbformat.v4.new_code_cell(
        "def square(side=2.0):\n"
        "    fig, ax = plt.subplots(figsize=(3.0, 2.0))\n"
        "    ax.set_title(f'side {side:.1f} m, area {side**2:.1f} m²')\n"
        "    plt.show()\n"
        "    return side**2\n\n\n"
        "pb.viz.interact(square, side=(1.0, 3.0, 0.5))"),
]


class Page(HTMLParser):
    """The scripts, stylesheets, images and links of an HTML page."""

    def __init__(self, text: str):
        super().__init__()
        self.scripts, self.stylesheets, self.images, self.links = [], [], [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script" and attrs.get("src"):
            self.scripts.append(attrs["src"])
        elif tag == "link":
            self.stylesheets.append(attrs.get("href", ""))
        elif tag == "img":
            self.images.append(attrs)
        elif tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])


def fetched_from_the_network(text: str) -> list[str]:
    """Every script, stylesheet or image address of the page that is not on this disk,
    and any module a script would import from the network."""
    page = Page(text)
    addresses = page.scripts + page.stylesheets + [img.get("src", "") for img in page.images]
    remote = [address for address in addresses if re.match(r"\s*(https?:)?//", address)]
    return remote + re.findall(r"import\(\s*[\"'](?:https?:)?//[^\"']*", text)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The fixture notebook and the preface, exported together (about 15 s)."""
    folder = tmp_path_factory.mktemp("book")
    fixture = folder / "01_fixture.ipynb"
    notebook = nbformat.v4.new_notebook(cells=FIXTURE_CELLS)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    nbformat.write(notebook, fixture)
    before = fixture.read_text(encoding="utf-8")
    preface_before = PREFACE.read_bytes()
    out = folder / "html"
    pages = export_book.export_book([PREFACE, fixture], out)
    assert fixture.read_text(encoding="utf-8") == before  # run from a copy, not in place
    assert PREFACE.read_bytes() == preface_before
    return out, pages


def test_pages_are_written_in_order(exported):
    out, pages = exported
    assert [page.name for page in pages] == ["00_preface.html", "01_fixture.html"]
    assert all(page.parent == out and page.stat().st_size > 0 for page in pages)


@pytest.mark.parametrize("name", ["00_preface.html", "01_fixture.html", "index.html"])
def test_pages_fetch_nothing_from_the_network(exported, name):
    out, _ = exported
    text = (out / name).read_text(encoding="utf-8")
    assert fetched_from_the_network(text) == []
    assert "require.min.js" not in text and "unpkg" not in text and "cdnjs" not in text


def test_math_is_typeset_by_the_local_mathjax(exported):
    out, _ = exported
    text = (out / "01_fixture.html").read_text(encoding="utf-8")
    (mathjax,) = [src for src in Page(text).scripts if "MathJax.js" in src]
    assert mathjax == "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"
    for needed in ("MathJax.js", "config/TeX-AMS-MML_HTMLorMML-full.js", "config/Safe.js",
                   "jax/output/HTML-CSS/fonts/STIX-Web", "fonts/HTML-CSS/STIX-Web/woff"):
        assert (out / "mathjax" / needed).exists(), needed
    assert 'webFont: "STIX-Web"' in text  # the fonts the package ships
    assert "$a^2$" in text


def test_the_player_shows_its_first_frame_at_its_size(exported):
    out, _ = exported
    text = (out / "01_fixture.html").read_text(encoding="utf-8")
    (player,) = [img for img in Page(text).images if img.get("id", "").startswith("_anim_img")]
    # setup_notebook sets 90 dpi: a 2 × 1 inch figure is 180 × 90 pixels.
    assert (player["width"], player["height"]) == ("180", "90")
    assert player["src"].startswith("data:image/png;base64,")
    assert text.count('class="anim-buttons"') == 1


def test_the_widget_shows_its_static_figure_and_note(exported):
    out, _ = exported
    text = (out / "01_fixture.html").read_text(encoding="utf-8")
    assert 'class="physbook-widget"' in text
    assert "application/vnd.jupyter.widget-view+json" not in text  # no view without state
    (figure,) = [img for img in Page(text).images
                 if img.get("alt") == "figure at the controls' starting values"]
    png = Image.open(io.BytesIO(base64.b64decode(figure["src"].partition(",")[2])))
    assert png.format == "PNG" and (figure["width"], figure["height"]) == tuple(map(str, png.size))
    assert 200 < png.size[0] <= 270 + 18 and 130 < png.size[1] <= 180 + 18  # 3 × 2 in, 90 dpi
    assert "moving them needs a live" in text and "Python kernel" in text


def test_the_preface_keeps_its_player_and_its_widget(exported):
    out, _ = exported
    text = (out / "00_preface.html").read_text(encoding="utf-8")
    assert text.count('class="anim-buttons"') == 1
    assert text.count('class="physbook-widget"') == 1
    assert "<title>Preface: how to read and run this book</title>" in text


def test_index_lists_the_pages_by_title_and_pages_link_their_neighbours(exported):
    out, _ = exported
    index = (out / "index.html").read_text(encoding="utf-8")
    assert Page(index).links == ["00_preface.html", "01_fixture.html", "api/physbook.html"]
    assert "Preface: how to read and run this book" in index and "A small fixture" in index
    preface = Page((out / "00_preface.html").read_text(encoding="utf-8")).links
    fixture = Page((out / "01_fixture.html").read_text(encoding="utf-8")).links
    assert {"index.html", "01_fixture.html", "api/physbook.html"} <= set(preface)
    assert {"index.html", "00_preface.html", "api/physbook.html"} <= set(fixture)
    assert "00_preface.html" not in preface and "01_fixture.html" not in fixture


def test_the_api_reference_documents_every_public_module(exported):
    out, _ = exported
    api = out / "api"
    layers = [name for name in physbook.__all__ if inspect.ismodule(getattr(physbook, name))]
    assert len(layers) >= 10
    for name in [*layers, "viz"]:
        assert (api / "physbook" / f"{name}.html").exists(), name
    world = (api / "physbook" / "world.html").read_text(encoding="utf-8")
    # The class's own docstring, and numpydoc sections rendered as such, not as plain text.
    first_line = physbook.World.__doc__.strip().splitlines()[0]
    assert f"<p>{html.escape(first_line, quote=False)}</p>" in world
    assert 'id="World.step"' in world
    assert re.search(r"<h[1-6][^>]*>\s*Parameters\s*</h[1-6]>", world)
    # Sphinx's :class:`~a.b.C` is read as a link to a.b.C, not printed with its "~".
    assert 'href="dynamics/body_table.html#BodyTable"' in world and "<code>~" not in world


@pytest.mark.parametrize("name", ["physbook.html", "physbook/world.html", "index.html"])
def test_the_api_reference_fetches_nothing_from_the_network(exported, name):
    out, _ = exported
    text = (out / "api" / name).read_text(encoding="utf-8")
    assert fetched_from_the_network(text) == []
    assert "cdnjs" not in text and "unpkg" not in text and "jsdelivr" not in text


def test_chapter_notebooks_picks_chapters_by_number(tmp_path):
    for name in ("00_preface.ipynb", "02_integration.ipynb", "10_stacking.ipynb", "notes.ipynb",
                 "A_making_it_fast.ipynb"):
        (tmp_path / name).write_text("{}")
    # The appendices come after the chapters, and are picked by their letter.
    assert [p.name for p in export_book.chapter_notebooks(None, tmp_path)] == [
        "00_preface.ipynb", "02_integration.ipynb", "10_stacking.ipynb",
        "A_making_it_fast.ipynb"]
    assert [p.name for p in export_book.chapter_notebooks(["10", "2", "a"], tmp_path)] == [
        "10_stacking.ipynb", "02_integration.ipynb", "A_making_it_fast.ipynb"]
    with pytest.raises(ValueError, match="chapters: .* chapter '7'"):
        export_book.chapter_notebooks(["7"], tmp_path)


def test_title_of_is_the_first_heading():
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("# a comment, not a heading"),
        nbformat.v4.new_markdown_cell("Some text\n\n## Chapter 3 — Timestepping \n"),
        nbformat.v4.new_markdown_cell("# Later"),
    ])
    assert export_book.title_of(notebook, "fallback") == "Chapter 3 — Timestepping"
    assert export_book.title_of(nbformat.v4.new_notebook(), "fallback") == "fallback"


def test_a_notebook_that_fails_stops_the_export_and_is_named(tmp_path):
    broken = tmp_path / "03_broken.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("raise ValueError('this chapter is broken')")]), broken)
    with pytest.raises(RuntimeError, match="03_broken.ipynb failed to run") as raised:
        export_book.export_book([broken], tmp_path / "html")
    assert "this chapter is broken" in str(raised.value)
    assert not (tmp_path / "html" / "03_broken.html").exists()


def test_the_command_names_a_chapter_that_does_not_exist(capsys):
    with pytest.raises(SystemExit) as raised:
        export_book.main(["unused-out-dir", "--chapters", "99"])
    assert raised.value.code == 2
    assert "chapters: no notebook" in capsys.readouterr().err

"""Build the book's static site: one HTML page per chapter and the API reference, offline.

Each notebook of ``book/`` is copied to a temporary folder and run there (``book/`` itself is
never written to), its widget state is dropped so that each widget shows its static stand-in
(the figure at the controls' starting values and a note that moving them needs a kernel),
and it is written as ``OUT_DIR/<notebook>.html`` with nbconvert's lab template. Every page
links to ``OUT_DIR/index.html``, a list of the chapters by title, to its neighbours and to
the API reference, which pdoc writes into ``OUT_DIR/api`` from the package's docstrings.

Why nbconvert and not Jupyter Book: the book is a folder of notebooks that already run under
nbclient, and nbconvert with a small index builds it from packages the book installs anyway,
offline. Jupyter Book would add Sphinx and a theme to the install and a second description
of the chapters (its table of contents and execution settings), and its pages load MathJax
from a CDN unless told otherwise.

Why widgets are figures and not embedded widget state: nbconvert can store a widget's state
in the page, but drawing it needs ipywidgets' HTML manager, a JavaScript bundle the template
loads from a CDN, and the book's widgets redraw by running Python, so an embedded slider
would move without changing its figure. Each widget therefore shows its figure at the
controls' starting values with a note that moving them needs a kernel.

Nothing on the pages comes from the network: MathJax 2 is copied from the
``jupyter-server-mathjax`` package to ``OUT_DIR/mathjax``, the players of ``pb.viz.animate``
carry their frames and icons, and the scripts nbconvert's template loads from CDNs
(require.js, mermaid, the widget manager) are left out, because the book needs none of them.

Run it from the repository's root with the book's environment::

    .venv/bin/python tools/export_book.py OUT_DIR                    # every chapter
    .venv/bin/python tools/export_book.py OUT_DIR --chapters 00 02   # some chapters
    .venv/bin/python tools/export_book.py OUT_DIR --chapters A       # an appendix

then open ``OUT_DIR/index.html`` in a browser.
"""

from __future__ import annotations

import argparse
import functools
import html
import re
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

import jinja2
import jupyter_server_mathjax
import nbformat
import pdoc
import pdoc.docstrings
import pdoc.render
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbconvert import HTMLExporter

BOOK = Path(__file__).resolve().parent.parent / "book"

#: Where the API reference goes inside the site, and its first page.
API_FOLDER = "api"
API_PAGE = f"{API_FOLDER}/physbook.html"

#: Where the MathJax 2 that ``jupyter-server-mathjax`` ships lives, and its configuration:
#: TeX and MathML in, HTML-CSS out, and the Safe extension (no scripts from the math).
MATHJAX_FILES = Path(jupyter_server_mathjax.__file__).parent / "static"
MATHJAX_URL = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"

#: Seconds one cell may run; the slowest chapter takes under a minute in all.
CELL_TIMEOUT = 600

#: The package ships MathJax's STIX-Web fonts only, not the TeX fonts its configuration
#: asks for first, so the pages ask for STIX-Web (as the classic notebook did).
MATHJAX_FONTS = """<script type="text/x-mathjax-config">
MathJax.Hub.Config({"HTML-CSS": {availableFonts: [], preferredFont: null, imageFont: null,
                                 webFont: "STIX-Web"}});
</script>"""

#: The lab template with links to the contents and the neighbours, and without the scripts it
#: loads from CDNs: the book's outputs need none of them (require.js serves JavaScript outputs,
#: mermaid draws diagrams, the widget manager draws widgets from stored state, and there are
#: none of these).
PAGE_TEMPLATE_NAME = "physbook_page.html.j2"
PAGE_TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}
{{ super() }}
{{ resources.physbook_mathjax_fonts }}
{%- endblock html_head_js_mathjax -%}
{%- block body_header -%}
{{ super() }}
{{ resources.physbook_navigation }}
{%- endblock body_header -%}
{%- block body_footer -%}
{{ resources.physbook_navigation }}
{{ super() }}
{%- endblock body_footer -%}
"""

NAVIGATION_STYLE = "margin: 1em 0; font-family: sans-serif; font-size: 90%;"

INDEX_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>physbook</title>
</head>
<body style="max-width: 40em; margin: 2em auto; font-family: sans-serif; line-height: 1.5;">
<h1>physbook</h1>
<p>A 2D game physics engine in Python, and the book that builds it.</p>
<ul>
{items}
</ul>
<p><a href="{api}">API reference</a>: every module, class and function of the package
<code>physbook</code>, from its docstrings.</p>
<p>The animations play in this page. The widgets show their figures at the controls'
starting values; to move the controls, run the chapter in JupyterLab.</p>
</body>
</html>
"""


def chapter_notebooks(chapters: list[str] | None = None, book: Path = BOOK) -> list[Path]:
    """The notebooks of ``book`` in order, the chapters (``NN_name.ipynb``) and then the
    appendices (``A_name.ipynb``, a capital letter); with ``chapters`` (``["00", "02",
    "A"]``), only those.

    Raises
    ------
    ValueError
        If a chapter number or appendix letter matches no notebook.
    """
    notebooks = (sorted(book.glob("[0-9][0-9]_*.ipynb"))
                 + sorted(book.glob("[A-Z]_*.ipynb")))
    if chapters is None:
        return notebooks
    chosen = []
    for number in chapters:
        wanted = number.zfill(2) if number.isdigit() else number.upper()
        matches = [path for path in notebooks if path.name.split("_")[0] == wanted]
        if not matches:
            raise ValueError(f"chapters: no notebook in {book} is chapter {number!r}")
        chosen.extend(matches)
    return chosen


def title_of(notebook: nbformat.NotebookNode, fallback: str) -> str:
    """The text of the notebook's first Markdown heading, or ``fallback`` if it has none."""
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            continue
        for line in cell.source.splitlines():
            if line.startswith("#"):
                return line.lstrip("#").strip()
    return fallback


def executed(path: Path) -> nbformat.NotebookNode:
    """The notebook at ``path``, run in a temporary folder, without widget state."""
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(shutil.copy(path, folder))
        notebook = nbformat.read(copy, as_version=4)
        client = NotebookClient(notebook, timeout=CELL_TIMEOUT, store_widget_state=False,
                                resources={"metadata": {"path": folder}})
        client.execute()
    # Without stored state a page cannot draw a widget, so nbconvert shows its fallback.
    notebook.metadata.pop("widgets", None)
    return notebook


def navigation(index: int, pages: list[tuple[str, str]]) -> str:
    """Links from page ``index`` of ``pages`` (file name, title) to the contents and the
    previous and next pages."""
    links = ['<a href="index.html">Contents</a>', f'<a href="{API_PAGE}">API reference</a>']
    if index > 0:
        name, title = pages[index - 1]
        links.append(f'<a href="{name}" rel="prev">← {html.escape(title)}</a>')
    if index + 1 < len(pages):
        name, title = pages[index + 1]
        links.append(f'<a href="{name}" rel="next">{html.escape(title)} →</a>')
    return f'<nav style="{NAVIGATION_STYLE}">' + " · ".join(links) + "</nav>"


def page_exporter() -> HTMLExporter:
    """nbconvert's lab template with local MathJax and no scripts from the network."""
    loader = jinja2.DictLoader({PAGE_TEMPLATE_NAME: PAGE_TEMPLATE})
    return HTMLExporter(template_name="lab", template_file=PAGE_TEMPLATE_NAME,
                        extra_loaders=[loader], mathjax_url=MATHJAX_URL)


def write_index(out_dir: Path, pages: list[tuple[str, str]]) -> Path:
    """``out_dir/index.html``: one link per page, by title."""
    items = "\n".join(f'<li><a href="{name}">{html.escape(title)}</a></li>'
                      for name, title in pages)
    path = out_dir / "index.html"
    path.write_text(INDEX_PAGE.format(items=items, api=API_PAGE), encoding="utf-8")
    return path


def copy_mathjax(out_dir: Path) -> Path:
    """Copy MathJax 2 into ``out_dir/mathjax``, where every page looks for it."""
    return Path(shutil.copytree(MATHJAX_FILES, out_dir / "mathjax", dirs_exist_ok=True))


#: A Sphinx cross-reference whose target starts with ``~`` (show only the last name), which
#: pdoc would print with the ``~``.
SPHINX_SHORT_REFERENCE = re.compile(r"(:(?:mod|func|data|const|class|meth|attr|exc|obj):`)~")


def _read_short_references(rst):
    """pdoc's reStructuredText reader, given references without their ``~``."""
    @functools.wraps(rst)
    def read(contents, source_file):
        return rst(SPHINX_SHORT_REFERENCE.sub(r"\1", contents), source_file)
    return read


def write_api_reference(out_dir: Path) -> Path:
    """Write the API reference of ``physbook`` and ``physbook.viz`` into ``out_dir/api``.

    Docstrings are read as numpydoc, each function shows its source, and the pages search
    without a server. Math stays as text, because pdoc would load MathJax from a CDN.

    Returns
    -------
    Path
        The reference's first page, ``out_dir/api/physbook.html``.
    """
    # pdoc has no hook for a docstring's text before it is read, so its reader is wrapped
    # (once, however many times this runs).
    if not hasattr(pdoc.docstrings.rst, "__wrapped__"):
        pdoc.docstrings.rst = _read_short_references(pdoc.docstrings.rst)
    pdoc.render.configure(docformat="numpy", math=False, search=True,
                          show_source=True, footer_text="physbook")
    with warnings.catch_warnings():
        # A NamedTuple's generated __init__ keeps its annotations as strings that pdoc
        # evaluates in the typing module, where ``np`` is unknown; the fields are shown anyway.
        warnings.filterwarnings("ignore", message="Error parsing type annotation",
                                category=UserWarning)
        # physbook.viz is left out of ``physbook.__all__`` (it imports matplotlib, which the
        # engine does not need), so pdoc is given it by name.
        pdoc.pdoc("physbook", "physbook.viz", output_directory=out_dir / API_FOLDER)
    return out_dir / API_PAGE


def export_book(notebooks: list[Path], out_dir: Path) -> list[Path]:
    """Run each notebook and write it to ``out_dir`` as a page, with the index, MathJax and
    the API reference.

    Returns
    -------
    list of Path
        The pages written, in the order of ``notebooks``.

    Raises
    ------
    RuntimeError
        If a cell of a notebook raises: the export stops there, naming the notebook.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    copy_mathjax(out_dir)
    pages = [(path.with_suffix(".html").name, title_of(nbformat.read(path, as_version=4),
                                                         path.stem))
             for path in notebooks]
    write_index(out_dir, pages)
    write_api_reference(out_dir)
    exporter = page_exporter()
    written = []
    for index, path in enumerate(notebooks):
        started = time.perf_counter()
        try:
            notebook = executed(path)
        except CellExecutionError as error:
            raise RuntimeError(f"{path.name} failed to run, so it was not exported:\n"
                               f"{error}") from None
        notebook.metadata["title"] = pages[index][1]
        body, _ = exporter.from_notebook_node(
            notebook, resources={"physbook_navigation": navigation(index, pages),
                                 "physbook_mathjax_fonts": MATHJAX_FONTS})
        page = out_dir / pages[index][0]
        page.write_text(body, encoding="utf-8")
        written.append(page)
        print(f"{page}: {time.perf_counter() - started:.1f} s", flush=True)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path, help="folder for the pages (made if missing)")
    parser.add_argument("--chapters", nargs="+", metavar="NN",
                        help="chapter numbers or appendix letters to export, such as 00 02 A "
                        "(default: all)")
    args = parser.parse_args(argv)
    try:
        notebooks = chapter_notebooks(args.chapters)
    except ValueError as error:
        parser.error(str(error))
    try:
        export_book(notebooks, args.out_dir)
    except RuntimeError as error:
        print(error, file=sys.stderr)
        return 1
    print(f"open {args.out_dir / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The reader's clone's checks on saved chapters, on notebooks made here: a cell that raised
or never ran is reported (nbval's check, made on the one run the browser and the reader's
path share), and a control JupyterLab saved at its model's default reads as that default."""

from __future__ import annotations

import ipywidgets
import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from reader_clone import cells_that_did_not_run
from test_reader_path import control_value, model_defaults


def ran(source: str, count: int, *outputs) -> nbformat.NotebookNode:
    cell = new_code_cell(source, execution_count=count)
    cell.outputs = list(outputs)
    return cell


def test_a_cell_that_raised_or_never_ran_is_reported_and_blank_cells_are_not():
    error = new_output("error", ename="ValueError", evalue="no", traceback=[])
    notebook = new_notebook(cells=[
        new_markdown_cell("# A chapter"),
        ran("x = 1", 1),
        ran("print(x)", 2, new_output("stream", name="stdout", text="1\n")),
        ran("raise ValueError('no')", 3, error),
        new_code_cell("y = 2"),                      # never ran: no execution count
        new_code_cell("   \n"),                      # blank: nothing to run
    ])
    assert cells_that_did_not_run(notebook) == ["raise ValueError('no')", "y = 2"]


def test_every_cell_run_without_an_error_reports_nothing():
    notebook = new_notebook(cells=[ran("x = 1", 1), ran("x", 2, new_output(
        "execute_result", data={"text/plain": "1"}, execution_count=2))])
    assert cells_that_did_not_run(notebook) == []


def test_a_control_saved_without_its_value_shows_its_models_default():
    # JupyterLab leaves out of a saved model every attribute at its default.
    slider = {"model_name": "FloatSliderModel", "state": {"description": "py", "max": 2.0}}
    assert control_value(slider) == ipywidgets.FloatSlider().value == 0.0
    moved = {"model_name": "FloatSliderModel", "state": {"description": "py", "value": 0.5}}
    assert control_value(moved) == 0.5
    menu = {"model_name": "DropdownModel",
            "state": {"description": "shape", "_options_labels": ["box", "disc"], "index": 1}}
    assert control_value(menu) == "disc"
    assert model_defaults("IntSliderModel")["value"] == ipywidgets.IntSlider().value

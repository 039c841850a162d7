"""benchmarks/run.py, the benchmark of record: its table and chart from known numbers, and
one real run end to end. No test reads a time as good or bad; only the shape of the output
and the arithmetic of the ratios are checked."""

from __future__ import annotations

import json
import math

import pytest
from PIL import Image
from tool_scripts import ROOT, load_script

runner = load_script(ROOT / "benchmarks" / "run.py", "bench_run")

ENGINES = ["physbook", "pymunk", "box2d"]


def fake_runs():
    """Two runs of two scenes: physbook 2 and 4 ms, pymunk 1 and 4 ms, Box2D 1 and 2 ms on
    scene a; scene b is 3 times scene a in every engine."""
    times = {"physbook": (2.0, 4.0), "pymunk": (1.0, 4.0), "box2d": (1.0, 2.0)}
    return [{"run": run, "scene": scene, "engine": engine, "bodies": 10,
             "ms_per_step": factor * times[engine][run]}
            for run in range(2) for scene, factor in (("a", 1.0), ("b", 3.0))
            for engine in ENGINES]


def test_the_summary_takes_medians_and_ratios_to_pymunk():
    rows = runner.summarise(fake_runs(), ["a", "b"], ENGINES)
    a, b = rows
    assert (a["physbook_ms"], a["pymunk_ms"], a["box2d_ms"]) == (3.0, 2.5, 1.5)
    assert a["physbook_ratio"] == pytest.approx(3.0 / 2.5)
    assert a["physbook_ratio_range"] == (1.0, 2.0)        # 4/4 and 2/1
    assert a["box2d_ratio_range"] == (0.5, 1.0)           # 2/4 and 1/1
    assert b["physbook_ms"] == 9.0 and b["physbook_ratio"] == pytest.approx(a["physbook_ratio"])
    assert "pymunk_ratio" not in a


def test_the_table_has_a_row_per_scene_and_bold_ratios():
    text = runner.table(runner.summarise(fake_runs(), ["a", "b"], ENGINES), ENGINES)
    lines = text.splitlines()
    assert lines[0] == ("| scene | bodies | physbook ms | pymunk ms | box2d ms | "
                        "physbook ÷ pymunk | box2d ÷ pymunk |")
    assert lines[2] == ("| a | 10 | 3.0000 | 2.5000 | 1.5000 | **1.20** (1.00–2.00) | "
                        "**0.60** (0.50–1.00) |")
    assert len(lines) == 4


def test_the_chart_is_written(tmp_path):
    path = tmp_path / "ratios.png"
    runner.bar_chart(runner.summarise(fake_runs(), ["a", "b"], ENGINES), ENGINES, path)
    with Image.open(path) as image:
        assert image.format == "PNG" and image.size[0] == 750


def test_runs_must_be_positive(capsys):
    with pytest.raises(SystemExit) as raised:
        runner.main(["--runs", "0"])
    assert raised.value.code == 2 and "--runs must be at least 1" in capsys.readouterr().err


def test_one_real_run_of_the_bounce_scene(tmp_path, capsys):
    """Fresh processes for physbook, physbook solving in parallel on two threads, and
    pymunk on the one-ball scene: a table row, the JSON with every run, and the chart."""
    out_json, out_png = tmp_path / "results.json", tmp_path / "ratios.png"
    assert runner.main(["--runs", "1", "--scenes", "bounce", "--engines", "physbook",
                        "pymunk", "physbook-parallel-2", "--json", str(out_json),
                        "--png", str(out_png)]) == 0
    printed = capsys.readouterr().out
    assert "| bounce | 2 |" in printed
    results = json.loads(out_json.read_text())
    assert [(run["engine"], run["scene"]) for run in results["runs"]] == [
        ("physbook", "bounce"), ("pymunk", "bounce"), ("physbook-parallel-2", "bounce")]
    assert results["runs"][2]["threads"] == 2
    assert all(math.isfinite(run["ms_per_step"]) and run["ms_per_step"] > 0
               and run["timed_steps"] == 540 for run in results["runs"])
    assert results["summary"][0]["physbook_ratio"] == pytest.approx(
        results["runs"][0]["ms_per_step"] / results["runs"][1]["ms_per_step"])
    assert out_png.exists()

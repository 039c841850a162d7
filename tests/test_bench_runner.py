"""benchmarks/run.py, the benchmark of record: its table and chart from known numbers, and
one real run end to end. No test reads a time as good or bad; only the shape of the output
and the arithmetic of the ratios are checked."""

from __future__ import annotations

import json
import math
import platform
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image
from tool_scripts import ROOT, load_script

runner = load_script(ROOT / "benchmarks" / "run.py", "bench_run")

ENGINES = ["physbook", "box2d3", "pymunk"]


def fake_runs():
    """Two runs of two scenes: physbook 2 and 4 ms, Box2D v3 1 and 2 ms, pymunk 1 and 4 ms
    on scene a; scene b is 3 times scene a in every engine, and judged."""
    times = {"physbook": (2.0, 4.0), "box2d3": (1.0, 2.0), "pymunk": (1.0, 4.0)}
    drops = {"physbook": (0.1, 0.3), "box2d3": (0.5, 0.7), "pymunk": (1.0, 2.0)}
    return [{"run": run, "scene": scene, "engine": engine, "bodies": 10,
             "ms_per_step": factor * times[engine][run],
             **({"quality": {"top_drop_m": drops[engine][run], "out": run}}
                if scene == "b" else {})}
            for run in range(2) for scene, factor in (("a", 1.0), ("b", 3.0))
            for engine in ENGINES]


def test_the_ratios_divide_by_box2d3_and_by_pymunk():
    assert runner.ratio_pairs(ENGINES) == [("physbook", "box2d3"), ("pymunk", "box2d3"),
                                           ("physbook", "pymunk")]
    assert runner.ratio_pairs(["physbook", "pymunk", "box2d", "physbook-4"]) == [
        ("physbook", "pymunk"), ("box2d", "pymunk"), ("physbook-4", "pymunk")]
    assert runner.ratio_pairs(["pymunk"]) == []


def test_the_summary_takes_medians_and_ratios():
    rows = runner.summarise(fake_runs(), ["a", "b"], ENGINES)
    a, b = rows
    assert (a["physbook_ms"], a["box2d3_ms"], a["pymunk_ms"]) == (3.0, 1.5, 2.5)
    assert a["physbook_per_box2d3"] == pytest.approx(3.0 / 1.5)
    assert a["physbook_per_box2d3_range"] == (2.0, 2.0)    # 2/1 and 4/2
    assert a["pymunk_per_box2d3_range"] == (1.0, 2.0)      # 1/1 and 4/2
    assert a["physbook_per_pymunk"] == pytest.approx(3.0 / 2.5)
    assert a["physbook_per_pymunk_range"] == (1.0, 2.0)    # 4/4 and 2/1
    assert b["physbook_ms"] == 9.0 and b["physbook_per_box2d3"] == pytest.approx(2.0)
    assert "box2d3_per_pymunk" not in a and "physbook_quality" not in a
    assert b["physbook_quality"] == {"top_drop_m": pytest.approx(0.2), "out": 0.5}
    assert b["pymunk_quality"]["top_drop_m"] == pytest.approx(1.5)


def test_the_table_has_a_row_per_scene_bold_ratios_and_the_quality():
    text = runner.table(runner.summarise(fake_runs(), ["a", "b"], ENGINES), ENGINES)
    lines = text.splitlines()
    assert lines[0] == ("| scene | bodies | physbook ms | box2d3 ms | pymunk ms | "
                        "physbook ÷ box2d3 | pymunk ÷ box2d3 | physbook ÷ pymunk | "
                        "physbook quality | box2d3 quality | pymunk quality |")
    assert lines[2] == ("| a | 10 | 3.0000 | 1.5000 | 2.5000 | **2.00** (2.00–2.00) | "
                        "**1.67** (1.00–2.00) | **1.20** (1.00–2.00) | – | – | – |")
    assert lines[3].endswith("| drop 200 mm; out 0.5 | drop 600 mm; out 0.5 | "
                             "drop 1.5e+03 mm; out 0.5 |")
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


def test_an_engine_not_installed_is_left_out_with_one_line(tmp_path, capsys, monkeypatch):
    """The binding of Box2D v3 failing to import: the run goes on without it, says so in
    one line, and its column is not in the table."""
    monkeypatch.setitem(sys.modules, "pyb2d3", None)    # import pyb2d3 raises ImportError
    assert runner.available(["physbook", "box2d3", "pymunk"]) == ["physbook", "pymunk"]
    assert capsys.readouterr().err == ("box2d3 is not installed (pip install pyb2d3): "
                                       "measuring without it\n")
    assert runner.main(["--runs", "1", "--scenes", "bounce", "--engines", "box2d3", "pymunk",
                        "--json", str(tmp_path / "r.json"), "--png",
                        str(tmp_path / "r.png")]) == 0
    captured = capsys.readouterr()
    assert "box2d3 is not installed" in captured.err
    header = next(line for line in captured.out.splitlines() if line.startswith("| scene"))
    assert header == "| scene | bodies | pymunk ms |"
    assert [run["engine"] for run in json.loads((tmp_path / "r.json").read_text())["runs"]] \
        == ["pymunk"]


def test_a_run_writes_the_benchmark_of_record_only_when_asked(tmp_path):
    """A run of a few scenes must not overwrite the committed table and chart: by default
    it writes into a folder git ignores, with --record into the files git keeps, and
    wherever --json and --png say. Oracle: git's own view of those paths."""
    assert runner.output_paths(False, None, None) == runner.SCRATCH
    assert runner.output_paths(True, None, None) == runner.RECORD
    named = (tmp_path / "a.json", tmp_path / "a.png")
    assert runner.output_paths(False, *named) == named
    assert runner.output_paths(True, *named) == named

    def git(*arguments) -> subprocess.CompletedProcess:
        return subprocess.run(["git", *arguments], cwd=ROOT, capture_output=True, text=True)

    if git("rev-parse", "--is-inside-work-tree").returncode:
        pytest.skip("not a git checkout")
    record = [str(path.relative_to(ROOT)) for path in runner.RECORD]
    scratch = [str(path.relative_to(ROOT)) for path in runner.SCRATCH]
    assert git("ls-files", "--error-unmatch", *record).returncode == 0    # kept by git
    assert git("check-ignore", *scratch).stdout.split() == scratch       # both ignored
    assert git("check-ignore", *record).stdout.split() == []             # neither


def test_one_real_run_of_the_bounce_scene(tmp_path, capsys):
    """Fresh processes for physbook, Box2D v3, pymunk, physbook at 4 substeps and physbook
    solving in parallel on two threads, on the one-ball scene: a table row with every
    column, the JSON with every run, and the chart."""
    pytest.importorskip("pyb2d3")
    out_json, out_png = tmp_path / "results.json", tmp_path / "ratios.png"
    engines = ["physbook", "box2d3", "pymunk", "physbook-4", "physbook-parallel-2"]
    assert runner.main(["--runs", "1", "--scenes", "bounce", "--engines", *engines,
                        "--json", str(out_json), "--png", str(out_png)]) == 0
    printed = capsys.readouterr().out.splitlines()
    header = next(line for line in printed if line.startswith("| scene"))
    row = next(line for line in printed if line.startswith("| bounce | 2 |"))
    columns = header.strip("|").split("|")
    assert len(columns) == 2 + 5 + 4 + 3          # times; ÷ box2d3; physbook's ÷ pymunk
    assert len(row.strip("|").split("|")) == len(columns)
    results = json.loads(out_json.read_text())
    assert [(run["engine"], run["scene"]) for run in results["runs"]] == [
        (engine, "bounce") for engine in engines]
    assert results["runs"][4]["threads"] == 2
    assert all(math.isfinite(run["ms_per_step"]) and run["ms_per_step"] > 0
               and run["timed_steps"] == 540 and run["bodies"] == 2
               for run in results["runs"])
    summary = results["summary"][0]
    assert summary["physbook_per_box2d3"] == pytest.approx(
        results["runs"][0]["ms_per_step"] / results["runs"][1]["ms_per_step"])
    assert summary["physbook-4_per_pymunk"] == pytest.approx(
        results["runs"][3]["ms_per_step"] / results["runs"][2]["ms_per_step"])
    assert out_png.exists()


def test_a_child_stops_at_max_steps_and_judges_a_box2d_scene():
    """In this process: Box2D's joint grid (40 × 40, its 7 static circles not counted) for
    25 steps, 20 untimed, in Box2D v3 and pymunk: a time, and the stretch of the joints
    (at the end, and watched over the run)."""
    pytest.importorskip("pyb2d3")
    for engine in ("box2d3", "pymunk"):
        result = runner.child(engine, "b2-joint-grid", max_steps=25)
        assert result["timed_steps"] == 5 and result["bodies"] == 40 * 40 - 7
        assert math.isfinite(result["ms_per_step"]) and result["ms_per_step"] > 0
        quality = result["quality"]
        assert set(quality) == {"stretch_m", "largest_stretch_m", "mean_stretch_m"}
        assert 0.0 < quality["stretch_m"] < 0.5   # 25 steps: far from apart
        # 5 timed steps are one run of them, looked at once, after its last step.
        assert quality["largest_stretch_m"] == quality["stretch_m"]
        assert quality["mean_stretch_m"] == pytest.approx(quality["stretch_m"], rel=1e-12)
    # --max-steps cuts the large scenes only: the one ball keeps its 600 steps (540 timed).
    assert runner.child("pymunk", "bounce", max_steps=100)["timed_steps"] == 540


def test_max_steps_must_be_at_least_two(capsys):
    with pytest.raises(SystemExit) as raised:
        runner.main(["--max-steps", "1"])
    assert raised.value.code == 2 and "--max-steps must be at least 2" in capsys.readouterr().err


def test_a_watched_run_takes_every_step_and_looks_after_each_run_of_steps():
    """25 steps, 3 untimed: the timed 22 run as 10, 10 and 2, each followed by a look."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from timing import mean_step_ms

    events = []
    mean_step_ms(lambda dt: events.append("step"), 0.01, 25, 3,
                 watch=lambda: events.append("look"), every=10)
    assert events == ["step"] * 13 + ["look"] + ["step"] * 10 + ["look"] + ["step"] * 2 + [
        "look"]


def judge_of(looks: list[dict]):
    """A runner's Judge of a stand-in scene whose quality is each of ``looks`` in turn."""
    looks = iter(looks)

    class Scene:
        @staticmethod
        def quality(origins, angles):
            return dict(next(looks))

    class Built:
        @staticmethod
        def state():
            return None, None

    return runner.Judge(Scene(), Built())


def test_the_judge_reports_the_deepest_sink_it_saw_and_the_last():
    judge = judge_of([{"sink_m": sink} for sink in (0.3, 0.5, 0.2, 0.1)])
    for _ in range(3):
        judge.watch()
    assert judge() == {"sink_m": 0.1, "deepest_sink_m": 0.5}


def test_the_judge_reports_the_largest_and_the_mean_stretch_it_saw_and_the_last():
    """Looks at 0.01, 0.04 and 0.02 m, then 0.03 m at the end: largest 0.04, mean 0.025."""
    judge = judge_of([{"stretch_m": stretch} for stretch in (0.01, 0.04, 0.02, 0.03)])
    for _ in range(3):
        judge.watch()
    quality = judge()
    assert quality["stretch_m"] == 0.03 and quality["largest_stretch_m"] == 0.04
    assert quality["mean_stretch_m"] == pytest.approx(0.025, rel=1e-12)


def test_an_unwatched_judge_reports_only_the_last_look():
    assert judge_of([{"stretch_m": 0.02, "out": 3}])() == {"stretch_m": 0.02, "out": 3}


def test_the_record_names_the_processor_and_its_vector_width():
    """The vector width numba compiles for, against the flags Linux lists for the
    processor (on an x86 Linux machine; elsewhere, only that it is a known width)."""
    measured_on = runner.machine()
    assert measured_on["processor"] and measured_on["cpus"] >= 1
    assert measured_on["vector_bits"] in (128, 256, 512)
    assert measured_on["versions"]["numba"] == __import__("numba").__version__
    cpuinfo = Path("/proc/cpuinfo")
    if not cpuinfo.exists() or platform.machine() not in ("x86_64", "AMD64"):
        return
    flags = next(line.split(":", 1)[1].split() for line in cpuinfo.read_text().splitlines()
                 if line.startswith("flags"))
    expected = 512 if "avx512f" in flags else 256 if "avx" in flags else 128
    assert measured_on["vector_bits"] == expected


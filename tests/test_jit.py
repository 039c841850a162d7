"""physbook._jit: compiled when numba is there and enabled, the plain function otherwise,
and the same results either way."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from tool_scripts import load_tool

from physbook import _jit


def _run(code: str, **environment: str) -> str:
    """Run ``code`` in a fresh interpreter (the switch is read at import) and return stdout."""
    env = {**os.environ, **environment}
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
        timeout=600, check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


PROBE = """
    from physbook import _jit

    def add_one(x):
        return x + 1

    compiled = _jit.njit(add_one)
    print(_jit.ENABLED, compiled is add_one, hasattr(compiled, "py_func"), compiled(2))
"""


def test_disabled_by_environment_returns_the_plain_function():
    assert _run(PROBE, NUMBA_DISABLE_JIT="1") == "False True False 3"


def test_missing_numba_returns_the_plain_function():
    # A None entry in sys.modules makes "import numba" raise ImportError.
    code = "import sys\nsys.modules['numba'] = None\n" + textwrap.dedent(PROBE)
    assert _run(code, NUMBA_DISABLE_JIT="0") == "False True False 3"


def test_enabled_returns_a_numba_dispatcher():
    # The probe's source is in no file, so numba cannot cache it: njit compiles it uncached.
    pytest.importorskip("numba")
    assert _run(PROBE, NUMBA_DISABLE_JIT="0") == "True False True 3"


def test_unset_switch_means_enabled():
    pytest.importorskip("numba")
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_DISABLE_JIT"}
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(PROBE)], env=env, capture_output=True,
        text=True, timeout=120, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True False True 3"


def _sum_of_squared_distances(points, centre):
    # A typical hot loop: plain loops over a float64 array.
    total = 0.0
    for i in range(points.shape[0]):
        dx = points[i, 0] - centre[0]
        dy = points[i, 1] - centre[1]
        total += dx * dx + dy * dy
    return total


def test_compiled_and_plain_results_agree():
    kernel = _jit.njit(_sum_of_squared_distances)
    if _jit.ENABLED:
        assert kernel is not _sum_of_squared_distances
        assert kernel.py_func is _sum_of_squared_distances
    else:
        assert kernel is _sum_of_squared_distances
    points = np.random.default_rng(3).uniform(-2.0, 2.0, (257, 2))
    centre = np.array([0.25, -0.5])
    expected = float(np.sum((points - centre) ** 2))  # numpy, a second route
    compiled = kernel(points, centre)
    plain = _sum_of_squared_distances(points, centre)
    assert compiled == pytest.approx(expected, rel=1e-12)
    # No fastmath: the compiled loop adds in the same order, so the results are identical.
    assert compiled == plain


def _halved(x):
    return 0.5 * x


def _squares(values, out):
    for i in _jit.prange(values.shape[0]):
        out[i] = values[i] * values[i]


def test_the_options_reach_numba():
    # inline=True: numba copies the kernel into a compiled caller, which then compiles no
    # version of it of its own; without, the caller calls the kernel's own compiled version.
    if not _jit.ENABLED:
        pytest.skip("numba disabled")
    for inline in (True, False):
        callee = _jit.njit(_halved, inline=inline)

        def plus_one(x):
            return callee(x) + 1.0  # noqa: B023 (compiled here, in this iteration)

        assert _jit.njit(plus_one)(3.0) == 2.5
        assert bool(callee.overloads) is not inline
    assert _jit.njit(_halved, refcounted=False).targetoptions["_nrt"] is False
    # parallel=True: the prange loop is numba's, and gives what the plain loop gives.
    kernel = _jit.njit(_squares, parallel=True)
    assert kernel.targetoptions["parallel"] is True
    values = np.arange(1000.0)
    out = np.empty_like(values)
    kernel(values, out)
    np.testing.assert_array_equal(out, values**2)


def _manifold_kernel_cache_path() -> Path:
    """The cache directory physbook's cache of a kernel of :mod:`physbook.collision.manifold`
    writes to, after checking that physbook's locator chose it, keyed on the package stamp;
    and that numba's own search (which serves where physbook's checked cache cannot) finds
    the same."""
    from numba.core import caching

    from physbook import _kernel_cache
    from physbook.collision import manifold

    kernel = next(
        obj for obj in vars(manifold).values() if hasattr(obj, "py_func") and hasattr(obj, "_cache")
    )
    assert isinstance(kernel._cache, _kernel_cache.KernelCache)
    tried, readable, locator = _jit.kernel_cache_folders(kernel.py_func)
    assert type(locator).__name__ == "PackageCacheLocator"
    assert locator.get_source_stamp() == _jit.package_stamp()
    numba_own = caching.FunctionCache(kernel.py_func)._impl.locator
    assert numba_own.get_cache_path() == locator.get_cache_path()
    assert numba_own.get_source_stamp() == _jit.package_stamp()
    return Path(locator.get_cache_path())


def test_package_kernels_are_cached_under_the_whole_package_stamp(tmp_path):
    """A kernel's cache is keyed on every physbook source file, not only its own module."""
    pytest.importorskip("numba")
    if not _jit.ENABLED:
        pytest.skip("numba disabled")
    from numba.core import caching

    from physbook.collision import manifold

    # ... in a folder named for the stamp, in the module's __pycache__.
    path = _manifold_kernel_cache_path()
    assert path.name == _jit.cache_folder() == "physbook-" + _jit.package_stamp()[:16]
    assert path.parent == Path(manifold.__file__).resolve().parent / "__pycache__"

    # The stamp covers every module: it changes with any one file's bytes.
    outside = tmp_path / "outside.py"
    outside.write_text("def f(x):\n    return x\n")
    namespace: dict = {}
    exec(compile(outside.read_text(), str(outside), "exec"), namespace)
    assert type(caching.FunctionCache(namespace["f"])._impl.locator).__name__ != (
        "PackageCacheLocator"
    )


def test_numba_cache_dir_holds_the_kernels_under_the_package_stamp(tmp_path, monkeypatch):
    """With NUMBA_CACHE_DIR set, numba's own locator (which stamps each file alone) would
    take physbook's kernels; physbook's comes first there too."""
    pytest.importorskip("numba")
    if not _jit.ENABLED:
        pytest.skip("numba disabled")
    from numba.core import config

    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path))
    path = _manifold_kernel_cache_path()
    assert path.name == _jit.cache_folder() and path.parent.parent == tmp_path
    assert path.is_dir()


def test_stale_kernel_folders_are_removed_and_nothing_else(tmp_path):
    current = tmp_path / _jit.cache_folder()
    current.mkdir()
    (current / "kernel-1.py311.nbi").write_bytes(b"kept")
    stale = tmp_path / "physbook-0123456789abcdef"
    stale.mkdir()
    (stale / "kernel-1.py311.nbi").write_bytes(b"old")
    for name in ("legacy-7.py311.nbi", "legacy-7.py311.1.nbc", "module.cpython-311.pyc"):
        (tmp_path / name).write_bytes(b"x")
    (tmp_path / "other").mkdir()
    _jit.remove_stale_caches(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [current.name, "module.cpython-311.pyc", "other"])
    assert (current / "kernel-1.py311.nbi").read_bytes() == b"kept"
    _jit.remove_stale_caches(tmp_path / "missing")  # a directory that is not there: no error


def test_package_stamp_depends_on_every_file_compiled_code_can_read(tmp_path, monkeypatch):
    # A package in miniature: kernels made with _jit, a helper they import (through a
    # package, under a function), a constant module the helper imports, and bookkeeping
    # that imports the kernels but that no kernel reads.
    files = {
        "_jit.py": "njit = None\n",
        "kernels.py": "from physbook._jit import njit\nfrom physbook.sub import helper\n",
        "sub/__init__.py": "",
        "sub/helper.py": "def f():\n    from physbook.constants import X\n    return X\n",
        "constants.py": "X = 1\n",
        "bookkeeping.py": "import physbook.kernels\nfrom physbook import kernels\n",
        "drawing.py": "import numpy\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    monkeypatch.setattr(_jit, "PACKAGE_DIR", tmp_path)
    _jit.package_stamp.cache_clear()
    try:
        assert [str(path.relative_to(tmp_path)) for path in _jit.kernel_sources()] == [
            "_jit.py", "constants.py", "kernels.py", "sub/helper.py"]
        for name, reaches_kernels in (("constants.py", True), ("sub/helper.py", True),
                                      ("bookkeeping.py", False), ("drawing.py", False)):
            before = _jit.package_stamp()
            (tmp_path / name).write_text((tmp_path / name).read_text() + "# edited\n")
            _jit.package_stamp.cache_clear()
            assert (_jit.package_stamp() != before) is reaches_kernels, name
    finally:
        _jit.package_stamp.cache_clear()


def _statements(nodes):
    # Import statements as comparable tuples: kind, module, level, names and their aliases.
    return sorted((type(node).__name__, getattr(node, "module", None) or "",
                   getattr(node, "level", 0),
                   [(alias.name, alias.asname or "") for alias in node.names])
                  for node in nodes)


def _parsed_imports(path):
    # The oracle: every import statement of the module parsed whole.
    return _statements(node for node in ast.walk(ast.parse(path.read_bytes()))
                       if isinstance(node, (ast.Import, ast.ImportFrom)))


def test_the_import_scan_finds_what_parsing_the_whole_module_finds(tmp_path):
    # The stamp reads only the lines that may start an import; a full parse of each module
    # is the oracle, on every module of the package and on the forms an import can take.
    for path in sorted(_jit.PACKAGE_DIR.rglob("*.py")):
        assert _statements(_jit._import_statements(path)) == _parsed_imports(path), path
    module = tmp_path / "forms.py"
    module.write_text(textwrap.dedent('''\
        """A docstring: import the values below, from what the table holds.
        import of the rows, not a statement (
        """
        import os, numba.core as core  # a comment (with a parenthesis
        from physbook.kernels import (cross,
            rotate,  # and a comment inside
        )
        from physbook.sub import \\
            helper
        from . import sibling


        def late():
            if True:
                from physbook.constants import X
            return X
        '''))
    assert _statements(_jit._import_statements(module)) == _parsed_imports(module)
    assert len(_parsed_imports(module)) == 5


def test_the_world_bookkeeping_is_outside_the_stamp_and_every_kernel_inside():
    # Every module that makes kernels is in the stamp; the World's Python bookkeeping and
    # the drawing are not, so editing them recompiles nothing.
    sources = {path.relative_to(_jit.PACKAGE_DIR).as_posix() for path in _jit.kernel_sources()}
    for path in _jit.PACKAGE_DIR.rglob("*.py"):
        if "njit" in path.read_text(encoding="utf-8").split("def ", 1)[-1]:
            assert path.relative_to(_jit.PACKAGE_DIR).as_posix() in sources, path
    assert {"world.py", "event_log.py", "viz/world.py", "compile_notice.py"}.isdisjoint(sources)
    assert {"compiled_step.py", "constants.py", "kinds.py", "_jit.py"} <= sources


# --- kernels compiled without reference counts ------------------------------------------


unrefcounted_audit = load_tool("unrefcounted_audit")


def test_unrefcounted_kernels_return_no_array_and_call_none_that_does(tmp_path):
    """A kernel compiled with ``refcounted=False`` takes no reference to what it is handed:
    an array it returned, or got from a kernel it calls, would have one reference too few
    once the caller dropped it. numba refuses to compile such a kernel that allocates;
    this checks the rest, over every kernel a step of each standard scene compiles
    (tools/unrefcounted_audit.py). It needs the kernels compiled from an empty cache: a
    kernel loaded from the cache compiles none of its callees, so they would not be seen.
    tools/warm_kernels.py keeps the findings when it compiled everything itself, for
    these sources; otherwise the audit runs here, with an empty cache."""
    if not _jit.ENABLED:
        pytest.skip("numba disabled")
    audit = unrefcounted_audit.read_record()
    if audit is None:
        run_script = (f"import runpy; runpy.run_path({unrefcounted_audit.__file__!r}, "
                      "run_name='__main__')")
        audit = json.loads(_run(run_script, NUMBA_CACHE_DIR=str(tmp_path),
                                NUMBA_DISABLE_JIT="0").splitlines()[-1])
    # The hot helpers of the solver, the tree and the narrow phase are among those seen,
    # compiled on their own or copied into their callers.
    for name in ("physbook.dynamics.contact_solver.solve_soft",
                 "physbook.dynamics.motion.origin_of",
                 "physbook.broadphase.tree.insert_leaf",
                 "physbook.collision.manifold.collide_rows",
                 "physbook.collision.manifold.circle_contact"):
        assert name in audit["compiled"] + audit["inlined"]
    assert audit["wrong"] == []


PLANTED = """
    from physbook._jit import njit


    @njit(refcounted=False)
    def hands_back(values):
        return values


    @njit
    def tail(values):
        return values[1:]


    @njit(inline=True)
    def through(values):
        return tail(values)


    @njit(refcounted=False)
    def takes_a_view(values):
        return through(values)[0]


    @njit(refcounted=False)
    def sums(values):
        return values.sum()
"""


def test_the_audit_finds_planted_kernels_that_hand_out_arrays(tmp_path, monkeypatch):
    """Kernels without reference counts that return an array, or call (through a kernel
    copied into them) one that does, are named; one that returns a number is not."""
    if not _jit.ENABLED:
        pytest.skip("numba disabled")
    import importlib

    (tmp_path / "planted_kernels.py").write_text(textwrap.dedent(PLANTED))
    monkeypatch.syspath_prepend(str(tmp_path))
    planted = importlib.import_module("planted_kernels")
    try:
        planted.hands_back(np.arange(3.0))
        # Compiled on its own first: compiled for the kernel without reference counts,
        # numba would refuse it the view it returns.
        planted.tail(np.arange(3.0))
        planted.takes_a_view(np.arange(3.0))
        planted.sums(np.arange(3.0))
        kernels = unrefcounted_audit.kernels_of([planted])
        assert unrefcounted_audit.audit(kernels) == {
            "compiled": ["planted_kernels.hands_back", "planted_kernels.sums",
                         "planted_kernels.takes_a_view"],
            "inlined": ["planted_kernels.through"],
            "wrong": ["planted_kernels.hands_back returns array(float64, 1d, C)",
                      "planted_kernels.takes_a_view calls tail, which returns an array"],
        }
    finally:
        sys.modules.pop("planted_kernels", None)


def _report(loaded=(), built=(), wrong=()):
    return {"compiled": ["k"], "inlined": [], "wrong": list(wrong), "loaded": list(loaded),
            "built": list(built)}


def test_findings_merge_only_when_every_loaded_kernel_was_compiled_by_one_of_them():
    # A kernel one process loaded from the cache the other compiled: its callees were seen.
    merged = unrefcounted_audit.merge([_report(loaded=["a (int64,)"], wrong=["x"]),
                                       _report(built=["a (int64,)"], wrong=["y"])])
    assert merged == {"compiled": ["k"], "inlined": [], "wrong": ["x", "y"]}
    # Loaded from an earlier run's cache: nobody saw its callees compiled.
    assert unrefcounted_audit.merge([_report(loaded=["a (int64,)"]),
                                     _report(built=["a (float64,)"])]) is None


def test_kept_findings_are_read_only_for_the_sources_they_were_made_from(tmp_path):
    path = tmp_path / "audit.json"
    assert unrefcounted_audit.read_record(path) is None               # none kept
    findings = {"compiled": ["k"], "inlined": [], "wrong": ["k returns array"]}
    unrefcounted_audit.write_record(findings, path)
    assert unrefcounted_audit.read_record(path) == findings
    record = json.loads(path.read_text())
    path.write_text(json.dumps({**record, "key": record["key"][::-1]}))  # other sources
    assert unrefcounted_audit.read_record(path) is None


def test_stepping_leaves_the_reference_counts_of_the_columns_alone():
    """Every reference a compiled step takes to a column it gives back: a count one short
    would free the column under the world (a crash, or a silently reused buffer), one too
    many would leak it. 200 steps of a pile and of a jointed car, both pipelines."""
    import physbook as pb

    for build in (lambda: pb.scenes.pyramid(6), pb.scenes.car):
        scene = build()
        world = scene.world
        for compiled in (True, False):
            world.compiled = compiled
            for _ in range(5):
                world.step(scene.dt)
            columns = [column for column in world.bodies.arrays if isinstance(column, np.ndarray)]
            before = [sys.getrefcount(column) for column in columns]
            for _ in range(200):
                world.step(scene.dt)
            assert [sys.getrefcount(column) for column in columns] == before

"""Check physbook's kernels compiled without reference counts (``refcounted=False``).

Such a kernel takes no reference to what it is handed: an array it returned, or got from a
kernel it calls, would have one reference too few once the caller dropped it. numba
refuses to compile such a kernel that allocates; this checks the rest, over every kernel a
step of each standard scene compiles, on both pipelines::

    NUMBA_CACHE_DIR=$(mktemp -d) .venv/bin/python tools/unrefcounted_audit.py

It prints its findings as JSON: the kernels checked, the kernels numba copied into their
callers (``inline``), and what is wrong. It must compile from an empty cache: a kernel
loaded from the cache compiles none of its callees, so they would not be seen.

``tools/warm_kernels.py`` compiles every kernel from an empty cache anyway, on a fresh
clone; it runs the same audit in its two processes, one per pipeline, and when every
kernel one of them loaded from the cache the other had compiled, it keeps the merged
findings in :data:`RECORD`, under a key of every physbook source file and of this file
(:func:`source_key`). tests/test_jit.py reads them there when the key is the current one,
and runs this script otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import pkgutil
import platform
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
#: Where the merged findings of tools/warm_kernels.py are kept (git ignores build/).
RECORD = ROOT / "build" / "unrefcounted-audit.json"
PIPELINES = {"compiled": True, "staged": False}
#: Steps of each standard scene on each pipeline: enough for each to call every stage.
STEPS = 3


def compile_standard_scenes(pipelines=tuple(PIPELINES)) -> None:
    """Compile what a step uses: each standard scene, on each of ``pipelines``, a few steps."""
    import physbook as pb

    for build in pb.scenes.SCENES.values():
        scene = build()
        for pipeline in pipelines:
            scene.world.compiled = PIPELINES[pipeline]
            for _ in range(STEPS):
                scene.world.step(scene.dt)


def physbook_modules() -> list[ModuleType]:
    """Every module of physbook, imported."""
    import physbook as pb

    return [importlib.import_module(info.name)
            for info in pkgutil.walk_packages(pb.__path__, "physbook.")]


def kernels_of(modules) -> dict:
    """The numba kernels made in ``modules``, by dotted name."""
    kernels = {}
    for module in modules:
        for name, value in vars(module).items():
            if hasattr(value, "targetoptions") and value.py_func.__module__ == module.__name__:
                kernels[f"{module.__name__}.{name}"] = value
    return kernels


def holds_array(numba_type) -> bool:
    """Whether a value of ``numba_type`` is or holds an array (in a tuple, at any depth)."""
    from numba.core import types

    if isinstance(numba_type, types.Array):
        return True
    inner = getattr(numba_type, "types", None)
    if inner is None and isinstance(numba_type, types.UniTuple):
        inner = (numba_type.dtype,)
    return any(holds_array(t) for t in inner or ())


def audit(kernels: dict) -> dict:
    """The kernels of ``kernels`` compiled without reference counts in this process
    (``compiled``), those numba copied into a caller (``inlined``), and each of them that
    returns an array or calls a reference-counted kernel that does (``wrong``)."""
    by_function = {kernel.py_func: kernel for kernel in kernels.values()}
    names = {kernel.py_func: name for name, kernel in kernels.items()}
    inlined = set()

    def callees(py_func, seen):
        # The kernels a kernel calls, looking through those numba copies into it (inline),
        # whose own callees it then calls.
        for global_name in py_func.__code__.co_names:
            callee = by_function.get(getattr(py_func.__globals__.get(global_name),
                                             "py_func", None))
            if callee is None or callee.py_func in seen:
                continue
            seen.add(callee.py_func)
            if callee.targetoptions.get("inline") == "always":
                inlined.add(names[callee.py_func])
                yield from callees(callee.py_func, seen)
            else:
                yield global_name, callee

    compiled, wrong = [], []
    for name, kernel in kernels.items():
        if kernel.targetoptions.get("_nrt") is not False or not kernel.overloads:
            continue
        compiled.append(name)
        for signature in kernel.nopython_signatures:
            if holds_array(signature.return_type):
                wrong.append(f"{name} returns {signature.return_type}")
        for global_name, callee in callees(kernel.py_func, {kernel.py_func}):
            if callee.targetoptions.get("_nrt") is False:
                continue
            for signature in callee.nopython_signatures:
                if holds_array(signature.return_type):
                    wrong.append(f"{name} calls {global_name}, which returns an array")
    return {"compiled": sorted(compiled), "inlined": sorted(inlined), "wrong": sorted(wrong)}


def cache_use(kernels: dict) -> dict:
    """Each kernel signature of ``kernels`` this process loaded from numba's cache
    (``loaded``) and compiled (``built``), as ``"name (argument types)"``."""
    from numba.core import sigutils

    def named(name, counter):
        return [f"{name} {sigutils.normalize_signature(signature)[0]}" for signature in counter]

    loaded, built = [], []
    for name, kernel in kernels.items():
        loaded += named(name, kernel._cache_hits)
        built += named(name, kernel._cache_misses)
    return {"loaded": sorted(loaded), "built": sorted(built)}


def this_process() -> dict:
    """The audit of every physbook kernel as this process has it, with its cache use."""
    kernels = kernels_of(physbook_modules())
    return {**audit(kernels), **cache_use(kernels)}


def merge(reports: list[dict]) -> dict | None:
    """The findings of processes that compiled their kernels side by side on one cache,
    merged; ``None`` if one of them loaded a kernel from the cache that none of them
    compiled (its callees were then compiled by a process before them, and seen by none)."""
    built = {signature for report in reports for signature in report["built"]}
    if any(signature not in built for report in reports for signature in report["loaded"]):
        return None
    return {key: sorted({name for report in reports for name in report[key]})
            for key in ("compiled", "inlined", "wrong")}


def source_key() -> str:
    """A hash of what the findings depend on: every physbook source file (which kernels a
    step calls, and with which types), this file, numba's and Python's versions."""
    import numba

    import physbook as pb

    package = Path(pb.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    digest.update(Path(__file__).read_bytes())
    digest.update(f"{numba.__version__} {platform.python_version()}".encode())
    return digest.hexdigest()


def write_record(findings: dict, path: Path = RECORD) -> None:
    """Keep ``findings`` at ``path`` under the current :func:`source_key`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"key": source_key(), **findings}, indent=1) + "\n")


def read_record(path: Path = RECORD) -> dict | None:
    """The findings kept at ``path`` if they were made from the current sources (their key
    is :func:`source_key`), else ``None``."""
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.pop("key", None) != source_key():
        return None
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)
    compile_standard_scenes()
    report = this_process()
    findings = merge([report])
    if findings is None:
        print("kernels were loaded from numba's cache: run with an empty NUMBA_CACHE_DIR",
              file=sys.stderr)
        return 1
    print(json.dumps(findings))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

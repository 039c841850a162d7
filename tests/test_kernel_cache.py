"""physbook._kernel_cache and the folders physbook._jit chooses for it: a damaged cache file
never fails a start, and compiled kernels are kept wherever a folder can be written, or read
where one cannot.

Each test runs fresh interpreters on a copy of the package holding a module of two small
kernels (each compiles in well under a second), with numba's cache in folders of the test's
own; "nothing writable" is made with file permissions, which bind root only once it has
dropped the capabilities that let it write anywhere (``setpriv``).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from physbook import _jit

pytestmark = pytest.mark.skipif(not _jit.ENABLED, reason="numba disabled")

PROBE = '''"""Two small kernels, for the tests of numba's cache."""

from physbook._jit import njit


@njit
def triangle(n):
    total = 0
    for i in range(n):
        total += i
    return total


@njit
def squares(n):
    total = 0
    for i in range(n):
        total += i * i
    return total
'''

#: The child: imports physbook, says so on stderr, runs the code in AFTER_IMPORT if any,
#: calls the kernels its arguments name and prints, as JSON, what they returned and how
#: often numba's cache served them.
CHILD = """
import json, os, sys
import physbook
from physbook import _cache_probe as probe
print("-- imported --", file=sys.stderr, flush=True)
exec(os.environ.get("AFTER_IMPORT", ""))
kernels = [getattr(probe, name) for name in sys.argv[1:]]
values = [kernel(1000) for kernel in kernels]
print(json.dumps({
    "package": physbook.__file__,
    "values": values,
    "hits": [sum(kernel.stats.cache_hits.values()) for kernel in kernels],
    "misses": [sum(kernel.stats.cache_misses.values()) for kernel in kernels],
    "folders": [kernel.stats.cache_path for kernel in kernels],
    "cache_folder": physbook._jit.cache_folder(),
}))
"""

N = 1000
EXPECTED = {"triangle": N * (N - 1) // 2, "squares": (N - 1) * N * (2 * N - 1) // 6}


class Child:
    """What a child process did: its answer, and the lines physbook logged on stderr."""

    def __init__(self, done: subprocess.CompletedProcess, names: tuple[str, ...]):
        assert done.returncode == 0, f"exit {done.returncode}:\n{done.stderr[-3000:]}"
        self.answer = json.loads(done.stdout.strip().splitlines()[-1])
        lines = done.stderr.splitlines()
        self.reports = [line for line in lines if line.startswith("physbook:")]
        self.reports_before_import = [
            line for line in lines[:lines.index("-- imported --")]
            if line.startswith("physbook:")]
        assert self.answer["values"] == [EXPECTED[name] for name in names]
        self.hits = self.answer["hits"]
        self.misses = self.answer["misses"]


def copy_package(root: Path) -> Path:
    """A copy of physbook under ``root`` with the probe module; returns ``root``."""
    shutil.copytree(_jit.PACKAGE_DIR, root / "physbook",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (root / "physbook" / "_cache_probe.py").write_text(PROBE)
    return root


def run(package: Path, *names: str, prefix: tuple[str, ...] = (), code: str = CHILD,
        **environment) -> Child:
    """Run the child (``code``) on the package copy ``package``, calling the kernels
    ``names``, with numba's cache where ``environment`` (``NUMBA_CACHE_DIR``,
    ``XDG_CACHE_HOME``, ``TMPDIR``) puts it, under the command ``prefix``."""
    names = names or ("triangle", "squares")
    env = {key: value for key, value in os.environ.items()
           if key not in ("NUMBA_CACHE_DIR", "PYTHONPATH", "XDG_CACHE_HOME", "TMPDIR")}
    env.update(PYTHONPATH=str(package), NUMBA_DISABLE_JIT="0")
    env.update({key: str(value) for key, value in environment.items()})
    done = subprocess.run([*prefix, sys.executable, "-c", code, *names], env=env, cwd=package,
                          capture_output=True, text=True, timeout=600, check=False)
    child = Child(done, names)
    assert Path(child.answer["package"]).is_relative_to(package)
    return child


def folders(tmp_path: Path) -> dict[str, Path]:
    """Fresh folders under ``tmp_path`` for numba's cache directory, the user's cache and
    the temporary directory, by the environment variables that name them."""
    made = {}
    for key, name in (("NUMBA_CACHE_DIR", "numba-cache"), ("XDG_CACHE_HOME", "user-cache"),
                      ("TMPDIR", "tmp")):
        made[key] = tmp_path / name
        made[key].mkdir()
    return made


# --- damaged files --------------------------------------------------------------------


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Path:
    return copy_package(tmp_path_factory.mktemp("package"))


@pytest.fixture(scope="module")
def filled_cache(package, tmp_path_factory) -> Path:
    """numba's cache directory after one process compiled both probe kernels into it."""
    where = folders(tmp_path_factory.mktemp("filled"))
    first = run(package, **where)
    assert first.misses == [1, 1] and first.reports == []
    return where["NUMBA_CACHE_DIR"]


def truncate_index(path: Path) -> None:
    if path.suffix == ".nbi":
        path.write_bytes(b"")


def truncate_data(path: Path) -> None:
    if path.suffix == ".nbc":
        data = path.read_bytes()
        path.write_bytes(data[:len(data) // 2])


def scramble_data(path: Path) -> None:
    """2 000 random bytes (fewer in a smaller file) written over the middle of a data file."""
    if path.suffix == ".nbc":
        data = bytearray(path.read_bytes())
        generator = random.Random(path.name)
        start = len(data) // 4
        for i in range(start, min(len(data), start + 2000)):
            data[i] = generator.randrange(256)
        path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [truncate_index, truncate_data, scramble_data])
def test_a_damaged_cache_file_is_dropped_told_once_and_compiled_anew(
        damage, package, filled_cache, tmp_path):
    """Both kernels' files damaged the same way: the start succeeds with the right results,
    one line names a damaged file in its folder, both kernels compile again, and the next
    process loads them from the repaired cache without a word."""
    where = folders(tmp_path)
    cache = where["NUMBA_CACHE_DIR"]
    shutil.copytree(filled_cache, cache, dirs_exist_ok=True)
    damaged = sorted(cache.rglob("_cache_probe.*"))
    assert {path.suffix for path in damaged} == {".nbi", ".nbc"} and len(damaged) == 4
    for path in damaged:
        damage(path)

    repaired = run(package, **where)
    assert repaired.misses == [1, 1]
    assert len(repaired.reports) == 1
    folder = repaired.answer["folders"][0]
    assert Path(folder).name == repaired.answer["cache_folder"]
    assert f"{folder}{os.sep}_cache_probe." in repaired.reports[0]
    assert "damaged" in repaired.reports[0]

    after = run(package, **where)
    assert after.hits == [1, 1] and after.reports == []


def test_a_file_numba_cannot_load_is_dropped_though_its_checksum_holds(
        package, filled_cache, tmp_path):
    """A data file intact as written but holding what numba cannot rebuild (as a numba
    with a bug might write): the kernel's index is dropped, the start succeeds, one line
    says why, and the next process loads the kernel compiled anew."""
    where = folders(tmp_path)
    shutil.copytree(filled_cache, where["NUMBA_CACHE_DIR"], dirs_exist_ok=True)
    after_import = ("file = probe.triangle._cache._files[0]\n"
                    "for name in set(file._load_index().values()):\n"
                    "    file._save_data(name, ('not', 'a', 'compile result'))\n")
    child = run(package, AFTER_IMPORT=after_import, **where)
    assert child.misses == [1, 0] and len(child.reports) == 1
    assert "numba could not load it" in child.reports[0]
    assert "_cache_probe.triangle-" in child.reports[0]
    after = run(package, **where)
    assert after.hits == [1, 1] and after.reports == []


# --- folders that cannot be written -----------------------------------------------------


@pytest.fixture(scope="module")
def unprivileged() -> tuple[str, ...]:
    """A command prefix under which file permissions bind a child: none for an ordinary
    user; for root, ``setpriv`` dropping the capabilities that let root write into a
    read-only folder."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the user's cache folder is moved by XDG_CACHE_HOME on Linux only")
    prefix: tuple[str, ...] = ()
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root, and without setpriv root writes into read-only "
                        "folders: the unwritable-cache cases cannot be made")
        prefix = (setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner")
    return prefix


def make_read_only(path: Path) -> None:
    for item in [path, *path.rglob("*")]:
        mode = item.stat().st_mode
        item.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def make_writable(path: Path) -> None:
    for item in [path, *path.rglob("*")]:
        item.chmod(item.stat().st_mode | stat.S_IWUSR)


@pytest.fixture
def read_only_package(tmp_path):
    """A copy of the package, made read-only by the test, and writable again after it (so
    that pytest can delete it)."""
    package = copy_package(tmp_path / "package")
    yield package
    make_writable(tmp_path)


def temp_folder_of(tmp: Path) -> Path:
    """physbook's private folder inside the temporary directory ``tmp``."""
    return tmp / f"physbook-numba-{os.getuid()}"


def check_read_only(prefix: tuple[str, ...], folder: Path) -> None:
    code = f"open({str(folder / 'probe')!r}, 'w')"
    done = subprocess.run([*prefix, sys.executable, "-c", code], capture_output=True,
                          text=True, check=False)
    if done.returncode == 0:
        pytest.skip("a read-only folder can be written here: the unwritable-cache cases "
                    "cannot be made")


def test_nowhere_to_write_is_told_once_at_the_first_compile(
        read_only_package, unprivileged, tmp_path):
    """Package, user cache and physbook's temporary folder all read-only: every process
    compiles, and says so in one line at its first compile, naming the fix; following
    that fix, the next process keeps its kernels."""
    package = read_only_package
    where = folders(tmp_path)
    del where["NUMBA_CACHE_DIR"]
    temp_folder_of(where["TMPDIR"]).mkdir(mode=0o700)
    for path in (package, where["XDG_CACHE_HOME"], temp_folder_of(where["TMPDIR"])):
        make_read_only(path)
    check_read_only(unprivileged, where["XDG_CACHE_HOME"])

    for _ in range(2):
        child = run(package, prefix=unprivileged, **where)
        assert child.misses == [1, 1]
        assert len(child.reports) == 1 and child.reports_before_import == []
        assert "NUMBA_CACHE_DIR" in child.reports[0]
        assert str(package / "physbook") in child.reports[0]

    where["NUMBA_CACHE_DIR"] = tmp_path / "fix"
    where["NUMBA_CACHE_DIR"].mkdir()
    assert run(package, prefix=unprivileged, **where).reports == []
    fixed = run(package, prefix=unprivileged, **where)
    assert fixed.hits == [1, 1] and fixed.reports == []


def test_a_private_temporary_folder_keeps_the_kernels_when_nothing_else_can(
        read_only_package, unprivileged, tmp_path):
    """Package and user cache read-only, the temporary directory writable: the first
    process keeps its kernels in physbook's folder there, silently, and the next loads
    them."""
    package = read_only_package
    where = folders(tmp_path)
    del where["NUMBA_CACHE_DIR"]
    for path in (package, where["XDG_CACHE_HOME"]):
        make_read_only(path)
    check_read_only(unprivileged, where["XDG_CACHE_HOME"])

    first = run(package, prefix=unprivileged, **where)
    assert first.misses == [1, 1] and first.reports == []
    assert all(Path(folder).is_relative_to(temp_folder_of(where["TMPDIR"]))
               for folder in first.answer["folders"])
    second = run(package, prefix=unprivileged, **where)
    assert second.hits == [1, 1] and second.reports == []


def test_a_read_only_cache_of_this_source_is_read(read_only_package, unprivileged, tmp_path):
    """An install whose first run filled its __pycache__, made read-only afterwards (as a
    system-wide install or a container image is): its kernels load from there; a kernel it
    lacks compiles into the user's cache, from where the next process loads it."""
    package = read_only_package
    where = folders(tmp_path)
    del where["NUMBA_CACHE_DIR"]
    warm = run(package, "triangle", **where)
    assert warm.misses == [1]
    assert Path(warm.answer["folders"][0]).is_relative_to(package)
    make_read_only(package)
    check_read_only(unprivileged, package / "physbook")

    second = run(package, prefix=unprivileged, **where)
    assert second.hits == [1, 0] and second.misses == [0, 1] and second.reports == []
    assert Path(second.answer["folders"][1]).is_relative_to(where["XDG_CACHE_HOME"])
    third = run(package, prefix=unprivileged, **where)
    assert third.hits == [1, 1] and third.reports == []


def test_a_kernel_that_cannot_be_saved_costs_a_line_not_the_start(
        package, unprivileged, tmp_path):
    """The cache folder stops taking files between import and the first compile (a full
    disk, a quota): both kernels compile and run, and one line says they were not kept."""
    where = folders(tmp_path)
    try:
        folder = tmp_path / "numba-cache"
        after_import = ("import stat\n"
                        "folder = probe.triangle.stats.cache_path\n"
                        "os.chmod(folder, stat.S_IRUSR | stat.S_IXUSR)\n")
        child = run(package, prefix=unprivileged, AFTER_IMPORT=after_import, **where)
        assert child.misses == [1, 1]
        assert len(child.reports) == 1 and "could not save" in child.reports[0]
        assert not list(folder.rglob("_cache_probe.*"))
    finally:
        make_writable(tmp_path)


def test_the_temporary_folder_is_refused_when_others_could_write_it(tmp_path, monkeypatch):
    """A cached kernel is code the process runs: physbook's folder in a shared temporary
    directory must be its user's alone."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder = _jit.private_temp_folder()
    assert folder == str(temp_folder_of(tmp_path))
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    os.chmod(folder, 0o777)
    assert _jit.private_temp_folder() is None
    os.rmdir(folder)
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    os.symlink(tmp_path / "elsewhere", folder)
    assert _jit.private_temp_folder() is None


# --- the file format, and numba's own reader --------------------------------------------


def test_checked_files_and_numba_own_files_are_each_a_miss_to_the_other(tmp_path):
    """Where the checked cache is not used (another numba), numba reads the folder itself:
    each takes the other's index for another version's, a stale cache, and neither
    fails; a checked file changed by one byte is refused."""
    from numba.core import caching

    from physbook import _kernel_cache

    checked = _kernel_cache.ChecksummedCacheFile(str(tmp_path), "kernel-1.py311", "stamp")
    plain = caching.IndexDataCacheFile(str(tmp_path), "kernel-1.py311", "stamp")
    checked.save("key", ("payload", 1))
    assert checked.load("key") == ("payload", 1)
    assert plain.load("key") is None

    plain.save("key", ("plain", 2))
    assert plain.load("key") == ("plain", 2)
    assert checked.load("key") is None

    checked.save("key", ("payload", 1))
    data = next(tmp_path.glob("*.nbc"))
    raw = bytearray(data.read_bytes())
    raw[-3] ^= 0x01
    data.write_bytes(bytes(raw))
    with pytest.raises(_kernel_cache.DamagedCacheFile, match="checksum"):
        checked.load("key")


def test_without_the_checked_cache_numba_caches_the_kernels_as_before(
        package, filled_cache, tmp_path):
    """Where physbook._kernel_cache cannot be had, physbook's kernels are cached by numba
    itself, still under the package's stamp; a folder written by either kind of process
    serves the other (as a miss, then anew) without failing."""
    where = folders(tmp_path)
    shutil.copytree(filled_cache, where["NUMBA_CACHE_DIR"], dirs_exist_ok=True)
    without = "import sys\nsys.modules['physbook._kernel_cache'] = None\n" + CHILD
    for expected_hits in ([0, 0], [1, 1]):
        plain = run(package, code=without, **where)
        assert plain.hits == expected_hits and plain.reports == []
        assert all(Path(folder).name == plain.answer["cache_folder"]
                   for folder in plain.answer["folders"])
    checked = run(package, **where)
    assert checked.misses == [1, 1] and checked.reports == []

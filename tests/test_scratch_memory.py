"""Where the engine's working arrays live: scratch arrays on a kernel's own stack
(physbook._stack) and a table's columns carved from one allocation
(physbook._buffers.zeroed_columns)."""

import numpy as np
import pytest

from physbook import _jit
from physbook._buffers import zeroed_columns
from physbook._stack import _stack_floats_in_python, stack_floats
from physbook.dynamics.contact_solver import body_work_arrays, work_arrays
from physbook.dynamics.contact_table import contact_columns

numba = pytest.importorskip("numba")
needs_numba = pytest.mark.skipif(not _jit.ENABLED, reason="numba disabled")

SIZE = 48


def _squares_kernel():
    @numba.njit(_nrt=False)
    def squares(count, out):
        # Two arrays on the stack: each its own room, written in full before it is read.
        first = stack_floats(SIZE)
        second = stack_floats(SIZE)
        for i in range(SIZE):
            first[i] = float(i * i)
            second[i] = -1.0
        total = 0.0
        for i in range(count):
            total += first[i]
        for i in range(SIZE):
            out[i] = first[i] + second[i]
        return total, first.shape[0], first.strides[0]

    return squares


@needs_numba
@pytest.mark.parametrize("count", [0, 1, 7, SIZE])
def test_a_stack_array_holds_what_the_kernel_wrote(count):
    out = np.zeros(SIZE)
    total, length, stride = _squares_kernel()(count, out)
    # Σ_{i<n} i² = (n − 1)·n·(2n − 1)/6
    assert total == (count - 1) * count * (2 * count - 1) // 6
    assert length == SIZE and stride == 8
    np.testing.assert_array_equal(out, np.arange(SIZE) ** 2 - 1.0)


@needs_numba
def test_a_kernel_without_reference_counts_may_ask_for_one():
    # numba refuses any heap allocation in a kernel compiled without reference counts; the
    # stack array is no allocation, so the kernel compiles (the wide pass relies on it).
    @numba.njit(_nrt=False)
    def fill(value):
        block = stack_floats(SIZE)
        for i in range(SIZE):
            block[i] = value
        return block[SIZE - 1]

    assert fill(2.5) == 2.5


@needs_numba
@pytest.mark.parametrize("size, rule", [("count", "a constant integer"),
                                        ("0", "positive")])
def test_a_stack_array_of_no_fixed_size_is_refused(size, rule):
    source = f"def kernel(count):\n    return stack_floats({size})[0]\n"
    namespace = {"stack_floats": stack_floats}
    exec(source, namespace)  # noqa: S102 - a kernel whose size is the case's
    with pytest.raises(numba.core.errors.TypingError, match=f"size must be {rule}"):
        numba.njit(namespace["kernel"])(3)


def test_without_numba_it_is_an_array_of_that_size():
    block = _stack_floats_in_python(SIZE)
    assert block.shape == (SIZE,) and block.dtype == np.float64


def test_columns_carved_from_one_allocation_are_zeroed_apart_and_aligned():
    shapes = [((5, 2), np.int64), ((3,), np.float64), ((4, 2, 2), np.float64),
              ((7,), np.int64)]
    columns = zeroed_columns(shapes)
    base = columns[0].base
    while isinstance(base.base, np.ndarray):
        base = base.base
    for column, (shape, dtype) in zip(columns, shapes, strict=True):
        assert column.shape == shape and column.dtype == dtype
        assert column.flags.c_contiguous and column.flags.writeable
        assert not column.any()
        assert column.ctypes.data % 64 == (base.ctypes.data % 64)  # a cache line each
        assert np.shares_memory(column, base)
    # No two overlap: each written in turn, the others stay zero.
    for k, column in enumerate(columns):
        column[...] = k + 1
    for k, column in enumerate(columns):
        assert (column == k + 1).all()


def test_columns_of_other_item_sizes_are_refused():
    with pytest.raises(ValueError, match="8-byte items"):
        zeroed_columns([((4,), np.int32)])


@pytest.mark.parametrize("make, rows", [(contact_columns, 40_000), (work_arrays, 40_000),
                                        (body_work_arrays, 60_000)])
def test_a_large_table_is_one_allocation(make, rows):
    # numpy advises the kernel to use 2 MiB pages for an allocation of 4 MiB or more: a
    # large table's columns are one such allocation, each column its own at these sizes
    # too small for it.
    columns = make(rows)
    bases = set()
    for column in columns:
        assert len(column) == rows and not column.any()
        base = column
        while isinstance(base.base, np.ndarray):
            base = base.base
        bases.add(id(base))
        held = base
    assert len(bases) == 1
    assert held.nbytes >= 4 << 20
    assert held.nbytes >= sum(column.nbytes for column in columns)

"""Scratch arrays on a compiled kernel's own stack.

A kernel that works a small block of values over and over (a group of contacts' velocities
in every pass of the solver) reads and writes them fastest where nothing else is kept: a
few kilobytes on its own stack stay in the processor's first-level cache, where the same
values in a column of a large array travel to and from memory at every pass. numba makes
arrays only on its reference-counted heap, which a ``refcounted=False`` kernel may not
use; :func:`stack_floats` asks the compiler for the room on the stack instead, once per
call of the kernel, at no cost. The compiler also knows that such an array overlaps no
other, which lets it vectorise a loop that reads one array and writes another.

With numba off (``NUMBA_DISABLE_JIT=1``) it is a plain ``numpy.empty``.
"""

from __future__ import annotations

import numpy as np

from physbook._jit import ENABLED


def _stack_floats_in_python(size: int) -> np.ndarray:
    """``size`` float64, uninitialised (numba off)."""
    return np.empty(size)


if ENABLED:
    from numba import types
    from numba.core import cgutils
    from numba.core.errors import TypingError
    from numba.extending import intrinsic

    @intrinsic(prefer_literal=True)
    def stack_floats(typingctx, size):
        """A 1-D C-contiguous float64 array of ``size`` items (a compile-time constant),
        uninitialised, on the stack of the compiled function that asks for it: valid until
        that function returns, so it must not be returned or kept."""
        if not isinstance(size, types.IntegerLiteral):
            raise TypingError("stack_floats(size): size must be a constant integer")
        count = size.literal_value
        if count <= 0:
            raise TypingError(f"stack_floats(size): size must be positive, got {count}")
        array_type = types.Array(types.float64, 1, "C")

        def codegen(context, builder, signature, arguments):
            item = context.get_value_type(types.float64)
            # In the function's entry block: one allocation per call, however many
            # times a loop asks for it. 64-byte aligned, a cache line and any vector.
            data = cgutils.alloca_once(builder, item,
                                       size=context.get_constant(types.intp, count))
            data.align = 64
            array = context.make_array(array_type)(context, builder)
            itemsize = context.get_abi_sizeof(item)
            context.populate_array(
                array, data=data,
                shape=cgutils.pack_array(builder, [context.get_constant(types.intp, count)]),
                strides=cgutils.pack_array(builder,
                                           [context.get_constant(types.intp, itemsize)]),
                itemsize=context.get_constant(types.intp, itemsize), meminfo=None)
            return array._getvalue()

        return array_type(size), codegen
else:
    stack_floats = _stack_floats_in_python

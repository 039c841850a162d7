"""Argument checks shared by the public API.

Each check converts its input to the type the engine uses and raises ``ValueError`` or
``TypeError`` with a message that names the argument and the rule it broke, so bad input
never turns into a silent NaN later.
"""

from __future__ import annotations

import math
import numbers

import numpy as np


def finite_scalar(value, name: str) -> float:
    """Return ``value`` as a float; it must be a real, finite number."""
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value.item()  # a 0-d array: judge the number it holds
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    try:
        value = float(value)
    except OverflowError:  # an int such as 10**400 has no float
        raise ValueError(f"{name} must be finite, got an integer too large for a float") from None
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return value


def positive_scalar(value, name: str) -> float:
    """Return ``value`` as a float; it must be finite and strictly positive."""
    value = finite_scalar(value, name)
    if value <= 0.0:
        raise ValueError(f"{name} must be positive, got {value}")
    return value


def non_negative_scalar(value, name: str) -> float:
    """Return ``value`` as a float; it must be finite and not negative."""
    value = finite_scalar(value, name)
    if value < 0.0:
        raise ValueError(f"{name} must be non-negative, got {value}")
    return value


#: The largest count (of rows, iterations, steps, samples) an argument may ask for. Counts
#: are stored in int64 arrays and looped over by compiled kernels; 2**31 - 1 keeps every
#: product of two counts inside int64 and is far beyond any memory this engine could fill.
MAX_COUNT = 2**31 - 1

#: The most rows a table may allocate up front (it still grows past them by doubling):
#: a first allocation beyond this is a mistake, and could take all the memory there is.
MAX_CAPACITY = 2**20


def integer(value, name: str, minimum: int, maximum: int = MAX_COUNT) -> int:
    """Return ``value`` as an int in ``[minimum, maximum]``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    if value > maximum:
        raise ValueError(f"{name} must be at most {maximum}, got {value}")
    return value


def positive_int(value, name: str, maximum: int = MAX_COUNT) -> int:
    """Return ``value`` as an int; it must be an integer from 1 to ``maximum``."""
    return integer(value, name, 1, maximum)


def non_negative_int(value, name: str, maximum: int = MAX_COUNT) -> int:
    """Return ``value`` as an int; it must be an integer from 0 to ``maximum``."""
    return integer(value, name, 0, maximum)


def bitmask(value, name: str) -> int:
    """Return ``value`` as an int that fits a signed 64-bit integer (a bitmask)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer bitmask, got {type(value).__name__}")
    value = int(value)
    if not -(2**63) <= value < 2**63:
        raise ValueError(f"{name} must fit in a signed 64-bit integer, got {value}")
    return value


def flag(value, name: str) -> bool:
    """Return ``value`` as a bool; it must be True or False (not 0, 1 or None)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__}")
    return bool(value)


def box_corners(lower, upper, lower_name: str, upper_name: str,
                rows: str = "N") -> tuple[np.ndarray, np.ndarray]:
    """Return the (``rows``, 2) lower and upper corners of boxes as new float64 arrays,
    finite, of the same shape, each lower corner at or below its upper one."""
    lower = finite_array(lower, lower_name)
    upper = finite_array(upper, upper_name)
    if lower.ndim != 2 or lower.shape[1:] != (2,) or upper.shape != lower.shape:
        raise ValueError(f"{lower_name} and {upper_name} must both have shape ({rows}, 2), "
                         f"got {lower.shape} and {upper.shape}")
    if np.any(lower > upper):
        raise ValueError(f"{lower_name} must not exceed {upper_name}")
    return lower, upper


def finite_array(value, name: str) -> np.ndarray:
    """Return ``value`` as a new float64 array with every entry finite.

    The result is always a copy, so a caller may keep it (or make it read-only) without
    touching the array it was given. Only real numbers are accepted: ``None``, strings,
    booleans and complex numbers raise ``TypeError`` instead of being converted.
    """
    if value is None or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be numeric array-like, got {type(value).__name__}")
    try:
        raw = np.asarray(value)
        if raw.dtype.kind not in "iufO":  # ints, unsigned, floats, or objects to convert
            raise TypeError(f"dtype {raw.dtype} does not hold real numbers")
        array = np.array(raw, dtype=np.float64)
    except OverflowError:  # an int such as 10**400 has no float
        raise ValueError(f"{name} must be finite, got an integer too large for a float") from None
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name} must be numeric array-like: {error}") from None
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return array


def vector(value, name: str) -> np.ndarray:
    """Return a finite 2D vector: shape (2,)."""
    array = finite_array(value, name)
    if array.shape != (2,):
        raise ValueError(f"{name} must be a 2D vector of shape (2,), got shape {array.shape}")
    return array


def points(value, name: str) -> np.ndarray:
    """Return finite 2D points: shape (2,) for one point or (N, 2) for a batch."""
    array = finite_array(value, name)
    if array.ndim not in (1, 2) or array.shape[-1] != 2:
        raise ValueError(f"{name} must have shape (2,) or (N, 2), got shape {array.shape}")
    return array


def instance(value, name: str, types, description: str):
    """Return ``value`` if it is an instance of ``types``; ``description`` names the kind.

    For example ``instance(box, "box", AABB, "an AABB")`` raises
    ``TypeError("box must be an AABB, got list")`` for a list.
    """
    if not isinstance(value, types):
        raise TypeError(f"{name} must be {description}, got {type(value).__name__}")
    return value


def choice(value, name: str, options) -> str:
    """Return ``value`` if it is one of ``options`` (strings)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, one of {sorted(options)}")
    if value not in options:
        raise ValueError(f"{name} must be one of {sorted(options)}, got {value!r}")
    return value

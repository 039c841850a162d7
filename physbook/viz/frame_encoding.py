"""Chapter 17: one frame of a world as one buffer of float32 numbers.

A live view sends the browser a frame sixty times a second; one binary message per frame is
the cheapest way there. :class:`FrameEncoder` is a drawer (the
:class:`~physbook.draw.DebugDraw` methods, so :func:`~physbook.draw.draw_world` and a game's
own drawing both go through it) that appends each primitive to a list of numbers, and
:meth:`FrameEncoder.finish` returns them as one float32 array. Each primitive is its code,
its style's index in the encoder's palette, then its numbers:

============  ====  ===========================================================
primitive     code  numbers after [code, style]
============  ====  ===========================================================
circle        0     x, y, radius, angle
polygon       1     radius, K, then K points x, y (counter-clockwise)
capsule       2     x1, y1, x2, y2, radius
segment       3     x1, y1, x2, y2
point         4     x, y, size (pixels)
box           5     lower x, lower y, upper x, upper y
============  ====  ===========================================================

float32 keeps about seven digits: a tenth of a millimetre 100 m from the origin, far below
a pixel of any view of a game. The palette grows as new :class:`~physbook.draw.Style` s are
drawn; :meth:`FrameEncoder.new_styles` tells which to send the browser with the frame.
:func:`decode_frame` reads a buffer back into drawer calls (what the tests compare).
"""

from __future__ import annotations

import numpy as np

from physbook import _check
from physbook.draw.protocol import DebugDraw, Style
from physbook.draw.world_walk import draw_world

__all__ = ["CODES", "FrameEncoder", "decode_frame", "encode_game", "palette_entry"]

#: The code of each primitive in a frame buffer, and the count of numbers after
#: [code, style] (a polygon's is 2 + 2·K).
CODES = {"circle": 0, "polygon": 1, "capsule": 2, "segment": 3, "point": 4, "box": 5}
_FIXED_LENGTHS = {0: 4, 2: 5, 3: 4, 4: 3, 5: 4}
_NAMES = {code: name for name, code in CODES.items()}


def palette_entry(style: Style) -> dict:
    """A style as the browser reads it: CSS colours ``fill`` (None: no fill) and ``line``,
    and its role ``name``."""
    def css(colour):
        return None if colour is None else "rgb({}, {}, {})".format(*(int(c) for c in colour))
    return {"name": style.name, "fill": css(style.fill), "line": css(style.line)}


class FrameEncoder(DebugDraw):
    """A drawer that packs what it is asked to draw into one float32 buffer per frame.

    Draw a frame through its methods (or ``draw_world(world, encoder)``), then take it with
    :meth:`finish`, which also starts the next frame. ``palette`` lists the styles drawn so
    far; a frame's style numbers are indices into it.
    """

    def __init__(self) -> None:
        self._values: list[float] = []
        self._palette: list[Style] = []
        self._index: dict[Style, int] = {}
        self._by_id: dict[int, tuple[Style, int]] = {}
        self._sent = 0

    @property
    def palette(self) -> list[Style]:
        """Every style drawn so far, by index (a copy)."""
        return list(self._palette)

    def style_index(self, style: Style) -> int:
        """The index of ``style`` in the palette, adding it if it is new."""
        # Keyed by identity first (a Style's hash costs more than the rest of a call); the
        # entry holds the style, so its id cannot be reused by another object.
        known = self._by_id.get(id(style))
        if known is not None and known[0] is style:
            return known[1]
        if not isinstance(style, Style):
            raise TypeError(f"style must be a physbook.draw.Style, got {type(style).__name__}")
        index = self._index.get(style)
        if index is None:
            index = self._index[style] = len(self._palette)
            self._palette.append(style)
        self._by_id[id(style)] = (style, index)
        return index

    def new_styles(self) -> list[tuple[int, Style]]:
        """The (index, style) pairs added to the palette since the last call."""
        added = [(index, self._palette[index]) for index in range(self._sent,
                                                                 len(self._palette))]
        self._sent = len(self._palette)
        return added

    def resend_palette(self) -> None:
        """Make the next :meth:`new_styles` list the whole palette (a new browser view)."""
        self._sent = 0

    def circle(self, center, radius, angle, style) -> None:
        self._values += (0.0, self.style_index(style), center[0], center[1], radius, angle)

    def polygon(self, points, radius, style) -> None:
        points = np.asarray(points, dtype=np.float64)
        if points.ndim != 2 or points.shape[1] != 2 or len(points) == 0:
            raise ValueError(f"points must be (K, 2) polygon vertices, K ≥ 1, got shape "
                             f"{points.shape}")
        self._values += (1.0, self.style_index(style), radius, len(points))
        self._values += points.ravel().tolist()

    def capsule(self, center1, center2, radius, style) -> None:
        self._values += (2.0, self.style_index(style), center1[0], center1[1], center2[0],
                         center2[1], radius)

    def segment(self, point1, point2, style) -> None:
        self._values += (3.0, self.style_index(style), point1[0], point1[1], point2[0],
                         point2[1])

    def point(self, point, size, style) -> None:
        self._values += (4.0, self.style_index(style), point[0], point[1], size)

    def box(self, lower, upper, style) -> None:
        self._values += (5.0, self.style_index(style), lower[0], lower[1], upper[0],
                         upper[1])

    def finish(self) -> np.ndarray:
        """The frame drawn since the last call, as one float32 array, and a fresh start.

        Raises ValueError if a drawn number is not finite as a float32 (a NaN, an inf, or a
        coordinate beyond ±3.4e38 m), since the browser could not draw it.
        """
        values, self._values = self._values, []
        try:
            frame = np.array(values, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise TypeError(f"a drawn primitive has a value that is not a number: "
                            f"{error}") from None
        if frame.ndim != 1:
            raise TypeError("a drawn primitive has a coordinate that is not one number")
        with np.errstate(over="ignore"):
            frame = frame.astype(np.float32)
        if not np.all(np.isfinite(frame)):
            raise ValueError("a drawn primitive has a coordinate, radius, angle or size that "
                             "is not finite as a float32 (NaN, inf or beyond ±3.4e38)")
        return frame


def decode_frame(frame, palette) -> list[tuple]:
    """The drawer calls a frame buffer holds, in order.

    Parameters
    ----------
    frame
        (F,) float32 numbers written by :meth:`FrameEncoder.finish`.
    palette
        The encoder's palette (a list of :class:`~physbook.draw.Style`).

    Returns
    -------
    list of tuple
        One per primitive: the method's name, then its arguments as the drawer would get
        them (points as float64 arrays, numbers as floats), ending with the Style:
        ``("circle", center, radius, angle, style)``, ``("polygon", points, radius, style)``,
        ``("capsule", c1, c2, radius, style)``, ``("segment", p1, p2, style)``,
        ``("point", p, size, style)``, ``("box", lower, upper, style)``.
    """
    if not isinstance(frame, np.ndarray) or frame.dtype != np.float32 or frame.ndim != 1:
        raise TypeError("frame must be a one-dimensional float32 array, as "
                        "FrameEncoder.finish returns")
    if isinstance(palette, (str, bytes)) or not hasattr(palette, "__iter__"):
        raise TypeError(f"palette must be a list of Styles, got {type(palette).__name__}")
    palette = list(palette)
    for index, style in enumerate(palette):
        _check.instance(style, f"palette[{index}]", Style, "a Style")
    values = frame.astype(np.float64)
    calls: list[tuple] = []
    at = 0
    while at < len(values):
        code, style_number = values[at], values[at + 1] if at + 1 < len(values) else -1.0
        if code not in _NAMES:
            raise ValueError(f"frame has an unknown primitive code {code} at {at}")
        if style_number != int(style_number) or not 0 <= style_number < len(palette):
            raise ValueError(f"frame has a style number {style_number} at {at + 1} outside "
                             f"the palette of {len(palette)}")
        style, code = palette[int(style_number)], int(code)
        if code == 1:
            if at + 3 >= len(values) or values[at + 3] != int(values[at + 3]) \
                    or values[at + 3] < 1:
                raise ValueError(f"frame has a polygon without a vertex count at {at}")
            count = 2 + 2 * int(values[at + 3])
        else:
            count = _FIXED_LENGTHS[code]
        numbers = values[at + 2:at + 2 + count]
        if len(numbers) != count:
            raise ValueError(f"frame ends inside a {_NAMES[code]} at {at}")
        at += 2 + count
        if code == 0:
            calls.append(("circle", numbers[0:2], float(numbers[2]), float(numbers[3]), style))
        elif code == 1:
            calls.append(("polygon", numbers[2:].reshape(-1, 2), float(numbers[0]), style))
        elif code == 2:
            calls.append(("capsule", numbers[0:2], numbers[2:4], float(numbers[4]), style))
        elif code == 3:
            calls.append(("segment", numbers[0:2], numbers[2:4], style))
        elif code == 4:
            calls.append(("point", numbers[0:2], float(numbers[2]), style))
        else:
            calls.append(("box", numbers[0:2], numbers[2:4], style))
    return calls


def encode_game(game, encoder: FrameEncoder, poses=None) -> np.ndarray:
    """One frame of a game: its world's shapes, sensors and joints (at ``poses``, or the
    world's own with None; in the game's ``styles`` if it has them), then the game's own
    ``draw(encoder)`` if it has one, as :meth:`FrameEncoder.finish` returns it."""
    draw_world(game.world, encoder, styles=getattr(game, "styles", None), poses=poses)
    if getattr(game, "draw", None) is not None:
        game.draw(encoder)
    return encoder.finish()

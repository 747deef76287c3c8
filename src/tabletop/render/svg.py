"""The shared SVG value type.

Renderers build SVG with :mod:`xml.etree.ElementTree` and return :class:`SvgImage`, a
``str`` that Jupyter shows as a picture.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

SVG_NS = "http://www.w3.org/2000/svg"


class SvgImage(str):
    """SVG document text that renders itself in Jupyter."""

    __slots__ = ()

    def _repr_svg_(self) -> str:
        return str(self)


def to_svg_image(root: ET.Element) -> SvgImage:
    """Serialises an ``<svg>`` element tree into an :class:`SvgImage`."""
    root.set("xmlns", SVG_NS)
    return SvgImage(ET.tostring(root, encoding="unicode"))

"""Rasterise ``book/favicon.svg`` into ``book/site-root/favicon.ico``.

Browsers ask for ``/favicon.ico`` on pages that name no icon, such as the book's root
``index.html`` (a bare redirect). The SVG is only rounded and plain rectangles, so it is drawn
here with Pillow rather than a full SVG renderer. Run it after editing the SVG.
"""

import xml.etree.ElementTree as ET
from pathlib import Path

from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parents[1]
SVG = ROOT / "book" / "favicon.svg"
ICO = ROOT / "book" / "site-root" / "favicon.ico"
SIZE = 256  # drawn once large, then downsampled into each icon size
SVG_NS = "{http://www.w3.org/2000/svg}"


def _rects(element, fill=None):
    """Yield (x, y, width, height, rx, fill) for every rect, inheriting ``fill`` from groups."""
    fill = element.get("fill", fill)
    if element.tag == f"{SVG_NS}rect":
        numbers = [float(element.get(key, 0)) for key in ("x", "y", "width", "height", "rx")]
        yield (*numbers, fill)
    for child in element:
        yield from _rects(child, fill)


def main():
    svg = ET.parse(SVG).getroot()
    _, _, view_width, _ = (float(v) for v in svg.get("viewBox").split())
    scale = SIZE / view_width
    image = Image.new("RGBA", (SIZE, SIZE), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    for x, y, width, height, rx, fill in _rects(svg):
        box = [x * scale, y * scale, (x + width) * scale - 1, (y + height) * scale - 1]
        draw.rounded_rectangle(box, radius=rx * scale, fill=fill)
    ICO.parent.mkdir(parents=True, exist_ok=True)
    image.save(ICO, sizes=[(16, 16), (32, 32), (48, 48), (64, 64)])
    print(f"wrote {ICO.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

"""Copy the picture of the chapter 1 landing page into book/chapters/img/.

Run from the repository root after ``make sync``: ``python scripts/chapter_image_01.py``. The
picture is the one page 01-2 already draws (a reduction's direction), taken from the executed
notebook, so the landing page and the page never disagree.
"""

import base64
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "notebooks" / "01-2-arithmetic-and-reductions.ipynb"
OUT = ROOT / "book" / "chapters" / "img" / "01-tensor-basics.png"


def main() -> None:
    cells = json.loads(SOURCE.read_text())["cells"]
    pngs = [output["data"]["image/png"] for cell in cells for output in cell.get("outputs", [])
            if "image/png" in output.get("data", {})]
    if len(pngs) != 1:
        raise SystemExit(f"expected one picture in {SOURCE.name}, found {len(pngs)}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(base64.b64decode(pngs[0]))
    print("wrote", OUT)


if __name__ == "__main__":
    main()

"""Measure the StrideExplorer widget in headless Chromium, and take screenshots of it.

Loads a standalone page that imports the widget's bundled ES module (the exact ``_esm`` string
the Python class ships) and renders it with a fake anywidget model (get/set/on/off/save_changes)
whose state is the Python widget's synced traits. Times, with ``performance.now()`` inside the
page, around ``render`` (first draw) and around a click on an op button (redraw after an op), at
4,096 and 65,536 elements, and the time to show the size-cap notice above the cap. Prints a table.

Uses Debian's Chromium (``/usr/bin/chromium``); never ``playwright install``::

    .venv/bin/python scripts/bench_stride_explorer.py [--screenshot /tmp/stride_explorer.png]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics

import torch
from playwright.sync_api import sync_playwright

from tensorlens import StrideExplorer, View
from tensorlens.widgets.stride_explorer import python_expression

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SYNCED = ["shape", "stride", "offset", "storage_size", "storage", "label", "dtype",
          "max_elements", "notice", "ops", "expression", "error"]

PAGE = """<!doctype html><html><head><meta charset="utf-8"><style>%s
body { margin: 0; background: #ffffff; }
.cell { width: 760px; padding: 14px 16px; background: var(--bg); color: var(--fg); }
.cell.light { --bg: #ffffff; --fg: #1f2937; } .cell.dark { --bg: #111827; --fg: #e5e7eb; }
</style></head><body></body></html>"""

# The harness: a fake model and a mount() helper. Nothing here reaches into the widget's code;
# it clicks buttons and reads what the widget drew (classes and data attributes).
HARNESS = """
async (esm) => {
  const url = URL.createObjectURL(new Blob([esm], {type: "text/javascript"}));
  const mod = await import(url);
  window.__mount = (state, theme = "light") => {
    const handlers = {};
    const model = {
      saves: 0,
      get: (k) => state[k],
      set: (k, v) => { state[k] = v; (handlers["change:" + k] || []).forEach((f) => f()); },
      on: (ev, f) => { (handlers[ev] = handlers[ev] || []).push(f); },
      off: (ev, f) => { handlers[ev] = (handlers[ev] || []).filter((g) => g !== f); },
      save_changes: () => { model.saves++; },
    };
    const el = document.createElement("div");
    el.className = `cell ${theme}`;
    document.body.append(el);
    const t0 = performance.now();
    const cleanup = mod.default.render({ model, el });
    const ms = performance.now() - t0;
    return { el, model, cleanup, ms };
  };
  return true;
}
"""

MEASURE = """
({state, ops, repeats}) => {
  const first = [];
  let w = null;
  for (let i = 0; i < repeats; i++) {
    if (w) { w.cleanup(); w.el.remove(); }
    w = window.__mount(JSON.parse(JSON.stringify(state)));
    first.push(w.ms);
  }
  const redraw = [];
  for (let i = 0; i < ops; i++) {
    const op = i % 2 ? "undo" : "transpose";
    const t0 = performance.now();
    w.el.querySelector(`button[data-op="${op}"]`).click();
    redraw.push(performance.now() - t0);
  }
  const q = (s) => w.el.querySelector(s);
  const out = {
    first, redraw, capped: q(".tl-se").dataset.capped, notice: q(".tl-cap").hidden ? "" : q(".tl-cap").textContent,
    stride: q(".tl-stride").textContent, saves: w.model.saves,
  };
  w.cleanup(); w.el.remove();
  return out;
}
"""


def state_of(widget: StrideExplorer) -> dict:
    return {name: getattr(widget, name) for name in SYNCED}


def cases():
    torch.manual_seed(0)
    yield "4,096 (64x64)", StrideExplorer(torch.randn(64, 64))
    yield "65,536 (256x256)", StrideExplorer(torch.randn(256, 256))
    yield "1,048,576 (over cap)", StrideExplorer(torch.zeros(1024, 1024))


def screenshot(page, path: str) -> None:
    """A few explorers in light and dark, the first with element [2, 1] pointed at."""
    x = torch.arange(12.0).view(3, 4)
    shots = [
        ("light", StrideExplorer(x).apply("t")),
        ("light", StrideExplorer(View((2, 3, 4)), label="v").apply("permute", (1, 0, 2))),
        ("dark", StrideExplorer(torch.arange(3.0), label="a").apply("unsqueeze", 0)
         .apply("expand", (4, 3))),
        ("dark", StrideExplorer(torch.arange(8), label="s").apply("unfold", 0, 3, 2)),
    ]
    shots += [
        ("light", StrideExplorer(x).apply("t")),  # then .view(-1) is clicked: an error
        ("dark", StrideExplorer(torch.zeros(600, 600))),  # above the cap: a notice
    ]
    page.set_content(PAGE % CSS)
    page.evaluate(HARNESS, ESM)
    for theme, w in shots:
        page.evaluate("([s, theme]) => { window.__mount(s, theme); }", [state_of(w), theme])
    page.locator(".tl-se").nth(4).locator("button[data-op='view']").click()
    # x.t() is 4x3 with 36 px cells after 26 px of row labels and 14 px of column labels.
    page.locator(".tl-logical").first.scroll_into_view_if_needed()
    box = page.locator(".tl-logical").first.bounding_box()
    page.mouse.move(box["x"] + 26 + 36 * 1 + 17, box["y"] + 14 + 36 * 2 + 17)
    page.screenshot(path=path, full_page=True)


CLICK_ALL = """
(state) => {
  const w = window.__mount(state);
  const q = (s) => w.el.querySelector(s);
  const seen = [];
  for (const button of w.el.querySelectorAll(".tl-op-btn[data-op]")) {
    button.click();
    seen.push({ op: button.dataset.op, stride: q(".tl-stride").textContent, shape: q(".tl-shape").textContent,
                offset: q(".tl-offset").textContent, expr: q(".tl-expr").textContent,
                error: q(".tl-error").hidden ? "" : q(".tl-error").textContent,
                ops: JSON.parse(JSON.stringify(w.model.get("ops"))), saved: w.model.get("expression") });
  }
  w.cleanup(); w.el.remove();
  return seen;
}
"""


def check_every_op(page) -> tuple[int, int]:
    """Click every op button in turn (default arguments) and check the header the widget drew
    against the Python model replaying the ops the widget recorded. Returns (applied, rejected)."""
    w = StrideExplorer(torch.arange(24.0).view(2, 3, 4))
    applied = rejected = 0
    for step in page.evaluate(CLICK_ALL, state_of(w)):
        w.ops = step["ops"]
        v = w.current_view()
        expected = {"shape": str(v.shape), "stride": str(v.stride), "offset": str(v.offset),
                    "expr": python_expression(w.label, w.ops)}
        shown = {key: step[key] for key in expected}
        if shown != expected or step["saved"] != expected["expr"]:
            raise SystemExit(f"after {step['op']}: the widget shows {shown}, the model {expected}")
        applied += not step["error"]
        rejected += bool(step["error"])
    return applied, rejected


EDGE_CASES = [
    ("empty (0, 3)", lambda: StrideExplorer(torch.zeros(0, 3))),
    ("empty 1-D", lambda: StrideExplorer(torch.zeros(0))),
    ("no storage", lambda: StrideExplorer(View((0,)))),
    ("rank 0", lambda: StrideExplorer(torch.tensor(2.5))),
    ("3-D, 4 slices", lambda: StrideExplorer(torch.arange(24).view(2, 2, 6)).apply("transpose", 0, 2)),
    ("gap in storage", lambda: StrideExplorer(torch.arange(10)[2:5], label="x[2:5]")),
    ("nan and inf", lambda: StrideExplorer(torch.tensor([float("nan"), float("inf"), -1e-9]))),
]

MOUNT_ONLY = """
(state) => {
  const w = window.__mount(state);
  const q = (s) => w.el.querySelector(s);
  const out = { error: q(".tl-error").hidden ? "" : q(".tl-error").textContent,
                drawn: !q(".tl-stage").hidden, stride: q(".tl-stride").textContent };
  w.cleanup(); w.el.remove();
  return out;
}
"""


def check_edge_cases(page) -> None:
    """Empty, 0-dim and other corner views draw without an error."""
    for name, make in EDGE_CASES:
        w = make()
        got = page.evaluate(MOUNT_ONLY, state_of(w))
        if got["error"] or not got["drawn"] or got["stride"] != str(w.current_view().stride):
            raise SystemExit(f"{name}: {got}")


def main() -> None:
    """Time the widget, check every op button against the model, optionally take a screenshot."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screenshot", help="write a PNG of a few explorers here")
    parser.add_argument("--repeats", type=int, default=15, help="first draws (ops: twice this)")
    opts = parser.parse_args()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 800, "height": 900})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.set_content(PAGE % CSS)
        page.evaluate(HARNESS, ESM)
        print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (timings scale with it)")
        # Other work on the machine only ever adds time, so the minimum is the best estimate of
        # the widget's own cost; the median shows what a busy machine gives.
        print(f"{'view':<22} {'first draw ms':>22} {'redraw after op ms':>24}  notes")
        print(f"{'':<22} {'(min / median)':>22} {'(min / median)':>24}")
        for name, widget in cases():
            r = page.evaluate(MEASURE, {"state": state_of(widget), "ops": 2 * opts.repeats,
                                        "repeats": opts.repeats})
            note = "cap notice shown" if r["capped"] == "true" and r["notice"] else f"stride {r['stride']}"
            first = f"{min(r['first']):.1f} / {statistics.median(r['first']):.1f}"
            redraw = f"{min(r['redraw']):.1f} / {statistics.median(r['redraw']):.1f}"
            print(f"{name:<22} {first:>22} {redraw:>24}  {note}")
        check_edge_cases(page)
        print(f"{len(EDGE_CASES)} corner cases (empty, 0-dim, no storage, nan) drawn without errors")
        applied, rejected = check_every_op(page)
        print(f"every op button clicked on a (2, 3, 4) tensor: {applied} applied, {rejected} "
              "rejected with a message; header matches the Python model after each")
        if opts.screenshot:
            screenshot(page, opts.screenshot)
            print(f"screenshot: {opts.screenshot}")
        browser.close()
        if errors:
            raise SystemExit("page errors: " + json.dumps(errors))


ESM = StrideExplorer._esm if isinstance(StrideExplorer._esm, str) else str(StrideExplorer._esm)
CSS = StrideExplorer._css if isinstance(StrideExplorer._css, str) else str(StrideExplorer._css)

if __name__ == "__main__":
    main()

"""A widget's bundled ES module drawn in headless Chromium, in a page of a given language, with a
stand-in for anywidget's model: the one harness of the widget tests that need no book.

    with widget_page(load_esm("mask_explorer.js"), [state], lang="zh-CN") as (page, errors):
        ...                      # widget i is drawn in div#w<i>; errors: the page's exceptions

The model is anywidget's as a widget sees it: ``get``, ``set`` (which fires ``change:<key>`` at
once, as Backbone does), ``save_changes``, ``on`` and ``off``.
"""

import base64
import contextlib
import json
import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium is not installed")

MODEL_JS = """
const model = (state) => {
  const handlers = {};
  return {
    get: (k) => state[k],
    set(k, v) { state[k] = v; (handlers["change:" + k] || []).forEach((f) => f()); },
    save_changes() {},
    on(event, f) { (handlers[event] ||= []).push(f); },
    off(event, f) { handlers[event] = (handlers[event] || []).filter((g) => g !== f); },
  };
};"""


@contextlib.contextmanager
def widget_page(esm: str, states: list[dict], lang: str = "en", css: str = ""):
    """A page that renders ``esm`` once per state (into div#w0, #w1, ...); yields it and the
    list of the exceptions it raised."""
    playwright = pytest.importorskip("playwright.sync_api")
    source = base64.b64encode(esm.encode()).decode()
    divs = "".join(f'<div id="w{i}"></div>' for i in range(len(states)))
    html = f"""<html lang="{lang}"><head><style>{css}</style></head><body>{divs}
        <script type="module">
        const m = await import("data:text/javascript;base64,{source}");
        {MODEL_JS}
        {json.dumps(states)}.forEach((state, i) =>
          m.default.render({{model: model(state), el: document.getElementById("w" + i)}}));
        window.rendered = true;
        </script></body></html>"""
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            errors = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.set_content(html)
            page.wait_for_function("window.rendered")
            yield page, errors
        finally:
            browser.close()

"""Text and HTML forms of a check verdict.

Contract: both forms are deterministic: they contain no memory addresses, timings or paths, only
what the result holds (ids, messages, shapes, strides, dtypes and tensor values). HTML escapes
everything it shows and uses stable ``tl-check*`` class names for tests and styling.
"""

from __future__ import annotations

import html as _html
import re
import textwrap

import torch

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")

_MARK = {"pass": "\u2713", "fail": "\u2717", "error": "\u2717", "not_implemented": "\u2026",
         "unknown": "?", "internal": "!"}
_LABEL = {"pass": "passed", "fail": "not yet", "error": "your function raised an error",
          "not_implemented": "not implemented yet", "unknown": "unknown exercise",
          "internal": "checker error"}
# The box paints its own light surface and text, so its colours hold on any page (the book's dark
# theme, JupyterLab's; its code takes the box's text colour, not the page's); each label colour has
# at least 4.5:1 contrast on that surface (WCAG AA).
_SURFACE = "background:#ffffff;color:#1f2328"
_COLOR = {"pass": "#1a7f37", "fail": "#cf222e", "error": "#cf222e", "not_implemented": "#7d4e00",
          "unknown": "#7d4e00", "internal": "#8250df"}


def one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line, addresses removed, cut to ``limit`` characters."""
    text = _ADDRESS.sub("", " ".join(str(text).split()))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _tensor_facts(t: torch.Tensor) -> str:
    return (f"shape {tuple(t.shape)}, dtype {t.dtype}, stride {tuple(t.stride())}, "
            f"storage offset {t.storage_offset()}")


def describe_value(value, layout: bool = True) -> str:
    """Facts and values of a result or argument, on a few lines.

    ``layout=False`` leaves out strides and storage offset (for the reference's output: the
    specification fixes values, shape and dtype, and its strides would only mislead).
    """
    if isinstance(value, torch.Tensor):
        facts = _tensor_facts(value) if layout else f"shape {tuple(value.shape)}, dtype {value.dtype}"
        return facts + "\n" + _ADDRESS.sub("", repr(value.detach()))
    if isinstance(value, (tuple, list)) and any(isinstance(v, torch.Tensor) for v in value):
        parts = [f"[{i}] " + textwrap.indent(describe_value(v, layout), "    ").lstrip()
                 for i, v in enumerate(value)]
        return f"a {type(value).__name__} of {len(value)} items\n" + "\n".join(parts)
    return f"{type(value).__name__}: {one_line(repr(value), 200)}"


def describe_args(args: tuple, names) -> str:
    """``name = value`` lines for an argument tuple."""
    names = list(names) + [f"arg{i}" for i in range(len(names), len(args))]
    lines = []
    for name, value in zip(names, args):
        body = describe_value(value) if isinstance(value, torch.Tensor) else one_line(repr(value), 200)
        lines.append(f"{name} = " + textwrap.indent(body, " " * (len(name) + 3)).lstrip())
    return "\n".join(lines)


def text(result) -> str:
    """The text/plain verdict."""
    head = f"{_MARK.get(result.status, '?')} {result.exercise_id}"
    if result.title:
        head += f" ({result.title})"
    head += f": {_LABEL.get(result.status, result.status)}"
    if result.status == "pass":
        tail = f" on {result.tried}" if result.tried else ""
        return head + tail
    lines = [head, "  " + result.message]
    for label, body in result.details:
        lines.append(f"  {label + ':':<10}" + textwrap.indent(body, " " * 12).lstrip())
    if result.hint:
        lines.append(f"  {'hint:':<10}" + textwrap.indent(result.hint, " " * 12).lstrip())
    return "\n".join(lines)


def html(result) -> str:
    """The text/html verdict: a coloured box with the same content as :func:`text`."""
    esc = _html.escape
    color = _COLOR.get(result.status, "#57606a")
    title = f" \u2014 {esc(result.title)}" if result.title else ""
    parts = [
        f'<div class="tl-check tl-check-{esc(result.status)}" '
        f'style="border-left:4px solid {color};padding:4px 10px;margin:4px 0;{_SURFACE}">',
        f'<div class="tl-check-head"><strong style="color:{color}">'
        f'{_MARK.get(result.status, "?")} {esc(_LABEL.get(result.status, result.status))}</strong> '
        f'<code style="color:inherit;background:transparent">{esc(result.exercise_id)}</code>{title}</div>',
    ]
    if result.status == "pass":
        if result.tried:
            parts.append(f'<div class="tl-check-tried">checked on {esc(result.tried)}</div>')
    else:
        parts.append(f'<div class="tl-check-message">{esc(result.message)}</div>')
        for label, body in result.details:
            parts.append(f'<div class="tl-check-detail"><em>{esc(label)}</em>'
                         f'<pre style="margin:2px 0 4px 0">{esc(body)}</pre></div>')
        if result.hint:
            parts.append(f'<div class="tl-check-hint"><em>hint:</em> {esc(result.hint)}</div>')
    parts.append("</div>")
    return "".join(parts)

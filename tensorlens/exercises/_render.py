"""Text and HTML forms of a check verdict, and an exercise's plain-text card (:func:`card`).

Contract: both forms are deterministic: they contain no memory addresses, timings or paths, only
what the result holds (ids, messages, shapes, strides, dtypes and tensor values). HTML escapes
everything it shows and uses stable ``tl-check*`` class names for tests and styling.
"""

from __future__ import annotations

import html as _html
import re
import textwrap
import unicodedata

import torch

from ..language import get_language, validate
from ._messages import Untranslated, catalog, say, translate

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")

_MARK = {"pass": "\u2713", "fail": "\u2717", "error": "\u2717", "not_implemented": "\u2026",
         "unknown": "?", "internal": "!"}
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


def _tensor_facts(t: torch.Tensor, layout: bool = True, storage: bool = False) -> str:
    facts = {"shape": tuple(t.shape), "dtype": t.dtype}
    if layout:
        facts.update(stride=tuple(t.stride()), offset=t.storage_offset())
    if storage:
        facts["nbytes"] = t.untyped_storage().nbytes()
    key = ("tensor_facts" if layout else "tensor_values") + ("_storage" if storage else "")
    return say(key, **facts)


def describe_value(value, layout: bool = True, storage: bool = False) -> str:
    """Facts and values of a result or argument, on a few lines.

    ``layout=False`` leaves out strides and storage offset (for the reference's output: the
    specification fixes values, shape and dtype, and its strides would only mislead).
    ``storage=True`` adds the size of the storage behind each tensor, in bytes.
    """
    if isinstance(value, torch.Tensor):
        facts = _tensor_facts(value, layout, storage)
        return facts + "\n" + _ADDRESS.sub("", repr(value.detach()))
    if isinstance(value, (tuple, list)) and any(isinstance(v, torch.Tensor) for v in value):
        parts = [f"[{i}] " + textwrap.indent(describe_value(v, layout, storage), "    ").lstrip()
                 for i, v in enumerate(value)]
        return say("sequence_of", type=type(value).__name__, n=len(value)) + "\n" + "\n".join(parts)
    return f"{type(value).__name__}: {one_line(repr(value), 200)}"


def describe_args(args: tuple, names, storage: bool = False) -> str:
    """``name = value`` lines for an argument tuple (``storage``: as in :func:`describe_value`)."""
    names = list(names) + [f"arg{i}" for i in range(len(names), len(args))]
    lines = []
    for name, value in zip(names, args):
        body = (describe_value(value, storage=storage) if isinstance(value, torch.Tensor)
                else one_line(repr(value), 200))
        lines.append(f"{name} = " + textwrap.indent(body, " " * (len(name) + 3)).lstrip())
    return "\n".join(lines)


#: the own words of a report and of an exercise's card (:func:`card`); every other language's
#: catalog has the same keys ("words")
WORDS = {"pass": "passed", "fail": "not yet", "error": "your function raised an error",
         "not_implemented": "not implemented yet", "unknown": "unknown exercise",
         "internal": "checker error", "input": "input", "expected": "expected", "got": "got",
         "hint": "hint", "label_end": ":", "title": " ({title})", "head_end": ": ",
         "passed_on": " on {tried}", "checked_on": "checked on {tried}",
         "card_rules": "Rules:", "card_hint": "Hint: {hint}"}


def _width(text: str) -> int:
    """Columns ``text`` takes in a monospaced font (a CJK character takes two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


class _Words:
    """The words of a result (or of an exercise, for its card) in one language: the labels, and
    its English texts translated."""

    def __init__(self, source, exercise_id: str, language: str | None, strict: bool,
                 caller: str = "render"):
        self.language = get_language() if language is None else validate(language, caller)
        self.strict, self.source, self.exercise_id = strict, source, exercise_id
        table = catalog(self.language)
        self.words = table.get("words", WORDS)
        self.exercise = table.get("exercises", {}).get(exercise_id, {})

    def __getitem__(self, key: str) -> str:
        return self.words[key]

    def label(self, status: str) -> str:
        return self.words.get(status, status)

    def own(self, field: str) -> str:
        """The source's title, statement or hint (the exercise's own words)."""
        english = getattr(self.source, field)
        if self.language == "en" or not english:
            return english
        if field not in self.exercise:
            if self.strict:
                raise Untranslated(f"no {self.language} {field} for exercise "
                                   f"{self.exercise_id!r}")
            return english
        return self.exercise[field]

    def text(self, english: str, kind: str = "message") -> str:
        return translate(english, self.language, kind, self.strict)

    def body(self, english: str) -> str:
        """A detail's value: its facts lines translated, the values (torch's reprs) as they are."""
        if self.language == "en":
            return english
        lines = []
        for line in english.split("\n"):
            prefix, rest = _LINE.match(line).groups()
            lines.append(prefix + translate(rest, self.language, "line") if rest else line)
        return "\n".join(lines)


# a detail line: indent, an item's "[i] ", an argument's "name = ", then the facts or the value
_LINE = re.compile(r"(\s*(?:\[\d+\] )?(?:[A-Za-z_]\w* = )?)(.*)", re.S)


def text(result, language: str | None = None, strict: bool = False) -> str:
    """The text/plain verdict, in ``language`` (None: :func:`tensorlens.get_language`)."""
    w = _Words(result, result.exercise_id, language, strict)
    head = f"{_MARK.get(result.status, '?')} {result.exercise_id}"
    if result.title:
        head += w["title"].format(title=w.own("title"))
    head += w["head_end"] + w.label(result.status)
    if result.status == "pass":
        tail = w["passed_on"].format(tried=w.text(result.tried, "tried")) if result.tried else ""
        return head + tail
    lines = [head, "  " + w.text(result.message)]
    for label, body in result.details:
        name = w[label] + w["label_end"]
        lines.append("  " + name + " " * max(0, 10 - _width(name))
                     + textwrap.indent(w.body(body), " " * 12).lstrip())
    if result.hint:
        name = w["hint"] + w["label_end"]
        lines.append("  " + name + " " * max(0, 10 - _width(name))
                     + textwrap.indent(w.own("hint"), " " * 12).lstrip())
    return "\n".join(lines)


def html(result, language: str | None = None, strict: bool = False) -> str:
    """The text/html verdict: a coloured box with the same content as :func:`text`."""
    w = _Words(result, result.exercise_id, language, strict)
    esc = _html.escape
    color = _COLOR.get(result.status, "#57606a")
    title = f" \u2014 {esc(w.own('title'))}" if result.title else ""
    parts = [
        f'<div class="tl-check tl-check-{esc(result.status)}" '
        f'style="border-left:4px solid {color};padding:4px 10px;margin:4px 0;{_SURFACE}">',
        f'<div class="tl-check-head"><strong style="color:{color}">'
        f'{_MARK.get(result.status, "?")} {esc(w.label(result.status))}</strong> '
        f'<code style="color:inherit;background:transparent">{esc(result.exercise_id)}</code>{title}</div>',
    ]
    if result.status == "pass":
        if result.tried:
            parts.append(f'<div class="tl-check-tried">'
                         f'{esc(w["checked_on"].format(tried=w.text(result.tried, "tried")))}</div>')
    else:
        parts.append(f'<div class="tl-check-message">{esc(w.text(result.message))}</div>')
        for label, body in result.details:
            parts.append(f'<div class="tl-check-detail"><em>{esc(w[label])}</em>'
                         f'<pre style="margin:2px 0 4px 0">{esc(w.body(body))}</pre></div>')
        if result.hint:
            parts.append(f'<div class="tl-check-hint"><em>{esc(w["hint"] + w["label_end"])}</em> '
                         f'{esc(w.own("hint"))}</div>')
    parts.append("</div>")
    return "".join(parts)


def card(exercise, language: str | None = None, strict: bool = False) -> str:
    """An exercise's plain-text card (id and title, statement, rules, hint) in ``language``
    (None: :func:`tensorlens.get_language`): its own texts are translated as a report's are (the
    title, statement and hint from the catalog's ``exercises``, each rule's description as the
    rule of a report's message).

    Raises
    ------
    TypeError, ValueError
        If ``language`` is not one tensorlens speaks.
    Untranslated
        In strict mode, when a text of the card has no translation in ``language`` (otherwise
        that text stays English).
    """
    w = _Words(exercise, exercise.id, language, strict, "describe")
    lines = [exercise.id + w["head_end"] + w.own("title"), "", w.own("statement")]
    if exercise.rules:
        lines += ["", w["card_rules"]]
        lines += ["- " + w.text(rule.description, "rule") for rule in exercise.rules]
    if exercise.hint:
        lines += ["", w["card_hint"].format(hint=w.own("hint"))]
    return "\n".join(lines)


# ---------------------------------------------------------------- a stored report, read back

_HEAD = re.compile(r"(?P<mark>\S) (?P<id>\S+?)(?P<rest>(?: \(|: ).*)", re.S)
_DETAIL = re.compile(r"  (?P<label>\w+):\s*(?P<body>.*)")


def parse_text(report: str):
    """The :class:`CheckResult` whose English text/plain form is ``report``.

    Raises
    ------
    ValueError
        If ``report`` is not such a form, or reads back into a result whose text differs.
    """
    from ._core import EXERCISES, CheckResult

    lines = report.split("\n")
    head = _HEAD.fullmatch(lines[0])
    if head is None:
        raise ValueError(f"not a check report: {lines[0]!r}")
    exercise = EXERCISES.get(head["id"])
    rest, title = head["rest"], ""
    if exercise is not None and rest.startswith(f" ({exercise.title}): "):
        title, rest = exercise.title, rest[len(f" ({exercise.title})"):]
    status = next((s for s, label in WORDS.items() if s in _MARK and _MARK[s] == head["mark"]
                   and (rest == f": {label}" or s == "pass" and rest.startswith(f": {label} on "))),
                  None)
    if status is None:
        raise ValueError(f"not a check report's verdict: {lines[0]!r}")
    on = f": {WORDS['pass']} on "
    tried = rest[len(on):] if status == "pass" and rest.startswith(on) else ""
    message, details, hint = WORDS["pass"], [], ""
    if status != "pass":
        message = lines[1][2:] if len(lines) > 1 and lines[1].startswith("  ") else ""
        for line in lines[2:]:
            found = _DETAIL.fullmatch(line) if not line.startswith(" " * 12) and line else None
            if found and found["label"] == "hint":
                hint = found["body"]
            elif found:
                details.append([found["label"], [found["body"]]])
            elif details and not hint:
                details[-1][1].append(line[12:])
            else:
                raise ValueError(f"not a line of a check report: {line!r}")
    result = CheckResult(head["id"], status, message, title,
                         tuple((label, "\n".join(body)) for label, body in details), hint, tried)
    if text(result, "en") != report:
        raise ValueError(f"this report does not read back as it was written: {lines[0]!r}")
    return result


def translate_bundle(data: dict, language: str) -> dict:
    """A stored check report's output data (``text/plain`` and ``text/html``, English) in
    ``language``: read back, checked to render as stored, rendered again, strictly.

    Raises
    ------
    ValueError
        If the data is not a check report as tensorlens renders it.
    Untranslated
        If a text of it has no translation in ``language``.
    """
    joined = {k: "".join(v) if isinstance(v, list) else v for k, v in data.items()}
    result = parse_text(joined["text/plain"])
    if html(result, "en") != joined.get("text/html"):
        raise ValueError(f"the report's HTML is not what tensorlens renders for it: "
                         f"{joined['text/plain'].splitlines()[0]!r}")
    return {**data, "text/plain": text(result, language, strict=True),
            "text/html": html(result, language, strict=True)}

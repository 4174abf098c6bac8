"""The words of a check report: keyed English templates, their translations, and the one way a
report's English text becomes another language's.

Contract
--------
- A check's message is made by :func:`say` from a template of :data:`TEMPLATES` (key -> kind,
  English); the :class:`~tensorlens.exercises.CheckResult` keeps the English text (the grader
  and the results file read it), so a result is the same in every language and only rendering
  picks the words.
- :func:`translate` turns such an English text back into its template and placeholders (by
  matching, trying every way the template's literal pieces can stand in it) and writes the
  language's template with the same placeholders. A placeholder named in :data:`NESTED` is a
  text of its own kind and is translated in turn (``{where}``: "item 0 of the result"); every
  other placeholder (code, numbers, shapes, dtypes, torch's own error text) is kept as it is.
- The translations are data in the package, ``zh_CN.json`` beside this module: ``templates``
  (key -> the language's template, with exactly the English placeholders), ``words`` (the
  labels of a report and of an exercise's card), ``phrases`` (English -> translation of the
  exercises' own free texts: a ``banned`` rule's reason, a custom rule's description),
  ``exercises`` (id -> title, statement and hint: a report shows the title and hint, the card of
  ``Exercise.describe`` all three). Nothing is fetched.
- :func:`translate` in strict mode raises :class:`Untranslated` for a text it cannot translate
  (the Chinese notebooks and book are made strictly); otherwise it returns the English text.
"""

from __future__ import annotations

import functools
import json
import re
import string
from pathlib import Path

__all__ = ["TEMPLATES", "NESTED", "say", "translate", "catalog", "Untranslated", "placeholders"]

#: key -> (kind, English template). A message is of kind "message"; the other kinds are the
#: nested texts that messages are made of.
TEMPLATES: dict[str, tuple[str, str]] = {
    # --- what differs between the expected result and the learner's (_core._compare)
    "result": ("where", "the result"),
    "item_of": ("where", "item {i} of {where}"),
    "should_be_type": ("message", "{where} should be a {type}, got a {got_type}"),
    "wrong_shape": ("message", "{where} has the wrong shape: expected {expected}, got {got}"),
    "wrong_dtype": ("message", "{where} has the wrong dtype: expected {expected}, got {got}"),
    "wrong_device": ("message", "{where} is on the wrong device: expected {expected}, got {got}"),
    "wrong_values": ("message", "{where} has the right shape and dtype but wrong values"),
    "wrong_length": ("message", "{where} should have {n} items, got {got}"),
    "wrong_value": ("message", "{where} is wrong: expected {expected}, got {got}"),
    "tensor_type": ("type", "tensor"),
    # --- what the call did to its arguments (_core._changed_argument)
    "arg_name": ("arg", "`{name}`"),
    "arg_index": ("arg", "argument {i}"),
    "swapped_storage": ("message", "your function swapped the storage of {arg} (e.g. `.data = "
                        "...` or `.set_(...)`): a caller holding it, or a view of it, never sees "
                        "the result; write into it instead"),
    "changed_layout": ("message", "your function changed the shape, strides or offset of {arg} "
                       "in place (e.g. `unsqueeze_`, `resize_`, `t_`); leave its layout alone"),
    "changed_input": ("message", "your function changed its input {arg} in place; it must leave "
                      "its arguments unchanged"),
    "changed_input_except": ("message", "your function changed its input {arg} in place; it "
                             "must leave every argument except {names} unchanged"),
    # --- the verdicts check gives itself (_core)
    "raised": ("message", "your function raised {error}"),
    "rule_unjudged": ("message", "could not check \u201c{rule}\u201d: {error}"),
    "passed": ("message", "passed"),
    "not_implemented": ("message", "not implemented yet: replace the `raise "
                        "NotImplementedError(...)` line with your solution"),
    "not_callable": ("message", "check needs your function, got a {type} ({value})"),
    "internal": ("message", "the checker failed (a bug in tensorlens, not in your code): {error}"),
    "borrowed": ("message", "this is the book's own solution (a function from tensorlens); "
                 "write your own function"),
    "bad_id": ("message", "the exercise id must be a string like 'chapter.name', got {type}"),
    "chapter_broken": ("message", "the exercises of chapter {chapter} failed to load: {error}"),
    "unknown_suggest": ("message", "there is no exercise {id}. Did you mean: {ids}?"),
    "unknown_chapters": ("message", "there is no exercise {id}. Known chapters: {chapters}."),
    "tried": ("tried", "{edges} edge cases and {generated} generated inputs"),
    # --- rules (rules.py): the message of a source rule, and what it found
    "source_rule": ("message", "{found}: {rule}"),
    "source_rule_helper": ("message", "{found} (in helper `{name}`): {rule}"),
    "no_source": ("message", "cannot check the rule \u201c{rule}\u201d: {cause}. Define your "
                  "solution with `def` in a notebook cell or a .py file"),
    "not_a_function": ("cause", "`{name}` is not a Python function (it is {type}), so its "
                       "source cannot be read"),
    "source_missing": ("cause", "the source of `{name}` is not available (functions typed at a "
                       "plain Python prompt have none)"),
    "source_unparsed": ("cause", "the source of `{name}` could not be parsed"),
    "lambda_ambiguous": ("cause", "the lambda's source is ambiguous (several lambdas on its "
                         "lines)"),
    "def_missing": ("cause", "the definition of `{name}` was not found in its source"),
    "at_line": ("found", "{found} (line {line} of the function)"),
    "loop_in_disguise": ("found", "{found} (a Python loop in disguise)"),
    "for_loop": ("found", "a `for` loop"),
    "async_for_loop": ("found", "an `async for` loop"),
    "while_loop": ("found", "a `while` loop"),
    "list_comprehension": ("found", "a list comprehension"),
    "set_comprehension": ("found", "a set comprehension"),
    "dict_comprehension": ("found", "a dict comprehension"),
    "generator_expression": ("found", "a generator expression"),
    "looping_attribute": ("found", "`.{name}` (it runs a Python loop)"),
    "looping_import": ("found", "imports `{name}` (it runs a Python loop)"),
    "dynamic_lookup": ("found", "uses `{name}` (a name looked up while the code runs could hide "
                       "a forbidden one, so such lookups are not allowed here)"),
    "recursion": ("found", "`{name}` calls itself (recursion is a loop too)"),
    "alias": ("found", "uses `{name}`, which is `{target}`"),
    "uses": ("found", "uses `{name}`"),
    "uses_attribute": ("found", "uses `.{name}`"),
    "passes_keyword": ("found", "passes `{name}=`"),
    "imports": ("found", "imports `{name}`"),
    # --- rules: what a rule asks (its description, or what its messages end with)
    "no_loops_here": ("rule", "no Python loops allowed here"),
    "no_loops": ("rule", "no Python loops (for, while, comprehensions, map/filter/reduce, "
                 "recursion)"),
    "do_not_use": ("rule", "do not use {names}"),
    "do_not_use_because": ("rule", "do not use {names} ({reason})"),
    "must_be_view": ("rule", "the result must be a view of {arg} (no copy)"),
    "new_memory_limit": ("rule", "a limit on new memory"),
    "new_bytes_at_most": ("rule", "at most {limit} bytes of new storage"),
    "allocates_nothing": ("rule", "no new tensor is allocated inside the function (write into "
                          "`{name}`)"),
    # --- rules: their messages
    "ran_banned": ("message", "your function ran `{name}`: {rule}"),
    "passed_banned": ("message", "your function passed `{keyword}=` to `{name}`: {rule}"),
    "not_a_view": ("message", "the result is not a view of `{name}`: it has its own storage "
                   "({n} bytes were copied)"),
    "too_many_bytes": ("message", "the result allocates {used} bytes of new storage; at most "
                       "{allowed} are allowed"),
    "allocated": ("message", "`{name}` made a new {n}-byte tensor; write into `{into}` instead"),
    # --- the chapters' own rules
    "not_contiguous": ("message", "the result has strides {strides} for shape {shape}: it is not "
                       "stored in (N, C, H, W) order (is_contiguous() is False), so `view` on it "
                       "fails and a model reads it more slowly"),
    "no_grad_fn": ("message", "the result is not connected to `x` by autograd (no `grad_fn`): "
                   "`backward()` through it would never reach `x`"),
    "no_gradient": ("message", "the result does not depend on `x` in the graph, so `x` gets no "
                    "gradient"),
    "not_straight_through": ("message", "the values are right, but the gradient that reaches "
                             "`x` is not the incoming gradient unchanged (straight through), at "
                             "least where `x` lies outside `[low, high]`"),
    "too_big": ("message", "`{name}` made a tensor of shape {shape} ({n} bytes); no tensor may "
                "be larger than the biggest of `x`, `y` and the result ({limit} bytes here)"),
    "storage_too_big": ("message", "the result still sits on {held} bytes of storage for "
                        "{needed} bytes of elements: torch.save would write all of them"),
    "needless_copy": ("message", "the input already holds only the bytes it needs ({n}), yet the "
                      "result is a copy: copy only when it saves bytes"),
    "not_channels_last": ("message", "the result has strides {strides} for shape {shape}: its "
                          "memory is not channels-last (`is_contiguous(memory_format="
                          "torch.channels_last)` is `False`)"),
    "channels_last_copied": ("message", "`x` is channels-last already, yet the result is a copy "
                             "({n} bytes): return `x` or a view of it"),
    "snapshot_shares": ("message", "item {i} of the result shares memory with an input: a later "
                        "training step would change the snapshot"),
    "snapshot_links": ("message", "the items share memory differently from the inputs: inputs "
                       "{inputs}, result {result} (each number is the first item on the same "
                       "storage)"),
    # --- the facts of a detail's value (_render.describe_value), line by line
    "tensor_facts": ("line", "shape {shape}, dtype {dtype}, stride {stride}, storage offset "
                     "{offset}"),
    "tensor_values": ("line", "shape {shape}, dtype {dtype}"),
    "tensor_facts_storage": ("line", "shape {shape}, dtype {dtype}, stride {stride}, storage "
                             "offset {offset}, {nbytes} bytes of storage"),
    "tensor_values_storage": ("line", "shape {shape}, dtype {dtype}, {nbytes} bytes of storage"),
    "sequence_of": ("line", "a {type} of {n} items"),
}

#: placeholders that are texts of their own (name -> kind); "phrase" is an exact lookup in the
#: catalog's phrases (an exercise's own words)
NESTED = {"where": "where", "type": "type", "got_type": "type", "arg": "arg", "rule": "rule",
          "found": "found", "cause": "cause", "reason": "phrase", "tried": "tried"}

#: kinds whose text may also be one of the exercises' own phrases
_PHRASE_KINDS = {"rule", "phrase"}
# a space the template put before a placeholder that turned out to be Chinese ("是 张量")
_CJK_SPACE = re.compile(r"(?<=[\u3000-\u9fff\uff00-\uffef]) (?=[\u3000-\u9fff\uff00-\uffef])")
_MAX_BINDINGS = 200  # ways to read one text against one template
_CATALOGS = {"zh_CN": Path(__file__).with_name("zh_CN.json")}


class Untranslated(LookupError):
    """A text that no template (or phrase) of the catalog translates."""


def placeholders(template: str) -> list[str]:
    """The placeholder names of ``template``, in order."""
    return [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]


def say(key: str, **params) -> str:
    """The English text of template ``key`` with ``params`` (each given, none left over)."""
    kind, template = TEMPLATES[key]
    if set(params) != set(placeholders(template)):
        raise TypeError(f"say({key!r}): needs {placeholders(template)}, got {sorted(params)}")
    return template.format(**{k: str(v) for k, v in params.items()})


@functools.cache
def catalog(language: str) -> dict:
    """The catalog of ``language`` (``{}`` for English), read from the package once."""
    if language == "en":
        return {}
    return json.loads(_CATALOGS[language].read_text(encoding="utf-8"))


@functools.cache
def _pieces(template: str) -> tuple:
    """``template`` as alternating literals and placeholder names: (lit, name, lit, ..., lit)."""
    out = []
    for literal, name, _, _ in string.Formatter().parse(template):
        out.append(literal)
        if name is not None:
            out.append(name)
    if len(out) % 2 == 0:
        out.append("")
    return tuple(out)


def _bindings(pieces: tuple, text: str):
    """Every way ``text`` is ``pieces`` with non-empty values for the names: dicts, shortest
    first value first."""
    if not text.startswith(pieces[0]):
        return
    text = text[len(pieces[0]):]
    if len(pieces) == 1:
        if not text:
            yield {}
        return
    name, rest = pieces[1], pieces[2:]
    at = 1
    while at <= len(text):
        if rest[0]:
            at = text.find(rest[0], at)
            if at < 0:
                return
        for more in _bindings(rest, text[at:]):
            yield {name: text[:at], **more}
        at += 1


@functools.cache
def _by_kind() -> dict:
    kinds: dict[str, list] = {}
    for key, (kind, template) in TEMPLATES.items():
        kinds.setdefault(kind, []).append((key, template))
    for entries in kinds.values():  # the most literal text first: the most specific template
        entries.sort(key=lambda e: -sum(len(p) for p in _pieces(e[1])[::2]))
    return kinds


def _translate(text: str, kind: str, table: dict) -> str | None:
    if kind in _PHRASE_KINDS and text in table.get("phrases", {}):
        return table["phrases"][text]
    for key, template in _by_kind().get(kind, ()):
        target = table.get("templates", {}).get(key)
        if target is None:
            continue
        # of the ways the template's pieces stand in the text, the one that keeps the least text
        # as it is (verbatim values as short as they can be, the nested texts as long)
        best = None
        for tries, binding in enumerate(_bindings(_pieces(template), text)):
            if tries == _MAX_BINDINGS:
                break
            kept = sum(len(v) for name, v in binding.items() if name not in NESTED)
            if best is not None and kept >= best[0]:
                continue
            values = {}
            for name, value in binding.items():
                values[name] = (_translate(value, NESTED[name], table) if name in NESTED
                                else value)
                if values[name] is None:
                    break
            else:
                best = (kept, target.format(**values))
        if best is not None:
            return _CJK_SPACE.sub("", best[1])
    if kind in ("type", "arg") and re.fullmatch(r"[A-Za-z_][\w.]*", text):
        return text  # a Python type's name is code
    return None


def translate(text: str, language: str, kind: str = "message", strict: bool = False) -> str:
    """``text`` (English, of template kind ``kind``) in ``language``.

    Raises
    ------
    Untranslated
        In strict mode, when no template of ``language``'s catalog translates ``text``.
    """
    if language == "en" or not text:
        return text
    out = _translate(text, kind, catalog(language))
    if out is None:
        if strict:
            raise Untranslated(f"no {language} translation for this {kind}: {text!r}")
        return text
    return out

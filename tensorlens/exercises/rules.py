"""Rules an exercise can impose on a solution beyond "the values are right".

Contract: a rule never raises on a student's function. A *source rule* reads the function's
source with ``ast`` (``check_source(fn) -> str | None``); a *call rule* inspects one call
(``check_call(args, result) -> str | None``). Both return None when the rule holds and otherwise
a sentence saying what is wrong. Each rule can also build wrong variants of a correct solution
(``wrong_variants(solution)``) that break exactly this rule: the strictness tests feed them to
``check`` and require a failure.

Rules: :func:`view_of`, :func:`no_loops`, :func:`banned`, :func:`max_new_bytes`.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
from dataclasses import dataclass, field
from typing import Callable

import torch

__all__ = ["Rule", "view_of", "no_loops", "banned", "max_new_bytes", "function_from_source",
           "new_storage_bytes", "tensors_in"]

_LOOP_NODES = {
    ast.For: "a `for` loop",
    ast.AsyncFor: "an `async for` loop",
    ast.While: "a `while` loop",
    ast.ListComp: "a list comprehension",
    ast.SetComp: "a set comprehension",
    ast.DictComp: "a dict comprehension",
    ast.GeneratorExp: "a generator expression",
}

_variant_counter = 0


def function_from_source(source: str, name: str, namespace: dict | None = None) -> Callable:
    """Define function ``name`` from ``source`` so that ``inspect.getsource`` can read it back.

    Used to build wrong variants whose *source* breaks a rule (a loop, a banned name).
    """
    global _variant_counter
    _variant_counter += 1
    filename = f"<tensorlens-variant-{_variant_counter}>"
    source = textwrap.dedent(source)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(namespace or {})
    namespace.setdefault("torch", torch)
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def tensors_in(value) -> list:
    """The tensors in a result or argument tuple (tensors, nested in tuples/lists/dicts)."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in tensors_in(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in tensors_in(v)]
    return []


def new_storage_bytes(result, args) -> int:
    """Bytes of storage held by ``result`` that no tensor in ``args`` shares (each storage once)."""
    inputs = {t.untyped_storage().data_ptr() for t in tensors_in(args)}
    seen, total = set(), 0
    for t in tensors_in(result):
        storage = t.untyped_storage()
        ptr = storage.data_ptr()
        if storage.nbytes() == 0 or ptr in inputs or ptr in seen:
            continue
        seen.add(ptr)
        total += storage.nbytes()
    return total


@dataclass(frozen=True)
class Rule:
    """One requirement on a solution; see the module docstring for the protocol."""

    description: str
    check_source: Callable | None = None
    check_call: Callable | None = None
    wrong_variants: Callable = field(default=lambda solution, arg_names: [])


# ---------------------------------------------------------------- reading a function's source


def _function_tree(fn):
    """(ast node of fn, None) or (None, reason the source cannot be read)."""
    name = getattr(fn, "__name__", type(fn).__name__)
    if not (inspect.isfunction(fn) or inspect.ismethod(fn)):
        return None, (f"`{name}` is not a Python function (it is {type(fn).__name__}), so its source "
                      "cannot be read")
    fn = inspect.unwrap(fn)
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return None, (f"the source of `{name}` is not available (functions typed at a plain Python "
                      "prompt have none)")
    try:
        tree = ast.parse(source)
    except SyntaxError:
        # a lambda in the middle of a longer expression: inspect gives its lines, maybe cut
        try:
            tree = ast.parse("(" + source.strip().rstrip(",") + ")")
        except SyntaxError:
            return None, f"the source of `{name}` could not be parsed"
    if fn.__name__ == "<lambda>":
        lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
        if len(lambdas) != 1:
            return None, "the lambda's source is ambiguous (several lambdas on its lines)"
        return lambdas[0], None
    defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.name == fn.__name__]
    if not defs:
        return None, f"the definition of `{name}` was not found in its source"
    return defs[0], None


def _helpers_called(fn, node):
    """Plain Python functions from fn's own module that fn calls by name (checked too)."""
    module = getattr(fn, "__module__", None)
    helpers = []
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
            target = getattr(fn, "__globals__", {}).get(call.func.id)
            if inspect.isfunction(target) and target is not fn and target.__module__ == module:
                helpers.append(target)
    return helpers


def _walk_functions(fn):
    """Yield (function name, ast node) for fn and the helpers it calls; or raise _NoSource."""
    pending, seen = [fn], set()
    while pending:
        f = pending.pop(0)
        if id(f) in seen:
            continue
        seen.add(id(f))
        node, problem = _function_tree(f)
        if node is None:
            raise _NoSource(problem)
        yield getattr(f, "__name__", "?"), node
        pending.extend(_helpers_called(f, node))


class _NoSource(Exception):
    pass


def _source_rule(what, find):
    """A check_source built from ``find(node) -> first offending description or None``."""

    def check_source(fn):
        try:
            for name, node in _walk_functions(fn):
                found = find(node)
                if found:
                    where = "" if name == getattr(fn, "__name__", None) else f" (in helper `{name}`)"
                    return f"{found}{where}: {what}"
        except _NoSource as err:
            return (f"cannot check the rule \u201c{what}\u201d: {err}. Define your solution with "
                    "`def` in a notebook cell or a .py file")
        return None

    return check_source


def _first_offender(node, predicate):
    """The earliest (by line) description ``predicate`` gives for a node under ``node``."""
    hits = []
    for child in ast.walk(node):
        hit = predicate(child)
        if hit:
            # line numbers relative to the function, so they do not depend on the cell it sits in
            line = getattr(child, "lineno", node.lineno) - node.lineno + 1
            hits.append((line, getattr(child, "col_offset", 0), hit))
    if not hits:
        return None
    line, _, hit = min(hits)
    return f"{hit} (line {line} of the function)"


# ---------------------------------------------------------------- the rules


def no_loops() -> Rule:
    """The solution may not use Python loops: ``for``, ``while``, comprehensions or generators.

    Helpers defined in the same notebook/module and called by name are checked too.
    """

    def find(node):
        return _first_offender(node, lambda n: _LOOP_NODES.get(type(n)))

    def variants(solution, arg_names):
        params = ", ".join(arg_names)
        loop = function_from_source(
            f"def looped({params}):\n"
            f"    result = None\n"
            f"    for _ in range(1):\n"
            f"        result = _solution({params})\n"
            f"    return result\n",
            "looped", {"_solution": solution})
        comp = function_from_source(
            f"def comprehension({params}):\n"
            f"    return [_solution({params}) for _ in range(1)][0]\n",
            "comprehension", {"_solution": solution})
        return [("a Python loop", loop), ("a list comprehension", comp)]

    return Rule("no Python loops (for, while, comprehensions)",
                check_source=_source_rule("no Python loops allowed here", find),
                wrong_variants=variants)


def banned(*names: str, reason: str = "") -> Rule:
    """The solution may not mention any of ``names`` (as a name or an attribute, e.g. ``x.repeat``).

    Parameters
    ----------
    *names : str
        Identifiers that may not appear, e.g. ``"repeat"``, ``"clone"``, ``"contiguous"``.
    reason : str
        Why, shown to the learner.

    Raises
    ------
    ValueError
        If no name is given or a name is not an identifier.
    """
    if not names or not all(isinstance(n, str) and n.isidentifier() for n in names):
        raise ValueError(f"banned: names must be identifiers, got {names!r}")
    banned_set = set(names)
    listing = ", ".join(f"`{n}`" for n in names)
    what = f"do not use {listing}" + (f" ({reason})" if reason else "")

    def offender(n):
        if isinstance(n, ast.Name) and n.id in banned_set:
            return f"uses `{n.id}`"
        if isinstance(n, ast.Attribute) and n.attr in banned_set:
            return f"uses `.{n.attr}`"
        return None

    def variants(solution, arg_names):
        params = ", ".join(arg_names)
        out = []
        for name in names:
            fn = function_from_source(
                f"def uses_{name}({params}):\n"
                f"    if False:\n"
                f"        torch.{name}\n"
                f"    return _solution({params})\n",
                f"uses_{name}", {"_solution": solution})
            out.append((f"mentions {name}", fn))
        return out

    return Rule(what, check_source=_source_rule(what, lambda node: _first_offender(node, offender)),
                wrong_variants=variants)


def view_of(arg: int | str = 0) -> Rule:
    """The result must be a view of argument ``arg`` (shares its storage: nothing copied).

    Parameters
    ----------
    arg : int or str
        Position or parameter name of the argument whose storage the result must share.
    """
    if not isinstance(arg, (int, str)) or isinstance(arg, bool):
        raise TypeError(f"view_of: arg must be a position or a parameter name, got {arg!r}")

    def check_call(args, result, arg_names):
        index = arg if isinstance(arg, int) else arg_names.index(arg)
        name = arg_names[index] if index < len(arg_names) else f"argument {index}"
        source = args[index]
        base = source.untyped_storage()
        for t in tensors_in(result):
            storage = t.untyped_storage()
            if base.nbytes() == 0 and storage.nbytes() == 0:
                continue  # nothing to copy, nothing to share
            if storage.data_ptr() != base.data_ptr():
                return (f"the result is not a view of `{name}`: it has its own storage "
                        f"({storage.nbytes()} bytes were copied)")
        return None

    def variants(solution, arg_names):
        def cloned(*args):
            out = solution(*args)
            return out.clone() if isinstance(out, torch.Tensor) else out
        return [("a copy (.clone()) instead of a view", cloned)]

    label = arg if isinstance(arg, str) else f"argument {arg}"
    return Rule(f"the result must be a view of {label} (no copy)", check_call=check_call,
                wrong_variants=variants)


def max_new_bytes(limit) -> Rule:
    """The result may hold at most ``limit`` bytes of storage that the inputs do not share.

    Parameters
    ----------
    limit : int or callable
        A byte count, or ``limit(*args) -> int`` computed from the inputs.
    """
    if not (callable(limit) or (isinstance(limit, int) and limit >= 0)):
        raise ValueError(f"max_new_bytes: limit must be a non-negative int or a callable, got {limit!r}")

    def check_call(args, result, arg_names):
        allowed = limit(*args) if callable(limit) else limit
        used = new_storage_bytes(result, args)
        if used > allowed:
            return f"the result allocates {used} bytes of new storage; at most {allowed} are allowed"
        return None

    def variants(solution, arg_names):
        def padded(*args):
            out = solution(*args)
            if not isinstance(out, torch.Tensor):
                return out
            allowed = limit(*args) if callable(limit) else limit
            # same values, but backed by a buffer larger than the limit
            extra = allowed // max(out.element_size(), 1) + 1
            buffer = torch.zeros(out.numel() + extra, dtype=out.dtype)
            view = buffer[:out.numel()].view(out.shape)
            view.copy_(out)
            return view
        return [("a result backed by too much new memory", padded)]

    text = "a limit on new memory" if callable(limit) else f"at most {limit} bytes of new storage"
    return Rule(text, check_call=check_call, wrong_variants=variants)

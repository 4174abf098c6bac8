"""Rules an exercise can impose on a solution beyond "the values are right".

Contract: a rule never raises on a student's function. A *source rule* reads the function's
source with ``ast`` (``check_source(fn) -> str | None``); a *call rule* inspects one finished call
(``check_call(call: Call) -> str | None``); a *watch* sees every torch function the student's
function runs while it runs (``watch(args, arg_names)`` returns a :class:`Watch`, a
``TorchFunctionMode`` whose ``problem`` is None or a sentence). All return None when the rule
holds and otherwise a sentence saying what is wrong. Each rule can also build wrong variants of a
correct solution (``wrong_variants(solution, arg_names)``) that break exactly this rule: the
strictness tests feed them to ``check`` and require a failure.

Source rules read what the code says (names, attributes, imports, keywords), resolve the global
names it uses to the objects they stand for (an alias ``bs = torch.broadcast_shapes`` is seen for
what it is), refuse run-time name lookups (``getattr``, ``eval``, ``__import__``...) that could
hide a banned name, and walk the helpers the function calls. A banned rule also watches the call:
a banned torch function that runs is caught however it was reached.

Rules: :func:`view_of`, :func:`no_loops`, :func:`banned`, :func:`max_new_bytes`,
:func:`allocates_nothing`.
"""

from __future__ import annotations

import ast
import builtins
import functools
import inspect
import itertools
import linecache
import textwrap
import types
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
from torch.overrides import TorchFunctionMode, resolve_name

from ._messages import say

__all__ = ["AUTOGRAD_NAMES", "Rule", "Call", "Watch", "view_of", "no_loops", "banned", "max_new_bytes",
           "allocates_nothing", "function_from_source", "new_storage_bytes", "tensors_in"]

_LOOP_NODES = {
    ast.For: say("for_loop"),
    ast.AsyncFor: say("async_for_loop"),
    ast.While: say("while_loop"),
    ast.ListComp: say("list_comprehension"),
    ast.SetComp: say("set_comprehension"),
    ast.DictComp: say("dict_comprehension"),
    ast.GeneratorExp: say("generator_expression"),
}

# functions that run a Python loop for you: map(f, xs) is a for loop, spelled differently
_LOOP_FUNCTIONS = {map: "map", filter: "filter", functools.reduce: "functools.reduce",
                   itertools.starmap: "itertools.starmap", itertools.accumulate: "itertools.accumulate"}
# spelled through the module inside the function (`import functools` there is not resolved like
# a global); `np.add.reduce` or `einops.reduce` are other, vectorised functions of the same name
_LOOP_MODULE_ATTRIBUTES = {"functools": {"reduce"}, "itertools": {"starmap", "accumulate"}}
_LOOP_ATTRIBUTES = {"apply_", "map_", "map2_"}  # Tensor.apply_/map_ call Python once per element

#: what an exercise that wants a gradient "by hand" bans: autograd in every spelling (the
#: functional torch.func API, calling a graph node, marking a leaf that autograd would follow)
AUTOGRAD_NAMES = ("backward", "autograd", "func", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
                  "grad_fn", "requires_grad", "requires_grad_")

# switches for autograd's recording, not autograd itself (they live in torch.autograd): a gradient
# worked out by hand inside `with torch.no_grad():` is still by hand, so banning "autograd" must
# not catch them; banning one of them by its own name still does
_GRAD_MODE_SWITCHES = (torch.no_grad, torch.enable_grad, torch.inference_mode, torch.set_grad_enabled)

# names that look another name up at run time, so a banned name could hide in a string
_DYNAMIC = {"getattr", "__import__", "eval", "exec", "compile", "importlib", "import_module",
            "attrgetter", "methodcaller", "__getattribute__", "__dict__", "globals", "vars",
            "locals", "__builtins__", "builtins"}
# of those, the built-in functions: as an attribute they are only lookups on the builtins module
# itself, so `model.eval()` or `re.compile(...)` stay allowed while `builtins.eval` does not
_BUILTIN_LOOKUPS = {"getattr", "eval", "exec", "compile", "globals", "vars", "locals"}

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
class Call:
    """One finished call of the student's function, as a call rule sees it.

    Call rules run only after the check that no argument's storage was swapped (``out.data =
    ...``, ``out.set_(...)``), so an argument's storage is the one it was called with.
    """

    args: tuple
    result: Any
    arg_names: list


class Watch(TorchFunctionMode):
    """Sees every torch function or method run while the student's function runs.

    Subclasses override :meth:`before` (called with the function and its arguments) and/or
    :meth:`after` (also given the result); either returns None or a sentence. The first sentence
    is kept in ``problem``. A watch never raises: an error inside it is ignored, the call goes on.
    """

    def __init__(self):
        super().__init__()
        self.problem: str | None = None

    def before(self, func, args, kwargs) -> str | None:
        return None

    def after(self, func, args, kwargs, result) -> str | None:
        return None

    def _note(self, judge, *params) -> None:
        if self.problem is None:
            try:
                self.problem = judge(*params)
            except Exception:  # a watch that cannot judge one call lets it pass
                pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        self._note(self.before, func, args, kwargs)
        result = func(*args, **kwargs)
        self._note(self.after, func, args, kwargs, result)
        return result


def torch_name(func) -> str:
    """A readable dotted name for a torch function or method, e.g. ``torch.Tensor.add``."""
    name = resolve_name(func)
    if name:
        return name.removesuffix(".__get__")
    module = getattr(func, "__module__", None) or ""
    qualname = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)
    return f"{module}.{qualname}" if module else qualname


@dataclass(frozen=True)
class Rule:
    """One requirement on a solution; see the module docstring for the protocol."""

    description: str
    check_source: Callable | None = None
    check_call: Callable | None = None
    watch: Callable | None = None
    wrong_variants: Callable = field(default=lambda solution, arg_names: [])


# ---------------------------------------------------------------- reading a function's source


def _function_tree(fn):
    """(ast node of fn, None) or (None, reason the source cannot be read)."""
    name = getattr(fn, "__name__", type(fn).__name__)
    if not (inspect.isfunction(fn) or inspect.ismethod(fn)):
        return None, say("not_a_function", name=name, type=type(fn).__name__)
    fn = inspect.unwrap(fn)
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return None, say("source_missing", name=name)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        # a lambda in the middle of a longer expression: inspect gives its lines, maybe cut
        try:
            tree = ast.parse("(" + source.strip().rstrip(",") + ")")
        except SyntaxError:
            return None, say("source_unparsed", name=name)
    if fn.__name__ == "<lambda>":
        lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)]
        if len(lambdas) != 1:
            return None, say("lambda_ambiguous")
        return lambdas[0], None
    defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.name == fn.__name__]
    if not defs:
        return None, say("def_missing", name=name)
    return defs[0], None


_MISSING = object()


def _first_line(node) -> int:
    """The line a function's source starts on: its first decorator's, else the ``def``'s."""
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])


def _lookup(fn, name):
    """What global or closure name ``name`` stands for inside ``fn`` (or _MISSING)."""
    fn = inspect.unwrap(getattr(fn, "__func__", fn))
    code = getattr(fn, "__code__", None)
    closure = getattr(fn, "__closure__", None)
    if code is not None and closure and name in code.co_freevars:
        try:
            return closure[code.co_freevars.index(name)].cell_contents
        except ValueError:  # an empty cell: the name is not bound yet
            return _MISSING
    namespace = getattr(fn, "__globals__", {})
    if name in namespace:
        return namespace[name]
    names = namespace.get("__builtins__", builtins)
    names = names if isinstance(names, dict) else vars(names)
    return names.get(name, _MISSING)


def _local_names(node, imports: bool = True) -> set:
    """Names bound inside the function (parameters, assignments, nested defs, and imports unless
    ``imports`` is False)."""
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.arg):
            names.add(n.arg)
        elif isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            names.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not node:
            names.add(n.name)
        elif imports and isinstance(n, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in n.names)
    return names


def _resolved(fn, node) -> list:
    """(line, col, source text, object) for every global name fn reads and attribute chains on it.

    Attributes are followed only through modules and classes (never running a property), so
    ``mod.alias`` resolves to what the alias stands for.
    """
    local = _local_names(node)
    found = []
    for n in ast.walk(node):
        chain, root = [], n
        while isinstance(root, ast.Attribute):
            chain.append(root.attr)
            root = root.value
        if not isinstance(root, ast.Name) or root.id in local or not isinstance(root.ctx, ast.Load):
            continue
        obj = _lookup(fn, root.id)
        text = root.id
        for attr in reversed(chain):
            if obj is _MISSING or not isinstance(obj, (types.ModuleType, type)):
                obj = _MISSING
                break
            try:
                obj = (getattr(obj, attr, _MISSING) if isinstance(obj, types.ModuleType)
                       else inspect.getattr_static(obj, attr, _MISSING))
            except Exception:
                obj = _MISSING
            text += "." + attr
        if obj is not _MISSING:
            found.append((n.lineno - _first_line(node) + 1, n.col_offset, text, obj))
    return sorted(found, key=lambda hit: hit[:2])


def _identity(obj) -> tuple[set, str]:
    """(dotted-name parts, dotted name) of a module, function, method or class; (set(), "") else."""
    if isinstance(obj, functools.partial):
        obj = obj.func
    if isinstance(obj, types.ModuleType):
        return set(obj.__name__.split(".")), obj.__name__
    name = getattr(obj, "__name__", None)
    if not isinstance(name, str):
        return set(), ""
    module = getattr(obj, "__module__", None)
    if not isinstance(module, str):  # a method of a C class: named after the class
        owner = getattr(obj, "__objclass__", None)
        module = getattr(owner, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    qualname = qualname if isinstance(qualname, str) else name
    if not isinstance(module, str):
        return {name}, qualname
    return {name, *module.split("."), *qualname.split(".")}, f"{module}.{qualname}"


def _helpers_called(fn, node):
    """Plain Python functions from fn's own module that fn calls by name (fn itself included)."""
    module = getattr(fn, "__module__", None)
    local = _local_names(node)
    helpers = []
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id not in local:
            target = _lookup(fn, call.func.id)
            if (inspect.isfunction(target) and target.__module__ == module
                    and all(target is not h for h in helpers)):
                helpers.append(target)
    return helpers


def _walk_functions(fn):
    """Yield (function, ast node, helpers it calls) for fn and its helpers; or raise _NoSource."""
    pending, seen = [fn], set()
    while pending:
        f = pending.pop(0)
        if id(f) in seen:
            continue
        seen.add(id(f))
        node, problem = _function_tree(f)
        if node is None:
            raise _NoSource(problem)
        helpers = _helpers_called(f, node)
        yield f, node, helpers
        pending.extend(helpers)


class _NoSource(Exception):
    pass


def _source_rule(what, find, find_all=None):
    """A check_source from ``find(node, fn) -> first offence or None`` on fn and each helper, and
    ``find_all(walked) -> offence or None`` on the list of (function, node, helpers)."""

    def check_source(fn):
        try:
            walked = []
            for f, node, helpers in _walk_functions(fn):
                walked.append((f, node, helpers))
                found = find(node, f)
                if found:
                    if f is fn:
                        return say("source_rule", found=found, rule=what)
                    return say("source_rule_helper", found=found,
                               name=getattr(f, "__name__", "?"), rule=what)
            found = find_all(walked) if find_all else None
            if found:
                return say("source_rule", found=found, rule=what)
        except _NoSource as err:
            return say("no_source", rule=what, cause=err)
        return None

    return check_source


def _first_offender(node, predicate):
    """The earliest (by line) description ``predicate`` gives for a node under ``node``."""
    hits = []
    for child in ast.walk(node):
        hit = predicate(child)
        if hit:
            # line numbers relative to the function, so they do not depend on the cell it sits in
            line = getattr(child, "lineno", node.lineno) - _first_line(node) + 1
            hits.append((line, getattr(child, "col_offset", 0), hit))
    if not hits:
        return None
    line, _, hit = min(hits)
    return say("at_line", found=hit, line=line)


def _first_alias(fn, node, flagged):
    """The first global name fn reads whose object ``flagged(obj)`` names, described."""
    for line, _, text, obj in _resolved(fn, node):
        try:
            what = flagged(obj)
        except Exception:  # an exotic object: not an alias of anything we look for
            what = None
        if what and what != text:
            return say("at_line", found=say("alias", name=text, target=what), line=line)
        if what:
            return say("at_line", found=say("uses", name=text), line=line)
    return None


def _dynamic_lookup(n):
    """An offence for a run-time name lookup (getattr, eval, __import__, ...), else None."""
    if isinstance(n, ast.Name) and n.id in _DYNAMIC:
        name = n.id
    elif isinstance(n, ast.Attribute) and n.attr in _DYNAMIC and (
            n.attr not in _BUILTIN_LOOKUPS
            or isinstance(n.value, ast.Name) and n.value.id in ("builtins", "__builtins__")):
        name = n.attr
    elif isinstance(n, (ast.Import, ast.ImportFrom)):
        name = next((part for dotted in _imported(n) for part in dotted.split(".")
                     if part in _DYNAMIC), None)
    else:
        return None
    if name is None:
        return None
    return say("dynamic_lookup", name=name)


def _imported(n) -> list:
    """The dotted names an import statement mentions: modules and imported names."""
    if isinstance(n, ast.Import):
        return [a.name for a in n.names]
    module = n.module or ""
    return ([module] if module else []) + [f"{module}.{a.name}" if module else a.name for a in n.names]


def _recursion(walked):
    """An offence if the walked functions call each other in a cycle (recursion), else None."""
    graph = {id(f): [id(h) for h in helpers] for f, _, helpers in walked}
    names = {id(f): getattr(f, "__name__", "?") for f, _, _ in walked}
    for start in graph:
        stack, seen = list(graph[start]), set()
        while stack:
            current = stack.pop()
            if current == start:
                return say("recursion", name=names[start])
            if current not in seen:
                seen.add(current)
                stack.extend(graph.get(current, ()))
    return None


def _nested_recursion(node):
    """An offence for a function defined inside ``node`` that calls itself by name."""
    for inner in ast.walk(node):
        if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) and inner is not node:
            for call in ast.walk(inner):
                if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                        and call.func.id == inner.name):
                    line = call.lineno - _first_line(node) + 1
                    return say("at_line", found=say("recursion", name=inner.name), line=line)
    return None


# ---------------------------------------------------------------- the rules


def no_loops() -> Rule:
    """The solution may not use Python loops: ``for``, ``while``, comprehensions, generators,
    ``map``/``filter``/``functools.reduce`` (and aliases of them), ``Tensor.apply_``/``map_``,
    or recursion.

    Helpers defined in the same notebook/module and called by name are checked too. Run-time name
    lookups (``getattr``, ``eval``, ``exec``, ``__import__``...) are refused, since a string can
    hide a loop.
    """

    def syntax(n, modules):
        if type(n) in _LOOP_NODES:
            return _LOOP_NODES[type(n)]
        if isinstance(n, ast.Attribute) and (
                n.attr in _LOOP_ATTRIBUTES
                or isinstance(n.value, ast.Name)
                and n.attr in _LOOP_MODULE_ATTRIBUTES.get(modules.get(n.value.id), ())):
            return say("looping_attribute", name=n.attr)
        if isinstance(n, ast.ImportFrom) and n.module in _LOOP_MODULE_ATTRIBUTES:
            looping = [a.name for a in n.names if a.name in _LOOP_MODULE_ATTRIBUTES[n.module]]
            if looping:
                return say("looping_import", name=f"{n.module}.{looping[0]}")
        return _dynamic_lookup(n)

    def module_names(node):
        """Local names of functools/itertools: the modules themselves and `import ... as`."""
        names = {m: m for m in _LOOP_MODULE_ATTRIBUTES}
        for n in ast.walk(node):
            if isinstance(n, ast.Import):
                names.update({a.asname or a.name: a.name for a in n.names
                              if a.name in _LOOP_MODULE_ATTRIBUTES})
        return names

    def loop_function(obj):
        return next((name for f, name in _LOOP_FUNCTIONS.items() if obj is f), None)

    def find(node, fn):
        modules = module_names(node)
        found = _first_offender(node, lambda n: syntax(n, modules)) or _nested_recursion(node)
        if found:
            return found
        found = _first_alias(fn, node, loop_function)
        # "uses `f` (line 2 ...)" -> "uses `f` (a Python loop in disguise) (line 2 ...)"
        return found and found.replace(" (line", " (a Python loop in disguise) (line", 1)

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
        mapped = function_from_source(
            f"def mapped({params}):\n"
            f"    return list(map(lambda _: _solution({params}), range(1)))[0]\n",
            "mapped", {"_solution": solution})
        return [("a Python loop", loop), ("a list comprehension", comp), ("a loop hidden in map", mapped)]

    what = say("no_loops_here")
    return Rule(say("no_loops"),
                check_source=_source_rule(what, find, _recursion),
                wrong_variants=variants)


class _BannedWatch(Watch):
    """Fails a call in which a torch function with a banned name ran (or got a banned keyword)."""

    def __init__(self, names: set, what: str):
        super().__init__()
        self.names, self.what = names, what

    def before(self, func, args, kwargs):
        name = torch_name(func)
        if set(name.split(".")) & self.names:
            return say("ran_banned", name=name, rule=self.what)
        keywords = sorted(set(kwargs) & self.names)
        if keywords:
            return say("passed_banned", keyword=keywords[0], name=name, rule=self.what)
        return None


def banned(*names: str, reason: str = "") -> Rule:
    """The solution may not use any of ``names``, however it reaches them.

    Caught in the source: a name or an attribute (``x.repeat``), a keyword argument, an import
    (``from torch.func import vjp`` when ``func`` or ``vjp`` is banned), a global alias or module
    attribute that stands for a banned function or module (``bs = torch.broadcast_shapes``), and
    any run-time lookup (``getattr``, ``eval``, ``exec``, ``__import__``, ``importlib``...). Caught
    while the function runs: any torch function or method whose dotted name contains a banned
    part, or that gets a banned keyword.

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
    banned_set = frozenset(names)
    listing = ", ".join(f"`{n}`" for n in names)
    what = say("do_not_use_because", names=listing, reason=reason) if reason else say(
        "do_not_use", names=listing)

    def syntax(n, own_names):
        if isinstance(n, ast.Name) and n.id in banned_set and n.id not in own_names:
            return say("uses", name=n.id)
        if isinstance(n, ast.Attribute) and n.attr in banned_set:
            return say("uses_attribute", name=n.attr)
        if isinstance(n, ast.keyword) and n.arg in banned_set:
            return say("passes_keyword", name=n.arg)
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            for dotted in _imported(n):
                if set(dotted.split(".")) & banned_set:
                    return say("imports", name=dotted)
        return _dynamic_lookup(n)

    def alias(obj):
        parts, dotted = _identity(obj)
        if any(obj is switch for switch in _GRAD_MODE_SWITCHES):
            parts = {obj.__name__}
        return dotted if parts & banned_set else None

    def find(node, fn):
        # a variable the student binds (`func = ...`, a parameter, a loop target) is theirs, not
        # the banned object: what it is bound to is checked where it is bound (imports too)
        own = _local_names(node, imports=False)
        return (_first_offender(node, lambda n: syntax(n, own))
                or _first_alias(fn, node, alias))

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
        dynamic = function_from_source(
            f"def looks_up({params}):\n"
            f"    if False:\n"
            f"        getattr(torch, {names[0]!r})\n"
            f"    return _solution({params})\n",
            "looks_up", {"_solution": solution})
        out.append(("a getattr lookup", dynamic))
        return out

    return Rule(what, check_source=_source_rule(what, find),
                watch=lambda args, arg_names: _BannedWatch(banned_set, what),
                wrong_variants=variants)


def _arg_index(arg, arg_names) -> tuple[int, str]:
    index = arg if isinstance(arg, int) else arg_names.index(arg)
    return index, (arg_names[index] if index < len(arg_names) else f"argument {index}")


def view_of(arg: int | str = 0) -> Rule:
    """The result must be a view of argument ``arg`` (shares its storage: nothing copied).

    A function that swaps the argument's storage (``x.data = ...``) is refused before this rule
    runs, so a copy cannot pass for a view that way.

    Parameters
    ----------
    arg : int or str
        Position or parameter name of the argument whose storage the result must share.
    """
    if not isinstance(arg, (int, str)) or isinstance(arg, bool):
        raise TypeError(f"view_of: arg must be a position or a parameter name, got {arg!r}")

    def check_call(call):
        index, name = _arg_index(arg, call.arg_names)
        base_ptr = call.args[index].untyped_storage().data_ptr()
        base_bytes = call.args[index].untyped_storage().nbytes()
        for t in tensors_in(call.result):
            storage = t.untyped_storage()
            if base_bytes == 0 and storage.nbytes() == 0:
                continue  # nothing to copy, nothing to share
            if storage.data_ptr() != base_ptr:
                return say("not_a_view", name=name, n=storage.nbytes())
        return None

    def variants(solution, arg_names):
        def cloned(*args):
            out = solution(*args)
            return out.clone() if isinstance(out, torch.Tensor) else out
        return [("a copy (.clone()) instead of a view", cloned)]

    label = arg if isinstance(arg, str) else f"argument {arg}"
    return Rule(say("must_be_view", arg=label), check_call=check_call,
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

    def check_call(call):
        allowed = limit(*call.args) if callable(limit) else limit
        used = new_storage_bytes(call.result, call.args)
        if used > allowed:
            return say("too_many_bytes", used=used, allowed=allowed)
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

    text = say("new_memory_limit") if callable(limit) else say("new_bytes_at_most", limit=limit)
    return Rule(text, check_call=check_call, wrong_variants=variants)


class _AllocationWatch(Watch):
    """Fails a call in which a torch function returned a tensor with new, non-empty storage."""

    def __init__(self, into: str):
        super().__init__()
        self.into = into

    def after(self, func, args, kwargs, result):
        inputs = {t.untyped_storage().data_ptr() for t in tensors_in((args, kwargs))}
        for t in tensors_in(result):
            storage = t.untyped_storage()
            if storage.nbytes() and storage.data_ptr() not in inputs:
                name = torch_name(func).removeprefix("torch.")
                return say("allocated", name=name, n=storage.nbytes(), into=self.into)
        return None


def allocates_nothing(into: str) -> Rule:
    """No torch call inside the function may allocate: the result goes into argument ``into``.

    Watched while the function runs: any torch function or method whose tensor result has
    non-empty storage that none of that call's tensor arguments shares is an allocation (so
    ``out.copy_(a + b)`` fails at ``a + b``, while ``torch.add(a, b, out=out)`` passes).

    Parameters
    ----------
    into : str
        The parameter that names the caller's buffer (shown in the message).
    """
    if not isinstance(into, str) or not into.isidentifier():
        raise ValueError(f"allocates_nothing: into must be a parameter name, got {into!r}")

    def variants(solution, arg_names):
        index, _ = _arg_index(into, list(arg_names))

        def temporary(*args):
            args[index].copy_(args[index].clone())  # a needless temporary, then the solution
            return solution(*args)
        return [("a temporary tensor", temporary)]

    return Rule(say("allocates_nothing", name=into),
                watch=lambda args, arg_names: _AllocationWatch(into), wrong_variants=variants)

"""Figures for chapters 8 and 9: dtype dataflow, allocator counters, the compile pipeline and a
profiler timeline.

Each function returns a matplotlib ``Figure`` (the caller displays and closes it) and draws only
what it is given: the notebooks pass in dtypes, byte counts, captured graphs and profiler events
that torch produced in the cell, so a picture cannot drift from what ran.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

#: fill colour per dtype name; anything else is grey
DTYPE_COLORS = {"float32": "#4c9be8", "bfloat16": "#f0a030", "float16": "#e4572e",
                "float64": "#8c6bb1"}
_GREY = "#bbbbbb"


def _dtype_name(dtype) -> str:
    return str(dtype).replace("torch.", "")


def _box(ax, x, y, text, color, width=1.7, height=0.62, fontsize=8.5):
    ax.add_patch(FancyBboxPatch((x - width / 2, y - height / 2), width, height,
                                boxstyle="round,pad=0.04", facecolor=color,
                                edgecolor="#333333", linewidth=0.8))
    ax.text(x, y, text, ha="center", va="center", fontsize=fontsize, color="black")


def _arrow(ax, start, end, text="", dashed=False, fontsize=7.5):
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=11,
                                 color="#444444", linestyle="--" if dashed else "-",
                                 linewidth=1.0, shrinkA=4, shrinkB=4))
    if text and start[0] == end[0]:           # vertical: the label beside the arrow
        ax.text(start[0] + 0.08, (start[1] + end[1]) / 2, text,
                ha="left", va="center", fontsize=fontsize, color="#333333")
    elif text:
        ax.text((start[0] + end[0]) / 2, (start[1] + end[1]) / 2 + 0.13, text,
                ha="center", va="bottom", fontsize=fontsize, color="#333333")


def dtype_flow_figure(nodes, edges, title=""):
    """A dataflow graph whose boxes are coloured by dtype.

    ``nodes`` maps a name to ``(x, y, label, dtype)``: the box's centre, its text (a second
    line with the dtype's name is added) and a ``torch.dtype`` (or ``None`` for a box that is
    not a tensor). ``edges`` is a list of ``(from_name, to_name, text)`` or
    ``(from_name, to_name, text, dashed)``. A legend names the dtypes that occur.

    The figure is at most 9 inches wide (the book shows it at about 0.77 scale), with 11-point
    box text, so its labels stay readable at page width.
    """
    xs = [x for x, _, _, _ in nodes.values()]
    ys = [y for _, y, _, _ in nodes.values()]
    fig, ax = plt.subplots(figsize=(min(9.0, max(6.0, 0.9 * (max(xs) - min(xs) + 2))),
                                    max(2.4, 1.05 * (max(ys) - min(ys) + 1.6))))
    seen = {}
    for name, (x, y, label, dtype) in nodes.items():
        key = _dtype_name(dtype) if dtype is not None else None
        color = DTYPE_COLORS.get(key, _GREY) if key else "#eeeeee"
        text = f"{label}\n{key}" if key else label
        _box(ax, x, y, text, color, width=1.5, height=0.72, fontsize=11)
        if key:
            seen[key] = color
    for edge in edges:
        a, b, text = edge[:3]
        dashed = edge[3] if len(edge) > 3 else False
        (xa, ya), (xb, yb) = nodes[a][:2], nodes[b][:2]
        if ya == yb:
            start, end = (xa + 0.75, ya), (xb - 0.75, yb)
        else:
            start = (xa, ya + (0.36 if yb > ya else -0.36))
            end = (xb, yb + (-0.36 if yb > ya else 0.36))
        _arrow(ax, start, end, text, dashed, fontsize=10.5)
    for k, (key, color) in enumerate(seen.items()):
        ax.add_patch(FancyBboxPatch((min(xs) - 0.85 + 1.9 * k, min(ys) - 1.0), 0.3, 0.24,
                                    boxstyle="square,pad=0", facecolor=color,
                                    edgecolor="#333333", linewidth=0.6))
        ax.text(min(xs) - 0.45 + 1.9 * k, min(ys) - 0.88, key, va="center", fontsize=10.5)
    ax.set_xlim(min(xs) - 1.0, max(xs) + 1.0)
    ax.set_ylim(min(ys) - 1.15, max(ys) + 0.6)
    ax.set_title(title, fontsize=12)
    ax.axis("off")
    fig.tight_layout()
    return fig


def allocator_figure(steps, title="", unit=2 ** 20):
    """Grouped bars of the CUDA allocator's two counters after each step.

    ``steps`` is a list of ``(label, allocated_bytes, reserved_bytes)``; the bars are in units
    of ``unit`` bytes (MiB by default). The reserved bar is drawn behind the allocated one, so
    the gap between them is the allocator's cache. Above each step its two values are written
    as ``allocated / reserved``, so a step where both are 0 still reads as a result.
    """
    labels = [label for label, _, _ in steps]
    allocated = [a / unit for _, a, _ in steps]
    reserved = [r / unit for _, _, r in steps]
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    xs = range(len(steps))
    ax.bar(xs, reserved, width=0.6, color="#f0a030", label="memory_reserved (cache included)")
    ax.bar(xs, allocated, width=0.36, color="#4c9be8", label="memory_allocated (live tensors)")
    top = max(reserved + allocated + [1])
    for x, a, r in zip(xs, allocated, reserved):
        ax.text(x, max(a, r) + top * 0.03, f"{a:.4g} / {r:.4g}", ha="center", va="bottom",
                fontsize=10, color="#222222")
    ax.set_xticks(list(xs), labels, fontsize=10)
    ax.set_ylabel("MiB" if unit == 2 ** 20 else f"× {unit} bytes")
    ax.set_ylim(0, top * 1.45)
    ax.legend(fontsize=9, loc="upper right")
    ax.set_title(title, fontsize=11)
    fig.tight_layout()
    return fig


def graph_ops(gm) -> list[str]:
    """The names of the tensor operations in a captured FX graph (``call_*`` nodes), in order."""
    names = []
    for node in gm.graph.nodes:
        if node.op in ("call_function", "call_method", "call_module"):
            target = node.target
            names.append(target if isinstance(target, str)
                         else getattr(target, "__name__", str(target)))
    return names


def compile_pipeline_figure(pieces, title=""):
    """``torch.compile``'s pipeline on top, and below it how one function was split.

    The top row is fixed: Python function, TorchDynamo (bytecode to FX graph plus guards), the
    backend (Inductor by default) and the compiled code. ``pieces`` describes the function
    that was compiled, in order: ``("graph", [op names])`` for a captured graph (see
    :func:`graph_ops`) or ``("python", text)`` for code that ran in Python at a graph break.
    """
    fig, ax = plt.subplots(figsize=(8.2, 3.4))
    stages = ["your Python\nfunction", "TorchDynamo\nreads bytecode", "FX graph\n+ guards",
              "backend\n(Inductor)", "compiled\nkernels"]
    for k, text in enumerate(stages):
        _box(ax, 2.1 * k, 1.6, text, "#dde8f5" if k != 2 else "#4c9be8", width=1.8,
             height=0.7, fontsize=10)
        if k:
            _arrow(ax, (2.1 * (k - 1) + 0.85, 1.6), (2.1 * k - 0.85, 1.6))
    width = 8.4 / max(len(pieces), 1)
    for k, (kind, content) in enumerate(pieces):
        x = width * k + width / 2 - 0.1
        if kind == "graph":
            text = "graph:\n" + ", ".join(content) if content else "graph (empty)"
            color = "#4c9be8"
        else:
            text = "Python:\n" + content
            color = "#eeeeee"
        _box(ax, x, 0.0, text, color, width=width - 0.3, height=0.8, fontsize=10.5)
        if k:
            _arrow(ax, (x - width + (width - 0.3) / 2, 0.0), (x - (width - 0.3) / 2, 0.0))
    breaks = sum(kind == "python" for kind, _ in pieces)
    ax.text(-0.9, 0.68, f"the function, as captured: {sum(k == 'graph' for k, _ in pieces)} "
            f"graph(s), {breaks} graph break(s)", fontsize=10, ha="left")
    ax.set_xlim(-1.0, 9.5)
    ax.set_ylim(-0.6, 2.1)
    ax.set_title(title, fontsize=11)
    ax.axis("off")
    fig.tight_layout()
    return fig


def trace_rows(events, names=None):
    """The rows a timeline draws from profiler events: ``(name, start_us, duration_us, depth)``.

    ``events`` are the ``FunctionEvent`` objects of ``prof.events()``; only those whose name is
    in ``names`` (all, when ``None``) are kept. Start times are relative to the earliest kept
    event; the depth is how many kept events enclose the event.
    """
    kept = [e for e in events if names is None or e.name in names]
    if not kept:
        return []
    origin = min(e.time_range.start for e in kept)
    rows = []
    for e in kept:
        depth = sum(1 for o in kept if o is not e and o.time_range.start <= e.time_range.start
                    and e.time_range.end <= o.time_range.end
                    and (o.time_range.start, -o.time_range.end)
                    < (e.time_range.start, -e.time_range.end))
        rows.append((e.name, e.time_range.start - origin, e.time_range.end - e.time_range.start,
                     depth))
    return sorted(rows, key=lambda row: (row[1], row[3]))


def trace_figure(rows, title=""):
    """A profiler timeline: one bar per event, nested events one level down.

    ``rows`` come from :func:`trace_rows`. Time runs left to right in microseconds; the label
    of a bar is its operator's name (without ``aten::``), written where it fits.
    """
    fig, ax = plt.subplots(figsize=(8.2, 2.9))
    palette = ["#4c9be8", "#f0a030", "#8cc084", "#e4572e", "#8c6bb1", "#999999"]
    colors = {}
    end = max((start + length for _, start, length, _ in rows), default=1.0)
    for name, start, length, depth in rows:
        color = colors.setdefault(name, palette[len(colors) % len(palette)])
        ax.barh(-depth, length, left=start, height=0.8, color=color, edgecolor="#333333",
                linewidth=0.5)
        if length > end * 0.1:
            ax.text(start + length / 2, -depth, name.replace("aten::", ""), ha="center",
                    va="center", fontsize=10)
    depths = sorted({depth for *_, depth in rows})
    ax.set_yticks([-d for d in depths], [f"depth {d}" for d in depths], fontsize=10)
    ax.set_xlabel("µs since the first event", fontsize=10)
    ax.set_xlim(0, end * 1.02)
    ax.set_title(title, fontsize=11)
    fig.tight_layout()
    return fig


__all__ = ["DTYPE_COLORS", "allocator_figure", "compile_pipeline_figure", "dtype_flow_figure",
           "graph_ops", "trace_figure", "trace_rows"]

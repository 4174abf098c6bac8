"""One results format for every way of grading: Otter-Grader's ``final_grades.csv`` columns.

``otter grade`` (Docker) writes ``final_grades.csv``; ``python -m tensorlens.classroom.grade`` (no setup) and
``python -m tensorlens.classroom.otter_grade`` (``otter run``, no Docker) write ``grades.csv`` with the same
columns, so a teacher can switch paths and keep their spreadsheet:

``file, <one column per question, sorted>, total_points_earned, percent_correct, grading_status``

The first data row is ``points-per-question`` (each question's points, the total, 1 and ``--``),
then one row per submission, sorted by ``file``. ``grading_status`` is ``Completed`` when every
question scored full points, otherwise ``Completed`` followed by one ``; <question>: <reason>``
per question that did not, or the reason the submission could not be graded at all (every
question 0 then).
"""

from __future__ import annotations

import csv
import io
import pathlib
from dataclasses import dataclass, field

__all__ = ["POINTS_PER_EXERCISE", "Row", "COLUMNS_BEFORE", "COLUMNS_AFTER", "POINTS_POSSIBLE_LABEL", "table", "write_csv"]

#: every exercise is one question worth this many points, on every path
POINTS_PER_EXERCISE = 1
COLUMNS_BEFORE = ["file"]
COLUMNS_AFTER = ["total_points_earned", "percent_correct", "grading_status"]
POINTS_POSSIBLE_LABEL = "points-per-question"


@dataclass
class Row:
    """One graded submission: its name, points per question, and what went wrong."""

    file: str
    scores: dict = field(default_factory=dict)  # question -> points earned
    problems: list = field(default_factory=list)  # "question: reason" lines
    failure: str | None = None  # why nothing could be graded, if so


def _number(x: float) -> str:
    return repr(float(x))


def _status(row: Row) -> str:
    if row.failure:
        return row.failure
    return "; ".join(["Completed", *row.problems])


def table(possible: dict, rows: list[Row]) -> list[list[str]]:
    """The CSV as a list of rows of strings (see the module contract).

    Raises
    ------
    ValueError
        If a row scores a question ``possible`` does not name.
    """
    questions = sorted(possible)
    total_possible = sum(possible.values())
    out = [COLUMNS_BEFORE + questions + COLUMNS_AFTER,
           [POINTS_POSSIBLE_LABEL, *(_number(possible[q]) for q in questions),
            _number(total_possible), "1", "--"]]
    for row in sorted(rows, key=lambda r: r.file):
        unknown = set(row.scores) - set(possible)
        if unknown:
            raise ValueError(f"rows: {row.file} scores questions not in possible: {sorted(unknown)}")
        scores = [0.0 if row.failure else float(row.scores.get(q, 0.0)) for q in questions]
        total = sum(scores)
        out.append([row.file, *map(_number, scores), _number(total),
                    _number(round(total / total_possible, 4) if total_possible else 0), _status(row)])
    return out


def write_csv(path, possible: dict, rows: list[Row]) -> list[list[str]]:
    """Write :func:`table` to ``path``; return it."""
    rows_out = table(possible, rows)
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows_out)
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return rows_out

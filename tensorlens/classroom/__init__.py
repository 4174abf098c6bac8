"""The classroom tools: what a teacher runs, never what a learner's notebook imports.

- ``student``: student copies of the notebooks (solutions replaced by stubs, checks kept).
- ``grade`` (with ``_grade_run`` and ``_processes``): grade a folder of returned notebooks on one
  machine, each in its own process, kernel and temporary folder.
- ``assignments``: an Otter-Grader assignment and a Gradescope autograder per exercises page.
- ``otter_plugin``: what runs while Otter grades (each question's check, the grading guard).
- ``otter_grade``: a folder of submissions through ``otter run`` (no Docker).
- ``results``: the one results format every path writes (Otter's ``final_grades.csv`` columns).
- ``kernels``: kernel managers on unix sockets, which ``grade`` and this project's notebook
  runners use (no two kernels can race for a TCP port).

Run them as ``python -m tensorlens.classroom.<tool>``. They import the exercises and the
notebook tools (``nbformat``, ``nbclient``: the ``grade`` extra); nothing else imports them.
"""

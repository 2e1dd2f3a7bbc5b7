"""Reports: plain-text and HTML tables, paper tables and plots of estimates and comparisons.

* :func:`text_table`, :func:`html_table` -- the tables every printed result uses;
* :mod:`bayeseval.report.tables` -- an :class:`~bayeseval.Evaluation` as Markdown, LaTeX
  (booktabs), CSV, JSON, a terminal table or AISBench's summary layout with intervals;
* :mod:`bayeseval.report.plots` -- forest plots, pass@k curves with credible bands, the
  posterior density of a difference, coverage-study plots and the rank plot of pairwise strengths
  (matplotlib, imported only when a plot is drawn).

>>> import numpy as np, bayeseval as B
>>> ev = B.evaluate({"a": np.array([[1, 0], [1, 1]])}, ["avg"], scope="benchmark", prior="uniform", interval="normal")
>>> print(to_markdown(ev, note=False))
| model | avg |
|---|---:|
| a | 75.0 [33.5, 91.5] |
"""

from .._text import html_table, text_table
from .tables import aisbench_summary, render, to_csv, to_json, to_latex, to_markdown, to_terminal
from .plots import coverage_plot, difference_density, forest, pass_at_k_curve, read_coverage_results, strengths_plot
from .tables import pairwise_table

__all__ = ["text_table", "html_table", "render", "to_markdown", "to_latex", "to_csv", "to_json", "to_terminal",
           "aisbench_summary", "forest", "pass_at_k_curve", "difference_density", "coverage_plot",
           "read_coverage_results", "strengths_plot", "pairwise_table"]

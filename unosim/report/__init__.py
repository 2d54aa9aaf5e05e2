"""report layer: pages and charts built from results, never running a game.

``render`` (the document model and its Markdown / HTML templates), ``format``
(numbers and names), ``charts`` (the study pages' PNGs), ``svg`` (a run report's
charts, no matplotlib), ``chartkit`` (what both share), ``verdicts`` (sentences);
the pages:
``run_report`` (one run), ``runs`` + ``comparison`` + ``compare`` (rule sets
side by side), ``sweep`` (a grid of variants), ``league``. The runs behind
them are the study layer's (`unosim.study`).
"""

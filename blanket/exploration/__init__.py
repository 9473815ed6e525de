"""Exploration: running a scenario under many orders of its calls.

- :mod:`~blanket.exploration.search`: :func:`~blanket.explore` itself, its
  arguments, shards, and the loop over runs;
- :mod:`~blanket.exploration.run`: one run, its steps and its verdict;
- the strategies: :mod:`~blanket.exploration.dfs` (with its partial-order
  reduction), :mod:`~blanket.exploration.uniform` (``"random"``) and
  :mod:`~blanket.exploration.pct`;
- :mod:`~blanket.exploration.guided`: the order the ``"dfs"`` search
  tries first when it looks for lines (``reach=``);
- :mod:`~blanket.exploration.result`: what the search gives back;
- :mod:`~blanket.exploration.reproduce`: the test that replays a schedule;
- watching plain shared state: :mod:`~blanket.exploration.watch` (the
  rewriter) and :mod:`~blanket.exploration.races`;
- what the code under test makes and does: :mod:`~blanket.exploration.adopt`
  (its threads and primitives become the scenario's) and
  :mod:`~blanket.exploration.unseen` (what blanket cannot schedule), which
  sees the threads' calls through :mod:`~blanket.exploration.monitor`
  (``sys.monitoring``) where there is one;
- speed: :mod:`~blanket.exploration.runners` (threads started ahead) and
  :mod:`~blanket.exploration.affinity` (one CPU).

The public names are exported by :mod:`blanket`. Nothing is imported here,
so that the lower layers (a scenario watches and adopts) can use
:mod:`~blanket.exploration.watch` and :mod:`~blanket.exploration.adopt`
without the search.
"""

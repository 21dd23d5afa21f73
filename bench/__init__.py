"""Cadence benchmarks: orchestration overhead, tokens, HTTP concurrency and the embedded model.

Run everything with ``python -m bench`` (``--quick`` for a short run); the report is
written to ``docs/benchmarks.md`` with its chart ``docs/benchmarks.png``.
"""

"""``cadence threads``: the stored conversations (list, show, history, fork, replay).

Each subcommand lives beside the feature it serves; this module only owns the group so
that every feature registers onto the same ``threads_app``.
"""

from __future__ import annotations

import typer

threads_app = typer.Typer(
    help="Inspect and act on stored threads.", no_args_is_help=True, pretty_exceptions_enable=False
)
"""The ``cadence threads`` command group."""

__all__ = ["threads_app"]

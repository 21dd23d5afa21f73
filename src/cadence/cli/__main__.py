"""``python -m cadence.cli``."""

from cadence.cli.main import main

main()

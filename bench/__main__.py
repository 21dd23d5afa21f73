"""``python -m bench``: run every benchmark section and write the report."""

from bench.run import main

raise SystemExit(main())

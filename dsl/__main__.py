"""`python -m tritonize` (and the `tritonize` script): the command line, in dsl/cli.py."""
from __future__ import annotations

import sys

from tritonize.cli import main

if __name__ == "__main__":
    sys.exit(main())

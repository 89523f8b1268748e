"""``python -m placement.perfmodel``: refit the constants and print the errors
(``--markdown``: the tables of PERFORMANCE_MODEL.md)."""

import sys

from .report import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""``python -m placement.perfmodel``: refit the constants and print the errors
(``--markdown``: the tables of PERFORMANCE_MODEL.md; ``--lab-refit``: what a
lab's own batch runs buy, ``lab_check``)."""

import sys

from .lab_check import lab_refit_text
from .report import main

if __name__ == "__main__":
    if "--lab-refit" in sys.argv[1:]:
        print(lab_refit_text())
        sys.exit(0)
    sys.exit(main(sys.argv[1:]))

"""``python -m sekai``: the sekai command line."""

import sys

from sekai.cli import main

if __name__ == "__main__":
    sys.exit(main())

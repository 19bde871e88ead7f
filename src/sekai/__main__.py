"""``python -m sekai``: the sekai command line."""

import sys

from sekai.cli import main

sys.exit(main())

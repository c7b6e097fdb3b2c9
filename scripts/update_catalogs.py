#!/usr/bin/env python3
"""Update the translation catalogs from the messages in the code (see :mod:`voice_earl.catalogs`).

.venv/bin/python scripts/update_catalogs.py          # update the files
.venv/bin/python scripts/update_catalogs.py --check  # only report; exit 1 if a catalog is incomplete
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from voice_earl.catalogs import main

if __name__ == "__main__":
    sys.exit(main())

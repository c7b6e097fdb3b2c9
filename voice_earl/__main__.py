import sys

from voice_earl.cli import main

sys.exit(main())

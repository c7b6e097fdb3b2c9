import sys

from voice_earl.commands.cli import main

sys.exit(main())

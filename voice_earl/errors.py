"""Errors that the command line turns into one clear line instead of a traceback."""

import sys


class VoiceEarlError(Exception):
    """A problem the user can act on; its message is shown as it is."""

    exit_code = 1


class UsageError(VoiceEarlError):
    """Bad arguments or settings: exit status 2."""

    exit_code = 2


def tell(line: str) -> None:
    """A notice in one line for whoever is at the terminal (what was done about a problem), on standard error."""
    print(f"voice-earl: {line}", file=sys.stderr, flush=True)

"""Errors that the command line turns into one clear line instead of a traceback."""


class VoiceEarlError(Exception):
    """A problem the user can act on; its message is shown as it is."""

    exit_code = 1


class UsageError(VoiceEarlError):
    """Bad arguments or settings: exit status 2."""

    exit_code = 2

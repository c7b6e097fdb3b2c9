"""The ``voice-earl`` command line (``cli``) and one module per command, plus the machine check.

The top floor: may import everything. Each command imports its heavy modules only when it runs.
"""

"""How long a test waits for what must come.

No test may depend on the machine's speed: a wait ends as soon as what it waits for comes, so its limit
only ends a hang, and it is as long as the busiest machine needs (pytest-timeout ends a test at 600 s).
A test that checks that something does *not* happen waits a short, fixed time instead: on a slow
machine it may pass when it should not, but it never fails when it should pass.
"""

WAIT_S = 300.0
WAIT_MS = WAIT_S * 1000  # Playwright counts in milliseconds

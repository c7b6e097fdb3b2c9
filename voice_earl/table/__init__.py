"""The table: the session that drives the engine, its inputs (voice, keys, bots, scripts), the
journal, the narrator and its speech, and the screen.

May import ``keep`` and below (the journal keeps the session it sits beside), never the commands.
"""

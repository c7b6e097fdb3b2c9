"""The game itself: cards, rules profiles, chants, the engine, series, bots and the game log.

Pure rules with no I/O: no audio, terminal, storage, clocks or third-party packages. Randomness
comes in as an injected ``random.Random``. May import only the ground floor (``voice_earl.errors``,
``voice_earl.paths``) and the standard library.
"""

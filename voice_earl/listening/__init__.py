"""Everything between a player's voice and a verdict on their formula: audio input, recognizers
behind one interface, per-turn context, verdicts, the listener and its models.

May import ``i18n``, ``game`` and the ground floor, never what is kept, the table or the commands.
"""

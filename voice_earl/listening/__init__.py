"""Everything between a player's voice and the words heard: here, the recognizers behind one
interface, the choice among them and the chain the game listens with; in ``stream``, the
microphone's audio and the listener; in ``judge``, the Whisper judge; in ``models``, the models on
disk. What the words mean for the turn is :mod:`voice_earl.words`.

May import ``words`` and below, never what is kept, the table or the commands.
"""

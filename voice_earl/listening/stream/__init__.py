"""The microphone's stream: audio in, the listener and its run, utterances, speech's end and knocks."""

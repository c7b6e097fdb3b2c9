"""The judge, a second pass over the audio: Whisper, the phrases it weighs, its decision and log-mel."""

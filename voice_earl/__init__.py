"""voice-earl: an offline, voice-driven party game of Earl of Coventry."""

__version__ = "0.1.0"

"""voice-earl: an offline, voice-driven party game of Earl of Coventry.

The ground floor (``errors``, ``paths``, ``names``) imports nothing else of the project. Above it, one package per
concern, each importing only what lies below it (``keep`` and ``listening`` share a floor and
import neither each other):

    commands > table > keep | listening > words > i18n > game > ground floor
"""

__version__ = "0.1.0"

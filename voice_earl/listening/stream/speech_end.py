"""Where speech really ends (and begins), from its energy above the noise floor.

The WebRTC voice detector keeps calling a frame voiced for a while after the voice stops (about
150 ms), so timing from its last voiced frame under-reports the wait. Here a 10 ms frame is
loud when its energy stands well above the noise floor, relative to the speech's own peak:

* :func:`speech_end_s` looks at a whole recording at once (for files: ``hear``, the benchmark);
* :class:`EndWatch` follows a live stream, and says when the end of speech has become likely
  (a short run of quiet frames after loud ones), so the judge can start before the
  endpointer's full window of trailing silence has passed.

>>> from voice_earl.listening.stream.audio import SAMPLE_RATE
>>> tone = (8000 * np.sin(np.arange(SAMPLE_RATE) * 0.2)).astype(np.int16)
>>> quiet = np.zeros(SAMPLE_RATE // 2, np.int16)
>>> speech_end_s(np.concatenate([quiet, tone, quiet])), speech_start_s(np.concatenate([quiet, tone, quiet]))
(1.5, 0.5)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from voice_earl.listening.stream.audio import SAMPLE_RATE, Pcm16

FRAME_S = 0.01
FRAME_SAMPLES = int(FRAME_S * SAMPLE_RATE)
SILENCE_DB = -100.0  # what digital silence counts as
MIN_RISE_DB = 6.0  # loud frames are at least this far above the floor
PEAK_SHARE = 0.35  # ... and this share of the way from the floor to the speech's peak
PEAK_RANGE_DB = 35.0  # frames this far below the peak are never loud
# Over a stretch of frames: the room's floor is its 10th percentile of energy, the speech's peak
# its 99th, and the loudest the noise alone gets its 90th.
FLOOR_PERCENTILE = 10
PEAK_PERCENTILE = 99
NOISE_TOP_PERCENTILE = 90


def frame_db(samples: Pcm16) -> np.ndarray:
    """Energy of each whole 10 ms frame in dB below full scale."""
    count = len(samples) // FRAME_SAMPLES
    frames = samples[: count * FRAME_SAMPLES].astype(np.float64).reshape(count, FRAME_SAMPLES) / 32768.0
    power = np.mean(frames**2, axis=1)
    energies: np.ndarray = np.maximum(10.0 * np.log10(np.maximum(power, 1e-12)), SILENCE_DB)
    return energies


LOUD_ROOM_DB = 30.0  # a room whose floor is less than this below the speech's peak is loud (talk, babble)
NOISE_MARGIN_DB = 3.0  # loud frames stand this far above the loudest tenth of the noise alone
NOISE_SAMPLE_S = 0.3  # how much of a recording's start and end is taken as its noise


def floor_db(energies: Sequence[float] | np.ndarray) -> float:
    return float(np.percentile(energies, FLOOR_PERCENTILE)) if len(energies) else SILENCE_DB


def peak_db(energies: Sequence[float] | np.ndarray) -> float:
    return float(np.percentile(energies, PEAK_PERCENTILE)) if len(energies) else SILENCE_DB


def noise_top_db(energies: Sequence[float] | np.ndarray) -> float:
    return float(np.percentile(energies, NOISE_TOP_PERCENTILE)) if len(energies) else SILENCE_DB


def loud_threshold(
    floor_db: float, peak_db: float, noise_top_db: float = SILENCE_DB, peak_range_db: float = PEAK_RANGE_DB
) -> float:
    """The energy above which a frame counts as speech. ``noise_top_db``: :func:`noise_top_db` of
    frames known to hold no speech (talk in the room keeps the floor busy)."""
    return max(
        floor_db + MIN_RISE_DB,
        floor_db + PEAK_SHARE * (peak_db - floor_db),
        peak_db - peak_range_db,
        noise_top_db + NOISE_MARGIN_DB,
    )


def loud_room(peak_db: float, floor_db: float) -> bool:
    """Whether talk or noise fills the room: the speech's peak stands less than ``LOUD_ROOM_DB``
    above the room's floor."""
    return peak_db - floor_db < LOUD_ROOM_DB


def room_is_loud(samples: Pcm16) -> bool:
    """:func:`loud_room` for a whole recording: its :func:`peak_db` against its :func:`floor_db`.

    >>> tone = (8000 * np.sin(np.arange(SAMPLE_RATE) * 0.2)).astype(np.int16)
    >>> room = np.random.default_rng(0).normal(0, 300, 2 * SAMPLE_RATE)
    >>> quiet = np.concatenate([room / 100, tone, room / 100]).astype(np.int16)
    >>> loud = np.concatenate([room, tone, room]).astype(np.int16)
    >>> room_is_loud(quiet), room_is_loud(loud)
    (False, True)
    """
    energies = frame_db(samples)
    return len(energies) > 0 and loud_room(peak_db(energies), floor_db(energies))


class Levels:
    """A recording's running energy, summed once, so that its level around many moments is
    compared without going over the samples again (one per candidate the judge scores).

    >>> tone = (8000 * np.sin(np.arange(SAMPLE_RATE) * 0.2)).astype(np.int16)
    >>> speech, gap = Levels(np.concatenate([tone, tone // 10])), np.zeros(SAMPLE_RATE // 2, dtype=np.int16)
    >>> [round(value, 1) for value in speech.fall(1.0, 0.3, 0.0)], Levels(tone).fall(0.9, 0.3, 0.0)
    ([1.0, 20.0], None)
    >>> [round(value, 1) for value in speech.fall(0.8, 0.3, 0.3)]
    [1.0, 20.0]
    >>> round(Levels(np.concatenate([tone, gap, tone // 10])).back(1.0, 0.3, 1.0), 1)
    -20.0
    >>> round(Levels(np.concatenate([tone, gap, tone])).back(1.0, 0.3, 1.0), 1), Levels(tone).back(0.9, 0.3, 1.0)
    (0.0, None)
    """

    def __init__(self, samples: Pcm16) -> None:
        self._energy = np.concatenate([[0.0], np.cumsum(samples.astype(np.float64) ** 2)])
        self._length = len(samples)

    def _mean(self, starts: np.ndarray, width: int) -> np.ndarray:
        """The mean power of the ``width`` samples from each of ``starts``."""
        mean: np.ndarray = (self._energy[starts + width] - self._energy[starts]) / width
        return mean

    def fall(self, near_s: float, span_s: float, search_s: float) -> tuple[float, float] | None:
        """Where, within ``search_s`` of ``near_s``, the level falls the most: the ``span_s`` after
        that moment against the ``span_s`` before it, in dB; None when no such moment has both spans
        wholly in the recording. Looked for every 10 ms (and at ``near_s`` itself)."""
        span, near, reach = (round(seconds * SAMPLE_RATE) for seconds in (span_s, near_s, search_s))
        ats = near + np.arange(-(reach // FRAME_SAMPLES), reach // FRAME_SAMPLES + 1) * FRAME_SAMPLES
        ats = ats[(ats >= span) & (ats + span <= self._length)]
        if len(ats) == 0:
            return None
        drops = 10.0 * np.log10((self._mean(ats - span, span) + 1.0) / (self._mean(ats, span) + 1.0))
        best = int(np.argmax(drops))
        return float(ats[best]) / SAMPLE_RATE, float(drops[best])

    def back(self, at_s: float, span_s: float, until_s: float) -> float | None:
        """How loud the loudest 0.1 s is between ``span_s`` and ``until_s`` after ``at_s``, against
        the ``span_s`` before ``at_s``, in dB (0: as loud); None when there is no such audio."""
        at, span, window = round(at_s * SAMPLE_RATE), round(span_s * SAMPLE_RATE), round(0.1 * SAMPLE_RATE)
        first, last = at + span, min(at + round(until_s * SAMPLE_RATE), self._length) - window
        if at - span < 0 or last < first:
            return None
        before = self._mean(np.array([at - span]), span)[0]
        loudest = float(np.max(self._mean(np.arange(first, last + 1, window // 2), window)))
        return 10.0 * float(np.log10((loudest + 1.0) / (before + 1.0)))


def loud_frames(samples: Pcm16) -> np.ndarray:
    """The indices of the 10 ms frames of ``samples`` that are loud (none in silence or steady
    noise), against the recording's :func:`floor_db` and :func:`peak_db`; its first and last moments
    (the quieter of the two) show what the noise alone does."""
    energies = frame_db(samples)
    if len(energies) == 0:
        return np.zeros(0, dtype=np.intp)
    floor, peak = floor_db(energies), peak_db(energies)
    if peak - floor < MIN_RISE_DB:
        return np.zeros(0, dtype=np.intp)
    edge = max(1, int(NOISE_SAMPLE_S / FRAME_S))
    noise_top = min(noise_top_db(energies[:edge]), noise_top_db(energies[-edge:]))
    return np.flatnonzero(energies > loud_threshold(floor, peak, min(noise_top, peak - MIN_RISE_DB)))


def speech_end_s(samples: Pcm16, before_s: float | None = None) -> float | None:
    """Seconds from the start of ``samples`` to the end of the last loud frame (before ``before_s``),
    or None when no frame is loud (:func:`loud_frames`)."""
    loud = loud_frames(samples)
    if before_s is not None:
        loud = loud[loud < before_s / FRAME_S]
    return None if len(loud) == 0 else round(float(loud[-1] + 1) * FRAME_S, 3)


def speech_start_s(samples: Pcm16) -> float | None:
    """Seconds from the start of ``samples`` to the start of the first loud frame, or None."""
    loud = loud_frames(samples)
    return None if len(loud) == 0 else round(float(loud[0]) * FRAME_S, 3)


# The voice's level is compared over this much audio before and after where a phrase ends ...
VOICE_SPAN_S = 0.3
# ... and, for a voice that comes back, up to this long after it.
VOICE_BACK_S = 1.0


@dataclass(frozen=True)
class VoiceFall:
    """Where near a phrase's end the voice fell away the most (:meth:`Levels.fall`), by how much,
    and how loud it came back after (:meth:`Levels.back`; None: no audio after it yet)."""

    at_s: float
    drop_db: float
    back_db: float | None


def voice_fall(levels: Levels, near_s: float, search_s: float) -> VoiceFall | None:
    """The :class:`VoiceFall` within ``search_s`` of ``near_s``; None when the audio is too short to tell.

    >>> tone = (8000 * np.sin(np.arange(SAMPLE_RATE) * 0.2)).astype(np.int16)
    >>> fall = voice_fall(Levels(np.concatenate([tone, tone // 100, tone // 100])), 0.9, 0.5)
    >>> fall is not None and (fall.at_s, round(fall.drop_db), round(fall.back_db or 0.0))
    (1.0, 40, -40)
    """
    fall = levels.fall(near_s, VOICE_SPAN_S, search_s)
    if fall is None:
        return None
    at_s, drop = fall
    return VoiceFall(at_s, drop, levels.back(at_s, VOICE_SPAN_S, VOICE_BACK_S))


# No phrase is shorter than this from its first loud frame to its last (the shortest "pass" of the
# benchmark's voices is 0.32 s): a blip of talk at the start of a loud room is no phrase's end.
MIN_SPEECH_S = 0.15


class EndWatch:
    """Follows the energy of a live stream, 10 ms frame by frame.

    ``floor`` is :func:`floor_db` of the last few seconds; ``peak`` the loudest frame since the
    current speech began. After :meth:`speech_began`, a likely end is a quiet of ``gap_s`` after
    the last loud frame of speech loud for at least ``MIN_SPEECH_S``: ``unseen_end`` holds where
    that speech ended until :meth:`looked` says it was judged up to there. It is found at the
    frame where the quiet is long enough, however the audio is cut into chunks.
    """

    def __init__(self, gap_s: float, history_s: float = 4.0, peak_range_db: float = PEAK_RANGE_DB) -> None:
        self.gap_s = gap_s
        self.peak_range_db = peak_range_db
        self._history: deque[float] = deque(maxlen=int(history_s / FRAME_S))
        self._pending = np.zeros(0, np.int16)
        self._peak = SILENCE_DB
        self._noise_top = SILENCE_DB
        self._in_speech = False
        self.audio_t = 0.0  # seconds of audio seen
        self.first_loud: float | None = None  # end of the first loud frame of the current speech
        self.last_loud: float | None = None  # end of the last loud frame of the current speech
        self.unseen_end: float | None = None  # a likely end not yet judged: where its speech ended
        self._looked_to: float | None = None  # the speech was judged up to here

    def feed(self, pcm: bytes) -> None:
        samples = np.concatenate([self._pending, np.frombuffer(pcm, dtype=np.int16)])
        count = len(samples) // FRAME_SAMPLES
        self._pending = samples[count * FRAME_SAMPLES :]
        for energy in frame_db(samples[: count * FRAME_SAMPLES]):
            self.audio_t += FRAME_S
            self._frame(float(energy))

    def skip(self, seconds: float) -> None:
        """Audio that was not heard (muted): time passes, nothing is learnt."""
        self.audio_t += seconds

    def _frame(self, energy: float) -> None:
        self._history.append(energy)
        if not self._in_speech:
            return
        self._peak = max(self._peak, energy)
        if energy > loud_threshold(self.floor, self._peak, self._noise_top, self.peak_range_db):
            self._loud(self.audio_t)
        elif self._quiet_long_enough():
            self.unseen_end = self.last_loud

    def _loud(self, at: float) -> None:
        """A loud frame ended at ``at``."""
        self.first_loud = at if self.first_loud is None else self.first_loud
        self.last_loud = at

    def _quiet_long_enough(self) -> bool:
        first, last = self.first_loud, self.last_loud
        return (
            first is not None
            and last is not None
            and self.audio_t - last >= self.gap_s - 1e-9
            and last - first >= MIN_SPEECH_S - 1e-9
            and not self._judged_to(last)
        )

    def _judged_to(self, at: float) -> bool:
        return self._looked_to is not None and at <= self._looked_to + 1e-9

    @property
    def floor(self) -> float:
        return floor_db(self._history)

    def speech_began(self, frames_before_s: float) -> None:
        """The endpointer heard speech begin: judge loudness from then on (including the pre-roll)."""
        self._in_speech = True
        self._peak = SILENCE_DB
        self.first_loud = self.last_loud = self.unseen_end = self._looked_to = None
        history = list(self._history)
        count = max(1, int(frames_before_s / FRAME_S))
        recent, before = history[-count:], history[:-count]
        self._noise_top = noise_top_db(before) if len(before) >= 10 else SILENCE_DB
        floor = self.floor
        for offset, energy in enumerate(recent):
            self._peak = max(self._peak, energy)
            if energy > loud_threshold(floor, self._peak, self._noise_top, self.peak_range_db):
                self._loud(self.audio_t - (len(recent) - offset - 1) * FRAME_S)

    def speech_ended(self) -> None:
        self._in_speech = False
        self.unseen_end = None

    def looked(self, end: float | None) -> None:
        """The speech was judged up to ``end`` (its last loud frame then): a likely end there needs
        no other look."""
        self._looked_to = end
        if self.unseen_end is not None and self._judged_to(self.unseen_end):
            self.unseen_end = None

    def went_on(self, since: float | None) -> bool:
        """Whether the voice was loud after ``since`` (an earlier last loud frame; None: ever)."""
        return self.last_loud is not None and (since is None or self.last_loud > since + 1e-9)

    def still_loud(self) -> bool:
        """Whether the voice was loud less than ``gap_s`` before the end of the audio seen: the speech
        was cut off there, not ended."""
        return self.last_loud is not None and self.audio_t - self.last_loud < self.gap_s - 1e-9

    def room_loud(self) -> bool:
        """:func:`loud_room` for the speech so far: its loudest frame against the recent floor."""
        return self._in_speech and loud_room(self._peak, self.floor)

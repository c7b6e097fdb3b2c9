"""What the judge scored: each candidate's log-probabilities, its rank slot, the free transcript,
and the judge's answer with why it was given."""

from __future__ import annotations

from dataclasses import dataclass, field

from voice_earl.game.cards import Rank
from voice_earl.listening.judge.candidates import Candidate, Heard


@dataclass(frozen=True)
class Scored:
    candidate: Candidate
    logprob: float  # sum over the candidate's tokens
    tokens: int
    quiet_logprob: float | None = None  # the same sum on a quiet room's audio (no speech)
    last_logprob: float = 0.0  # its full stop's: a pass's or a command's last token; a line's, scored
    # after its words and not counted in ``logprob`` (talk that goes on past a line's words makes it unlikely)
    voice_drop_db: float | None = None  # in a loud room: how much quieter the audio just after its
    # end_s is than just before (None: a quiet room, or too near an edge of the audio)
    end_s: float = 0.0  # where it ends in the audio: where Whisper aligns the end of its last word,
    # or in a loud room where the voice fell away the most near there
    voice_back_db: float | None = None  # in a loud room: the loudest moment in the second after the
    # voice fell away, against the voice before end_s (None: no audio after it yet)
    start_s: float = 0.0  # where Whisper aligns the start of its first word

    @property
    def mean(self) -> float:
        return self.logprob / max(self.tokens, 1)

    @property
    def gain(self) -> float:
        """How much likelier, per token, the audio makes this candidate than a quiet room does."""
        if self.quiet_logprob is None:
            return float("-inf")
        return (self.logprob - self.quiet_logprob) / max(self.tokens, 1)


@dataclass(frozen=True)
class Transcript:
    """What Whisper writes for the audio when free to write anything (greedy, a few tokens)."""

    text: str
    mean: float  # mean per-token log-probability


@dataclass(frozen=True)
class Slot:
    before: str  # the words before the slot as scored (" There's a" or " There's an")
    spelling: str  # the rank's likeliest spelling
    logprob: float
    other_word: str  # the likeliest of NOT_RANKS there, normalised
    margin: float  # how much likelier that word is than this rank
    rank: Rank
    place: int  # 0: the likeliest rank in the slot
    lead: float = float("inf")  # how much likelier this rank is than the next likeliest (none: infinite)
    due: bool = True  # a rank due: the line with another is a wrong rank, heard only on its mean
    over_due: float = float("inf")  # a rank not due: how much likelier it is than the likeliest rank due


@dataclass(frozen=True)
class JudgeResult:
    """The judge's answer: the phrase heard (normalised), or "" for none of these."""

    phrase: str
    best: Scored  # the best candidate, whether or not it cleared its floor
    compute_s: float
    scored: tuple[Scored, ...] = field(default=(), repr=False)
    slots: dict[Candidate, Slot] = field(default_factory=dict, repr=False)  # the rank heard in each slot
    first_pass: str = ""  # what the first pass heard, normalised
    position: int | None = None  # the position due
    free: Transcript | None = None  # the free transcript, when a short phrase was to be heard
    voice_stopped: bool = False  # the phrase heard ends where the voice fell away (a loud room)
    loud_room: bool = False  # the audio judged was a loud room's (talk or noise around the speaker)
    weighed_to_s: float | None = None  # a second look's: where the audio it weighed ends (None: all of it)
    why: str = ""  # the rule or veto that decided, or the verifier's probability against its point

    @property
    def heard(self) -> bool:
        return bool(self.phrase)


@dataclass(frozen=True)
class Decision:
    """The phrase heard, and why: the rule or veto that decided, or the verifier's probability
    against its operating point (docs/listening.md names each)."""

    phrase: str  # normalised; "" for none of these
    best: Scored  # the candidate that decided, whether or not it was heard
    rule: str  # "verifier", or the rule ("rule floor") or the veto ("veto not-alone") that decided
    detail: str = ""  # the measure against its bar
    heard: Heard | None = None  # with the verifier: what hearing ``best`` does ...
    probability: float = 0.0  # ... how likely the verifier finds it ...
    point: float = 0.0  # ... and its kind's operating point

    @property
    def why(self) -> str:
        weighed = ""
        if self.heard is not None:
            sign = ">=" if self.probability >= self.point else "<"
            weighed = f"{self.heard.value} {self.probability:.2f} {sign} {self.point:.2f}"
        if self.detail and weighed:
            return f"{self.rule}: {self.detail} ({weighed})"
        return f"{self.rule}: {self.detail or weighed}"

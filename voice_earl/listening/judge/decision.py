"""The judge's decision, from the candidates' scores: which phrase was heard, if any.

Kept apart from the model (:mod:`voice_earl.listening.judge.whisper`) so that settings can be
replayed on kept scores (``scripts/bench_listening.py --tune``). The rule, and what each setting
does, is told there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from voice_earl.game.cards import Rank
from voice_earl.listening.judge.candidates import Candidate, Kind
from voice_earl.words.text import normalise


@dataclass(frozen=True)
class JudgeSettings:
    """Tuned on the tune split of scripts/bench_listening.py; the held-out split is reported."""

    token_bonus: float = 3.5  # added per token, so that short candidates do not win on their length
    line_floor: float = -3.5  # mean per-token log-probability below which the line due is not heard
    other_line_floor: float = -2.5  # ... another position's line (a wrong line moves the game too)
    pass_floor: float = -3.5
    command_floor: float = -3.5  # commands only when said alone (their full stop is scored too)
    agreed_line_floor: float = -4.5  # ... for the line the first pass heard too (never a pass or a command:
    # the first pass's grammar turns "pass me the crisps" into "pass")
    agreed_line_gain: float = 0.5  # ... and its gain over a quiet room at least this (talk the first
    # pass forces onto a line, "the best of all the cakes", is hardly likelier than a quiet room)
    agree_margin: float = 8.0  # the first pass's candidate may score this much below the best
    line_gain: float = 1.0  # the line due below its floor: heard when its gain clears this ...
    line_gain_floor: float = -4.5  # ... and its mean this, and its rank leads the next likeliest by this:
    line_gain_rank_lead: float = 0.5
    line_gain_rival: float = 1.0  # ... and no line that clears no bar is likelier by this much per token
    # (a wrong line said where the Earl is due is likelier than the Earl line, if not enough to be heard)
    pass_gain: float = 0.9  # a pass below its floor: likewise (a loud room's babble alone now and then makes
    # "Pass, please." 0.8 to 0.9 likelier than a quiet room does)
    pass_gain_floor: float = -6.0
    pass_unlikely_mean: float = -4.5  # ... and a pass this unlikely in itself only at a gain of at least
    pass_unlikely_gain: float = 1.5  # this: speech that is no pass ("There's a", then nothing) makes
    # "Pass." about 0.9 likelier than a quiet room does, but leaves it as unlikely as -5.9
    rankless_line_gain: float = 0.8  # a line that names no rank, however it is heard, at least this gain: Whisper
    # finds "There's the best of all the three" likely in the room's babble alone, and in talk like it
    alone_margin: float = 2.5  # a pass or a command: its mean at most this below the free transcript's
    sure_floor: float = -1.5  # ... unless its own mean is at least this (0: always checked): babble
    # around a clear "I pass" must not make it look like a sentence
    stop_floor: float = -4.5  # a pass or a command: its full stop at least this likely (a word that
    # follows "pass" makes the stop unlikely: "Pass it to the left", "my password is ...")
    voice_drop_db: float = 4.0  # in a loud room, the voice falls this much where a phrase ends when
    # the speaker stopped there (babble goes on, the speaker does not; "pass me the crisps" goes on
    # at the speaker's level): the listener takes it at once, and a pass or a command not heard on
    # the whole audio is weighed again up to there
    voice_back_db: float = 0.0  # ... and within a second after, it never comes back louder than
    # this against its level before the end ("pass it to the left" goes on after a breath)
    fall_search_s: float = 0.5  # ... where it falls the most this close to where Whisper aligns the
    # phrase's end (Whisper puts it up to half a second early or late; 0: there exactly)
    stop_look_s: float = 0.2  # a line heard before the room got loud again is taken once this much
    # audio past the span after its end shows that the voice fell away there (see stopped_after)
    liaison_margin: float = 3.0  # "a nine" sounds like "an ine": the first pass's "a" line is taken
    # over the same line with "an" and another rank when this close to it
    rank_margin: float = 2.0  # a number that is no rank this much likelier than any rank at the slot: no rank
    wrong_rank_lead: float = 2.0  # a rank not due is heard only this much likelier in its slot than every
    # rank due: a rank due that Whisper hears poorly ("a nine" as "an eight") is asked for again, not punished
    wrong_rank_line_lead: float = 0.6  # ... and its whole line this much likelier per token than the line with
    # a rank due, or nothing is heard: in babble the slot alone may favour a rank ("a queen" as "a three")
    voice_lead_s: float = 0.1  # in a loud room, the audio is weighed from this long before the voice is
    # first loud (the room's talk before the speaker began is not the speaker's)
    min_window_s: float = 3.0  # audio is encoded in a window of whole seconds, at least this long
    threads: int = 1  # one thread was faster than two on a 2-core machine


@dataclass(frozen=True)
class Scored:
    candidate: Candidate
    logprob: float  # sum over the candidate's tokens
    tokens: int
    quiet_logprob: float | None = None  # the same sum on a quiet room's audio (no speech)
    last_logprob: float = 0.0  # its last token's (a pass's or a command's full stop)
    voice_drop_db: float | None = None  # in a loud room: how much quieter the audio just after its
    # end_s is than just before (None: a quiet room, or too near an edge of the audio)
    end_s: float = 0.0  # where it ends in the audio: where Whisper aligns the end of its last word,
    # or in a loud room where the voice fell away the most near there
    voice_back_db: float | None = None  # in a loud room: the loudest moment in the second after the
    # voice fell away, against the voice before end_s (None: no audio after it yet)

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

    @property
    def heard(self) -> bool:
        return bool(self.phrase)


def decide(
    scored: Sequence[Scored],
    slots: Mapping[Candidate, Slot],
    settings: JudgeSettings,
    transcript: Callable[[], Transcript],
    first_pass: str = "",
    due_position: int | None = None,
) -> tuple[str, Scored]:
    """:func:`choose`, and then a short phrase (a pass, a command) only when said alone: nearly as
    likely as what Whisper writes when free to write anything, and not the start of it ("Pass it
    to the left"), unless it scored so well that talk around it cannot have been part of it.
    ``transcript`` gives the free transcript; it is asked for only then."""
    phrase, best = choose(scored, slots, settings, first_pass, due_position)
    if not phrase or best.candidate.kind is Kind.LINE or best.mean >= settings.sure_floor:
        return phrase, best
    free = transcript()
    sayings = [item.candidate.text for item in scored if item.candidate.kind is best.candidate.kind]
    if best.mean < free.mean - settings.alone_margin or goes_on(sayings, free.text):
        return "", best
    return phrase, best


def fell_away(item: Scored, settings: JudgeSettings) -> bool:
    """Whether, in a loud room, the voice fell away where the candidate ends and did not come back
    (and a pass or a command ends where its full stop is): the speaker stopped there, whatever the
    room goes on saying."""
    stop_likely = item.candidate.kind is Kind.LINE or item.last_logprob >= settings.stop_floor
    # No audio after it yet is no evidence that the voice stayed away: the speaker may only pause.
    came_back = item.voice_back_db is None or item.voice_back_db > settings.voice_back_db
    dropped = item.voice_drop_db is not None and item.voice_drop_db >= settings.voice_drop_db
    return dropped and stop_likely and not came_back


def heard_where_voice_fell_away(result: JudgeResult, settings: JudgeSettings) -> bool:
    """Whether the phrase heard was heard on the judge's own evidence (it :func:`clears`, not only
    because the first pass heard it too) and the voice fell away where it ends. A line must also be
    clearly likelier than in a quiet room (its gain clears ``line_gain``): talk ends too ("as good as
    new"), and a line it scores near the floor must wait for the whole of it."""
    return result.heard and any(
        fell_away(item, settings)
        and clears(item, settings, result.position, result.slots.get(item.candidate))
        and (item.candidate.kind is not Kind.LINE or item.gain >= settings.line_gain)
        for item in result.scored
        if item.candidate.phrase == result.phrase
    )


def sure_line(item: Scored, result: JudgeResult, settings: JudgeSettings) -> bool:
    """Whether ``item`` is the line due with a rank due, and clears the line floor on its mean."""
    slot = result.slots.get(item.candidate)
    return (
        item.candidate.kind is Kind.LINE
        and _at_position_due(item.candidate, result.position)
        and (slot is None or slot.due)
        and item.mean >= settings.line_floor
    )


def voice_stopped(scored: Sequence[Scored], settings: JudgeSettings) -> Scored | None:
    """The likeliest pass or command (with the bonus per token) after which the voice fell away."""
    stopped = [item for item in scored if item.candidate.kind is not Kind.LINE and fell_away(item, settings)]
    return max(stopped, key=lambda item: item.logprob + settings.token_bonus * item.tokens, default=None)


def goes_on(sayings: Sequence[str], transcript: str) -> bool:
    """Whether ``transcript`` starts with one of ``sayings`` and then says more than them.

    >>> sayings = (" Pass.", " I pass.", " Pass, please.")
    >>> goes_on(sayings, " Pass it to the left."), goes_on(sayings, " Pass me the..."), goes_on(sayings, " Yes.")
    (True, True, False)
    >>> goes_on(sayings, " Pass. Pass."), goes_on(sayings, " Pass, please."), goes_on(sayings, " I pass.")
    (False, False, False)
    """
    wordings = sorted((normalise(saying).split() for saying in sayings), key=len, reverse=True)
    rest = normalise(transcript).split()
    began = False
    while rest:
        wording = next((w for w in wordings if w and rest[: len(w)] == w), None)
        if wording is None:
            return began
        began, rest = True, rest[len(wording) :]
    return False


def clears(item: Scored, settings: JudgeSettings, due_position: int | None = None, slot: Slot | None = None) -> bool:
    """Whether a candidate has the evidence to be heard: its mean clears its kind's floor, or (the
    line due, a pass) its gain over a quiet room clears its kind's bar and its mean a lower floor;
    a line taken on its gain must also have a rank due, clearly the likeliest in the slot, and no
    number that is no rank likelier (talk names ranks: a wrong rank needs the stronger evidence).
    A line that names no rank must be clearly likelier than in a quiet room, however it is heard.
    A rank not due is heard only where it is the likeliest in its slot and clearly likelier there
    than every rank due. A pass or a command must also end where its full stop is, and a pass very
    unlikely in itself needs a larger gain (:func:`_pass_on_gain`)."""
    kind = item.candidate.kind
    if kind is not Kind.LINE and item.last_logprob < settings.stop_floor:
        return False
    if _only_likely_english(item, settings):
        return False
    if kind is Kind.LINE and not _at_position_due(item.candidate, due_position):
        return item.mean >= settings.other_line_floor
    if kind is Kind.LINE and slot is not None and not slot.due and (
        slot.place > 0 or slot.over_due < settings.wrong_rank_lead
    ):
        return False  # the words after the slot favour some ranks ("a king as good as he"): the slot says what was said
    floor = {Kind.LINE: settings.line_floor, Kind.PASS: settings.pass_floor, Kind.COMMAND: settings.command_floor}
    if item.mean >= floor[kind]:
        return True
    if kind is Kind.LINE:
        rank_clear = slot is None or (slot.due and slot.margin <= 0 and slot.lead >= settings.line_gain_rank_lead)
        return rank_clear and item.gain >= settings.line_gain and item.mean >= settings.line_gain_floor
    return kind is Kind.PASS and _pass_on_gain(item, settings)


def _pass_on_gain(item: Scored, settings: JudgeSettings) -> bool:
    """Whether a pass below its floor has the gain over a quiet room to be heard: the gain for a pass,
    or for one very unlikely in itself, the larger gain that speech which is no pass does not give."""
    if item.gain < settings.pass_gain or item.mean < settings.pass_gain_floor:
        return False
    return item.mean >= settings.pass_unlikely_mean or item.gain >= settings.pass_unlikely_gain


def choose(
    scored: Sequence[Scored],
    slots: Mapping[Candidate, Slot],
    settings: JudgeSettings,
    first_pass: str = "",
    due_position: int | None = None,
) -> tuple[str, Scored]:
    """The phrase heard ("" for none of these) and the best candidate, from the candidates' scores.

    Of the candidates that :func:`clears` its kind's bar, the best (log-probability sum plus the
    bonus per token) is heard, but a rank not due only when its line is also clearly likelier than
    the same line with a rank due (if not, nothing is heard): a short phrase that scores well only
    for being short never hides a line that clears its bar, and the line the first pass heard with
    "a" wins over the same line with "an" and another rank when nearly as likely ("a nine" sounds
    like "an ine"). A line heard only on its gain is not heard when a line that clears no bar is
    clearly likelier. When none clears, the line the first pass heard may still be, when it is the
    line due with a rank due, nearly as good as the best, clears the lower floor and the gain for
    agreement, and no other rank in its line scored better. The first pass's grammar forces talk
    onto a line, so agreement never makes a wrong line or a wrong rank."""
    def total(item: Scored) -> float:
        return item.logprob + settings.token_bonus * item.tokens

    heard = [item for item in scored if clears(item, settings, due_position, slots.get(item.candidate))]
    best = max(heard or scored, key=total)
    if heard:
        best = _unless_liaison(best, scored, slots, first_pass, total, settings.liaison_margin)
        if _outheard(best, [item for item in scored if item not in heard], settings):
            return "", best
        if _rank_due_as_likely(best, scored, slots, settings):
            return "", best  # a wrong rank is a penalty: too close to call, the player is asked again
    else:
        agreed = next((s for s in scored if s.candidate.phrase == first_pass), None)
        if agreed is None or total(best) - total(agreed) > settings.agree_margin:
            return "", best
        if not _agrees(agreed, settings, due_position):
            return "", best
        heard_rank = slots.get(agreed.candidate)
        if heard_rank is not None and (
            not heard_rank.due or heard_rank.margin > 0 or _outscored(agreed, scored, slots, total)
        ):
            return "", best  # a rank not due, another rank heard there, or a number that is none
        best = agreed
    slot = slots.get(best.candidate)
    if slot is not None and slot.other_word and slot.margin >= settings.rank_margin:
        # The line was said with a word that is no rank where the rank goes ("eleven"): say so.
        return best.candidate.phrase.replace(normalise(slot.spelling), slot.other_word, 1), best
    return best.candidate.phrase, best


def _outheard(best: Scored, unheard: Sequence[Scored], settings: JudgeSettings) -> bool:
    """Whether ``best``, a line heard only on its gain over a quiet room, has a rival line that clears
    no bar but is clearly likelier: the sound is more like something else that was said."""
    if best.candidate.kind is not Kind.LINE or best.mean >= settings.line_floor:
        return False
    rivals = [item.mean for item in unheard if item.candidate.kind is Kind.LINE]
    return bool(rivals) and max(rivals) - best.mean > settings.line_gain_rival


def _rank_due_as_likely(
    line: Scored, scored: Sequence[Scored], slots: Mapping[Candidate, Slot], settings: JudgeSettings
) -> bool:
    """Whether ``line`` has a rank not due and the same line with a rank due is nearly as likely
    (within ``wrong_rank_line_lead`` per token): the slot's word may lead only for the noise on it."""
    slot = slots.get(line.candidate)
    if slot is None or slot.due:
        return False
    due_means = [other.mean for other in _ranked_alike(line, scored, slots) if slots[other.candidate].due]
    return bool(due_means) and line.mean - max(due_means) < settings.wrong_rank_line_lead


def _agrees(agreed: Scored, settings: JudgeSettings, due_position: int | None) -> bool:
    """Whether the candidate the first pass heard is the line due, with the evidence for agreement."""
    candidate = agreed.candidate
    return (
        candidate.kind is Kind.LINE
        and _at_position_due(candidate, due_position)
        and agreed.mean >= settings.agreed_line_floor
        and agreed.gain >= settings.agreed_line_gain
        and not _only_likely_english(agreed, settings)
    )


def _only_likely_english(line: Scored, settings: JudgeSettings) -> bool:
    """Whether ``line`` names no rank and the audio makes it hardly likelier than a quiet room does:
    likely for its words alone, as babble or talk can make it."""
    return line.candidate.rankless and line.gain < settings.rankless_line_gain


def _at_position_due(line: Candidate, due_position: int | None) -> bool:
    """Whether a line is the position due's (any is, when none is named); another is a wrong line."""
    return due_position is None or line.position == due_position


def _unless_liaison(best: Scored, scored: Sequence[Scored], slots: Mapping[Candidate, Slot], first_pass: str,
                    total: Callable[[Scored], float], margin: float) -> Scored:
    """The line the first pass heard with "a" and one rank, rather than the best, the same line with
    "an" and another rank, when nearly as likely: "a nine" sounds like "an ine" ("an eight")."""
    slot = slots.get(best.candidate)
    if slot is None or not slot.before.endswith(" an"):
        return best
    said = next((s for s in scored if s.candidate.phrase == first_pass and s.candidate in slots), None)
    if said is None or said.candidate.position != best.candidate.position:
        return best
    said_slot = slots[said.candidate]
    if said_slot.before.endswith(" an") or said_slot.rank is slot.rank or total(best) - total(said) > margin:
        return best
    return said


def _outscored(line: Scored, scored: Sequence[Scored], slots: Mapping[Candidate, Slot],
               total: Callable[[Scored], float]) -> bool:
    """Whether the same line with another rank scored better (the same rank after "a" or "an" is
    the same rank)."""
    rank = slots[line.candidate].rank
    return any(
        total(other) > total(line)
        for other in _ranked_alike(line, scored, slots)
        if slots[other.candidate].rank is not rank
    )


def _ranked_alike(line: Scored, scored: Sequence[Scored], slots: Mapping[Candidate, Slot]) -> list[Scored]:
    """The candidates that are ``line``'s line with some rank in its slot (``line`` among them)."""
    position = line.candidate.position
    return [other for other in scored if other.candidate in slots and other.candidate.position == position]

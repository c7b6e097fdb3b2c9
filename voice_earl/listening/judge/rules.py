"""The judge's rules: floors and bars on the candidates' scores, each named, the default decision.

A candidate is heard when it has the evidence (:func:`evidence`): its mean per-token log-probability
clears its kind's floor, or its gain over a quiet room clears its kind's bar and its mean a lower
floor; the best of those is heard unless a veto stands against it, and when none has it, the line
the first pass heard may still be, on weaker evidence. docs/listening.md tells each rule, its setting
and why it is there; every decision says which one decided.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from voice_earl.listening.judge.candidates import Candidate, Kind
from voice_earl.listening.judge.scores import Decision, Scored, Slot, Transcript
from voice_earl.listening.judge.settings import JudgeSettings
from voice_earl.listening.judge.verifier import goes_on
from voice_earl.words.text import normalise

# Within a second after where a phrase ends, the voice comes back when it is as loud as before it
# ("pass ... it to the left" goes on after a breath).
VOICE_BACK_DB = 0.0


def decide_by_rules(
    scored: Sequence[Scored],
    slots: Mapping[Candidate, Slot],
    settings: JudgeSettings,
    transcript: Callable[[], Transcript],
    first_pass: str = "",
    due_position: int | None = None,
    held: bool = False,
) -> Decision:
    """:func:`choose`, and then a short phrase (a pass, a command) only when said alone: nearly as
    likely as what Whisper writes when free to write anything, and not the start of it ("Pass it
    to the left"), unless it scored so well that talk around it cannot have been part of it.
    ``transcript`` gives the free transcript; it is asked for only then.

    A ``held`` utterance (a phone's Hold to speak) need not be said alone: the speaker marked where
    their words begin and end, and what Whisper writes around a short word held close up is the
    room's babble at the edges of the hold ("Pass me!", "I pass it."), not the speaker going on. When
    nothing is heard in a hold, a pass the first pass heard too may be (:func:`_held_pass_agreed`)."""
    decided = choose(scored, slots, settings, first_pass, due_position, held)
    if held and not decided.phrase:
        return _held_pass_agreed(scored, settings, transcript, first_pass) or decided
    best = decided.best
    if not decided.phrase or best.candidate.kind is Kind.LINE or best.mean >= settings.sure_floor or held:
        return decided
    free = transcript()
    said = free.text.strip()
    if best.mean < free.mean - settings.alone_margin:
        return Decision(
            "",
            best,
            "veto not-alone",
            f"{said!r} is likelier by {free.mean - best.mean:.1f} > {settings.alone_margin:g}",
        )
    sayings = tuple(item.candidate.text for item in scored if item.candidate.kind is best.candidate.kind)
    if goes_on(sayings, free.text):
        return Decision("", best, "veto not-alone", f"{said!r} goes on after it")
    return decided


def _held_pass_agreed(
    scored: Sequence[Scored], settings: JudgeSettings, transcript: Callable[[], Transcript], first_pass: str
) -> Decision | None:
    """In a hold, the pass the first pass heard too, on weaker evidence: its mean clears
    ``pass_gain_floor`` and its full stop ``stop_floor``, and it was said alone (within ``alone_margin``
    of Whisper's free transcript, which does not go on after it). A bare "pass" held in babble scores
    low; the first pass's grammar also turns "pass me the crisps" into "pass", which the free
    transcript tells apart."""
    passes = [item for item in scored if item.candidate.kind is Kind.PASS]
    if not first_pass or all(item.candidate.phrase != first_pass for item in passes):
        return None
    best = max(passes, key=lambda item: item.mean)
    if best.mean < settings.pass_gain_floor or best.last_logprob < settings.stop_floor:
        return None
    free = transcript()
    sayings = tuple(item.candidate.text for item in passes)
    if best.mean < free.mean - settings.alone_margin or goes_on(sayings, free.text):
        return None
    return Decision(
        best.candidate.phrase,
        best,
        "rule held-agreement",
        f"the first pass heard {first_pass!r} too, mean {best.mean:.2f} >= {settings.pass_gain_floor:g}, said alone",
    )


def fell_away(item: Scored, settings: JudgeSettings, held: bool = False) -> bool:
    """Whether, in a loud room, the voice fell away where the candidate ends and did not come back
    (and a pass or a command ends where its full stop is): the speaker stopped there, whatever the
    room goes on saying. In a ``held`` utterance the speaker let go of the button after it: no audio
    after the fall is the voice not coming back."""
    stop_likely = item.candidate.kind is Kind.LINE or item.last_logprob >= settings.stop_floor
    # No audio after it yet is no evidence that the voice stayed away: the speaker may only pause.
    came_back = not held if item.voice_back_db is None else item.voice_back_db > VOICE_BACK_DB
    dropped = item.voice_drop_db is not None and item.voice_drop_db >= settings.voice_drop_db
    return dropped and stop_likely and not came_back


def evidence(
    item: Scored,
    settings: JudgeSettings,
    due_position: int | None = None,
    slot: Slot | None = None,
    held: bool = False,
) -> tuple[str, str]:
    """Whether a candidate has the evidence to be heard: ("rule floor" or "rule gain", what cleared
    it), or ("", why not). Its mean clears its kind's floor, or (the line due, a pass) its gain over a
    quiet room clears its kind's bar and its mean a lower floor; a line taken on its gain must also
    have a rank due, clearly the likeliest in the slot, and no number that is no rank likelier (talk
    names ranks: a wrong rank needs the stronger evidence). A line that names no rank must be clearly
    likelier than in a quiet room, however it is heard. A rank not due is heard only where it is the
    likeliest in its slot and clearly likelier there than every rank due. A pass or a command must
    also end where its full stop is, and a line must not go on past its words (the full stop after
    them, scored apart: "she picked the best of all the three puppies")."""
    kind, mean = item.candidate.kind, item.mean
    if kind is not Kind.LINE and item.last_logprob < settings.stop_floor:
        return "", f"veto full-stop: its full stop {item.last_logprob:.1f} < {settings.stop_floor:g}"
    if kind is Kind.LINE and item.last_logprob < settings.line_stop_floor:
        return "", f"veto line-goes-on: the full stop after it {item.last_logprob:.1f} < {settings.line_stop_floor:g}"
    if _only_likely_english(item, settings):
        return "", f"veto rankless-gain: names no rank, gain {item.gain:.2f} < {settings.rankless_line_gain:g}"
    if kind is Kind.LINE and not _at_position_due(item.candidate, due_position):
        if mean >= settings.other_line_floor:
            return "rule floor", f"another position's line, mean {mean:.2f} >= {settings.other_line_floor:g}"
        return "", f"rule floor: another position's line, mean {mean:.2f} < {settings.other_line_floor:g}"
    if (
        kind is Kind.LINE
        and slot is not None
        and not slot.due
        and (slot.place > 0 or slot.over_due < settings.wrong_rank_lead)
    ):  # the words after the slot favour some ranks ("a king as good as he"): the slot says what was said
        lead = slot.over_due if slot.place == 0 else slot.lead
        return "", (
            f"veto rank-not-clear: {slot.rank.word} leads the rank due by {lead:.1f} < {settings.wrong_rank_lead:g}"
        )
    floor = {Kind.LINE: settings.line_floor, Kind.PASS: settings.pass_floor, Kind.COMMAND: settings.command_floor}
    if mean >= floor[kind]:
        return "rule floor", f"{kind.value} mean {mean:.2f} >= {floor[kind]:g}"
    below = f"rule floor: {kind.value} mean {mean:.2f} < {floor[kind]:g}"
    if kind is Kind.LINE:
        rank_clear = slot is None or (slot.due and slot.margin <= 0 and slot.lead >= settings.line_gain_rank_lead)
        if rank_clear and item.gain >= settings.line_gain and mean >= settings.line_gain_floor:
            return "rule gain", f"line gain {item.gain:.2f} >= {settings.line_gain:g}, mean {mean:.2f}"
        return "", f"{below}, gain {item.gain:.2f} (bar {settings.line_gain:g})"
    if kind is Kind.PASS and item.gain >= settings.pass_gain and mean >= settings.pass_gain_floor:
        return _pass_gain_evidence(item, settings, held)
    return "", below if kind is Kind.COMMAND else f"{below}, gain {item.gain:.2f} (bar {settings.pass_gain:g})"


def _pass_gain_evidence(item: Scored, settings: JudgeSettings, held: bool) -> tuple[str, str]:
    """:func:`evidence` for a pass below its floor whose gain over a quiet room clears its bar."""
    mean = item.mean
    if mean < settings.pass_unlikely_mean and item.gain < settings.pass_unlikely_gain:
        return "", (
            f"veto pass-unlikely: mean {mean:.2f} < {settings.pass_unlikely_mean:g} "
            f"needs gain {settings.pass_unlikely_gain:g}, has {item.gain:.2f}"
        )
    if settings.pass_gain_fall and not fell_away(item, settings, held):
        return "", f"veto room-raised: pass gain {item.gain:.2f}, and the voice did not fall away after it"
    return "rule gain", f"pass gain {item.gain:.2f} >= {settings.pass_gain:g}, mean {mean:.2f}"


def clears(item: Scored, settings: JudgeSettings, due_position: int | None = None, slot: Slot | None = None) -> bool:
    """Whether a candidate has the evidence to be heard (:func:`evidence`)."""
    return bool(evidence(item, settings, due_position, slot)[0])


def choose(
    scored: Sequence[Scored],
    slots: Mapping[Candidate, Slot],
    settings: JudgeSettings,
    first_pass: str = "",
    due_position: int | None = None,
    held: bool = False,
) -> Decision:
    """The phrase heard ("" for none of these), the candidate that decided, and why (``held``: a phone's
    hold, whose release marks where the speaker stopped).

    Of the candidates that have the :func:`evidence`, the best (log-probability sum plus the bonus
    per token) is heard, but a rank not due only when its line is also clearly likelier than the
    same line with a rank due (if not, nothing is heard): a short phrase that scores well only for
    being short never hides a line that clears its bar, and the line the first pass heard with "a"
    wins over the same line with "an" and another rank when nearly as likely ("a nine" sounds like
    "an ine"). A line heard only on its gain is not heard when a line that clears no bar is clearly
    likelier. When none has the evidence, the line the first pass heard may still be, when it is the
    line due with a rank due, nearly as good as the best, clears the lower floor and the gain for
    agreement, and no other rank in its line scored better. The first pass's grammar forces talk
    onto a line, so agreement never makes a wrong line or a wrong rank."""

    def total(item: Scored) -> float:
        return item.logprob + settings.token_bonus * item.tokens

    found = {item: evidence(item, settings, due_position, slots.get(item.candidate), held) for item in scored}
    heard = [item for item in scored if found[item][0]]
    best = max(heard or scored, key=total)
    if heard:
        rule, detail = found[best]
        said = _unless_liaison(best, scored, slots, first_pass, total, settings.liaison_margin)
        if said is not best:
            best, rule, detail = said, "rule liaison", "the first pass heard 'a' where 'an' and another rank scored"
        rival = _outheard(best, [item for item in scored if item not in heard], settings)
        if rival:
            return Decision("", best, "veto outheard", f"a line likelier by {rival:.2f} > {settings.line_gain_rival:g}")
        lead = _rank_due_lead(best, scored, slots)
        if lead is not None and lead < settings.wrong_rank_line_lead:
            # A wrong rank is a penalty: too close to call, the player is asked again.
            return Decision(
                "",
                best,
                "veto rank-due-as-likely",
                f"the line with a rank due within {lead:.2f} < {settings.wrong_rank_line_lead:g}",
            )
    else:
        agreed = next((s for s in scored if s.candidate.phrase == first_pass), None)
        nothing = Decision("", best, "rules: nothing heard", found[best][1])
        if agreed is None or total(best) - total(agreed) > settings.agree_margin:
            return nothing
        if not _agrees(agreed, settings, due_position):
            return nothing
        heard_rank = slots.get(agreed.candidate)
        if heard_rank is not None and (
            not heard_rank.due or heard_rank.margin > 0 or _outscored(agreed, scored, slots, total)
        ):
            return nothing  # a rank not due, another rank heard there, or a number that is none
        best, rule = agreed, "rule agreement"
        detail = f"the first pass heard it, mean {best.mean:.2f} >= {settings.agreed_line_floor:g}"
    slot = slots.get(best.candidate)
    if slot is not None and slot.other_word and slot.margin >= settings.rank_margin:
        # The line was said with a word that is no rank where the rank goes ("eleven"): say so.
        return Decision(
            best.candidate.phrase.replace(normalise(slot.spelling), slot.other_word, 1),
            best,
            "rule no-rank",
            f"{slot.other_word!r} where the rank goes",
        )
    return Decision(best.candidate.phrase, best, rule, detail)


def sure_line_by_rules(item: Scored, position: int | None, slot: Slot | None, settings: JudgeSettings) -> bool:
    """Whether ``item`` is the line due with a rank due, and clears the line floor on its mean."""
    return (
        item.candidate.kind is Kind.LINE
        and _at_position_due(item.candidate, position)
        and (slot is None or slot.due)
        and item.mean >= settings.line_floor
    )


def _outheard(best: Scored, unheard: Sequence[Scored], settings: JudgeSettings) -> float:
    """How much likelier than ``best``, a line heard only on its gain over a quiet room, a rival line
    that clears no bar is, when clearly so (0 otherwise): the sound is more like something else."""
    if best.candidate.kind is not Kind.LINE or best.mean >= settings.line_floor:
        return 0.0
    rivals = [item.mean for item in unheard if item.candidate.kind is Kind.LINE]
    lead = max(rivals) - best.mean if rivals else 0.0
    return lead if lead > settings.line_gain_rival else 0.0


def _rank_due_lead(line: Scored, scored: Sequence[Scored], slots: Mapping[Candidate, Slot]) -> float | None:
    """For a line with a rank not due: how much likelier per token it is than the same line with a
    rank due (None: it has a rank due, or no such line was scored)."""
    slot = slots.get(line.candidate)
    if slot is None or slot.due:
        return None
    due_means = [other.mean for other in _ranked_alike(line, scored, slots) if slots[other.candidate].due]
    return line.mean - max(due_means) if due_means else None


def _agrees(agreed: Scored, settings: JudgeSettings, due_position: int | None) -> bool:
    """Whether the candidate the first pass heard is the line due, with the evidence for agreement."""
    candidate = agreed.candidate
    return (
        candidate.kind is Kind.LINE
        and _at_position_due(candidate, due_position)
        and agreed.mean >= settings.agreed_line_floor
        and agreed.gain >= settings.agreed_line_gain
        and agreed.last_logprob >= settings.line_stop_floor
        and not _only_likely_english(agreed, settings)
    )


def _only_likely_english(line: Scored, settings: JudgeSettings) -> bool:
    """Whether ``line`` names no rank and the audio makes it hardly likelier than a quiet room does:
    likely for its words alone, as babble or talk can make it."""
    return line.candidate.rankless and line.gain < settings.rankless_line_gain


def _at_position_due(line: Candidate, due_position: int | None) -> bool:
    """Whether a line is the position due's (any is, when none is named); another is a wrong line."""
    return due_position is None or line.position == due_position


def _unless_liaison(
    best: Scored,
    scored: Sequence[Scored],
    slots: Mapping[Candidate, Slot],
    first_pass: str,
    total: Callable[[Scored], float],
    margin: float,
) -> Scored:
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


def _outscored(
    line: Scored, scored: Sequence[Scored], slots: Mapping[Candidate, Slot], total: Callable[[Scored], float]
) -> bool:
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

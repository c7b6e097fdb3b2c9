"""The judge's decision by the trained verifier (``JudgeSettings.verifier``): the candidate it finds
likeliest is heard when its probability reaches its kind's operating point and no named veto stands
against it. docs/listening.md tells each veto and how the verifier was trained and measured.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from voice_earl.listening.judge.candidates import Candidate, Heard, Kind, heard_as
from voice_earl.listening.judge.scores import Decision, Scored, Slot, Transcript
from voice_earl.listening.judge.settings import JudgeSettings
from voice_earl.listening.judge.verifier import Look, Model, Verifier, features, free_ranges, goes_on, load_verifier
from voice_earl.words.text import normalise


@dataclass(frozen=True)
class Weighed:
    """A candidate, what hearing it would do, and the verifier's probability that it was said."""

    item: Scored
    heard: Heard
    probability: float


def decide_by_verifier(
    scored: Sequence[Scored],
    slots: Mapping[Candidate, Slot],
    settings: JudgeSettings,
    transcript: Callable[[], Transcript],
    first_pass: str = "",
    due_position: int | None = None,
    loud_room: bool = False,
    verifier: Verifier | None = None,
    exact: bool = False,
) -> Decision:
    """The candidate the verifier finds likeliest is heard when its probability reaches its kind's
    operating point, and no veto stands against it (docs/listening.md). ``transcript`` gives the free
    transcript; it is asked for only when it could change the decision (``exact``: always, so that
    the probabilities are exact, not only the decision)."""
    look = Look(scored, slots, first_pass, due_position, loud_room)
    weighed = weigh(look, verifier or load_verifier(), transcript, None if exact else settings.point)
    if not weighed:
        raise ValueError("nothing to decide: no candidate was scored")
    winner = max(weighed, key=lambda w: w.probability)
    decided = Decision("", winner.item, "verifier", "", winner.heard, winner.probability, settings.point(winner.heard))
    if winner.probability < decided.point:
        return decided
    if not loud_room and winner.item.gain < settings.quiet_gain:
        return replace(
            decided,
            rule="veto weak-in-quiet",
            detail=f"likelier than in a silent room by {winner.item.gain:.1f} < {settings.quiet_gain:g}",
        )
    if winner.item.candidate.kind is not Kind.LINE:
        alone = _said_alone(winner.item, scored, settings, transcript)
        if alone:
            return replace(decided, rule="veto not-alone", detail=alone)
    slot = slots.get(winner.item.candidate)
    if slot is not None and not slot.due and (slot.place > 0 or slot.over_due < settings.wrong_rank_lead):
        lead = slot.over_due if slot.place == 0 else slot.lead
        return replace(
            decided,
            rule="veto rank-not-clear",
            detail=f"{slot.rank.word} leads the rank due by {lead:.1f} < {settings.wrong_rank_lead:g}",
        )
    phrase = winner.item.candidate.phrase
    if slot is not None and slot.other_word and slot.margin >= settings.rank_margin:
        # The line was said with a word that is no rank where the rank goes ("eleven"): say so.
        return replace(
            decided,
            phrase=phrase.replace(normalise(slot.spelling), slot.other_word, 1),
            rule="rule no-rank",
            detail=f"{slot.other_word!r} where the rank goes",
        )
    return replace(decided, phrase=phrase)


def _said_alone(
    item: Scored, scored: Sequence[Scored], settings: JudgeSettings, transcript: Callable[[], Transcript]
) -> str:
    """Why a pass or a command was not said alone ("" when it was): a word followed it (its full stop is
    unlikely), or Whisper, free to write anything, writes a sentence that starts with it ("Pass me the
    crisps")."""
    if item.last_logprob < settings.stop_floor:
        return f"its full stop {item.last_logprob:.1f} < {settings.stop_floor:g}"
    free = transcript()
    if goes_on(
        tuple(other.candidate.text for other in scored if other.candidate.kind is item.candidate.kind), free.text
    ):
        return f"{free.text.strip()!r} goes on after it"
    return ""


def weigh(
    look: Look, verifier: Verifier, transcript: Callable[[], Transcript], point: Callable[[Heard], float] | None = None
) -> list[Weighed]:
    """Every candidate with the verifier's probability. The free transcript (a decoder run) is asked
    for only when it could change the decision at these operating points (``point``; None: always):
    when something could be heard and, whatever it says, another candidate could come first or the
    first could fall either side of its point."""
    free_unknown = free_ranges()
    found = []
    for item in look.scored:
        slot = look.slots.get(item.candidate)
        heard = heard_as(item.candidate, slot is None or slot.due, look.due_position)
        model = verifier.model(item.candidate)
        values = features(item, look)
        low, high = model.bounds(values, free_unknown)
        found.append((item, heard, model, low, high))
    if point is not None and not _transcript_counts(found, point):
        # Without it, the highest each could be when nothing is heard, else the lowest (the one heard).
        nothing = all(high < point(heard) for _, heard, _, _, high in found)
        return [Weighed(item, heard, high if nothing else low) for item, heard, _, low, high in found]
    free = transcript()
    heard_free = (free.text, free.mean)
    return [
        Weighed(item, heard, model.probability(features(item, look, heard_free))) for item, heard, model, _, _ in found
    ]


def _transcript_counts(
    found: Sequence[tuple[Scored, Heard, Model, float, float]], point: Callable[[Heard], float]
) -> bool:
    """Whether the free transcript could change the decision: whether anything is heard, and which
    candidate (each candidate's probability lies between its low and its high)."""
    if all(low == high for *_, low, high in found):
        return False
    if all(high < point(heard) for _, heard, _, _, high in found):
        return False  # nothing is heard, whatever the transcript says
    first = max(range(len(found)), key=lambda n: found[n][3])
    _, heard, _, low, _ = found[first]
    if any(other[4] > low for n, other in enumerate(found) if n != first):
        return True
    return low < point(heard)

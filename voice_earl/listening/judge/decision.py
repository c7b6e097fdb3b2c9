"""The judge's decision, from the candidates' scores: which phrase was heard, if any, and why.

Kept apart from the model (:mod:`voice_earl.listening.judge.whisper`) so that a decision can be
replayed on kept scores (``tests/data/judge_corpus.npz``, ``scripts/judge_replay.py``). The judge
decides by its rules (:mod:`voice_earl.listening.judge.rules`, the default) or by the trained verifier
(:mod:`voice_earl.listening.judge.verifier_decision`, ``JudgeSettings(verifier=True)``); docs/listening.md
names every rule, its setting and why it is there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from voice_earl.listening.judge.candidates import Candidate, Heard, Kind, heard_as
from voice_earl.listening.judge.rules import clears, decide_by_rules, fell_away, sure_line_by_rules
from voice_earl.listening.judge.scores import Decision, JudgeResult, Scored, Slot, Transcript
from voice_earl.listening.judge.settings import JudgeSettings
from voice_earl.listening.judge.verifier import Verifier
from voice_earl.listening.judge.verifier_decision import decide_by_verifier

__all__ = [
    "Decision",
    "JudgeResult",
    "JudgeSettings",
    "Scored",
    "Slot",
    "Transcript",
    "decide",
    "fell_away",
    "heard_where_voice_fell_away",
    "sure_line",
    "voice_stopped",
]


def decide(
    scored: Sequence[Scored],
    slots: Mapping[Candidate, Slot],
    settings: JudgeSettings,
    transcript: Callable[[], Transcript],
    first_pass: str = "",
    due_position: int | None = None,
    loud_room: bool = False,
    verifier: Verifier | None = None,
    exact: bool = False,
    held: bool = False,
) -> Decision:
    """The phrase heard ("" for none of these), the candidate that decided, and why: by the rules, or
    with ``settings.verifier`` (or a ``verifier`` given) by the trained verifier. ``transcript`` gives
    Whisper's free transcript; it is asked for only when it could change the decision (``exact``:
    with the verifier, always, so that its probabilities are exact too). ``held``: a whole held
    utterance, which the rules do not ask to be said alone."""
    if settings.verifier or verifier is not None:
        return decide_by_verifier(
            scored, slots, settings, transcript, first_pass, due_position, loud_room, verifier, exact
        )
    return decide_by_rules(scored, slots, settings, transcript, first_pass, due_position, held)


def heard_where_voice_fell_away(result: JudgeResult, settings: JudgeSettings) -> bool:
    """Whether a phrase was heard and the voice fell away where it ends: then it is taken at once. By
    the rules, it must have been heard on the judge's own evidence (not only because the first pass
    heard it too), and a line must be clearly likelier than in a quiet room (its gain clears
    ``line_gain``): talk ends too ("as good as new"), and a line scored near the floor must wait for
    the whole of it."""

    def own_evidence(item: Scored) -> bool:
        if settings.verifier:
            return True
        line_clear = item.candidate.kind is not Kind.LINE or item.gain >= settings.line_gain
        return line_clear and clears(item, settings, result.position, result.slots.get(item.candidate))

    return result.heard and any(
        fell_away(item, settings) and own_evidence(item)
        for item in result.scored
        if item.candidate.phrase == result.phrase
    )


def sure_line(item: Scored, result: JudgeResult, settings: JudgeSettings) -> bool:
    """Whether ``item`` is the line due with a rank due that may be taken before the whole speech is
    weighed (:meth:`~voice_earl.listening.judge.whisper.WhisperJudge.stopped_after`): by the rules,
    one that clears the line floor on its mean; by the verifier, the one heard."""
    slot = result.slots.get(item.candidate)
    if not settings.verifier:
        return sure_line_by_rules(item, result.position, slot, settings)
    due = heard_as(item.candidate, slot is None or slot.due, result.position) is Heard.LINE
    return result.heard and item.candidate.kind is Kind.LINE and due


def voice_stopped(scored: Sequence[Scored], settings: JudgeSettings) -> Scored | None:
    """The likeliest pass or command (with the bonus per token) after which the voice fell away."""
    stopped = [item for item in scored if item.candidate.kind is not Kind.LINE and fell_away(item, settings)]
    return max(stopped, key=lambda item: item.logprob + settings.token_bonus * item.tokens, default=None)

"""Rules profiles: every point the rule texts leave open is a field here.

The texts live in ``docs/rules/``: ``README.md`` (the project's rulings),
``hoyle-profile.en.txt`` (Foster's Complete Hoyle, the default) and
``parlour-rules.en.txt`` (with its Dutch and Italian translations).

>>> HOYLE.max_players, PARLOUR.max_players
(6, 13)
>>> profile_by_name("parlour").with_changes(silent=True).chant_forfeit_applies
False
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass

from voice_earl.errors import UsageError


class Scoring(enum.Enum):
    """How a deal is scored."""

    NOTIONAL = "notional"  # hoyle-profile 05: 1 unit per card left, totals may go negative
    VICTORY = "victory"  # parlour Scoring: simple victory, count round wins (the default there)
    COUNTERS = "counters"  # parlour Scoring: counters from a starting stack, paid up to what one has


class MatchEnd(enum.Enum):
    """When a parlour counters match ends (parlour Scoring, "Match winner")."""

    ROUNDS = "rounds"  # after an agreed number of rounds; highest stack wins
    ELIMINATION = "elimination"  # when one player alone holds counters


class DeckMode(enum.Enum):
    """Where the laptop stands (rules README, "Where the laptop stands")."""

    VIRTUAL = "virtual"  # the laptop deals: every hand is known, every rule enforced
    PHYSICAL = "physical"  # a real pack: only hand sizes are known, passes taken on trust


@dataclass(frozen=True)
class RulesProfile:
    """A frozen set of rulings. Each field's comment cites the text it comes from."""

    name: str
    # hoyle-profile 02 "Play with 3-6"; README: parlour "2 to 13 players".
    min_players: int
    max_players: int
    # README parlour: "Above 8 the game still runs, with a notice that it will be crowded."
    crowded_above: int | None
    # parlour Gameplay 7 + README parlour: a bungled chant takes the card back, turn moves on.
    # hoyle-profile 04: "Stumbling over a formula does not make you take cards back."
    chant_forfeit: bool
    # parlour Gameplay 8 + README parlour: an illegal play is taken back, the right player resumes.
    illegal_takeback: bool
    # parlour Gameplay 5 + README parlour: the last player of a rank that cannot be completed leads anew.
    relead_stuck_rank: bool
    # hoyle-profile 05 (notional) / parlour Scoring (victory by default, counters optional).
    scoring: Scoring
    # hoyle-profile 05: "series is 6 deals"; parlour: rounds agreed by the table (None = until stopped).
    series_deals: int | None
    # parlour Scoring: "Everyone starts with the same stack, 20 by default."
    starting_stack: int = 20
    # parlour Scoring: after an agreed number of rounds, or elimination style.
    match_end: MatchEnd = MatchEnd.ROUNDS
    # parlour Winning, "Tie-breakers": tied players play one extra round among themselves.
    tie_break_round: bool = False
    # README "Both profiles": the formulas; parlour Variations: Snip Snap Snorum, Hiccup / Earl's Court.
    chant: str = "earl"
    # parlour Variations, Silent Earl: no chants and no chant forfeit.
    silent: bool = False
    # parlour Variations, Forfeit Earl: a bungled chant or a misplay costs 1 counter into a kitty.
    forfeit_kitty: bool = False
    # parlour Variations: open or closed hands.
    open_hands: bool = False

    @property
    def chant_forfeit_applies(self) -> bool:
        """The forfeit is dropped in Silent Earl (parlour Gameplay 7)."""
        return self.chant_forfeit and not self.silent

    @property
    def keeps_stacks(self) -> bool:
        return self.scoring is Scoring.COUNTERS or self.forfeit_kitty

    def with_changes(self, **changes: object) -> RulesProfile:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def check_players(self, count: int) -> None:
        """Refuse a player count the profile does not allow, with a clear message."""
        if not self.min_players <= count <= self.max_players:
            raise UsageError(
                f"the {self.name} profile is for {self.min_players} to {self.max_players} players, not {count}"
            )

    def check_chant_errors(self, rate: float) -> None:
        """Refuse bots that say the wrong line at ``rate`` where every such card is taken back and none could
        ever stay played: no deal would end."""
        if rate >= 1 and self.chant_forfeit_applies:
            raise UsageError(
                f"a chant error rate of {rate:g} under the {self.name} profile takes every card back, so no deal"
                " could end: use a rate below 1"
            )

    def is_crowded(self, count: int) -> bool:
        return self.crowded_above is not None and count > self.crowded_above


HOYLE = RulesProfile(
    name="hoyle",
    min_players=3,
    max_players=6,
    crowded_above=None,
    chant_forfeit=False,
    illegal_takeback=False,
    relead_stuck_rank=False,
    scoring=Scoring.NOTIONAL,
    series_deals=6,
)

PARLOUR = RulesProfile(
    name="parlour",
    min_players=2,
    max_players=13,
    crowded_above=8,
    chant_forfeit=True,
    illegal_takeback=True,
    relead_stuck_rank=True,
    scoring=Scoring.VICTORY,
    series_deals=None,
    tie_break_round=True,
)

PROFILES: dict[str, RulesProfile] = {p.name: p for p in (HOYLE, PARLOUR)}


def profile_by_name(name: str) -> RulesProfile:
    try:
        return PROFILES[name]
    except KeyError:
        raise UsageError(f"unknown profile {name!r}: use one of {', '.join(PROFILES)}") from None


def profile_to_dict(profile: RulesProfile) -> dict[str, object]:
    """Every field as plain JSON values (enums by value), for saved series.

    >>> profile_from_dict(profile_to_dict(PARLOUR)) == PARLOUR
    True
    """
    return {
        f.name: (value.value if isinstance(value, enum.Enum) else value)
        for f in dataclasses.fields(profile)
        for value in [getattr(profile, f.name)]
    }


def profile_from_dict(data: dict[str, object]) -> RulesProfile:
    """The inverse of :func:`profile_to_dict`; unknown keys are refused."""
    known = {f.name for f in dataclasses.fields(RulesProfile)}
    unknown = set(data) - known
    if unknown:
        raise ValueError(f"unknown rules field(s): {', '.join(sorted(unknown))}")
    values: dict[str, object] = dict(data)
    values["scoring"] = Scoring(values["scoring"])
    if "match_end" in values:
        values["match_end"] = MatchEnd(values["match_end"])
    return RulesProfile(**values)  # type: ignore[arg-type]

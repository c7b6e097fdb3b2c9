"""The game log: engine events as JSON Lines (``docs/game-log.md``), and replay from it.

>>> from voice_earl.game.cards import Card, Rank
>>> from voice_earl.game.events import Led
>>> record = to_record(Led(deal=1, player=0, rank=Rank.QUEEN, card=Card.parse("QS")))
>>> record["event"], record["card"], record["position"], record["line"]
('lead', 'QS', 1, "There's as good as Queen can be")
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from voice_earl.game.cards import Card, Rank
from voice_earl.game.chants import EARL, ChantSet
from voice_earl.game.events import (
    DealStarted,
    Event,
    Forfeited,
    FullCircle,
    Led,
    Misplayed,
    Passed,
    Penalised,
    Played,
    QuartetCompleted,
    SeriesEnded,
    Settled,
    Won,
)
from voice_earl.game.moves import Action, Lead, Misplay, Pass, Play
from voice_earl.game.rules import DeckMode, RulesProfile
from voice_earl.game.series import Series

Record = dict[str, Any]


def _card(card: Card | None) -> str | None:
    return str(card) if card is not None else None


def to_record(event: Event, chant: ChantSet = EARL) -> Record:
    """One event as a game-log object (``event`` first, then the fields the log lists)."""
    if isinstance(event, DealStarted):
        return _deal_record(event)
    if isinstance(event, Led | Played):
        return _card_record(event, chant)
    if isinstance(event, SeriesEnded):
        return _series_record(event)
    return _move_record(event)


def _deal_record(event: DealStarted) -> Record:
    record: Record = {"event": "deal", "deal": event.deal, "dealer": event.dealer, "players": list(event.players)}
    if event.hands is not None:
        record["hands"] = [[str(c) for c in hand] for hand in event.hands]
    record["hand_sizes"] = list(event.hand_sizes)
    record["seated"] = list(event.seated)
    return record


def _card_record(event: Led | Played, chant: ChantSet) -> Record:
    """A card led or played, with the line its position called for."""
    record: Record = {
        "event": "lead" if isinstance(event, Led) else "play",
        "deal": event.deal,
        "player": event.player,
        "card": _card(event.card),
        "rank": event.rank.value,
        "position": event.position,
        "line": chant.line(event.position, event.rank),
    }
    if not event.chant_ok:
        record["chant"] = "bungled"
    return record


def _series_record(event: SeriesEnded) -> Record:
    record: Record = {"event": "series", "totals": list(event.totals), "places": list(event.places)}
    if event.tie_break_winner is not None:
        record["tie_break_winner"] = event.tie_break_winner
    return record


def _move_record(event: Event) -> Record:
    """The events of a deal that take a single object of their fields."""
    if isinstance(event, Passed):
        return {"event": "pass", "deal": event.deal, "player": event.player}
    if isinstance(event, Forfeited):
        return {
            "event": "forfeit",
            "deal": event.deal,
            "player": event.player,
            "card": _card(event.card),
            "rank": event.rank.value,
        }
    if isinstance(event, Penalised):
        return {"event": "penalty", "deal": event.deal, "player": event.player, "reason": event.reason}
    if isinstance(event, Misplayed):
        return {"event": "misplay", "deal": event.deal, "player": event.player}
    if isinstance(event, QuartetCompleted):
        return {"event": "quartet", "deal": event.deal, "player": event.player, "rank": event.rank.value}
    if isinstance(event, FullCircle):
        return {
            "event": "full_circle",
            "deal": event.deal,
            "rank": event.rank.value,
            "last_player": event.last_player,
            "relead": event.relead,
        }
    if isinstance(event, Won):
        return {"event": "win", "deal": event.deal, "player": event.player, "cards_left": list(event.cards_left)}
    if isinstance(event, Settled):
        return {"event": "settle", "deal": event.deal, "payments": list(event.payments), "totals": list(event.totals)}
    raise TypeError(f"not an event: {event!r}")


def to_line(record: Mapping[str, Any]) -> str:
    """One compact JSON line."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


class ReplayError(ValueError):
    """A log that the rules do not allow, or that does not match the series it claims."""


def actions_of(records: Sequence[Mapping[str, Any]]) -> list[tuple[int, Action]]:
    """The player actions in a log, with the index of the record each comes from.

    A ``lead``/``play`` marked ``"chant": "bungled"``, or followed by a ``forfeit`` or a chant
    ``penalty`` of the same player, becomes an action with ``chant_ok=False``.
    """
    actions: list[tuple[int, Action]] = []
    for i, record in enumerate(records):
        kind = record.get("event")
        if kind in ("lead", "play"):
            bungled = record.get("chant") == "bungled" or _followed_by_bungle(records, i)
            card = Card.parse(record["card"]) if record.get("card") else None
            rank = card.rank if card is not None else Rank.parse(str(record["rank"]))
            if kind == "lead":
                actions.append((i, Lead(record["player"], rank, card, chant_ok=not bungled)))
            else:
                actions.append((i, Play(record["player"], card, chant_ok=not bungled)))
        elif kind == "pass":
            actions.append((i, Pass(record["player"])))
        elif kind == "misplay":
            actions.append((i, Misplay(record["player"])))
    return actions


def _followed_by_bungle(records: Sequence[Mapping[str, Any]], i: int) -> bool:
    player = records[i].get("player")
    for later in records[i + 1 : i + 3]:
        if later.get("player") != player:
            return False
        if later.get("event") == "forfeit" or (later.get("event") == "penalty" and later.get("reason") == "chant"):
            return True
    return False


def replay(
    records: Iterable[Mapping[str, Any]],
    profile: RulesProfile,
    *,
    deck: DeckMode = DeckMode.VIRTUAL,
    seed: int | None = None,
    deals: int | None = None,
) -> Series:
    """Rebuild a series by applying a log's actions through the engine.

    With the series' ``seed`` the shuffles are drawn again and must give the logged hands,
    so the random state after replay is the one an uninterrupted series would have.
    Raises :class:`ReplayError` for a log the rules do not allow.
    """
    items = list(records)
    series: Series | None = None
    action_at = dict(actions_of(items))
    for i, record in enumerate(items):
        if record.get("event") == "deal":
            series = _replay_deal_start(series, record, profile, deck, seed, deals)
        elif i in action_at:
            if series is None:
                raise ReplayError(f"line {i + 1}: a move before any deal")
            try:
                series.apply(action_at[i])
            except ValueError as error:
                raise ReplayError(f"line {i + 1}: {error}") from None
    if series is None:
        raise ReplayError("the log holds no deal")
    return series


def _replay_deal_start(
    series: Series | None,
    record: Mapping[str, Any],
    profile: RulesProfile,
    deck: DeckMode,
    seed: int | None,
    deals: int | None,
) -> Series:
    if series is None:
        rng = random.Random(seed)
        series = Series(profile, record["players"], rng=rng, deck=deck, deals=deals, first_dealer=record["dealer"])
    logged = record.get("hands")
    hands = [[Card.parse(c) for c in hand] for hand in logged] if logged is not None else None
    deal = series.start_deal(hands=None if seed is not None else hands)
    if deal.dealer != record["dealer"]:
        raise ReplayError(f"deal {record['deal']}: the log says dealer {record['dealer']}, the rules say {deal.dealer}")
    if seed is not None and hands is not None and [list(h) for h in deal.initial_hands or ()] != hands:
        raise ReplayError(f"deal {record['deal']}: the logged hands are not the ones seed {seed} deals")
    return series

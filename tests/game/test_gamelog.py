"""The game log (docs/game-log.md): records, JSON lines, and replay through the engine."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from voice_earl.game.cards import Card, Rank
from voice_earl.game.chants import SNIP_SNAP_SNORUM, ChantSet
from voice_earl.game.engine import Deal
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
from voice_earl.game.gamelog import ReplayError, actions_of, replay, to_line, to_record
from voice_earl.game.moves import Lead, Misplay, Pass, Play
from voice_earl.game.rules import HOYLE, PARLOUR, DeckMode, RulesProfile, Scoring
from voice_earl.game.series import Series
from voice_earl.game.simulate import SimulationSettings, simulate

QS, QH = Card.parse("QS"), Card.parse("QH")


def logged(settings: SimulationSettings) -> list[dict[str, Any]]:
    """A simulated series' log, through JSON text and back."""
    lines: list[str] = []
    simulate(settings, lambda event: lines.append(to_line(to_record(event))))
    return [json.loads(line) for line in lines]


# ---------------------------------------------------------------------------- records


def test_a_deal_record_has_the_dealer_the_players_and_the_hands_in_the_order_dealt() -> None:
    hands = ((QS, Card.parse("10H")), (QH,))
    record = to_record(DealStarted(2, 1, ("Ann", "Ben"), (0, 1), hands, (2, 1)))
    assert record["event"] == "deal"
    assert record["deal"] == 2 and record["dealer"] == 1 and record["players"] == ["Ann", "Ben"]
    assert record["hands"] == [["QS", "10H"], ["QH"]]


def test_a_physical_deal_record_has_hand_sizes_instead_of_hands() -> None:
    record = to_record(Deal.physical(HOYLE, 3, dealer=0).started_event())
    assert "hands" not in record
    assert record["hand_sizes"] == [17, 18, 17]


def test_lead_and_play_records_carry_the_position_and_the_line_due() -> None:
    lead = to_record(Led(1, 0, Rank.QUEEN, QS))
    assert lead == {
        "event": "lead",
        "deal": 1,
        "player": 0,
        "card": "QS",
        "rank": "Q",
        "position": 1,
        "line": "There's as good as Queen can be",
    }
    play = to_record(Played(1, 1, Rank.QUEEN, QH, 2))
    assert (play["event"], play["card"], play["position"]) == ("play", "QH", 2)
    assert play["line"] == "There's a Queen as good as he"
    assert to_record(Played(1, 2, Rank.QUEEN, None, 3))["line"] == "There's the best of all the three"
    assert to_record(Played(1, 2, Rank.QUEEN, None, 4))["line"] == "And there's the Earl of Coventry"
    assert to_record(Played(1, 2, Rank.TEN, Card.parse("10D"), 3))["card"] == "10D"


def test_a_bungled_chant_is_marked() -> None:
    assert to_record(Played(1, 1, Rank.QUEEN, QH, 2, chant_ok=False))["chant"] == "bungled"
    assert "chant" not in to_record(Played(1, 1, Rank.QUEEN, QH, 2))


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        (Passed(1, 2), {"event": "pass", "deal": 1, "player": 2}),
        (Forfeited(1, 2, Rank.QUEEN, QH), {"event": "forfeit", "deal": 1, "player": 2, "card": "QH"}),
        (QuartetCompleted(3, 0, Rank.TEN), {"event": "quartet", "deal": 3, "player": 0, "rank": "10"}),
        (Won(1, 1, (3, 0, 5)), {"event": "win", "deal": 1, "player": 1, "cards_left": [3, 0, 5]}),
        (
            Settled(1, (-3, 8, -5), (-3, 8, -5)),
            {"event": "settle", "deal": 1, "payments": [-3, 8, -5], "totals": [-3, 8, -5]},
        ),
        (SeriesEnded((5, 3, 3, 1), (1, 2, 2, 4)), {"event": "series", "totals": [5, 3, 3, 1], "places": [1, 2, 2, 4]}),
        (Penalised(1, 2, "misplay"), {"event": "penalty", "deal": 1, "player": 2, "reason": "misplay"}),
        (Misplayed(1, 2), {"event": "misplay", "deal": 1, "player": 2}),
        (FullCircle(1, Rank.QUEEN, 0, True), {"event": "full_circle", "deal": 1, "rank": "Q"}),
    ],
)
def test_every_event_has_the_fields_the_log_lists(event: Event, expected: dict[str, Any]) -> None:
    record = to_record(event)
    assert {key: record[key] for key in expected} == expected
    assert next(iter(record)) == "event"


def test_a_tie_break_is_named_in_the_series_record() -> None:
    assert to_record(SeriesEnded((0, 1, 1), (3, 1, 2), tie_break_winner=1))["tie_break_winner"] == 1


def test_anything_else_is_not_an_event() -> None:
    with pytest.raises(TypeError):
        to_record(Pass(1))  # type: ignore[arg-type]


def test_a_line_is_compact_json_on_one_line() -> None:
    line = to_line(to_record(Led(1, 0, Rank.QUEEN, QS)))
    assert "\n" not in line and ", " not in line and line.startswith('{"event":"lead"')
    assert json.loads(line)["line"] == "There's as good as Queen can be"


# ---------------------------------------------------------------------------- actions


def test_actions_of_reads_moves_and_bungled_chants() -> None:
    records: list[dict[str, Any]] = [
        {"event": "deal", "deal": 1, "dealer": 2, "players": ["A", "B", "C"]},
        {"event": "lead", "deal": 1, "player": 0, "card": "QS", "position": 1},
        {"event": "play", "deal": 1, "player": 1, "card": "QH", "position": 2},
        {"event": "forfeit", "deal": 1, "player": 1, "card": "QH"},
        {"event": "pass", "deal": 1, "player": 2},
        {"event": "play", "deal": 1, "player": 0, "card": None, "rank": "Q", "position": 2},
        {"event": "misplay", "deal": 1, "player": 2},
    ]
    assert actions_of(records) == [
        (1, Lead(0, Rank.QUEEN, QS)),
        (2, Play(1, QH, chant_ok=False)),
        (4, Pass(2)),
        (5, Play(0, None)),
        (6, Misplay(2)),
    ]


# ---------------------------------------------------------------------------- replay


def final_state(series: Series) -> tuple[object, ...]:
    deal = series.deal
    assert deal is not None
    hands = tuple(tuple(hand) for hand in deal.hands) if deal.hands is not None else None
    return (
        hands,
        tuple(deal.sizes),
        deal.winner,
        tuple(series.totals),
        series.places,
        series.deals_played,
        series.over,
    )


@pytest.mark.parametrize(
    ("profile", "players", "chant_errors"),
    [(HOYLE, 4, 0.0), (HOYLE, 3, 0.2), (PARLOUR, 5, 0.3), (PARLOUR.with_changes(scoring=Scoring.COUNTERS), 2, 0.2)],
    ids=["hoyle", "hoyle-bungles", "parlour-forfeits", "parlour-counters"],
)
@pytest.mark.parametrize("with_seed", [True, False], ids=["seed", "no-seed"])
def test_a_simulated_log_replays_to_the_same_series(
    profile: RulesProfile, players: int, chant_errors: float, with_seed: bool
) -> None:
    settings = SimulationSettings(
        players=players, deals=3, seed=42, profile=profile, strategies=("most", "random"), chant_errors=chant_errors
    )
    records = logged(settings)
    result = simulate(settings)
    series = replay(records, profile, seed=42 if with_seed else None, deals=3)
    assert series.over
    assert series.totals == [seat.total for seat in result.seats]
    assert series.places == result.places
    assert series.deals_played == result.deals_played
    win = [r for r in records if r["event"] == "win"][-1]
    assert series.deal is not None and series.deal.winner == win["player"]
    assert list(series.deal.sizes) == win["cards_left"]


def test_replay_with_the_seed_leaves_the_random_state_where_the_series_left_it() -> None:
    settings = SimulationSettings(players=4, deals=2, seed=7)
    records = logged(settings)
    rng = random.Random(7)
    live = Series(HOYLE, ["a", "b", "c", "d"], rng=rng, deals=2)
    hands_dealt = []
    for _ in range(2):
        deal = live.start_deal()
        hands_dealt.append([[str(card) for card in hand] for hand in deal.hands or []])
        while not deal.over:
            live.apply(deal.legal_actions()[0])
    assert hands_dealt == [r["hands"] for r in records if r["event"] == "deal"]
    replayed = replay(records, HOYLE, seed=7, deals=2)
    assert replayed.rng.getstate() == rng.getstate()


def test_replay_refuses_an_illegal_move_naming_the_line() -> None:
    records = logged(SimulationSettings(players=4, deals=1, seed=3))
    play = next(i for i, r in enumerate(records) if r["event"] == "play")
    lead = next(r for r in records if r["event"] == "lead")
    records[play] = dict(records[play], card=lead["card"])  # a card already on the table
    with pytest.raises(ReplayError, match=f"line {play + 1}: "):
        replay(records, HOYLE)


def test_replay_refuses_a_move_out_of_turn() -> None:
    records = logged(SimulationSettings(players=4, deals=1, seed=3))
    passed = next(i for i, r in enumerate(records) if r["event"] == "pass")
    records[passed] = dict(records[passed], player=(records[passed]["player"] + 1) % 4)
    with pytest.raises(ReplayError, match="turn"):
        replay(records, HOYLE)


def test_replay_refuses_a_dealer_the_rules_did_not_give() -> None:
    records = logged(SimulationSettings(players=4, deals=2, seed=3))
    second = [i for i, r in enumerate(records) if r["event"] == "deal"][1]
    records[second] = dict(records[second], dealer=(records[second]["dealer"] + 2) % 4)
    with pytest.raises(ReplayError, match="dealer"):
        replay(records, HOYLE, deals=2)


def test_replay_with_another_seed_refuses_the_logged_hands() -> None:
    records = logged(SimulationSettings(players=4, deals=1, seed=3))
    with pytest.raises(ReplayError, match="seed 4"):
        replay(records, HOYLE, seed=4)


def test_replay_refuses_a_log_without_a_deal() -> None:
    with pytest.raises(ReplayError, match="no deal"):
        replay([], HOYLE)
    with pytest.raises(ReplayError, match="before any deal"):
        replay([{"event": "pass", "deal": 1, "player": 0}], HOYLE)


def test_a_physical_deck_log_replays() -> None:
    series = Series(PARLOUR, ["Ann", "Ben", "Cy"], rng=random.Random(1), deck=DeckMode.PHYSICAL, first_dealer=2)
    deal = series.start_deal()
    records = [to_record(deal.started_event())]
    moves: list[Lead | Play | Pass | Misplay] = [
        Lead(0, Rank.QUEEN),
        Play(1, chant_ok=False),
        Misplay(2),
        Pass(2),
        Pass(0),
        Play(1),
        Pass(2),
        Pass(0),
        Pass(1),
        Lead(1, Rank.TWO),
    ]
    for action in moves:
        records += [json.loads(to_line(to_record(event))) for event in series.apply(action)]
    assert any(r["event"] == "full_circle" for r in records)
    assert any(r["event"] == "forfeit" for r in records)
    replayed = replay(records, PARLOUR, deck=DeckMode.PHYSICAL)
    assert replayed.deal is not None
    assert replayed.deal.sizes == deal.sizes and replayed.deal.turn == deal.turn
    assert replayed.deal.history == deal.history


def test_a_bungled_chant_that_costs_nothing_still_replays_as_bungled() -> None:
    series = Series(HOYLE, ["Ann", "Ben", "Cy"], rng=random.Random(1), deals=1, first_dealer=2)
    deal = series.start_deal(hands=[[QS, Card.parse("2C")], [QH, Card.parse("3C")], [Card.parse("4C")]])
    records = [to_record(deal.started_event())]
    for action in (Lead(0, Rank.QUEEN, QS, chant_ok=False), Play(1, QH, chant_ok=False), Pass(2)):
        records += [to_record(event) for event in series.apply(action)]
    assert [r.get("chant") for r in records[1:]] == ["bungled", "bungled", None]
    replayed = replay(records, HOYLE, deals=1)
    assert replayed.deal is not None and replayed.deal.history == deal.history


def test_snip_snap_snorum_names_the_rank_then_snip_snap_snorum() -> None:
    lines = [to_record(Led(1, 0, Rank.QUEEN, QS), SNIP_SNAP_SNORUM)["line"]]
    lines += [to_record(Played(1, 1, Rank.QUEEN, QH, p), SNIP_SNAP_SNORUM)["line"] for p in (2, 3, 4)]
    assert lines == ["Queen", "Snip", "Snap", "Snorum"]
    assert "Snorem" in SNIP_SNAP_SNORUM.accepted(4, Rank.QUEEN)


def test_a_table_s_own_wording_goes_into_the_log() -> None:
    hiccup = ChantSet("hiccup", ("Here's a {rank} as fine as can be", "Another {rank}", "Three of a kind", "The Earl"))
    assert to_record(Led(1, 0, Rank.SEVEN, Card.parse("7D")), hiccup)["line"] == "Here's a Seven as fine as can be"
    assert to_record(Played(1, 1, Rank.SEVEN, None, 4), hiccup)["line"] == "The Earl"

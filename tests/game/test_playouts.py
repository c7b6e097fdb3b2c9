"""Randomized playouts: every player count, both profiles, virtual and physical decks.

Each playout checks, at every step: the 52 cards are conserved; the engine accepts exactly the
actions legal_actions() offers (every card of every seat, passes and leads by every seat are
tried) and a refused action changes nothing. Each deal ends with exactly one winner, every
settlement sums to zero, and the game log replays to the same series, with and without the seed.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voice_earl.game.cards import RANKS, Card, Rank, full_deck
from voice_earl.game.engine import Deal
from voice_earl.game.events import Event, Forfeited, Led, Played, SeriesEnded, Settled, Won
from voice_earl.game.gamelog import replay, to_line, to_record
from voice_earl.game.moves import Action, IllegalAction, Lead, Pass, Play, deal_hands
from voice_earl.game.rules import HOYLE, PARLOUR, DeckMode, RulesProfile, Scoring
from voice_earl.game.series import Series, competition_places

DECK = full_deck()
NAMES = tuple(f"P{seat}" for seat in range(13))
PROFILES = {
    "hoyle": HOYLE,
    "parlour": PARLOUR,
    "parlour-counters-kitty": PARLOUR.with_changes(scoring=Scoring.COUNTERS, forfeit_kitty=True),
    "parlour-silent-open": PARLOUR.with_changes(silent=True, open_hands=True),
    "hoyle-kitty": HOYLE.with_changes(forfeit_kitty=True),
}
STEP_LIMIT = 20_000


@dataclass(frozen=True)
class Table:
    profile: RulesProfile
    players: int
    deck: DeckMode
    seed: int
    deals: int = 1
    lie: float = 0.0  # physical deck: chance that a holder passes anyway
    bungle: float = 0.0  # chance that a formula is bungled
    check_every: int = 1  # try every possible action at every n-th step (0: never)


# ---------------------------------------------------------------------------- checks


def snapshot(deal: Deal) -> tuple[object, ...]:
    hands = tuple(tuple(hand) for hand in deal.hands) if deal.hands is not None else None
    return (
        hands,
        tuple(deal.sizes),
        tuple(deal.out),
        deal.rank,
        deal.in_quartet,
        deal.last_player,
        deal.passes,
        deal.winner,
        deal.turn,
        len(deal.history),
        deal.finished_ranks(),
    )


def candidate_actions(deal: Deal) -> list[Action]:
    """Every action anyone could try: every seat (and one that is not at the table)."""
    actions: list[Action] = []
    for seat in range(deal.player_count + 1):
        actions.append(Pass(seat))
        if deal.hands is None:
            actions.append(Play(seat))
            actions.extend(Lead(seat, rank) for rank in RANKS)
        else:
            for card in DECK:
                actions.append(Play(seat, card))
                actions.append(Lead(seat, card.rank, card))
            actions.append(Play(seat))  # a virtual deck needs the card
            actions.append(Lead(seat, Rank.ACE))
            actions.append(Lead(seat, Rank.KING, DECK[0]))  # a lead naming another rank than its card's
    return actions


def check_every_action(deal: Deal) -> None:
    legal = deal.legal_actions()
    assert legal, "a deal that is not over must offer a move"
    assert all(action.player == deal.turn for action in legal)
    offered = set(legal)
    candidates = candidate_actions(deal)
    assert offered <= set(candidates)
    before = snapshot(deal)
    for action in candidates:
        if action in offered:
            deal.replayed(deal.history).apply(action)  # accepted (on a copy)
            continue
        try:
            deal.apply(action)
        except IllegalAction:
            continue
        raise AssertionError(f"accepted an action not offered: {action}")
    assert snapshot(deal) == before, "a refused action changed the deal"


def check_virtual_cards(deal: Deal, table: Counter[Card]) -> None:
    """Hands + cards on the table (open quartets and finished ones) = the 52 cards, once each."""
    assert deal.hands is not None
    in_hands = [card for hand in deal.hands for card in hand]
    assert len(in_hands) + sum(table.values()) == 52
    assert set(in_hands) | set(table) == set(DECK) and not set(in_hands) & set(table)
    assert max(table.values(), default=1) == 1
    assert deal.sizes == [len(hand) for hand in deal.hands]
    for rank in RANKS:
        assert deal.out[rank.index] == sum(1 for card in table if card.rank is rank)
    assert deal.finished_ranks() == tuple(rank for rank in RANKS if deal.out[rank.index] == 4)


def check_physical_cards(deal: Deal, true_hands: list[list[Card]]) -> None:
    assert deal.sizes == [len(hand) for hand in true_hands]  # the referee counts each hand down
    assert sum(deal.sizes) + sum(deal.out) == 52


# ---------------------------------------------------------------------------- the playout


def choose(deal: Deal, true_hands: list[list[Card]], table: Table, rng: random.Random) -> tuple[Action, Card | None]:
    """A random legal move, and the real card it puts down (the physical deck's players know it)."""
    seat = deal.turn
    if deal.hands is not None:
        action = rng.choice(deal.legal_actions())
        card = action.card if isinstance(action, Lead | Play) else None
    elif deal.rank is None:
        card = rng.choice(true_hands[seat])
        action = Lead(seat, card.rank)
    else:
        holding = [c for c in true_hands[seat] if c.rank is deal.rank]
        if holding and rng.random() >= table.lie:
            card = holding[0]
            action = Play(seat)
        else:
            card, action = None, Pass(seat)  # honest, or a lie the referee takes on trust
    if isinstance(action, Lead) and rng.random() < table.bungle:
        action = Lead(seat, action.rank, action.card, chant_ok=False)
    elif isinstance(action, Play) and rng.random() < table.bungle:
        action = Play(seat, action.card, chant_ok=False)
    return action, card


def play_deal(series: Series, table: Table, rng: random.Random, records: list[dict[str, Any]]) -> list[Event]:
    deal = series.start_deal()
    records.append(to_record(deal.started_event()))
    shuffled = list(DECK)
    rng.shuffle(shuffled)
    true_hands = (
        [list(h) for h in deal.hands] if deal.hands else deal_hands(shuffled, table.players, deal.dealer, deal.seated)
    )
    on_table: Counter[Card] = Counter()
    events: list[Event] = []
    for step in range(STEP_LIMIT):
        if deal.over:
            break
        if table.check_every and step % table.check_every == 0:
            check_every_action(deal)
        action, card = choose(deal, true_hands, table, rng)
        new = series.apply(action)
        events.extend(new)
        records.extend(to_record(event) for event in new)
        taken_back = any(isinstance(event, Forfeited) for event in new)
        if any(isinstance(event, Led | Played) for event in new) and not taken_back:
            assert card is not None
            true_hands[action.player].remove(card)
            on_table[card] += 1
        if deal.hands is not None:
            check_virtual_cards(deal, on_table)
        else:
            check_physical_cards(deal, true_hands)
    else:
        raise AssertionError(f"the deal did not end within {STEP_LIMIT} steps")
    assert deal.legal_actions() == ()
    return events


def check_deal_end(deal: Deal, events: list[Event]) -> None:
    wins = [event for event in events if isinstance(event, Won)]
    assert len(wins) == 1 and wins[0] is events[[isinstance(e, Won) for e in events].index(True)]
    winner = wins[0].player
    assert deal.winner == winner and deal.sizes[winner] == 0
    assert all(deal.sizes[seat] > 0 for seat in deal.seated if seat != winner)  # exactly one winner
    assert list(wins[0].cards_left) == deal.sizes
    for event in events:
        if isinstance(event, Settled):
            assert sum(event.payments) == 0


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
        deal.history,
    )


def run_table(table: Table) -> None:
    series = Series(
        table.profile, NAMES[: table.players], rng=random.Random(table.seed), deck=table.deck, deals=table.deals
    )
    rng = random.Random(f"moves:{table.seed}")
    records: list[dict[str, Any]] = []
    all_events: list[Event] = []
    start = list(series.totals)
    while not series.over:
        events = play_deal(series, table, rng, records)
        assert series.deal is not None
        check_deal_end(series.deal, events)
        all_events.extend(events)
    ended = [event for event in all_events if isinstance(event, SeriesEnded)]
    assert len(ended) == 1 and ended[0].totals == tuple(series.totals)
    if series.tie_break_winner is None:
        assert ended[0].places == competition_places(series.totals)
    if table.profile.scoring is not Scoring.VICTORY:
        paid = [sum(e.payments[seat] for e in all_events if isinstance(e, Settled)) for seat in range(table.players)]
        assert series.totals == [s + p for s, p in zip(start, paid, strict=True)]
    # The log, through JSON text, replays to the same series, with and without the seed.
    logged = [json.loads(to_line(record)) for record in records]
    for seed in (table.seed, None):
        replayed = replay(logged, table.profile, deck=table.deck, seed=seed, deals=table.deals)
        assert final_state(replayed) == final_state(series)


# ---------------------------------------------------------------------------- the tests


@pytest.mark.parametrize(
    ("profile", "players"),
    [(HOYLE, n) for n in range(3, 7)] + [(PARLOUR, n) for n in range(2, 14)],
    ids=[f"hoyle-{n}" for n in range(3, 7)] + [f"parlour-{n}" for n in range(2, 14)],
)
def test_every_player_count_on_a_virtual_deck(profile: RulesProfile, players: int) -> None:
    run_table(
        Table(
            profile,
            players,
            DeckMode.VIRTUAL,
            seed=100 + players,
            deals=2,
            bungle=0.2 if profile is PARLOUR else 0.0,
            check_every=1 if players <= 6 else 3,
        )
    )


@pytest.mark.parametrize(
    ("profile", "players"),
    [(HOYLE, n) for n in range(3, 7)] + [(PARLOUR, n) for n in range(2, 14)],
    ids=[f"hoyle-{n}" for n in range(3, 7)] + [f"parlour-{n}" for n in range(2, 14)],
)
def test_every_player_count_on_a_physical_deck_with_lies(profile: RulesProfile, players: int) -> None:
    run_table(
        Table(
            profile,
            players,
            DeckMode.PHYSICAL,
            seed=200 + players,
            deals=2,
            lie=0.3,
            bungle=0.2 if profile is PARLOUR else 0.0,
        )
    )


@st.composite
def tables(draw: st.DrawFn) -> Table:
    profile = PROFILES[draw(st.sampled_from(sorted(PROFILES)))]
    return Table(
        profile=profile,
        players=draw(st.integers(profile.min_players, profile.max_players)),
        deck=draw(st.sampled_from(DeckMode)),
        seed=draw(st.integers(0, 2**32 - 1)),
        deals=draw(st.integers(1, 3)),
        lie=draw(st.sampled_from([0.0, 0.2, 0.6])),
        bungle=draw(st.sampled_from([0.0, 0.1, 0.5])),
        check_every=7,
    )


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(tables())
def test_random_tables(table: Table) -> None:
    run_table(table)


def test_a_lying_pass_on_a_physical_deck_is_taken_on_trust_and_seen_after_a_full_circle() -> None:
    """A seeded playout where someone lies often enough that full circles occur, under both profiles."""
    for profile in (HOYLE, PARLOUR):
        series = Series(profile, NAMES[:4], rng=random.Random(1), deck=DeckMode.PHYSICAL, deals=1)
        records: list[dict[str, Any]] = []
        events = play_deal(series, Table(profile, 4, DeckMode.PHYSICAL, seed=1, lie=0.6), random.Random(5), records)
        circles = [r for r in records if r["event"] == "full_circle"]
        assert circles and all(r["relead"] is (profile is PARLOUR) for r in circles)
        assert sum(isinstance(e, Won) for e in events) == 1

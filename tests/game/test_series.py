"""Series of deals: dealer rotation, settlement, counters, places (hoyle-profile 05, parlour Scoring)."""

from __future__ import annotations

import random

import pytest

from voice_earl.errors import UsageError
from voice_earl.game.bots import MostStrategy
from voice_earl.game.cards import Card, Rank
from voice_earl.game.events import Event, Forfeited, Penalised, SeriesEnded, Settled, Won
from voice_earl.game.moves import GameOver, Lead, Pass, Play
from voice_earl.game.rules import HOYLE, PARLOUR, DeckMode, MatchEnd, RulesProfile, Scoring
from voice_earl.game.series import Series, competition_places, settle

COUNTERS = PARLOUR.with_changes(scoring=Scoring.COUNTERS)
NAMES = ("Ann", "Ben", "Cy", "Di", "Ed", "Flo")


def cards(text: str) -> list[Card]:
    return [Card.parse(word) for word in text.split()]


def play_deal(series: Series, rng: random.Random) -> list[Event]:
    """Play the current deal to its end with `most` bots; return every event."""
    deal = series.deal
    assert deal is not None
    bot = MostStrategy()
    events: list[Event] = []
    while not deal.over:
        legal = deal.legal_actions()
        events.extend(series.apply(bot.choose(deal.view(deal.turn), legal, rng)))
    return events


def one_card_win(series: Series, hands: list[str]) -> list[Event]:
    """Start a deal with the hands given; the eldest hand leads its first card (its only one, to win)."""
    deal = series.start_deal(hands=[cards(h) for h in hands])
    card = deal.hands[deal.turn][0] if deal.hands is not None else None
    assert card is not None
    return list(series.apply(Lead(deal.turn, card.rank, card)))


# ---------------------------------------------------------------------------- places and settlement


def test_competition_ranking_shares_places() -> None:
    assert competition_places([5, 3, 3, 1]) == (1, 2, 2, 4)
    assert competition_places([8, -3, -5, 8]) == (1, 3, 4, 1)
    assert competition_places([0, 0, 0]) == (1, 1, 1)


def test_the_worked_example_settlement_3_plus_5_is_8() -> None:
    assert settle(HOYLE, 0, [0, 3, 5], [0, 0, 0], [0, 0, 0]) == (8, -3, -5)


def test_notional_settlement_lets_totals_go_negative() -> None:
    assert settle(HOYLE, 2, [4, 9, 0], [-30, 0, 0], [0, 0, 0]) == (-4, -9, 13)


def test_counters_pay_at_most_what_one_has() -> None:
    assert settle(COUNTERS, 0, [0, 30, 5], [20, 20, 3], [0, 0, 0]) == (23, -20, -3)
    assert settle(COUNTERS, 1, [2, 0, 4], [0, 10, 7], [0, 0, 0]) == (0, 4, -4)


def test_the_kitty_is_paid_to_the_winner_with_the_cards() -> None:
    kitty = COUNTERS.with_changes(forfeit_kitty=True)
    assert settle(kitty, 0, [0, 3, 5], [20, 20, 20], [0, 2, 1]) == (11, -5, -6)
    assert settle(kitty, 0, [0, 3, 5], [20, 4, 20], [1, 2, 0]) == (9, -4, -5)  # still capped by the stack


def test_the_worked_example_through_a_series() -> None:
    series = Series(HOYLE, NAMES[:3], rng=random.Random(1), deals=1, first_dealer=2)
    deal = series.start_deal(hands=[cards("QS QC"), cards("QH 2S 3S 4S"), cards("QD 2H 3H 4H 5H 6H")])
    assert deal.turn == 0
    series.apply(Lead(0, Rank.QUEEN, Card.parse("QS")))
    series.apply(Play(1, Card.parse("QH")))
    series.apply(Play(2, Card.parse("QD")))
    events = series.apply(Play(0, Card.parse("QC")))
    assert Settled(1, (8, -3, -5), (8, -3, -5)) in events
    assert events[-1] == SeriesEnded((8, -3, -5), (1, 2, 3))
    assert series.over


# ---------------------------------------------------------------------------- hoyle series


def test_a_hoyle_series_is_six_deals_with_the_dealer_moving_left() -> None:
    rng = random.Random(11)
    series = Series(HOYLE, NAMES[:4], rng=rng, first_dealer=2)
    dealers = []
    settled: list[Settled] = []
    ended: list[SeriesEnded] = []
    while not series.over:
        deal = series.start_deal()
        dealers.append(deal.dealer)
        assert deal.turn == (deal.dealer + 1) % 4  # eldest hand leads
        events = play_deal(series, rng)
        settled += [e for e in events if isinstance(e, Settled)]
        ended += [e for e in events if isinstance(e, SeriesEnded)]
    assert dealers == [2, 3, 0, 1, 2, 3]
    assert series.deals_played == 6 and len(settled) == 6
    assert all(sum(s.payments) == 0 for s in settled)
    assert list(settled[-1].totals) == series.totals
    assert sum(series.totals) == 0 and min(series.totals) < 0  # totals start at 0 and may go negative
    assert ended == [SeriesEnded(tuple(series.totals), competition_places(series.totals))]
    with pytest.raises(GameOver):
        series.start_deal()


def test_a_single_deal_is_allowed() -> None:
    rng = random.Random(3)
    series = Series(HOYLE, NAMES[:3], rng=rng, deals=1)
    series.start_deal()
    events = play_deal(series, rng)
    assert isinstance(events[-1], SeriesEnded) and series.over and series.deals_played == 1


def test_the_settlement_pays_one_unit_per_card_left() -> None:
    rng = random.Random(5)
    series = Series(HOYLE, NAMES[:5], rng=rng, deals=1)
    series.start_deal()
    events = play_deal(series, rng)
    won = next(e for e in events if isinstance(e, Won))
    settled = next(e for e in events if isinstance(e, Settled))
    expected = [-left for left in won.cards_left]
    expected[won.player] = sum(won.cards_left)
    assert list(settled.payments) == expected


def test_the_series_refuses_bad_player_counts_and_orders() -> None:
    with pytest.raises(UsageError):
        Series(HOYLE, NAMES[:2], rng=random.Random(1))
    with pytest.raises(UsageError):
        Series(HOYLE, NAMES * 2, rng=random.Random(1))
    with pytest.raises(ValueError, match="at least one deal"):
        Series(HOYLE, NAMES[:3], rng=random.Random(1), deals=0)
    series = Series(HOYLE, NAMES[:3], rng=random.Random(1))
    with pytest.raises(GameOver):
        series.apply(Pass(0))  # no deal yet
    series.start_deal()
    with pytest.raises(ValueError, match="not over"):
        series.start_deal()


def test_the_first_dealer_is_drawn_by_lot_when_not_given() -> None:
    dealers = {Series(HOYLE, NAMES[:4], rng=random.Random(seed)).dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3}


def test_the_shuffles_do_not_depend_on_whether_the_first_dealer_was_given() -> None:
    drawn = Series(HOYLE, NAMES[:4], rng=random.Random(9))
    given = Series(HOYLE, NAMES[:4], rng=random.Random(9), first_dealer=drawn.dealer)
    assert drawn.start_deal().initial_hands == given.start_deal().initial_hands


def test_a_physical_series_knows_only_hand_sizes() -> None:
    series = Series(HOYLE, NAMES[:3], rng=random.Random(2), deck=DeckMode.PHYSICAL, first_dealer=0)
    deal = series.start_deal()
    assert deal.hands is None and deal.sizes == [17, 18, 17]
    assert series.deal_started_event().hand_sizes == (17, 18, 17)


# ---------------------------------------------------------------------------- parlour scoring


def test_simple_victory_counts_round_wins() -> None:
    rng = random.Random(4)
    series = Series(PARLOUR, NAMES[:3], rng=rng, deals=5)
    assert series.totals == [0, 0, 0]
    wins = [0, 0, 0]
    while not series.over:
        tie_break = series.tie_break_seats is not None
        series.start_deal()
        events = play_deal(series, rng)
        won = next(e for e in events if isinstance(e, Won))
        if not tie_break:
            wins[won.player] += 1
            assert next(e for e in events if isinstance(e, Settled)).payments == (0, 0, 0)  # nobody pays
    assert series.totals == wins and sum(wins) == 5


def test_the_parlour_default_is_one_round() -> None:
    rng = random.Random(8)
    series = Series(PARLOUR, NAMES[:2], rng=rng)
    series.start_deal()
    play_deal(series, rng)
    assert series.over and sorted(series.totals) == [0, 1] and sorted(series.places) == [1, 2]


def test_tied_players_play_one_extra_round_among_themselves() -> None:
    series = Series(PARLOUR, NAMES[:3], rng=random.Random(1), deals=2, first_dealer=0)
    one_card_win(series, ["2C 3C", "QS", "4C 5C"])  # seat 1 (eldest) wins
    events = one_card_win(series, ["2D 3D", "4D 5D", "KS"])  # the dealer moved to 1: seat 2 wins
    assert series.totals == [0, 1, 1]
    assert not any(isinstance(e, SeriesEnded) for e in events) and not series.over
    assert series.tie_break_seats == (1, 2)
    assert series.seated_for_next_deal() == (1, 2)
    deal = series.start_deal(hands=[[], cards("AS"), cards("2S 3S")])
    assert deal.seated == (1, 2) and deal.dealer == 2 and deal.turn == 1
    events = list(series.apply(Lead(1, Rank.ACE, Card.parse("AS"))))
    assert not any(isinstance(e, Settled) for e in events)  # the extra round decides, it scores nothing
    assert events[-1] == SeriesEnded((0, 1, 1), (3, 1, 2), tie_break_winner=1)
    assert series.places == (3, 1, 2)


def test_hoyle_shares_places_without_a_tie_break() -> None:
    series = Series(HOYLE, NAMES[:3], rng=random.Random(1), deals=2, first_dealer=0)
    one_card_win(series, ["2C", "QS", "4C"])  # seat 1 wins 2
    events = one_card_win(series, ["2D", "4D", "KS"])  # seat 2 wins 2
    assert series.totals == [-2, 1, 1]
    assert events[-1] == SeriesEnded((-2, 1, 1), (3, 1, 1))


def test_counters_start_at_20_and_the_match_ends_after_the_agreed_rounds() -> None:
    rng = random.Random(6)
    series = Series(COUNTERS, NAMES[:4], rng=rng, deals=3)
    assert series.totals == [20, 20, 20, 20]
    while not series.over:
        series.start_deal()
        for event in play_deal(series, rng):
            if isinstance(event, Settled):
                assert sum(event.payments) == 0
                assert min(event.totals) >= 0  # nobody pays more than they have
    assert sum(series.totals) == 80
    assert series.deals_played in (3, 4)  # a fourth only as a tie-break round


def test_elimination_drops_players_without_counters_until_one_holds_them() -> None:
    elimination = COUNTERS.with_changes(match_end=MatchEnd.ELIMINATION, starting_stack=3)
    series = Series(elimination, NAMES[:4], rng=random.Random(1), first_dealer=0)
    events = one_card_win(series, ["2C", "QS", "3C 4C 5C 6C 7C", "8C 9C 10C JC"])
    settled = next(e for e in events if isinstance(e, Settled))
    assert settled.payments == (-1, 7, -3, -3)  # 3 counters at most from each of the two long hands
    assert series.totals == [2, 10, 0, 0] and not series.over
    assert series.seated_for_next_deal() == (0, 1)  # the players without counters are out
    deal = series.start_deal(hands=[cards("2H"), cards("KS 3S 4S 5S 6S 7S 8S 9S 10S JS QS"), [], []])
    assert deal.seated == (0, 1) and deal.dealer == 1 and deal.turn == 0
    events = list(series.apply(Lead(0, Rank.TWO, Card.parse("2H"))))
    assert events[-2] == Settled(2, (10, -10, 0, 0), (12, 0, 0, 0))
    assert events[-1] == SeriesEnded((12, 0, 0, 0), (1, 2, 2, 2))
    assert series.over


def test_elimination_match_ends_with_one_holder() -> None:
    elimination = COUNTERS.with_changes(match_end=MatchEnd.ELIMINATION, starting_stack=3)
    series = Series(elimination, NAMES[:3], rng=random.Random(1), first_dealer=0)
    events = one_card_win(series, ["2C 3C 4C", "QS", "5C 6C 7C 8C"])
    assert series.totals == [0, 9, 0]
    assert events[-1] == SeriesEnded((0, 9, 0), (2, 1, 2))
    assert series.over


def test_forfeit_earl_collects_the_kitty_at_the_settlement() -> None:
    kitty = COUNTERS.with_changes(forfeit_kitty=True)
    series = Series(kitty, NAMES[:3], rng=random.Random(1), deals=1, first_dealer=2)
    series.start_deal(hands=[cards("QS 2S"), cards("QH 3S"), cards("QD")])
    series.apply(Lead(0, Rank.QUEEN, Card.parse("QS")))
    events = series.apply(Play(1, Card.parse("QH"), chant_ok=False))
    assert any(isinstance(e, Forfeited) for e in events) and Penalised(1, 1, "chant") in events
    events = series.apply(Play(2, Card.parse("QD")))  # the last card wins
    settled = next(e for e in events if isinstance(e, Settled))
    assert settled.payments == (-1, -3, 4)  # seat 1 pays its 2 cards and 1 counter of kitty
    assert settled.totals == (19, 17, 24)


def test_forfeit_earl_needs_counters_or_notional_scoring() -> None:
    with pytest.raises(UsageError, match="Forfeit Earl"):
        Series(PARLOUR.with_changes(forfeit_kitty=True), NAMES[:3], rng=random.Random(1))
    Series(HOYLE.with_changes(forfeit_kitty=True), NAMES[:3], rng=random.Random(1))


@pytest.mark.parametrize("profile", [HOYLE, PARLOUR, COUNTERS], ids=["hoyle", "parlour", "counters"])
def test_totals_follow_the_payments(profile: RulesProfile) -> None:
    rng = random.Random(21)
    series = Series(profile, NAMES[:4], rng=rng, deals=4)
    start = list(series.totals)
    paid = [0, 0, 0, 0]
    wins = [0, 0, 0, 0]
    while not series.over:
        series.start_deal()
        for event in play_deal(series, rng):
            if isinstance(event, Settled):
                paid = [p + q for p, q in zip(paid, event.payments, strict=True)]
            if isinstance(event, Won) and series.tie_break_seats is None:
                wins[event.player] += 1
    if profile.scoring is Scoring.VICTORY:
        assert series.totals == wins
    else:
        assert series.totals == [s + p for s, p in zip(start, paid, strict=True)]


def test_players_tied_on_counters_play_one_extra_round() -> None:
    series = Series(COUNTERS, NAMES[:3], rng=random.Random(1), deals=2, first_dealer=0)
    one_card_win(series, ["2C", "QS", "4C"])  # seat 1 collects 1 + 1
    assert series.totals == [19, 22, 19]
    events = one_card_win(series, ["2D", "3D", "KS"])  # seat 2 collects 1 + 1
    assert series.totals == [18, 21, 21]
    assert not any(isinstance(e, SeriesEnded) for e in events)
    assert series.tie_break_seats == (1, 2)
    deal = series.start_deal(hands=[[], cards("2S 3S"), cards("AS")])
    assert deal.turn == 1
    series.apply(Lead(1, Rank.TWO, Card.parse("2S")))
    series.apply(Pass(2))
    series.apply(Pass(1))  # nobody else holds a two: seat 1 leads anew
    events = list(series.apply(Lead(1, Rank.THREE, Card.parse("3S"))))
    assert events[-1] == SeriesEnded((18, 21, 21), (3, 1, 2), tie_break_winner=1)
    assert series.totals == [18, 21, 21]  # the extra round moves no counters

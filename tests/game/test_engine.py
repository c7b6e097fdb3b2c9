"""The rules engine, one rule at a time (docs/rules: README rulings, hoyle profile, parlour rules)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from voice_earl.errors import UsageError
from voice_earl.game.cards import RANKS, Card, Rank, full_deck
from voice_earl.game.chants import EARL, ChantSet
from voice_earl.game.engine import Deal
from voice_earl.game.events import (
    Event,
    Forfeited,
    FullCircle,
    Led,
    Misplayed,
    Passed,
    Penalised,
    Played,
    QuartetCompleted,
    Won,
)
from voice_earl.game.moves import (
    Action,
    CardNotHeld,
    FormulaDue,
    GameOver,
    IllegalAction,
    Lead,
    LeadDuringQuartet,
    Misplay,
    NoRankOpen,
    NotSeated,
    OutOfTurn,
    Pass,
    PassWhileHolding,
    Play,
    RankFinished,
    WrongRank,
    deal_hands,
    hand_sizes_for,
)
from voice_earl.game.rules import HOYLE, PARLOUR, DeckMode, RulesProfile, Scoring

BOTH = pytest.mark.parametrize("profile", [HOYLE, PARLOUR], ids=["hoyle", "parlour"])


def cards(text: str) -> list[Card]:
    return [Card.parse(word) for word in text.split()]


def c(text: str) -> Card:
    return Card.parse(text)


def deal_of(profile: RulesProfile, *hands: str, dealer: int | None = None) -> Deal:
    """A virtual deal from hands written as "QS QC 7D"; seat 0 is eldest unless a dealer is given."""
    count = len(hands)
    return Deal.from_hands(profile, [cards(h) for h in hands], dealer=count - 1 if dealer is None else dealer)


def hand(deal: Deal, seat: int) -> list[Card]:
    assert deal.hands is not None
    return list(deal.hands[seat])


def kinds(events: Sequence[Event]) -> list[str]:
    return [type(event).__name__ for event in events]


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
        tuple(deal.history),
        deal.finished_ranks(),
    )


# ---------------------------------------------------------------------------- dealing and seats


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_three_players_get_18_17_17_with_the_first_hand_at_the_dealers_left(dealer: int) -> None:
    left = (dealer + 1) % 3
    sizes = hand_sizes_for(3, dealer=dealer)
    assert sizes[left] == 18
    assert sorted(sizes) == [17, 17, 18]
    deck = full_deck()
    hands = deal_hands(deck, 3, dealer)
    assert [len(hand) for hand in hands] == list(sizes)
    # Singly and clockwise from the dealer's left: the first card to the left, the second next to it.
    assert hands[left][0] == deck[0]
    assert hands[(left + 1) % 3][0] == deck[1]
    assert hands[dealer][0] == deck[2]
    assert hands[left][1] == deck[3]


@pytest.mark.parametrize("players", range(2, 14))
def test_the_whole_pack_is_dealt_and_the_longer_hands_come_first_from_the_dealers_left(players: int) -> None:
    dealer = players - 1
    hands = deal_hands(full_deck(), players, dealer)
    dealt = [card for hand in hands for card in hand]
    assert len(dealt) == 52 and set(dealt) == set(full_deck())
    sizes = [len(hand) for hand in hands]
    assert sum(sizes) == 52
    assert max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)  # seat 0 is the dealer's left here
    assert tuple(sizes) == hand_sizes_for(players, dealer)


def test_only_seated_players_are_dealt_to() -> None:
    hands = deal_hands(full_deck(), 4, dealer=0, seated=(1, 3))
    assert [len(hand) for hand in hands] == [0, 26, 0, 26]
    assert hand_sizes_for(4, dealer=0, seated=(1, 3)) == (0, 26, 0, 26)


@BOTH
@pytest.mark.parametrize("dealer", [0, 2, 3])
def test_eldest_hand_leads_the_first_card(profile: RulesProfile, dealer: int) -> None:
    deal = Deal.from_hands(profile, deal_hands(full_deck(), 4, dealer), dealer=dealer)
    eldest = (dealer + 1) % 4
    assert deal.turn == eldest
    legal = deal.legal_actions()
    assert legal and all(isinstance(a, Lead) and a.player == eldest for a in legal)
    assert deal.formula_due() == FormulaDue(eldest, 1, None)


# ---------------------------------------------------------------------------- play


@BOTH
def test_turns_go_clockwise_holders_play_one_card_and_others_pass(profile: RulesProfile) -> None:
    deal = deal_of(profile, "QS 2C", "3C 4C", "QH 5C", "6C 7C")
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    assert deal.turn == 1
    assert deal.legal_actions() == (Pass(1),)  # no queen: a pass is the only move
    assert kinds(deal.apply(Pass(1))) == ["Passed"]
    assert deal.turn == 2
    assert deal.legal_actions() == (Play(2, c("QH")),)  # a queen: it must be played, no pass
    with pytest.raises(PassWhileHolding):
        deal.apply(Pass(2))
    deal.apply(Play(2, c("QH")))
    assert deal.turn == 3


@BOTH
def test_suit_never_matters_but_rank_does(profile: RulesProfile) -> None:
    deal = deal_of(profile, "QS 2S", "QD 3S", "4S 5S")
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    with pytest.raises(WrongRank):
        deal.apply(Play(1, c("3S")))  # same suit, other rank
    events = deal.apply(Play(1, c("QD")))  # other suit, same rank
    assert isinstance(events[0], Played) and events[0].position == 2


@BOTH
def test_one_player_contributes_several_cards_of_a_rank(profile: RulesProfile) -> None:
    deal = deal_of(profile, "QS QH 2C", "3C 4C", "QD QC 5C")
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    deal.apply(Pass(1))
    deal.apply(Play(2, c("QD")))
    assert deal.legal_actions() == (Play(0, c("QH")),)  # the turn came back: play another queen
    assert deal.apply(Play(0, c("QH")))[0] == Played(1, 0, Rank.QUEEN, c("QH"), 3)
    deal.apply(Pass(1))
    events = deal.apply(Play(2, c("QC")))
    assert kinds(events) == ["Played", "QuartetCompleted"]
    assert deal.turn == 2  # the Earl leads
    assert deal.finished_ranks() == (Rank.QUEEN,)


@BOTH
def test_several_cards_of_the_rank_in_one_hand_are_offered_one_at_a_time(profile: RulesProfile) -> None:
    deal = deal_of(profile, "QS 2C", "QH QD 3C")
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    assert deal.legal_actions() == (Play(1, c("QH")), Play(1, c("QD")))
    deal.apply(Play(1, c("QD")))
    assert deal.turn == 0  # not another card by the same player: the turn moves on


def test_the_worked_example_fourth_queen_gives_the_next_lead() -> None:
    """hoyle-profile 06: A leads Q spades, B and C follow, A's fourth Q clubs, then A leads 7 diamonds."""
    deal = deal_of(HOYLE, "QS QC 7D", "QH 2S", "QD 3S")
    assert deal.apply(Lead(0, Rank.QUEEN, c("QS"))) == (Led(1, 0, Rank.QUEEN, c("QS")),)
    assert deal.apply(Play(1, c("QH"))) == (Played(1, 1, Rank.QUEEN, c("QH"), 2),)
    assert deal.apply(Play(2, c("QD"))) == (Played(1, 2, Rank.QUEEN, c("QD"), 3),)
    assert deal.apply(Play(0, c("QC"))) == (
        Played(1, 0, Rank.QUEEN, c("QC"), 4),
        QuartetCompleted(1, 0, Rank.QUEEN),
    )
    assert deal.turn == 0 and deal.rank is None
    assert deal.legal_actions() == (Lead(0, Rank.SEVEN, c("7D")),)
    assert deal.apply(Lead(0, Rank.SEVEN, c("7D")))[0] == Led(1, 0, Rank.SEVEN, c("7D"))
    assert deal.rank is Rank.SEVEN


def test_the_worked_example_with_q_clubs_as_the_last_card_wins_before_another_lead() -> None:
    deal = deal_of(HOYLE, "QS QC", "QH 2S 3S 4S", "QD 2H 3H 4H 5H 6H")
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    deal.apply(Play(1, c("QH")))
    deal.apply(Play(2, c("QD")))
    events = deal.apply(Play(0, c("QC")))
    assert kinds(events) == ["Played", "QuartetCompleted", "Won"]
    assert events[-1] == Won(1, 0, (0, 3, 5))  # opponents retain 3 and 5 cards: 3 + 5 = 8 (test_series)
    assert deal.winner == 0 and deal.over
    assert deal.legal_actions() == ()
    assert deal.formula_due() is None
    with pytest.raises(GameOver):
        deal.apply(Lead(0, Rank.TWO, c("2S")))


@BOTH
def test_an_immediate_win_leaves_the_quartet_unfinished(profile: RulesProfile) -> None:
    deal = deal_of(profile, "QS 2C", "QH", "QD QC 3S")
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    events = deal.apply(Play(1, c("QH")))
    assert events == (Played(1, 1, Rank.QUEEN, c("QH"), 2), Won(1, 1, (1, 0, 3)))
    assert deal.winner == 1
    assert deal.out[Rank.QUEEN.index] == 2
    assert deal.finished_ranks() == ()  # that quartet is not completed
    with pytest.raises(GameOver):
        deal.apply(Play(2, c("QD")))


@BOTH
def test_a_lead_of_the_last_card_wins_at_once(profile: RulesProfile) -> None:
    deal = deal_of(profile, "KS", "QH", "QD")
    assert kinds(deal.apply(Lead(0, Rank.KING, c("KS")))) == ["Led", "Won"]
    assert deal.winner == 0


def test_the_formula_due_at_every_position() -> None:
    deal = deal_of(HOYLE, "QS QC 7D 8D", "QH 2S", "QD 3S")
    assert deal.formula_due() == FormulaDue(0, 1, None)
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    assert deal.formula_due() == FormulaDue(1, 2, Rank.QUEEN)
    deal.apply(Play(1, c("QH")))
    assert deal.formula_due() == FormulaDue(2, 3, Rank.QUEEN)
    deal.apply(Play(2, c("QD")))
    due = deal.formula_due()
    assert due == FormulaDue(0, 4, Rank.QUEEN)
    assert EARL.line(due.position, Rank.QUEEN) == "And there's the Earl of Coventry"
    deal.apply(Play(0, c("QC")))
    assert deal.formula_due() == FormulaDue(0, 1, None)
    deal.apply(Lead(0, Rank.SEVEN, c("7D")))
    assert deal.formula_due() == FormulaDue(1, 2, Rank.SEVEN)
    deal.apply(Pass(1))
    assert deal.formula_due() == FormulaDue(2, 2, Rank.SEVEN)  # a pass moves the turn, not the position


def test_the_four_formulas_and_the_accepted_slip() -> None:
    assert [EARL.line(p, Rank.QUEEN) for p in (1, 2, 3, 4)] == [
        "There's as good as Queen can be",
        "There's a Queen as good as he",
        "There's the best of all the three",
        "And there's the Earl of Coventry",
    ]
    assert "There's as good a Queen can be" in EARL.accepted(1, Rank.QUEEN)
    assert "There's as good a Queen can be" not in EARL.accepted(2, Rank.QUEEN)
    assert EARL.accepted(1, Rank.QUEEN)[0] == EARL.line(1, Rank.QUEEN)  # the slip is accepted, never the line


@pytest.mark.parametrize("rank", [Rank.ACE, Rank.EIGHT])
def test_an_before_a_vowel_sound_and_a_accepted_too(rank: Rank) -> None:
    word = rank.word
    assert EARL.line(2, rank) == f"There's an {word} as good as he"
    assert EARL.accepted(2, rank) == (f"There's an {word} as good as he", f"There's a {word} as good as he")
    assert EARL.line(1, rank) == f"There's as good as {word} can be"
    assert set(EARL.accepted(1, rank)) == {
        f"There's as good as {word} can be",
        f"There's as good an {word} can be",
        f"There's as good a {word} can be",
    }


def test_custom_wordings_get_an_before_a_vowel_only_where_a_stands_alone() -> None:
    chant = ChantSet("mine", ("A {rank} leads", "Ina {rank} two", "Three", "Four"))
    assert chant.line(1, Rank.ACE) == "An Ace leads"
    assert chant.line(2, Rank.ACE) == "Ina Ace two"
    assert chant.line(1, Rank.KING) == "A King leads"


# ---------------------------------------------------------------------------- the observer view


def test_the_view_shows_only_the_own_hand() -> None:
    deal = deal_of(HOYLE, "QS 2C", "QH 3C", "QD 4C")
    view = deal.view(1)
    assert view.seat == 1
    assert view.hand == (c("QH"), c("3C"))
    assert view.visible_hands == (None, (c("QH"), c("3C")), None)
    assert view.hand_sizes == (2, 2, 2)
    assert view.turn == 0 and view.due == FormulaDue(0, 1, None)
    assert view.quartet is None and view.finished_ranks == () and view.winner is None
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    view = deal.view(2)
    assert view.quartet == (Rank.QUEEN, 1)
    assert view.hand_sizes == (1, 2, 2)


def test_open_hands_show_every_hand() -> None:
    deal = deal_of(PARLOUR.with_changes(open_hands=True), "QS 2C", "QH 3C", "QD 4C")
    assert deal.view(1).visible_hands == ((c("QS"), c("2C")), (c("QH"), c("3C")), (c("QD"), c("4C")))


def test_a_physical_deck_shows_no_hand_only_sizes() -> None:
    deal = Deal.physical(PARLOUR.with_changes(open_hands=True), 4, dealer=3)
    view = deal.view(0)
    assert view.hand is None
    assert view.visible_hands == (None, None, None, None)
    assert view.hand_sizes == (13, 13, 13, 13)


def test_the_view_after_the_win_has_no_turn() -> None:
    deal = deal_of(HOYLE, "KS", "QH", "QD")
    deal.apply(Lead(0, Rank.KING, c("KS")))
    view = deal.view(1)
    assert view.winner == 0 and view.turn is None and view.due is None


# ---------------------------------------------------------------------------- refusals


def refused(deal: Deal, action: Lead | Play | Pass | Misplay, error: type[IllegalAction]) -> str:
    """Apply an illegal action: the specific error, a ValueError, and nothing changed."""
    before = snapshot(deal)
    with pytest.raises(error) as caught:
        deal.apply(action)
    assert isinstance(caught.value, ValueError)
    assert snapshot(deal) == before
    message = str(caught.value)
    assert message and "\n" not in message
    return message


def test_a_card_of_another_rank_is_refused() -> None:
    deal = deal_of(HOYLE, "QS 2C", "QH 3C", "QD 4C")
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    assert "3C" in refused(deal, Play(1, c("3C")), WrongRank)


def test_a_move_out_of_turn_is_refused() -> None:
    deal = deal_of(HOYLE, "QS 2C", "QH 3C", "QD 4C")
    refused(deal, Lead(1, Rank.QUEEN, c("QH")), OutOfTurn)
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    assert "player 1" in refused(deal, Play(2, c("QD")), OutOfTurn)
    refused(deal, Pass(0), OutOfTurn)


def test_a_pass_while_holding_the_rank_is_refused() -> None:
    deal = deal_of(HOYLE, "QS 2C", "QH 3C", "QD 4C")
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    assert "Queen" in refused(deal, Pass(1), PassWhileHolding)


def test_a_lead_while_a_quartet_is_open_is_refused() -> None:
    deal = deal_of(HOYLE, "QS 2C", "QH 3C", "QD 4C")
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    refused(deal, Lead(1, Rank.THREE, c("3C")), LeadDuringQuartet)


def test_a_card_not_held_is_refused() -> None:
    deal = deal_of(HOYLE, "QS 2C", "QH 3C", "QD 4C")
    refused(deal, Lead(0, Rank.KING, c("KS")), CardNotHeld)
    refused(deal, Lead(0, Rank.QUEEN, c("QH")), CardNotHeld)  # seat 1's queen
    refused(deal, Lead(0, Rank.KING, c("QS")), CardNotHeld)  # the rank named is not the card's
    refused(deal, Lead(0, Rank.QUEEN), CardNotHeld)  # a virtual deck needs the card
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    refused(deal, Play(1, c("QC")), CardNotHeld)
    refused(deal, Play(1), CardNotHeld)


def test_any_move_after_the_win_is_refused() -> None:
    deal = deal_of(HOYLE, "KS", "QH", "QD")
    deal.apply(Lead(0, Rank.KING, c("KS")))
    for action in (Lead(1, Rank.QUEEN, c("QH")), Play(1, c("QH")), Pass(1), Misplay(2)):
        assert "over" in refused(deal, action, GameOver)


def test_a_play_or_pass_when_no_rank_is_open_is_refused() -> None:
    deal = deal_of(HOYLE, "QS 2C", "QH 3C", "QD 4C")
    assert "must lead" in refused(deal, Play(0, c("QS")), NoRankOpen)
    refused(deal, Pass(0), NoRankOpen)


def test_a_lead_of_a_finished_rank_is_refused() -> None:
    deal = Deal.physical(HOYLE, 3, dealer=2)
    deal.apply(Lead(0, Rank.QUEEN))
    deal.apply(Play(1))
    deal.apply(Play(2))
    deal.apply(Play(0))
    assert deal.finished_ranks() == (Rank.QUEEN,)
    assert "queens" in refused(deal, Lead(0, Rank.QUEEN), RankFinished)
    assert Lead(0, Rank.QUEEN) not in deal.legal_actions()
    virtual = deal_of(HOYLE, "QS QC 7D", "QH 2S", "QD 3S")
    for action in (Lead(0, Rank.QUEEN, c("QS")), Play(1, c("QH")), Play(2, c("QD")), Play(0, c("QC"))):
        virtual.apply(action)
    refused(virtual, Lead(0, Rank.QUEEN, c("QS")), RankFinished)


def test_a_player_not_seated_is_refused() -> None:
    deal = Deal.from_hands(HOYLE, [cards("QS"), [], cards("QD 2C"), []], dealer=3, seated=(0, 2))
    assert deal.turn == 0
    refused(deal, Pass(1), NotSeated)
    refused(deal, Play(7, c("QD")), NotSeated)
    refused(deal, Misplay(3), NotSeated)
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    assert deal.winner == 0


def test_tie_break_deals_skip_seats_that_sit_out() -> None:
    deal = Deal.from_hands(HOYLE, [cards("QS 2S"), [], cards("QD 2C"), []], dealer=2, seated=(0, 2))
    assert deal.turn == 0
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    assert deal.turn == 2  # seat 1 sits out


# ---------------------------------------------------------------------------- chants


def test_parlour_takes_a_bungled_play_back_and_moves_the_turn_on() -> None:
    deal = deal_of(PARLOUR, "QS 2C", "QH 3C", "QD 4C")
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    events = deal.apply(Play(1, c("QH"), chant_ok=False))
    assert events == (Played(1, 1, Rank.QUEEN, c("QH"), 2, chant_ok=False), Forfeited(1, 1, Rank.QUEEN, c("QH")))
    assert c("QH") in hand(deal, 1) and deal.sizes[1] == 2  # the card is back in the hand
    assert deal.out[Rank.QUEEN.index] == 1 and deal.in_quartet == 1  # the position did not advance
    assert deal.turn == 2  # the next player clockwise
    assert deal.formula_due() == FormulaDue(2, 2, Rank.QUEEN)  # the second line is still due
    assert deal.apply(Play(2, c("QD")))[0] == Played(1, 2, Rank.QUEEN, c("QD"), 2)
    assert deal.legal_actions() == (Pass(0),)
    deal.apply(Pass(0))
    assert deal.legal_actions() == (Play(1, c("QH")),)  # the taken-back card is due again


def test_parlour_takes_a_bungled_lead_back_and_the_next_player_leads() -> None:
    deal = deal_of(PARLOUR, "QS 2C", "QH 3C", "QD 4C")
    events = deal.apply(Lead(0, Rank.QUEEN, c("QS"), chant_ok=False))
    assert kinds(events) == ["Led", "Forfeited"]
    assert deal.rank is None and deal.out[Rank.QUEEN.index] == 0
    assert set(hand(deal, 0)) == set(cards("QS 2C")) and deal.sizes[0] == 2
    assert deal.turn == 1
    assert deal.formula_due() == FormulaDue(1, 1, None)


def test_parlour_a_bungled_last_card_does_not_win() -> None:
    deal = deal_of(PARLOUR, "KS", "QH", "QD")
    events = deal.apply(Lead(0, Rank.KING, c("KS"), chant_ok=False))
    assert kinds(events) == ["Led", "Forfeited"]
    assert deal.winner is None and deal.sizes[0] == 1


@pytest.mark.parametrize("profile", [HOYLE, PARLOUR.with_changes(silent=True)], ids=["hoyle", "silent-earl"])
def test_no_chant_forfeit_under_hoyle_or_in_silent_earl(profile: RulesProfile) -> None:
    deal = deal_of(profile, "QS 2C", "QH 3C", "QD 4C")
    deal.apply(Lead(0, Rank.QUEEN, c("QS"), chant_ok=False))
    events = deal.apply(Play(1, c("QH"), chant_ok=False))
    assert kinds(events) == ["Played"]  # the play stands
    assert hand(deal, 1) == cards("3C") and deal.out[Rank.QUEEN.index] == 2 and deal.turn == 2


def test_forfeit_earl_puts_a_counter_in_the_kitty_for_a_bungled_chant() -> None:
    kitty = PARLOUR.with_changes(scoring=Scoring.COUNTERS, forfeit_kitty=True)
    deal = deal_of(kitty, "QS 2C", "QH 3C", "QD 4C")
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    events = deal.apply(Play(1, c("QH"), chant_ok=False))
    assert kinds(events) == ["Played", "Forfeited", "Penalised"]
    assert events[-1] == Penalised(1, 1, "chant")
    silent = deal_of(kitty.with_changes(silent=True), "QS 2C", "QH 3C", "QD 4C")
    silent.apply(Lead(0, Rank.QUEEN, c("QS")))
    assert kinds(silent.apply(Play(1, c("QH"), chant_ok=False))) == ["Played"]  # no chants, no fine


def test_forfeit_earl_fines_a_misplay_on_a_physical_deck() -> None:
    kitty = PARLOUR.with_changes(scoring=Scoring.COUNTERS, forfeit_kitty=True)
    deal = Deal.physical(kitty, 3, dealer=2)
    before = snapshot(deal)
    assert deal.apply(Misplay(2)) == (Misplayed(1, 2), Penalised(1, 2, "misplay"))
    after = snapshot(deal)
    assert after[:-2] == before[:-2]  # the card was taken back: only the history grew
    assert deal.turn == 0
    assert Deal.physical(PARLOUR, 3, dealer=2).apply(Misplay(1)) == (Misplayed(1, 1),)


# ---------------------------------------------------------------------------- the physical deck


@BOTH
def test_a_physical_deck_counts_hands_down_and_takes_passes_on_trust(profile: RulesProfile) -> None:
    deal = Deal.physical(profile, ["Ann", "Ben", "Cy", "Di"], dealer=3)
    assert deal.deck_mode is DeckMode.PHYSICAL and deal.hands is None
    assert deal.sizes == [13, 13, 13, 13]
    assert deal.legal_actions() == tuple(Lead(0, rank) for rank in RANKS)
    events = deal.apply(Lead(0, Rank.QUEEN))
    assert events == (Led(1, 0, Rank.QUEEN, None),)
    assert deal.legal_actions() == (Play(1), Pass(1))
    deal.apply(Pass(1))  # taken on trust
    deal.apply(Play(2))
    assert deal.sizes == [12, 13, 12, 13]
    assert deal.formula_due() == FormulaDue(3, 3, Rank.QUEEN)


def test_hoyle_warns_of_a_full_circle_of_passes_and_play_goes_on() -> None:
    deal = Deal.physical(HOYLE, 4, dealer=3)
    deal.apply(Lead(0, Rank.QUEEN))
    for seat in (1, 2, 3):
        assert kinds(deal.apply(Pass(seat))) == ["Passed"]
    events = deal.apply(Pass(0))
    assert events == (Passed(1, 0), FullCircle(1, Rank.QUEEN, 0, relead=False))
    assert deal.rank is Rank.QUEEN and deal.turn == 1  # the quartet stays open, the turn goes on
    assert deal.formula_due() == FormulaDue(1, 2, Rank.QUEEN)
    deal.apply(Pass(1))
    assert deal.passes == 1  # a new count of passes starts


def test_parlour_relead_by_the_last_player_of_the_rank_after_a_full_circle() -> None:
    deal = Deal.physical(PARLOUR, 4, dealer=3)
    deal.apply(Lead(0, Rank.QUEEN))
    deal.apply(Play(1))
    for seat in (2, 3, 0):
        deal.apply(Pass(seat))
    events = deal.apply(Pass(1))
    assert events[-1] == FullCircle(1, Rank.QUEEN, 1, relead=True)
    assert deal.rank is None and deal.turn == 1
    assert deal.formula_due() == FormulaDue(1, 1, None)
    assert all(isinstance(a, Lead) and a.player == 1 for a in deal.legal_actions())
    # The two queens still out count: two more complete the rank, the second of them is the Earl.
    deal.apply(Lead(1, Rank.QUEEN))
    events = deal.apply(Play(2))
    assert events == (Played(1, 2, Rank.QUEEN, None, 4), QuartetCompleted(1, 2, Rank.QUEEN))


def test_parlour_relead_of_a_rank_that_cannot_be_completed_on_a_short_virtual_deal() -> None:
    deal = deal_of(PARLOUR, "QS 2C", "3C", "4C")  # the other queens were never dealt
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    deal.apply(Pass(1))
    deal.apply(Pass(2))
    events = deal.apply(Pass(0))
    assert events[-1] == FullCircle(1, Rank.QUEEN, 0, relead=True)
    assert deal.legal_actions() == (Lead(0, Rank.TWO, c("2C")),)


# ---------------------------------------------------------------------------- undo


def test_undo_returns_the_deal_before_its_last_action() -> None:
    deal = deal_of(HOYLE, "QS QC 7D", "QH 2S", "QD 3S")
    first = snapshot(deal)
    steps: list[Action] = [Lead(0, Rank.QUEEN, c("QS")), Play(1, c("QH")), Play(2, c("QD")), Play(0, c("QC"))]
    states = [first]
    for action in steps:
        deal.apply(action)
        states.append(snapshot(deal))
    for expected in reversed(states[:-1]):
        deal = deal.undo()
        assert snapshot(deal) == expected
    assert snapshot(deal.undo()) == first  # nothing left to undo


def test_undo_passes_and_a_full_circle() -> None:
    deal = deal_of(HOYLE, "KS 2C", "QH", "QD")
    deal.apply(Lead(0, Rank.KING, c("KS")))
    deal.apply(Pass(1))
    deal.apply(Pass(2))
    deal.apply(Pass(0))  # a full circle on a short deal
    deal.apply(Pass(1))
    deal = deal.undo().undo().undo().undo()
    deal2 = deal_of(HOYLE, "KS 2C", "QH", "QD")
    deal2.apply(Lead(0, Rank.KING, c("KS")))
    assert snapshot(deal) == snapshot(deal2)


def test_undo_on_a_physical_deck_restores_the_hand_sizes() -> None:
    deal = Deal.physical(HOYLE, 3, dealer=2)
    deal.apply(Lead(0, Rank.QUEEN))
    deal.apply(Play(1))
    undone = deal.undo()
    assert undone.sizes == [17, 17, 17]
    assert undone.undo().sizes == [18, 17, 17]
    assert deal.started_event().hand_sizes == (18, 17, 17)  # the sizes dealt, not the current ones


def test_undo_leaves_the_original_deal_alone() -> None:
    deal = deal_of(HOYLE, "QS 2C", "QH 3C", "QD 4C")
    deal.apply(Lead(0, Rank.QUEEN, c("QS")))
    before = snapshot(deal)
    deal.undo()
    assert snapshot(deal) == before


# ---------------------------------------------------------------------------- player counts


@pytest.mark.parametrize("count", [2, 7])
def test_hoyle_refuses_other_player_counts_with_a_clear_message(count: int) -> None:
    with pytest.raises(UsageError, match=f"hoyle profile is for 3 to 6 players, not {count}"):
        HOYLE.check_players(count)


@pytest.mark.parametrize("count", [3, 4, 5, 6])
def test_hoyle_plays_3_to_6(count: int) -> None:
    HOYLE.check_players(count)
    assert not HOYLE.is_crowded(count)


@pytest.mark.parametrize("count", range(2, 14))
def test_parlour_plays_2_to_13_crowded_above_8(count: int) -> None:
    PARLOUR.check_players(count)
    assert PARLOUR.is_crowded(count) == (count > 8)


@pytest.mark.parametrize("count", [1, 14])
def test_parlour_refuses_other_player_counts(count: int) -> None:
    with pytest.raises(UsageError, match="2 to 13"):
        PARLOUR.check_players(count)


def test_a_deal_without_records_plays_exactly_like_one_with_records() -> None:
    import random as _random

    from voice_earl.game.bots import MostStrategy
    from voice_earl.game.cards import full_deck
    from voice_earl.game.moves import deal_hands

    deck = list(full_deck())
    _random.Random(3).shuffle(deck)
    hands = deal_hands(deck, 4, 1)
    quiet = Deal.from_hands(HOYLE, hands, dealer=1, record=False)
    loud = Deal.from_hands(HOYLE, hands, dealer=1)
    bot = MostStrategy()
    while not loud.over:
        legal = loud.legal_actions()
        action = bot.choose(None, legal, _random.Random(0))
        assert loud.apply(action)
        assert quiet.apply(action) == ()
    assert quiet.winner == loud.winner and quiet.sizes == loud.sizes and quiet.out == loud.out


def test_a_misplay_report_is_refused_on_a_virtual_deck() -> None:
    from voice_earl.game.moves import NoMisplayOnVirtualDeck

    c = Card.parse
    deal = Deal.from_hands(
        PARLOUR.with_changes(scoring=Scoring.COUNTERS, forfeit_kitty=True), [[c("QS")], [c("QH")], [c("2S")]], dealer=2
    )
    with pytest.raises(NoMisplayOnVirtualDeck):
        deal.apply(Misplay(1))
    assert deal.history == []

"""The rules engine for one deal: pure, no I/O, no clocks, no printing.

A :class:`Deal` is the state of one deal (OpenSpiel's ``State``): ask it for
:meth:`Deal.legal_actions`, and :meth:`Deal.apply` an action, which raises a specific
:class:`IllegalAction` (a ``ValueError``) for each kind of illegal move and returns the
events it caused. Randomness is never drawn here: the deck comes in already shuffled.

The worked example of ``hoyle-profile.en.txt``: A leads the queen of spades, B and C
follow with queens, and A's fourth queen completes the quartet, so A leads again.

>>> from voice_earl.game.cards import Card
>>> from voice_earl.game.rules import HOYLE
>>> c = Card.parse
>>> hands = [[c("QS"), c("QC"), c("7D")], [c("QH"), c("2S")], [c("QD"), c("3S")]]
>>> deal = Deal.from_hands(HOYLE, hands, dealer=2)
>>> deal.turn
0
>>> _ = deal.apply(Lead(0, Rank.QUEEN, c("QS")))
>>> _ = deal.apply(Play(1, c("QH")))
>>> _ = deal.apply(Play(2, c("QD")))
>>> deal.formula_due()
FormulaDue(player=0, position=4, rank=Rank.QUEEN)
>>> [type(e).__name__ for e in deal.apply(Play(0, c("QC")))]
['Played', 'QuartetCompleted']
>>> deal.formula_due()
FormulaDue(player=0, position=1, rank=None)
>>> deal.apply(Play(0, c("7D")))
Traceback (most recent call last):
...
voice_earl.game.moves.NoRankOpen: no rank is open: player 0 must lead
"""

from __future__ import annotations

from collections.abc import Sequence

from voice_earl.game.cards import RANK_INDEX, Card, Rank
from voice_earl.game.deal_state import DealState
from voice_earl.game.events import (
    DealStarted,
    Event,
    Forfeited,
    FullCircle,
    Led,
    Misplayed,
    Penalised,
    Played,
    QuartetCompleted,
    Won,
)
from voice_earl.game.moves import (
    Action,
    CardNotHeld,
    GameOver,
    Lead,
    LeadDuringQuartet,
    Misplay,
    NoMisplayOnVirtualDeck,
    NoRankOpen,
    NotSeated,
    OutOfTurn,
    Pass,
    PassWhileHolding,
    Play,
    RankFinished,
    WrongRank,
    hand_sizes_for,
)
from voice_earl.game.rules import RulesProfile


class Deal(DealState):
    """One deal: hands, turn, the open quartet and the finished ranks.

    Build it with :meth:`from_hands` (virtual deck) or :meth:`physical` (only sizes known).
    Its attributes are for reading: a deal changes only through :meth:`apply`.
    """

    # -- construction

    @classmethod
    def from_hands(
        cls,
        profile: RulesProfile,
        hands: Sequence[Sequence[Card]],
        *,
        dealer: int,
        seated: Sequence[int] | None = None,
        number: int = 1,
        players: Sequence[str] | None = None,
        record: bool = True,
    ) -> Deal:
        """A virtual-deck deal from known hands."""
        return cls(
            profile,
            dealer=dealer,
            hands=hands,
            hand_sizes=[len(h) for h in hands],
            seated=seated,
            number=number,
            players=players,
            record=record,
        )

    @classmethod
    def physical(
        cls,
        profile: RulesProfile,
        players: int | Sequence[str],
        *,
        dealer: int,
        seated: Sequence[int] | None = None,
        number: int = 1,
    ) -> Deal:
        """A physical-deck deal: the laptop knows only how many cards each seat was dealt."""
        names = [f"Player {i + 1}" for i in range(players)] if isinstance(players, int) else list(players)
        sizes = hand_sizes_for(len(names), dealer, seated)
        return cls(profile, dealer=dealer, hands=None, hand_sizes=sizes, seated=seated, number=number, players=names)

    def started_event(self) -> DealStarted:
        return DealStarted(
            deal=self.number,
            dealer=self.dealer,
            players=self.players,
            seated=self.seated,
            hands=self.initial_hands,
            hand_sizes=self.initial_sizes,
        )

    def replayed(self, actions: Sequence[Action]) -> Deal:
        """A fresh copy of this deal's start with ``actions`` applied (undo and replay use it)."""
        fresh = Deal(
            self.profile,
            dealer=self.dealer,
            hands=self.initial_hands,
            hand_sizes=self.initial_sizes,
            seated=self.seated,
            number=self.number,
            players=self.players,
        )
        for action in actions:
            fresh.apply(action)
        return fresh

    def undo(self) -> Deal:
        """The deal as it was before its last action (a deal with no action comes back unchanged)."""
        return self.replayed(self.history[:-1])

    # -- moves

    def apply(self, action: Action) -> tuple[Event, ...]:
        """Check and apply ``action``; return the events it caused.

        Raises a subclass of :class:`IllegalAction` and changes nothing when it is illegal.
        """
        if self.winner is not None:
            raise GameOver(f"deal {self.number} is over: player {self.winner} won")
        # Actions are final classes, and comparing types is cheaper than isinstance on this hot path.
        if type(action) is Misplay:
            return self._misplay(action)
        if action.player != self.turn:
            if action.player not in self._next:
                raise NotSeated(f"player {action.player} does not take part in this deal")
            raise OutOfTurn(f"it is player {self.turn}'s turn, not player {action.player}'s")
        if type(action) is Play:
            events = self._play(action)
        elif type(action) is Pass:
            events = self._pass(action)
        elif type(action) is Lead:
            events = self._lead(action)
        else:
            raise TypeError(f"not an action: {action!r}")
        self.history.append(action)
        return events

    def _misplay(self, action: Misplay) -> tuple[Event, ...]:
        if action.player not in self._next:
            raise NotSeated(f"player {action.player} does not take part in this deal")
        if self.virtual:
            raise NoMisplayOnVirtualDeck("a virtual deck refuses illegal plays, so there is no misplay to take back")
        self.history.append(action)
        events: list[Event] = [Misplayed(self.number, action.player)]
        if self.profile.forfeit_kitty:
            events.append(Penalised(self.number, action.player, "misplay"))
        return tuple(events)

    def _pass(self, action: Pass) -> tuple[Event, ...]:
        rank, seat = self.rank, action.player
        if rank is None:
            raise NoRankOpen(f"no rank is open: player {seat} must lead, not pass")
        if self.virtual and self._rank_plays[seat][self._rank_index]:
            raise PassWhileHolding(f"player {seat} holds a {rank.word} and must play it")
        self.passes += 1
        self.turn = self._next[seat]
        if self.passes < self._seated_count:
            return self._passed[seat]
        return (*self._passed[seat], self._full_circle(rank))

    def _full_circle(self, rank: Rank) -> FullCircle:
        # All 52 cards are in hands, so a full circle proves someone passed while holding the rank.
        last = self.last_player if self.last_player is not None else self.turn
        self.passes = 0
        relead = self.profile.relead_stuck_rank
        if relead:
            self._close_quartet()
            self.turn = last
        return FullCircle(self.number, rank, last, relead)

    def _lead(self, action: Lead) -> tuple[Event, ...]:
        if self.rank is not None:
            raise LeadDuringQuartet(f"the {self.rank.plural.lower()} are still open: play a {self.rank.word} or pass")
        rank = action.rank
        index = RANK_INDEX[rank]
        if self.out[index] == 4:
            raise RankFinished(f"all four {rank.plural.lower()} are out already: lead another rank")
        seat, card = action.player, action.card
        led = Led(self.number, seat, rank, card, 1, action.chant_ok) if self.record else None
        return self._put_down(seat, rank, index, card, action.chant_ok, led, True)

    def _play(self, action: Play) -> tuple[Event, ...]:
        rank = self.rank
        seat, card = action.player, action.card
        if rank is None:
            raise NoRankOpen(f"no rank is open: player {seat} must lead")
        if card is not None and card.rank is not rank:
            raise WrongRank(f"{card} is not a {rank.word}: the {rank.plural.lower()} are open")
        index = self._rank_index
        played = None
        if self.record:
            position = 4 if self.out[index] == 3 else self.in_quartet + 1  # as _position_of_next
            played = Played(self.number, seat, rank, card, position, action.chant_ok)
        return self._put_down(seat, rank, index, card, action.chant_ok, played, False)

    def _give_back(self, seat: int, rank: Rank, card: Card | None) -> None:
        if self.virtual and card is not None:
            self._track(seat, (card,))
        self.sizes[seat] += 1
        self.out[RANK_INDEX[rank]] -= 1

    def _put_down(
        self,
        seat: int,
        rank: Rank,
        index: int,
        card: Card | None,
        chant_ok: bool,
        event: Led | Played | None,
        leads: bool,
    ) -> tuple[Event, ...]:
        """Move a card from the hand to the table (or refuse with CardNotHeld, changing nothing), then
        what follows from it. One function for the hottest path of bot games and replays."""
        if self.virtual:
            plays = self._rank_plays[seat][index]
            key = id(card)  # by identity: the card legal_actions() offered is the one held
            if key not in plays:
                key = _key_of_equal(plays, card, seat)
            del plays[key]
            del self._leads[seat][key]
        elif self.sizes[seat] == 0:
            raise CardNotHeld(f"player {seat} has no cards left")
        left = self.sizes[seat] = self.sizes[seat] - 1
        out = self.out[index] = self.out[index] + 1
        if leads:
            self.rank = rank
            self._rank_index = index
            self.in_quartet = 0
        record = event is not None
        events: tuple[Event, ...] = (event,) if event is not None else ()
        if not chant_ok:
            if self.profile.chant_forfeit_applies:
                return self._forfeit(seat, rank, card, event)
            if self.profile.forfeit_kitty and not self.profile.silent and record:
                events += (Penalised(self.number, seat, "chant"),)
        self.in_quartet += 1
        self.last_player = seat
        self.passes = 0
        if out == 4:
            if record:
                events += (QuartetCompleted(self.number, seat, rank),)
            self._finished_mask[index] = True
            self._close_quartet()
            self.turn = seat  # the Earl leads the next rank
        else:
            self.turn = self._next[seat]
        if left == 0:
            self.winner = seat
            if record:
                events += (Won(self.number, seat, tuple(self.sizes)),)
        return events

    def _forfeit(self, seat: int, rank: Rank, card: Card | None, event: Led | Played | None) -> tuple[Event, ...]:
        # Parlour: the card goes back, the quartet's position does not advance, the turn moves on.
        self._give_back(seat, rank, card)
        if self.rank is rank and self.in_quartet == 0:  # a forfeited lead opens nothing
            self._close_quartet()
        self.passes = 0
        self.turn = self._next[seat]
        if event is None:
            return ()
        events: list[Event] = [event, Forfeited(self.number, seat, rank, card)]
        if self.profile.forfeit_kitty:
            events.append(Penalised(self.number, seat, "chant"))
        return tuple(events)

    def _close_quartet(self) -> None:
        self.rank = None
        self.in_quartet = 0
        self.last_player = None


def _key_of_equal(plays: dict[int, Play], card: Card | None, seat: int) -> int:
    """The key of a held card equal to ``card`` (an equal card, not the same object), among the
    seat's plays of ``card``'s rank."""
    if card is None:
        raise CardNotHeld("a virtual deck needs the card, not only its rank")
    for key, play in plays.items():
        if play.card == card:
            return key
    raise CardNotHeld(f"player {seat} does not hold {card}")

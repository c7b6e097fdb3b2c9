"""Scripted full games through the table session: transcripts are judged for real, no audio."""

from __future__ import annotations

import io
import random
from collections import Counter

import pytest
from rich.console import Console

from voice_earl.game.bots import MostStrategy
from voice_earl.game.cards import Card, Rank
from voice_earl.game.chants import EARL
from voice_earl.game.events import Passed
from voice_earl.game.gamelog import replay
from voice_earl.game.moves import Pass
from voice_earl.game.rules import HOYLE, PARLOUR, DeckMode
from voice_earl.table.presenters import ScreenView
from voice_earl.table.screen import TableScreen
from voice_earl.table.screen_sections import TableSnapshot
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import (
    DealBegins,
    FormulaGraded,
    Move,
    MoveRefused,
    PauseChanged,
    Reminded,
    RulesApplied,
    Seat,
    SeatKind,
    SessionEnded,
    TableEvent,
    TableSettings,
    TurnBegins,
    Undone,
)
from voice_earl.table.turns import (
    BotSource,
    Command,
    Heard,
    KeyCommand,
    KeyPresses,
    LineCommands,
    ScriptedInput,
    Silence,
    TurnInput,
    TurnRequest,
)
from voice_earl.words.verdicts import grade_line

OK = ("correct", "pass")  # verdicts that take the move as said


class Reciter:
    """A player who says the line due (or 'pass'), with scripted slips; each transcript is judged for real."""

    def __init__(self, rng: random.Random, slip: float = 0.0, physical_play: float = 0.6) -> None:
        self.rng = rng
        self.slip = slip
        self.physical_play = physical_play
        self.said: list[str] = []

    def next_input(self, request: TurnRequest) -> TurnInput:
        text = self.line_for(request)
        self.said.append(text)
        return Heard(grade_line(text, request.context))

    def line_for(self, request: TurnRequest) -> str:
        due = request.due
        if due.rank is None:
            rank = self.rng.choice(request.context.ranks)
            return EARL.line(1, rank)
        if request.view.hand is not None:
            holds = any(card.rank is due.rank for card in request.view.hand)
        else:
            holds = self.rng.random() < self.physical_play
        if not holds:
            return "pass"
        if self.rng.random() < self.slip:
            return EARL.line(3 if due.position != 3 else 2, due.rank)  # another position's line
        return EARL.line(due.position, due.rank)


def seats(*names: str, bots: tuple[str, ...] = ()) -> tuple[Seat, ...]:
    return tuple(Seat(n, SeatKind.BOT if n in bots else SeatKind.HUMAN) for n in names)


def run(settings: TableSettings, sources: dict[int, object]) -> tuple[TableSession, list[TableEvent]]:
    events: list[TableEvent] = []
    session = TableSession(settings, sources, [events.append])  # type: ignore[arg-type]
    session.run()
    return session, events


def test_virtual_hoyle_series_by_voice_is_a_legal_log() -> None:
    settings = TableSettings(seats("Ann", "Ben", "Cy"), HOYLE, DeckMode.VIRTUAL, deals=2, seed=11)
    reciter = Reciter(random.Random(1))
    session, events = run(settings, {0: reciter, 1: reciter, 2: reciter})
    assert isinstance(events[-1], SessionEnded) and events[-1].finished
    kinds = Counter(r["event"] for r in session.records)
    assert kinds["deal"] == 2 and kinds["win"] == 2 and kinds["series"] == 1
    # Every lead/play/pass carries what was heard, and the log replays through the engine.
    for record in session.records:
        if record["event"] in ("lead", "play", "pass"):
            assert record["verdict"] in ("correct", "pass") and "heard" in record and "score" in record
    again = replay(session.records, HOYLE, seed=11, deals=2)
    assert again.totals == session.series.totals and again.over


def test_physical_deck_counts_hands_down_and_hears_the_lead_rank() -> None:
    settings = TableSettings(seats("Ann", "Ben", "Cy", "Di"), HOYLE, DeckMode.PHYSICAL, deals=1, seed=5)
    reciter = Reciter(random.Random(2), physical_play=0.7)
    session, events = run(settings, dict.fromkeys(range(4), reciter))
    begins = [e for e in events if isinstance(e, DealBegins)]
    assert begins and begins[0].physical and sum(n for _, n in begins[0].hand_sizes) == 52
    win = next(r for r in session.records if r["event"] == "win")
    assert win["cards_left"][win["player"]] == 0
    leads = [r for r in session.records if r["event"] == "lead"]
    # The rank of each lead is the one the formula named.
    assert all(r["rank"] == Rank.parse(r["heard"].split()[-3]).value for r in leads)
    plays = sum(1 for r in session.records if r["event"] in ("lead", "play"))
    assert plays == 52 - sum(win["cards_left"])


def test_hoyle_stumble_costs_nothing_but_parlour_takes_the_card_back() -> None:
    for profile, forfeits in ((HOYLE, False), (PARLOUR, True)):
        settings = TableSettings(seats("Ann", "Ben", "Cy"), profile, DeckMode.VIRTUAL, deals=1, seed=3)
        reciter = Reciter(random.Random(4), slip=0.3)
        session, events = run(settings, dict.fromkeys(range(3), reciter))
        judged = [e for e in events if isinstance(e, FormulaGraded) and e.heard.grade.verdict.value not in OK]
        assert judged, "the script made slips"
        assert all(e.takes_back is forfeits for e in judged)
        has_forfeit = any(r["event"] == "forfeit" for r in session.records)
        assert has_forfeit is forfeits
        assert session.series.over


def test_a_pass_heard_is_on_the_screen_s_heard_line_as_a_line_is() -> None:
    """Said to the laptop or held to a phone: the screen shows who passed and what was heard."""
    settings = TableSettings(seats("Ann", "Ben", "Cy"), HOYLE, DeckMode.VIRTUAL, deals=1, seed=11)
    session = TableSession(settings, dict.fromkeys(range(3), Reciter(random.Random(1))))
    view = ScreenView(
        session, TableScreen(Console(file=io.StringIO(), width=80), live=False), show_hands=lambda s: False
    )
    shown: list[tuple[str, TableSnapshot]] = []

    def after_a_pass(event: TableEvent) -> None:
        for passed in (e for e in getattr(event, "events", ()) if isinstance(e, Passed)):
            shown.append((settings.names[passed.player], view.snapshot()))

    session.listeners = [view, after_a_pass]
    session.run()
    assert shown
    for name, snapshot in shown:
        assert (snapshot.heard_from, snapshot.heard, snapshot.verdict) == (name, "pass", "pass")


def test_practice_human_against_bots() -> None:
    settings = TableSettings(
        seats("You", "Bot A", "Bot B", bots=("Bot A", "Bot B")), HOYLE, DeckMode.VIRTUAL, deals=1, seed=8
    )
    bot = BotSource(MostStrategy(), 3)
    human = Reciter(random.Random(5))
    session, events = run(settings, {0: human, 1: bot, 2: bot})
    assert session.series.over
    turns = [e for e in events if isinstance(e, TurnBegins)]
    assert {e.seat for e in turns} == {0, 1, 2}
    assert human.said, "the human recited"


def test_silent_mode_line_commands_play_a_whole_deal() -> None:
    settings = TableSettings(
        seats("Ann", "Ben", "Cy"), HOYLE.with_changes(silent=True), DeckMode.VIRTUAL, deals=1, seed=2
    )
    complaints: list[str] = []
    session_box: list[TableSession] = []

    def lines() -> object:
        yield "dance"  # unknown: a clear message, and the game goes on
        while True:
            deal = session_box[0].deal
            due = deal.formula_due()
            if due is None:
                return
            if due.rank is None:
                assert deal.hands is not None
                yield f"lead {deal.hands[due.player][0].rank.value}"
            elif any(isinstance(a, Pass) for a in deal.legal_actions()):
                yield "pass"
            else:
                yield "play"

    source = LineCommands(lines(), complaints.append)  # type: ignore[arg-type]
    events: list[TableEvent] = []
    session = TableSession(settings, dict.fromkeys(range(3), source), [events.append])
    session_box.append(session)
    session.run()
    assert session.series.over
    assert complaints and "unknown command 'dance'" in complaints[0]
    assert not [e for e in events if isinstance(e, FormulaGraded)]  # no chants in Silent Earl


def test_refusals_reminder_undo_and_pause() -> None:
    settings = TableSettings(seats("Ann", "Ben", "Cy"), HOYLE, DeckMode.VIRTUAL, deals=1, seed=1)
    session = TableSession(settings, {})
    hand = session.deal.hands[session.deal.turn]  # type: ignore[index]
    held = hand[0].rank
    not_held = next(r for r in Rank if all(card.rank is not r for card in hand))
    script = ScriptedInput(
        [
            None,  # silence: one reminder
            None,  # silence again: no second reminder
            EARL.line(1, not_held),  # a rank the leader does not hold: refused
            KeyCommand(Command.PAUSE),
            EARL.line(1, held),  # ignored while paused
            KeyCommand(Command.PAUSE),
            EARL.line(1, held),  # the lead
            KeyCommand(Command.UNDO),  # next player undoes it
            EARL.line(1, held),  # the lead again
        ]
    )
    events: list[TableEvent] = []
    session = TableSession(settings, dict.fromkeys(range(3), script), [events.append])
    for _ in range(3):
        assert session.play_turn()
    assert sum(isinstance(e, Reminded) for e in events) == 1
    assert any(isinstance(e, MoveRefused) and "cannot lead" in e.reason for e in events)
    assert [e.paused for e in events if isinstance(e, PauseChanged)] == [True, False]
    assert any(isinstance(e, Undone) for e in events)
    leads = [r for r in session.records if r["event"] == "lead"]
    assert len(leads) == 1 and Card.parse(leads[0]["card"]).rank is held


def test_undo_rebuilds_the_same_state_and_resume_from_moves() -> None:
    settings = TableSettings(seats("Ann", "Ben", "Cy", "Di"), HOYLE, DeckMode.VIRTUAL, deals=2, seed=21)
    reciter = Reciter(random.Random(9))
    session, _ = run(settings, dict.fromkeys(range(4), reciter))
    moves = session.moves
    half = moves[: len(moves) // 2]
    resumed = TableSession(settings, {}, moves=half)
    assert resumed.records == session.records[: len(resumed.records)]
    assert [m.action for m in resumed.moves] == [m.action for m in half]


def test_keyboard_refuses_impossible_moves_with_reasons() -> None:
    settings = TableSettings(
        seats("Ann", "Ben", "Cy"), HOYLE.with_changes(silent=True), DeckMode.VIRTUAL, deals=1, seed=4
    )
    session = TableSession(settings, {})
    deal = session.deal
    leader = deal.turn
    assert deal.hands is not None
    rank = deal.hands[leader][0].rank
    follower = (leader + 1) % 3
    follower_holds = any(card.rank is rank for card in deal.hands[follower])
    script = ScriptedInput(
        [
            KeyCommand(Command.PLAY),  # a lead needs a rank
            KeyCommand(Command.PASS),  # nothing open to pass on
            KeyCommand(Command.LEAD, rank),
            KeyCommand(Command.PASS) if follower_holds else KeyCommand(Command.PLAY),  # wrong either way
            KeyCommand(Command.PLAY) if follower_holds else KeyCommand(Command.PASS),
        ]
    )
    events: list[TableEvent] = []
    session = TableSession(settings, dict.fromkeys(range(3), script), [events.append])
    assert session.play_turn() and session.play_turn()
    reasons = [e.reason for e in events if isinstance(e, MoveRefused)]
    assert len(reasons) == 3, reasons
    assert "needs a rank" in reasons[0] and "must lead" in reasons[1]
    assert ("must play" in reasons[2]) if follower_holds else ("holds no" in reasons[2])
    applied = [e for e in events if isinstance(e, RulesApplied)]
    assert len([r for e in applied for r in e.records if r["event"] in ("lead", "play", "pass")]) == 2


@pytest.mark.parametrize(
    ("source", "how"),
    [
        (KeyPresses(io.StringIO("\rq"), print), "press its key (A 2-9 0/T J Q K)"),  # typing 'lead Q' led Aces
        (LineCommands(["play", "lead Q"], print), "type lead and the rank, e.g. lead Q"),
    ],
    ids=["keys", "lines"],
)
def test_a_lead_without_a_rank_is_told_how_to_name_one_as_its_player_can(source: object, how: str) -> None:
    settings = TableSettings(
        seats("Ann", "Ben", "Cy"), HOYLE.with_changes(silent=True), DeckMode.VIRTUAL, deals=1, seed=4
    )
    events: list[TableEvent] = []
    session = TableSession(settings, dict.fromkeys(range(3), source), [events.append])  # type: ignore[arg-type]
    session.play_turn()
    assert next(e.reason for e in events if isinstance(e, MoveRefused)) == f"a lead needs a rank: {how}"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_resume_after_stop_continues_to_the_same_end(seed: int) -> None:
    settings = TableSettings(seats("Ann", "Ben", "Cy"), HOYLE, DeckMode.VIRTUAL, deals=2, seed=seed)
    bot = BotSource(MostStrategy(), 0)
    full, _ = run(settings, dict.fromkeys(range(3), bot))
    cut = len(full.moves) // 3
    resumed = TableSession(settings, {}, moves=full.moves[:cut])
    for move in full.moves[cut:]:
        resumed_input = ScriptedInput([_as_input(move)])
        resumed.inputs = dict.fromkeys(range(3), resumed_input)
        assert resumed.play_turn()
    assert resumed.records == full.records


def _as_input(move: Move) -> TurnInput:
    from voice_earl.table.turns import BotMove

    return BotMove(move.action)


def test_silence_input_is_reminded_once() -> None:
    settings = TableSettings(seats("Ann", "Ben", "Cy"), HOYLE, DeckMode.VIRTUAL, deals=1, seed=1)
    script = ScriptedInput([Silence(20.0), Silence(20.0), Silence(20.0), KeyCommand(Command.QUIT)])
    events: list[TableEvent] = []
    session = TableSession(settings, dict.fromkeys(range(3), script), [events.append])
    ended = session.run()
    assert not ended.finished
    assert sum(isinstance(e, Reminded) for e in events) == 1


@pytest.mark.parametrize(
    ("source", "how"),
    [
        ("keys", "press space to pass"),
        ("lines", "type pass"),
        ("voice", "say “I pass”"),
        ("knock", "say “I pass”, or knock on the table"),
    ],
)
def test_holding_none_of_the_open_rank_says_how_this_player_passes(source: str, how: str) -> None:
    import io

    from voice_earl.table.turns import KeyPresses
    from voice_earl.table.voice_input import VoiceInput

    settings = TableSettings(
        seats("Ann", "Ben", "Cy"),
        HOYLE.with_changes(silent=source not in ("voice", "knock")),
        DeckMode.VIRTUAL,
        deals=1,
        seed=4,
    )
    deal = TableSession(settings, {}).deal
    assert deal.hands is not None
    follower = (deal.turn + 1) % 3
    rank = next(
        card.rank
        for card in deal.hands[deal.turn]
        if not any(other.rank is card.rank for other in deal.hands[follower])
    )
    complaints: list[str] = []
    given: object
    if source == "keys":
        key = "0" if rank.value == "10" else rank.value.lower()
        given = KeyPresses(io.StringIO(f"{key}\rxy"), complaints.append)
    elif source == "lines":
        given = LineCommands([f"lead {rank.value}", "play", "quit"], complaints.append)
    elif source == "voice":
        given = ScriptedInput([KeyCommand(Command.LEAD, rank), KeyCommand(Command.PLAY)])
    else:  # a voice table that hears a knock on the table as a pass

        class Knocking(ScriptedInput):
            pass_hint = VoiceInput(None, chunks=iter, knock=True).pass_hint  # type: ignore[arg-type]

        given = Knocking([KeyCommand(Command.LEAD, rank), KeyCommand(Command.PLAY)])
    events: list[TableEvent] = []
    session = TableSession(settings, dict.fromkeys(range(3), given), [events.append])  # type: ignore[arg-type]
    session.run()
    (refused,) = [e.reason for e in events if isinstance(e, MoveRefused)]
    assert refused == f"{settings.names[follower]} holds no {rank.plural.lower()}: {how}"


@pytest.mark.parametrize(("language", "word"), [("nl", "pas"), ("it", "passo")])
def test_at_a_dutch_or_italian_table_a_player_passes_with_the_word_its_rules_name(language: str, word: str) -> None:
    from voice_earl.i18n import set_language

    class Native(Reciter):
        def next_input(self, request: TurnRequest) -> TurnInput:
            if len(self.said) > 300:  # a pass not heard is asked for again: the deal would never end
                return KeyCommand(Command.QUIT)
            return super().next_input(request)

        def line_for(self, request: TurnRequest) -> str:
            said = super().line_for(request)
            return word if said == "pass" else said

    set_language(language)
    settings = TableSettings(seats("Ann", "Ben", "Cy"), HOYLE, DeckMode.VIRTUAL, deals=1, seed=11)
    session = TableSession(settings, dict.fromkeys(range(3), Native(random.Random(1))))  # type: ignore[arg-type]
    while not session.deal.over and session.play_turn():
        pass
    assert session.deal.over
    passes = [record for record in session.records if record["event"] == "pass"]
    assert passes and {(record["heard"], record["verdict"]) for record in passes} == {(word, "pass")}


class RealPack:
    """A table with a real pack that plays every card it is asked for and leads the first rank not finished."""

    def __init__(self, then: list[TurnInput]) -> None:
        self.then = then  # given instead, once the first deal is over
        self.session: TableSession | None = None

    def next_input(self, request: TurnRequest) -> TurnInput:
        if self.session is not None and self.session.deal.number > 1:
            return self.then.pop(0) if self.then else KeyCommand(Command.QUIT)
        if request.due.rank is None:
            return KeyCommand(Command.LEAD, request.context.ranks[0])
        return KeyCommand(Command.PLAY)


def test_undo_at_the_start_of_a_deal_does_not_reopen_the_deal_before() -> None:
    settings = TableSettings(
        seats("Ann", "Ben", "Cy"), HOYLE.with_changes(silent=True), DeckMode.PHYSICAL, deals=3, seed=5
    )
    table = RealPack([KeyCommand(Command.UNDO)])
    events: list[TableEvent] = []
    session = TableSession(settings, dict.fromkeys(range(3), table), [events.append])
    table.session = session
    session.run()
    assert session.deal.number == 2 and not session.deal.history  # the cards of deal 2 are dealt: it stays
    assert sum(r["event"] == "settle" for r in session.records) == 1  # deal 1's payments stay made
    refused = [e for e in events if isinstance(e, MoveRefused)]
    assert [e.reason for e in refused] == ["Nothing to undo: deal 1 is over and paid, and deal 2 has just been dealt."]
    assert not any(isinstance(e, Undone) for e in events)


def test_leading_a_finished_rank_says_it_is_finished() -> None:
    settings = TableSettings(
        seats("Ann", "Ben", "Cy"), HOYLE.with_changes(silent=True), DeckMode.VIRTUAL, deals=1, seed=3
    )
    session = TableSession(settings, dict.fromkeys(range(3), BotSource(MostStrategy(), "t")))
    while not (session.deal.finished_ranks() and session.deal.rank is None):
        session.play_turn()
    finished = session.deal.finished_ranks()[0]
    events: list[TableEvent] = []
    session.listeners = [events.append]
    session.inputs = dict.fromkeys(range(3), ScriptedInput([KeyCommand(Command.LEAD, finished)]))
    assert not session.play_turn()  # then the script ends: quit
    reasons = [e.reason for e in events if isinstance(e, MoveRefused)]
    assert reasons == [f"All four {finished.plural.lower()} are out already: lead another rank."]


def mumbled_after_the_lead(settings: TableSettings, rank: Rank) -> FormulaGraded:
    """The grade of a mumble by the player after a lead of ``rank`` (then the table quits)."""

    class Mumbler:
        def next_input(self, request: TurnRequest) -> TurnInput:
            if request.due.rank is None:
                return KeyCommand(Command.QUIT) if request.move_number else KeyCommand(Command.LEAD, rank)
            if any(isinstance(e, FormulaGraded) for e in events):
                return KeyCommand(Command.QUIT)
            return Heard(grade_line("the cat sat on the mat", request.context))

    events: list[TableEvent] = []
    TableSession(settings, dict.fromkeys(range(3), Mumbler()), [events.append]).run()  # type: ignore[arg-type]
    (graded,) = [e for e in events if isinstance(e, FormulaGraded)]
    return graded


@pytest.mark.parametrize("holds", [False, True])
def test_a_player_who_may_only_pass_and_is_not_heard_is_told_to_say_i_pass(holds: bool) -> None:
    from voice_earl.table import narrator as say

    settings = TableSettings(seats("Ann", "Ben", "Cy"), HOYLE, DeckMode.VIRTUAL, deals=1, seed=4)
    deal = TableSession(settings, {}).deal
    assert deal.hands is not None
    follower = (deal.turn + 1) % 3
    rank = next(
        card.rank
        for card in deal.hands[deal.turn]
        if any(other.rank is card.rank for other in deal.hands[follower]) is holds
    )

    graded = mumbled_after_the_lead(settings, rank)
    grade = graded.heard.grade
    line = EARL.line(2, rank)
    if holds:
        assert (grade.expected, grade.must_pass) == (line, False)
        assert say.unclear(graded.name, grade.expected).text.endswith(f"Say: {line}.")
    else:
        assert (grade.expected, grade.must_pass) == ("I pass", True)
        assert grade.feedback() == "nothing clear was heard; to pass, say 'I pass'"
        assert say.unclear(graded.name, grade.expected).text.endswith("Say: I pass.")


def test_on_a_real_pack_a_player_not_heard_is_told_the_line_or_i_pass() -> None:
    """The laptop does not know a real pack's hands: a mumble after the lead may have been a pass, so
    the narrator, the screen and the phone say the line or "I pass", not the line alone."""
    from voice_earl.table import narrator as say

    settings = TableSettings(seats("Ann", "Ben", "Cy"), HOYLE, DeckMode.PHYSICAL, deals=1, seed=4)
    graded = mumbled_after_the_lead(settings, Rank.SIX)
    grade = graded.heard.grade
    line = EARL.line(2, Rank.SIX)
    assert (grade.expected, grade.must_pass, grade.or_pass) == (line, False, True)
    assert grade.feedback().endswith("; or, to pass, say 'I pass'")
    told = say.unclear(graded.name, grade.expected, or_pass=grade.or_pass)
    assert told.text.endswith(f"Say: {line}, or: I pass.")
    assert told.line == f'{graded.name}: not heard clearly - say "{line}" or "I pass"'


def test_leading_a_finished_rank_by_voice_on_a_real_pack_says_it_is_finished() -> None:
    """The laptop does not know a real pack's hands, so a lead of a rank whose four cards are out is
    refused for that reason, not with "lead a rank you hold"."""
    settings = TableSettings(seats("Ann", "Ben", "Cy"), HOYLE, DeckMode.PHYSICAL, deals=1, seed=4)

    class Player:
        def next_input(self, request: TurnRequest) -> TurnInput:
            if any(isinstance(e, MoveRefused) for e in events):
                return KeyCommand(Command.QUIT)
            if request.due.rank is not None:
                return KeyCommand(Command.PLAY)
            if request.move_number == 0:
                return KeyCommand(Command.LEAD, Rank.THREE)
            return Heard(grade_line("there's as good as three can be", request.context))

    events: list[TableEvent] = []
    TableSession(settings, dict.fromkeys(range(3), Player()), [events.append]).run()  # type: ignore[arg-type]
    reasons = [e.reason for e in events if isinstance(e, MoveRefused)]
    assert reasons == ["All four threes are out already: lead another rank."]


class MovesThenUndoes:
    """A player who moves as a bot would, then presses undo at each turn after that."""

    def __init__(self, undos: int) -> None:
        self.bot = BotSource(MostStrategy(), 3)
        self.requests: list[TurnRequest] = []
        self.undos = undos

    def next_input(self, request: TurnRequest) -> TurnInput:
        self.requests.append(request)
        if len(self.requests) == 1:
            return self.bot.next_input(request)
        return KeyCommand(Command.UNDO if len(self.requests) <= 1 + self.undos else Command.QUIT)


@pytest.mark.parametrize("seed", [8, 9, 10])
def test_in_practice_undo_takes_back_the_players_own_move_and_the_bots_after_it(seed: int) -> None:
    """A bot's move taken back alone, the bot makes again at once: undo would seem to do nothing."""
    settings = TableSettings(
        seats("You", "Bot A", "Bot B", bots=("Bot A", "Bot B")), HOYLE, DeckMode.VIRTUAL, deals=1, seed=seed
    )
    bot = BotSource(MostStrategy(), 3)
    you = MovesThenUndoes(undos=2)
    events: list[TableEvent] = []
    session = TableSession(settings, {0: you, 1: bot, 2: bot}, [events.append])
    session.run()
    mine, undone, again = (request.move_number for request in you.requests[:3])
    assert undone > mine + 1, "the bots moved after the player"
    assert again == mine  # back to the player's own turn, before the player's move
    assert [e.name for e in events if isinstance(e, Undone)] == ["You"]
    refused = [e.reason for e in events if isinstance(e, MoveRefused)]
    if mine == 0:  # nothing of the player's left to take back in the deal
        assert refused == ["nothing to undo yet"]
    else:
        assert refused == ["Nothing to undo: only the bots have moved in deal 1 so far."]

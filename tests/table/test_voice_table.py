"""The voice at the table: the real listener behind the session's input, and the demo."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from types import SimpleNamespace

import numpy as np
import pytest
from support.patience import WAIT_S

from voice_earl.commands.cli import main
from voice_earl.game.cards import Rank
from voice_earl.game.rules import HOYLE, DeckMode
from voice_earl.listening.stream.audio import AudioChunk
from voice_earl.table.recitals import synthesized_recital
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import Seat, TableSettings
from voice_earl.table.turns import Heard, Silence
from voice_earl.table.voice_input import Clock, VoiceInput, open_listener
from voice_earl.words.context import ListenContext
from voice_earl.words.verdicts import Verdict


class FakeClock(Clock):
    """Advances by each chunk's duration, so a 20 s silence takes no real time."""

    def __init__(self) -> None:
        self.t = 1000.0

    def now(self) -> float:
        return self.t


def silent_chunks(clock: FakeClock, seconds: float) -> Iterator[AudioChunk]:
    for _ in range(int(seconds / 0.04)):
        clock.t += 0.04
        yield AudioChunk(np.zeros(640, dtype=np.int16).tobytes(), captured_at=None)


@pytest.fixture(scope="module")
def listener():  # type: ignore[no-untyped-def]
    found, _ = open_listener(SimpleNamespace(recognizer="pocketsphinx"))
    return found


@pytest.mark.slow
def test_silence_times_out_to_a_silence_input(listener) -> None:  # type: ignore[no-untyped-def]
    clock = FakeClock()
    source = VoiceInput(listener, chunks=lambda: silent_chunks(clock, 60.0), silence_timeout_s=20.0, clock=clock)
    session = TableSession(TableSettings(tuple(Seat(n) for n in "ABC"), HOYLE, DeckMode.VIRTUAL, deals=1, seed=1), {})
    given = source.next_input(session.request())
    assert isinstance(given, Silence) and 19.9 <= given.seconds <= 21.0


@pytest.mark.slow
def test_a_spoken_lead_is_heard_and_judged(listener) -> None:  # type: ignore[no-untyped-def]
    recite = synthesized_recital(listener, "en+m3")
    context = ListenContext(1, (Rank.SEVEN, Rank.KING))
    heard = recite(context, "There's as good as Seven can be")
    assert isinstance(heard, Heard)
    assert heard.grade.verdict is Verdict.CORRECT and heard.grade.rank is Rank.SEVEN
    assert heard.latency_ms is not None and heard.latency_ms >= 0


@pytest.mark.slow
def test_demo_plays_a_deal_through_the_listener(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--players", "3", "--seed", "2", "--jsonl", "--recognizer", "pocketsphinx"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    kinds = [r["event"] for r in records]
    assert kinds[0] == "deal" and "win" in kinds and kinds[-1] == "series"
    spoken = [r for r in records if r["event"] in ("lead", "play", "pass")]
    fields = {"heard", "verdict", "score", "latency_ms"}
    assert spoken and all(fields <= set(r) for r in spoken), [r for r in spoken if not fields <= set(r)]
    correct = sum(r["verdict"] in ("correct", "pass") for r in spoken)
    assert correct >= len(spoken) // 2, "most synthesized formulas are recognised"


@pytest.mark.slow
def test_the_demo_hears_its_bots_formulas(capsys: pytest.CaptureFixture[str]) -> None:
    """The bots' formulas heard correctly, none swallowed by a command word: at least 98%. What is
    heard depends on the audio alone, so this deal always gives the same figure: 99 of 99. The bar
    leaves one formula for a CPU whose arithmetic rounds differently."""
    from voice_earl.listening.models.judge_models import discover_judge_model

    if discover_judge_model() is None:
        pytest.skip("the judge extra is not installed")
    assert main(["demo", "--players", "3", "--seed", "3", "--deals", "2", "--jsonl"]) == 0
    out, err = capsys.readouterr()
    assert "pocketsphinx + whisper judge" in err
    records = [json.loads(line) for line in out.splitlines()]
    formulas = [r for r in records if r["event"] in ("lead", "play")]
    passes = [r for r in records if r["event"] == "pass"]
    assert len(formulas) >= 80
    heard = sum(r["verdict"] == "correct" for r in formulas)
    missed = [(r["line"], r["heard"]) for r in formulas if r["verdict"] != "correct"]
    assert heard >= math.ceil(0.98 * len(formulas)), missed
    assert all(r["heard"] not in ("undo", "repeat") for r in formulas)
    assert sum(r["verdict"] == "pass" for r in passes) >= 0.95 * len(passes)


@pytest.mark.slow
def test_spoken_undo_takes_back_the_last_move(listener) -> None:  # type: ignore[no-untyped-def]
    from voice_earl.table.session_events import Undone
    from voice_earl.table.turns import BotMove

    settings = TableSettings(tuple(Seat(n) for n in "ABC"), HOYLE, DeckMode.VIRTUAL, deals=1, seed=1)
    session = TableSession(settings, {})
    first = session.deal.legal_actions()[0]
    recite = synthesized_recital(listener, "en-us")

    class Script:
        def __init__(self) -> None:
            self.turns = 0

        def next_input(self, request):  # type: ignore[no-untyped-def]
            self.turns += 1
            if self.turns == 1:
                return BotMove(first)
            return recite(request.context, "undo")

    events: list[object] = []
    session = TableSession(settings, dict.fromkeys(range(3), Script()), [events.append])
    assert session.play_turn() and session.play_turn()
    assert any(isinstance(e, Undone) for e in events)
    assert session.moves == []


@pytest.mark.slow
def test_practice_bots_recite_their_formulas_in_their_own_voices() -> None:
    from voice_earl.game.bots import MostStrategy
    from voice_earl.table.narrator import Narrator, Verbosity
    from voice_earl.table.play_modes import BotRecital
    from voice_earl.table.playback import RecordingOutput
    from voice_earl.table.session_events import SeatKind
    from voice_earl.table.speech import render
    from voice_earl.table.turns import BotSource

    seats = (Seat("A", SeatKind.BOT), Seat("B", SeatKind.BOT), Seat("C", SeatKind.BOT))
    settings = TableSettings(seats, HOYLE, DeckMode.VIRTUAL, deals=1, seed=6)
    output = RecordingOutput()
    lines: list[str] = []
    narrator = Narrator(verbosity=Verbosity.QUIET, output=output, printer=lines.append)
    reciter = BotRecital(settings)
    reciter.narrator = narrator
    bot = BotSource(MostStrategy(), "p", recite=reciter)
    session = TableSession(settings, dict.fromkeys(range(3), bot))
    for _ in range(4):
        session.play_turn()
    narrator.wait(timeout=WAIT_S)
    narrator.close()
    recited = [line for line in lines if "There's" in line]
    assert recited, "the bots said their lines"
    first_line = recited[0].split(": ", 1)[1]
    spoken = output.records[0].audio
    assert abs(spoken.duration - render(first_line).duration) > 0.01 or not np.array_equal(
        spoken.samples, render(first_line).samples
    ), "a bot's voice differs from the narrator's"


@pytest.mark.slow
def test_keep_audio_stores_a_wav_of_each_formula_heard(listener, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import wave

    from voice_earl.keep.storage import Store
    from voice_earl.table.journal import start_journal
    from voice_earl.table.saved_series import SeriesSetup
    from voice_earl.table.speech import render, to_16k_mono

    audio = to_16k_mono(render("There's as good as Seven can be", voice="en-us"))
    samples = np.concatenate([np.asarray(audio.samples, dtype=np.int16), np.zeros(16000, dtype=np.int16)])
    from voice_earl.listening.stream.audio import pcm_chunks

    def chunks() -> Iterator[AudioChunk]:
        return (AudioChunk(pcm) for pcm in pcm_chunks(samples))

    settings = TableSettings(tuple(Seat(n) for n in "ABC"), HOYLE, DeckMode.PHYSICAL, deals=1, seed=2)
    voice = VoiceInput(listener, chunks=chunks, keep_audio=True)
    with Store.open(tmp_path / "db.sqlite3", keep_audio=True) as store:
        session = TableSession(settings, dict.fromkeys(range(3), voice))
        session.listeners = [start_journal(store, session, SeriesSetup(settings))]
        assert session.play_turn()
        (kept,) = store.utterances()
        assert kept.verdict == "correct" and kept.audio_path is not None
        path = kept.audio_path if kept.audio_path.is_absolute() else store.path.parent / kept.audio_path
        with wave.open(str(path)) as wav:
            # the audio up to the decision, which early accept takes before the trailing silence
            assert wav.getframerate() == 16000 and wav.getnframes() >= len(audio.samples) * 0.75


def test_a_command_word_decoded_from_formula_length_speech_is_not_a_command() -> None:
    from voice_earl.listening.stream.utterance import Utterance
    from voice_earl.table.voice_input import implausible_command

    def heard(text: str, seconds: float) -> Utterance:
        return Utterance(
            text=text,
            speech_start=1.0,
            speech_end=1.0 + seconds,
            decided_at=3.0,
            early=False,
            audio_s=3.0,
            compute_s=0.1,
        )

    assert implausible_command(heard("undo", 2.0))
    assert not implausible_command(heard("undo", 0.5))
    assert not implausible_command(heard("there is the best of all the three", 2.0))


@pytest.mark.parametrize(("seconds", "undone"), [(2.0, False), (0.5, True)])
def test_a_command_word_over_formula_length_speech_takes_nothing_back(seconds: float, undone: bool) -> None:
    """ "undo" decoded from two seconds of speech is a line forced onto the command: the session takes
    back nothing on it (and shows no words), while "undo" said in half a second takes back the lead."""
    from voice_earl.listening.stream.utterance import Utterance
    from voice_earl.table.session_events import FormulaGraded, TableEvent, Undone
    from voice_earl.table.turns import Command, KeyCommand, TurnInput, TurnRequest
    from voice_earl.table.voice_input import graded
    from voice_earl.words.verdicts import Strictness

    said = Utterance("undo", 1.0, 1.0 + seconds, decided_at=3.0, early=False, audio_s=3.0, compute_s=0.1)
    settings = TableSettings(tuple(Seat(n) for n in ("Ann", "Ben", "Cy")), HOYLE, DeckMode.PHYSICAL, deals=1, seed=4)

    class Player:
        def next_input(self, request: TurnRequest) -> TurnInput:
            if any(isinstance(e, FormulaGraded | Undone) for e in events):
                return KeyCommand(Command.QUIT)
            if request.due.rank is None:
                return KeyCommand(Command.LEAD, Rank.SIX)
            return Heard(graded(said, request.context, Strictness.NORMAL))

    events: list[TableEvent] = []
    TableSession(settings, dict.fromkeys(range(3), Player()), [events.append]).run()  # type: ignore[arg-type]
    assert any(isinstance(e, Undone) for e in events) is undone
    if not undone:
        (unclear,) = [e for e in events if isinstance(e, FormulaGraded)]
        assert (unclear.heard.grade.verdict, unclear.heard.grade.heard) == (Verdict.UNCLEAR, "")


@pytest.mark.slow
def test_talking_over_the_narrator_cuts_it_short_only_with_barge_in(listener) -> None:  # type: ignore[no-untyped-def]
    from voice_earl.listening.stream.audio import pcm_chunks
    from voice_earl.table.speech import render, to_16k_mono

    speech = np.asarray(to_16k_mono(render("There's a Queen as good as he", voice="en-us")).samples, np.int16)
    quiet = np.random.default_rng(1).normal(0, 30, 16000 * 2).astype(np.int16)
    session = TableSession(TableSettings(tuple(Seat(n) for n in "ABC"), HOYLE, DeckMode.VIRTUAL, deals=1, seed=1), {})
    for samples, expected in ((np.concatenate([quiet, speech, quiet]), 1), (quiet, 0)):
        cut: list[bool] = []
        source = VoiceInput(
            listener,
            chunks=lambda s=samples: (AudioChunk(p) for p in pcm_chunks(s)),
            barge_in=lambda c=cut: c.append(True),
            silence_timeout_s=60.0,
        )
        with listener.muted():  # the narrator is speaking the whole time
            source.next_input(session.request())
        assert len(cut) == expected


def test_paused_voice_input_does_not_listen_and_waits_for_the_pause_key() -> None:
    import io
    from dataclasses import replace

    from voice_earl.table.turns import Command, KeyCommand

    def no_microphone() -> Iterator[AudioChunk]:
        raise AssertionError("the microphone is not listened to while paused")

    session = TableSession(TableSettings(tuple(Seat(n) for n in "ABC"), HOYLE, DeckMode.VIRTUAL, deals=1, seed=1), {})
    source = VoiceInput(None, chunks=no_microphone, keys=io.StringIO("x p"))  # type: ignore[arg-type]
    paused = replace(session.request(), paused=True)
    assert source.next_input(paused) == KeyCommand(Command.PAUSE)


@pytest.mark.slow
def test_a_physical_deck_game_heard_through_the_real_listener(listener) -> None:  # type: ignore[no-untyped-def]
    """Players speak (synthesized) into the microphone path; the referee hears leads, plays and passes."""
    import random

    from voice_earl.game.chants import EARL
    from voice_earl.listening.stream.audio import pcm_chunks
    from voice_earl.table.speech import render, to_16k_mono
    from voice_earl.table.turns import TurnInput, TurnRequest

    rng = random.Random(4)
    room = np.random.default_rng(4)
    said: list[str] = []

    class Speaker:
        """Decides what the player says, then lets the real voice input hear it."""

        def __init__(self) -> None:
            self.audio = np.zeros(0, np.int16)
            self.voice = VoiceInput(listener, chunks=lambda: (AudioChunk(p) for p in pcm_chunks(self.audio)))

        def next_input(self, request: TurnRequest) -> TurnInput:
            due = request.due
            if due.rank is None:
                text = EARL.line(1, rng.choice(request.context.ranks))
            else:
                text = EARL.line(due.position, due.rank) if rng.random() < 0.6 else "pass"
            said.append(text)
            speech = np.asarray(to_16k_mono(render(text, voice="en-us")).samples, np.float64)
            padded = np.concatenate([np.zeros(3200), speech, np.zeros(16000)])
            self.audio = np.clip(padded + room.normal(0, 30, padded.shape), -32768, 32767).astype(np.int16)
            return self.voice.next_input(request)

    settings = TableSettings(tuple(Seat(n) for n in "ABC"), HOYLE, DeckMode.PHYSICAL, deals=1, seed=3)
    speaker = Speaker()
    session = TableSession(settings, dict.fromkeys(range(3), speaker))
    for _ in range(12):
        assert session.play_turn()
    moves = [r for r in session.records if r["event"] in ("lead", "play", "pass")]
    assert len(moves) == 12
    assert all(r["verdict"] in ("correct", "pass") for r in moves), [(r["heard"], r["verdict"]) for r in moves]
    for record in moves:
        if record["event"] == "lead":
            assert Rank.parse(record["heard"].split()[-3]).value == record["rank"]  # the rank the formula named
    assert sum(session.deal.sizes) == 52 - sum(r["event"] != "pass" for r in moves)


def test_after_a_deal_a_key_goes_on_at_once_even_while_the_narrator_speaks() -> None:
    import os

    from voice_earl.table.terminal import cbreak

    def no_microphone() -> Iterator[AudioChunk]:
        raise AssertionError("a key went on: nothing is listened to")

    master, slave = os.openpty()
    keys = os.fdopen(slave, "r")
    cut: list[bool] = []
    waited: list[float] = []

    def speaking(timeout: float) -> bool:
        waited.append(timeout)
        if len(waited) == 3:
            os.write(master, b"n")  # a key, while the narrator is still speaking
        return False  # the narrator never finishes

    try:
        source = VoiceInput(
            None,
            chunks=no_microphone,
            keys=keys,
            narrator_idle=speaking,  # type: ignore[arg-type]
            on_key=lambda: cut.append(True),
        )
        with cbreak(keys):  # as for the whole of a voice game at a terminal
            source.wait_to_go_on(final=False)
    finally:
        keys.close()
        os.close(master)
    assert cut == [True] and len(waited) == 3  # the key cut the narrator short


def test_a_quit_or_a_pause_pressed_during_a_bots_spoken_turn_waits_for_the_players_turn() -> None:
    """A bot recites its line while the player presses space, then x: the space is no move of the player's
    turn, but the quit is asked there, before the microphone is listened to; so is a pause."""
    import os
    from dataclasses import replace

    from voice_earl.table.turns import Command, KeyCommand

    def no_microphone() -> Iterator[AudioChunk]:
        raise AssertionError("a key kept from the bots' turns answers first: nothing is listened to")

    session = TableSession(TableSettings(tuple(Seat(n) for n in "ABC"), HOYLE, DeckMode.VIRTUAL, deals=1, seed=1), {})
    main, side = os.openpty()
    shown: list[str] = []

    def show(line: str) -> None:
        shown.append(line)
        if line.startswith("Quit?"):
            os.write(main, b"y")

    with os.fdopen(side, "r") as keys:
        source = VoiceInput(None, chunks=no_microphone, keys=keys, show=show)  # type: ignore[arg-type]
        os.write(main, b" x")  # during the bots' moves 0 to 2
        assert source.next_input(replace(session.request(), move_number=3)) == KeyCommand(Command.QUIT)
        assert shown == ["Quit? the series is saved (y/n)"]
        os.write(main, b" p")
        assert source.next_input(replace(session.request(), move_number=6)) == KeyCommand(Command.PAUSE)
    os.close(main)


def test_after_a_deal_x_asks_whether_to_quit_even_while_the_narrator_speaks() -> None:
    import os

    from voice_earl.table.terminal import cbreak

    def no_microphone() -> Iterator[AudioChunk]:
        raise AssertionError("a key answered: nothing is listened to")

    master, slave = os.openpty()
    keys = os.fdopen(slave, "r")
    shown: list[str] = []

    def show(text: str) -> None:
        shown.append(text)
        if len(shown) == 3:  # asked again: this time, yes
            os.write(master, b"y")

    try:
        source = VoiceInput(
            None,  # type: ignore[arg-type]
            chunks=no_microphone,
            keys=keys,
            narrator_idle=lambda timeout: False,  # the narrator never finishes
            show=show,
        )
        with cbreak(keys):
            os.write(master, b"xnx")  # x: asked, no, waiting still; x: asked again
            assert source.wait_to_go_on(final=False) is False
    finally:
        keys.close()
        os.close(master)
    assert shown == [
        "Quit? the series is saved (y/n)",
        "Not quitting: the game goes on.",
        "Quit? the series is saved (y/n)",
    ]


@pytest.mark.slow
def test_after_a_deal_the_view_stays_a_short_pause_after_the_narrator(listener) -> None:  # type: ignore[no-untyped-def]
    from voice_earl.table.voice_input import GO_ON_PAUSE_S

    clock = FakeClock()
    started = clock.t
    idle: list[float] = []
    source = VoiceInput(
        listener,
        chunks=lambda: silent_chunks(clock, 60.0),
        clock=clock,
        narrator_idle=lambda timeout: idle.append(timeout) or True,
    )
    source.wait_to_go_on(final=False)
    assert idle, "it waited for the narrator first"
    assert GO_ON_PAUSE_S - 0.1 <= clock.t - started <= GO_ON_PAUSE_S + 0.5


@pytest.mark.slow
def test_saying_next_goes_on_before_the_pause_is_over(listener) -> None:  # type: ignore[no-untyped-def]
    from voice_earl.listening.stream.audio import pcm_chunks
    from voice_earl.table.speech import render, to_16k_mono

    clock = FakeClock()
    speech = np.asarray(to_16k_mono(render("next", voice="en+m3")).samples, np.float64)
    padded = np.concatenate([np.zeros(3200), speech, np.zeros(16000 * 30)])
    samples = np.clip(padded + np.random.default_rng(2).normal(0, 33, padded.shape), -32768, 32767).astype(np.int16)

    def chunks() -> Iterator[AudioChunk]:
        for pcm in pcm_chunks(samples):
            clock.t += len(pcm) / 32000
            yield AudioChunk(pcm)

    source = VoiceInput(listener, chunks=chunks, clock=clock)
    started = clock.t
    source._hear_next(20.0)
    assert clock.t - started < 5.0, "'next' ended the wait long before its 20 seconds"


@pytest.mark.slow
def test_speech_set_aside_asks_the_player_again_on_the_screen_and_listening_goes_on(listener) -> None:  # type: ignore[no-untyped-def]
    from voice_earl.listening.stream.audio import pcm_chunks
    from voice_earl.table.speech import render, to_16k_mono

    def said(text: str) -> np.ndarray:
        return np.asarray(to_16k_mono(render(text, voice="en-us")).samples, dtype=np.int16)

    quiet = np.zeros(16000, dtype=np.int16)
    stream = np.concatenate([quiet, said("hmm hmm"), quiet, said("There's as good as Seven can be"), quiet])
    shown: list[str] = []
    voice = VoiceInput(listener, chunks=lambda: (AudioChunk(pcm) for pcm in pcm_chunks(stream)), show=shown.append)
    settings = TableSettings(tuple(Seat(n) for n in ("Ann", "Ben", "Cy")), HOYLE, DeckMode.PHYSICAL, deals=1, seed=2)
    session = TableSession(settings, dict.fromkeys(range(3), voice))
    request = session.request()

    given = voice.next_input(request)

    assert shown == [f"{request.name}: that was not heard as a line or a pass - say it again"]
    assert isinstance(given, Heard) and given.grade.verdict is Verdict.CORRECT  # the line after it still counts


def test_no_microphone_is_said_before_the_recognizer_spends_its_seconds_loading(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from voice_earl.errors import VoiceEarlError
    from voice_earl.table import voice_input

    loads: list[object] = []
    monkeypatch.setattr(voice_input, "open_chain", lambda *given, **named: loads.append(given))
    settings = TableSettings(tuple(Seat(n) for n in "ABC"), HOYLE, DeckMode.VIRTUAL, deals=1, seed=1)
    no_microphone = SimpleNamespace(device="voice-earl-test-no-such-microphone")
    with (
        pytest.raises(VoiceEarlError, match=r"no microphone found|no input device|PortAudio"),
        voice_input.open_voice_input(no_microphone, settings),
    ):
        pass
    assert loads == []  # nothing was loaded for a game that cannot listen
    assert "loading the recognizer" not in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize(
    ("judge", "said"),
    [
        (True, "pocketsphinx + whisper judge"),
        (False, "pocketsphinx alone: without the whisper judge, table talk may move the game (--no-judge)"),
    ],
)
def test_the_listener_is_named_in_one_short_line_with_its_paths_in_the_log(judge: bool, said: str) -> None:
    _found, reason = open_listener(SimpleNamespace(recognizer="pocketsphinx", no_judge=not judge))
    assert reason == said and "/" not in reason

"""The narrator: real speech rendered and "played" on a silent device that takes real time."""

from __future__ import annotations

import itertools
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from support.patience import WAIT_S

from voice_earl.errors import UsageError
from voice_earl.game.cards import Rank
from voice_earl.game.chants import SNIP_SNAP_SNORUM
from voice_earl.table import narrator, speech, speech_synth
from voice_earl.table.narrator import Kind, Narrator, Verbosity
from voice_earl.table.playback import RecordingOutput

FAST = 400  # words per minute: keeps real-time plays short
NO_DEVICE = "voice-earl-test-no-such-device"
LINE = "There's a Queen as good as he"


class Lines:
    """A printer that keeps what it was given."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str) -> None:
        self.lines.append(line)

    @property
    def notices(self) -> list[str]:
        return [line for line in self.lines if line.startswith("Notice:")]


def make(verbosity: Verbosity = Verbosity.NORMAL) -> tuple[Narrator, RecordingOutput, Lines]:
    output, printed = RecordingOutput(), Lines()
    return Narrator(rate=FAST, verbosity=verbosity, printer=printed, output=output), output, printed


# --- builders ---


def test_turn_names_player_rank_and_card() -> None:
    assert narrator.turn("Ben", Rank.QUEEN, 2).text == "Ben: queens, second card"
    assert narrator.turn("Ben", Rank.SIX, 4).line == "Ben: Sixes, card 4 of 4"
    lead = narrator.turn("Ann", None, 1)
    assert (lead.kind, lead.text, lead.line) == (Kind.TURN, "Ann, your lead", "Ann to lead")
    with pytest.raises(ValueError):
        narrator.turn("Ben", Rank.QUEEN, 5)


def test_quartet_says_the_fourth_line_and_who_leads() -> None:
    assert narrator.quartet("Di", Rank.SEVEN).text == "And there's the Earl of Coventry! Di leads"
    assert narrator.quartet("Di", Rank.SEVEN, SNIP_SNAP_SNORUM).text == "Snorum! Di leads"


def test_wrong_and_unclear_give_the_right_line() -> None:
    wrong = narrator.wrong_line("Ben", LINE, heard="there's a king as good as he")
    assert LINE in wrong.text and LINE in wrong.line and "king" in wrong.line
    assert "back" not in wrong.text
    assert "Take the card back" in narrator.wrong_line("Ben", LINE, takes_back=True).text
    unclear = narrator.unclear("Cy", LINE)
    assert (unclear.kind, LINE in unclear.text) == (Kind.UNCLEAR, True)


def test_settlement_adds_up_what_each_pays() -> None:
    announcement = narrator.settlement("Ann", [("Ben", 3), ("Cy", 5)])
    assert announcement.text == "Ann takes 8: Ben pays 3, Cy pays 5"
    assert announcement.line == announcement.text


def test_standings_order_totals_and_say_negative_numbers() -> None:
    after = narrator.standings([("Ann", 8), ("Ben", -3), ("Cy", 0)], after_deal=2)
    assert after.text == "After deal 2: Ann 8, Cy 0, Ben minus 3"
    final = narrator.standings([("Ann", 12), ("Ben", 3), ("Cy", 3), ("Di", -2)], final=True)
    assert final.line == "Final: 1. Ann 12 · 2. Ben 3 · 2. Cy 3 · 4. Di -2"
    assert "Second, Ben and Cy with 3. Fourth, Di with minus 2." in final.text


def test_what_each_verbosity_speaks() -> None:
    quiet = {
        narrator.winner("Ann", 1),
        narrator.settlement("Ann", [("Ben", 1)]),
        narrator.wrong_line("Ben", LINE),
        narrator.unclear("Ben", LINE),
        narrator.standings([("Ann", 1)], final=True),
    }
    normal = {narrator.turn("Ben", Rank.ACE, 2), narrator.quartet("Di", Rank.ACE), narrator.standings([("A", 1)])}
    assert {a.min_verbosity for a in quiet} == {Verbosity.QUIET}
    assert {a.min_verbosity for a in normal} == {Verbosity.NORMAL}
    assert narrator.passed("Cy").min_verbosity is Verbosity.CHATTY


def test_verbosity_parses_names() -> None:
    assert Verbosity.parse(" Chatty ") is Verbosity.CHATTY
    with pytest.raises(UsageError, match="quiet, normal or chatty"):
        Verbosity.parse("loud")


# --- the narrator ---


@pytest.mark.slow
@pytest.mark.parametrize(
    ("verbosity", "spoken"),
    [
        (Verbosity.QUIET, ["Ann is out and wins deal 1!"]),
        (Verbosity.NORMAL, ["Ben: aces, second card", "Ann is out and wins deal 1!"]),
        (Verbosity.CHATTY, ["Ben: aces, second card", "Cy passes", "Ann is out and wins deal 1!"]),
    ],
)
def test_verbosity_decides_what_is_spoken_and_every_line_is_printed(verbosity: Verbosity, spoken: list[str]) -> None:
    speech.shutdown()  # pyttsx3 from a fresh start, whatever earlier tests in this process met: no notice
    voice, output, printed = make(verbosity)
    with voice:
        for announcement in (narrator.turn("Ben", Rank.ACE, 2), narrator.passed("Cy"), narrator.winner("Ann", 1)):
            voice.say(announcement)
        assert voice.wait(WAIT_S)
    assert printed.lines == ["Ben: Aces, card 2 of 4", "Cy passes", "Ann wins deal 1"], (
        speech_synth.synthesizer.fallback_reason
    )
    expected = [speech.render(text, rate=FAST).duration for text in spoken]
    played = [record.audio.duration for record in output.records]
    assert played == pytest.approx(expected, rel=0.05, abs=0.04)


@pytest.mark.slow
def test_many_quick_says_are_each_spoken_in_order_without_overlap() -> None:
    texts = [" ".join(["Queen"] * words) for words in (1, 2, 4, 6, 9, 13)]
    voice, output, _ = make(Verbosity.CHATTY)
    with voice:
        for text in texts:
            voice.say(narrator.notice(text))
        assert voice.wait(WAIT_S)
    records = output.records
    assert len(records) == len(texts)
    durations = [record.audio.duration for record in records]
    assert durations == sorted(durations) and len(set(durations)) == len(texts)
    assert durations == pytest.approx([speech.render(text, rate=FAST).duration for text in texts], rel=0.05, abs=0.04)
    assert all(record.completed for record in records)
    assert all(earlier.ended <= later.started for earlier, later in itertools.pairwise(records))


@pytest.mark.slow
def test_interrupt_cuts_a_long_announcement_short_and_drops_the_queue() -> None:
    long_text = " ".join([LINE] * 8)
    output, printed = RecordingOutput(), Lines()
    with Narrator(printer=printed, output=output) as voice:
        voice.say(narrator.notice(long_text))
        voice.say(narrator.notice("Cy passes"))
        assert voice.speaking_event.wait(WAIT_S)
        time.sleep(0.3)
        voice.interrupt()
        assert voice.wait(WAIT_S)
        assert not voice.speaking
        voice.say(narrator.notice("Di leads"))  # what comes after an interrupt is spoken again
        assert voice.wait(WAIT_S)
    first, after = output.records
    assert not first.completed
    assert first.ended - first.started < first.audio.duration  # about 20 s of speech, cut short
    assert after.completed and after.audio.duration < 3


@pytest.mark.slow
def test_speaking_event_and_callbacks_bracket_each_play() -> None:
    voice, output, _ = make()
    changes: list[tuple[bool, float, bool]] = []
    voice.on_speaking(lambda on: changes.append((on, time.monotonic(), voice.speaking)))
    with voice:
        voice.say(narrator.notice("Ann takes 8"))
        voice.say(narrator.notice("Ben pays 3"))
        assert voice.wait(WAIT_S)
    assert [on for on, _, _ in changes] == [True, False, True, False]
    assert [state for _, _, state in changes] == [True, False, True, False]
    for record, (start, end) in zip(output.records, zip(changes[::2], changes[1::2], strict=True), strict=True):
        assert start[1] <= record.started and record.ended <= end[1]


def test_no_output_device_prints_lines_and_one_notice() -> None:
    printed = Lines()
    with Narrator(printer=printed, device=NO_DEVICE, verbosity=Verbosity.CHATTY) as voice:
        for announcement in (narrator.turn("Ben", Rank.TEN, 3), narrator.passed("Cy"), narrator.winner("Ann")):
            voice.say(announcement)
        assert voice.wait(WAIT_S)
        assert not voice.speaking
    assert len(printed.notices) == 1
    assert printed.notices[0] == f"Notice: no speaker called {NO_DEVICE} found: announcements are printed only"
    assert "Error" not in printed.notices[0] and "-1" not in printed.notices[0]  # plain words, not PortAudio's
    assert [line for line in printed.lines if line not in printed.notices] == [
        "Ben: Tens, card 3 of 4",
        "Cy passes",
        "Ann wins the deal",
    ]


def test_no_sound_card_is_said_in_plain_words(monkeypatch: pytest.MonkeyPatch) -> None:
    sounddevice = pytest.importorskip("sounddevice")

    def no_default_device(*args: object, **kwargs: object) -> object:
        raise sounddevice.PortAudioError("Error querying device -1")  # what PortAudio says without a sound card

    monkeypatch.setattr(sounddevice, "query_devices", no_default_device)
    printed = Lines()
    with Narrator(printer=printed):
        pass
    assert printed.notices == ["Notice: no speaker or sound card found: announcements are printed only"]


def test_speak_false_prints_only_without_a_worker() -> None:
    before = set(threading.enumerate())
    printed = Lines()
    voice = Narrator(speak=False, printer=printed, output=RecordingOutput())
    voice.say(narrator.winner("Ann"))
    assert voice.wait(0)
    voice.close()
    assert printed.lines == ["Ann wins the deal"]
    assert set(threading.enumerate()) - before == set()


def test_close_ends_the_worker_even_while_speaking() -> None:
    before = set(threading.enumerate())
    voice, output, _ = make()
    voice.say(narrator.notice(" ".join([LINE] * 6)))
    assert voice.speaking_event.wait(WAIT_S)
    started = set(threading.enumerate()) - before
    assert any(thread.name == "narrator" for thread in started)
    voice.close()
    assert not any(thread.is_alive() for thread in started if thread.name == "narrator")
    assert not output.records[0].completed
    voice.say(narrator.notice("after close"))  # printed, never spoken, no error
    voice.close()


def test_bad_settings_are_usage_errors() -> None:
    with pytest.raises(speech_synth.UnknownVoice):
        Narrator(voice="qqq-no-voice", output=RecordingOutput(), printer=Lines())
    with pytest.raises(UsageError, match="speech rate"):
        Narrator(rate=1000, speak=False, printer=Lines())


def run_python(code: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = None
    if home is not None:
        import os

        env = {**os.environ, "HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=WAIT_S, env=env
    )


@pytest.mark.slow
def test_without_portaudio_the_narrator_prints_and_the_process_exits() -> None:
    done = run_python(
        """
        import sys
        sys.modules["sounddevice"] = None  # as if PortAudio were missing
        from voice_earl.table import narrator
        voice = narrator.Narrator()
        voice.say(narrator.winner("Ann", 2))
        voice.wait(300)
        voice.close()
        """
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0] == (
        "Notice: the sound library PortAudio is not installed (sudo apt install libportaudio2): "
        "announcements are printed only"
    )
    assert lines[1] == "Ann wins deal 2"


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ALSA's null device")
def test_plays_through_sounddevice_on_a_null_alsa_device(tmp_path: Path) -> None:
    (tmp_path / ".asoundrc").write_text("pcm.!default { type null }\nctl.!default { type hw card 0 }\n")
    done = run_python(
        """
        import sounddevice
        if not sounddevice.query_devices():
            raise SystemExit(77)
        from voice_earl.table import narrator
        changes = []
        voice = narrator.Narrator(rate=400)
        voice.on_speaking(changes.append)
        voice.say(narrator.winner("Ann", 2))
        print("drained", voice.wait(300))
        voice.close()
        print("changes", changes)
        """,
        home=tmp_path,
    )
    if done.returncode == 77:
        pytest.skip("PortAudio lists no ALSA devices here")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["Ann wins deal 2", "drained True", "changes [True, False]"]

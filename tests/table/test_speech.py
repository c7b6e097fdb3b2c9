"""Speech synthesis: real renders through pyttsx3 (espeak-ng), and the command-line fallback."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import threading
import wave
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from support.listening_audio import espeak_finds_variant
from support.patience import WAIT_S

from voice_earl.errors import UsageError
from voice_earl.table import speech, speech_synth

LINE = "There's a Queen as good as he"


def frame_rms(audio: speech.Audio, frame_s: float = 0.02) -> npt.NDArray[np.float64]:
    size = int(audio.sample_rate * frame_s)
    frames = audio.samples[: len(audio.samples) // size * size].astype(np.float64).reshape(-1, size)
    return np.asarray(np.sqrt(np.mean(frames**2, axis=1)), dtype=np.float64)


def median_pitch(audio: speech.Audio) -> float:
    """Fundamental frequency by autocorrelation over the loud frames."""
    x = audio.samples.astype(np.float64)
    rate = audio.sample_rate
    size = int(0.04 * rate)
    shortest, longest = int(rate / 400), int(rate / 70)
    estimates = []
    for start in range(0, len(x) - size, size // 2):
        frame = x[start : start + size]
        if np.sqrt(np.mean(frame**2)) < 1500:
            continue
        frame = frame - frame.mean()
        correlation = np.correlate(frame, frame, "full")[size - 1 :]
        lag = shortest + int(np.argmax(correlation[shortest:longest]))
        if correlation[lag] > 0.3 * correlation[0]:
            estimates.append(rate / lag)
    assert estimates, "no voiced frames"
    return float(np.median(estimates))


def spectrum_db(audio: speech.Audio) -> npt.NDArray[np.float64]:
    """Long-term average spectrum in dB, level-normalised: a voice's timbre."""
    size = 1024
    frames = np.lib.stride_tricks.sliding_window_view(audio.samples.astype(np.float64), size)[::256]
    power = np.mean(np.abs(np.fft.rfft(frames * np.hanning(size), axis=1)) ** 2, axis=0)
    db = 10 * np.log10(power + 1e-9)
    return np.asarray(db - db.mean(), dtype=np.float64)


def spectral_distance(a: speech.Audio, b: speech.Audio) -> float:
    return float(np.sqrt(np.mean((spectrum_db(a) - spectrum_db(b)) ** 2)))


@pytest.mark.slow
def test_render_gives_speech_of_plausible_length_at_espeak_rate() -> None:
    speech.shutdown()  # pyttsx3 from a fresh start, whatever earlier tests in this process met
    audio = speech.render("Ben: queens, second card")
    assert speech.active_backend() is speech_synth.Backend.PYTTSX3, speech_synth.synthesizer.fallback_reason
    assert audio.sample_rate == 22_050
    assert audio.samples.dtype == np.int16
    assert 1.0 < audio.duration < 4.0  # five words at 175 words per minute, with pauses
    rms = frame_rms(audio)
    assert np.abs(audio.samples).max() > 8000
    # Speech alternates sound and pauses: neither silence nor a constant tone.
    assert 0.3 < np.mean(rms > 500) < 0.95


@pytest.mark.slow
def test_longer_text_and_slower_rate_take_longer() -> None:
    short = speech.render("Cy passes")
    long = speech.render("And there's the Earl of Coventry! Di leads the next rank")
    slow = speech.render("Cy passes", rate=90)
    assert long.duration > 2 * short.duration
    assert slow.duration > 1.4 * short.duration


@pytest.mark.slow
def test_each_render_uses_its_own_voice_and_rate_not_the_previous_ones() -> None:
    default = speech.render(LINE)
    speech.render(LINE, voice="en+f2", rate=90)
    again = speech.render(LINE)
    assert abs(again.duration - default.duration) < 0.05 * default.duration
    assert abs(median_pitch(again) - median_pitch(default)) < 0.1 * median_pitch(default)


@pytest.mark.slow
def test_female_variant_is_higher_pitched_than_male() -> None:
    male = median_pitch(speech.render(LINE, voice="en+m3"))
    female = median_pitch(speech.render(LINE, voice="en+f2"))
    assert 70 < male < 160
    assert female > 1.4 * male


@pytest.mark.slow
def test_bot_voices_sound_different_from_each_other_and_the_narrator() -> None:
    voices = [speech.DEFAULT_VOICE, *speech.bot_voices(5)]
    renders = {voice: speech.render(LINE, voice=voice) for voice in voices}
    same_voice = spectral_distance(renders["en"], speech.render(LINE))
    for i, first in enumerate(voices):
        for second in voices[i + 1 :]:
            distance = spectral_distance(renders[first], renders[second])
            assert distance > max(1.5, 2 * same_voice), (first, second, distance)


def test_bot_voices_are_distinct_and_exclude_the_narrators() -> None:
    voices = speech.bot_voices(12, exclude="gmw/en-US+F4")
    assert len(voices) == 12
    assert len({speech.normalize_voice(v) for v in voices}) == 12
    assert "en-us+f4" not in voices
    assert "en-us+f4" in speech.bot_voices(12)
    assert speech.bot_voices(3, exclude="en-gb-scotland+m2")[1] != "en-gb-scotland+m2"


@pytest.mark.slow
def test_every_bot_voice_renders() -> None:
    for voice in speech.bot_voices(15):
        assert speech.render("Snip", voice=voice).duration > 0.2, voice


def test_every_bot_voice_is_the_variant_it_names() -> None:
    """Else a bot would sound like another bot of its accent."""
    assert [voice for voice in speech.bot_voices(15) if not espeak_finds_variant(voice)] == []


def test_a_variant_espeak_ng_would_drop_is_an_unknown_voice() -> None:
    with pytest.raises(speech_synth.UnknownVoice, match="espeak-ng has no variant 'Linda'"):
        speech.check_voice("en-us+Linda")
    speech.check_voice("en-us+linda")
    speech.check_voice("gmw/en-US+f2")
    # What the listing says agrees with what espeak-ng says aloud.
    for voice in (
        "en-us+Linda",
        "en-us+linda",
        "en-gb+m4",
        "en+m4",
        "en+Annie",
        "en+annie",
        "gmw/en-US+f2",
        "en-029+m5",
        "en-us+qq",
    ):
        assert (speech_synth.variant_dropped(voice) is None) == espeak_finds_variant(voice), voice


def test_unknown_voice_is_a_usage_error() -> None:
    with pytest.raises(speech_synth.UnknownVoice, match="unknown voice 'qqq-no-voice'") as caught:
        speech.render("hello", voice="qqq-no-voice")
    assert isinstance(caught.value, UsageError)
    speech.check_voice("en-us+f2")


def test_rate_out_of_range_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="80-450"):
        speech.render("hello", rate=20)


def test_blank_text_renders_as_empty_audio() -> None:
    assert speech.render("   ").duration == 0


def test_list_voices_has_english_and_no_unusable_mbrola_voices() -> None:
    voices = speech.list_voices()
    ids = {voice.id for voice in voices}
    assert "gmw/en" in ids
    assert "gmw/en-us" in ids
    english = next(voice for voice in voices if voice.id == "gmw/en")
    assert english.languages and english.languages[0].startswith("en")
    if shutil.which("mbrola") is None:  # espeak-ng lists mbrola voices that cannot speak without it
        assert not [voice.id for voice in voices if voice.id.startswith("mb/")]


@pytest.mark.slow
def test_to_16k_mono_keeps_length_and_level() -> None:
    audio = speech.render(LINE)
    resampled = speech.to_16k_mono(audio)
    assert resampled.sample_rate == 16_000
    assert resampled.samples.dtype == np.int16
    assert abs(resampled.duration - audio.duration) < 0.01
    ratio = frame_rms(resampled).max() / frame_rms(audio).max()
    assert 0.8 < ratio < 1.2
    assert speech.to_16k_mono(resampled) is resampled


def test_audio_samples_are_read_only_without_freezing_the_callers_array() -> None:
    mine = np.arange(10, dtype=np.int16)
    audio = speech.Audio(mine, 16_000)
    with pytest.raises(ValueError):
        audio.samples[0] = 5
    mine[0] = 5
    assert audio.samples[0] == 5
    with pytest.raises(ValueError, match="mono int16"):
        speech.Audio(np.zeros((10, 2), dtype=np.int16), 16_000)


@pytest.mark.slow
def test_renders_from_many_threads_are_each_their_own_line() -> None:
    lines = [" ".join(["Queen"] * words) for words in (1, 3, 6, 10)]
    alone = {line: speech.render(line).duration for line in lines}
    together: dict[str, float] = {}

    def render(line: str) -> None:
        together[line] = speech.render(line).duration

    threads = [threading.Thread(target=render, args=(line,)) for line in lines * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_S)
    for line in lines:
        assert abs(together[line] - alone[line]) < 0.05 * alone[line] + 0.05, line


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=WAIT_S)


@pytest.mark.slow
def test_rendering_prints_nothing_and_the_process_exits() -> None:
    done = run_python(
        """
        from voice_earl.table import speech
        audio = speech.render("There's the best of all the three")
        assert audio.duration > 1, audio.duration
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # pyttsx3's "Audio saved to ..." goes to the log, not the screen


@pytest.mark.slow
def test_without_pyttsx3_the_command_line_renders_and_says_so_once() -> None:
    done = run_python(
        """
        import logging, sys
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
        sys.modules["pyttsx3"] = None  # as if pyttsx3 or libespeak-ng were missing
        from voice_earl.table import speech, speech_synth
        first = speech.render("There's the best of all the three", voice="en+f2")
        second = speech.render("Snip")
        print(speech.active_backend().name, first.sample_rate, round(first.duration, 1), second.duration > 0.2)
        try:
            speech.render("hello", voice="qqq-no-voice")
        except speech_synth.UnknownVoice:
            print("unknown voice")
        """
    )
    assert done.returncode == 0, done.stderr
    backend, rate, duration, second_ok, unknown = done.stdout.split("\n")[0].split() + done.stdout.split("\n")[1:2]
    assert (backend, rate, second_ok, unknown) == ("ESPEAK_CLI", "22050", "True", "unknown voice")
    assert 1.0 < float(duration) < 3.5
    assert done.stderr.count("espeak-ng command line") == 1


class ScriptedEngine:
    """A pyttsx3 engine that finishes each line after writing the next of ``frames`` (the last one
    repeating) in samples of silence to its file."""

    class proxy:  # pyttsx3's attribute: its driver is no espeak driver, so nothing waits for libespeak-ng
        _driver = object()

    def __init__(self, *frames: int) -> None:
        self.frames = list(frames)
        self.callbacks: dict[str, object] = {}
        self.path = ""

    def connect(self, name: str, callback: object) -> str:
        self.callbacks[name] = callback
        return name

    def disconnect(self, token: str) -> None:
        self.callbacks.pop(token)

    def setProperty(self, name: str, value: object) -> None:
        pass

    def save_to_file(self, text: str, path: str) -> None:
        self.path = path

    def runAndWait(self) -> None:
        with wave.open(self.path, "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(22050)
            out.writeframes(bytes(2 * (self.frames.pop(0) if len(self.frames) > 1 else self.frames[0])))
        self.callbacks["finished-utterance"](completed=True)  # type: ignore[operator]

    def stop(self) -> None:
        pass


def test_a_pyttsx3_render_with_no_audio_is_a_failure_that_the_command_line_takes_over(tmp_path: Path) -> None:
    """Now and then pyttsx3's driver writes a line's file without its audio: a silent narrator line
    must not pass for a spoken one."""
    request = speech_synth.RenderRequest(LINE, "en", 175)
    assert len(speech_synth._pyttsx3_wav(ScriptedEngine(2205), request, tmp_path)) == 44 + 2 * 2205
    with pytest.raises(speech_synth._BackendFailed, match="no audio"):
        speech_synth._pyttsx3_wav(ScriptedEngine(0), request, tmp_path)


def test_one_line_without_audio_is_tried_again_and_only_two_running_give_pyttsx3_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A single glitch must not silence pyttsx3 for the rest of the evening; a driver that keeps
    failing hands over to the command line, and says why."""
    request = speech_synth.RenderRequest(LINE, "en", 175)
    glitch = speech_synth._Synthesizer()
    monkeypatch.setattr(speech_synth, "_open_engine", lambda: ScriptedEngine(0, 2205))
    try:
        assert len(glitch.wav(request)) == 44 + 2 * 2205
        assert (glitch.backend, glitch.fallback_reason) == (speech_synth.Backend.PYTTSX3, None)
    finally:
        glitch.shutdown()
    broken = speech_synth._Synthesizer()
    monkeypatch.setattr(speech_synth, "_open_engine", lambda: ScriptedEngine(0, 0, 2205))
    try:
        spoken = speech.Audio.from_wav(broken.wav(request))  # the command line's rendering of the line
        assert broken.backend is speech_synth.Backend.ESPEAK_CLI
        assert broken.fallback_reason == "pyttsx3 wrote no audio, twice running"
        assert spoken.duration > 1.0
        broken.shutdown()
        assert (broken.backend, broken.fallback_reason) == (speech_synth.Backend.PYTTSX3, None)
    finally:
        broken.shutdown()


@pytest.mark.slow
def test_shutdown_ends_the_engine_thread_and_a_later_render_starts_it_again() -> None:
    speech.shutdown()  # pyttsx3 from a fresh start, whatever earlier tests in this process met
    speech.render("Snip")
    assert any(thread.name == "pyttsx3-engine" for thread in threading.enumerate())
    speech.shutdown()
    assert not any(thread.name == "pyttsx3-engine" for thread in threading.enumerate())
    slow = speech.render("Snip Snap Snorum", rate=100)
    assert speech.active_backend() is speech_synth.Backend.PYTTSX3, speech_synth.synthesizer.fallback_reason
    assert slow.duration > 1.3 * speech.render("Snip Snap Snorum").duration

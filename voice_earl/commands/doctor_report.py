"""Every doctor check in report order."""

from __future__ import annotations

import logging
from collections.abc import Callable

from voice_earl.commands.doctor_audio import (
    AudioDevices,
    check_input_devices,
    check_output_devices,
    check_portaudio,
    query_audio_devices,
)
from voice_earl.commands.doctor_checks import (
    CheckResult,
    Status,
    check_config,
    check_data_dir,
    check_packages,
    check_python,
    guarded,
)
from voice_earl.commands.doctor_judge import check_judge
from voice_earl.commands.doctor_models import (
    RecognizerProbe,
    check_leftovers,
    check_models,
    check_recognizer,
    installed_models,
    probe_pocketsphinx,
    probe_vosk,
)
from voice_earl.commands.doctor_speech import check_tts, check_voices, espeak_version, probe_tts
from voice_earl.keep.config import LoadedSettings

log = logging.getLogger(__name__)


def run_checks(loaded: LoadedSettings) -> list[CheckResult]:
    """Every check but the microphone test (which needs someone speaking), in report order."""
    settings = loaded.settings
    results = guarded("python", check_python) + guarded("packages", check_packages)
    portaudio = guarded("PortAudio", check_portaudio)
    results += portaudio
    audio: AudioDevices | None = None
    if portaudio[0].status is Status.OK:
        try:
            audio = query_audio_devices()
        except Exception:  # PortAudio that cannot list devices is the same as none for the rows below
            log.exception("cannot list audio devices")
    results += guarded("input devices", lambda: check_input_devices(audio, settings.input_device))
    results += guarded("output devices", lambda: check_output_devices(audio))
    tts = probe_tts()
    results += guarded("text to speech", lambda: check_tts(tts, espeak_version()))
    results += guarded("narrator voices", lambda: check_voices(tts, settings))
    pocketsphinx = _guarded_probe("pocketsphinx", probe_pocketsphinx)
    vosk_probe = _guarded_probe("vosk", lambda: probe_vosk(settings.model))
    results += [pocketsphinx.result, vosk_probe.result]
    results += guarded("recognizer", lambda: check_recognizer(pocketsphinx, vosk_probe, settings))
    results += guarded("judge", check_judge)
    results += guarded("models", lambda: check_models(installed_models(settings.model)))
    results += guarded("model installs", check_leftovers)
    results += guarded("config file", lambda: check_config(loaded))
    results += guarded("data directory", check_data_dir)
    return results


def _guarded_probe(name: str, probe: Callable[[], RecognizerProbe]) -> RecognizerProbe:
    try:
        return probe()
    except Exception as error:  # a check must never stop the report
        log.exception("doctor check %s crashed", name)
        return RecognizerProbe(False, CheckResult(name, Status.WARN, f"could not check: {error}", "run with -v"))

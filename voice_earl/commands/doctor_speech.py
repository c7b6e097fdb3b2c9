"""Doctor's text-to-speech checks: the speech engine and the narrator's voices."""

from __future__ import annotations

import platform
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from voice_earl.commands.doctor_checks import CheckResult, Status
from voice_earl.keep.config import Settings

if TYPE_CHECKING:
    from voice_earl.table.speech_synth import VoiceInfo

LANGUAGES = {"en": "english", "nl": "dutch", "it": "italian"}


# ---- text to speech --------------------------------------------------------------------------


@dataclass(frozen=True)
class Voice:
    id: str
    name: str
    languages: tuple[str, ...]

    def speaks(self, language: str) -> bool:
        codes = [code.lower() for code in self.languages]
        tail = self.id.lower().rsplit("/", 1)[-1]
        return (
            any(code == language or code.startswith((f"{language}-", f"{language}_")) for code in codes)
            or tail == language
            or tail.startswith(f"{language}-")
            or LANGUAGES.get(language, "\0") in self.name.lower()
        )


@dataclass(frozen=True)
class TtsProbe:
    error: str | None
    voices: tuple[Voice, ...]


def _language_code(raw: object) -> str:
    # The espeak driver of older pyttsx3 gives bytes with a leading priority byte (b"\x05en").
    if isinstance(raw, bytes):
        raw = raw.decode("latin-1")
    return str(raw).lstrip("".join(chr(i) for i in range(32))).strip()


def probe_tts() -> TtsProbe:
    """The text-to-speech engine and its voices, asked through the narrator's own engine thread
    (pyttsx3 keeps one engine per process, which must stay on one thread)."""
    try:
        from voice_earl.table import speech, speech_synth

        found = speech.list_voices()
        backend = speech.active_backend()
    except Exception as error:  # pyttsx3 raises anything from RuntimeError to OSError per platform
        return TtsProbe(f"{type(error).__name__}: {error}", ())
    if backend is not speech_synth.Backend.PYTTSX3:
        return TtsProbe(f"pyttsx3 is not usable; speaking through the {backend.value}", _voices(found))
    return TtsProbe(None, _voices(found))


def _voices(found: Sequence[VoiceInfo]) -> tuple[Voice, ...]:
    return tuple(
        Voice(id=v.id, name=v.name, languages=tuple(_language_code(code) for code in v.languages)) for v in found
    )


def espeak_version() -> str | None:
    program = shutil.which("espeak-ng")
    if program is None:
        return None
    try:
        done = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    words = done.stdout.split()
    return next((word for word in words if word[:1].isdigit()), "installed")


def check_tts(probe: TtsProbe, espeak: str | None, system: str = platform.system()) -> CheckResult:
    name = "text to speech"
    espeak_text = f"espeak-ng {espeak}" if espeak else "espeak-ng not found"
    apt_fix = "sudo apt-get install espeak-ng libespeak-ng1"
    if probe.error is not None:
        fix = apt_fix if system == "Linux" else "pip install pyttsx3 and check the system's speech settings"
        return CheckResult(name, Status.WARN, f"the narrator cannot speak ({probe.error}); {espeak_text}", fix)
    if espeak is None and system == "Linux":
        return CheckResult(name, Status.WARN, f"pyttsx3 works; {espeak_text}", apt_fix)
    return CheckResult(name, Status.OK, f"pyttsx3 works; {espeak_text}")


def has_voice(voices: Iterable[Voice], wanted: str) -> bool:
    """Whether ``wanted`` (an espeak-ng voice such as ``en-gb-x-rp+f2``, or a voice's name) is installed."""
    from voice_earl.table.speech import normalize_voice

    base = normalize_voice(wanted).partition("+")[0]
    return any(normalize_voice(voice.id) == base or voice.name.casefold() == wanted.casefold() for voice in voices)


def check_voices(probe: TtsProbe, settings: Settings) -> CheckResult:
    name = "narrator voices"
    if probe.error is not None:
        return CheckResult(name, Status.WARN, "no voices: text to speech does not work", "see 'text to speech'")
    found = {language: any(voice.speaks(language) for voice in probe.voices) for language in LANGUAGES}
    detail = f"{len(probe.voices)} voices; " + ", ".join(
        f"{language} {'yes' if ok else 'no'}" for language, ok in found.items()
    )
    wanted = settings.narrator_voice
    if wanted is not None and not has_voice(probe.voices, wanted):
        fix = "voice-earl config unset narrator.voice (or set it to a voice id this machine has)"
        return CheckResult(name, Status.WARN, f"narrator.voice {wanted!r} not found; {detail}", fix)
    if wanted is not None:
        from voice_earl.table.speech_synth import variant_dropped

        dropped = variant_dropped(wanted)
        if dropped:
            fix = "set narrator.voice to a variant 'espeak-ng --voices=variant' lists, or unset it"
            return CheckResult(name, Status.WARN, f"narrator.voice {wanted!r}: {dropped}; {detail}", fix)
    if not found[settings.language]:
        fix = f"install a {LANGUAGES[settings.language]} voice (espeak-ng-data, or the system's voice settings)"
        return CheckResult(name, Status.WARN, f"no voice for language {settings.language}; {detail}", fix)
    return CheckResult(name, Status.OK, detail)

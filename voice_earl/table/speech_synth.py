"""The synthesizers behind :mod:`voice_earl.table.speech`: pyttsx3 (espeak-ng) on its own thread, else the command line.

pyttsx3 2.99 on Linux drives libespeak-ng through one cached engine per process, which must stay
on one thread. Its ``say()`` shells out to ``aplay``, only the last command queued before
``runAndWait()`` runs, voice and rate stay set from one call to the next, and a new engine
queues every command until its first loop. libespeak-ng runs asynchronously under it: a rate
change is a queued command that the ``stop()`` at the start of every ``runAndWait()`` cancels,
and ``runAndWait()`` returns before the WAV is written. So one daemon thread owns the engine
and, for each line, sets voice and rate, waits until libespeak-ng is idle, runs exactly one
``save_to_file`` + ``runAndWait`` into a fresh temporary file and waits for pyttsx3's
"finished-utterance" notification before reading it back. Callers wait with a timeout. If
pyttsx3 cannot render (no library, a hang, or an error or a file without audio twice running), the
``espeak-ng --stdout`` command line takes over for the rest of the process, with one warning in the log.
"""

from __future__ import annotations

import atexit
import enum
import itertools
import logging
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from voice_earl.errors import UsageError, VoiceEarlError

log = logging.getLogger(__name__)

# Generous: espeak-ng renders a sentence in tens of milliseconds, even on a loaded machine.
_RENDER_TIMEOUT_S = 15.0
_TIMEOUT_PER_CHAR_S = 0.05

_WAV_HEADER_BYTES = 44  # a WAV this long or shorter holds no audio


class SpeechError(VoiceEarlError):
    """Speech cannot be synthesized at all."""


class UnknownVoice(UsageError):
    """The voice named is not installed, or not as named."""

    def __init__(self, voice: str, why: str = "") -> None:
        super().__init__(
            f"unknown voice {voice!r}: {why + '; ' if why else ''}use an espeak-ng voice such as en, en-us, "
            "en-gb-x-rp or en+f2 ('espeak-ng --voices=en' lists them, 'espeak-ng --voices=variant' the variants)"
        )


class Backend(enum.Enum):
    PYTTSX3 = "pyttsx3"
    ESPEAK_CLI = "espeak-ng command line"


@dataclass(frozen=True)
class VoiceInfo:
    id: str
    name: str
    languages: tuple[str, ...]


@dataclass(frozen=True)
class RenderRequest:
    text: str
    voice: str
    rate: int

    @property
    def timeout(self) -> float:
        return _RENDER_TIMEOUT_S + _TIMEOUT_PER_CHAR_S * len(self.text)


class _BackendFailed(Exception):
    """pyttsx3 failed in a way that the command line may not."""


class _LineFailed(_BackendFailed):
    """pyttsx3 answered but this line came out wrong (a driver error, no audio): the next try may well work."""


T = TypeVar("T")


class _Job(Generic[T]):
    """A call to run on the engine thread, and its outcome."""

    def __init__(self, call: Callable[[Any], T]) -> None:
        self.call = call
        self.done = threading.Event()
        self.result: T | None = None
        self.error: BaseException | None = None


class _EngineThread:
    """The one thread that owns the pyttsx3 engine."""

    def __init__(self) -> None:
        self._jobs: queue.Queue[_Job[Any] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="pyttsx3-engine", daemon=True)
        self._thread.start()

    def call(self, call: Callable[[Any], T], timeout: float) -> T:
        job: _Job[T] = _Job(call)
        self._jobs.put(job)
        if not job.done.wait(timeout):
            raise _BackendFailed(f"pyttsx3 did not finish within {timeout:.0f} s")
        if job.error is not None:
            raise job.error
        return job.result  # type: ignore[return-value]

    def stop(self, timeout: float = 10.0) -> bool:
        """Ask the thread to end; True once it has (a busy machine may need a while)."""
        self._jobs.put(None)
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        try:
            engine = _open_engine()
        except Exception as error:  # any failure to load pyttsx3 or libespeak-ng means: use the command line
            self._fail_all(_BackendFailed(f"pyttsx3 cannot start ({type(error).__name__}: {error})"))
            return
        try:
            while (job := self._jobs.get()) is not None:
                try:
                    job.result = job.call(engine)
                except BaseException as error:
                    job.error = error
                job.done.set()
        finally:
            engine.stop()

    def _fail_all(self, error: BaseException) -> None:
        while (job := self._jobs.get()) is not None:
            job.error = error
            job.done.set()


def _open_engine() -> Any:
    import pyttsx3

    engine = pyttsx3.init()
    _silence_driver_prints(engine)
    # A new engine queues every command until its first loop; one empty loop makes later
    # setProperty calls take effect at once instead of inside the next runAndWait.
    engine.runAndWait()
    return engine


def _wait_for_espeak(engine: Any, timeout: float) -> None:
    """Wait until libespeak-ng has no command pending.

    The espeak driver runs libespeak-ng asynchronously: a rate change is a queued command, and
    runAndWait begins with stop(), which cancels whatever is still queued (the rate change, or
    the end of the previous line). So each render starts only when libespeak-ng is idle.
    """
    if not type(engine.proxy._driver).__module__.endswith(".espeak"):
        return
    from pyttsx3.drivers import _espeak

    deadline = time.monotonic() + timeout
    while _espeak.IsPlaying():
        if time.monotonic() > deadline:
            raise _BackendFailed(f"libespeak-ng stayed busy for {timeout:.0f} s")
        time.sleep(0.002)


def _silence_driver_prints(engine: Any) -> None:
    """The espeak driver prints "Audio saved to ..." on stdout for every file; send that to the log."""
    import sys

    driver_module = sys.modules.get(type(engine.proxy._driver).__module__)
    if driver_module is not None:
        driver_module.print = lambda *args, **kwargs: log.debug("pyttsx3: %s", " ".join(map(str, args)))  # type: ignore[attr-defined]


_line_numbers = itertools.count()


def _pyttsx3_wav(engine: Any, request: RenderRequest, workdir: Path) -> bytes:
    """One save_to_file + runAndWait into a fresh file, with voice and rate set every time.

    libespeak-ng synthesizes on its own thread, so runAndWait may return before the file is
    written: the "finished-utterance" notification, sent after writing, says when it is there.
    """
    errors: list[BaseException] = []
    finished: list[bool] = []
    done = threading.Event()

    def on_finished(completed: bool, **_: object) -> None:
        finished.append(completed)
        done.set()

    tokens = [
        engine.connect("error", lambda exception, **_: errors.append(exception)),
        engine.connect("finished-utterance", on_finished),
    ]
    path = workdir / f"line-{next(_line_numbers)}.wav"  # fresh: a missing file means nothing was rendered
    try:
        engine.setProperty("voice", request.voice)
        engine.setProperty("rate", request.rate)
        _wait_for_espeak(engine, request.timeout)
        if errors and "SetVoiceByName" in str(errors[0]):
            raise UnknownVoice(request.voice)
        engine.save_to_file(request.text, str(path))
        engine.runAndWait()
        if errors:
            raise _LineFailed(f"pyttsx3 failed: {errors[0]}")
        if not done.wait(request.timeout):
            raise _BackendFailed(f"pyttsx3 did not finish rendering within {request.timeout:.0f} s")
        if not finished[0] or not path.exists():
            raise _LineFailed("pyttsx3 stopped before writing the audio")
        _wait_for_espeak(engine, request.timeout)
        wav = path.read_bytes()
        if len(wav) <= _WAV_HEADER_BYTES:  # now and then pyttsx3's driver misses libespeak-ng's audio
            raise _LineFailed("pyttsx3 wrote no audio")
        return wav
    finally:
        path.unlink(missing_ok=True)
        for token in tokens:
            engine.disconnect(token)


def _pyttsx3_voices(engine: Any) -> list[VoiceInfo]:
    return [
        VoiceInfo(id=str(v.id), name=str(v.name), languages=tuple(str(lang) for lang in v.languages or ()))
        for v in engine.getProperty("voices")
    ]


class _Synthesizer:
    """Routes requests to pyttsx3, or to the command line once pyttsx3 has failed."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._engine: _EngineThread | None = None
        self._workdir: tempfile.TemporaryDirectory[str] | None = None
        self.fallback_reason: str | None = None  # why pyttsx3 was given up, for the log and for bug reports

    @property
    def backend(self) -> Backend:
        """pyttsx3 until it was given up (``fallback_reason`` says why), then the command line."""
        return Backend.PYTTSX3 if self.fallback_reason is None else Backend.ESPEAK_CLI

    def wav(self, request: RenderRequest) -> bytes:
        # One bad line is a glitch, not a broken engine: it is tried again before pyttsx3 is given up on.
        for last_try in (False, True):
            if self.backend is not Backend.PYTTSX3:
                break
            try:
                return self._pyttsx3_wav(request)
            except _LineFailed as error:
                if last_try:
                    self._fall_back(f"{error}, twice running")
                else:
                    log.info("%s: trying the line again", error)
            except _BackendFailed as error:
                self._fall_back(str(error))
        return _cli_wav(request)

    def _pyttsx3_wav(self, request: RenderRequest) -> bytes:
        workdir = self._ensure_engine_workdir()
        return self._engine_call(
            lambda engine: _pyttsx3_wav(engine, request, workdir), request.timeout + _RENDER_TIMEOUT_S
        )

    def voices(self) -> list[VoiceInfo]:
        if self.backend is Backend.PYTTSX3:
            try:
                return self._engine_call(_pyttsx3_voices, _RENDER_TIMEOUT_S)
            except _BackendFailed as error:
                self._fall_back(str(error))
        return _cli_voices()

    def shutdown(self) -> None:
        with self._lock:
            engine, self._engine = self._engine, None
            workdir, self._workdir = self._workdir, None
            self.fallback_reason = None  # a fresh start tries pyttsx3 again
        stopped = engine.stop() if engine is not None else True
        # pyttsx3.init() hands back a cached engine while the old one is still alive: forget it, so
        # the next thread starts a fresh engine and driver instead of inheriting this one's state.
        pyttsx3 = sys.modules.get("pyttsx3")
        if stopped and pyttsx3 is not None:
            getattr(pyttsx3, "_activeEngines", {}).clear()
        # libespeak-ng writes files from its own thread: remove the folder only once the engine is gone.
        if workdir is not None and stopped:
            workdir.cleanup()

    def _ensure_engine_workdir(self) -> Path:
        with self._lock:
            if self._workdir is None:
                self._workdir = tempfile.TemporaryDirectory(prefix="voice-earl-speech-")
            return Path(self._workdir.name)

    def _engine_call(self, call: Callable[[Any], T], timeout: float) -> T:
        with self._lock:
            if self._engine is None:
                self._engine = _EngineThread()
            engine = self._engine
        return engine.call(call, timeout)

    def _fall_back(self, reason: str) -> None:
        with self._lock:
            if self.fallback_reason is not None:
                return
            self.fallback_reason = reason
            stuck, self._engine = self._engine, None
        log.warning("%s; speaking through the espeak-ng command line from now on", reason)
        if stuck is not None:
            stuck.stop(timeout=0.1)  # a hung thread is a daemon: it cannot keep the process alive


def _espeak_command() -> str:
    command = shutil.which("espeak-ng")
    if command is None:
        raise SpeechError("cannot synthesize speech: pyttsx3 failed and espeak-ng is not installed (install espeak-ng)")
    return command


def _cli_wav(request: RenderRequest) -> bytes:
    # The text goes through stdin so that a line starting with "-" is never taken for an option.
    command = [_espeak_command(), "--stdout", "-v", request.voice, "-s", str(request.rate)]
    try:
        done = subprocess.run(command, input=request.text.encode(), capture_output=True, timeout=request.timeout)
    except subprocess.TimeoutExpired:
        raise SpeechError(f"espeak-ng did not finish within {request.timeout:.0f} s") from None
    message = done.stderr.decode(errors="replace").strip()
    if "voice does not exist" in message:
        raise UnknownVoice(request.voice)
    if done.returncode != 0 or len(done.stdout) <= _WAV_HEADER_BYTES:
        raise SpeechError(f"espeak-ng failed: {message or f'exit status {done.returncode}'}")
    return done.stdout


def variant_dropped(voice: str) -> str | None:
    """Why espeak-ng would say ``voice`` in its accent's own voice, dropping the variant after "+"
    without a word; None when it would not, or when there is no espeak-ng command line to ask.

    A variant's name is a file name, so its case counts ("+Linda" is no variant, "+linda" is), and
    after a language that is not a voice's own name ("en-gb" is the voice "en") the variant is lost.
    """
    accent, plus, variant = voice.partition("+")
    command = shutil.which("espeak-ng")
    if not plus or command is None:
        return None
    try:
        voices = [fields[4] for fields in _listed(command, "--voices")]
        variants = [fields[4] for fields in _listed(command, "--voices=variant")]
    except (OSError, subprocess.TimeoutExpired):
        return None
    if variant not in {name.removeprefix("!v/") for name in variants}:
        return f"espeak-ng has no variant {variant!r} (its names are case-sensitive)"
    if accent.rpartition("/")[2].lower() not in {name.rpartition("/")[2].lower() for name in voices}:
        return f"{accent!r} is a language, not a voice, and espeak-ng drops a variant after it"
    return None


def check_variant(voice: str) -> None:
    """Raise ``UnknownVoice`` when espeak-ng would drop ``voice``'s variant and speak the plain accent."""
    dropped = variant_dropped(voice)
    if dropped:
        raise UnknownVoice(voice, dropped)


def _listed(command: str, listing: str) -> list[list[str]]:
    """The rows of ``espeak-ng --voices`` (or ``--voices=variant``), split: language, name and file
    are the 2nd, 4th and 5th field."""
    done = subprocess.run([command, listing], capture_output=True, text=True, timeout=30)
    return [fields for fields in map(str.split, done.stdout.splitlines()[1:]) if len(fields) >= 5]


def _cli_voices() -> list[VoiceInfo]:
    voices = []
    for fields in _listed(_espeak_command(), "--voices"):
        others = tuple(part.strip("(").split()[0] for part in " ".join(fields[5:]).split(")") if part.strip())
        voices.append(VoiceInfo(id=fields[4].lower(), name=fields[3].replace("_", " "), languages=(fields[1], *others)))
    return voices


synthesizer = _Synthesizer()
atexit.register(synthesizer.shutdown)

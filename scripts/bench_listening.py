#!/usr/bin/env python3
"""Listening benchmark: what is accepted, what table talk moves the game, and how fast.

Every recording (formulas, passes, commands and table talk in synthesized voices, and real
human recordings from packages; see voice_earl/bench/corpus.py) is heard through the real
listener in every condition (clean, babble at 12 and 6 dB, white noise, echo, "party" at 12 and
6 dB: six other people saying other things, a room in which no setting was chosen, and "cafe" at
12 and 6 dB: five others again, a second room to choose settings in), by the first pass alone and
with the whisper judge. Latency is measured from the true end of the speech
(the end of the clean synthesized speech) to the verdict, on the listener's real-time clock, for
the formulas accepted and the passes recognised (a miss is no verdict: the listener listens on).
"chatter" is the table talk that moved the game; "w/ pass" the same for the talk with "pass" in it
("pass me the crisps", "my password is on the fridge"), the talk most likely to pass for a pass;
"room" the same for stretches of the room alone (its babble at the level of a typical voice less the
condition's dB, no one speaking to the game). With --knock the listeners also listen for knocks on the
table (the game does with `play --knock`), and the knock rows follow (scripts/knock_bench.py): knocks
heard as passes in each room, the time from the knock to the verdict, and the cards, glasses, chairs,
laughter and clapping that passed. ``--show-errors`` lists the mistakes grouped by the reason that
decided them (the judge's ``why``).

    .venv/bin/python scripts/bench_listening.py                 # held-out voices, every condition
    .venv/bin/python scripts/bench_listening.py --split tune --quick
    .venv/bin/python scripts/bench_listening.py --knock                 # ... listening for knocks too
    .venv/bin/python scripts/bench_listening.py --knocks-only --systems judge   # the knock rows alone
    .venv/bin/python scripts/bench_listening.py --set verifier=true   # the judge decides by its trained verifier
    .venv/bin/python scripts/bench_listening.py --recordings DIR  # utterances kept with --keep-audio
    .venv/bin/python scripts/bench_listening.py --split tune --systems judge whole  # listener against
        # the judge alone on each utterance cut at its true end: what finding the end of speech costs
    .venv/bin/python scripts/bench_listening.py --split tune --set confirm_s=0.12  # try a listening or judge setting
    .venv/bin/python scripts/bench_listening.py --close-mic     # the phones as microphones: held to the mouth
        # (the room 10 dB quieter against the voice), each recording cut where the button would be held
        # and judged whole, timed from the release (voice_earl/bench/held.py)

The judge's decision alone is replayed in seconds on the golden corpus of the tune split's scores
(``scripts/judge_replay.py``; ``scripts/judge_corpus.py`` makes the corpus, ``scripts/train_verifier.py``
trains the verifier on it).

Timings are taken on whatever machine runs this; on a shared 2-core machine they are pessimistic.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from voice_earl.bench.corpus import (
    CACHE,
    CHATTER,
    CONDITIONS,
    TAIL_S,
    TALK_PER_VOICE,
    Expect,
    Trial,
    degrade,
    engines_missing,
    framed,
    human_trials,
    noise_stream,
    room_trials,
    synthetic_trials,
    trial_speech,
    typical_power,
    voices,
)
from voice_earl.bench.held import at_the_phone, hear_held_trial
from voice_earl.bench.outcomes import HEADER, Outcome, row, show_errors
from voice_earl.bench.recordings import recorded_trials
from voice_earl.bench.rooms import room_talk
from voice_earl.bench.settings import chosen_settings
from voice_earl.keep.config import KNOCK_BY_DEFAULT
from voice_earl.listening.stream.audio import SAMPLE_RATE, pcm_chunks, read_wav
from voice_earl.listening.stream.listener import Listener
from voice_earl.listening.stream.speech_end import speech_end_s
from voice_earl.listening.stream.utterance import Judge, Utterance, grade_utterance
from voice_earl.table.phones.mic_gate import HeldHearing
from voice_earl.words.verdicts import Verdict

WHOLE_TAIL_S = 0.1  # with --systems whole: the quiet kept after the true end of speech


def run_trial(listener: Listener, trial: Trial, audio: np.ndarray, true_end: float) -> Outcome:
    utterance = listener.listen(pcm_chunks(audio, chunk_ms=40), trial.context)
    verdict = grade_utterance(utterance, trial.context).verdict
    heard = utterance.text.strip()
    latency = round((utterance.decided_at - true_end) * 1000) if utterance.speech_start is not None else None
    started = utterance.judge_started
    return Outcome(
        trial,
        verdict,
        heard,
        latency,
        None if started is None else round((started - true_end) * 1000),
        None if started is None else round(utterance.judge_s * 1000),
        round(utterance.first_pass_s * 1000),
        utterance.why,
    )


def run_whole(first_pass: Listener, judge: Judge, trial: Trial, audio: np.ndarray, true_end: float) -> Outcome:
    """The judge alone on the whole utterance, cut where the speech truly ends (plus the quiet the
    listener waits for): what the judge can do when end of speech is found perfectly."""
    heard = first_pass.listen(pcm_chunks(audio, chunk_ms=40), trial.context).text
    result = judge.judge(audio[: int((true_end + WHOLE_TAIL_S) * SAMPLE_RATE)], trial.context, heard)
    verdict = grade_utterance(Utterance(result.phrase, 0.0, true_end, true_end, False, 0.0, 0.0), trial.context).verdict
    return Outcome(trial, verdict, result.phrase, None, None, round(result.compute_s * 1000), 0, result.why)


Hearing = Callable[[Trial, np.ndarray, float], Outcome]
LISTENERS: dict[str, Listener] = {}  # the listeners that listeners() made, by name (the knock rows use them)


def run_held(hearing: HeldHearing, trial: Trial, audio: np.ndarray, true_end: float) -> Outcome:
    """A phone held to the mouth: the whole hold judged at once, timed from the release."""
    verdict, heard, latency, why = hear_held_trial(hearing, trial, audio, true_end)
    return Outcome(trial, Verdict(verdict), heard, latency, 0, latency, 0, why)


def held_listeners(pairs: Sequence[str] = ()) -> list[tuple[str, Hearing]]:
    from voice_earl.listening.judge.whisper import WhisperJudge, settings_for
    from voice_earl.listening.models.judge_models import discover_judge_model
    from voice_earl.listening.sphinx_recognizer import SphinxRecognizer

    found = discover_judge_model()
    settings, judge_settings = chosen_settings(pairs, settings_for(found.path) if found is not None else None)
    judge = WhisperJudge(found.path, judge_settings) if found is not None else None
    name = "phone held + judge" if judge is not None else "phone held, no judge"
    return [(name, partial(run_held, HeldHearing(Listener(SphinxRecognizer(), settings, judge=judge))))]


def listeners(systems: Sequence[str], pairs: Sequence[str] = (), knock: bool = False) -> list[tuple[str, Hearing]]:
    """Each system chosen, as a function that hears a trial (its listener, if any, in ``LISTENERS``)."""
    from voice_earl.listening.judge.whisper import WhisperJudge, settings_for
    from voice_earl.listening.models.judge_models import discover_judge_model
    from voice_earl.listening.sphinx_recognizer import SphinxRecognizer
    from voice_earl.listening.stream.knock import shipped_model

    judging = [s for s in systems if s in ("judge", "whole")]
    found = discover_judge_model() if judging else None
    # The judge's numbers are its model's own (the trained judge; VOICE_EARL_JUDGE_MODEL may name tiny.en).
    settings, judge_settings = chosen_settings(pairs, settings_for(found.path) if found is not None else None)
    knocks = shipped_model() if knock else None  # a knock at positions 2-4 passes, as with `play --knock`
    made: list[tuple[str, Hearing]] = []
    if "pocketsphinx" in systems:
        LISTENERS["pocketsphinx"] = Listener(SphinxRecognizer(), settings, knocks=knocks)
        made.append(("pocketsphinx", partial(run_trial, LISTENERS["pocketsphinx"])))
    if judging and found is None:
        print("(judge skipped: no whisper model found; pip install 'voice-earl[judge]')", file=sys.stderr)
    elif found is not None:
        judge = WhisperJudge(found.path, judge_settings)
        if "judge" in systems:
            listener = Listener(SphinxRecognizer(), settings, judge=judge, knocks=knocks)
            LISTENERS["pocketsphinx + judge"] = listener
            made.append(("pocketsphinx + judge", partial(run_trial, listener)))
        if "whole" in systems:
            made.append(("judge, true segment", partial(run_whole, Listener(SphinxRecognizer()), judge)))
    return made


def synthetic_audio(trials: Sequence[Trial], tail_s: float = TAIL_S) -> dict[Trial, tuple[np.ndarray, float]]:
    return {trial: framed(trial_speech(trial, CACHE), tail_s) for trial in trials}


def bench(args: argparse.Namespace) -> int:
    talk = len(CHATTER) if args.all_talk else TALK_PER_VOICE
    trials = [
        *synthetic_trials(args.split, args.seed, talk, args.every_line),
        *human_trials(args.humans, args.seed),
        *room_trials(args.split, args.seed),
    ]
    conditions = ("clean", "babble 6 dB") if args.quick else tuple(args.conditions or CONDITIONS)
    clean = synthetic_audio(trials, args.tail)
    quiet_power = typical_power(clean[t][0] for t in trials if t.expect == Expect.CORRECT)
    rooms = {c: room_talk(c, CACHE) for c in conditions}
    print(
        f"split {args.split}: {len(voices(args.split))} voices, {len(trials)} recordings per condition "
        f"({sum(t.expect == Expect.HUMAN for t in trials)} of them real human speech, "
        f"{sum(t.expect == Expect.ROOM for t in trials)} the room alone), "
        f"each followed by {args.tail:g} s of the condition's room\n"
    )
    if args.close_mic:
        print(
            'close mic: each condition\'s room 10 dB quieter against the voice ("babble 6 dB" is heard at 16 dB), '
            "each recording held from 0.3 s before the voice to 0.25 s after it and judged whole; latency from "
            "the release to the verdict\n"
        )
    print(HEADER)
    print("-" * len(HEADER))
    rngs = {c: noise_stream(args.seed, c) for c in conditions}
    heard_as = at_the_phone if args.close_mic else str  # a phone held to the mouth: the room 10 dB quieter
    noisy = (
        {}
        if args.knocks_only
        else {
            (t, c): degrade(clean[t][0], heard_as(c), rooms[c], rngs[c], quiet_power)
            for c in conditions
            for t in trials
        }
    )
    made = held_listeners(args.set) if args.close_mic else listeners(args.systems, args.set, knock=args.knock)
    for name, hear in [] if args.knocks_only else made:
        for condition in conditions:
            outcomes = [hear(t, noisy[(t, condition)], clean[t][1]) for t in trials]
            print(row(name, condition, outcomes), flush=True)
            if args.show_errors:
                show_errors(outcomes)
    if args.knock:
        from knock_bench import knock_rows

        chosen = [(name, LISTENERS[name]) for name, _ in made if name in LISTENERS]
        knock_rows(chosen, args.split, conditions, rooms, args.seed, args.show_errors, args.knock_mix)
    print(f"\npeak RSS of the whole run: {peak_rss_mb():.0f} MB")
    return 0


def bench_recordings(args: argparse.Namespace) -> int:
    trials = recorded_trials(args.recordings)
    if not trials:
        print(f"no labelled recordings in {args.recordings} (see voice_earl/bench/recordings.py)", file=sys.stderr)
        return 1
    print(f"{len(trials)} recordings from {args.recordings}\n")
    print(HEADER)
    print("-" * len(HEADER))
    for name, hear in listeners(args.systems, args.set):
        outcomes = []
        for trial in trials:
            assert trial.path is not None
            audio = read_wav(trial.path)
            end = speech_end_s(audio)
            outcomes.append(hear(trial, audio, end if end is not None else len(audio) / SAMPLE_RATE))
        print(row(name, "recorded", outcomes), flush=True)
        if args.show_errors:
            show_errors(outcomes)
    return 0


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--split", choices=("tune", "heldout", "all"), default="heldout")
    parser.add_argument("--conditions", nargs="+", choices=CONDITIONS, metavar="CONDITION")
    parser.add_argument("--quick", action="store_true", help="clean and babble 6 dB only")
    parser.add_argument(
        "--systems",
        nargs="+",
        default=["pocketsphinx", "judge"],
        choices=("pocketsphinx", "judge", "whole"),
        help="whole: the judge alone on each utterance cut at its true end (no listener)",
    )
    parser.add_argument("--humans", type=int, default=80, help="how many real recordings to add (default 80)")
    parser.add_argument(
        "--all-talk",
        action="store_true",
        help=f"every voice says every sentence of table talk ({len(CHATTER)}), not {TALK_PER_VOICE}",
    )
    parser.add_argument(
        "--every-line",
        action="store_true",
        help="every voice says every line due (32) and every pass at every position (9), not 15 "
        "and 6 drawn by the seed: steadier figures, in about 1.3 times the time",
    )
    parser.add_argument("--recordings", type=Path, metavar="DIR", help="utterances kept with --keep-audio")
    parser.add_argument(
        "--tail",
        type=float,
        default=TAIL_S,
        metavar="S",
        help=f"the room kept after each utterance (default {TAIL_S:g} s); talk that goes on "
        "longer shows what waiting for a quiet that never comes costs",
    )
    parser.add_argument(
        "--close-mic",
        action="store_true",
        help="the phones as microphones: the room 10 dB quieter against the voice, each recording "
        "held from just before the voice to just after it and judged whole (with the judge)",
    )
    parser.add_argument("--show-errors", action="store_true")
    parser.add_argument(
        "--knock",
        action=argparse.BooleanOptionalAction,
        default=KNOCK_BY_DEFAULT,
        help="listen for knocks on the table too, and add the knock rows (default: as the game, "
        f"{'on' if KNOCK_BY_DEFAULT else 'off'})",
    )
    parser.add_argument("--knocks-only", action="store_true", help="only the knock rows (with --knock implied)")
    parser.add_argument(
        "--knock-mix", choices=("body", "loud"), default="body", help="how a room is mixed against a knock (knocks.py)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--set",
        nargs="+",
        default=[],
        metavar="NAME=VALUE",
        help="settings to try: fields of ListenSettings or JudgeSettings, e.g. confirm_s=0.12",
    )
    args = parser.parse_args()
    args.knock = args.knock or args.knocks_only
    if args.recordings is not None:
        return bench_recordings(args)
    missing = engines_missing()
    if missing:
        tools = ", ".join(missing)
        print(f"needed to synthesize the test speech: {tools} (bash scripts/setup.sh dev)", file=sys.stderr)
        return 1
    return bench(args)


if __name__ == "__main__":
    raise SystemExit(main())

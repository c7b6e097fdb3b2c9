"""`voice-earl hear`: recognise formulas in WAV files or from the microphone and judge them."""

from __future__ import annotations

import argparse
import codecs
import contextlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voice_earl.commands.arguments import device, file_path, path_text, whole_number
from voice_earl.commands.table_options import add_judge_options
from voice_earl.errors import UsageError, VoiceEarlError
from voice_earl.i18n import DEFAULT_LANGUAGE, LANGUAGES
from voice_earl.paths import path_problem

MAX_MANIFEST_BYTES = 10 * 1000 * 1000
HEAR_A_RECORDING = "or hear a recording instead: voice-earl hear FILE.wav --position N"

if TYPE_CHECKING:
    from voice_earl.game.cards import Rank
    from voice_earl.game.chants import ChantSet
    from voice_earl.listening.stream.listener import Listener
    from voice_earl.listening.stream.utterance import Utterance
    from voice_earl.words.context import ListenContext
    from voice_earl.words.verdicts import LineGrade, Strictness


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="*", type=file_path, metavar="FILE.wav", help="recordings, one formula each")
    parser.add_argument(
        "--manifest",
        type=file_path,
        metavar="LIST.jsonl",
        help='one JSON object a line: {"path": ..., "position": P, "rank": R} or "ranks": [...]',
    )
    parser.add_argument("--mic", action="store_true", help="listen live and print a verdict for each formula")
    parser.add_argument("--device", type=device, metavar="NAME|INDEX", help="the microphone (default: the system's)")
    parser.add_argument("--position", type=whole_number(1, 4), help="the position due (1 = the lead)")
    parser.add_argument("--rank", help="the rank due (at a lead: the only rank open)")
    parser.add_argument("--ranks", metavar="R,R,...", help="at a lead: the ranks the player may lead (default all)")
    parser.add_argument(
        "--chant", type=path_text, default="earl", help="chant set: earl, snip-snap-snorum or a .toml file"
    )
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        default=DEFAULT_LANGUAGE,
        help="the table's language: the word its rules name for a pass passes too (nl: pas, it: passo)",
    )
    parser.add_argument("--recognizer", default="auto", choices=("auto", "vosk", "pocketsphinx"))
    parser.add_argument("--model", type=file_path, metavar="PATH", help="the vosk model directory")
    add_judge_options(parser)
    parser.add_argument("--strictness", default="normal", choices=("lenient", "normal", "strict"))
    parser.add_argument(
        "--grammar",
        default="context",
        choices=("context", "fixed"),
        help="context: this turn's phrases (default); fixed: every line for every rank",
    )
    parser.add_argument(
        "--knock", action="store_true", help="a knock on the table passes, at positions 2-4, as in play and practice"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per line")


@dataclass(frozen=True)
class _Job:
    path: str
    context: ListenContext | None
    error: str = ""


def run(args: argparse.Namespace) -> int:
    from voice_earl.keep.chant_files import chant_set
    from voice_earl.listening.chain import open_listener
    from voice_earl.words.verdicts import Strictness

    sources = sum((bool(args.files), args.manifest is not None, args.mic))
    if sources != 1:
        raise UsageError("give WAV files, --manifest LIST.jsonl or --mic (exactly one of them)")
    if args.manifest is None and args.position is None:
        raise UsageError("--position is required (1 = the lead, 2-4 = the following cards)")
    # Every argument is checked before the recognizer loads (which takes seconds).
    chant = chant_set(args.chant)
    if args.manifest is not None:
        jobs = list(_manifest_jobs(args.manifest, chant, args.lang))
    else:
        context = _context(args.position, args.rank, args.ranks, chant, args.lang)
        jobs = [_Job(str(path), context) for path in args.files]
    if args.mic:
        from voice_earl.listening.stream.audio import choose_input_device

        with _what_hear_can_do_instead():
            choose_input_device(args.device)  # no microphone: say so before the recognizer takes seconds to load
    chain = open_listener(
        args.recognizer,
        args.model,
        judge_model=args.judge_model,
        base_judge=args.base_judge,
        judge=not args.no_judge,
        knock=args.knock,
        verifier=args.judge_verifier,
    )
    # What listens, in short; the models' paths and why these were chosen are in the log file.
    print(f"voice-earl hear: listening with {chain.summary or chain.description}", file=sys.stderr)
    listener = chain.listener
    recognizer = listener.recognizer
    strictness = Strictness(args.strictness)
    if args.mic:
        with _what_hear_can_do_instead():
            return _hear_mic(args, listener, context, strictness)
    failures = 0
    for job in jobs:
        record = _hear_file(job, listener, strictness, args.grammar == "fixed")
        failures += "error" in record
        _print(record, args.json)
        for notice in recognizer.take_notices():
            print(f"voice-earl hear: {notice}", file=sys.stderr)
    return 1 if failures else 0


def _context(position: int, rank: str | None, ranks: str | None, chant: ChantSet, language: str) -> ListenContext:
    from voice_earl.game.cards import RANKS
    from voice_earl.words.context import ListenContext

    if rank is not None and ranks is not None:
        raise UsageError("give --rank or --ranks, not both")
    names = [rank] if rank is not None else _rank_list(ranks)
    chosen: tuple[Rank, ...] = tuple(_parse_rank(name) for name in names)
    if not chosen:
        if position != 1:
            raise UsageError(f"position {position} follows one rank: give --rank R")
        chosen = RANKS  # at a lead every rank is possible
    if position != 1 and len(chosen) != 1:
        raise UsageError(f"position {position} follows one rank: give --rank R, not several")
    return ListenContext(position, chosen, chant, language=language)


def _rank_list(ranks: str | None) -> list[str]:
    """The ranks of ``--ranks Q,K`` (none given: []); an empty one (``''``, ``Q,,K``) is refused."""
    if ranks is None:
        return []
    names = [name.strip() for name in ranks.split(",")]
    if not all(names):
        raise UsageError(f"--ranks {ranks!r}: give ranks separated by commas, such as Q,K,7")
    return names


def _parse_rank(name: str) -> Rank:
    from voice_earl.game.cards import Rank

    try:
        return Rank.parse(name)
    except ValueError as error:
        raise UsageError(str(error)) from None


def _manifest_jobs(path: Path, chant: ChantSet, language: str) -> Iterator[_Job]:
    """One job per line; a line that is not a good entry is a job that reports its error."""
    for number, line in _manifest_lines(path):
        if line is None:
            yield _Job(f"{path}:{number}", None, "not UTF-8 text: save the manifest as UTF-8")
            continue
        if not line.strip():
            continue
        entry, why_not = _json_entry(line)
        if entry is None:
            yield _Job(f"{path}:{number}", None, why_not)
            continue
        problem = path_problem(entry["path"])
        if problem is not None:
            yield _Job(f"{path}:{number}", None, f'"path": {problem}')
            continue
        target = Path(entry["path"])
        shown = str(target if target.is_absolute() else path.parent / target)
        try:
            ranks = entry.get("ranks")
            position = entry.get("position")
            if not isinstance(position, int) or isinstance(position, bool) or position not in (1, 2, 3, 4):
                raise UsageError(f'"position" must be 1-4, not {json.dumps(position)[:20]}')
            rank_list = ",".join(str(r) for r in ranks) if isinstance(ranks, list) else None
            rank = entry.get("rank")
            yield _Job(shown, _context(position, None if rank is None else str(rank), rank_list, chant, language))
        except (VoiceEarlError, ValueError) as error:
            yield _Job(shown, None, str(error))


def _json_entry(line: str) -> tuple[dict[str, Any] | None, str]:
    """A manifest line's object, or None and why not. Whatever a line holds, it is its own error."""
    try:
        entry = json.loads(line)
    except json.JSONDecodeError:
        return None, "not a JSON object"
    except RecursionError:
        return None, "not a manifest entry: nested too deeply"
    except ValueError:  # Python reads no number of more than 4,300 digits
        return None, "not a manifest entry: it holds a number too long to read"
    if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
        return None, 'each line needs a "path"'
    return entry, ""


def _manifest_lines(path: Path) -> Iterator[tuple[int, str | None]]:
    """(line number, text) of each line; the text is None where the line is not UTF-8."""
    from voice_earl.paths import UnreadableFile, read_regular_file

    try:
        data = read_regular_file(path, MAX_MANIFEST_BYTES)
    except UnreadableFile as error:
        raise VoiceEarlError(f"cannot read the manifest: {error}") from None
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise VoiceEarlError(f"{path}: the manifest is UTF-16 text; save it as UTF-8")
    data = data.removeprefix(codecs.BOM_UTF8)  # as some editors write it
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            yield number, raw.decode("utf-8")
        except UnicodeDecodeError:
            yield number, None


def _hear_file(job: _Job, listener: Listener, strictness: Strictness, fixed: bool) -> dict[str, Any]:
    from voice_earl.listening.stream.audio import pcm_chunks, read_wav
    from voice_earl.listening.stream.speech_end import speech_end_s
    from voice_earl.listening.stream.utterance import grade_utterance
    from voice_earl.words.context import ListenContext

    if job.context is None:
        return {"path": job.path, "error": job.error}
    try:
        samples = read_wav(Path(job.path))
    except VoiceEarlError as error:
        return {"path": job.path, "error": str(error)}
    grammar = ListenContext.fixed(job.context.chant, job.context.language) if fixed else None
    try:
        utterance = listener.listen(pcm_chunks(samples), job.context, grammar=grammar)
    except VoiceEarlError as error:
        return {"path": job.path, "error": str(error)}
    grade = grade_utterance(utterance, job.context, strictness)
    # The true end of the speech, from the whole file's energy (not the listener's own estimate),
    # in the audio heard before the decision (the clock's time would add this machine's speed).
    speech_end = speech_end_s(samples, before_s=utterance.audio_s) if utterance.speech_start is not None else None
    return _record(job.path, utterance, grade, listener, job.context, speech_end)


def _record(
    path: str,
    utterance: Utterance,
    grade: LineGrade,
    listener: Listener,
    context: ListenContext,
    speech_end: float | None,
) -> dict[str, Any]:
    from voice_earl.listening.recognizer import KnockHeard

    judge = listener.judge if listener.judge is not None and listener.judge.understands(context) else None
    latency = None if speech_end is None else max(0, round((utterance.decided_at - speech_end) * 1000))
    return {
        "path": path,
        "heard": grade.heard,
        "verdict": grade.verdict.value,
        "position": grade.position,
        "rank": grade.rank.value if grade.rank is not None else None,
        "score": grade.score,
        "expected": grade.expected,
        "diff": [{"kind": op.kind, "said": " ".join(op.said), "due": " ".join(op.due)} for op in grade.diff],
        "recognizer": listener.recognizer.name,
        "judge": judge.name if judge is not None else None,
        "latency_ms": latency,
        "speech_end_s": speech_end,
        "decided_at_s": round(utterance.decided_at, 3),
        "why": utterance.why or None,
        "feedback": grade.feedback(),
        "knock": any(isinstance(event, KnockHeard) for event in utterance.events),
    }


def _print(record: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(record, ensure_ascii=False), flush=True)
    elif "error" in record:
        print(f"{record['path']}: error: {record['error']}", flush=True)
    else:
        latency = "" if record["latency_ms"] is None else f", {record['latency_ms']} ms"
        feedback = f" - {record['feedback']}" if record["feedback"] else ""
        print(
            f"{record['path']}: {record['verdict']} (score {record['score']}{latency}) "
            f"heard {record['heard']!r}{feedback}",
            flush=True,
        )


@contextlib.contextmanager
def _what_hear_can_do_instead() -> Iterator[None]:
    """A microphone's problem says what ``hear`` can do instead: Silent Earl, which hears nothing, is no way on."""
    from voice_earl.listening.stream.audio import other_way_on

    try:
        yield
    except VoiceEarlError as error:
        raise VoiceEarlError(other_way_on(str(error), HEAR_A_RECORDING)) from None


def _hear_mic(args: argparse.Namespace, listener: Listener, context: ListenContext, strictness: Strictness) -> int:
    from voice_earl.listening.stream.audio import Microphone
    from voice_earl.listening.stream.utterance import grade_utterance
    from voice_earl.words.context import ListenContext

    grammar = ListenContext.fixed(context.chant, context.language) if args.grammar == "fixed" else None
    device: str | int | None = args.device
    with Microphone(device) as microphone:
        print(
            f"voice-earl hear: listening on {microphone.device_name}; say '{context.due_lines()[0]}' (Ctrl-C stops)",
            file=sys.stderr,
        )
        count = 0
        while True:
            utterance = listener.listen(microphone.chunks(), context, grammar=grammar)
            if utterance.speech_start is None:
                continue
            count += 1
            grade = grade_utterance(utterance, context, strictness)
            end = utterance.speech_end
            _print(_record(f"utterance {count}", utterance, grade, listener, context, end), args.json)

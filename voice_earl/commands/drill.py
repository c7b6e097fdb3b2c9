"""`voice-earl drill`: the formulas alone, scored with word-level feedback."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import random
import sys
import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from voice_earl.commands.arguments import SEED, device, path_text, whole_number
from voice_earl.commands.table_options import add_judge_options, add_language_option
from voice_earl.errors import tell
from voice_earl.keep.chant_files import chant_set
from voice_earl.table.drill import Drill, Prompt, run_drill
from voice_earl.words.verdicts import Strictness
from voice_earl.wrapping import print_wrapped

if TYPE_CHECKING:
    from voice_earl.table.recitals import DrillRecital

Recital = Callable[[Prompt], "tuple[str, float] | None"]

EXAMPLES = """examples:
  voice-earl drill                    ten prompts, by voice
  voice-earl drill --rounds 0 --typed type the lines until an empty line
  voice-earl drill --strictness strict --keep-audio"""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rounds", type=whole_number(0, 10_000), default=10, help="how many prompts (0: until you quit)"
    )
    parser.add_argument("--typed", action="store_true", help="type the lines instead of saying them")
    parser.add_argument(
        "--chant", type=path_text, default=None, help="earl (default), snip-snap-snorum, or a .toml file"
    )
    parser.add_argument("--strictness", choices=[s.value for s in Strictness], default=None)
    parser.add_argument("--seed", type=SEED, default=None)
    parser.add_argument("--recognizer", choices=("auto", "vosk", "pocketsphinx"), default=None)
    parser.add_argument("--model", type=path_text, default=None, help="path to a vosk model directory")
    add_judge_options(parser)
    parser.add_argument("--device", type=device, default=None, help="microphone: name or index")
    parser.add_argument("--keep-audio", action="store_true", help="keep a WAV of each line you say")
    add_language_option(parser)


def run(args: argparse.Namespace) -> int:
    from voice_earl.commands.table_options import activate_language, apply_config
    from voice_earl.i18n import _
    from voice_earl.keep.storage import Store
    from voice_earl.keep.storage_values import Mode, utterance_of

    apply_config(args)
    activate_language(args)
    drill = Drill(random.Random(args.seed), chant_set(args.chant), Strictness(args.strictness))
    session = f"drill {datetime.now().astimezone():%Y-%m-%d %H:%M:%S}"  # stats --by session: a row per drill
    with Store.open(keep_audio=args.keep_audio, told=tell) as store, contextlib.ExitStack() as stack:
        voice = None if args.typed else _voice_or_typing(args, stack)
        recite: Recital = typed_recital if voice is None else voice

        def recite_and_keep(prompt: Prompt) -> tuple[str, float] | None:
            answer = recite(prompt)
            if answer is not None:
                grade = drill.grade_only(prompt, answer[0])
                said = utterance_of(grade, Mode.DRILL, round(answer[1] * 1000), None, args.strictness, session)
                kept = dataclasses.replace(said, rank=prompt.rank)  # the rank asked for, even when another was said
                store.record_utterance(kept, pcm16=voice.last_audio if voice is not None else None)
            return answer

        if voice is None:
            _line_editing()
            if sys.stdin.isatty():
                print_wrapped(_("Type the line for each prompt. An empty line or Ctrl-C stops."))
            else:  # lines read from a file or a pipe: an empty one is a line not said (typed_recital)
                print_wrapped(_("The lines are read one for each prompt; an empty line is a line not said."))
        else:
            print_wrapped(_("Say the line for each prompt. Ctrl-C stops."))
        with contextlib.suppress(KeyboardInterrupt):  # a way to stop: the summary still follows
            run_drill(drill, args.rounds, recite_and_keep, print_wrapped)
    print()
    print("\n".join(drill.summary()))
    return 0


def _line_editing() -> None:
    """Arrow keys and the line's history at a terminal's prompt (GNU readline, where Python has it),
    instead of escape codes typed into the answer."""
    if sys.stdin.isatty():
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401  (importing it is what turns line editing on for input())


def _voice_or_typing(args: argparse.Namespace, stack: contextlib.ExitStack[bool | None]) -> DrillRecital | None:
    """The microphone when it can start; otherwise say why and take typed lines (at a terminal, if the
    player agrees: declined, the drill stops with exit status 1)."""
    from voice_earl.errors import VoiceEarlError
    from voice_earl.i18n import _
    from voice_earl.listening.stream.audio import other_way_on
    from voice_earl.table.play_modes import ask_yes

    try:
        return stack.enter_context(voice_recital(args))
    except VoiceEarlError as error:
        print_wrapped(
            f"voice-earl: {other_way_on(str(error), 'or type the lines: voice-earl drill --typed')}", sys.stderr
        )
        if sys.stdin.isatty() and not ask_yes(_("Type the lines instead? [Y/n] ")):
            raise VoiceEarlError(_("stopped: without a microphone, type the lines (--typed)")) from None
        print("voice-earl: type the lines instead (--typed)", file=sys.stderr)
        return None


def typed_recital(prompt: Prompt) -> tuple[str, float] | None:
    started = time.monotonic()
    try:
        line = input("> ")
    except EOFError:
        return None
    if not line.strip() and sys.stdin.isatty():
        return None
    return line, time.monotonic() - started


def voice_recital(args: argparse.Namespace) -> contextlib.AbstractContextManager[DrillRecital]:
    from voice_earl.table.recitals import drill_recital

    return drill_recital(args)

"""Languages: complete catalogs, the .po reader, translated narration, screens and refusals, and --lang."""

from __future__ import annotations

import functools
import gettext
import io
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from voice_earl import catalogs, i18n
from voice_earl.commands.cli import main
from voice_earl.errors import UsageError
from voice_earl.game.cards import Rank
from voice_earl.game.moves import (
    CardNotHeld,
    GameOver,
    IllegalAction,
    Lead,
    LeadDuringQuartet,
    NoRankOpen,
    NotSeated,
    OutOfTurn,
    Pass,
    PassWhileHolding,
    Play,
    RankFinished,
    WrongRank,
)
from voice_earl.game.rules import HOYLE, DeckMode
from voice_earl.i18n import LANGUAGES, _, a_rank, current_language, parse_po, set_language
from voice_earl.table import narrator, speech
from voice_earl.table.presenters import ScreenView
from voice_earl.table.refusals import explain
from voice_earl.table.screen import TableScreen
from voice_earl.table.screen_sections import plain_parts
from voice_earl.table.session import TableSession
from voice_earl.table.session_events import MoveRefused, Seat, TableEvent, TableSettings
from voice_earl.table.turns import Command, KeyCommand, ScriptedInput, parse_command
from voice_earl.words.context import ListenContext
from voice_earl.words.verdicts import Strictness, grade_line

ROOT = Path(__file__).resolve().parent.parent
TRANSLATED = tuple(code for code in LANGUAGES if code != "en")


@functools.cache
def code_messages() -> dict[str, Any]:
    """The messages in the code, extracted once for the tests that only read them."""
    return dict(catalogs.extract_messages())


@pytest.fixture(autouse=True)
def english_afterwards() -> Iterator[None]:
    yield
    set_language("en")


# ---------------------------------------------------------------------------------------------------------
# Catalogs


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_message_is_translated_with_its_placeholders(code: str) -> None:
    messages = code_messages()
    entries = parse_po(i18n.catalog_path(code).read_text(encoding="utf-8"))
    problems = catalogs.problems(messages, entries)
    assert not problems, f"{code} catalog: run scripts/update_catalogs.py and translate:\n" + "\n".join(problems)


def test_the_template_lists_every_message() -> None:
    messages = code_messages()
    template = {e.msgid for e in parse_po((i18n.LOCALE_DIR / "voice_earl.pot").read_text(encoding="utf-8"))}
    assert set(messages) <= template, sorted(set(messages) - template)


def test_no_message_is_built_where_it_cannot_be_extracted() -> None:
    assert catalogs.unextractable() == []


def test_extraction_finds_every_marker_and_the_check_names_what_is_wrong(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "a.py").write_text(
        "from voice_earl import i18n\n"
        "from voice_earl.i18n import N_, _, ngettext\n"
        "KEYS = N_('q quit')\n"
        "def f(n: int, name: str) -> str:\n"
        "    return _('{player} passes').format(player=name) + i18n._('Deal {deal}')\n"
        "def g(n: int) -> str:\n"
        "    return ngettext('{count} card', '{count} cards', n) + _(KEYS) + _(f'{n} bad')\n",
        encoding="utf-8",
    )
    messages = catalogs.extract_messages(package)
    assert list(messages) == ["q quit", "{player} passes", "Deal {deal}", "{count} card"]
    assert messages["{count} card"].plural == "{count} cards"
    assert messages["Deal {deal}"].places == ["pkg/a.py:5"]
    assert [place.split(":")[1] for place in catalogs.unextractable(package)] == ["7"]

    entries = parse_po(
        'msgid "q quit"\nmsgstr "q stop"\n\n'
        'msgid "{player} passes"\nmsgstr "{speler} past"\n\n'
        'msgid "Deal {deal}"\nmsgstr ""\n'
    )
    problems = catalogs.problems(messages, entries)
    assert problems == [
        "placeholders differ: '{player} passes' -> '{speler} past'",
        "not translated: 'Deal {deal}'",
        "missing: '{count} card'",
    ]


def test_updating_keeps_translations_adds_new_messages_and_keeps_vanished_ones_obsolete(tmp_path: Path) -> None:
    messages = {
        "kept {x}": catalogs.Message("kept {x}", None, ["voice_earl/a.py:1"]),
        "new": catalogs.Message("new", None, ["voice_earl/a.py:2"]),
        "{count} card": catalogs.Message("{count} card", "{count} cards", ["voice_earl/a.py:3"]),
    }
    old = parse_po(
        '# Dutch messages\nmsgid ""\nmsgstr "Language: nl\\n"\n\n'
        '# a translator\'s note\n#: voice_earl/old.py:9\nmsgid "kept {x}"\nmsgstr "bewaard {x}"\n\n'
        'msgid "gone"\nmsgstr "weg"\n'
    )
    merged = catalogs.merge(messages, old, "nl")
    path = tmp_path / "nl.po"
    catalogs.write(path, merged)
    again = parse_po(path.read_text(encoding="utf-8"))
    by_id = {e.msgid: e for e in again}
    assert i18n.header_field(again, "Language") == "nl"
    assert by_id["kept {x}"].msgstr == ("bewaard {x}",)
    assert by_id["kept {x}"].comments == ("# a translator's note", "#: voice_earl/a.py:1")
    assert by_id["new"].msgstr == ("",) and not by_id["new"].translated
    assert by_id["{count} card"].msgid_plural == "{count} cards" and by_id["{count} card"].msgstr == ("", "")
    assert by_id["gone"].obsolete and by_id["gone"].msgstr == ("weg",)
    assert '#~ msgid "gone"' in path.read_text(encoding="utf-8")
    assert catalogs.merge(messages, again, "nl") == again  # a second update changes nothing


# ---------------------------------------------------------------------------------------------------------
# The .po reader


def test_the_reader_handles_continuations_escapes_plurals_and_skips_fuzzy_and_obsolete() -> None:
    entries = parse_po(
        'msgid ""\nmsgstr ""\n"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
        'msgid "say \\"pass\\""\nmsgstr ""\n"zeg \\"pas\\"\\n"\n"nu"\n\n'
        'msgid "{count} card"\nmsgid_plural "{count} cards"\nmsgstr[0] "{count} kaart"\nmsgstr[1] "{count} kaarten"\n\n'
        '#, fuzzy\nmsgid "maybe"\nmsgstr "misschien"\n\n'
        '#~ msgid "old"\n#~ msgstr "oud"\n'
    )
    translations = i18n.PoTranslations(entries)
    assert translations.gettext('say "pass"') == 'zeg "pas"\nnu'
    assert translations.ngettext("{count} card", "{count} cards", 1) == "{count} kaart"
    assert translations.ngettext("{count} card", "{count} cards", 0) == "{count} kaarten"
    assert translations.gettext("maybe") == "maybe"
    assert translations.gettext("old") == "old"
    assert translations.ngettext("x", "xs", 2) == "xs"


def test_a_broken_catalog_names_the_line() -> None:
    with pytest.raises(i18n.PoSyntaxError, match="line 4"):
        parse_po('msgid "a"\nmsgstr "b"\n\nmsgid a\nmsgstr "c"\n')


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="GNU gettext's msgfmt is not installed")
@pytest.mark.parametrize("code", TRANSLATED)
def test_the_reader_agrees_with_gnu_gettext(code: str, tmp_path: Path) -> None:
    po = i18n.catalog_path(code)
    mo = tmp_path / "voice_earl.mo"
    subprocess.run(["msgfmt", "--check", "-o", str(mo), str(po)], check=True, capture_output=True)
    with mo.open("rb") as handle:
        gnu = gettext.GNUTranslations(handle)
    ours = i18n.PoTranslations(parse_po(po.read_text(encoding="utf-8")))
    for message in code_messages().values():
        if message.plural:
            for n in (0, 1, 2, 5):
                assert ours.ngettext(message.msgid, message.plural, n) == gnu.ngettext(message.msgid, message.plural, n)
        else:
            assert ours.gettext(message.msgid) == gnu.gettext(message.msgid)


# ---------------------------------------------------------------------------------------------------------
# Choosing a language


def test_set_language_switches_at_call_time_and_refuses_unknown_codes() -> None:
    assert current_language() == "en"
    set_language("NL")
    assert current_language() == "nl" and _("{player} passes").format(player="Ann") == "Ann past"
    set_language("it")
    assert _("{player} passes").format(player="Ann") == "Ann passa"
    with pytest.raises(UsageError, match="en, nl, it"):
        set_language("fr")
    assert current_language() == "it"


def test_narrator_voice_for_each_language() -> None:
    assert i18n.language_voice("en") is None
    assert speech.narrator_voice_for("en") is None
    with pytest.raises(UsageError):
        speech.narrator_voice_for("de")


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
@pytest.mark.parametrize("code", TRANSLATED)
def test_the_narrator_voice_is_the_installed_espeak_ng_voice_of_the_language(code: str) -> None:
    listed = subprocess.run(["espeak-ng", f"--voices={code}"], capture_output=True, text=True, check=True).stdout
    installed = any(line.split()[1] == code for line in listed.splitlines()[1:])
    assert speech.narrator_voice_for(code) == (code if installed else None)


# ---------------------------------------------------------------------------------------------------------
# Narration, screens and refusals


@pytest.mark.parametrize(
    ("code", "text", "line"),
    [
        ("en", "Ann takes 8: Ben pays 3, Cy pays 5", "Ann takes 8: Ben pays 3, Cy pays 5"),
        ("nl", "Ann krijgt 8: Ben betaalt 3, Cy betaalt 5", "Ann krijgt 8: Ben betaalt 3, Cy betaalt 5"),
        ("it", "Ann incassa 8: Ben paga 3, Cy paga 5", "Ann incassa 8: Ben paga 3, Cy paga 5"),
    ],
)
def test_the_settlement_is_announced_in_the_language(code: str, text: str, line: str) -> None:
    set_language(code)
    announcement = narrator.settlement("Ann", [("Ben", 3), ("Cy", 5)])
    assert (announcement.text, announcement.line) == (text, line)


def test_rank_names_are_translated_but_the_formulas_stay_english() -> None:
    set_language("nl")
    assert narrator.turn("Ben", Rank.QUEEN, 2).text == "Ben: vrouwen, tweede kaart"
    assert narrator.turn("Ben", Rank.SIX, 4).line == "Ben: Zessen, kaart 4 van 4"
    assert narrator.quartet("Di", Rank.SEVEN).text == "And there's the Earl of Coventry! Di komt uit"
    set_language("it")
    assert narrator.turn("Ben", Rank.QUEEN, 2).text == "Ben: regine, seconda carta"
    final = narrator.standings([("Ann", 12), ("Ben", 3), ("Cy", 3), ("Di", -2)], final=True)
    assert "Secondo, Ben e Cy con 3. Quarto, Di con meno 2." in final.text


def test_feedback_explains_in_the_language_and_quotes_the_english_line() -> None:
    queens = ListenContext(2, (Rank.QUEEN,))
    set_language("nl")
    assert grade_line("there's a king as good as he", queens).feedback() == "je zei Heer, maar de waarde is Vrouw"
    assert grade_line("there's a queen as good as me", queens, Strictness.STRICT).feedback() == (
        "je zei 'as good as me', de regel eindigt op 'as good as he'"
    )
    set_language("it")
    assert grade_line("there's the best of all the three", queens).feedback() == (
        "questo è il verso della terza carta; la seconda carta dice 'There's a Queen as good as he'"
    )


def test_typed_commands_teach_in_the_language() -> None:
    set_language("it")
    with pytest.raises(ValueError, match="comando sconosciuto 'dance': comandi:"):
        parse_command("dance")


def _session(names: tuple[str, ...] = ("Ann", "Ben", "Cy")) -> TableSession:
    settings = TableSettings(
        tuple(Seat(n) for n in names), HOYLE.with_changes(silent=True), DeckMode.VIRTUAL, deals=1, seed=4
    )
    return TableSession(settings, {})


def test_engine_refusals_are_explained_in_the_language_with_the_players_names() -> None:
    session = _session()
    deal, names = session.deal, session.settings.names
    leader, other = deal.turn, (deal.turn + 1) % 3
    assert deal.hands is not None
    card = deal.hands[leader][0]

    def refused(action: Lead | Play | Pass) -> str:
        with pytest.raises(IllegalAction) as caught:
            deal.apply(action)
        return explain(caught.value, action, deal, names)

    set_language("nl")
    assert refused(Pass(other)) == f"{names[leader]} is aan de beurt, niet {names[other]}."
    assert refused(Pass(leader)) == f"Er ligt geen waarde open: {names[leader]} moet uitkomen."
    foreign = deal.hands[other][0]
    assert refused(Lead(leader, foreign.rank, foreign)) == f"{names[leader]} heeft {foreign.pretty} niet."
    deal.apply(Lead(leader, card.rank, card))
    follower = deal.turn
    assert refused(Lead(follower, card.rank)).startswith("De ")  # a quartet is open
    set_language("it")
    wrong = next(c for c in deal.hands[follower] if c.rank is not card.rank)
    assert refused(Play(follower, wrong)) == (
        f"{wrong.pretty} non è {a_rank(card.rank)}: il valore aperto è {i18n.rank_plural(card.rank).lower()}."
    )


@pytest.mark.parametrize(("code", "word"), [("nl", "pas"), ("it", "passo")])
def test_a_player_who_holds_none_is_told_to_pass_with_i_pass_or_the_word_the_rules_name(code: str, word: str) -> None:
    from voice_earl.table.turns import SAY_PASS
    from voice_earl.table.voice_input import SAY_PASS_OR_KNOCK

    set_language(code)
    for hint in (SAY_PASS, SAY_PASS_OR_KNOCK):
        assert "“I pass”" in _(hint) and f"“{word}”" in _(hint)


@pytest.mark.parametrize(
    "error",
    [
        GameOver,
        OutOfTurn,
        WrongRank,
        PassWhileHolding,
        LeadDuringQuartet,
        CardNotHeld,
        NoRankOpen,
        RankFinished,
        NotSeated,
    ],
)
@pytest.mark.parametrize("code", TRANSLATED)
@pytest.mark.parametrize("to_player", [False, True])
def test_every_kind_of_refusal_has_its_own_translated_sentence(
    error: type[IllegalAction], code: str, to_player: bool
) -> None:
    session = _session()
    deal, names = session.deal, session.settings.names
    assert deal.hands is not None
    card = deal.hands[deal.turn][0]
    deal.apply(Lead(deal.turn, card.rank, card))  # a rank is open, as most refusals need
    follower = deal.turn
    wrong = next(c for c in deal.hands[follower] if c.rank is not card.rank)
    action = Lead(follower, Rank.KING) if error in (RankFinished, LeadDuringQuartet) else Play(follower, wrong)
    english = explain(error("player 1 cannot"), action, deal, names, to_player)
    set_language(code)
    translated = explain(error("player 1 cannot"), action, deal, names, to_player)
    assert translated != english and "player 1" not in translated
    if to_player and error is not OutOfTurn:  # said to the player on their own phone: never in the third person
        assert names[follower] not in english and names[follower] not in translated
    fallback = _("That move is not allowed now: {reason}").split("{")[0]
    assert not translated.startswith(fallback), f"{error.__name__} has no sentence of its own"


@pytest.mark.parametrize(
    ("code", "eight", "ace", "queen"),
    [
        ("en", "an Eight", "an Ace", "a Queen"),
        ("nl", "een Acht", "een Aas", "een Vrouw"),
        ("it", "un Otto", "un Asso", "una Regina"),
    ],
)
def test_a_rank_takes_the_article_its_language_needs(code: str, eight: str, ace: str, queen: str) -> None:
    set_language(code)
    assert (a_rank(Rank.EIGHT), a_rank(Rank.ACE), a_rank(Rank.QUEEN)) == (eight, ace, queen)


def test_a_player_who_passes_holding_an_eight_or_an_ace_is_told_an_eight_or_an_ace() -> None:
    session = _session()
    deal, names = session.deal, session.settings.names
    assert deal.hands is not None
    leader = deal.turn
    rank = next(
        r
        for r in (Rank.EIGHT, Rank.ACE)
        if deal.holds(leader, r) and any(deal.holds(seat, r) for seat in range(3) if seat != leader)
    )
    events: list[TableEvent] = []
    keys = [KeyCommand(Command.LEAD, rank), KeyCommand(Command.PASS), KeyCommand(Command.PASS)]
    TableSession(session.settings, dict.fromkeys(range(3), ScriptedInput(keys)), [events.append]).run()
    refused = next(e for e in events if isinstance(e, MoveRefused))
    assert refused.reason == f"{names[refused.seat]} holds {a_rank(rank)} and must play it."
    assert refused.reason.split(" holds ")[1].startswith("an ")


def test_a_refused_key_and_the_screen_speak_dutch() -> None:
    set_language("nl")
    session = _session()
    events: list[TableEvent] = []
    session = TableSession(
        session.settings, dict.fromkeys(range(3), ScriptedInput([KeyCommand(Command.PLAY)])), [events.append]
    )
    assert not session.play_turn()
    reasons = [e.reason for e in events if isinstance(e, MoveRefused)]
    assert reasons == ["uitkomen vraagt een waarde: druk op haar toets (A 2-9 0/T J Q K) of typ 'lead Q'"]
    view = ScreenView(session, TableScreen(live=False), show_hands=lambda seat: False)
    parts = plain_parts(view.snapshot())
    assert parts["title"] == "Ronde 1 van 1 · hoyle · virtueel kaartspel"
    assert "(deler)" in parts["players"] and "kaarten, totaal 0" in parts["players"]
    assert parts["rank"].startswith("uitkomen: elke waarde")


@pytest.mark.parametrize("language", ["en", "nl", "it"])
def test_the_plain_line_of_a_silent_turn_names_the_player_once_wherever_the_language_puts_the_name(
    language: str,
) -> None:
    set_language(language)  # Italian puts the name last: "apre Cy"
    session = _session()
    view = ScreenView(session, TableScreen(live=False), show_hands=lambda seat: False)
    leader = session.settings.names[session.deal.turn]
    parts = plain_parts(view.snapshot())
    assert parts["due"] == _("{player} to lead").format(player=leader)
    assert parts["due"].count(leader) == 1


# ---------------------------------------------------------------------------------------------------------
# The command line


def test_an_unknown_language_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["play", "--players", "Ann", "Ben", "Cy", "--silent", "--no-voice", "--lang", "fr"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--lang" in err and "'nl'" in err


def test_a_silent_game_in_dutch(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("lead 7\nquit\n"))
    args = ["play", "--players", "Ann", "Ben", "Cy", "--deck", "virtual", "--silent", "--no-voice", "--lang", "nl"]
    assert main([*args, "--seed", "1"]) == 0
    out = capsys.readouterr().out
    for dutch in (
        "Ronde 1 van 6",
        "virtueel kaartspel",
        "Ann deelt",
        "Ben komt uit",
        "Zevens, kaart 2 van 4",
        "Gestopt. De wedstrijd is bewaard.",
    ):
        assert dutch in out
    assert "Deal 1" not in out and "Stopped" not in out


def test_the_config_language_applies_when_no_flag_is_given(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["config", "set", "language", "it"]) == 0
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "--players", "Ann", "Ben", "Cy", "--deck", "virtual", "--silent", "--no-voice"]) == 0
    assert "Mano 1 di 6 · hoyle · mazzo virtuale" in capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert (
        main(["play", "--players", "Ann", "Ben", "Cy", "--deck", "virtual", "--silent", "--no-voice", "--lang", "en"])
        == 0
    )
    assert "Deal 1 of 6" in capsys.readouterr().out


def test_the_drill_prompts_in_the_language(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("hello\n"))
    assert main(["drill", "--typed", "--rounds", "1", "--lang", "it", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "Apertura: due" in out and "non chiaro: sentito: 'hello'" in out
    assert "1. There's as good as RANK can be" in out  # the formulas stay English


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")
def test_the_narrator_speaks_the_tables_language_unless_a_voice_is_chosen() -> None:
    import argparse

    from voice_earl.table.play_modes import narrator_options

    def options(**given: object) -> argparse.Namespace:
        return argparse.Namespace(**{"no_voice": False, "voice": None, "rate": None, "verbosity": None, **given})

    set_language("it")
    assert narrator_options(options()).voice == speech.narrator_voice_for("it") == "it"
    assert narrator_options(options(voice="en-us")).voice == "en-us"
    assert narrator_options(options(no_voice=True)).voice is None
    set_language("en")
    assert narrator_options(options()).voice is None

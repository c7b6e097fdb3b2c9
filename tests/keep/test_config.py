"""The settings file, `voice-earl config`, and how flags override the file."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.listening_audio import needs_espeak

from voice_earl.commands.cli import main
from voice_earl.errors import UsageError, VoiceEarlError
from voice_earl.keep import config, toml_text
from voice_earl.keep.config import Settings, load_settings, with_flags
from voice_earl.keep.config_write import set_value, unset_value

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


def write_config(text: str) -> Path:
    path = config.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_no_file_means_defaults_and_no_problems() -> None:
    loaded = load_settings()
    assert loaded.settings == Settings()
    assert loaded.problems == []
    assert loaded.from_file == frozenset()
    assert loaded.path == config.config_path()


def test_every_key_round_trips_through_the_file(tmp_path: Path) -> None:
    model = tmp_path / "my model"
    model.mkdir()
    values = {
        "players": "Ann, Bob ,Cy",
        "profile": "parlour",
        "deck": "physical",
        "chant": "snip-snap-snorum",
        "strictness": "strict",
        "recognizer": "pocketsphinx",
        "model": str(model),
        "input_device": "3",
        "verbosity": "chatty",
        "language": "nl",
        "narrator.voice": 'gmw/en "Bob"\\',
        "narrator.rate": "150",
        "knock": "on",
    }
    assert set(values) == set(config.KEYS_BY_NAME), "every key is covered"
    for key, value in values.items():
        set_value(key, value)

    loaded = load_settings()
    assert loaded.problems == []
    assert loaded.settings == Settings(
        players=("Ann", "Bob", "Cy"),
        profile="parlour",
        deck="physical",
        chant="snip-snap-snorum",
        strictness="strict",
        recognizer="pocketsphinx",
        model=model,
        input_device=3,
        verbosity="chatty",
        language="nl",
        narrator_voice='gmw/en "Bob"\\',
        narrator_rate=150,
        knock=True,
    )
    assert loaded.from_file == frozenset(values)
    table = tomllib.loads(config.config_path().read_text(encoding="utf-8"))
    assert table["narrator"] == {"voice": 'gmw/en "Bob"\\', "rate": 150}
    assert table["players"] == ["Ann", "Bob", "Cy"]
    assert table["knock"] is True  # a TOML boolean, whichever of on, true or yes was typed


def test_input_device_by_name_stays_a_name() -> None:
    set_value("input_device", "USB Audio")
    assert load_settings().settings.input_device == "USB Audio"


def test_set_stores_paths_absolute_so_the_cwd_does_not_matter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "models" / "small").mkdir(parents=True)
    (tmp_path / "hiccup.toml").write_text(
        'lines = ["Here is {rank}", "Hic", "Hic hic", "Earl\'s Court"]\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    assert set_value("model", "models/small") == str(tmp_path / "models" / "small")
    assert set_value("chant", "hiccup.toml") == str(tmp_path / "hiccup.toml")
    monkeypatch.chdir(tmp_path.parent)
    settings = load_settings().settings
    assert settings.model == tmp_path / "models" / "small"
    assert settings.chant == str(tmp_path / "hiccup.toml")


@given(
    st.dictionaries(
        st.text(min_size=1, max_size=12),
        st.one_of(
            st.text(max_size=20),
            st.integers(min_value=-(2**63), max_value=2**63 - 1),
            st.lists(st.text(max_size=8), max_size=4),
        ),
        max_size=6,
    )
)
def test_values_set_in_a_commented_file_read_back_the_same_and_keep_the_comments(table: dict[str, object]) -> None:
    document = toml_text.parse_document('# mine: keep me\nprofile = "hoyle"  # the default\n')
    for name, value in table.items():
        toml_text.set_in(document, ("extra", name), value)
    text = document.as_string()
    assert tomllib.loads(text) == {"profile": "hoyle", **({"extra": table} if table else {})}
    assert text.startswith('# mine: keep me\nprofile = "hoyle"  # the default\n')


def test_precedence_defaults_then_file_then_flags() -> None:
    write_config('profile = "parlour"\ndeck = "physical"\n[narrator]\nrate = 200\n')
    file_settings = load_settings().settings
    assert (file_settings.profile, file_settings.deck, file_settings.narrator_rate) == (
        "parlour",
        "physical",
        200,
    )
    assert file_settings.language == "en"  # not in the file: the default

    flags = argparse.Namespace(deck="virtual", profile=None, narrator_rate=None, language="it", command="play")
    merged = with_flags(file_settings, flags)
    assert merged.deck == "virtual"  # the flag wins over the file
    assert merged.profile == "parlour"  # None on the command line: the file's value stands
    assert merged.narrator_rate == 200
    assert merged.language == "it"  # the flag wins over the default


def test_setting_flags_added_to_a_parser_override_the_file() -> None:
    write_config('players = ["Ann", "Bob", "Cy"]\nverbosity = "quiet"\n')
    parser = argparse.ArgumentParser()
    config.add_setting_flags(parser, "players", "narrator_rate", "verbosity")
    args = parser.parse_args(["--narrator-rate", "210", "--players", "Dee", "Eve"])
    settings = config.effective_settings(args).settings
    assert settings.narrator_rate == 210
    assert settings.players == ("Dee", "Eve")
    assert settings.verbosity == "quiet"


def test_the_table_commands_voice_flags_override_the_file(capsys: pytest.CaptureFixture[str]) -> None:
    from voice_earl.commands.table_options import add_voice_options

    write_config('recognizer = "pocketsphinx"\ninput_device = "USB"\n[narrator]\nrate = 150\nvoice = "en"\n')
    parser = argparse.ArgumentParser()
    add_voice_options(parser)
    args = parser.parse_args(["--rate", "220", "--device", "2", "--voice", "en+f2"])
    settings = config.effective_settings(args).settings
    assert (settings.narrator_rate, settings.input_device, settings.narrator_voice) == (220, 2, "en+f2")
    assert settings.recognizer == "pocketsphinx"  # not given: the file's value stands
    with pytest.raises(SystemExit):  # refused where it is typed, as the file's value would be
        parser.parse_args(["--rate", "999"])
    assert "must be from 80 to 450, not 999" in capsys.readouterr().err


def test_rate_limits_and_default_are_the_speech_engines() -> None:
    from voice_earl.table import speech

    assert (config.MIN_RATE, config.MAX_RATE) == (speech.MIN_RATE, speech.MAX_RATE)
    assert Settings().narrator_rate == speech.DEFAULT_RATE


def test_an_invalid_flag_names_the_flag_the_value_and_what_is_allowed() -> None:
    with pytest.raises(UsageError) as error:
        with_flags(Settings(), {"narrator_rate": "900"})
    message = str(error.value)
    assert "--narrator-rate" in message and "900" in message and "80 to 450" in message


def test_unknown_key_is_reported_and_the_rest_still_loads() -> None:
    path = write_config('colour = "red"\nprofile = "parlour"\n[narrator]\npitch = 3\nrate = 120\n')
    loaded = load_settings()
    assert loaded.settings.profile == "parlour"
    assert loaded.settings.narrator_rate == 120
    assert len(loaded.problems) == 2
    colour, pitch = loaded.problems
    assert str(path) in colour and '"colour"' in colour and "known keys: players, profile" in colour
    assert '"narrator.pitch"' in pitch and "did you mean narrator." in pitch


@pytest.mark.parametrize(
    ("line", "key", "shown", "allowed"),
    [
        ('profile = "parlor"', "profile", '"parlor"', "hoyle, parlour"),
        ('deck = "paper"', "deck", '"paper"', "physical, virtual"),
        ("strictness = 3", "strictness", "3", "lenient, normal, strict"),
        ('recognizer = "whisper"', "recognizer", '"whisper"', "auto, vosk, pocketsphinx"),
        ('verbosity = "loud"', "verbosity", '"loud"', "quiet, normal, chatty"),
        ('language = "fr"', "language", '"fr"', "en, nl, it"),
        ('chant = "hiccup"', "chant", '"hiccup"', "earl, snip-snap-snorum"),
        ('model = "/no/such/model"', "model", '"/no/such/model"', "existing model directory"),
        ("input_device = -1", "input_device", "-1", "device index"),
        ('players = ["Ann", "ann"]', "players", '["Ann", "ann"]', "Ann is named twice"),
        ('players = ["Ann", ""]', "players", '["Ann", ""]', "a name is empty"),
        ('players = ["Ann", "B\\u0007b"]', "players", '["Ann", "B\\u0007b"]', "control character"),
        ('players = "Ann Ben Cy"', "players", '"Ann Ben Cy"', "one name: give each name"),
        ('input_device = "²"', "input_device", '"²"', "device index"),
        ('[narrator]\nrate = "²"', "narrator.rate", '"²"', "from 80 to 450"),
        ('[narrator]\nrate = "١٥٠"', "narrator.rate", '"١٥٠"', "from 80 to 450"),
        ("[narrator]\nrate = 20", "narrator.rate", "20", "from 80 to 450"),
        ('[narrator]\nvoice = ""', "narrator.voice", '""', "voice id or name"),
        ('knock = "sometimes"', "knock", '"sometimes"', "true or false (on or off)"),
    ],
)
def test_invalid_value_is_reported_and_the_rest_still_loads(line: str, key: str, shown: str, allowed: str) -> None:
    witness, value = ("language", "it") if key == "verbosity" else ("verbosity", "chatty")
    write_config(f'{witness} = "{value}"\n{line}\n')
    loaded = load_settings()
    assert len(loaded.problems) == 1
    problem = loaded.problems[0]
    assert f"invalid value for {key}: {shown}" in problem
    assert allowed in problem
    assert getattr(loaded.settings, witness) == value  # the valid key still loads
    field = config.KEYS_BY_NAME[key].field
    assert getattr(loaded.settings, field) == getattr(Settings(), field)  # the bad one keeps its default


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('profile = "parlour"\nplayers = Ann\n', "line 2, column 11): 'players = Ann'"),
        (
            'profile = "parlour"\nplayers = ["Ann", "Bob"\n',
            'line 2 (the last line, \'players = ["Ann", "Bob"\')',
        ),
    ],
)
def test_bad_toml_names_the_line_and_uses_the_defaults(text: str, where: str) -> None:
    write_config(text)
    loaded = load_settings()
    assert loaded.settings == Settings()
    assert len(loaded.problems) == 1
    assert "not valid TOML" in loaded.problems[0]
    assert where in loaded.problems[0]
    assert "using the defaults" in loaded.problems[0]


def test_show_never_rewrites_a_bad_file(capsys: pytest.CaptureFixture[str]) -> None:
    text = 'profile = "parlour"\nfoo = = 1\n'
    path = write_config(text)
    before = path.stat().st_mtime_ns
    assert main(["config", "show"]) == 0
    captured = capsys.readouterr()
    assert "line 2" in captured.err and "'foo = = 1'" in captured.err
    assert 'profile = "hoyle"' in captured.out  # the defaults are what the game uses
    assert path.read_text(encoding="utf-8") == text
    assert path.stat().st_mtime_ns == before


def test_show_of_a_file_that_cannot_be_read_does_not_call_it_not_created(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A file where the config folder should be: the heading said "not created yet" above the warning."""
    blocking = tmp_path / "a-file"
    blocking.write_text("", encoding="utf-8")
    monkeypatch.setenv("VOICE_EARL_CONFIG_DIR", str(blocking / "voice-earl"))
    assert main(["config", "show"]) == 0
    captured = capsys.readouterr()
    assert "(cannot be read: every value is a default, see the warning below)" in captured.out.splitlines()[0]
    assert "not created yet" not in captured.out and "cannot read the config file" in captured.err


def test_set_refuses_to_overwrite_a_bad_file(capsys: pytest.CaptureFixture[str]) -> None:
    text = "[narrator\nrate = 150\n"
    path = write_config(text)
    assert main(["config", "set", "deck", "physical"]) == 1
    assert "not valid TOML" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == text


def test_set_refuses_an_invalid_value_with_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "set", "narrator.rate", "fast"]) == 2
    err = capsys.readouterr().err
    assert err.startswith('voice-earl config: invalid value for narrator.rate: "fast"')
    assert "80 to 450" in err
    assert not config.config_path().exists()


@needs_espeak
def test_set_refuses_a_voice_whose_variant_espeak_ng_would_drop(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "set", "narrator.voice", "en+F2"]) == 2
    assert "espeak-ng has no variant 'F2'" in capsys.readouterr().err
    assert not config.config_path().exists()
    assert main(["config", "set", "narrator.voice", "en+f2"]) == 0


def test_set_refuses_an_unknown_key_with_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "set", "profil", "hoyle"]) == 2
    err = capsys.readouterr().err
    assert 'unknown key "profil"' in err and "did you mean profile" in err
    assert not config.config_path().exists()


def test_set_refuses_a_bad_chant_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chant = tmp_path / "bad.toml"
    chant.write_text('lines = ["only one"]\n', encoding="utf-8")
    assert main(["config", "set", "chant", str(chant)]) == 2
    assert "four non-empty strings" in capsys.readouterr().err


def test_set_keeps_other_content_of_the_file() -> None:
    write_config('colour = "red"\n[narrator]\nrate = 150\n[extra]\nwhen = 2024-01-02\nratio = 0.5\n')
    set_value("narrator.voice", "gmw/en")
    table = tomllib.loads(config.config_path().read_text(encoding="utf-8"))
    assert table["colour"] == "red"
    assert table["narrator"] == {"rate": 150, "voice": "gmw/en"}
    assert str(table["extra"]["when"]) == "2024-01-02" and table["extra"]["ratio"] == 0.5


def test_unset_removes_the_key_and_an_empty_table() -> None:
    set_value("narrator.rate", "150")
    set_value("deck", "physical")
    assert unset_value("narrator.rate") is True
    table = tomllib.loads(config.config_path().read_text(encoding="utf-8"))
    assert table == {"deck": "physical"}
    assert unset_value("narrator.rate") is False


def test_unset_cleans_up_an_unknown_key_but_refuses_a_made_up_one() -> None:
    write_config('colour = "red"\ndeck = "physical"\n')
    assert unset_value("colour") is True
    assert load_settings().problems == []
    with pytest.raises(UsageError, match='unknown key "shape"'):
        unset_value("shape")


def test_write_is_atomic_and_leaves_no_temporary_file(monkeypatch: pytest.MonkeyPatch) -> None:
    set_value("deck", "physical")
    path = config.config_path()
    before = path.read_text(encoding="utf-8")

    def broken_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(VoiceEarlError, match="cannot write the config file"):
        set_value("deck", "virtual")
    assert path.read_text(encoding="utf-8") == before
    assert sorted(p.name for p in path.parent.iterdir()) == [".config.toml.lock", "config.toml"]


def test_write_keeps_the_file_mode() -> None:
    set_value("deck", "physical")
    path = config.config_path()
    path.chmod(0o640)
    set_value("deck", "virtual")
    assert path.stat().st_mode & 0o777 == 0o640


def test_write_replaces_the_file_in_one_step(monkeypatch: pytest.MonkeyPatch) -> None:
    set_value("deck", "physical")
    replaced: list[tuple[str, str]] = []
    real_replace = os.replace

    def spy(src: str, dst: str) -> None:
        # At the moment of the swap the new text is complete in a sibling file.
        assert tomllib.loads(Path(src).read_text(encoding="utf-8"))["deck"] == "virtual"
        replaced.append((str(Path(src).parent), str(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    set_value("deck", "virtual")
    assert replaced == [(str(config.config_path().parent), str(config.config_path()))]


def test_cli_path_show_set_unset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "path"]) == 0
    assert capsys.readouterr().out.strip() == str(config.config_path())

    assert main(["config", "set", "profile", "parlour"]) == 0
    assert 'profile = "parlour"' in capsys.readouterr().out

    assert main(["config", "show"]) == 0
    out = capsys.readouterr().out
    profile_line = next(line for line in out.splitlines() if line.startswith("profile ="))
    deck_line = next(line for line in out.splitlines() if line.startswith("deck ="))
    assert '"parlour"' in profile_line and "from the config file" in profile_line
    assert '"physical"' in deck_line and "default" in deck_line

    assert main(["config", "unset", "profile"]) == 0
    assert "removed" in capsys.readouterr().out
    assert load_settings().settings.profile == "hoyle"


def test_cli_without_an_action_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["config"])
    assert exit_info.value.code == 2

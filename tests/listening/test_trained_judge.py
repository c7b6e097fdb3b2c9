"""The judge trained on the game's words: CTranslate2's model.bin read and written, the shipped patch
laid over the base model, checked by SHA-256, and found before the base unless the base is asked for."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from voice_earl import paths
from voice_earl.errors import VoiceEarlError
from voice_earl.listening.models import judge_models, trained_judge
from voice_earl.listening.models.ct2_file import (
    ModelFile,
    ModelFileError,
    Variable,
    laid_over,
    parse_model,
    read_model,
    serialized,
    write_model,
)
from voice_earl.listening.models.install_steps import file_sha256
from voice_earl.listening.models.judge_models import (
    JUDGE_MODEL,
    SOURCE_TRAINED,
    choose_judge,
    discover_judge_model,
    packaged_judge_model,
)


def small_model(value: int = 0) -> ModelFile:
    return ModelFile(
        6,
        "WhisperSpec",
        3,
        {
            "decoder/layer_0/ffn/linear_0/weight": Variable((2, 3), 4, bytes([value]) * 12),
            "decoder/num_heads": Variable((), 2, b"\x06\x00"),
            "decoder/embeddings/weight": Variable((4, 2), 4, bytes(16)),
        },
        {"decoder/projection/weight": "decoder/embeddings/weight"},
    )


def test_a_model_file_reads_back_as_it_was_written(tmp_path: Path) -> None:
    write_model(small_model(7), tmp_path / "model.bin")
    assert read_model(tmp_path / "model.bin") == small_model(7)
    assert list(tmp_path.iterdir()) == [tmp_path / "model.bin"]  # nothing left beside it


def test_the_shipped_base_model_reads_and_writes_byte_for_byte() -> None:
    base = packaged_judge_model()
    if base is None:
        pytest.skip("the judge extra is not installed")
    raw = (base / "model.bin").read_bytes()
    model = parse_model(raw)
    assert serialized(model) == raw
    assert model.spec == "WhisperSpec" and len(model.variables) == 148
    assert model.aliases == {"decoder/projection/weight": "decoder/embeddings/weight"}


@pytest.mark.parametrize(
    ("cut", "message"),
    [(3, "ends early"), (40, "ends early")],
)
def test_a_cut_file_is_refused_with_where_it_ends(cut: int, message: str) -> None:
    with pytest.raises(ModelFileError, match=message):
        parse_model(serialized(small_model())[:cut])


def test_a_patch_replaces_only_its_own_variables_and_must_fit() -> None:
    base, patch = small_model(0), small_model(9)
    only = ModelFile(
        6,
        "WhisperSpec",
        3,
        {"decoder/layer_0/ffn/linear_0/weight": patch.variables["decoder/layer_0/ffn/linear_0/weight"]},
        {},
    )
    laid = laid_over(base, only)
    assert laid.variables["decoder/layer_0/ffn/linear_0/weight"].data == bytes([9]) * 12
    assert laid.variables["decoder/embeddings/weight"] == base.variables["decoder/embeddings/weight"]
    assert laid.aliases == base.aliases
    wrong_shape = ModelFile(6, "WhisperSpec", 3, {"decoder/num_heads": Variable((1,), 2, b"\x06\x00")}, {})
    with pytest.raises(ModelFileError, match="num_heads"):
        laid_over(base, wrong_shape)
    unknown = ModelFile(6, "WhisperSpec", 3, {"decoder/other": Variable((), 2, b"\x06\x00")}, {})
    with pytest.raises(ModelFileError, match="no variable decoder/other"):
        laid_over(base, unknown)
    with pytest.raises(ModelFileError, match="TransformerSpec"):
        laid_over(base, ModelFile(6, "TransformerSpec", 3, {}, {}))


def base_folder(folder: Path, model: ModelFile) -> Path:
    folder.mkdir(parents=True)
    write_model(model, folder / "model.bin")
    (folder / "config.json").write_text(json.dumps({"alignment_heads": [[1, 0]]}))
    (folder / "tokenizer.json").write_text("{}")
    (folder / "vocabulary.txt").write_text("a\n")
    return folder


def shipped_patch(folder: Path, base: ModelFile, patch: ModelFile) -> Path:
    folder.mkdir(parents=True)
    write_model(patch, folder / trained_judge.PATCH)
    manifest = {
        "base_model_sha256": hashlib.sha256(serialized(base)).hexdigest(),
        "patch_sha256": hashlib.sha256(serialized(patch)).hexdigest(),
        "model_sha256": hashlib.sha256(serialized(laid_over(base, patch))).hexdigest(),
    }
    (folder / trained_judge.MANIFEST).write_text(json.dumps(manifest))
    return folder


@pytest.fixture
def shipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A base in the user's models folder and a patch shipped for it (the package's model left out)."""
    monkeypatch.setattr(judge_models, "packaged_judge_model", lambda: None)
    monkeypatch.setattr(paths, "repo_models_dir", lambda: tmp_path / "repo-models")
    base_folder(paths.user_models_dir() / JUDGE_MODEL, small_model(0))
    return shipped_patch(tmp_path / "repo-models" / trained_judge.TRAINED_JUDGE, small_model(0), small_model(5))


def test_the_trained_judge_is_the_default_built_once_and_checked(shipped: Path) -> None:
    found = discover_judge_model()
    assert found is not None and found.source == SOURCE_TRAINED
    assert found.path == trained_judge.built_dir()
    assert read_model(found.path / "model.bin") == small_model(5)
    assert (found.path / "tokenizer.json").read_text() == "{}"
    built = (found.path / "model.bin").stat().st_mtime_ns
    assert discover_judge_model() == found
    assert (found.path / "model.bin").stat().st_mtime_ns == built  # not built again
    assert choose_judge().reason.endswith(SOURCE_TRAINED)


def test_tiny_en_as_it_ships_is_one_flag_away(shipped: Path) -> None:
    found = discover_judge_model(base=True)
    assert found is not None and found.source == "user data directory"
    assert read_model(found.path / "model.bin") == small_model(0)
    assert choose_judge(base=True).model == found
    assert not trained_judge.built_dir().exists()  # nothing built when it is not wanted


def test_without_a_shipped_patch_the_judge_hears_with_tiny_en(shipped: Path) -> None:
    for name in (trained_judge.PATCH, trained_judge.MANIFEST):
        (shipped / name).unlink()
    found = discover_judge_model()
    assert found is not None and found.source == "user data directory"


def test_each_judge_decides_by_the_numbers_chosen_on_its_own_scores(shipped: Path) -> None:
    """The trained judge's scores are on another scale: it has its own numbers (its bar on a line's full
    stop, chosen on the corpus it scored); tiny.en keeps the ones chosen on its scores."""
    from voice_earl.listening.judge.settings import TRAINED_LINE_STOP_FLOOR, JudgeSettings
    from voice_earl.listening.judge.whisper import settings_for

    trained, base = discover_judge_model(), discover_judge_model(base=True)
    assert trained is not None and base is not None
    assert settings_for(trained.path).line_stop_floor == TRAINED_LINE_STOP_FLOOR > float("-inf")
    assert settings_for(base.path) == JudgeSettings()


def test_a_new_patch_is_built_again(shipped: Path) -> None:
    discover_judge_model()
    shipped_patch_again = shipped.parent / "again"
    shipped_patch(shipped_patch_again, small_model(0), small_model(6))
    for name in (trained_judge.PATCH, trained_judge.MANIFEST):
        (shipped_patch_again / name).replace(shipped / name)
    found = discover_judge_model()
    assert found is not None and read_model(found.path / "model.bin") == small_model(6)


@pytest.mark.parametrize("damaged", ["patch", "base"])
def test_a_file_that_is_not_the_one_made_for_is_refused_with_why_and_the_game_hears_with_tiny_en(
    shipped: Path, damaged: str
) -> None:
    path = shipped / trained_judge.PATCH if damaged == "patch" else paths.user_models_dir() / JUDGE_MODEL / "model.bin"
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(VoiceEarlError, match="as published" if damaged == "base" else "SHA-256 differs"):
        discover_judge_model()
    assert not trained_judge.built_dir().exists()
    choice = choose_judge()  # what play and hear use: a game still has its judge
    assert choice.model is not None and choice.model.source == "user data directory"
    assert ("as published" if damaged == "base" else "SHA-256 differs") in choice.reason


def test_the_shipped_patch_builds_the_model_its_manifest_names(tmp_path: Path) -> None:
    """The patch in models/ over the package's tiny.en: the SHA-256 of each file is the manifest's."""
    patch_dir = paths.repo_models_dir() / trained_judge.TRAINED_JUDGE
    base = packaged_judge_model()
    if trained_judge.read_manifest(patch_dir) is None or base is None:
        pytest.skip("no trained judge ships here, or the judge extra is not installed")
    built = trained_judge.build_trained_judge(base, patch_dir, tmp_path / "built")
    manifest = trained_judge.read_manifest(patch_dir)
    assert manifest is not None and file_sha256(built / "model.bin")[0] == manifest.model_sha256
    assert manifest.base_sha256 == judge_models.PINNED_JUDGE_FILES["model.bin"].sha256


def test_doctor_checks_the_trained_judge_and_models_list_names_it(
    shipped: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from voice_earl.commands.cli import main
    from voice_earl.commands.doctor_checks import Status
    from voice_earl.commands.doctor_judge import check_judge

    checked = check_judge()
    assert checked.status is Status.OK and "trained on the game's words" in checked.detail
    main(["models", "list"])
    out = capsys.readouterr().out
    named = "(trained on the game's words: the default; --base-judge hears with tiny.en)"
    assert f"{trained_judge.TRAINED_JUDGE}  {named}" in out
    built = trained_judge.built_dir() / "model.bin"
    built.write_bytes(built.read_bytes()[:-1] + b"\x01")
    checked = check_judge()
    assert checked.status is Status.WARN and "is not the one" in checked.detail and str(built.parent) in checked.fix


@pytest.mark.slow
def test_the_listener_hears_with_the_trained_judge_by_default(tmp_path: Path) -> None:
    """The shipped patch, built over the package's tiny.en, judges real synthesized speech: a line due and a pass
    said by festival's voice (which training never heard) in a quiet room."""
    from support.listening_audio import padded, speak_kdl

    from voice_earl.game.cards import Rank
    from voice_earl.listening.chain import open_listener
    from voice_earl.listening.stream.audio import pcm_chunks
    from voice_earl.listening.stream.utterance import grade_utterance
    from voice_earl.words.context import ListenContext
    from voice_earl.words.verdicts import Verdict

    if trained_judge.read_manifest(trained_judge.shipped_patch_dir()) is None or packaged_judge_model() is None:
        pytest.skip("no trained judge ships here, or the judge extra is not installed")
    if shutil.which("text2wave") is None:
        pytest.skip("festival is not installed")
    chain = open_listener("pocketsphinx")
    assert chain.listener.judge is not None and chain.listener.judge.model_dir == trained_judge.built_dir()
    context = ListenContext(2, (Rank.KING,), commands=("undo", "repeat"))
    verdicts = []
    for text in ("There's a King as good as he", "pass"):
        samples = padded(speak_kdl(text, tmp_path / f"{len(text)}.wav"), 0.4, 1.2)
        utterance = chain.listener.listen(pcm_chunks(samples, chunk_ms=40), context)
        verdicts.append(grade_utterance(utterance, context).verdict)
    assert verdicts == [Verdict.CORRECT, Verdict.PASS]

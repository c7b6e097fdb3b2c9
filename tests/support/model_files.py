"""Stand-in vosk models and archives, and a local HTTP server to fetch them from."""

from __future__ import annotations

import hashlib
import http.server
import threading
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

TEST_MODEL = "vosk-model-tiny-en-us-test"


def make_model(root: Path, *, runtime_graph: bool = True, words: bool = False) -> Path:
    """A directory in the official vosk layout, with tiny stand-in files."""
    files = {
        "am/final.mdl": b"acoustic model",
        "conf/model.conf": b"--min-active=200\n",
        "conf/mfcc.conf": b"--use-energy=false\n",
        "ivector/final.ie": b"ivector extractor",
        "README": b"test model\n",
    }
    if runtime_graph:
        files |= {"graph/HCLr.fst": b"hclr", "graph/Gr.fst": b"gr", "graph/disambig_tid.int": b"1\n"}
    else:
        files["graph/HCLG.fst"] = b"hclg"
    if words:
        files["graph/words.txt"] = b"<eps> 0\nearl 1\n"
    for relative, content in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(content)
    return root


def zip_model(archive: Path, top: str | None, extra: dict[str, bytes] | None = None) -> Path:
    """Zip a stand-in model, inside folder ``top`` (or flat when None), plus ``extra`` members."""
    source = make_model(archive.parent / f"{archive.stem}-src")
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
        for file in sorted(source.rglob("*")):
            if file.is_file():
                relative = file.relative_to(source).as_posix()
                bundle.write(file, f"{top}/{relative}" if top else relative)
        for name, content in (extra or {}).items():
            bundle.writestr(name, content)
    return archive


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def leftovers(directory: Path) -> list[str]:
    return sorted(entry.name for entry in directory.iterdir()) if directory.exists() else []


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class BrokenOffHandler(http.server.BaseHTTPRequestHandler):
    """Announces the whole file, sends half of it, then hangs up."""

    payload = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(len(self.payload)))
        self.end_headers()
        self.wfile.write(self.payload[: len(self.payload) // 2])
        self.wfile.flush()
        self.close_connection = True

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def start_server(handler: Callable[..., http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve on 127.0.0.1 from a thread; yields the base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()

"""The phones' certificate: ``--phone-mics`` serves the pages over HTTPS, because a browser gives a
page the microphone only on a secure origin.

No authority can vouch for a laptop on a home network, so the certificate is self-signed: made on
first use (with ``cryptography``) for the address the server listens on, and kept in the data
directory with its key, so that a phone that has accepted it once sees the same one next time.
Each phone's browser warns once that the connection is not private; the fingerprint shown on the
table screen and the join page is the one the browser shows for the certificate. It is made
again when the address changes or it is about to expire; the key stays.
"""

from __future__ import annotations

import datetime
import ipaddress
import logging
import os
import ssl
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from voice_earl.errors import UsageError
from voice_earl.paths import data_dir, keep_private

log = logging.getLogger(__name__)

CERT_FILE = "phones-cert.pem"
KEY_FILE = "phones-key.pem"
VALID_DAYS = 397  # the longest validity browsers accept for a server certificate
RENEW_DAYS = 30  # made again when it expires within this many days
ALWAYS_COVERED = ("127.0.0.1", "localhost")


@dataclass(frozen=True)
class SiteCertificate:
    cert: Path
    key: Path
    fingerprint: str  # SHA-256 of the certificate, as browsers show it: "AB:CD:..."

    def context(self) -> ssl.SSLContext:
        """A TLS server context with this certificate (TLS 1.2 and newer)."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(self.cert, self.key)
        return context


def certificate_for(host: str, folder: Path | None = None) -> SiteCertificate:
    """The certificate for ``host``: the one kept in ``folder`` (the data directory) when it covers
    ``host`` and is not about to expire, otherwise a new one (with the key kept, or a new key)."""
    folder = folder or data_dir()
    cert_path, key_path = folder / CERT_FILE, folder / KEY_FILE
    keep_private(key_path)  # a key loosened since it was made is tightened again before it is used
    try:
        return _kept(cert_path, key_path, host) or _made(cert_path, key_path, host)
    except OSError as error:
        raise UsageError(
            f"--phone-mics: cannot keep the phones' certificate in {folder} ({error.strerror or error})"
        ) from None


def _kept(cert_path: Path, key_path: Path, host: str) -> SiteCertificate | None:
    if not cert_path.is_file() or not key_path.is_file():
        return None
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (ValueError, x509.ExtensionNotFound):
        log.warning("the phones' certificate in %s cannot be read: a new one is made", cert_path)
        return None
    covered = {str(n) for n in names.get_values_for_type(x509.IPAddress)} | set(names.get_values_for_type(x509.DNSName))
    renew_at = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=RENEW_DAYS)
    if host not in covered or cert.not_valid_after_utc < renew_at:
        return None
    return SiteCertificate(cert_path, key_path, _fingerprint(cert.fingerprint(hashes.SHA256())))


def _made(cert_path: Path, key_path: Path, host: str) -> SiteCertificate:
    key = _kept_key(key_path)
    if key is None:
        key = ec.generate_private_key(ec.SECP256R1())
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        _write(key_path, pem, private=True)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"voice-earl on {host}"[:64])])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))  # a phone's clock a little behind
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(
            x509.SubjectAlternativeName([_general_name(n) for n in dict.fromkeys((host, *ALWAYS_COVERED))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    _write(cert_path, cert.public_bytes(serialization.Encoding.PEM), private=False)
    log.info("made the phones' certificate for %s in %s", host, cert_path)
    return SiteCertificate(cert_path, key_path, _fingerprint(cert.fingerprint(hashes.SHA256())))


def _kept_key(key_path: Path) -> ec.EllipticCurvePrivateKey | None:
    """The kept private key, when there is one the certificate can use."""
    if not key_path.is_file():
        return None
    try:
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    except (ValueError, TypeError):
        return None
    return key if isinstance(key, ec.EllipticCurvePrivateKey) else None


def _general_name(host: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(host))
    except ValueError:
        return x509.DNSName(host)


def _write(path: Path, data: bytes, *, private: bool) -> None:
    """Write ``path`` whole or not at all; a key is readable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o644)
    try:
        with os.fdopen(descriptor, "wb") as out:
            out.write(data)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def _fingerprint(digest: bytes) -> str:
    return ":".join(f"{byte:02X}" for byte in digest)

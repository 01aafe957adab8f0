"""The browser assets GraphiQL needs, gathered once from the npm registry into the cache.

Pinned releases, each checked against the registry's sha512 integrity before any file of it is
used, are unpacked into `<home>/web/<key>/` (a folder named after the pins, so new pins never
mix with old files) through a staging folder that is renamed into place: an interrupted
download is never served. The app then serves them itself, so GraphiQL works with no CDN.
"""

from __future__ import annotations

import base64
import hashlib
import io
import logging
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from graph.errors import Unavailable

log = logging.getLogger("beliefgraph.web")


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    integrity: str  # the registry's dist.integrity (sha512, base64)
    files: dict[str, str]  # served name -> path inside the tarball

    def tarball(self, registry: str) -> str:
        return f"{registry.rstrip('/')}/{self.name}/-/{self.name}-{self.version}.tgz"


PACKAGES = (
    Package(
        "graphiql",
        "3.8.3",
        "sha512-cuPDYtXVKV86Pu5PHBX642Odi/uVEE2y1Jxq5rGO/Qy1G2lRp7ZZ7a/T30RzxhuLSWo9zUbzq0P3U49//H0Ugw==",
        {
            "graphiql.min.js": "package/graphiql.min.js",
            "graphiql.min.css": "package/graphiql.min.css",
            "graphiql.LICENSE.txt": "package/LICENSE",
        },
    ),
    Package(
        "react",
        "18.3.1",
        "sha512-wS+hAgJShR0KhEvPJArfuPVN1+Hz1t0Y6n5jLrGQbkb4urgPE/0Rve+1kMB1v/oWgHgm4WIcV+i7F2pTVj+2iQ==",
        {
            "react.production.min.js": "package/umd/react.production.min.js",
            "react.LICENSE.txt": "package/LICENSE",
        },
    ),
    Package(
        "react-dom",
        "18.3.1",
        "sha512-5m4nQKp+rZRb09LNH59GM4BxTh9251/ylbKIbpe7TpGxfJ+9kv6BLkLBXIjjspbgbnIBNqlI23tRnTWT0snUIw==",
        {
            "react-dom.production.min.js": "package/umd/react-dom.production.min.js",
            "react-dom.LICENSE.txt": "package/LICENSE",
        },
    ),
)
SERVED = frozenset(name for package in PACKAGES for name in package.files)


def folder(home: Path) -> Path:
    key = "-".join(f"{p.name}{p.version}" for p in PACKAGES)
    return home / "web" / key


def present(home: Path) -> bool:
    target = folder(home)
    return all((target / name).is_file() for name in SERVED)


def _integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def _download(url: str, timeout: float) -> bytes:
    # No proxy lookups beyond the environment's own; loopback registries work too.
    with urllib.request.urlopen(url, timeout=timeout) as response:
        data: bytes = response.read()
    return data


def ensure(home: Path, registry: str, *, timeout: float = 60.0) -> Path:
    """The folder of the served files, downloading them the first time."""
    target = folder(home)
    if present(home):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".web-", dir=target.parent))
    try:
        for package in PACKAGES:
            url = package.tarball(registry)
            try:
                data = _download(url, timeout)
            except (urllib.error.URLError, OSError) as exc:
                raise Unavailable(
                    f"could not download {url} for GraphiQL ({exc}); check access to the npm "
                    "registry (BELIEFGRAPH_NPM_REGISTRY)"
                ) from exc
            if _integrity(data) != package.integrity:
                raise Unavailable(f"{url} does not match its pinned integrity; not used")
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
                for served, inner in package.files.items():
                    member = archive.extractfile(inner)
                    if member is None:
                        raise Unavailable(f"{url} has no {inner}")
                    (staging / served).write_bytes(member.read())
        if target.exists():
            shutil.rmtree(target)
        try:
            staging.rename(target)
        except OSError:
            if not present(home):  # another process finished the same download first
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    log.info("GraphiQL assets in %s", target)
    return target

"""The package's version: the project's one version, Cargo.toml's workspace version, as the
installed distribution records it (maturin takes it from that file), or read from Cargo.toml
itself in a source tree that was never installed."""

import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path


def package_version() -> str:
    try:
        return version("sparkbloom")
    except PackageNotFoundError:
        pass
    try:
        text = (Path(__file__).resolve().parents[2] / "Cargo.toml").read_text(encoding="utf-8")
    except OSError:
        return "0+unknown"
    found = re.search(r'^version\s*=\s*"([^"]+)"', text.split("[workspace.package]", 1)[-1], re.M)
    return found.group(1) if found else "0+unknown"

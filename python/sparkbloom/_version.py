"""The package's version: the project's one version, Cargo.toml's workspace version, as the
installed distribution records it (maturin takes it from that file); in a source tree that was
never installed, read from Cargo.toml itself."""

from __future__ import annotations

import re
from pathlib import Path


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sparkbloom")
    except PackageNotFoundError:
        pass
    cargo = Path(__file__).resolve().parents[2] / "Cargo.toml"
    try:
        text = cargo.read_text(encoding="utf-8")
    except OSError:
        return "0+unknown"
    section = text.split("[workspace.package]", 1)[-1]
    found = re.search(r'^version\s*=\s*"([^"]+)"', section, re.M)
    return found.group(1) if found else "0+unknown"

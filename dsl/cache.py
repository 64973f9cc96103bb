"""The on-disk cache of generated modules: where it is, atomic writes, imports.

A module's file name ends in a hash of its own text, so a changed function, helper, constant
or tritonize version gives a new file and never a stale one; a file whose text does not
match its name (truncated, edited) is rewritten.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
from pathlib import Path

_IMPORT_LOCK = threading.Lock()


def cache_dir() -> Path:
    """$TRITONIZE_CACHE_DIR, else $XDG_CACHE_HOME/tritonize, else ~/.cache/tritonize."""
    explicit = os.environ.get("TRITONIZE_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "tritonize"


def content_hash(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def write_module(stem: str, source: str) -> Path:
    """Write `source` as `<stem>_<hash>.py` unless an identical file is already there."""
    directory = cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{stem}_{content_hash(source)}.py"
    try:
        if path.read_text() == source:
            return path
    except (OSError, UnicodeDecodeError):
        pass
    fd, temp = tempfile.mkstemp(dir=directory, prefix=f".{stem}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(source)
        os.replace(temp, path)  # atomic: readers see the old file or the whole new one
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return path


def import_module(path: Path):
    name = f"tritonize_generated.{path.stem}"
    with _IMPORT_LOCK:
        module = sys.modules.get(name)
        if module is not None:
            return module
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
        return module

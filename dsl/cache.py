"""The on-disk cache of generated modules: where it is, atomic writes, imports.

A module's file name ends in a hash of its own code, so a changed function, helper, constant
or tritonize version gives a new file and never a stale one; a file whose code does not
match its name (truncated, edited) is rewritten. Modules are executed from that verified
text, never from `__pycache__` bytecode, which Python validates only by the source's mtime
and size (a damaged .pyc would otherwise break or, worse, silently replace the kernel).

A cache directory that cannot be created or written (read-only, a path through a file)
is still read where it already holds a module; new modules then go to a temporary
directory for this process, with one warning.
"""
from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
import warnings
from pathlib import Path

from tritonize.passes.ast_tools import parse

_IMPORT_LOCK = threading.Lock()
_FALLBACK_LOCK = threading.Lock()
_fallback: Path | None = None
_warned: set[str] = set()  # unusable directories already reported


class CacheDirectoryWarning(UserWarning):
    """The cache directory cannot be written; generated modules go to a temporary one."""


def cache_dir() -> Path:
    """$TRITONIZE_CACHE_DIR, else $XDG_CACHE_HOME/tritonize, else ~/.cache/tritonize."""
    explicit = os.environ.get("TRITONIZE_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "tritonize"


def content_hash(source: str) -> str:
    """A hash of the module's code (its AST), not of its layout: a module rendered by astor
    and the same module rendered by ast.unparse (the fallback, which a thread took now and
    then in CI where render's check parse lost the race that ast_tools.PARSE_LOCK now
    prevents) name one file. Text that does not parse hashes as itself, so it matches no name."""
    try:
        canonical = ast.dump(parse(source))
    except (SyntaxError, ValueError):
        canonical = source
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def write_module(stem: str, source: str) -> Path:
    """Write `source` as `<stem>_<hash>.py` unless an identical file is already there."""
    return write_note(f"{stem}_{content_hash(source)}.py", source)


def write_note(name: str, text: str) -> Path:
    """Write a file into the cache directory (or this process's fallback), atomically."""
    directory = cache_dir()
    try:
        return _write(directory, name, text)
    except OSError as exc:
        return _write(_fallback_dir(directory, exc), name, text)


def read_note(name: str) -> str | None:
    """The text of a file that write_note wrote, here or in an earlier process; None if absent."""
    for directory in (cache_dir(), _fallback):
        if directory is not None:
            try:
                return (directory / name).read_text()
            except (OSError, UnicodeDecodeError):
                pass
    return None


def _write(directory: Path, name: str, source: str) -> Path:
    path = directory / name
    try:
        if path.read_text() == source:
            return path
    except (OSError, UnicodeDecodeError):
        pass
    directory.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=directory, prefix=f".{path.stem}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o644)  # generated code is no secret; a shared cache must read it
        with os.fdopen(fd, "w") as handle:
            handle.write(source)
        os.replace(temp, path)  # atomic: readers see the old file or the whole new one
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return path


def _fallback_dir(directory: Path, exc: OSError) -> Path:
    """This process's temporary cache, made once; one warning per unusable directory."""
    global _fallback
    with _FALLBACK_LOCK:
        if _fallback is None:
            _fallback = Path(tempfile.mkdtemp(prefix="tritonize-cache-"))
        if str(directory) not in _warned:
            _warned.add(str(directory))
            reason = exc.strerror or type(exc).__name__
            warnings.warn(f"tritonize: cannot write the cache directory {directory} ({reason}); generated "
                          f"modules go to {_fallback} for this process. Set TRITONIZE_CACHE_DIR to a "
                          f"writable directory to keep them.", CacheDirectoryWarning, stacklevel=2)
        return _fallback


def import_module(path: Path):
    """The module of a file that write_module returned, executed from its text."""
    name = f"tritonize_generated.{path.stem}"
    with _IMPORT_LOCK:
        module = sys.modules.get(name)
        if module is not None:
            return module
        source = path.read_text()
        if not path.stem.endswith(content_hash(source)):
            raise ImportError(f"{path} changed after it was written (its text no longer matches its name)")
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        module.__cached__ = None
        exec(compile(source, str(path), "exec"), module.__dict__)
        sys.modules[name] = module
        return module

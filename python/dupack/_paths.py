"""Paths as ``pathlib`` spells them, without importing ``pathlib``.

``pathlib`` imports ``urllib.parse``, ``ipaddress``, ``fnmatch`` and
``ntpath``: 3-4 ms of every ``dupack run`` in a fresh virtual environment,
a tenth of the simulation it starts (docs/performance.md, "The dupack
command end to end"). ``dupack run`` and ``dupack validate`` only need a
path's text, its name and its folder, so they use these instead; what they
print and the files they write are those of the ``Path`` the same text
makes (tests/test_paths.py compares them). Off POSIX, the functions ask
``pathlib`` itself.
"""

from __future__ import annotations

import os

_POSIX = os.name == "posix"


def path_text(path: object) -> str:
    """``str(pathlib.Path(path))``: the text with repeated and trailing
    slashes and ``.`` parts dropped (``"."`` if nothing is left), two
    leading slashes kept as POSIX allows."""
    p = os.fspath(path) if _POSIX else None  # type: ignore[call-overload]
    if not isinstance(p, str):
        from pathlib import Path

        return str(Path(path))  # type: ignore[arg-type]  # raises what pathlib raises for bytes
    root, rel = "", p
    if p.startswith("/"):
        rel = p.lstrip("/")
        root = "//" if len(p) - len(rel) == 2 else "/"
    return root + "/".join(x for x in rel.split("/") if x and x != ".") or "."


def path_name(text: str) -> str:
    """``Path(text).name`` of a :func:`path_text`: the last part, ``""`` for a root or ``"."``."""
    if not _POSIX:
        from pathlib import Path

        return Path(text).name
    name = text.rpartition("/")[2]
    return "" if name == "." else name


def path_stem(text: str) -> str:
    """``Path(text).stem`` of a :func:`path_text`: its name less the last suffix."""
    name = path_name(text)
    i = name.rfind(".")
    return name[:i] if 0 < i < len(name) - 1 else name


def path_parent(text: str) -> str:
    """``str(Path(text).parent)`` of a :func:`path_text`."""
    if not _POSIX:
        from pathlib import Path

        return str(Path(text).parent)
    return os.path.dirname(text) or "."


def path_is_absolute(text: str) -> bool:
    """``Path(text).is_absolute()``."""
    if not _POSIX:
        from pathlib import Path

        return Path(text).is_absolute()
    return text.startswith("/")


def path_join(text: str, name: str) -> str:
    """``str(Path(text) / name)`` for a :func:`path_text` and a plain file name."""
    if text == ".":
        return name
    return text + name if text.endswith("/") else f"{text}/{name}"


def make_dirs(text: str) -> None:
    """``Path(text).mkdir(parents=True, exist_ok=True)`` of a :func:`path_text`,
    step for step (the same errors in the same cases)."""
    try:
        os.mkdir(text)
    except FileNotFoundError:
        parent = path_parent(text)
        if parent == text:
            raise
        make_dirs(parent)
        try:
            os.mkdir(text)
        except OSError:
            if not os.path.isdir(text):
                raise
    except OSError:
        # As pathlib: the system may report another error than EEXIST (EACCES, EROFS) for a folder that exists.
        if not os.path.isdir(text):
            raise

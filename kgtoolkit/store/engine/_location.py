"""Which database holds the graph: the one rule every door goes through.

A graph lives in a local SQLite file (the default) or in a PostgreSQL database shared by a team.
:func:`resolve` decides, from what it is given, else ``$KGTOOLKIT_DB``, else
``~/.kgtoolkit/knowledge_graph.sqlite3``:

====================================  ==========================================================
given                                 database
====================================  ==========================================================
``postgresql://…`` or ``postgres://…``  PostgreSQL (a libpq URL: user, password, host, port, database,
                                        and parameters such as ``options=-csearch_path%3Dkg``)
``sqlite:///relative/file.sqlite3``   SQLite, that file (``sqlite:////absolute/path`` for an absolute one)
``:memory:`` or ``sqlite://``         SQLite, in memory (gone when closed)
anything else                         SQLite, that file path (``~`` expanded)
====================================  ==========================================================

>>> resolve("postgres://kg:secret@db.internal/team").kind, str(resolve("postgres://kg:secret@db.internal/team"))
('postgresql', 'postgresql://kg:***@db.internal/team')
>>> resolve("sqlite:///graphs/team.sqlite3").path
PosixPath('graphs/team.sqlite3')
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from typing import Literal, Union

from ..._errors import InvalidRequest

__all__ = ["DEFAULT_PATH", "ENV_VAR", "DatabaseName", "Location", "resolve", "resolve_path"]

DEFAULT_PATH = Path("~/.kgtoolkit/knowledge_graph.sqlite3")
ENV_VAR = "KGTOOLKIT_DB"
_PASSWORD = re.compile(r"^(postgres(?:ql)?://[^:/@]*:)[^@]*@")


@dataclasses.dataclass(frozen=True, slots=True)
class Location:
    """Where a graph lives: ``kind`` is ``sqlite`` (``path``, or ``:memory:``) or ``postgresql`` (``url``)."""

    kind: Literal["sqlite", "postgresql"]
    path: Path | None = None
    url: str | None = None

    @property
    def memory(self) -> bool:
        """An in-memory SQLite graph (gone when closed)."""
        return self.kind == "sqlite" and str(self.path) == ":memory:"

    def __str__(self) -> str:
        """A name to show people: the file, or the URL with its password masked."""
        if self.kind == "sqlite":
            return str(self.path)
        return _PASSWORD.sub(r"\1***@", self.url or "")


DatabaseName = Union[str, "os.PathLike[str]", Location]


def resolve(db: DatabaseName | None = None) -> Location:
    """The database a graph door uses: ``db``, else ``$KGTOOLKIT_DB``, else the default file."""
    if isinstance(db, Location):
        return db
    chosen: str | os.PathLike[str] = db if db not in (None, "") else os.environ.get(ENV_VAR) or DEFAULT_PATH
    text = os.fspath(chosen)
    if not isinstance(text, str):
        raise InvalidRequest(f"a database name must be text, not {type(text).__name__}", field="db", value=repr(text))
    lowered = text.lower()
    if lowered.startswith(("postgresql://", "postgres://")):
        return Location("postgresql", url="postgresql://" + text.split("://", 1)[1])
    if lowered.startswith("sqlite:"):
        rest = text[len("sqlite:") :]
        if rest in ("", "//", "///:memory:", "//:memory:"):
            return Location("sqlite", path=Path(":memory:"))
        if not rest.startswith("///"):
            raise InvalidRequest(
                f"{text!r} is not an SQLite URL; write sqlite:///relative/file.sqlite3 or "
                "sqlite:////absolute/file.sqlite3, or just the file's path",
                field="db",
                value=text,
            )
        return Location("sqlite", path=Path(rest[3:]).expanduser())
    if "://" in text:
        scheme = text.split("://", 1)[0]
        raise InvalidRequest(
            f"kgtoolkit keeps graphs in SQLite files or PostgreSQL, not {scheme}://; give a file "
            "path, sqlite:///file, or postgresql://user:password@host/database",
            field="db",
            value=str(Location("postgresql", url=text)) if "@" in text else text,
        )
    if text == ":memory:":
        return Location("sqlite", path=Path(":memory:"))
    return Location("sqlite", path=Path(text).expanduser())


def resolve_path(path: str | os.PathLike[str] | None = None) -> Path:
    """The SQLite file :func:`resolve` chooses (``path``, else ``$KGTOOLKIT_DB``, else the default).

    Raises :class:`~kgtoolkit.InvalidRequest` when the choice is a PostgreSQL database, which has no file.
    """
    location = resolve(path)
    if location.path is None:
        raise InvalidRequest(f"{location} is a PostgreSQL database, not a file", field="db", value=str(location))
    return location.path

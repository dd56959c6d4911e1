"""Name rules (SPEC §2): entity ids, predicates, value text, and the comma guard.

>>> normalize_name("O'Brien Corp")
'obrien_corp'
>>> normalize_predicate("Uses  Queue")
'uses_queue'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from ._errors import CommaList, InvalidName, InvalidRequest

__all__ = [
    "COMMA_PREDICATES",
    "DEFAULT_MULTI_VALUED",
    "DEFAULT_TYPES",
    "DEFAULT_VALUE_PREDICATES",
    "check_commas",
    "check_unicode",
    "clean_text",
    "loose_key",
    "normalize_name",
    "normalize_predicate",
    "printable",
    "printable_data",
]

DEFAULT_TYPES: frozenset[str] = frozenset({"person", "company", "project", "event", "unknown"})
DEFAULT_VALUE_PREDICATES: frozenset[str] = frozenset(
    {"email", "phone", "url", "website", "address", "location", "birthday", "age", "role", "title",
     "salary", "note"}
)
# Relations where several current objects are normal, so `conflicts` leaves them out.
DEFAULT_MULTI_VALUED: frozenset[str] = frozenset({"depends_on", "knows", "member_of", "related_to", "note"})
# Predicates whose object may contain a comma even with the guard on.
COMMA_PREDICATES: frozenset[str] = frozenset({"email", "phone", "address", "note", "url"})

_APOSTROPHES = re.compile("['\u2019]")
_SEPARATORS = re.compile(r"[\s_]+")
_WHITESPACE = re.compile(r"\s+")


def printable(text: str) -> str:
    """``text`` with each lone surrogate written as a ``\\udcXX`` escape: safe to print, store and encode.

    >>> printable("caf\\udce9")  # what a Latin-1 "café" on the command line becomes
    'caf\\\\udce9'
    """
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def printable_data(value: Any) -> Any:
    """JSON-like data with :func:`printable` applied to every text in it, keys too."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, Mapping):
        return {printable(str(k)): printable_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [printable_data(v) for v in value]
    return value


def check_unicode(text: str, *, field: str, error: type[InvalidRequest] = InvalidName) -> str:
    """``text`` itself when it is valid Unicode; else ``error`` naming ``field``.

    Python text may hold lone surrogates (``\\ud800``–``\\udfff``) that no UTF-8 file, database or
    terminal can hold: a command-line argument or file name that is not UTF-8 arrives so (the
    byte 0xE9 of a Latin-1 "é" becomes ``\\udce9``), and so does an unpaired ``\\ud83d`` escape in JSON.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise error(
            f"{field} '{printable(text)}' is not valid Unicode text: it holds a lone surrogate "
            f"({printable(text[exc.start])}) at position {exc.start}, what a byte that is not UTF-8 (from a Latin-1 "
            "terminal or file, say) or an unpaired \\ud800-\\udfff escape in JSON becomes; give it as UTF-8 text",
            field=field, value=printable(text),
        ) from None
    return text


def normalize_name(name: str, *, field: str = "name") -> str:
    """The entity id of ``name``: NFKC, case-folded, apostrophes removed, whitespace/underscores → ``_``.

    ``My API``, ``my api`` and ``my_api`` are one entity; hyphens and other punctuation stay.
    Raises :class:`InvalidName` when nothing is left, or when ``name`` is not valid Unicode
    (see :func:`check_unicode`).
    """
    if not isinstance(name, str):
        raise InvalidName(f"{field} must be text, got {type(name).__name__}", field=field, value=repr(name))
    text = loose_key(check_unicode(name, field=field))
    if not text or text == "_":
        raise InvalidName(
            f"{field} {name!r} is empty once normalised; give a name with at least one letter or digit",
            field=field, value=name,
        )
    return text


def loose_key(name: str) -> str:
    """:func:`normalize_name`'s rule without its checks (a stored setting from before they existed may be matched)."""
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return _SEPARATORS.sub("_", _APOSTROPHES.sub("", text).strip())


def normalize_predicate(predicate: str) -> str:
    """A predicate follows the entity-id rule: ``uses queue`` ≡ ``uses_queue`` ≡ ``Uses  Queue``."""
    return normalize_name(predicate, field="predicate")


def clean_text(text: str, *, field: str = "name") -> str:
    """Trim and collapse inner whitespace, keeping case: display names and value objects."""
    if not isinstance(text, str):
        raise InvalidName(f"{field} must be text, got {type(text).__name__}", field=field, value=repr(text))
    cleaned = _WHITESPACE.sub(" ", check_unicode(text, field=field)).strip()
    if not cleaned:
        raise InvalidName(f"{field} is empty; give some text", field=field, value=text)
    return cleaned


def check_commas(subject: str, predicate: str, obj: str) -> None:
    """The comma guard: stop an agent from packing a list into one fact.

    A subject with a comma is rejected; so is an object with a comma unless ``predicate`` is one
    of :data:`COMMA_PREDICATES`. Bulk import and the graph's ``comma_guard`` setting turn it off.
    """
    if "," in subject:
        raise CommaList(
            f"subject {subject!r} contains a comma: record one fact per subject. If the comma is part "
            "of a real name, turn the guard off: `kgtoolkit config --no-comma-guard` or "
            "configure(comma_guard=False)",
            field="subject", value=subject,
        )
    if "," in obj and predicate not in COMMA_PREDICATES:
        raise CommaList(
            f"object {obj!r} contains a comma: add one fact per object (e.g. one {predicate!r} fact "
            "each). If the comma is part of a real name, turn the guard off: `kgtoolkit config "
            "--no-comma-guard` or configure(comma_guard=False)",
            field="object", value=obj,
        )

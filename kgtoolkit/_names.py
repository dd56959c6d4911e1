"""Name rules (contract §2): entity ids, predicates, value text, and the comma guard.

>>> normalize_name("O'Brien Corp")
'obrien_corp'
>>> normalize_predicate("Uses  Queue")
'uses_queue'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from ._errors import CommaList, InvalidName, InvalidRequest

__all__ = [
    "COMMA_PATTERN",
    "COMMA_PREDICATES",
    "DEFAULT_MULTI_VALUED",
    "DEFAULT_TYPES",
    "DEFAULT_VALUE_PREDICATES",
    "check_commas",
    "check_data",
    "check_text",
    "check_unicode",
    "clean_text",
    "close_matches",
    "control_regex",
    "has_comma",
    "has_control",
    "inert",
    "inert_json",
    "loose_key",
    "nearest",
    "normalize_name",
    "normalize_predicate",
    "not_by_subject",
    "printable",
    "printable_data",
]

DEFAULT_TYPES: frozenset[str] = frozenset({"person", "company", "project", "event", "unknown"})
DEFAULT_VALUE_PREDICATES: frozenset[str] = frozenset(
    {"email", "phone", "url", "website", "address", "location", "birthday", "age", "role", "title", "salary", "note"}
)
# Relations where several current objects are normal, so `conflicts` leaves them out.
DEFAULT_MULTI_VALUED: frozenset[str] = frozenset({"depends_on", "knows", "member_of", "related_to", "note"})


def not_by_subject(
    multi_valued: Iterable[str], one_holder: Iterable[str] = (), single_valued: Iterable[str] = ()
) -> frozenset[str]:
    """The predicates never judged by subject (``conflicts`` groups, ``diff`` replacements, contract §14): the
    multi-valued ones (a new object is one more), and the one-holder ones not also single-valued (they are judged by
    object: one holder may hold several objects)."""
    return frozenset(multi_valued) | (frozenset(one_holder) - frozenset(single_valued))


# Predicates whose object may contain a comma even with the guard on.
COMMA_PREDICATES: frozenset[str] = frozenset({"email", "phone", "address", "note", "url"})

#: Every character that separates a list as a comma does: the ASCII comma and its look-alikes in other
#: scripts (fullwidth and small forms, ideographic, Arabic, Armenian, Ethiopic, Mongolian, N'Ko, Vai, ...).
COMMA_PATTERN = (
    "[,\uff0c\ufe50\ufe51\u3001\u060c\u055d\u07f8\u1363\u1802\u1808\ua4fe\ua60d\ua6f5\u2e41\u2e4c\u2e4e\U00016e97]"
)
_COMMAS = re.compile(COMMA_PATTERN)
# Control characters no name or text needs (tab, line feed and carriage return are whitespace and stay), and the
# bidirectional embedding, override and isolate controls that make text display other than it reads.
_CONTROL_CLASS = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069"
_CONTROLS = re.compile(f"[{_CONTROL_CLASS}]")
# What a terminal must never receive from stored text: the controls above and a carriage return (which
# rewrites the line it ends). Tab and line feed lay text out and stay.
_INERT = re.compile(f"[\r{_CONTROL_CLASS}]")
_APOSTROPHES = re.compile("['\u2019]")
_SEPARATORS = re.compile(r"[\s_]+")
_WHITESPACE = re.compile(r"\s+")
# Printable ASCII but capitals, the apostrophe and space: with no run of underscores, text that is its own id.
_ID = re.compile(r"[!-&(-@\[-~]+")


def printable(text: str) -> str:
    """``text`` with each lone surrogate written as a ``\\udcXX`` escape: safe to print, store and encode.

    >>> printable("caf\\udce9")  # what a Latin-1 "café" on the command line becomes
    'caf\\\\udce9'
    """
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def inert(text: str) -> str:
    """``text`` with every control character written as its escape (``\\x1b``, ``\\u202e``, ``\\r``): what a
    terminal is given, so stored text never moves the cursor, sets a title or reorders what is shown.

    >>> inert("ok\\x1b]0;owned\\x07 \\u202eevil")
    'ok\\\\x1b]0;owned\\\\x07 \\\\u202eevil'
    """
    if _INERT.search(text) is None:
        return text
    return _INERT.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def inert_json(text: str) -> str:
    """JSON ``text`` with every control character left raw by ``json.dumps(ensure_ascii=False)`` (DEL, the C1
    controls, the bidirectional ones) written as its ``\\uXXXX`` escape: the same JSON, inert on a terminal.

    >>> inert_json('{"name": "a\\x9b31m"}')
    '{"name": "a\\\\u009b31m"}'
    """
    if _INERT.search(text) is None:
        return text
    return _INERT.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


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
            field=field,
            value=printable(text),
        ) from exc
    return text


def check_text(text: str, *, field: str, error: type[InvalidRequest] = InvalidName) -> str:
    """``text`` itself when it may be stored: valid Unicode (:func:`check_unicode`) without control characters.

    Refused: NUL and the other C0/C1 control characters except tab, line feed and carriage return, DEL,
    and the bidirectional embedding/override/isolate controls (U+202A–U+202E, U+2066–U+2069), which make
    a name display as something other than what it is.

    >>> check_text("billing\\u202eecivres", field="name")
    Traceback (most recent call last):
    ...
    kgtoolkit._errors.InvalidName: name 'billing\\u202eecivres' holds a control character (U+202E) at position 7; ...
    """
    check_unicode(text, field=field, error=error)
    found = _CONTROLS.search(text)
    if found is not None:
        shown = text.encode("unicode_escape").decode("ascii") if len(text) <= 200 else f"{text[:200]!r}…"
        raise error(
            f"{field} '{shown}' holds a control character (U+{ord(found.group()):04X}) at position {found.start()}; "
            "names and texts are stored as readable text: remove it (a NUL, an escape sequence or a direction "
            "override is never part of a name)",
            field=field,
            value=printable(text[:200]),
        )
    return text


def has_control(text: str) -> bool:
    """Whether ``text`` holds a character :func:`check_text` refuses (a control character, a bidi control).

    >>> has_control("a\\x1b[2J"), has_control("two\\nlines")
    (True, False)
    """
    return _CONTROLS.search(text) is not None


def control_regex() -> str:
    """:func:`check_text`'s characters as a regular expression in RE2's syntax (``\\x{202a}``), for engines that
    match in bulk (Arrow's compute functions)."""
    ranges = re.findall("(.)(?:-(.))?", _CONTROL_CLASS, re.DOTALL)
    return "[" + "".join(f"\\x{{{ord(a):x}}}" + (f"-\\x{{{ord(b):x}}}" if b else "") for a, b in ranges) + "]"


def check_data(value: Any, *, field: str, error: type[InvalidRequest] = InvalidRequest) -> Any:
    """``value`` (JSON data: properties, metadata) when every text in it, keys included, passes :func:`check_text`;
    else ``error`` naming where (``properties.notes[2]``). Walked without recursion.

    >>> check_data({"team": {"lead": "Bo\\x1b[2J"}}, field="properties")
    Traceback (most recent call last):
    ...
    kgtoolkit._errors.InvalidRequest: properties.team.lead 'Bo\\x1b[2J' holds a control character (U+001B) ...
    """
    pending: list[tuple[str, Any]] = [(field, value)]
    while pending:
        where, item = pending.pop()
        if isinstance(item, str):
            check_text(item, field=where, error=error)
        elif isinstance(item, Mapping):
            for key, inner in item.items():
                if isinstance(key, str):
                    check_text(key, field=f"{where} key", error=error)
                pending.append((f"{where}.{key}", inner))
        elif isinstance(item, (list, tuple)):
            pending.extend((f"{where}[{i}]", inner) for i, inner in enumerate(item))
    return value


def has_comma(text: str) -> bool:
    """Whether ``text`` holds a comma or a comma of another script (:data:`COMMA_PATTERN`).

    >>> has_comma("Smith\uff0c Jones"), has_comma("Smith & Jones")
    (True, False)
    """
    return _COMMAS.search(text) is not None


def normalize_name(name: str, *, field: str = "name") -> str:
    """Turn a name into its entity id: NFKC, case-folded, apostrophes removed, whitespace and underscores to ``_``.

    ``My API``, ``my api`` and ``my_api`` are one entity. Hyphens and other punctuation stay.

    Parameters
    ----------
    name
        The name, as written.
    field
        The field an error names.

    Returns
    -------
    str
        The entity id.

    Raises
    ------
    InvalidName
        Nothing is left once normalised, the name is not text, or it is not valid Unicode (see
        :func:`check_unicode`).

    Examples
    --------
    >>> normalize_name("My  API"), normalize_name("O'Brien Corp")
    ('my_api', 'obrien_corp')
    """
    if type(name) is str and name.isascii() and _CONTROLS.search(name) is None:
        # ASCII without control characters is valid Unicode and its own NFKC form, and casefolds as it lowers:
        # loose_key's rule without its Unicode steps (a name already an id, the common case, is returned as is).
        if _ID.fullmatch(name) is not None and "__" not in name:
            text = name
        elif "_" in name:
            text = _SEPARATORS.sub("_", name.lower().replace("'", "").strip())
        else:  # the same without underscores: whitespace runs to "_", none at the ends
            text = "_".join(name.lower().replace("'", "").split())
    elif not isinstance(name, str):
        raise InvalidName(f"{field} must be text, got {type(name).__name__}", field=field, value=repr(name))
    else:
        text = loose_key(check_text(name, field=field))
    if not text or text == "_":
        raise InvalidName(
            f"{field} {name!r} is empty once normalised; give a name with at least one letter or digit",
            field=field,
            value=name,
        )
    return text


def loose_key(name: str) -> str:
    """:func:`normalize_name`'s rule without its checks (a stored setting from before they existed may be matched)."""
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return _SEPARATORS.sub("_", _APOSTROPHES.sub("", text).strip())


def normalize_predicate(predicate: str) -> str:
    """Turn a predicate into its id, by the entity-id rule: ``uses queue`` ≡ ``uses_queue`` ≡ ``Uses  Queue``.

    Parameters
    ----------
    predicate
        The predicate, as written.

    Returns
    -------
    str
        The predicate's id.

    Raises
    ------
    InvalidName
        Nothing is left once normalised, or not valid Unicode.

    Examples
    --------
    >>> normalize_predicate("Uses  Queue")
    'uses_queue'
    """
    return normalize_name(predicate, field="predicate")


def clean_text(text: str, *, field: str = "name") -> str:
    """Trim and collapse inner whitespace, keeping case: display names and value objects."""
    if not isinstance(text, str):
        raise InvalidName(f"{field} must be text, got {type(text).__name__}", field=field, value=repr(text))
    cleaned = _WHITESPACE.sub(" ", check_text(text, field=field)).strip()
    if not cleaned:
        raise InvalidName(f"{field} is empty; give some text", field=field, value=text)
    return cleaned


def check_commas(subject: str, predicate: str, obj: str) -> None:
    """The comma guard: stop an agent from packing a list into one fact.

    A subject with a comma is rejected; so is an object with a comma unless ``predicate`` is one
    of :data:`COMMA_PREDICATES`. Bulk import and the graph's ``comma_guard`` setting turn it off.
    """
    if has_comma(subject):
        raise CommaList(
            f"subject {subject!r} contains a comma: record one fact per subject. If the comma is part "
            "of a real name, turn the guard off: `kgtoolkit config --no-comma-guard` or "
            "configure(comma_guard=False)",
            field="subject",
            value=subject,
        )
    if has_comma(obj) and predicate not in COMMA_PREDICATES:
        raise CommaList(
            f"object {obj!r} contains a comma: add one fact per object (e.g. one {predicate!r} fact "
            "each). If the comma is part of a real name, turn the guard off: `kgtoolkit config "
            "--no-comma-guard` or configure(comma_guard=False)",
            field="object",
            value=obj,
        )


def close_matches(key: str, candidates: Mapping[str, str], *, limit: int = 5, cutoff: float = 75.0) -> list[str]:
    """The spellings (``candidates``: id → spelling) whose ids are nearest ``key`` by edit similarity (rapidfuzz's
    normalised Indel ratio, 0 to 100, at least ``cutoff``), nearest first: a typo's "Did you mean".

    >>> close_matches("colmbia", {"colombia": "Colombia", "bolivia": "Bolivia", "cuba": "Cuba"})
    ['Colombia']
    """
    from rapidfuzz import fuzz, process

    found = process.extract(key, list(candidates), scorer=fuzz.ratio, score_cutoff=cutoff, limit=limit)
    return [candidates[match] for match, _score, _index in found]


def nearest(key: str, found: Mapping[str, str]) -> list[str]:
    """The spellings of ``found`` (spelling → id, in the order some search found them) ordered by how alike their
    ids are to ``key``, most alike first; equally alike ones keep their order.

    >>> nearest("barak_obama", {"Hisham Barakat": "hisham_barakat", "Barack Obama": "barack_obama"})
    ['Barack Obama', 'Hisham Barakat']
    """
    from rapidfuzz import fuzz

    return sorted(found, key=lambda spelling: -fuzz.ratio(key, found[spelling]))

"""What is embedded: the sentence a fact is read as, and the hash that keys a text's vector.

A memory is embedded as its text; a fact as its subject, predicate and object in words
(:func:`fact_text`). The embedding cache and the index manifest know a text by its
:func:`_text_hash`, so a text seen before is never embedded again.
"""

from __future__ import annotations

import hashlib

__all__ = ["fact_text"]


def fact_text(subject_name: str, predicate: str, object_name: str) -> str:
    """The sentence a fact is embedded as: ``my_api uses queue SQLite`` → ``my api uses queue SQLite``.

    >>> fact_text("my_api", "uses_queue", "SQLite")
    'my api uses queue SQLite'
    """
    return " ".join(f"{subject_name} {predicate} {object_name}".replace("_", " ").split())


def _text_hash(text: str) -> bytes:
    """The 16-byte key of ``text`` in the embedding cache and the index (any string, lone surrogates too).

    >>> len(_text_hash("my api uses queue SQLite"))
    16
    """
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()

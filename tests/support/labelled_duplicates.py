"""A labelled sample of name pairs a person has judged: true duplicates and hard negatives (tests and benchmarks).

The planted set (tests/support/planted_duplicates.py) measures recall on spellings made from real names; this one measures
whether the candidates are pairs a person would merge. Each pair is written down with why: the true duplicates are
spellings of one thing a graph really gets (abbreviations, initials, legal forms, typos, punctuation, word order);
the hard negatives are two things named alike (a word more: "President" / "Vice President", a reserve team, a
country's army; initials that are another name's: "AbbVie Inc." / "AI"; other numbers; another word). Several come
from YAGO11k's entity names, and the issue's two pairs are here.

:func:`evaluate` ranks every name of the sample together, as one graph, and scores the candidates against the
labels: precision (the share of the listed pairs that are true duplicates; a listed pair the sample does not label
counts against it, as the sample's names are otherwise distinct things) and recall (the share of the true pairs
listed). ``neighbours=True`` gives every labelled pair two shared neighbours, as related things have in a real graph
(a title and the title with a word more share the people and countries around them), the hard case.
"""

from __future__ import annotations

from typing import Any

#: (name, name, a duplicate?, why)
PAIRS: tuple[tuple[str, str, bool, str], ...] = (
    # true duplicates
    ("IBM", "International Business Machines", True, "initials"),
    ("CBS", "Columbia Broadcasting System", True, "initials (the network's old name)"),
    ("NYC", "New York City", True, "initials"),
    ("WHO", "World Health Organization", True, "initials"),
    ("FBI", "Federal Bureau of Investigation", True, "initials"),
    ("EU", "European Union", True, "two-letter initials: listed only with neighbours' support"),
    ("UN", "United Nations", True, "two-letter initials: listed only with neighbours' support"),
    ("Univ. of Melbourne", "University of Melbourne", True, "abbreviated word"),
    ("Massachusetts Inst. of Tech.", "Massachusetts Institute of Technology", True, "abbreviated words"),
    ("Mt. Everest", "Mount Everest", True, "abbreviated word"),
    ("St. Petersburg", "Saint Petersburg", True, "abbreviated word"),
    ("Microsoft Corp.", "Microsoft Corporation", True, "legal form abbreviated"),
    ("Alphabet Inc.", "Alphabet Incorporated", True, "legal form abbreviated"),
    ("Google LLC", "Google", True, "legal form left out"),
    ("AbbVie Inc.", "AbbVie", True, "legal form left out"),
    ("Postgres", "PostgreSQL", True, "a word shortened"),
    ("Manchester United F.C.", "Manchester United FC", True, "punctuation"),
    ("Real Madrid C.F.", "Real Madrid CF", True, "punctuation"),
    ("Kim Jong-un", "Kim Jong Un", True, "punctuation"),
    ("J.R.R. Tolkien", "J. R. R. Tolkien", True, "spacing"),
    ("Émile Zola", "Emile Zola", True, "accent"),
    ("Deutsche Bank", "Deutsche Bnak", True, "typo"),
    ("Ludwig van Beethoven", "Ludwig van Beethovan", True, "typo"),
    ("Pyotr Tchaikovsky", "Pyotr Tchaikovski", True, "transliteration"),
    ("Barack Obama", "Obama, Barack", True, "word order"),
    ("Dwight D. Eisenhower", "Dwight Eisenhower", True, "a middle initial left out"),
    ("Los Angeles Lakers", "LA Lakers", True, "a place's initials inside a name"),
    # hard negatives
    ("AbbVie Inc.", "AI", False, "the issue's pair: two letters that a legal form completes"),
    ("President", "Vice President", False, "the issue's pair: a word more is another office"),
    ("Prime Minister", "Deputy Prime Minister", False, "a word more is another office"),
    ("President of the United States", "Vice President of the United States", False, "a word more"),
    ("Paris", "Paris Hilton", False, "a word more: a person, not the city"),
    ("Celta de Vigo", "Celta de Vigo B", False, "the reserve team (YAGO11k)"),
    ("Getafe CF", "Getafe CF B", False, "the reserve team (YAGO11k)"),
    ("Atlético Madrid", "Atlético Madrid B", False, "the reserve team"),
    ("United States", "United States Army", False, "the country's army (YAGO11k)"),
    ("Irving Langmuir", "Irving Langmuir Award", False, "the award named after him (YAGO11k)"),
    ("Banco Santander", "Banco Santander (Brasil)", False, "a subsidiary"),
    ("Republican Party (United States)", "Liberal Republican Party (United States)", False, "another party"),
    ("Bank of New York", "New York", False, "a bank named after the city"),
    ("Fort Santiago", "Santiago", False, "a fort named after the city (YAGO11k)"),
    ("Houston", "JP Houston", False, "a person named after the city (YAGO11k)"),
    ("Berlin", "East Berlin", False, "part of the city, once a state's capital (YAGO11k)"),
    ("Ireland", "Northern Ireland", False, "another country"),
    ("University of Paris", "University of Paris-Sud", False, "another university (YAGO11k)"),
    ("George Bush", "George W. Bush", False, "father and son"),
    ("John Adams", "John Quincy Adams", False, "father and son"),
    ("Sheffield United", "Sheffield Wednesday", False, "another club"),
    ("Spain national football team", "France national football team", False, "another country's team"),
    ("Chief Executive Officer", "Chief Financial Officer", False, "another office"),
    ("Apollo 11", "Apollo 12", False, "another number"),
    ("Windows 10", "Windows 11", False, "another number"),
    ("Austria", "Australia", False, "another country"),
    ("Sofia", "Sofina", False, "a city and a company (YAGO11k)"),
    ("Jane Powell", "Janet Howell", False, "two people"),
    ("BP", "Banco Popular", False, "two-letter initials of another name"),
    ("RAI", "Royal Anthropological Institute", False, "initials of another name (RAI is the broadcaster)"),
    ("Java", "JavaScript", False, "another language that starts alike"),
)


def evaluate(rank: Any, name_type: Any, *, min_score: float, neighbours: bool) -> dict[str, Any]:
    """Rank the sample's names together with ``rank`` (:func:`kgtoolkit.duplicates.rank`; ``name_type`` is its
    ``Name``) and score the candidates at ``min_score`` against the labels."""
    names = sorted({n for a, b, _, _ in PAIRS for n in (a, b)})
    linked: dict[str, set[str]] = {n: set() for n in names}
    if neighbours:
        for k, (a, b, _, _) in enumerate(PAIRS):
            for hub in (f"hub {k} one", f"hub {k} two"):
                linked[a].add(hub)
                linked[b].add(hub)
    found = rank([name_type(n, n) for n in names], neighbours=linked, min_score=min_score)
    truth = {frozenset((a, b)) for a, b, same, _ in PAIRS if same}
    listed = [(frozenset((c.a_name, c.b_name)), c.score) for c in found]
    right = [pair for pair, _ in listed if pair in truth]
    return {
        "true_pairs": len(truth),
        "hard_negatives": sum(not same for *_, same, _ in PAIRS),
        "listed": len(listed),
        "precision": round(len(right) / len(listed), 3) if listed else 1.0,
        "recall": round(len(right) / len(truth), 3),
        "scores": {tuple(sorted(pair)): score for pair, score in listed},
        "false": sorted(tuple(sorted(pair)) for pair, _ in listed if pair not in truth),
        "missed": sorted(tuple(sorted(p)) for p in truth - {pair for pair, _ in listed}),
    }

"""Build ``us_congress_terms.tsv`` from the public-domain ``legislators-current.yaml`` of
https://github.com/unitedstates/congress-legislators (CC0 1.0): one row per term of office of every sitting
member of the US Congress, each with the scheduled end the Constitution gives it (a House term ends on
3 January two years on, a Senate term six), and the party of that term.

    python tests/data/make_us_congress_terms.py path/to/legislators-current.yaml > tests/data/us_congress_terms.tsv

Needs PyYAML (``pip install pyyaml``); the tests read only the TSV.
"""

from __future__ import annotations

import sys
from collections import Counter

import yaml


def rows(members: list[dict]) -> list[tuple[str, ...]]:
    names = Counter(m["name"].get("official_full") or f"{m['name']['first']} {m['name']['last']}" for m in members)
    out = []
    for m in members:
        name = m["name"].get("official_full") or f"{m['name']['first']} {m['name']['last']}"
        if names[name] > 1:  # two members of one name: told apart by their Bioguide id
            name = f"{name} ({m['id']['bioguide']})"
        for term in m["terms"]:
            if term["type"] == "sen":
                seat = ("senator_from", term["state"])
            else:
                district = term.get("district", 0)
                seat = ("represents", f"{term['state']}-{'AL' if district in (0, -1, None) else district}")
            out.append((name, *seat, term["start"], term["end"]))
            if term.get("party"):
                out.append((name, "party", term["party"], term["start"], term["end"]))
    return out


def main(path: str) -> None:
    with open(path, encoding="utf-8") as f:
        members = yaml.safe_load(f)
    print("subject\tpredicate\tobject\tvalid_from\tvalid_to")
    for row in rows(members):
        print("\t".join(row))


if __name__ == "__main__":
    main(sys.argv[1])

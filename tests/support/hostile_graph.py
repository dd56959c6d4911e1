"""A graph whose every text is hostile Markdown or HTML (tests/dashboard/test_dashboard_text.py, tests/dashboard/test_dashboard_hostile.py).

Entity names, aliases, predicates, values, sources, types, properties, settings and memories carry
the kinds of text that act when a page renders them as Markdown or HTML: an image from an outside
host, an ``<img onerror>``, a ``<script>``, a ``javascript:`` link, a KaTeX ``\\href``, Streamlit's
colour and icon directives, a CSS ``@import``, and a very long name. Every payload names the outside
host :data:`HOST` (a TEST-NET-2 address: nothing answers there) or calls ``alert``, so a page that
renders one shows it as a request leaving the machine or as a dialog.
"""

from __future__ import annotations

from pathlib import Path

import kgtoolkit

HOST = "198.51.100.7"

IMAGE = f"![t](http://{HOST}/name.png)"
IMG_TAG = f"<img src=http://{HOST}/x.png onerror=alert(1)>"
SCRIPT = "<script>alert(1)</script>"
LINK = "[click me](javascript:alert(1))"
MATH = f"$\\href{{http://{HOST}}}{{x}}$"
DIRECTIVES = ":red[red] :material/warning:"
STYLE = f"<style>@import url(http://{HOST}/c.css)</style>"
LONG = "A very long name " + " ".join(f"![{i}](http://{HOST}/long{i}.png) **{i}**" for i in range(22))

#: The hostile entity names (each an entity of the graph).
NAMES = (IMAGE, IMG_TAG, SCRIPT, LINK, MATH, DIRECTIVES, STYLE, LONG)

PREDICATE_IMAGE = f"![p](http://{HOST}/pred.png)"
PREDICATE_MATH = f"$\\href{{http://{HOST}}}{{p}}$"
VALUE_TAG = f"<img src=http://{HOST}/v.png onerror=alert(2)>"
VALUE_DIRECTIVES = f":red[boss] :material/warning: $\\href{{http://{HOST}}}{{r}}$"
SOURCE = f"![s](http://{HOST}/src.png) <img src=http://{HOST}/src2.png onerror=alert(7)>"
CLOSET = f"![c](http://{HOST}/closet.png)"  # a source_closet that is not a memory of the graph
TYPE = f"<b>t</b> ![ty](http://{HOST}/type.png)"
MULTI = f"![mv](http://{HOST}/mv.png)"
ALIASES = {
    IMAGE: f"![a](http://{HOST}/alias.png)",
    IMG_TAG: f"<img src=http://{HOST}/alias.png onerror=alert(4)>",
    SCRIPT: ":material/warning: :red[alias]",
}
PROPERTY = f"<img src=http://{HOST}/prop.png onerror=alert(8)>"
MEMORY = (
    f"Evidence ![m](http://{HOST}/mem.png) <img src=http://{HOST}/mem2.png onerror=alert(5)> "
    f"$\\href{{http://{HOST}}}{{m}}$\n<script>alert(6)</script>\n"
    f":red[mem-red] :material/warning: <style>@import url(http://{HOST}/m.css)</style> [go](javascript:alert(9))"
)

#: The words the payloads would colour (``:red[…]``), were their directives to work.
COLOURED = ("red", "mem-red", "boss", "alias")
#: Strings that must never reach a page's Markdown unescaped (outside code spans).
RAW_MARKERS = (HOST, "alert(", ":red[red]", ":material/warning:", "javascript:")


def build_hostile(path: Path) -> dict[str, str]:
    """Write the hostile graph to ``path``; returns what tests need (ids by role, the memory's id)."""
    with kgtoolkit.open(path) as kg:
        kg.configure(types=kg.config.types | {TYPE}, multi_valued=kg.config.multi_valued | {MULTI})
        memory = kg.remember(MEMORY, source=SOURCE)
        # A conflict group that needs action: two current objects for one subject and predicate.
        kg.add(
            IMAGE,
            "uses_queue",
            IMG_TAG,
            valid_from="2026-01-05",
            source=SOURCE,
            source_closet=memory.id,
            properties={"note": PROPERTY, PROPERTY: "key"},
        )
        kg.add(IMAGE, "uses_queue", SCRIPT, valid_from="2026-02-01", source=SOURCE, source_closet=memory.id)
        kg.add(SCRIPT, "depends_on", LINK, valid_from="2026-01-10")
        kg.add(LINK, PREDICATE_IMAGE, MATH, valid_from="2026-01-12", subject_type=TYPE)
        kg.add(MATH, PREDICATE_MATH, DIRECTIVES, valid_from="2026-01-15", source_closet=CLOSET)
        kg.add(DIRECTIVES, "works_at", STYLE, valid_from="2026-01-01", valid_to="2026-03-01")
        kg.add(DIRECTIVES, "works_at", LONG, valid_from="2026-03-01", source_closet=memory.id)
        kg.add(STYLE, "related_to", IMAGE, valid_from="2026-02-10", source_closet=CLOSET)
        kg.add(LONG, "knows", IMAGE, valid_from="2026-02-11")
        kg.add(IMAGE, "note", VALUE_TAG, valid_from="2026-01-05")
        kg.add(IMG_TAG, "url", "javascript:alert(3)", valid_from="2026-01-06")
        kg.add(SCRIPT, "role", VALUE_DIRECTIVES, valid_from="2026-01-07", source_closet=memory.id)
        kg.add(LINK, MULTI, IMAGE, valid_from="2026-01-08")
        for name, alias in ALIASES.items():
            kg.alias(alias, name)
        ids = {name: kg.resolve(name) for name in NAMES}
    return {"memory": memory.id, **{f"id:{name}": entity for name, entity in ids.items()}}

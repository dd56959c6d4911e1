"""The demo graph: a small software organisation, Acme, over two years (2025-01 … 2026-11).

Services move between queues and databases, teams re-org, people change teams and leave, two
agents disagree about who owns a service (one open conflict), a duplicate entity is merged, and
memories back some facts. Built through the public API only, so it doubles as an example.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ._errors import InvalidRequest
from .graph import KnowledgeGraph
from .store import DatabaseName, Location, copy_graph, is_empty, resolve

__all__ = ["build_demo"]


def build_demo(path: DatabaseName, *, force: bool = False) -> KnowledgeGraph:
    """Write the demo graph to ``path`` and return it open.

    ``path`` is any graph name (:func:`kgtoolkit.store.resolve`): a file, which ``force`` replaces when it
    exists (else it is refused), or an empty PostgreSQL database or schema (``postgresql://…``), which gets the
    demo graph copied in whole; one that holds a graph is refused, ``force`` or not (a shared graph is never
    replaced by demo data).
    """
    location = resolve(path)
    if location.kind == "postgresql":
        return _into_postgres(location)
    target = Path(location.path) if location.path is not None else Path(str(path))
    if not location.memory and target.exists():
        if not force:
            raise InvalidRequest(
                f"{target} exists; pass --force (force=True) to replace it", field="path", value=str(target)
            )
        for suffix in ("", "-wal", "-shm"):
            Path(f"{target}{suffix}").unlink(missing_ok=True)
    kg = KnowledgeGraph(location, create=True)
    try:
        _write(kg)
    except BaseException:
        kg.close()
        raise
    return kg


def _into_postgres(location: Location) -> KnowledgeGraph:
    """The demo graph built in a scratch file, then copied whole (ids, times, memories) into an empty database."""
    kg = KnowledgeGraph(location)
    try:
        if not is_empty(kg):
            raise InvalidRequest(
                f"{kg.location} already holds a graph; the demo graph goes into an empty PostgreSQL database or "
                "schema (kgtoolkit never replaces a PostgreSQL graph, force or not)",
                field="out",
                value=str(kg.location),
            )
        with (
            tempfile.TemporaryDirectory(prefix="kgtoolkit-demo-") as folder,
            build_demo(Path(folder) / "demo.sqlite3") as built,
        ):
            copy_graph(built, kg)
    except BaseException:
        kg.close()
        raise
    return kg


def _write(kg: KnowledgeGraph) -> None:
    """The demo graph's facts, entities, aliases and memories, written through the public API."""
    kg.configure(types=kg.config.types | {"service", "team", "database", "queue"})

    # People and teams.
    acme = "Acme"
    kg.add_entity(acme, type="company", properties={"founded": 2019, "hq": "Lisbon"})
    people = {
        "Dana Whitfield": ("VP Engineering", "dana@acme.example"),
        "Ravi Patel": ("Director of Platform", "ravi@acme.example"),
        "Mei Chen": ("Growth lead", "mei@acme.example"),
        "Tom O'Brien": ("Staff engineer", "tom@acme.example"),
        "Sara Lind": ("Backend engineer", "sara@acme.example"),
    }
    for person, (role, email) in people.items():
        kg.add(person, "works_at", acme, valid_from="2025-01-06", subject_type="person", object_type="company")
        kg.add(person, "role", role, valid_from="2025-01-06")
        kg.add(person, "email", email, valid_from="2025-01-06")
    kg.add("payments_team", "reports_to", "Dana Whitfield", valid_from="2025-01-06", subject_type="team")
    kg.add("platform_team", "reports_to", "Ravi Patel", valid_from="2025-01-06", subject_type="team")
    kg.add("growth_team", "reports_to", "Mei Chen", valid_from="2025-01-06", subject_type="team")
    kg.add("Sara Lind", "member_of", "growth_team", valid_from="2025-01-06")
    kg.add("Tom O'Brien", "member_of", "platform_team", valid_from="2025-01-06")

    # Services, their stores and queues, and who owns them.
    for service, team in (
        ("checkout_api", "payments_team"),
        ("billing_service", "payments_team"),
        ("my_api", "platform_team"),
        ("notifications", "platform_team"),
    ):
        kg.add(service, "owned_by", team, valid_from="2025-01-06", subject_type="service", object_type="team")
    kg.add("checkout_api", "uses_database", "Postgres", valid_from="2025-01-06", object_type="database")
    kg.add("checkout_api", "uses_queue", "Redis", valid_from="2025-01-06", object_type="queue")
    kg.add("billing_service", "uses_database", "MySQL", valid_from="2025-01-06", object_type="database")
    kg.add("notifications", "uses_queue", "RabbitMQ", valid_from="2025-02-01", object_type="queue")
    kg.add(
        "search_service",
        "uses_database",
        "Elasticsearch",
        valid_from="2025-04-14",
        subject_type="service",
        object_type="database",
    )
    kg.add("search_service", "owned_by", "growth_team", valid_from="2025-04-14")
    kg.add("checkout_api", "depends_on", "billing_service", valid_from="2025-01-06")
    kg.add("checkout_api", "depends_on", "search_service", valid_from="2025-04-14")
    kg.add("billing_service", "depends_on", "notifications", valid_from="2025-01-06")
    kg.add("checkout_api", "url", "https://checkout.acme.example", valid_from="2025-01-06")

    # 2025: billing moves to Postgres; Sara changes team.
    migration = kg.remember(
        "Billing cut over from MySQL to Postgres on 2025-09-15; MySQL is read-only until the end of the quarter.",
        source="incident-review",
    )
    kg.supersede("billing_service", "uses_database", "MySQL", "Postgres", at="2025-09-15", source_closet=migration.id)
    kg.supersede("Sara Lind", "member_of", "growth_team", "payments_team", at="2025-11-03")

    # A duplicate spelling creeps in, then is merged; a short alias is registered.
    kg.add(
        "analytics_pipeline",
        "uses_database",
        "PostgreSQL",
        valid_from="2025-12-01",
        subject_type="service",
        object_type="database",
    )
    kg.add("analytics_pipeline", "owned_by", "growth_team", valid_from="2025-12-01")
    kg.merge("PostgreSQL", "Postgres")
    kg.alias("pg", "Postgres")

    # 2026: re-org, my_api's queue story (contract §10), notifications to SQS, Tom's promotion and exit.
    kg.supersede("platform_team", "reports_to", "Ravi Patel", "Dana Whitfield", at="2026-02-01")
    review = kg.remember(
        "Design review 2026-03-02: my_api will use Redis for its job queue; Redis is already run by the checkout team.",
        source="design-review",
    )
    kg.add("my_api", "uses_queue", "Redis", valid_from="2026-03-02", source_closet=review.id)
    kg.supersede("notifications", "uses_queue", "RabbitMQ", "SQS", at="2026-05-20", object_type="queue")
    kg.supersede("Tom O'Brien", "role", "Staff engineer", "Engineering manager", at="2026-06-01")
    kg.add("search_service", "owned_by", "platform_team", valid_from="2026-07-01", source="cursor")
    kg.invalidate("Tom O'Brien", "works_at", acme, ended="2026-08-31", ended_by="hr-sync")
    kg.invalidate("Tom O'Brien", "member_of", "platform_team", ended="2026-08-31", ended_by="hr-sync")
    switch = kg.remember(
        "2026-10-12: moved my_api's queue from Redis to SQLite to drop a moving part; the "
        "Redis instance stays for checkout only.",
        source="changelog",
    )
    kg.invalidate("my_api", "uses_queue", "Redis", ended="2026-10-12")
    kg.add("my_api", "uses_queue", "SQLite", valid_from="2026-10-12", object_type="database", source_closet=switch.id)

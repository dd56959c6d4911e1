"""The reads wing: what the services read, grouped in the engine.

The shared query parts (``_queries``), semantic search's reads (``_search``), churn and event counts
(``_aggregates``), rankings (``_rankings``; the most volatile entities along the kept counts: ``_volatile_walk``),
the overview of a graph (``_overview``) and what the duplicate candidates and checks read (``_cleanup``).
"""

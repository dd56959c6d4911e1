"""The operations wing: the graph's operations as functions over the engine and the rules.

Each resource has a module (facts, entities, predicates, reads, timeline, conflicts, settings, traversal,
diff); ``_rules`` holds the rules of add, written once over the dialect. :class:`~kgtoolkit.store.GraphStore`
opens one transaction and calls one of them.
"""

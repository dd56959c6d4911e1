"""The engine wing: what differs per database.

The backends (``_backend`` the abstract one with its ``Dialect``, ``_sqlite``, ``_postgres``), the schema and
its migrations (``_schema``), where a graph is (``_location``), the SQLite reader process (``_arrow_read``,
``_reader_process``), driver errors as kgtoolkit's (``_failures``). Only this wing imports a database driver.
"""

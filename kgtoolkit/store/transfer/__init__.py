"""The transfer wing: whole graphs and many facts in and out.

Load (``_load``, with ``_keyset``), export as Arrow (``_export``), dump and restore (``_dump``, checked by
``_dump_check``), copy between databases (``_copy``) and other programs' graphs (``_foreign``).
"""

"""The dashboard's graph picture, free of Streamlit: what to draw (:mod:`.view`), how it reads (:mod:`.style`:
colours, labels), where (:mod:`.layout`), the page (:mod:`.render`), and the picture through time (:mod:`.timeview`:
one layout over a window's union of nodes, an activity histogram, a draggable window, play/pause; the same page in
a notebook, and an animation a report can embed).

:mod:`kgtoolkit.dashboard.graphview` re-exports the names the pages and tests use.
"""

"""The commands of semantic search: build the index beside the graph (``index``) and search facts and memories
by words and meaning (``find``); thin layers over :mod:`kgtoolkit.search`.

The graph is opened read-only for a file (the index lives beside it) and writable for PostgreSQL, whose
embedding cache is a table of the database (:func:`._common.for_search`). torch and the model load only when
one of these commands runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from ..graph import KnowledgeGraph
from ._common import AsOf, Call, command, for_search
from ._render import Answer, err, label, out

if TYPE_CHECKING:
    from ..search import FindResult

__all__ = ["find_", "index_"]

ModelOption = Annotated[
    str | None,
    typer.Option(
        "--model",
        help="sentence-transformers model folder (default: $KGTOOLKIT_SEARCH_MODEL, else the bundled all-MiniLM-L6-v2).",
        show_default=False,
    ),
]


@command("index", read_only=for_search)
def index_(
    kg: KnowledgeGraph,
    call: Call,
    rebuild: Annotated[
        bool, typer.Option("--rebuild", help="Start the index over (cached embeddings are reused).")
    ] = False,
    status: Annotated[
        bool, typer.Option("--status", help="Only say whether the index is fresh, stale or missing.")
    ] = False,
    model: ModelOption = None,
) -> Answer:
    """Build or update the search indexes: the full-text index a big import left to be filled, and the semantic
    index beside the graph (only new or changed texts are embedded)."""
    from ..search import SearchIndex  # lazily: torch and the model load only for search

    texts = 0 if status else kg.index_text()
    with SearchIndex.open(kg, model=model) as idx:
        if status:
            state = idx.status()
            covered = (
                "nothing indexed yet; `kgtoolkit index` builds it"
                if state.state == "missing"
                else f"the index holds {state.facts:,} facts and {state.memories:,} memories"
            )
            return Answer(
                state.to_dict,
                lambda: out.print(
                    f"{state.state}: {escape(state.reason)} ({covered}; in {escape(str(state.directory))})",
                    highlight=False,
                ),
            )
        from ..search._background import building

        if not call.json:
            if building(idx.directory):
                err.print("a build started in the background holds this index: waiting for it", highlight=False)
            estimate = idx.estimate()
            if estimate.texts:
                err.print(f"embedding: {estimate.describe()}", highlight=False)
        with call.progress("embedding") as bar:
            report = idx.sync(progress=bar, rebuild=rebuild)

    def show() -> None:
        verb = "up to date" if report.state == "fresh" else f"{report.state} → updated"
        if texts:
            out.print(f"full-text index: {texts:,} facts of a big import indexed", highlight=False)
        out.print(
            f"index {verb} ({escape(report.reason)}): facts {report.facts.total} ({report.facts.index_type}, "
            f"+{report.facts.added} ~{report.facts.changed} -{report.facts.removed}), memories "
            f"{report.memories.total} (+{report.memories.added} -{report.memories.removed}); {report.embedded} "
            f"texts embedded, {report.cached} from the cache, {report.seconds:.1f} s",
            highlight=False,
        )

    return Answer(lambda: {**report.to_dict(), "text_indexed": texts}, show)


@command("find", read_only=for_search)
def find_(
    kg: KnowledgeGraph,
    call: Call,
    query: Annotated[str, typer.Argument(help="What to look for, in words.")],
    k: Annotated[int, typer.Option("--k", "-k", min=1, max=1000, help="How many hits.")] = 10,
    kind: Annotated[str, typer.Option("--kind", help="facts, memories or both.")] = "facts",
    as_of: AsOf = None,
    current: Annotated[
        bool, typer.Option("--current", help="Only current facts, and memories that do not read as history.")
    ] = False,
    mode: Annotated[
        str,
        typer.Option(
            "--mode", help="hybrid (words, meaning and names fused), vector or lexical (words alone; no model)."
        ),
    ] = "hybrid",
    rerank: Annotated[
        str | None,
        typer.Option(
            "--rerank",
            help="graph: prefer facts near the entities the query names, and current facts.",
            show_default=False,
        ),
    ] = None,
    explain: Annotated[
        bool, typer.Option("--explain", help="Show each hit's lexical, vector, name and graph contributions.")
    ] = False,
    model: ModelOption = None,
    wait: Annotated[
        bool,
        typer.Option(
            "--wait",
            help="When the semantic index must first be built (a big graph), wait for it instead of answering "
            "lexically at once while it is built in the background.",
        ),
    ] = False,
) -> Answer:
    """Search facts and memories by words and meaning; each hit is read against the graph (current? replaced by what, since when?).

    On a graph whose semantic index needs a long build, the answer is lexical at once and says so; the index is
    built in the background and used by the next search once written (``--wait`` waits for it instead)."""
    from ..search import find  # lazily: torch and the model load only for search

    with call.progress("embedding") as bar:
        result = find(
            kg,
            query,
            k=k,
            kind=kind,  # type: ignore[arg-type]
            as_of=as_of,
            current_only=current,
            mode=mode,  # type: ignore[arg-type]
            rerank=rerank,
            explain=explain,
            model=model,
            progress=bar,
            wait=wait,
        )
    if result.notice and not call.json:
        err.print(f"note: {escape(result.notice)}", highlight=False)
    labels = kg.predicate_labels()
    return Answer(result.to_dict, lambda: _show_hits(result, query, explain, labels))


def _show_hits(result: FindResult, query: str, explain: bool, labels: Mapping[str, str]) -> None:
    """The hits of ``find`` as a table (with ``explain``: each signal's rank and score), names found on stderr."""
    from ..search import FactHit

    if not result.hits:
        out.print(f"{escape(query)}: nothing found", highlight=False)
        return
    table = Table(
        title=f"{escape(query)} ({len(result.hits)} hit{'s' * (len(result.hits) != 1)})",
        title_justify="left",
        header_style="bold",
        box=box.SIMPLE_HEAD,
    )
    columns = ("score", "hit", "graph", *(("lexical", "vector", "name", "graph rank") if explain else ()))
    for column in columns:
        table.add_column(column, justify="left" if column in ("hit", "graph") else "right")
    for hit in result.hits:
        score = f"{hit.score:.4f}" + (" [bold]=[/]" if hit.exact else "")
        signals: tuple[str, ...] = ()
        if hit.explain is not None:
            e = hit.explain
            signals = tuple(
                "–" if r is None else f"#{r}" + (f" {s:.3g}" if s is not None else "")
                for r, s in (
                    (e.lexical_rank, e.lexical_score),
                    (e.vector_rank, e.vector_score),
                    (e.name_rank, None),
                    (e.graph_rank, None),
                )
            )
            if e.hops is not None:
                signals = (*signals[:3], f"{signals[3]} ({e.hops} hop{'s' * (e.hops != 1)})")
        if isinstance(hit, FactHit):
            f = hit.fact  # the predicate as people spell it (contract §13)
            span = f"{f.valid_from or '?'} … {f.valid_to or ''}".rstrip()
            what = escape(f"{f.subject_name} → {label(f.predicate, labels)} → {f.object_name}  [{span}]")
            if hit.count > 1:
                what += f" [dim](×{hit.count:,}, {escape(hit.first or '?')} … {escape(hit.last or '?')})[/]"
            style = None if hit.current else "dim"
        else:
            text = hit.memory.text if len(hit.memory.text) <= 160 else hit.memory.text[:157] + "…"
            what = f"[italic]{escape(text)}[/] [dim]({escape(hit.memory.id)}{', ' + escape(hit.memory.source) if hit.memory.source else ''})[/]"
            style = "dim" if hit.status == "history" else None
        table.add_row(score, what, escape(hit.note), *signals, style=style)
    out.print(table)
    if result.named:
        err.print(
            "[dim]= names " + ", ".join(escape(n.entity) for n in result.named) + " exactly: its facts are found by "
            "name too[/]",
            highlight=False,
        )

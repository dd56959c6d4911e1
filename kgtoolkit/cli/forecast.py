"""The ``forecast`` commands (issue #49): ``kgtoolkit forecast evaluate`` scores the recurrency baseline with the
field's protocol; ``kgtoolkit forecast predict`` ranks a subject's likely next objects with their evidence.

A thin layer over :func:`kgtoolkit.forecast.evaluate` and :meth:`kgtoolkit.forecast.Recurrency.predict` (the model
:func:`kgtoolkit.forecast.latest` keeps, as the agent tool's ``forecast`` action asks it). ``--json`` prints the
library's records: evaluate's has the keys ``mrr``, ``hits_at_1``, ``hits_at_3``, ``hits_at_10`` (fractions in
0…1) and ``queries``, with the split and the results per predicate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, cast

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from ..graph import KnowledgeGraph
from ._common import app, command
from ._render import Answer, out, print_table

if TYPE_CHECKING:
    from .. import forecast as fc

__all__ = ["evaluate", "group", "predict"]

group = typer.Typer(
    help="Forecast what happens next in an event graph: score the recurrency baseline, or rank likely objects.",
    no_args_is_help=True,
)
app.add_typer(group, name="forecast")

#: The predicates evaluate's table shows (``--json`` has every one).
_PREDICATE_ROWS = 25


def _percent(value: float) -> str:
    return f"{100 * value:.1f}"


@command("evaluate", on=group, read_only=True)
def evaluate(
    kg: KnowledgeGraph,
    train_until: Annotated[
        str, typer.Option("--train-until", metavar="DATE", help="First day of the validation window.")
    ],
    valid_until: Annotated[str, typer.Option("--valid-until", metavar="DATE", help="First day of the test window.")],
    test_until: Annotated[
        str | None,
        typer.Option(
            "--test-until", metavar="DATE", help="First day after the test window (default: every later event)."
        ),
    ] = None,
    variant: Annotated[
        str, typer.Option("--variant", help="combined (λ then α tuned), strict (α = 1) or relaxed (α = 0).")
    ] = "combined",
    tune: Annotated[
        bool, typer.Option("--tune/--no-tune", help="Choose λ and α per predicate on the validation window.")
    ] = True,
) -> Answer:
    """Score the recurrency baseline: single-step, time-aware filtered ranks, MRR and Hits@1/3/10 (in percent)."""
    from .. import forecast as fc  # numpy and polars: loaded by the command, never by ``kgtoolkit --help``

    report = fc.evaluate(
        kg,
        train_until=train_until,
        valid_until=valid_until,
        test_until=test_until,
        variant=cast("fc.Variant", variant),  # the library checks it
        tune=tune,
    )

    def show() -> None:
        window = f"{report.valid_until} to {report.test_until or 'the end'}"
        out.print(
            f"[bold]{report.variant}[/] recurrency baseline, test {escape(window)}: "
            f"{report.queries:,} queries over {report.entities:,} entities"
        )
        head = Table(box=box.SIMPLE, show_header=True)
        for name in ("MRR", "Hits@1", "Hits@3", "Hits@10"):
            head.add_column(name, justify="right")
        head.add_row(*(_percent(v) for v in (report.mrr, report.hits_at_1, report.hits_at_3, report.hits_at_10)))
        out.print(head)
        table = Table(title="per predicate, busiest first", title_justify="left", box=box.SIMPLE)
        for name, justify in (
            ("predicate", "left"),
            ("queries", "right"),
            ("MRR", "right"),
            ("Hits@10", "right"),
            ("λ", "right"),
            ("α", "right"),
            ("tuned", "left"),
        ):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        shown = report.per_predicate[:_PREDICATE_ROWS]
        if len(report.per_predicate) > len(shown):
            table.caption = f"the {len(shown)} busiest of {len(report.per_predicate)} predicates; --json has them all"
        for p in shown:
            table.add_row(
                escape(p.predicate),
                str(p.queries),
                _percent(p.mrr),
                _percent(p.hits_at_10),
                f"{p.lam:g}",
                f"{p.alpha:g}",
                "yes" if p.tuned else "default",
            )
        print_table(table)

    return Answer(report.to_dict, show)


@command("predict", on=group, read_only=True)
def predict(
    kg: KnowledgeGraph,
    subject: Annotated[str, typer.Argument(help="The entity whose next events are forecast (a name or alias).")],
    predicate: Annotated[str, typer.Argument(help="The kind of event, e.g. make_statement.")],
    at: Annotated[
        str | None,
        typer.Option("--at", metavar="DATE", help="The day to forecast (default: the day after the last event)."),
    ] = None,
    top: Annotated[int, typer.Option("--top", min=1, max=1000, help="How many likely objects.")] = 10,
) -> Answer:
    """The likely objects of SUBJECT PREDICATE on a day, best first, with their evidence."""
    from .. import forecast as fc

    entity = kg.resolve(subject)
    predictions = fc.latest(kg).predict(entity, kg.resolve_predicate(predicate), at=at, top=top)

    def data() -> Any:
        return {"predictions": [p.to_dict() for p in predictions], "count": len(predictions)}

    def show() -> None:
        if not predictions:
            out.print("no likely objects: the subject never had this predicate and no one else did either")
            return
        table = Table(box=box.SIMPLE)
        for name, justify in (
            ("rank", "right"),
            ("object", "left"),
            ("score", "right"),
            ("times seen", "right"),
            ("last seen", "left"),
            ("share", "right"),
        ):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        for p in predictions:
            table.add_row(
                str(p.rank),
                escape(p.object_name),
                f"{p.score:.4f}",
                str(p.times_seen),
                p.last_seen or "-",
                f"{100 * p.share:.1f}%",
            )
        print_table(table)

    return Answer(data, show)

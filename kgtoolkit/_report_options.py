"""The churn report's options as one value: :class:`ReportOptions`, checked once where a door builds it.

:func:`kgtoolkit.report.churn_report`, :func:`kgtoolkit.spark.churn_report` and the CLI's ``kgtoolkit report``
build it from their own arguments; the report reads it and nothing else (:func:`kgtoolkit.report.write_churn_report`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
from pathlib import Path
from typing import Any

from ._checks import whole_number
from ._errors import InvalidRequest
from ._records import _Record
from ._time import TimeInput

__all__ = ["ReportOptions"]


@dataclasses.dataclass(frozen=True, slots=True)
class ReportOptions(_Record):
    """What a churn report covers and where it goes; every value checked when it is built.

    Parameters
    ----------
    since, until
        The window. Default: from the first start to the last start or end, or to today when the graph plans
        past it.
    every
        The period, as ``analysis.churn`` reads it (``"1w"``, ``"1mo"``, ``"1q"``, ``"1y"``, …).
    out
        The HTML file (a text or a path; kept as a :class:`~pathlib.Path`). The Markdown is written beside it,
        with ``.md`` (:attr:`markdown`).
    top
        How many entities, predicates and pairs each ranking lists (at least 1).
    now
        The moment conflicts' durations run to, and the day that divides what happened from what is scheduled
        (default: the current time).
    title
        The report's title (default: "Knowledge-graph churn report").
    renewals
        Show a renewal (the same fact again back to back, contract §11) as ``renewed``, neither added nor ended.
        False counts its end and its start apart.

    Raises
    ------
    InvalidRequest
        ``out`` named ``.md`` or not a path; ``top`` not a whole number from 1; ``every`` not a period;
        ``until`` before ``since``; ``title`` not a text; ``renewals`` not True or False. The message names the
        option as ``name=value``, which the CLI writes as its flag.
    InvalidDate
        ``since``, ``until`` or ``now`` not a time.

    Examples
    --------
    >>> options = ReportOptions(since="2026-01", every="1w", out="churn.html", top=5)
    >>> options.markdown.name, options.to_dict()["out"], options.to_dict()["top"]
    ('churn.md', 'churn.html', 5)
    >>> ReportOptions(out="churn.md")
    Traceback (most recent call last):
    ...
    kgtoolkit._errors.InvalidRequest: out='churn.md' is the Markdown name; give the HTML name (the .md is written beside it)
    """

    since: TimeInput | None = None
    until: TimeInput | None = None
    every: str = "1mo"
    out: Path = Path("report.html")
    top: int = 10
    now: TimeInput | None = None
    title: str | None = None
    renewals: bool = True

    def __post_init__(self) -> None:
        from .analysis._periods import _check_every
        from .analysis._shared import _now, _since_until

        if not isinstance(self.out, (str, os.PathLike)):
            raise InvalidRequest(f"out={self.out!r} is not a file name", field="out", value=str(self.out))
        out = Path(self.out)
        if out.suffix.lower() == ".md":
            raise InvalidRequest(
                f"out={str(out)!r} is the Markdown name; give the HTML name (the .md is written beside it)",
                field="out",
                value=str(out),
            )
        object.__setattr__(self, "out", out)
        whole_number(self.top, field="top", low=1)
        _check_every(self.every)
        _since_until(self.since, self.until)
        _now(self.now)
        if self.title is not None and not isinstance(self.title, str):
            raise InvalidRequest(f"title={self.title!r} is not a text", field="title", value=str(self.title))
        if not isinstance(self.renewals, bool):
            raise InvalidRequest(
                f"renewals={self.renewals!r} is neither True nor False", field="renewals", value=str(self.renewals)
            )

    @property
    def markdown(self) -> Path:
        """The Markdown summary's file: :attr:`out` with ``.md``."""
        return self.out.with_suffix(".md")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: the file as a text, times as given or in ISO form."""

        def plain(value: Any) -> Any:
            return value.isoformat() if isinstance(value, (dt.date, dt.datetime)) else value

        return {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)} | {"out": str(self.out)}

    @classmethod
    def of(cls, options: ReportOptions | None, **fields: Any) -> ReportOptions:
        """``options``, or the options built from ``fields`` (a door's keywords); refuses both at once.

        Parameters
        ----------
        options
            Options built beforehand, or None.
        **fields
            The door's keywords, as :class:`ReportOptions` takes them.

        Returns
        -------
        ReportOptions
            The checked options.

        Raises
        ------
        InvalidRequest
            ``options`` is not a :class:`ReportOptions`, or comes with a keyword other than its default; what
            :class:`ReportOptions` refuses.

        Examples
        --------
        >>> ReportOptions.of(None, every="1y").every
        '1y'
        >>> ReportOptions.of(ReportOptions(top=3), top=10).top
        3
        """
        built = cls(**fields)
        if options is None:
            return built
        if not isinstance(options, ReportOptions):
            raise InvalidRequest(f"options={options!r} is not a ReportOptions", field="options")
        default = cls()
        beside = [f.name for f in dataclasses.fields(cls) if getattr(built, f.name) != getattr(default, f.name)]
        if beside:
            raise InvalidRequest(
                f"options= holds every option of the report; give {', '.join(beside)} in it, not beside it",
                field="options",
            )
        return options

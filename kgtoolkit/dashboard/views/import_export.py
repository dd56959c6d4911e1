"""Import / export: upload CSV/TSV/JSONL/Parquet with a preview and the bad-row report; download exports."""

from __future__ import annotations

import streamlit as st

import kgtoolkit
from kgtoolkit.dashboard import data, kgdash
from kgtoolkit.dashboard._text import md_text

c = kgdash.ctx()
st.title("Import / export")
upload_tab, export_tab = st.tabs([":material/upload: Import", ":material/download: Export"])

UPLOAD_TYPES = ["csv", "tsv", "txt", "tab", "jsonl", "ndjson", "parquet", "pq"]
EXPORT_FORMATS = {
    "csv": "text/csv",
    "tsv": "text/tab-separated-values",
    "jsonl": "application/x-ndjson",
    "parquet": "application/vnd.apache.parquet",
    "json": "application/json",
}


with upload_tab:
    if c.read_only:
        st.info("Read-only mode: you can preview and check a file, but not import it.", icon=":material/lock:")
    upload = st.file_uploader(
        "A file of facts",
        type=UPLOAD_TYPES,
        key="import_file",
        help="Columns subject, predicate, object (needed) and valid_from, valid_to, confidence, "
        "source, source_closet, subject_type, object_type (used when present).",
    )
    a, b = st.columns(2)
    comma_guard = a.toggle(
        "Refuse names with commas (the comma guard)",
        key="import_commas",
        help="Off: names such as 'Washington, D.C.' are taken as written and counted. On: such rows are bad rows "
        "(packed lists, as an agent might write them).",
    )
    source = b.text_input("Default source", key="import_source", placeholder="e.g. crm-export")
    if upload is not None:
        try:
            rows, dry = kgdash.check_upload(
                upload.name, upload.getvalue(), comma_guard, source.strip() or None, c.path, c.read_only, c.version
            )
        except kgtoolkit.KGError as exc:
            st.error(md_text(f"[{exc.code}] {exc.message}"))
        else:
            good = dry["rows"] - dry["rejected"]
            m1, m2, m3 = st.columns(3)
            m1.metric("Rows", f"{dry['rows']:,}")
            m2.metric("Valid rows", f"{good:,}")
            m3.metric("Bad rows", f"{dry['rejected']:,}")
            st.markdown("**Preview** (first 50 rows)")
            st.dataframe(rows.head(50), hide_index=True, width="stretch", height=240)
            if dry["rejects"]:
                st.markdown("**Bad rows** — these are skipped on import")
                bad = data.rejects_frame(dry)
                st.dataframe(bad, hide_index=True, width="stretch", height=min(320, 38 + 35 * bad.height))
                st.download_button(
                    "Download the bad-row report (CSV)",
                    bad.write_csv(),
                    file_name="rejects.csv",
                    mime="text/csv",
                    key="import_rejects",
                )
            else:
                st.success("Every row is valid.")
            if st.button(
                f"Import {good:,} valid rows into {md_text(c.name)}",
                type="primary",
                key="import_go",
                disabled=c.read_only or good == 0,
                help="Disabled in read-only mode." if c.read_only else "One transaction: all or nothing.",
            ):
                try:
                    report = data.import_upload(
                        c.kg, upload.name, upload.getvalue(), comma_guard=comma_guard, source=source.strip() or None
                    )
                except kgtoolkit.KGError as exc:
                    st.error(md_text(f"[{exc.code}] {data.import_wording(exc.message)}"))
                else:
                    st.success(
                        f"Imported {report.inserted:,} facts ({report.duplicates:,} already there, "
                        f"{report.rejected:,} bad rows skipped, {report.entities_created:,} new entities)."
                    )
                    for warning in report.warnings:
                        st.warning(md_text(data.import_wording(warning)))

with export_tab:
    a, b, d = st.columns([1, 1, 2])
    fmt = a.selectbox(
        "Format",
        list(EXPORT_FORMATS),
        key="export_format",
        help="json is the lossless dump of the whole graph (no filters).",
    )
    current_only = b.toggle("Current facts only", key="export_current", disabled=fmt == "json")
    dated = d.toggle(f"Only facts valid {c.date_label}", key="export_dated", disabled=fmt == "json" or c.as_of is None)
    spelled = kgdash.labels(c.path, c.read_only, c.version)
    predicate = st.selectbox(
        "Predicate",
        [None, *kgdash.predicates(c.path, c.read_only, c.version)],
        format_func=lambda p: "all predicates" if p is None else spelled.get(p, p),
        key="export_predicate",
        disabled=fmt == "json",
    )
    if st.button("Prepare the export", key="export_go"):
        try:
            name, content, count = data.export_bytes(
                c.kg, c.name, fmt, current_only=current_only, predicate=predicate, as_of=c.as_of if dated else None
            )
        except kgtoolkit.KGError as exc:
            st.error(md_text(f"[{exc.code}] {exc.message}"))
        else:
            st.session_state["export_ready"] = (name, content, count, fmt)
    if st.session_state.get("export_ready"):
        name, content, count, kind = st.session_state["export_ready"]
        st.download_button(
            f"Download {md_text(name)} ({count:,} facts, {len(content) / 1024:,.0f} KiB)",
            content,
            file_name=name,
            mime=EXPORT_FORMATS[kind],
            key="export_download",
            type="primary",
        )

kgdash.footer(c, "import-export")

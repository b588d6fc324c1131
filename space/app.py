"""The leaderboard Space: ranked tables, stratified views, radar charts, overview, submission.

It draws what `leaderboard` computes (tables.py, service.py); no benchmark-specific logic lives here.
Configuration (environment): LEADERBOARD_DATA (built datasets, default hub/), LEADERBOARD_STORE
(results store, default store/), LEADERBOARD_QUOTA (submissions per user per day, default 5),
LEADERBOARD_LOCAL_USER (identity when not on a Space), LEADERBOARD_HUB_RESULTS_REPO and
LEADERBOARD_HUB_PRIVATE_REPO (mirror the store to Hub dataset repos), LEADERBOARD_WORKER=external (only
validate and queue; `python -m leaderboard worker` scores where the answer keys live).
"""
from __future__ import annotations

import os
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # on a Hugging Face Space the app file runs as a script
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # no telemetry: offline, and visitors' data stays here

import gradio as gr  # noqa: E402
import pandas as pd  # noqa: E402

from leaderboard import registry  # noqa: E402
from leaderboard.scoring_services import ServiceOptions, context_factory  # noqa: E402
from leaderboard.settings import Settings  # noqa: E402
from leaderboard.service import Service, SubmissionForm  # noqa: E402
from leaderboard.store import HubMirror, LocalStore  # noqa: E402
from leaderboard.tables import (ANY, SIZE_BUCKETS, Filters, export_csv, export_json, overview_table,  # noqa: E402
                                radar_series, ranked_table, reported_baselines, strata_names, strata_table,
                                top_entries)
from space.charts import radar  # noqa: E402
from space.identity import current_user, local_user, on_space  # noqa: E402

SOURCES = ["paper", "submission", "human"]
SHOWN_ROWS = 500  # rows drawn per table; the downloads always hold the whole filtered view
STATUS_COLUMNS = ["id", "benchmark", "model", "state", "progress", "message", "created_at", "updated_at"]


def default_service(settings: Settings | None = None) -> Service:
    settings = settings or Settings.from_env()
    data_root = ROOT / settings.data  # relative paths are the project's; absolute ones stay as they are
    store_root = ROOT / settings.store
    mirror = None
    if settings.hub_results_repo and settings.hub_private_repo:
        mirror = HubMirror(settings.hub_results_repo, settings.hub_private_repo)
    options = ServiceOptions(cache_dir=store_root / "private" / "cache")
    return Service(store=LocalStore(store_root, mirror), data_dirs={n: data_root / n for n in registry.names()},
                   context_factory=context_factory(options=options),  # picklable: scoring runs in a child
                   quota_per_day=settings.quota, judge_retry_seconds=settings.judge_retry_seconds,
                   judge_max_attempts=settings.judge_max_attempts, score_seconds=settings.score_seconds,
                   score_memory_mb=settings.score_memory_mb, max_bytes=settings.max_upload_mb * 10**6)


def _download_files(table: pd.DataFrame, name: str) -> tuple[str, str]:
    folder = Path(tempfile.mkdtemp(prefix="leaderboard-export-"))
    csv_path, json_path = folder / f"{name}.csv", folder / f"{name}.json"
    csv_path.write_text(export_csv(table), encoding="utf-8")
    json_path.write_text(export_json(table), encoding="utf-8")
    return str(csv_path), str(json_path)


def _model_choices(bench, entries) -> list[str]:
    """Radar choices: the best SHOWN_ROWS models (thousands of names would bloat every page load)."""
    return sorted({e.result.model.name for e in top_entries(bench, entries, SHOWN_ROWS)})


def _benchmark_tab(app: gr.Blocks, service: Service, bench) -> None:
    primary = bench.primary_metric
    metric_names = [m.name for m in bench.metrics]
    entries = service.entries(bench.name)
    gr.Markdown(f"Ranked by **{bench.metric(primary).label}** (`{primary}`), values ×100 unless stated; the top "
                f"{SHOWN_ROWS} rows are drawn (search and filters reach the rest; downloads hold the whole view). "
                "Rows sharing a rank range (e.g. `2-4`) cannot be separated by a paired bootstrap. "
                "Source `paper` = reported in the paper, `submitted` = scored here, `human` = human baseline; "
                "a protocol marked DIFFERS is not comparable with the paper's rows.")
    with gr.Row():
        access = gr.Dropdown([ANY, "open", "proprietary"], value=ANY, label="Access", min_width=120)
        domain = gr.Dropdown([ANY, "general", "medical"], value=ANY, label="Domain", min_width=120)
        reasoning = gr.Dropdown([ANY, "yes", "no"], value=ANY, label="Reasoning", min_width=110)
        modality = gr.Dropdown([ANY, "multimodal", "text-only"], value=ANY, label="Input", min_width=120)
        size = gr.Dropdown([ANY, *SIZE_BUCKETS], value=ANY, label="Size", min_width=110)
    with gr.Row():
        sources = gr.CheckboxGroup([("paper", "paper"), ("submitted", "submission"), ("human", "human")],
                                   value=SOURCES, label="Rows")
        comparable = gr.Checkbox(False, label="Paper protocol only")
        search = gr.Textbox(label="Search model or organisation", placeholder="e.g. Gemini")
    default_columns = [m.name for m in bench.metrics if m.group == bench.metric(primary).group]
    with gr.Accordion("Metric columns", open=False):
        columns = gr.Dropdown(metric_names, value=default_columns, multiselect=True, label="Metric columns",
                              elem_id=f"columns-{bench.name}")
    initial = ranked_table(bench, entries, Filters(columns=default_columns))
    table = gr.Dataframe(value=initial.head(SHOWN_ROWS), interactive=False, wrap=True, datatype="auto", max_height=600,
                         label=f"{bench.pretty_name} leaderboard", elem_id=f"table-{bench.name}")
    csv_file, json_file = _download_files(initial, bench.name)
    with gr.Row():
        csv_button = gr.DownloadButton("Download CSV", value=csv_file, size="sm", elem_id=f"csv-{bench.name}")
        json_button = gr.DownloadButton("Download JSON", value=json_file, size="sm", elem_id=f"json-{bench.name}")
        refresh = gr.Button("Refresh", size="sm")
    inputs = [access, domain, reasoning, modality, size, sources, comparable, search, columns]

    def update(access, domain, reasoning, modality, size, sources, comparable, search, columns):
        filters = Filters(access=access, domain=domain, reasoning=reasoning, input_modality=modality, size=size,
                          sources=tuple(sources or ()), search=(search or "")[:100], comparable_only=bool(comparable),
                          columns=list(columns or []) or None)
        view = ranked_table(bench, service.entries(bench.name), filters)
        csv_path, json_path = _download_files(view, bench.name)
        return view.head(SHOWN_ROWS), csv_path, json_path

    for control in inputs:
        control.input(update, inputs, [table, csv_button, json_button], api_name=False, show_progress="hidden")
    refresh.click(update, inputs, [table, csv_button, json_button], api_name=f"table_{bench.name}")

    strata = strata_names(entries) or ["(none yet)"]
    with gr.Accordion("Stratified view and radar", open=False):
        with gr.Row():
            stratum = gr.Dropdown(strata, value=strata[0], label="Stratum", elem_id=f"stratum-{bench.name}")
            cell_metrics = list(dict.fromkeys([bench.stratum_metric, *metric_names]))
            metric = gr.Dropdown(cell_metrics, value=bench.stratum_metric, label="Metric")
            models = gr.Dropdown(_model_choices(bench, entries), multiselect=True,
                                 label="Models on the radar (default: top 5)")
        strata_view = gr.Dataframe(value=strata_table(bench, entries, strata[0], limit=SHOWN_ROWS), interactive=False,
                                   datatype="auto",
                                   label="Metric per stratum value (n = items in the cell)", elem_id=f"strata-{bench.name}")
        plot = gr.Plot(value=radar(radar_series(bench, entries, strata[0]), bench.stratum_metric, strata[0]),
                       label="Radar", elem_id=f"radar-{bench.name}")

        def update_strata(stratum, metric, models):
            current = service.entries(bench.name)
            return (strata_table(bench, current, stratum, metric, limit=SHOWN_ROWS),
                    radar(radar_series(bench, current, stratum, models or None, metric), metric, stratum))

        for control in (stratum, metric, models):
            control.input(update_strata, [stratum, metric, models], [strata_view, plot], api_name=False)

        def on_load(stratum, *filters):
            """Fresh rows, strata and model choices on every page load (results arrive while the app runs)."""
            current = service.entries(bench.name)
            names = strata_names(current) or ["(none yet)"]
            chosen = stratum if stratum in names else names[0]
            view, csv_path, json_path = update(*filters)
            return (view, csv_path, json_path, gr.update(choices=names, value=chosen),
                    gr.update(choices=_model_choices(bench, current)),
                    strata_table(bench, current, chosen, limit=SHOWN_ROWS),
                    radar(radar_series(bench, current, chosen), bench.stratum_metric, chosen))

        app.load(on_load, [stratum, *inputs], [table, csv_button, json_button, stratum, models, strata_view, plot],
                 api_name=False, show_progress="hidden")
    baselines = reported_baselines(entries, primary)
    if not baselines.empty:
        with gr.Accordion("Other reported baselines (a different task; not ranked with the table)", open=False):
            gr.Dataframe(value=baselines, interactive=False, wrap=True, datatype="auto")


def _submit_tab(service: Service) -> None:
    available = service.available()
    gr.Markdown("Upload a prediction file (JSONL, JSON, CSV or Parquet; see each benchmark's format in the "
                "About tab). It is validated at once with the same code as `python -m leaderboard validate`; "
                "scoring runs in the background. The validation report never shows answers. Per-item scores "
                "and your contact stay private.")
    if on_space():
        gr.LoginButton()
    else:
        gr.Markdown(f"Signed in locally as **{local_user()}** (set `LEADERBOARD_LOCAL_USER`).")
    with gr.Row():
        benchmark = gr.Dropdown(available, value=available[0] if available else None, label="Benchmark")
        model_name = gr.Textbox(label="Model name", max_length=120)
        link = gr.Textbox(label="Model or paper link (https://...)", max_length=300)
        organisation = gr.Textbox(label="Organisation", max_length=120)
    with gr.Row():
        access = gr.Radio(["open", "proprietary"], label="Weights")
        domain = gr.Radio(["general", "medical"], label="Domain")
        reasoning = gr.Radio(["yes", "no", "unknown"], value="unknown", label="Reasoning mode")
        modality = gr.Radio(["multimodal", "text-only"], value="multimodal", label="Input modality")
        params = gr.Number(label="Parameters (billions)", minimum=0)
    contamination = gr.Textbox(label="Contamination disclosure (training data overlap with the benchmark sources?)",
                               lines=2, max_length=2000)
    contact = gr.Textbox(label="Contact e-mail (private, never shown)", max_length=300)
    upload = gr.File(label="Prediction file", file_types=[".jsonl", ".json", ".csv", ".parquet"], elem_id="upload")
    settings = gr.File(label="Run settings (optional: the PRED.meta.json written by `python -m leaderboard predict`)",
                       file_types=[".json"], elem_id="settings")
    submit = gr.Button("Validate and submit", variant="primary", elem_id="submit")
    message = gr.Markdown(elem_id="submit-message")
    report = gr.Textbox(label="Validation report", lines=8, interactive=False, elem_id="validation-report")
    status = gr.Dataframe(value=pd.DataFrame(columns=STATUS_COLUMNS), interactive=False, label="Your submissions",
                          elem_id="status")

    def my_status(request: gr.Request):
        user = current_user(request)
        rows = [{**{k: r.get(k) for k in STATUS_COLUMNS}, "model": r["model"]["name"],
                 "progress": f"{100 * float(r.get('progress') or 0):.0f}%"} for r in service.status_for(user or "")]
        used = service.used_today(user) if user else 0
        return pd.DataFrame(rows, columns=STATUS_COLUMNS), f"Quota today: {used}/{service.quota_per_day}"

    quota = gr.Markdown()

    def do_submit(benchmark, model_name, link, organisation, access, domain, reasoning, modality, params,
                  contamination, contact, upload, settings, request: gr.Request):
        user = current_user(request)
        if upload is None:
            return "Choose a prediction file first.", "", *my_status(request)
        form = SubmissionForm(benchmark=benchmark or "", model_name=model_name or "", link=link, organisation=organisation,
                              access=access, domain=domain, reasoning={"yes": True, "no": False}.get(reasoning),
                              input_modality=modality, params_b=params, contamination=contamination or "",
                              contact=contact or "")
        with _UPLOADS_LOCK:  # Gradio stores identical uploads at one path: count who is using it
            _UPLOADS_IN_USE[upload] += 1
        try:
            if not Path(upload).is_file():  # an identical refused upload was just deleted
                return "**Not accepted.** The upload is no longer on the server; upload the file again.", "", \
                    *my_status(request)
            outcome = service.submit(user or "", form, Path(upload), Path(settings) if settings else None)
        finally:
            with _UPLOADS_LOCK:
                _UPLOADS_IN_USE[upload] -= 1
                unused = _UPLOADS_IN_USE.pop(upload) if _UPLOADS_IN_USE[upload] <= 0 else None
        if unused is not None and not outcome.accepted:  # a refused upload does not stay on disk (accepted
            _discard_uploads(upload, settings)  # ones: the store has its copy; delete_cache removes Gradio's)
        verdict = "**Accepted.**" if outcome.accepted else "**Not accepted.**"
        return f"{verdict} {outcome.message}", outcome.report, *my_status(request)

    submit.click(do_submit, [benchmark, model_name, link, organisation, access, domain, reasoning, modality, params,
                             contamination, contact, upload, settings], [message, report, status, quota],
                 api_name="submit")
    timer = gr.Timer(2.0)
    timer.tick(my_status, None, [status, quota], api_name=False, show_progress="hidden")
    gr.Button("Refresh status", size="sm").click(my_status, None, [status, quota], api_name="status")


_UPLOADS_IN_USE: Counter = Counter()
_UPLOADS_LOCK = threading.Lock()


def _discard_uploads(*paths) -> None:
    for path in paths:
        if path:
            Path(path).unlink(missing_ok=True)
            try:
                Path(path).parent.rmdir()  # Gradio's per-upload folder, when now empty
            except OSError:
                pass


def _about_tab() -> None:
    parts = ["## Protocol and decisions\n"]
    for bench in registry.scorers().values():
        parts.append(f"### {bench.pretty_name}\n\nPrimary metric: `{bench.primary_metric}`. Prediction fields: "
                     + ", ".join(f"`{f.name}`" for f in bench.schema.fields) + f" (plus `{bench.schema.id_field}`).\n")
        parts += [f"- {d}" for d in bench.decisions]
        if bench.citation:
            parts.append(f"\n```bibtex\n{bench.citation}\n```")
        parts.append("")
    parts.append("Results whose protocol is marked DIFFERS were scored differently from the paper (for example ICD-11 codes "
                 "from the offline approximate coder, or a stand-in embedder) and are not comparable with paper rows.")
    gr.Markdown("\n".join(parts))


def build_app(service: Service | None = None) -> gr.Blocks:
    service = service or default_service()
    # delete_cache: uploads (and any file Gradio cached) older than an hour go, checked every 10 minutes
    with gr.Blocks(title="Medical multimodal benchmark hub", delete_cache=(600, 3600)) as app:
        gr.Markdown("# Medical multimodal benchmark hub\nHard clinical cases, five benchmarks, one scorer: "
                    "paper-reported rows beside submissions scored server-side with each benchmark's own metrics.")
        with gr.Tabs():
            entries_by = {}
            for bench in registry.scorers().values():
                with gr.Tab(bench.pretty_name, id=f"tab-{bench.name}"):
                    _benchmark_tab(app, service, bench)
                entries_by[bench.name] = service.entries(bench.name)
            with gr.Tab("Overview", id="tab-overview"):
                gr.Markdown("Each model's best row per benchmark (primary metric). Different benchmarks measure "
                            "different things: compare within a column.")
                gr.Dataframe(value=overview_table(list(registry.scorers().values()), entries_by).head(SHOWN_ROWS),
                             interactive=False, datatype="auto")
            with gr.Tab("Submit", id="tab-submit"):
                _submit_tab(service)
            with gr.Tab("About", id="tab-about"):
                _about_tab()
    app.service = service  # tests and main() reach the worker through the app
    return app


def main() -> None:
    settings = Settings.from_env()
    app = build_app(default_service(settings))
    if settings.worker != "external":  # external: `python -m leaderboard worker`
        app.service.start()
    app.queue(default_concurrency_limit=4).launch(server_name=settings.server_name, server_port=settings.server_port,
                                                  show_error=False, max_file_size=app.service.max_bytes)


if __name__ == "__main__":
    main()

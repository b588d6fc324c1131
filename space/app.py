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
# Arrow on the C allocator: the result shards' decode scratch goes back to the system (mimalloc kept ~50 MB more
# at 100,000 results, bench/results_scale.py); read when pyarrow is first imported, so set before that
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
from leaderboard.publishing.heap import limit_arenas  # noqa: E402

limit_arenas()  # before Gradio starts its threads: see heap.py

import gradio as gr  # noqa: E402
import pandas as pd  # noqa: E402

from leaderboard.scoring import registry  # noqa: E402
from leaderboard.scoring.services import ServiceOptions, context_factory  # noqa: E402
from leaderboard.settings import Settings  # noqa: E402
from leaderboard.operations.service import Service, SubmissionForm  # noqa: E402
from leaderboard.privacy.disclosure import Policy  # noqa: E402
from leaderboard.operations.store import HubMirror, LocalStore, load_records  # noqa: E402
from leaderboard.publishing.board import BOARDS, MAIN, SAMPLE, ci_note, release_gap  # noqa: E402
from leaderboard.publishing import models as model_registry  # noqa: E402
from leaderboard.operations.examples import example_line  # noqa: E402
from leaderboard.publishing.release import build_status  # noqa: E402
from leaderboard.publishing.board import ANY, SIZE_BUCKETS, Filters  # noqa: E402
from leaderboard.publishing.tables import Entry, subset_boards  # noqa: E402
from space.plain import md  # noqa: E402
from space.notes import about_noise, board_noise, held_out  # noqa: E402
from space.hub_setup import attach_hub  # noqa: E402
from space.breakdown_view import breakdown_tab  # noqa: E402
from space.item_browser import item_browser_tab  # noqa: E402
from space.compare_view import compare_tab  # noqa: E402
from space.overview_view import overview_tab  # noqa: E402
from space.served import served_exports  # noqa: E402
from space.identity import current_user, local_user, on_space  # noqa: E402

SOURCES = ["paper", "submission", "human"]
SHOWN_ROWS = 500  # rows drawn per table; the downloads always hold the whole filtered view
SAMPLE_LABEL = "{}: submissions scored on sample data (ranked among themselves)"
LIVE_SECONDS = 5.0  # how often an open page checks for new results
# headers break between words only (the table scrolls sideways behind the pinned rank and model columns);
# protocol badges show their reasons on hover
CSS = """
.leaderboard-table th, .leaderboard-table th * { word-break: normal !important; overflow-wrap: normal !important; }
.leaderboard-table th { min-width: 6.5em; font-size: 0.85em; line-height: 1.2; }
.leaderboard-table .badge { border-bottom: 1px dotted currentColor; cursor: help; }
#sample-banner { background: #fff4e5; border-left: 4px solid #f59e0b; padding: 0.5em 1em; }
.held-out-note { background: #eef6ff; border-left: 4px solid #3b82f6; padding: 0.4em 1em; }
/* Chinese text (e.g. consultation items): the CJK fonts a visitor's system has, after the theme's Latin fonts (the browser
   takes each glyph from the first font that has it); the Space downloads no font at run time */
.gradio-container { --font-cjk: "Noto Sans CJK SC", "Noto Sans SC", "PingFang SC", "Hiragino Sans GB",
  "Microsoft YaHei", "WenQuanYi Micro Hei"; }
.ib-card, .bd-list, .leaderboard-table td { font-family: var(--font), var(--font-cjk), sans-serif; }
/* phones: the heatmap becomes a list, tables scroll sideways behind the pinned model column */
.narrow-only { display: none !important; }
@media (max-width: 700px) { .wide-only { display: none !important; } .narrow-only { display: block !important; } }
.bd-list details { border-bottom: 1px solid #e5e5e5; padding: 4px 0; }
.bd-list summary { font-weight: 600; cursor: pointer; }
.bd-list ul { margin: 4px 0 4px 1.2em; padding: 0; }
"""
STATUS_COLUMNS = ["id", "benchmark", "model", "state", "progress", "message", "created_at", "updated_at"]
# detail columns a visitor may add (the table fits 1440 px with the default ones; downloads hold them all)
DETAILS = ["Source", "Coverage %", "Date", "Organisation", "Access", "Domain", "Reasoning", "Input", "Params (B)",
           "Run settings", "Flagged cells", "Submission id"]
DEFAULT_DETAILS = ["Source", "Params (B)", "Flagged cells"]


def default_service(settings: Settings | None = None) -> Service:
    settings = settings or Settings.from_env()
    data_root = ROOT / settings.data  # relative paths are the project's; absolute ones stay as they are
    store_root = ROOT / settings.store
    mirror = None
    if settings.hub_results_repo and settings.hub_private_repo:
        mirror = HubMirror(settings.hub_results_repo, settings.hub_private_repo)
    options = ServiceOptions(cache_dir=store_root / "private" / "cache")
    return Service(store=LocalStore(store_root, mirror, Policy.from_settings(settings)),
                   data_dirs={n: data_root / n for n in registry.names()},
                   context_factory=context_factory(options=options),  # picklable: scoring runs in a child
                   quota_per_day=settings.quota, judge_retry_seconds=settings.judge_retry_seconds,
                   judge_max_attempts=settings.judge_max_attempts, score_seconds=settings.score_seconds,
                   score_memory_mb=settings.score_memory_mb, max_bytes=settings.max_upload_mb * 10**6,
                   check_seconds=settings.check_seconds, check_memory_mb=settings.check_memory_mb)


EXPORTS = served_exports()  # one folder per process; a view's files are written once per board and reused


def _view_key(board: str, filters: Filters) -> str:
    return repr((board, filters))


def _payload(view, bench=None, details=None) -> tuple[dict, list[str]]:
    """The drawn rows and their datatypes: numbers stay numbers (the headers sort them), the display strings carry
    the format; detail columns not chosen are left out. No per-cell styling (every cell's is empty): a third fewer
    cells to serialise and send on every refresh."""
    payload = view.payload()
    keep = [i for i, h in enumerate(view.headers) if h not in DETAILS or details is None or h in details]
    display = payload["metadata"]["display_value"]
    if bench is not None and "Flagged cells" in view.headers:  # metric labels, not ids (downloads keep the ids)
        k = view.headers.index("Flagged cells")
        display = [[*row[:k], _metric_labels(bench, row[k]), *row[k + 1:]] for row in display]
    pick = lambda rows: [[row[i] for i in keep] for row in rows]  # noqa: E731
    return ({"headers": [view.headers[i] for i in keep], "data": pick(view.data),
             "metadata": {"display_value": pick(display)}}, [view.datatypes[i] for i in keep])


def _metric_labels(bench, ids: str) -> str:
    return ", ".join(bench.metric_spec(m).label for m in ids.split(", ")) if ids else ""


def _table_update(view, bench=None, details=None) -> dict:
    # an update, not a new gr.Dataframe: a component built with a value postprocesses all 10,000 cells once
    # more before Gradio does it again for the update
    payload, types = _payload(view, bench, details)
    return gr.update(value=payload, datatype=types)


def _benchmark_tab(app: gr.Blocks, service: Service, bench, tab: gr.Tab | None = None, first: bool = True) -> None:
    """One benchmark's tab. Nothing here reads the results store: the page answers before 50,000 records are
    parsed; the tables, the breakdown and the downloads are drawn by events (page load, tab select)."""
    primary = bench.primary_metric
    spec = bench.metric(primary)
    metric_names = [m.name for m in bench.metrics]
    gr.Markdown(f"Ranked by **{spec.label}**, best first; the top {SHOWN_ROWS} rows are drawn (search and filters "
                "reach the rest; downloads hold every filtered row with metric ids and full precision). "
                "**Rank** is a range from 95% confidence intervals, as LMArena does: best = 1 + the number of rows "
                "ahead beyond doubt (paired bootstrap between submissions scored on the same items, otherwise CI "
                "above CI), worst = the rows not clearly behind; equal scores share a rank, and filters never "
                f"renumber. {ci_note(bench)} **Protocol**: `paper protocol` = comparable with the paper's rows; "
                "`differs` and `sample data` are not (hover for why).", elem_id=f"about-table-{bench.name}")
    if held_out(bench, service.data_dirs.get(bench.name)):
        gr.Markdown(board_noise(bench, _noise_items()), elem_id=f"noise-{bench.name}", elem_classes=["held-out-note"])
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
        search = gr.Textbox(label="Search model or organisation", placeholder="e.g. Gemini", elem_id=f"search-{bench.name}")
    default_columns = [m.name for m in bench.metrics if m.group == spec.group]
    with gr.Accordion("Columns (metric and detail columns shown)", open=False):
        columns = gr.Dropdown([(m.label, m.name) for m in bench.metrics], value=default_columns, multiselect=True,
                              label="Metric columns", elem_id=f"columns-{bench.name}")
        details = gr.Dropdown(DETAILS, value=DEFAULT_DETAILS, multiselect=True, label="Detail columns",
                              elem_id=f"details-{bench.name}")
    # the board (ranks with paired tests) is built off the start-up path, and the page load draws it
    table = gr.Dataframe(interactive=False, wrap=True, max_height=600, pinned_columns=2,
                         label=f"{bench.pretty_name} leaderboard", elem_id=f"table-{bench.name}",
                         elem_classes=["leaderboard-table"])
    with gr.Row():  # the files are written on the first page load (start-up stays cheap), then reused
        csv_button = gr.DownloadButton("Download CSV", size="sm", elem_id=f"csv-{bench.name}")
        json_button = gr.DownloadButton("Download JSON", size="sm", elem_id=f"json-{bench.name}")
        refresh = gr.Button("Refresh", size="sm", elem_id=f"refresh-{bench.name}")
    _subset_boards(bench)
    show_sample = gr.Checkbox(False, label="Show submissions scored on sample data (their own board, not comparable "
                              "with the paper; the breakdown below then shows them alone)",
                              elem_id=f"show-sample-{bench.name}")
    sample_table = gr.Dataframe(visible=False, interactive=False, wrap=True, max_height=400, pinned_columns=2,
                                elem_classes=["leaderboard-table"],
                                label=SAMPLE_LABEL.format(bench.pretty_name), elem_id=f"sample-table-{bench.name}")
    inputs = [access, domain, reasoning, modality, size, sources, comparable, search, columns, details]
    seen = gr.State(None)  # the board this page shows; the timer redraws only when it changed

    def filters_of(access, domain, reasoning, modality, size, sources, comparable, search, columns, details=None):
        return Filters(access=access, domain=domain, reasoning=reasoning, input_modality=modality, size=size,
                       sources=tuple(sources or ()), search=(search or "")[:100], comparable_only=bool(comparable),
                       columns=list(columns or []) or None)

    def draw(*values):
        """The table alone; its download files follow in `files` (a 20,000-row view's CSV and JSON take ~0.7 s to
        write: a filter change or a refresh does not wait for them). Until they are written the buttons are
        disabled: a click in between would have downloaded the previous filter's rows."""
        current = BOARDS.get(bench, service.entries(bench.name))
        return (_table_update(current.view(MAIN, filters_of(*values), SHOWN_ROWS), bench, values[-1]),
                gr.update(interactive=False), gr.update(interactive=False))

    def files(*values):
        filters = filters_of(*values)
        current = BOARDS.get(bench, service.entries(bench.name))
        view = current.view(MAIN, filters, SHOWN_ROWS)  # the view just drawn (kept by the board)
        paths = EXPORTS.files(bench.name, current.serial, _view_key(MAIN, filters), lambda: view.download)
        return tuple(gr.update(value=path, interactive=True) for path in paths)

    def update(*values):
        """The table and its download files in one step (the page load and the live timer)."""
        return draw(*values)[0], *files(*values)

    def update_sample(show, *values):
        if not show:
            return gr.Dataframe(visible=False)
        view = BOARDS.get(bench, service.entries(bench.name)).view(SAMPLE, filters_of(*values), SHOWN_ROWS)
        if not view.data:
            return gr.Dataframe(value=None, visible=True, label="No submission was scored on sample data.")
        payload, types = _payload(view, bench, values[-1])
        return gr.update(value=payload, datatype=types, visible=True, label=SAMPLE_LABEL.format(bench.pretty_name))

    def redraw_sample(show, *values):
        """Only the checkbox hides the sample board: a filter or timer reply that was sent while it was unticked
        may arrive after the tick's reply, and must not hide the board the reader just opened."""
        return update_sample(show, *values) if show else gr.skip()

    def tick(last, show, *values):
        """Redraw when a result landed since this page last drew (new rows appear without a reload)."""
        current = BOARDS.get(bench, service.entries(bench.name))
        if current.serial == last:
            return gr.skip(), gr.skip(), gr.skip(), gr.skip(), last
        return *update(*values), redraw_sample(show, *values), current.serial

    outputs = [table, csv_button, json_button]
    downloads = [csv_button, json_button]
    for control in inputs:
        control.input(draw, inputs, outputs, api_name=False, show_progress="hidden").then(
            files, inputs, downloads, api_name=False, show_progress="hidden")
        control.input(redraw_sample, [show_sample, *inputs], sample_table, api_name=False, show_progress="hidden")
    show_sample.input(update_sample, [show_sample, *inputs], sample_table, api_name=f"sample_table_{bench.name}",
                      show_progress="hidden")
    refresh.click(draw, inputs, outputs, api_name=f"table_{bench.name}").then(
        files, inputs, downloads, api_name=f"table_files_{bench.name}", show_progress="hidden")
    refresh.click(redraw_sample, [show_sample, *inputs], sample_table, api_name=False, show_progress="hidden")
    timer = gr.Timer(LIVE_SECONDS)
    timer.tick(tick, [seen, show_sample, *inputs], [*outputs, sample_table, seen], api_name=False,
               show_progress="hidden")
    app.load(tick, [gr.State(None), show_sample, *inputs], [*outputs, sample_table, seen], api_name=False,
             show_progress="hidden")  # fresh rows and download files on every page load
    with gr.Tabs():  # per-stratum results and the cases themselves (space/breakdown_view.py, space/item_browser.py)
        with gr.Tab("Breakdown", id=f"breakdown-{bench.name}") as breakdown:
            breakdown_tab(app, service, bench, breakdown, parent=tab, on_load=first, show_sample=show_sample,
                          timer=timer)
        with gr.Tab("Items", id=f"items-{bench.name}") as items:
            item_browser_tab(service, bench, items)


def _subset_boards(bench) -> None:
    """Paper rows measured on another case set (a subset, a human study), each a board of its own. When the paper
    gives fewer than three full-benchmark rows, say why the ranked table is short and open them."""
    primary = bench.primary_metric
    paper = [Entry(r, f"paper:{i}") for i, r in enumerate(load_records(bench.name))]  # no store read
    boards = subset_boards(bench, paper)
    if not boards:
        return
    full = [e.result for e in paper if e.result.source == "paper" and e.result.metrics.get(primary) is not None]
    short = len(full) < 3
    if short:
        said = " ".join(md(n) for r in full for n in r.notes[:1])
        gr.Markdown(f"**Why the table above has {len(full)} paper row{'s' if len(full) != 1 else ''}:** {said} "
                    "The paper's other published scores are on smaller case sets; they are shown below, each as a "
                    "board of its own, best first, and never ranked with the full benchmark.",
                    elem_id=f"subset-why-{bench.name}")
    for k, (task, shared, frame) in enumerate(boards):
        with gr.Accordion(f"Reported on another case set — {task} (a board of its own, not ranked with the table)",
                          open=short):
            if shared:
                gr.Markdown(md(shared))
            values = len(frame.columns) - 3  # model, source, the metrics, notes: the notes take what is left
            gr.Dataframe(value=frame, interactive=False, wrap=True, datatype="str", pinned_columns=1,
                         column_widths=["260px", "80px", *["110px"] * values, "560px"],
                         elem_classes=["leaderboard-table"], elem_id=f"subset-{bench.name}-{k}")


def _submit_tab(service: Service) -> None:
    available = service.available()
    gr.Markdown("Upload a prediction file: one line per item, JSONL (as below), a JSON array of such objects, CSV "
                "(lists as a JSON array in the cell) or Parquet. It is validated at once with the same code as "
                "`python -m leaderboard validate` (whatever your quota: only queueing counts); scoring runs in the "
                "background. The report never shows answers. Per-item scores and your contact stay private.")
    if on_space():
        gr.LoginButton()
    else:
        gr.Markdown(f"Signed in locally as **{local_user()}** (set `LEADERBOARD_LOCAL_USER`).")
    with gr.Row():
        benchmark = gr.Dropdown([(registry.scorer(n).pretty_name, n) for n in available],
                                value=available[0] if available else None, label="Benchmark", elem_id="submit-benchmark")
        model_name = gr.Dropdown(model_registry.choices(), value=None, allow_custom_value=True, label="Model name",
                                 info="Pick a registered model (its facts fill in) or type a new name: a new name is "
                                      "listed for review and keeps its own row", elem_id="model-name")
        link = gr.Textbox(label="Model or paper link (https://...)", max_length=300)
        organisation = gr.Textbox(label="Organisation", max_length=120)
    with gr.Row():
        access = gr.Radio(["open", "proprietary"], label="Weights")
        domain = gr.Radio(["general", "medical"], label="Domain")
        reasoning = gr.Radio(["yes", "no", "unknown"], value="unknown", label="Reasoning mode")
        modality = gr.Radio(["multimodal", "text-only"], value="multimodal", label="Input modality")
        params = gr.Number(label="Parameters (billions)", minimum=0)
    first = registry.scorer(available[0]) if available else None
    example = gr.Textbox(value=example_line(first) if first else "", label="Example line for this benchmark",
                         lines=2, interactive=False, buttons=["copy"], elem_id="example-line")
    benchmark.change(lambda name: example_line(registry.scorer(name)) if name else "", benchmark, example,
                     api_name=False, show_progress="hidden")

    def known_model(name):
        """A registered model fills in its facts (still editable); a new name changes nothing."""
        model = model_registry.resolve(name or "")
        if model is None:
            return (gr.skip(),) * 5
        reasoning_value = {True: "yes", False: "no"}.get(model.reasoning, "unknown")
        return (model.organisation or gr.skip(), model.access or gr.skip(), model.domain or gr.skip(),
                reasoning_value, model.params_b if model.params_b is not None else gr.skip())

    model_name.input(known_model, model_name, [organisation, access, domain, reasoning, params], api_name=False,
                     show_progress="hidden")
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
                          elem_id="status", wrap=True,
                          column_widths=["150px", "90px", "120px", "80px", "75px", "420px", "120px", "120px"])

    def my_status(request: gr.Request, profile: gr.OAuthProfile | None = None):
        user = current_user(request, profile)
        rows = [[r.get("id"), _pretty(r.get("benchmark")), r["model"]["name"], r.get("state"),
                 f"{100 * float(r.get('progress') or 0):.0f}%", _status_message(service, r), r.get("created_at"),
                 r.get("updated_at")] for r in service.status_for(user or "")]
        used = service.used_today(user) if user else 0
        return pd.DataFrame(rows, columns=STATUS_COLUMNS), f"Quota today: {used}/{service.quota_per_day}"

    quota = gr.Markdown()

    def do_submit(benchmark, model_name, link, organisation, access, domain, reasoning, modality, params,
                  contamination, contact, upload, settings, request: gr.Request,
                  profile: gr.OAuthProfile | None = None):  # injected by Gradio after "Sign in with Hugging Face"
        user = current_user(request, profile)
        if upload is None:
            return "Choose a prediction file first.", "", *my_status(request, profile)
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
        return f"{verdict} {outcome.message}", outcome.report, *my_status(request, profile)

    submit.click(do_submit, [benchmark, model_name, link, organisation, access, domain, reasoning, modality, params,
                             contamination, contact, upload, settings], [message, report, status, quota],
                 api_name="submit")
    timer = gr.Timer(2.0)
    timer.tick(my_status, None, [status, quota], api_name=False, show_progress="hidden")
    gr.Button("Refresh status", size="sm").click(my_status, None, [status, quota], api_name="status")


def _pretty(name) -> str:
    return registry.scorer(name).pretty_name if name in registry.names() else str(name or "")


def _status_message(service: Service, record: dict) -> str:
    """The service's message, with the board a ranked run is on ("ranked" alone read as the paper board)."""
    message = str(record.get("message") or "")
    name = record.get("benchmark")
    if message != "ranked" or name not in registry.names():
        return message
    bench = registry.scorer(name)
    found = next((e for e in service.entries(name) if e.entry_id == record.get("id")), None)
    gap = release_gap(bench, found.result) if found else None
    if gap:
        return (f"ranked on the sample-data board ({gap}); not ranked with the paper rows: tick 'Show submissions "
                f"scored on sample data' under the {bench.pretty_name} table")
    return f"ranked on the {bench.pretty_name} board"


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


def _noise_items() -> float:
    return Settings.from_env().public_noise_items


def _registry_table() -> pd.DataFrame:
    return pd.DataFrame([{"Model": m.name, "Also written": ", ".join(m.aliases), "Organisation": m.organisation or "",
                          "Params (B)": "" if m.params_b is None else f"{m.params_b:g}", "Weights": m.access or "",
                          "Domain": m.domain or "", "Released": m.released or "", "HF repo": m.hf_repo or ""}
                         for m in model_registry.all_models()])


def _about_tab(service: Service) -> None:
    benches = list(registry.scorers().values())
    held = {b.name: held_out(b, service.data_dirs.get(b.name)) for b in benches}
    gr.Markdown(about_noise(benches, _noise_items(), held), elem_id="about-noise")
    with gr.Accordion("Model registry: one identity per model across the papers and submissions", open=False):
        gr.Markdown("Spellings from different papers resolve to one model (case, spaces and punctuation ignored, plus "
                    "the aliases listed). A submitted name outside the registry keeps its own row and is listed for "
                    "review on the Overview; it is never merged by guess. Source: `leaderboard/publishing/models.json`.")
        gr.Dataframe(value=_registry_table(), interactive=False, wrap=True, pinned_columns=1, datatype="str",
                     elem_classes=["leaderboard-table"], elem_id="registry-table")
    parts = ["## Protocol and decisions\n"]
    for bench in registry.scorers().values():
        parts.append(f"### {bench.pretty_name}\n\nPrimary metric: `{bench.primary_metric}`. Prediction fields: "
                     + ", ".join(f"`{f.name}`" for f in bench.schema.fields) + f" (plus `{bench.schema.id_field}`). "
                     f"Example line:\n\n```json\n{example_line(bench)}\n```\n")
        parts += [f"- {d}" for d in bench.decisions]
        if bench.citation:
            parts.append(f"\n```bibtex\n{bench.citation}\n```")
        parts.append("")
    parts.append("Results whose protocol is marked DIFFERS were scored differently from the paper (for example ICD-11 codes "
                 "from the offline approximate coder, or a stand-in embedder) and are not comparable with paper rows.")
    gr.Markdown("\n".join(parts))


def _sample_banner(service: Service) -> str:
    """A warning whenever a benchmark is served from a sample build (its numbers mean nothing clinically)."""
    reasons: dict[str, list[str]] = {}
    for name, folder in service.data_dirs.items():
        if Path(folder).is_dir():
            status = build_status(registry.scorer(name), folder)
            if status.sample:
                reasons.setdefault(status.reason, []).append(registry.scorer(name).pretty_name)
    if not reasons:
        return ""
    why = "; ".join(f"{', '.join(names)}: {reason}" for reason, names in reasons.items())
    return ("⚠️ **This Space serves sample data, not the benchmarks** (" + why + "). Cases are synthetic stand-ins: "
            "submissions scored here are never labelled *paper protocol* and stay off the paper rankings "
            "(tick *Show submissions scored on sample data* under a table to see them).")


def build_app(service: Service | None = None) -> gr.Blocks:
    service = service or default_service()
    # delete_cache: uploads (and any file Gradio cached) older than an hour go, checked every 10 minutes
    with gr.Blocks(title="Medical multimodal benchmark hub", delete_cache=(600, 3600)) as app:
        gr.Markdown("# Medical multimodal benchmark hub\nHard clinical cases, five benchmarks, one scorer: "
                    "paper-reported rows beside submissions scored server-side with each benchmark's own metrics.")
        banner = _sample_banner(service)
        if banner:
            gr.Markdown(banner, elem_id="sample-banner", elem_classes=["sample-banner"])
        with gr.Tabs():
            with gr.Tab("Overview", id="tab-overview"):  # the landing tab: every model across the benchmarks
                overview_tab(app, service)
            for bench in registry.scorers().values():
                with gr.Tab(bench.pretty_name, id=f"tab-{bench.name}") as tab:
                    _benchmark_tab(app, service, bench, tab, first=False)
            with gr.Tab("Compare", id="tab-compare"):
                compare_tab(app, service)
            with gr.Tab("Submit", id="tab-submit"):
                _submit_tab(service)
            with gr.Tab("About", id="tab-about"):
                _about_tab(service)
    app.service = service  # tests and main() reach the worker through the app
    threading.Thread(target=_warm_boards, args=(service,), name="warm-boards", daemon=True).start()
    return app


def _warm_boards(service: Service) -> None:
    """Build every benchmark's board in the background: start-up does not wait for ranks, the first page load
    finds them ready (or waits for the one build in progress)."""
    for bench in registry.scorers().values():
        BOARDS.get(bench, service.entries(bench.name))


def main() -> None:
    settings = Settings.from_env()
    service = default_service(settings)
    attach_hub(service, settings)  # on a Space: datasets and results from the Hub (no-op without LEADERBOARD_DATASETS)
    app = build_app(service)
    if settings.worker != "external":  # external: `python -m leaderboard worker`
        app.service.start()
    app.queue(default_concurrency_limit=4).launch(server_name=settings.server_name, server_port=settings.server_port,
                                                  show_error=False, css=CSS, max_file_size=app.service.max_bytes)


if __name__ == "__main__":
    main()

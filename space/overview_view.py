"""The Overview (landing) tab: models x benchmarks from the model registry, sorted as the visitor chooses, and
each model's profile one click away (leaderboard/publishing/profiles.py computes; this draws)."""
from __future__ import annotations

import gradio as gr

from leaderboard.publishing import models as model_registry
from leaderboard.publishing import profiles
from leaderboard.scoring import registry
from leaderboard.publishing.board import BOARDS, MAIN, SAMPLE
from leaderboard.publishing.specialties import SPECIALTIES, specialty_sources
from space.plain import md

LIVE_SECONDS = 5.0
SAMPLE_NOTE = ("**Showing submissions scored on sample data only** (each benchmark's sample board, ranked among "
               "themselves; not comparable with the paper). Untick to return to the paper boards.")


def _boards(service):
    benches = list(registry.scorers().values())
    return benches, {b.name: BOARDS.get(b, service.entries(b.name)) for b in benches}


def _intro(benches) -> str:
    metrics = "; ".join(f"**{b.pretty_name}**: {b.metric(b.primary_metric).label}" for b in benches)
    return ("Every model with a row on a benchmark's board, one row per model (spellings from different papers are "
            "one model: see the registry under *About*). A cell is the model's best row on that benchmark and, in "
            "brackets, its rank range of that board's rows (e.g. 2–8 of 23); an empty cell means no result, never 0. Benchmarks measure different "
            f"things: compare within a column. Primary metrics — {metrics}. **Click a row** to open that model's "
            "profile below.")


def _review_note(service, benches) -> str:
    names = model_registry.unknown_names(e.result for b in benches for e in service.entries(b.name))
    if not names:
        return ""
    listed = ", ".join(f"{md(n)} ({registry.scorer(b).pretty_name})" for n, b in names[:50])
    return (f"**Names not in the model registry ({len(names)})**, each kept on its own row until reviewed (never "
            f"merged by guess): {listed}{' …' if len(names) > 50 else ''}")


def _header(model: model_registry.Model | None, model_id: str, board: str) -> str:
    if model is None:
        return "Choose a model."
    facts = [f"**{md(model.name)}**"]
    if not model.known:
        facts.append("not in the model registry (listed for review)")
    for label, value in (("organisation", model.organisation), ("parameters", f"{model.params_b:g} B"
                         if model.params_b is not None else None), ("weights", model.access),
                         ("domain", model.domain), ("reasoning", {True: "yes", False: "no"}.get(model.reasoning)),
                         ("released", model.released)):
        if value:
            facts.append(f"{label}: {md(value)}")
    if model.hf_repo:  # registry data (reviewed), not submitted text
        facts.append(f"[huggingface.co/{model.hf_repo}](https://huggingface.co/{model.hf_repo})")
    if model.aliases:
        facts.append("also written " + ", ".join(md(a) for a in model.aliases))
    where = "" if board == MAIN else "\n\n" + SAMPLE_NOTE
    return " · ".join(facts) + where


def _model(service, model_id: str | None):
    if not model_id:
        return None
    found = model_registry.get(model_id)
    if found is not None:
        return found
    benches, boards = _boards(service)
    for board in (MAIN, SAMPLE):
        hit = profiles.placings(benches, boards, board).get(model_id)
        if hit:
            return hit[0]
    return None


def overview_tab(app: gr.Blocks, service) -> None:
    benches = list(registry.scorers().values())
    gr.Markdown(_intro(benches), elem_id="overview-intro")
    sort = gr.Dropdown(profiles.sort_choices(benches), value=profiles.SORTS[0], label="Sort by",
                       elem_id="overview-sort")
    show_sample = gr.Checkbox(False, label="Show submissions scored on sample data (instead of the paper boards)",
                              elem_id="overview-show-sample")
    note = gr.Markdown("", elem_id="overview-note")
    # widths in px that fit 1440 px (1,195 px); a phone scrolls sideways behind the pinned model column
    table = gr.Dataframe(interactive=False, pinned_columns=1, wrap=True, elem_id="overview", max_height=640,
                         elem_classes=["leaderboard-table", "overview-table"], label="Models × benchmarks",
                         column_widths=["165px", "115px", "60px", "110px", "75px", "95px", *["115px"] * len(benches)])
    review = gr.Markdown("", elem_id="overview-review")
    ids = gr.State({})  # shown label -> model id, for row clicks
    gr.Markdown("## Model profile", elem_id="profile-title")
    with gr.Row():
        picker = gr.Dropdown([], label="Model (models on most benchmarks first)", elem_id="profile-model",
                             min_width=300)
    header = gr.Markdown("", elem_id="profile-header")
    per_benchmark = gr.Dataframe(interactive=False, wrap=True, elem_id="profile-benchmarks",
                                 elem_classes=["leaderboard-table"], label="Primary metric on each benchmark")
    gr.Markdown("**Specialty profile.** One clinical-specialty list across the benchmarks (each benchmark's own "
                "categories mapped onto it): " + specialty_sources() + ". Each column keeps its benchmark's own metric and "
                "scale: read down a column, not across. Only the paper's published cells and scored submissions "
                f"appear; a blank is a gap, never 0. Specialties: {', '.join(SPECIALTIES)}.",
                elem_id="profile-about")
    by_specialty = gr.Dataframe(interactive=False, wrap=True, elem_id="profile-specialties",
                                elem_classes=["leaderboard-table"], label="By specialty")
    notes = gr.Markdown("", elem_id="profile-notes")
    drawn = gr.State(None)

    def board_of(sample) -> str:
        return SAMPLE if sample else MAIN

    def draw_table(sort_by, sample):
        benches, boards = _boards(service)
        board = board_of(sample)
        payload, types, shown = profiles.overview(benches, boards, sort_by, board)
        if not payload["data"]:
            empty = "No submission was scored on sample data." if sample else "No results yet."
            return gr.update(value=None, label=empty), SAMPLE_NOTE if sample else "", shown
        return (gr.update(value=payload, datatype=types, label="Models × benchmarks"),
                SAMPLE_NOTE if sample else "", shown)

    def draw_profile(model_id, sample):
        benches, boards = _boards(service)
        board = board_of(sample)
        choices = profiles.profile_candidates(benches, boards, board)
        known = {c for _, c in choices}
        model_id = model_id if model_id in known else (choices[0][1] if choices else None)
        if model_id is None:
            return (gr.update(choices=[], value=None), "No model has a row here yet.",
                    gr.update(value=None), gr.update(value=None), "")
        model = _model(service, model_id)
        table = profiles.benchmark_table(model_id, benches, boards, board)
        specialties, lines = profiles.specialty_table(model_id, benches, boards, board)
        text = ("Sources: " + " ".join(md(n) for n in lines)) if lines else ""
        if specialties.empty:
            text = ("No per-specialty values for this model yet: the papers publish per-specialty numbers for few "
                    "models, and submissions scored here get them. " + text)
        return (gr.update(choices=choices, value=model_id), _header(model, model_id, board), table,
                gr.update(value=specialties if not specialties.empty else None), text)

    def everything(sort_by, sample, model_id, last):
        """The table when the boards, the sort or the board choice changed; the profile only when the boards or
        the board choice did (a timer reply carries the picker's value from when it was sent: redrawing the
        profile on a sort change would put back the model the reader just clicked away from)."""
        benches, boards = _boards(service)
        serials = tuple(b.serial for b in boards.values())
        table_token, profile_token = (serials, sort_by, bool(sample)), (serials, bool(sample))
        last_table, last_profile = last if isinstance(last, tuple) and len(last) == 2 else (None, None)
        table_part = draw_table(sort_by, sample) if table_token != last_table else (gr.skip(),) * 3
        profile_part = draw_profile(model_id, sample) if profile_token != last_profile else (gr.skip(),) * 5
        return (*table_part, *profile_part, (table_token, profile_token))

    def clicked(shown, sample, evt: gr.SelectData):
        row = evt.row_value or []
        model_id = shown.get(row[0]) if row else None
        return draw_profile(model_id, sample) if model_id else tuple(gr.skip() for _ in range(5))

    table_out = [table, note, ids]
    profile_out = [picker, header, per_benchmark, by_specialty, notes]
    sort.input(draw_table, [sort, show_sample], table_out, api_name=False, show_progress="hidden")
    show_sample.input(lambda s, sample, m: (*draw_table(s, sample), *draw_profile(m, sample)),
                      [sort, show_sample, picker], [*table_out, *profile_out], api_name=False,
                      show_progress="hidden")
    picker.input(draw_profile, [picker, show_sample], profile_out, api_name=False, show_progress="hidden")
    table.select(clicked, [ids, show_sample], profile_out, api_name=False, show_progress="hidden")
    app.load(everything, [sort, show_sample, picker, drawn], [*table_out, *profile_out, drawn], api_name=False,
             show_progress="hidden")
    gr.Timer(LIVE_SECONDS).tick(everything, [sort, show_sample, picker, drawn], [*table_out, *profile_out, drawn],
                                api_name=False, show_progress="hidden")
    review_load = lambda: _review_note(service, benches)  # noqa: E731
    app.load(review_load, None, review, api_name=False, show_progress="hidden")

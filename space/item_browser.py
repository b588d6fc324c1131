"""The Items sub-tab of a benchmark: the public columns of the built dataset, ten cases a page, with their
images, filtered by a stratum value. Held-out answer columns are never read (see `withheld_columns`)."""
from __future__ import annotations

import html
import threading

import gradio as gr

from leaderboard.scoring import registry
from leaderboard.publishing.items import (ALL, NOISE_SUFFIXES, OPTION_FIELDS, ItemSource, is_internal, split_row, thumbnail_data_url)

PAGE_SIZE = 10
TEXT_LIMIT = 1500  # characters of one field shown
_sources: dict[str, tuple[object, ItemSource]] = {}
_lock = threading.Lock()

SHORT = 80  # characters: a field this short goes into the card's summary line
STYLE = """<style>
.ib-card{font-family:"Source Sans Pro","Noto Sans","Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif;
  border:1px solid #d6d6d6;border-radius:8px;padding:12px 16px;margin:0 0 14px;background:#fff}
.ib-card h4{margin:0 0 6px;font-size:15px}
.ib-meta{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12.5px;color:#444;margin:0 0 10px}
.ib-meta b{color:#666;font-weight:600}
.ib-body{display:flex;gap:18px;align-items:flex-start}
.ib-imgs{display:flex;flex-wrap:wrap;gap:8px;flex:0 0 auto;max-width:45%}
.ib-imgs figure{margin:0}
.ib-imgs img{height:170px;width:auto;max-width:340px;object-fit:contain;border:1px solid #ccc;border-radius:4px;
  display:block;background:#111}
.ib-imgs figcaption{font-size:11px;color:#777;max-width:240px}
.ib-text{flex:1 1 auto;font-size:13.5px;line-height:1.45;min-width:0}
.ib-text p{margin:0 0 8px;white-space:pre-wrap;word-break:break-word}
.ib-text b{display:block;color:#555;font-size:12px;text-transform:uppercase;letter-spacing:.03em}
</style>"""


def withheld_columns(name: str) -> set[str]:
    """Answer columns the builder holds out (the adapter's list) and the ones the scorer scores against."""
    hidden = set(registry.scorer(name).answer_columns)
    if registry.get(name).has("adapter"):  # a folder without a builder has only the scorer's list
        hidden |= set(registry.adapter(name).answer_columns)
    return hidden


def _source(service, bench) -> ItemSource | None:
    folder = service.data_dirs.get(bench.name)
    if folder is None or not folder.is_dir():
        return None
    stamp = tuple(sorted((p.name, p.stat().st_mtime_ns) for p in folder.rglob("*.parquet")))
    with _lock:
        cached = _sources.get(bench.name)
        if cached and cached[0] == stamp:
            return cached[1]
    columns = tuple(dict.fromkeys((*bench.strata_columns, *bench.stratum_labels)))
    source = ItemSource(folder, withheld_columns(bench.name), columns)
    with _lock:
        _sources[bench.name] = (stamp, source)
    return source


def _label(path: str) -> str:
    parts = [p.replace("_", " ") for p in path.replace("[", " ").replace("]", "").split(".")]
    return " › ".join(parts)[:1].upper() + " › ".join(parts)[1:]


def render(bench, config: str, page, column: str | None, value: str | None) -> str:
    """HTML cards: one per item; short fields in a summary line, images beside the long texts."""
    cards = []
    start = page.page * PAGE_SIZE
    for k, row in enumerate(page.rows, start + 1):
        fields, images = split_row(row)
        item_id = str(row.get(bench.id_column) or row.get("id") or k)
        figures = []
        for data, where in images[:12]:
            url = thumbnail_data_url(data)
            if url:
                figures.append(f'<figure><img src="{url}" alt="{html.escape(where)} of {html.escape(item_id)}">'
                               f"<figcaption>{html.escape(_label(where))}</figcaption></figure>")
        if len(images) > 12:
            figures.append(f"<p><i>{len(images) - 12} more image(s) not shown</i></p>")
        meta, text = [], []
        groups: dict[str, list[tuple[str, str]]] = {}
        for path, shown in fields:
            if path in (bench.id_column, "id") or is_internal(path):
                continue
            top, _, rest = path.partition(".") if "[" not in path.split(".")[0] else path.partition("]")
            if rest:  # a nested field: shown with its siblings (one turn, one sub-question, one section)
                if path.endswith(NOISE_SUFFIXES):
                    continue
                group = top + ("]" if "[" in top else "")
                if group not in groups:
                    text.append(group)  # a placeholder: the group is drawn where the dataset puts it
                groups.setdefault(group, []).append((rest.lstrip("."), shown))
                continue
            shown = bench.value_label(path, shown)
            label = f'<b title="{html.escape(path)}">{html.escape(_label(path))}</b>'
            if len(shown) <= SHORT and "\n" not in shown:
                meta.append(f"<span>{label} {html.escape(shown)}</span>")
            else:
                text.append(f"<p>{label}{html.escape(_cut(shown))}</p>")
        for group, parts in groups.items():  # short sub-fields on one line, long ones on their own
            own_line = lambda sub, value: len(value) > 40 or "\n" in value or sub in OPTION_FIELDS  # noqa: E731
            short = " · ".join(f"<i>{html.escape(_label(sub))}:</i> {html.escape(value)}" for sub, value in parts
                               if not own_line(sub, value))
            # the question before its lettered options, whatever the dataset's column order
            long = [f"<i>{html.escape(_label(sub))}:</i> {html.escape(_cut(value))}" for sub, value in
                    sorted(parts, key=lambda part: part[0] in OPTION_FIELDS) if own_line(sub, value)]
            lines = "<br>".join(([short] if short else []) + long)
            text[text.index(group)] = f'<p><b title="{html.escape(group)}">{html.escape(_label(group))}</b>{lines}</p>'
        cards.append(f'<div class="ib-card" data-item-id="{html.escape(item_id)}"><h4>{k}. {html.escape(item_id)}</h4>'
                     f'<div class="ib-meta">{"".join(meta)}</div><div class="ib-body">'
                     f'<div class="ib-imgs">{"".join(figures)}</div><div class="ib-text">{"".join(text)}</div></div></div>')
    if not cards:
        cards.append("<p>No item matches this filter.</p>")
    return STYLE + "".join(cards)


def _cut(text: str) -> str:
    return text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT] + " …"


def _status(page, column, value, bench) -> str:
    if page.total == 0:
        return "No items."
    first, last = page.page * PAGE_SIZE + 1, page.page * PAGE_SIZE + len(page.rows)
    where = "" if not column or value in (None, ALL) else \
        f" with {bench.stratum_label(column).lower()} = **{bench.value_label(column, value)}**"
    return f"Items {first}–{last} of {page.total:,}{where} (page {page.page + 1} of {page.pages})."


def _filter_choices(bench, source, config):
    filters = source.filters(config)
    return filters, [(bench.stratum_label(c), c) for c in filters]


def item_browser_tab(service, bench, tab: gr.Tab) -> None:
    """The sub-tab's components and events; call inside `tab`."""
    name = bench.name
    gr.Markdown("The cases as the models see them: every public field and image of the built dataset, ten a page. "
                "Answers and anything the scorer grades against are held out and never shown here.")
    with gr.Row():
        config = gr.Dropdown(label="Part of the dataset", elem_id=f"ib-config-{name}", min_width=160)
        column = gr.Dropdown(label="Filter by", elem_id=f"ib-column-{name}", min_width=160)
        value = gr.Dropdown(label="Value", elem_id=f"ib-value-{name}", min_width=200)
    with gr.Row():
        previous = gr.Button("← Previous", size="sm", elem_id=f"ib-prev-{name}")
        status = gr.Markdown(elem_id=f"ib-status-{name}")
        following = gr.Button("Next →", size="sm", elem_id=f"ib-next-{name}")
    cards = gr.HTML(elem_id=f"items-{name}")
    page_no = gr.State(0)
    outputs = [config, column, value, status, cards, page_no]

    def show(config_name, column_name, value_name, page):
        source = _source(service, bench)
        if source is None or not source.files:
            return (gr.update(choices=[], value=None), gr.update(choices=[], value=None),
                    gr.update(choices=[], value=None), "No dataset is built for this benchmark here "
                    "(`python -m dataset_builders build ...`).", "", 0)
        configs = source.configs
        config_name = config_name if config_name in configs else configs[0]
        filters, columns = _filter_choices(bench, source, config_name)
        column_name = column_name if column_name in filters else None
        values = [(ALL, ALL)] + ([(f"{bench.value_label(column_name, v)} ({n})", v) for v, n in filters[column_name]]
                                 if column_name else [])
        value_name = value_name if value_name in {v for _, v in values} else ALL
        page = source.page(config_name, int(page or 0), PAGE_SIZE, column_name, value_name)
        return (gr.update(choices=configs, value=config_name, visible=len(configs) > 1),
                gr.update(choices=[("(none)", "")] + columns, value=column_name or ""),
                gr.update(choices=values, value=value_name), _status(page, column_name, value_name, bench),
                render(bench, config_name, page, column_name, value_name), page.page)

    config.input(lambda c: show(c, None, None, 0), [config], outputs, api_name=False)
    column.input(lambda c, col: show(c, col, None, 0), [config, column], outputs, api_name=False)
    value.input(lambda c, col, v: show(c, col, v, 0), [config, column, value], outputs, api_name=False)
    previous.click(lambda c, col, v, p: show(c, col, v, (p or 0) - 1), [config, column, value, page_no], outputs,
                   api_name=False)
    following.click(lambda c, col, v, p: show(c, col, v, (p or 0) + 1), [config, column, value, page_no], outputs,
                    api_name=False)
    # drawn when the sub-tab is opened: the images are not sent with every page load
    tab.select(show, [config, column, value, page_no], outputs, api_name=False, show_progress="hidden")

"""The Breakdown and Items sub-tabs in headless Chromium against the real Space, every sample built, one scored
MedReaMM submission (its small cells are suppressed). Saves full-page 1440x900 screenshots of both sub-tabs of
every benchmark to artifacts/screenshots/."""
import time

import pytest

from conftest import ROOT
from leaderboard.scoring import registry
from space_server import choose, space_with_sample_run

ARTIFACTS = ROOT / "artifacts" / "screenshots"
EXAMPLE = ROOT / "submissions" / "medreamm" / "example_predictions.jsonl"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# benchmark -> (a paper row, a stratum value id, its published value) in the default view
PAPER_CELLS = {"medreamm": ("Gemini-2.5-Flash · paper", "Rare disease", 55.8),
               "clinmm": ("All 15 models, pooled · paper figure", "Nephrology", 0.808),
               "medcmr": ("GPT-5 · paper", "Small-Object<br>Detection", 66.08),
               "xpcr": ("GPT-5 · paper", "1. Image<br>Quality<br>Assessment", 98.9)}


@pytest.fixture(scope="module")
def space(tmp_path_factory):
    root = tmp_path_factory.mktemp("space")
    server = space_with_sample_run(root, "medreamm", "Sample-Run", EXAMPLE, wait=90)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(space, browser):
    """A fresh page per test: pickers a test changed never leak into the next one (tests run in random order)."""
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.set_default_timeout(60_000)
    page.goto(space.url, wait_until="load")
    yield page
    page.close()


def open_sub_tab(page, bench, sub):
    page.get_by_role("tab", name=bench.pretty_name, exact=True).click()
    page.locator("button[role=tab]:visible", has_text=sub).click()


def plot_data(page, element, showing: str | None = None):
    """The drawn traces as plain lists (plotly.js may hold numbers as typed arrays; NaN/null -> None). Waits for the
    plot to be drawn (a redraw replaces the element: read mid-redraw it has no data) and, with `showing`, for a
    trace whose y labels hold that row (not the plot of the view before)."""
    page.wait_for_function("""([id, row]) => {
        const plot = document.querySelector('#' + id + ' .js-plotly-plot');
        return !!(plot && plot.data && (!row || plot.data.some((t) => t.y && Array.from(t.y).includes(row))));
    }""", arg=[element, showing])
    return page.evaluate("""(id) => {
        const plain = (v) => (v === null || v === undefined) ? [] : Array.from(v, (x) =>
            (x !== null && typeof x === 'object' && !(typeof x === 'string')) ? plain(x)
            : (typeof x === 'number' && isNaN(x)) ? null : x);
        return document.querySelector('#' + id + ' .js-plotly-plot').data.map((t) => ({
            name: t.name, x: plain(t.x), y: plain(t.y), z: plain(t.z), text: plain(t.text), r: plain(t.r)}));
    }""", element)


def test_heatmap_shows_each_papers_published_breakdown_on_first_load(page):
    for name in registry.names():
        bench = registry.scorer(name)
        open_sub_tab(page, bench, "Breakdown")
        note = page.locator(f"#bd-note-{name}")
        note.wait_for()
        if name in PAPER_CELLS:
            page.locator(f"#heatmap-{name} .main-svg").first.wait_for()
            time.sleep(0.5)  # the load event may redraw once
            traces = plot_data(page, f"heatmap-{name}")
            values = traces[-1]  # the value layer (gap layers come first)
            row, column, number = PAPER_CELLS[name]
            assert values["z"][values["y"].index(row)][values["x"].index(column)] == number
        else:  # a paper that prints no per-stratum numbers says so instead of showing an empty chart
            assert "only as figures" in note.inner_text()
            assert not page.locator(f"#heatmap-{name} .js-plotly-plot").is_visible()
        note.scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"breakdown-{name}.png"), full_page=True)


def test_a_suppressed_cell_is_a_gap_not_zero_in_heatmap_and_radar(page):
    bench = registry.scorer("medreamm")
    open_sub_tab(page, bench, "Breakdown")
    page.locator("#show-sample-medreamm input").check()  # the sample run is on its own board, shown when asked
    page.locator("#bd-note-medreamm").get_by_text("1 row").wait_for()
    choose(page, "bd-stratum-medreamm", "Disease category")
    page.locator("#bd-note-medreamm").get_by_text("hidden").first.wait_for()
    traces = plot_data(page, "heatmap-medreamm", showing="Sample-Run · submitted")
    values, hidden = traces[-1], next(t for t in traces if t["name"] == "hidden (n < 5)")
    row = values["y"].index("Sample-Run · submitted")
    assert values["z"][row] and all(v is None for v in values["z"][row])  # every category has n < 5
    assert all(v == 1 for v in hidden["z"][row]) and "hidden" in hidden["text"][row]
    page.locator("#radar-medreamm .main-svg").first.wait_for()
    radar = plot_data(page, "radar-medreamm")
    assert all(0 not in (t.get("r") or []) for t in radar)  # nothing drawn at the centre for a hidden cell
    page.screenshot(path=str(ARTIFACTS / "breakdown-medreamm-suppressed.png"), full_page=True)


def test_item_browser_shows_images_pages_filters_and_no_answers(page):
    for name in registry.names():
        bench = registry.scorer(name)
        open_sub_tab(page, bench, "Items")
        cards = page.locator(f"#items-{name} .ib-card")
        cards.first.wait_for()
        assert page.locator(f"#items-{name} img").count() >= 1
        page.screenshot(path=str(ARTIFACTS / f"items-{name}.png"), full_page=True)
    open_sub_tab(page, registry.scorer("medcmr"), "Items")
    status = page.locator("#ib-status-medcmr")
    status.get_by_text("Items 1–10 of 21").wait_for()
    first = page.locator("#items-medcmr .ib-card").first.get_attribute("data-item-id")
    page.locator("#ib-next-medcmr").click()
    status.get_by_text("Items 11–20 of 21").wait_for()
    assert page.locator("#items-medcmr .ib-card").first.get_attribute("data-item-id") != first
    choose(page, "ib-column-medcmr", "Task")
    choose(page, "ib-value-medcmr", "Small-Object Detection (3)")
    status.get_by_text("Items 1–3 of 3 with task = Small-Object Detection").wait_for()
    html = page.locator("#items-medcmr").inner_html()
    assert html.count('class="ib-card"') == 3 and "Visual description" not in html and ">Answer<" not in html

"""The landing tab and the sample split in headless Chromium against the real Space: every sample built, one
X-PCR run scored on sample data (issue 28: it once sat 4th among the paper rows of the breakdown). The Overview
is the first tab; the run stays off the Overview, the breakdown heatmap, the radar picker, Compare and the model
profile until the visitor asks for sample data, and then appears alone. Full-page screenshots of the Overview at
1440x900 and 390x844 go to artifacts/screenshots/."""
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from conftest import ROOT
from space_server import choose, space_with_sample_run
from test_space_breakdown_e2e import browser, plot_data  # noqa: F401 (browser: a shared fixture)

ARTIFACTS = ROOT / "artifacts" / "screenshots"
EXAMPLE = ROOT / "submissions" / "xpcr" / "example_predictions.jsonl"
RUN = "Sample-Run-XPCR"


@pytest.fixture(scope="module")
def space(tmp_path_factory):
    server = space_with_sample_run(tmp_path_factory.mktemp("space"), "xpcr", RUN, EXAMPLE)
    yield server
    server.stop()


def expect(locator):
    from playwright.sync_api import expect as playwright_expect

    # the page's own 60 s, not Playwright's 5 s: on a loaded 2-core machine a profile's table can redraw seconds
    # after its header (one CI run saw the old model's table at 5 s)
    playwright_expect.set_options(timeout=60_000)
    return playwright_expect(locator)


def new_page(browser, url, width=1440, height=900):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(60_000)
    page.goto(url, wait_until="load")
    return page


def rows(page, element):
    return page.locator(f"#{element} [role=row]")  # the drawn rows (the frame draws those in view)


def test_overview_is_the_landing_tab_and_keeps_sample_runs_apart(space, browser):
    page = new_page(browser, space.url)
    try:
        assert page.locator("button[role=tab][aria-selected=true]").first.inner_text().strip() == "Overview"
        rows(page, "overview").filter(has_text="Gemini-2.5-Pro").first.wait_for()
        assert rows(page, "overview").filter(has_text=RUN).count() == 0
        # one row per model: the papers' three spellings of MedGemma 27B are one row, on all four benchmarks
        choose(page, "overview-sort", "Benchmarks covered (most first)")
        first = rows(page, "overview").nth(1)  # row 0 is the header
        first.get_by_text("MedGemma-27B", exact=True).wait_for()
        assert "\n4\n" in "\n" + first.inner_text().replace("\t", "\n") + "\n"
        page.locator("#profile-header").get_by_text("MedGemma-27B").first.wait_for()  # the default profile
        page.screenshot(path=str(ARTIFACTS / "overview-1440.png"), full_page=True)
        # a click on a row opens that model's profile
        for attempt in range(4):  # a click that lands while the table redraws (sort, live timer) selects nothing
            rows(page, "overview").filter(has_text="Gemini-2.5-Pro").first.get_by_text("Gemini-2.5-Pro").click()
            try:
                page.locator("#profile-header").get_by_text("Gemini-2.5-Pro").first.wait_for(timeout=20_000)
                break
            except PlaywrightTimeout:
                if attempt == 3:
                    raise
        expect(page.locator("#profile-benchmarks")).to_contain_text("49.87")  # its Med-CMR MCQ accuracy
        page.locator("#overview-show-sample input").check()
        rows(page, "overview").filter(has_text=RUN).first.wait_for()
        assert rows(page, "overview").filter(has_text="Gemini-2.5-Pro").count() == 0  # alone, never beside
        page.locator("#overview-note").get_by_text("sample data only").wait_for()
    finally:
        page.close()


def test_breakdown_radar_and_compare_follow_the_sample_toggle(space, browser):
    page = new_page(browser, space.url)
    try:
        page.get_by_role("tab", name="X-PCR", exact=True).click()
        page.locator("button[role=tab]:visible", has_text="Breakdown").click()
        page.locator("#heatmap-xpcr .main-svg").first.wait_for()
        time.sleep(0.5)  # the select event may redraw once
        labels = plot_data(page, "heatmap-xpcr")[-1]["y"]
        assert "GPT-5 · paper" in labels and not any(RUN in label for label in labels)
        picker = page.locator("#bd-models-xpcr").inner_text() + page.locator("#bd-models-xpcr input").input_value()
        assert RUN not in picker
        page.locator("#show-sample-xpcr input").check()
        page.locator("#bd-note-xpcr").get_by_text("1 row").first.wait_for()
        labels = plot_data(page, "heatmap-xpcr")[-1]["y"]
        assert labels == [f"{RUN} · submitted"]  # the sample board alone
        page.get_by_role("tab", name="Compare").click()
        page.locator("#compare-benchmark input").click()
        page.locator("#compare-benchmark input").fill("X-PCR")
        page.get_by_role("option", name="X-PCR", exact=True).click()
        page.locator("#compare-verdict").get_by_text("0 submission(s)").wait_for()
        page.locator("#compare-show-sample input").check()
        page.locator("#compare-verdict").get_by_text("1 submission(s)").wait_for()
        assert RUN in page.locator("#compare-a input").input_value()
    finally:
        page.close()


def test_phone_overview_scrolls_and_breakdown_is_a_list(space, browser):
    page = new_page(browser, space.url, 390, 844)
    try:
        rows(page, "overview").filter(has_text="Gemini-2.5-Pro").first.wait_for()
        page.screenshot(path=str(ARTIFACTS / "overview-390.png"), full_page=True)
        page.locator("button[aria-label='More tabs']").first.click()
        page.locator(".overflow-dropdown button", has_text="X-PCR").first.click()
        page.locator("button[role=tab]:visible", has_text="Breakdown").click()
        listing = page.locator("#bd-list-xpcr")
        listing.get_by_text("GPT-5 · paper").first.wait_for()
        assert not page.locator("#heatmap-xpcr").is_visible()  # the list replaces the heatmap on a phone
        page.screenshot(path=str(ARTIFACTS / "breakdown-xpcr-390.png"), full_page=True)
    finally:
        page.close()

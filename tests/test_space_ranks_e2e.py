"""The Space as a researcher reads it (headless Chromium, 1440x900): one rank rule, sample data kept apart,
live rows, and a Submit tab that helps. Screenshots go to artifacts/screenshots/."""
import time
from pathlib import Path

import pytest

from conftest import ROOT
from leaderboard.scoring import registry
from dataset_builders.stage import build
from space_server import SpaceServer

pytestmark = pytest.mark.browser
ARTIFACTS = ROOT / "artifacts" / "screenshots"
EXAMPLE = ROOT / "submissions" / "medreamm" / "example_predictions.jsonl"
MEDCMR_EXAMPLE = ROOT / "submissions" / "medcmr" / "example_predictions.jsonl"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def space(tmp_path_factory):
    root = tmp_path_factory.mktemp("space-ranks")
    for name in ("medreamm", "medcmr"):
        build(registry.adapter(name), ROOT / "benchmarks" / name / "sample", root / "hub", sample=True, progress=False)
    server = SpaceServer(root / "hub", root / "store", root / "space.log")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def page(space):
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.set_default_timeout(60_000)  # a loaded 2-core machine can be slow
        page.goto(space.url, wait_until="load")
        yield page
        browser.close()


def row_of(page, table: str, model: str):
    return page.locator(f"#{table} [role=row]").filter(has_text=model).first


def cells(row) -> list[str]:
    return [c.strip() for c in row.locator("[role=gridcell]").all_inner_texts()]


def test_banner_equal_paper_scores_and_filters_that_keep_the_rank(page):
    page.locator("#sample-banner").get_by_text("This Space serves sample data").wait_for()
    page.get_by_role("tab", name="MedReaMM").click()
    nano = row_of(page, "table-medreamm", "GPT-4.1-nano")
    nano.wait_for()
    # 37.6 twice in the paper (GPT-4.1-nano, Qwen2.5-VL-32B): one shared rank range, CI inline
    assert cells(nano)[0] == "10–19" and cells(row_of(page, "table-medreamm", "Qwen2.5-VL-32B"))[0] == "10–19"
    assert "37.6 [33.9, 41.5]" in cells(nano)
    page.screenshot(path=str(ARTIFACTS / "ranks-01-medreamm.png"), full_page=True)
    page.locator("#search-medreamm textarea, #search-medreamm input").first.fill("Qwen2.5-VL-32B")
    page.locator("#search-medreamm textarea, #search-medreamm input").first.press("Enter")
    page.locator("#table-medreamm [role=row]").filter(has_text="GPT-4.1-nano").wait_for(state="detached")
    only = row_of(page, "table-medreamm", "Qwen2.5-VL-32B")
    assert cells(only)[0] == "10–19"  # the whole board's rank, not 1
    page.screenshot(path=str(ARTIFACTS / "ranks-02-search-keeps-rank.png"), full_page=True)
    page.locator("#search-medreamm textarea, #search-medreamm input").first.fill("")
    page.locator("#search-medreamm textarea, #search-medreamm input").first.press("Enter")
    row_of(page, "table-medreamm", "Gemini-2.5-Pro").wait_for()


def test_sample_submission_appears_live_on_its_own_board_never_as_paper_protocol(space, page):
    from gradio_client import Client, handle_file

    page.get_by_role("tab", name="MedReaMM").click()
    page.locator("#show-sample-medreamm input").check()
    page.locator("#sample-table-medreamm").get_by_text("No submission was scored on sample data").wait_for()
    client = Client(space.url, verbose=False)
    message = client.predict("medreamm", "Sample-Model", "https://example.org", "Lab", "open", "medical", "no",
                             "multimodal", 7, "", "", handle_file(str(EXAMPLE)), None, api_name="/submit")[0]
    assert message.startswith("**Accepted.**"), message
    ours = row_of(page, "sample-table-medreamm", "Sample-Model")
    ours.wait_for(timeout=90_000)  # no reload, no click: the page's timer draws the new row
    shown = cells(ours)
    assert shown[0] == "1" and "sample data" in shown and "paper protocol" not in shown
    assert page.locator("#table-medreamm [role=row]").filter(has_text="Sample-Model").count() == 0  # not among paper rows
    assert page.locator("#sample-table-medreamm").get_by_text("paper protocol").count() == 0
    # the breakdown below follows live too: the sample board's one record, not "no record yet"
    page.locator("#bd-note-medreamm").get_by_text("(1 row;").wait_for()
    page.screenshot(path=str(ARTIFACTS / "ranks-03-sample-board.png"), full_page=True)
    page.get_by_role("tab", name="Overview").click()
    page.locator("#overview [role=row]").filter(has_text="Gemini-2.5-Pro").first.wait_for()
    assert page.locator("#overview [role=row]").filter(has_text="Sample-Model").count() == 0
    page.screenshot(path=str(ARTIFACTS / "ranks-04-overview.png"), full_page=True)
    # Compare on first load: one submission on public answers, so the tab says why there is nothing to compare
    page.reload(wait_until="load")
    page.get_by_role("tab", name="Compare").click()
    # the sample run is not offered beside paper-board submissions; ticking the sample board shows it alone
    page.locator("#compare-verdict").get_by_text("0 submission(s) scored here on public answers").wait_for()
    assert "Sample-Model" not in page.locator("#compare-a").inner_text() + page.locator("#compare-a input").input_value()
    page.locator("#compare-show-sample input").check()
    page.locator("#compare-verdict").get_by_text("1 submission(s) scored here on public answers on the sample-data "
                                                 "board").wait_for()
    assert "Sample-Model" in page.locator("#compare-a").inner_text() + page.locator("#compare-a input").input_value()
    page.screenshot(path=str(ARTIFACTS / "ranks-07-compare-one-submission.png"), full_page=True)


def test_submit_tab_example_did_you_mean_and_wrong_benchmark(page, tmp_path):
    page.get_by_role("tab", name="Submit").click()
    example = page.locator("#example-line textarea").input_value()
    assert example.startswith('{"id": "S0001", "diagnoses": [')
    near = tmp_path / "near.jsonl"
    near.write_text('{"id": "S001", "diagnoses": ["Cholera"]}\n')
    page.get_by_label("Model name").fill("Near-Ids")
    page.locator("#upload input[type=file]").set_input_files(str(near))
    page.locator("#submit").click()
    page.locator("#submit-message").get_by_text("nothing was queued").wait_for(timeout=30_000)
    report = page.locator("#validation-report textarea").input_value()
    assert "unknown id 'S001' (did you mean 'S0001'?)" in report
    page.screenshot(path=str(ARTIFACTS / "ranks-05-submit-did-you-mean.png"), full_page=True)
    page.locator("#upload button[aria-label='Clear']").first.click()
    page.locator("#upload input[type=file]").set_input_files(str(MEDCMR_EXAMPLE))
    page.locator("#submit").click()
    page.locator("#submit-message").get_by_text("This looks like a Med-CMR file").wait_for(timeout=30_000)
    page.screenshot(path=str(ARTIFACTS / "ranks-06-submit-wrong-benchmark.png"), full_page=True)

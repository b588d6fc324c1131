"""The Space as users meet it: through gradio_client (the API) and in headless Chromium (the page)."""
import json
import time
from pathlib import Path

import pytest
from gradio_client import Client, handle_file

from conftest import ROOT, SAMPLE_MEDREAMM
from leaderboard.scoring import registry
from dataset_builders.stage import build
from space_server import SpaceServer, choose

ARTIFACTS = ROOT / "artifacts" / "screenshots"
EXAMPLE = ROOT / "submissions" / "medreamm" / "example_predictions.jsonl"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def space(tmp_path_factory):
    root = tmp_path_factory.mktemp("space")
    build(registry.adapter("medreamm"), SAMPLE_MEDREAMM, root / "hub", sample=True, progress=False)
    server = SpaceServer(root / "hub", root / "store", root / "space.log")
    yield server
    server.stop()


def form(model, path, settings=None):
    return ("medreamm", model, "https://example.org/model", "Test Lab", "open", "medical", "no", "multimodal", 7,
            "No overlap known.", "private@example.org", handle_file(str(path)),
            handle_file(str(settings)) if settings else None)


TOP5 = registry.scorer("medreamm").metric("top5_primary_icd").label  # headers are metric labels


def table(client, search="", sample=False):
    """Rows of the main board (paper rows and full-release submissions) or of the sample-data board."""
    filters = ("any", "any", "any", "any", "any", ["paper", "submission", "human"], False, search,
               ["top5_primary_icd", "mrr_icd"])
    if sample:
        data = client.predict(True, *filters, api_name="/sample_table_medreamm")
    else:
        data = client.predict(*filters, api_name="/table_medreamm")[0]
    data = data.get("value", data) if isinstance(data, dict) else data  # an update carries the table in "value"
    return [dict(zip(data["headers"], row)) for row in data["data"]] if data and data.get("data") else []


@pytest.fixture(scope="module")
def submitted(space):
    """One valid submission, scored: the API test checks it and the page shows its breakdown, in any test order."""
    client = Client(space.url, verbose=False)
    message, report, status, quota = client.predict(*form("E2E-Model", EXAMPLE), api_name="/submit")
    deadline = time.monotonic() + 60
    states = {}
    while message.startswith("**Accepted.**") and time.monotonic() < deadline:
        status, _ = client.predict(api_name="/status")
        states = {row[2]: row[3] for row in status["data"]}
        if states.get("E2E-Model") in ("finished", "failed"):
            break
        time.sleep(0.5)
    return message, report, states


def test_api_submit_valid_file_is_scored_and_ranked(space, submitted):
    client = Client(space.url, verbose=False)
    message, report, states = submitted
    assert message.startswith("**Accepted.** Queued as"), message
    assert "10 valid predictions for 10 items" in report
    assert states["E2E-Model"] == "finished"
    assert not [r for r in table(client) if r["Model"] == "E2E-Model"]  # a sample build: not among paper rows
    rows = table(client, sample=True)
    ours = [r for r in rows if r["Model"] == "E2E-Model"]
    assert len(ours) == 1
    # offline coder: the 4 cases whose rank-1 prediction is the exact ICD-11 title of the primary; the other
    # primaries are absent or written as non-title synonyms -> Top-5 primary (ICD) = 4/10
    assert ours[0][TOP5] == 40.0
    assert ours[0]["Source"] == "submitted" and ours[0]["Protocol"] == "sample data"  # never "paper protocol"
    assert ours[0]["Rank"] == 1  # alone on the sample board
    assert "private@example.org" not in json.dumps(rows)


def test_api_broken_file_gets_the_report_and_no_row(space, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "S0001", "diagnoses": "Coeliac disease"}\n{"id": "S9999", "diagnoses": []}\nnot json\n')
    client = Client(space.url, verbose=False)
    message, report, _, _ = client.predict(*form("Broken-Model", bad), api_name="/submit")
    assert message.startswith("**Not accepted.**") and "nothing was queued" in message
    assert "line 1, field 'diagnoses': must be a JSON list of strings" in report
    assert "line 2, field 'id': unknown id 'S9999'" in report and "line 3: not valid JSON" in report
    for gold in ("Coeliac disease", "DA95", "Dermatitis herpetiformis"):
        assert gold not in report.replace('"Coeliac disease"', "")  # only the user's own text may echo
    assert not [r for r in table(client) + table(client, sample=True) if r["Model"] == "Broken-Model"]


def test_browser_page_tabs_strata_radar_download_and_bad_upload(space, submitted, tmp_path):
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "S0001"}\n')
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
        page.set_default_timeout(60_000)  # a loaded 2-core CI machine can be slow; the status timer polls every 2 s
        page.goto(space.url, wait_until="load")
        page.get_by_role("tab", name="MedReaMM").click()
        page.locator("#table-medreamm").get_by_text("Gemini-2.5-Pro").first.wait_for()
        page.screenshot(path=str(ARTIFACTS / "01-leaderboard.png"))
        page.get_by_role("tab", name="Overview").click()
        page.locator("#overview-intro").get_by_text("one row per model").wait_for()
        page.get_by_role("tab", name="MedReaMM").click()
        with page.expect_download() as download_info:
            page.locator("#csv-medreamm").click()
        csv_text = Path(download_info.value.path()).read_text(encoding="utf-8")
        # downloads keep ids and full precision
        assert csv_text.startswith("rank,rank_best,rank_worst,model,source,protocol,protocol_reasons,top5_primary_icd,"
                                   "top5_primary_icd_ci_low") and "Gemini-2.5-Pro" in csv_text
        # a filter change: once the table shows it, the download holds the filtered rows, never the previous
        # filter's (the reply that draws the table disables the buttons until the filtered files are written)
        page.locator("#search-medreamm textarea, #search-medreamm input").first.fill("Gemini")
        page.locator("#search-medreamm textarea, #search-medreamm input").first.press("Enter")
        page.locator("#table-medreamm [role=row]").filter(has_text="GPT-4o-mini").wait_for(state="detached")
        with page.expect_download() as download_info:
            page.locator("#csv-medreamm").click()
        filtered = Path(download_info.value.path()).read_text(encoding="utf-8").splitlines()
        assert len(filtered) >= 2 and all("Gemini" in line for line in filtered[1:]), filtered[:4]
        assert len(filtered) < len(csv_text.splitlines())
        page.locator("button[role=tab]:visible", has_text="Breakdown").click()
        page.locator("#show-sample-medreamm input").check()  # E2E-Model ran on sample data: its own board
        page.locator("#bd-note-medreamm").get_by_text("1 row").wait_for()
        choose(page, "bd-stratum-medreamm", "Images per case")
        page.locator("#heatmap-medreamm").get_by_text("5-10").wait_for()  # the E2E-Model row: n = 1, hidden
        page.locator("#heatmap-medreamm").get_by_text("hidden").first.wait_for()
        page.locator("#radar-medreamm .main-svg").first.wait_for()
        page.screenshot(path=str(ARTIFACTS / "02-strata-radar.png"), full_page=True)
        page.get_by_role("tab", name="Submit").click()
        page.get_by_label("Model name").fill("Browser-Bad")
        page.locator("#upload input[type=file]").set_input_files(str(bad))
        page.locator("#submit").click()
        page.locator("#submit-message").get_by_text("nothing was queued").wait_for(timeout=20000)
        report = page.locator("#validation-report textarea").input_value()
        assert "line 1: needs one of the fields diagnoses, response" in report
        page.screenshot(path=str(ARTIFACTS / "03-bad-upload.png"), full_page=True)
        browser.close()

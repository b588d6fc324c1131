"""Full-page screenshots of every tab of a running Space at a desktop and a phone viewport, as a first-time
visitor sees them (each tab opened from a fresh page load). Usage:
    .venv/bin/python scripts/screenshots.py http://127.0.0.1:7860/ artifacts/screens
Needs Playwright and Chromium (/usr/bin/chromium)."""
from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

VIEWPORTS = {"desktop": (1440, 900), "phone": (390, 844)}
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


def tabs(page) -> list[str]:
    return [t.inner_text().strip() for t in page.locator(".tab-wrapper").first.locator(".visually-hidden button").all()]


def open_tab(page, name: str) -> None:
    """Click a top-level tab; on a phone most sit behind the "More tabs" menu."""
    tab = page.locator(".tab-wrapper").first.get_by_role("tab", name=name, exact=True)
    if tab.count() and tab.first.is_visible():
        tab.first.click()
        return
    page.locator(".tab-wrapper").first.locator("button[aria-label='More tabs']").click()
    page.locator(".overflow-dropdown button", has_text=name).first.click()


def shoot(url: str, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    saved = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        for name, (width, height) in VIEWPORTS.items():
            page = browser.new_page(viewport={"width": width, "height": height})
            page.set_default_timeout(60_000)
            page.goto(url, wait_until="load")
            page.wait_for_timeout(4000)
            names = tabs(page) or ["Overview"]
            for k, tab in enumerate(names):
                if k:
                    page.goto(url, wait_until="load")
                    page.wait_for_timeout(2500)
                    open_tab(page, tab)
                    page.wait_for_timeout(3500)
                path = out / f"{name}-{k:02d}-{tab.lower().replace(' ', '-')}.png"
                page.screenshot(path=str(path), full_page=True)
                saved.append(path)
            page.close()
        browser.close()
    return saved


if __name__ == "__main__":
    for path in shoot(sys.argv[1], Path(sys.argv[2] if len(sys.argv) > 2 else "artifacts/screens")):
        print(path)

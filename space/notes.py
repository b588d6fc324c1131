"""Sentences the pages owe their readers: the keyed noise on held-out values (how large, for this release)."""
from __future__ import annotations

from pathlib import Path

from leaderboard.privacy.disclosure import noise_sd

ANSWERS_SUFFIX = "-answers"  # dataset_builders' folder of held-out answer fields, beside the public build


def held_out(bench, folder: Path | None, entries=()) -> bool:
    """Answers held out here: a built `-answers` folder beside the public one, or a result scored against one."""
    if folder is not None and Path(str(folder) + ANSWERS_SUFFIX).is_dir():
        return True
    return any((e.result.protocol or {}).get("answers_held_out") for e in entries)


def _items(bench) -> int | None:
    spec = bench.metric(bench.primary_metric)
    return spec.published_n or bench.release_items


def noise_size(bench, noise_items: float) -> str:
    """'±0.012 points of MCQ accuracy (all) over this release's 16,655 items' (one SD)."""
    spec = bench.metric(bench.primary_metric)
    n = _items(bench)
    if not n:
        return f"{noise_items:g} items' worth of {spec.label}"
    sd = noise_sd(noise_items, n, spec.item_span)
    return (f"SD {sd:.{max(spec.decimals, 2) + 1}f} on {spec.label} over the full release's {n:,} items "
            f"({noise_items:g} items' worth)")


def board_noise(bench, noise_items: float) -> str:
    return ("**Held-out answers, keyed noise.** This benchmark's answers are held out, so every public value of a "
            "submission scored here carries keyed Gaussian noise (keyed with the server's secret and the submission "
            f"id, fixed per value): {noise_size(bench, noise_items)}. A stratum cell holds fewer items and moves "
            "more (the same items' worth over its n), and so does a smaller build's whole-set value; CI bounds are shifted the same way. The noise stops two probes "
            "that differ in one answer from being told apart by subtraction.")


def about_noise(benches, noise_items: float, held: dict[str, bool]) -> str:
    lines = [f"- {b.pretty_name}: {noise_size(b, noise_items)}"
             + ("" if held.get(b.name) else " — answers public in this deployment: no noise") for b in benches]
    return ("### What the public sees on held-out boards\n\nWhen a benchmark's answers are held out (a private "
            "`-answers` repository read only by the scorer), each public number of a submission — metrics, CIs, "
            "stratum cells — carries keyed Gaussian noise worth "
            f"{noise_items:g} items (`LEADERBOARD_PUBLIC_NOISE`): its SD is {noise_items:g} × the metric's per-item "
            "span ÷ the items behind the number. Cells under the minimum size are hidden, and item-level comparisons "
            "are refused. For this release, on the primary metric:\n\n" + "\n".join(lines))

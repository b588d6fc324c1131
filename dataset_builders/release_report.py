"""What a build noticed about the release without refusing it: top-level keys the adapter does not know
(kept in the `extra_fields.jsonl` sidecar), values outside a field's known vocabulary (mapped when a
normaliser knows the spelling, else kept verbatim) and records outside the paper's description that are
still usable (e.g. more images than the paper's range). Each entry counts its records and names the first.

Under `--strict` nothing lands here: the same findings are build problems instead (see `FieldReader`)."""
from __future__ import annotations

from dataclasses import dataclass, field

SIDECAR = "extra_fields.jsonl"
CARD_ROWS = 100  # rows per card table; a release with thousands of odd values gets a readable card


@dataclass
class Finding:
    count: int
    first: str  # "file, line N, case 'X'" of the first record


@dataclass
class ReleaseReport:
    unknown_keys: dict[str, Finding] = field(default_factory=dict)  # key -> records carrying it
    # (field, raw value) -> (canonical value or None when kept verbatim, finding)
    values: dict[tuple[str, str], tuple[str | None, Finding]] = field(default_factory=dict)
    irregular: dict[str, Finding] = field(default_factory=dict)  # what is unlike the paper -> records
    extra_records: int = 0  # rows written to the sidecar

    def unknown_key(self, key: str, where: str) -> None:
        found = self.unknown_keys.get(key)
        if found is None:
            self.unknown_keys[key] = Finding(1, where)
        else:
            found.count += 1

    def irregularity(self, what: str, where: str) -> None:
        found = self.irregular.get(what)
        if found is None:
            self.irregular[what] = Finding(1, where)
        else:
            found.count += 1

    def value(self, field_name: str, raw: str, canonical: str | None, where: str) -> None:
        entry = self.values.get((field_name, raw))
        if entry is None:
            self.values[(field_name, raw)] = (canonical, Finding(1, where))
        else:
            entry[1].count += 1

    def merge(self, other: "ReleaseReport") -> None:
        """Add a later part's findings (its first records come after ours)."""
        for key, found in other.unknown_keys.items():
            mine = self.unknown_keys.setdefault(key, Finding(0, found.first))
            mine.count += found.count
        for pair, (canonical, found) in other.values.items():
            mine = self.values.setdefault(pair, (canonical, Finding(0, found.first)))[1]
            mine.count += found.count
        for what, found in other.irregular.items():
            mine = self.irregular.setdefault(what, Finding(0, found.first))
            mine.count += found.count
        self.extra_records += other.extra_records

    @property
    def empty(self) -> bool:
        return not self.unknown_keys and not self.values and not self.irregular

    def summary(self) -> str:
        """One line for the command line."""
        if self.empty:
            return "release report: no unknown keys, every value in the known vocabulary"
        kept = sum(1 for canonical, _ in self.values.values() if canonical is None)
        parts = []
        if self.unknown_keys:
            parts.append(f"{len(self.unknown_keys)} unknown key(s) kept in {SIDECAR} ({self.extra_records:,} record(s))")
        if self.values:
            parts.append(f"{len(self.values) - kept} value spelling(s) mapped, {kept} kept verbatim")
        if self.irregular:
            parts.append(f"{sum(f.count for f in self.irregular.values()):,} record(s) unlike the paper's description")
        return f"release report: {'; '.join(parts)} (see the card's 'Build report')"

    def lines(self) -> list[str]:
        """Every finding, one line each, for the command line."""
        out = [f"  unknown key {key!r}: {f.count:,} record(s), first at {f.first}"
               for key, f in sorted(self.unknown_keys.items())]
        for (name, raw), (canonical, f) in sorted(self.values.items()):
            fate = f"mapped to {canonical!r}" if canonical is not None else "kept verbatim"
            out.append(f"  {name} {raw!r}: {fate}, {f.count:,} record(s), first at {f.first}")
        out += [f"  {what}: {f.count:,} record(s), first at {f.first}" for what, f in sorted(self.irregular.items())]
        return out

    def markdown(self, hide_first_for: tuple[str, ...] = (), sidecar_note: str = "") -> str:
        """The card's 'Build report' section body. `hide_first_for`: fields whose first record is not named
        (held-out answer fields: the value and the record together would give that record's answer away)."""
        if self.empty:
            return ("The release matched the expected shape: no unknown keys, every value of a field with a known "
                    "vocabulary spelled as listed, every record as the paper describes.\n")
        parts = []
        if self.unknown_keys:
            rows = _capped([f"| `{_cell(key)}` | {f.count:,} | {_cell(f.first)} |"
                            for key, f in sorted(self.unknown_keys.items())])
            parts.append(f"Keys this builder does not know were kept verbatim in `{SIDECAR}` "
                         f"({self.extra_records:,} record(s)){sidecar_note}.\n\n"
                         f"| unknown key | records | first record |\n|---|---:|---|\n{rows}\n")
        if self.values:
            rows = []
            for (name, raw), (canonical, f) in sorted(self.values.items()):
                fate = f"`{_cell(canonical)}`" if canonical is not None else "kept verbatim"
                first = "(held out)" if name in hide_first_for else _cell(f.first)
                rows.append(f"| `{_cell(name)}` | `{_cell(raw)}` | {fate} | {f.count:,} | {first} |")
            parts.append("Values outside the known vocabulary: mapped where a normaliser knows the spelling, else "
                         "kept verbatim.\n\n| field | value | stored as | records | first record |\n"
                         "|---|---|---|---:|---|\n" + _capped(rows) + "\n")
        if self.irregular:
            rows = _capped([f"| {_cell(what)} | {f.count:,} | {_cell(f.first)} |"
                            for what, f in sorted(self.irregular.items())])
            parts.append("Records unlike the paper's description, kept because they are usable.\n\n"
                         f"| finding | records | first record |\n|---|---:|---|\n{rows}\n")
        return "\n".join(parts)


def _capped(rows: list[str]) -> str:
    if len(rows) > CARD_ROWS:
        rows = rows[:CARD_ROWS] + [f"| ... {len(rows) - CARD_ROWS:,} more | | |"]
    return "\n".join(rows)


def _cell(value) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")

"""A reader for the letter rule's tail. The responses the rule leaves unparseable go, with their item's option
texts, to an LLM through the project's judge client (prompt `prompts/letter_reader`), which names the option the
response commits to, or none, under the same conventions as the held-out corpora's careful reader.

Off unless LETTER_READER_MODEL (or --letter-reader-model) names a model at the judge endpoint: the rule alone is
the default protocol, offline and reproducible. A result read this way records it (`protocol.letter_reader`:
model, prompt, rows routed and read), and when any routed row could not be read the letter metrics are pending
("rerun to retry"; cached verdicts are reused): nothing is guessed, and a result never mixes two protocols.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .letter_text import bounded

# the judge client is imported when a reader is asked, not with the scorers (the rule alone needs none of it)

# the decision every multiple-choice scorer lists beside its letter rule (one text, so the benchmarks cannot drift)
DECISION = ("Letter reader (off unless LETTER_READER_MODEL or --letter-reader-model names a model at the judge "
            "endpoint): the responses the letter rule leaves unparseable go, with the item's option texts, to that "
            "model (prompt `letter_reader`: the careful reader's conventions of the held-out corpora), and its letter, "
            "or none, is taken. The result records it in `protocol.letter_reader` (model, prompt, rows routed, read, "
            "failed); a routed row it cannot read leaves the letter metrics pending, never guessed. Off, the rule "
            "alone decides (reproducible offline); docs/parsing.md gives both agreements with careful readers.")
PROMPTS = Path(__file__).resolve().parent / "prompts"
PROMPT = "letter_reader"
NO_ANSWER = {"", "null", "none", "n/a"}  # what a reader may write for "no answer" besides JSON null


@dataclass
class ReaderOutcome:
    """The reader's letters by row (None: it read no answer), and the rows it could not read."""

    letters: dict[int, str | None] = field(default_factory=dict)
    failed: list[int] = field(default_factory=list)
    failure_kinds: dict[str, int] = field(default_factory=dict)
    asked: int = 0  # distinct (response, options) pairs sent

    def protocol(self, reader) -> dict:
        """What a result records: the reader, how many rows went to it, what it read, what failed."""
        from .judge import load_prompt

        read = sum(letter is not None for letter in self.letters.values())
        return {"model": reader.config.model, "prompt": f"{PROMPT}.v{load_prompt(PROMPT, folder=PROMPTS).version}",
                "routed": len(self.letters) + len(self.failed), "distinct_responses": self.asked,
                "read_a_letter": read, "read_no_answer": len(self.letters) - read, "failures": len(self.failed),
                "failure_kinds": dict(self.failure_kinds)}

    def not_comparable_because(self, reader) -> list[str]:
        """The reason a result read by the reader is not the paper's protocol (the papers parse letters by regex),
        when the reader changed anything: a reader that read no letter leaves the rule's numbers as they are."""
        read = sum(letter is not None for letter in self.letters.values())
        if not read:
            return []
        return [f"the letter reader {reader.config.model} read {read} response(s) the letter rule could not "
                "(the paper parses letters by rule)"]

    def pending_reason(self) -> str | None:
        if not self.failed:
            return None
        return (f"{len(self.failed)} unparseable response(s) the letter reader (judge) could not read; rerun to "
                "retry (cached verdicts are reused, nothing is guessed)")


def letter_parser(letters: str):
    """The verdict parser for items whose options are `letters`: a letter among them, or None for no answer;
    anything else is malformed (the client asks again)."""
    from .judge import JudgeParseError, parse_json_object

    def parse(raw: str) -> dict:
        # an `evidence` the format does not ask for (the data rules mention one) is ignored, never checked
        value = {k: v for k, v in parse_json_object(raw).items() if k != "evidence"}
        letter = value.get("letter")
        if letter is None or (isinstance(letter, str) and letter.strip().lower() in NO_ANSWER):
            return {**value, "letter": None}
        if not isinstance(letter, str) or letter.strip().upper() not in letters:
            raise JudgeParseError(f"'letter' must be one of {', '.join(letters)} or null")
        return {**value, "letter": letter.strip().upper()}
    return parse


def options_block(letters: str, options) -> str:
    texts = list(options or ())
    return "\n".join(f"{letter}. {texts[k] if k < len(texts) and texts[k] else '(text not given)'}"
                     for k, letter in enumerate(letters))


def read_letters(reader, rows: list[int], texts: list[str], options: list, letters: list[str],
                 progress: bool = False) -> ReaderOutcome:
    """Ask `reader` (a judge client) about each routed row: `texts[k]`, `options[k]` (the item's option texts)
    and `letters[k]` (its option letters, e.g. "ABCD") belong to `rows[k]`. Each distinct (response, options)
    is asked once; items with different option counts are asked with their own parser."""
    from .judge import JudgeCall, item_key_id, load_prompt

    prompt = load_prompt(PROMPT, folder=PROMPTS)
    outcome = ReaderOutcome()
    distinct: dict[tuple, list[int]] = {}
    for k, row in enumerate(rows):
        # the window the rule reads (first 4,000 and last 2,000 characters): a huge response costs no more
        distinct.setdefault((bounded(texts[k]), tuple(options[k] or ()), letters[k]), []).append(row)
    outcome.asked = len(distinct)
    by_letters: dict[str, list[tuple]] = {}
    for pair in distinct:
        by_letters.setdefault(pair[2], []).append(pair)
    for item_letters, pairs in sorted(by_letters.items()):
        calls = []
        for text, item_options, _ in pairs:
            block = options_block(item_letters, item_options)
            ident = item_key_id(block)  # the options identify the item the verdict must echo
            # Unfiltered and without an evidence quote: the reader decides nothing the submitter could not state
            # in `answer`, so a response aimed at it gains nothing, while the injection filter reads hedges ("It
            # could be B or C.", "The correct answer is:") as grading talk: removing them, or refusing them as
            # quotes, would change the answer. The data boundary, the canary and the item id are still checked.
            calls.append(JudgeCall(ident, prompt, {"options": block, "candidate": text}, criterion_id=ident,
                                   filtered=False))
        verdicts = reader.run(calls, letter_parser(item_letters), progress=progress,
                              desc="reading unparseable letters")
        for pair, verdict in zip(pairs, verdicts):
            if verdict.value is None:
                outcome.failed.extend(distinct[pair])
                outcome.failure_kinds[verdict.kind] = outcome.failure_kinds.get(verdict.kind, 0) + len(distinct[pair])
            else:
                outcome.letters.update(dict.fromkeys(distinct[pair], verdict.value["letter"]))
    return outcome


def read_unparsed(context, rows, texts, options, letters) -> ReaderOutcome | None:
    """The reader's outcome for the routed rows when the context has a letter reader, else None (the rule
    alone). A reader with nothing to read still returns an outcome, so the result records that it was on."""
    reader = context.service("letter_reader")
    if reader is None:
        return None
    return read_letters(reader, list(rows), list(texts), list(options), list(letters), progress=context.progress)


def withhold(outcome: ReaderOutcome | None, metrics: dict, ci: dict, names) -> dict[str, str]:
    """When routed rows could not be read, the letter metrics `names` leave `metrics` and `ci` and are pending
    with the reason; returns the pending reasons added (empty when every routed row was read)."""
    reason = outcome.pending_reason() if outcome is not None else None
    if reason is None:
        return {}
    held = [name for name in names if name in metrics or name in ci]
    for name in held:
        metrics.pop(name, None)
        ci.pop(name, None)
    return dict.fromkeys(names, reason)

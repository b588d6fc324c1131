"""The letter rule's identity: its version id and one-line summary, recorded in every result's protocol, and how
to read back the rule an older result was scored under (letters.py is the rule itself)."""
from __future__ import annotations

RULE_VERSION = "letters-v13"
RULE_SUMMARY = ("letters-v13: explicit answer statement (final ones decide) > lone leading letter > single standalone "
                "capital letter, rejected letters dropped (not C, isn't C, not erysipelas (B), C is unlikely), several settled "
                "only by a concluding last sentence > the one option named by its text (no letter stated; longest match, "
                "rejected mentions dropped), else by an unambiguous abbreviation or part of it (ARDS, E. coli, T2, type A, "
                "AVNRT, PE with its telling words) or another name of the same condition; a later letter committed after a "
                "correction (actually, I mean) replaces the first; a checklist marking one option yes answers; option "
                "numbers are letters (Option 3, Answer: 1, the last option, 第4个, Answer: ii); a letter paired with "
                "another option's text (B: <A's text>), hedges (A? Or B?), a retraction (Wait, no.), reasoning cut off "
                "before an answer and letters inside terms (H&E, B cell, Antoni A, Kerley B) never count; v8: a ranked "
                "differential answers with its first item, a passing mention in a response cut off mid-sentence does not; v9: "
                "with no letter or option text, a normal study answers the normal option, a classic sign (meniscus sign) its "
                "condition, lay names (kidney stone) their option; a letter against a later concluded option text, a "
                "declined choice and a temperature's unit (29 °C) never count; v10: a lean with a concession (most likely B, "
                "though C cannot be excluded) takes the lean, informal choices (Going with C, C it is) state it, Chinese names answer English options (胎盘早剥), a "
                "consequent of an if-clause asserts nothing, a response cut off after 'would favor' answers nothing; v11: other "
                "writings of an option (category 4 for BI-RADS 4, T3 N2 M0, non-contrast head CT, computed tomography), a "
                "Chinese or 'Present.' yes/no, 'no acute fracture' for No fracture; v12: an option-by-option walk (A. ... B. ... "
                "on their own lines) labels and its conclusion decides, self-corrections in Chinese, Chinese if-clauses and an unsure "
                "retraction (actually ... might be C. I'm not sure) answer nothing, 'makes A the answer', a stated count, a "
                "side (on the right side) or a grade by its value (2 on grades 1-4, grade 4 for Grade IV) names its option; "
                "v13: a pair the response narrows to (one of A or B) is settled by the option its conclusion names, an "
                "option walk or step-by-step analysis cut off partway answers nothing, 'cannot tell which' undoes a stated "
                "letter, 'sorry, that is option D' corrects, 'most likely represents A —', 'Probably D:', 'the most "
                "fitting option is C', 'A is more consistent', 'typical of option B' and 'option is number 4' state a "
                "letter, a line under a 'Diagnosis' heading concludes, Chinese terms (A型, 克氏B线) hold no letter; "
                "think blocks "
                "dropped; first 4,000 + last 2,000 chars read; several letters or option texts, a letter beyond the "
                "options, or none = unparseable")


def rule_of(protocol: dict) -> str | None:
    """The letter rule a result was scored under: its `letter_rule_version`, else the id its `letter_rule`
    summary opens with (results scored before letters-v3 carry only the summary, "letters-v2: ..."); None
    for a benchmark without letters. A result under an older rule keeps it: it is never relabelled."""
    version = protocol.get("letter_rule_version")
    if isinstance(version, str) and version:
        return version
    summary = protocol.get("letter_rule")
    if isinstance(summary, str) and summary.startswith("letters-"):
        return summary.split(":", 1)[0]
    return None

"""A concluding sentence settles a discussion of several letters (rule letters-v5, step 3).

Chain-of-thought answers often name several option letters as labels or while weighing them ("Fibroadenoma
(A) and phyllodes tumor (C) are biphasic ...; intraductal papilloma (D) has ... This is consistent with
invasive ductal carcinoma, option B."). When step 3 finds several letters, the last sentence holding any of
them decides if it holds exactly one, concludes ("consistent with", "therefore", "most likely", "the diagnosis
is") and does not hedge ("or", "may", "possible", "differential", "cannot exclude"). Otherwise the response
stays unparseable: a careful reader does not pick among letters the writer left open.

Patterns are RE2, each on one sentence (bounded by MAX_SENTENCE characters).
"""
from __future__ import annotations

import bisect

import re2

MAX_SENTENCE = 400
_ENDS = ".!?;\n"
_CONCLUDES = re2.compile(
    r"(?i)(?:^|[^a-z])(?:consistent with|compatible with|in keeping with|most likely|most consistent|most probable|"
    r"therefore|thus|hence|accordingly|the diagnosis is|diagnosis:|the answer|best (?:answer|fits?|explains|choice|option)|"
    r"favou?r|favou?rs|points? to|(?:i|we) (?:choose|select|pick|go with)|so (?:this|it) is|this is)(?:[^a-z]|$)")
_HEDGES = re2.compile(
    r"(?i)(?:^|[^a-z])(?:or|either|possible|possibly|may|might|could|cannot|can ?not|can't|differential|versus|vs|"
    r"uncertain|unclear|not sure|unsure|unless|if|whether|also|less likely|unlikely|not|excluded?|rather than)"
    r"(?:[^a-z]|$)")


def _sentence(s: str, i: int) -> tuple[int, int]:
    """Bounds of the sentence holding s[i]: after the previous sentence end, up to and including the next."""
    lo = max(0, i - MAX_SENTENCE)
    start = max(s.rfind(ch, lo, i) for ch in _ENDS) + 1
    hi = min(len(s), i + MAX_SENTENCE)
    ends = [k for k in (s.find(ch, i + 1, hi) for ch in _ENDS) if k >= 0]
    return max(start, lo), (min(ends) if ends else hi)


_ALTERNATIVE = re2.compile(r"(?i)(?:could|may|might|can) (?:also |equally |just as well )?be (?:option |choice )?[(\[]?"
                          r"([A-E])(?:[^A-Za-z0-9]|$)"
                          r"|[(\[]([A-E])[)\]] (?:is|are|remains?) (?:also |equally |still )?(?:possible|plausible|likely|"
                          r"a possibility)|(?:^|[^A-Za-z])([A-E]) (?:is|remains?) (?:also |equally |still )"
                          r"(?:possible|plausible|likely|a possibility)"
                          # letters-v7: "leaning towards A but B is about as likely"
                          r"|(?:^|[^A-Za-z])([A-E]) (?:is|seems|looks) (?:about |almost |nearly |just |equally )?as likely")


def alternative_after(s: str, end: int, letter: str) -> bool:
    """Does the sentence that a statement of `letter` ends in go on to offer another letter ("The answer is D,
    but it could also be C", "... E, atelectasis, but pleural effusion (B) is also possible")? Then the
    statement does not commit."""
    stop = _sentence(s, end - 1)[1] if end else 0
    m = _ALTERNATIVE.search(s[end:min(stop, end + MAX_SENTENCE)])
    return m is not None and (m.group(1) or m.group(2) or m.group(3) or m.group(4)) != letter


def in_question(s: str, i: int) -> bool:
    """Does the sentence holding s[i] end with "?" ("Maybe A?", "Could this be C?"): asked, not answered."""
    end = _sentence(s, i)[1]
    return s[end:end + 1] == "?"


def concluding_letter(s: str, positions: list[tuple[int, str]]) -> str | None:
    """The letter of the last sentence naming any of `positions` ((index, letter), in text order), when that
    sentence names only it, concludes and does not hedge; else None."""
    if not positions:
        return None
    last, letter = positions[-1]
    start, end = _sentence(s, last)
    if {x for i, x in positions if start <= i < end} != {letter}:
        return None
    sentence = s[start:end]
    # the letter itself may be "A" or "I" (never a word here: step 3 kept it as a letter); blank it for the word checks
    blanked = sentence[:last - start] + "_" + sentence[last - start + 1:]
    if _CONCLUDES.search(blanked) is None or _HEDGES.search(blanked) is not None:
        return None
    return letter


# between an option's text and the letter labelling it: "Fibroadenoma (A)", "carcinoma, option B", "(A) Fibroadenoma"
_AFTER_TEXT = (" (", " [", " (option ", " (choice ", ", option ", " - option ", " — option ", " option ")
_BEFORE_TEXT = (") ", "] ", ". ", ": ", " - ", " – ", " — ", " (")


_LABEL_GAPS = (". ", ") ", ": ", "．", "、", "）", "：", " - ", " – ", " — ")


def enumerated(s: str, positions: list[tuple[int, str]], letters: str) -> bool:
    """letters-v12: do the lines opening with a letter label ("A. 正常眼底——…\nB. 高血压视网膜病变——…\nC. …\nD. …",
    "* E. Methylprednisolone: no.") walk exactly the options' letters, in order, and are the letters found
    (`positions`, (index, letter)) only those labels? An option-by-option analysis then only walks the options,
    whatever language their texts are written in; the conclusion after it decides (step 4)."""
    labels, at = [], 0
    while at < len(s) and len(labels) <= len(letters):
        end = s.find("\n", at)
        end = len(s) if end < 0 else end
        line = s[at:end]
        k = len(line) - len(line.lstrip(" *#-_>"))
        if k < len(line) and line[k] in letters and line.startswith(_LABEL_GAPS, k + 1):
            labels.append((at + k, line[k]))
        at = end + 1
    if [letter for _, letter in labels] != list(letters):
        return False
    last_line_end = s.find("\n", labels[-1][0])
    if last_line_end < 0 or not s[last_line_end:].strip():
        return False  # the option list echoed and nothing after it ("A. Yes\nB. No"): no walk, no conclusion
    label_at = {i for i, _ in labels}
    return all(i in label_at for i, _ in positions)


def labels_only(s: str, positions: list[tuple[int, str]], spans, letters: str) -> bool:
    """Does every letter found label a mention of its own option's text ("Fibroadenoma (A)", "(C) Phyllodes
    tumor")? Then the letters only point at the options the text names, and the option texts decide (step 4).
    `spans` are (start, end, option index) of the mentions in `s`."""
    if not positions:
        return False
    ends: dict[int, set[str]] = {}
    starts: dict[int, set[str]] = {}
    for start, end, index in spans:
        if index < len(letters):
            ends.setdefault(end, set()).add(letters[index])
            starts.setdefault(start, set()).add(letters[index])
    for i, letter in positions:  # a constant number of look-ups per letter: linear in the text
        if not (any(letter in ends.get(i - len(gap), ()) and s[i - len(gap):i] == gap for gap in _AFTER_TEXT)
                or any(letter in starts.get(i + 1 + len(gap), ()) and s[i + 1:i + 1 + len(gap)] == gap
                       for gap in _BEFORE_TEXT)):
            return False
    return True


_PAIR_JOINS = (" or ", " and ", "/", " vs ", " vs. ", " versus ")
_NARROWS = re2.compile(r"(?i)(?:one of|either|between) (?:options? )?\(?$")


def narrowed_to_pair(s: str, positions: list[tuple[int, str]], spans, named: int | None, letters: str) -> bool:
    """letters-v13: are the only letters a pair the response narrows to ("... suggest one of A or B. ... the
    diagnosis is chondrosarcoma."), with the option named afterwards by its text, in a sentence that concludes, one of
    the two? Then the pair is no answer and the text decides."""
    if named is None or named >= len(letters) or len(positions) != 2:
        return False
    (i, first), (j, second) = positions
    return (first != second and s[i + 1:j] in _PAIR_JOINS and letters[named] in (first, second)
            and _NARROWS.search(s[max(0, i - 24):i]) is not None
            and any(index == named and start > j and commits(s, start) for start, _, index in spans))


def named_in_echo(s: str, positions: list[tuple[int, str]], spans, named: int | None, letters: str) -> bool:
    """letters-v13: are the letters found every option's label in order, each beside its own text (the question's
    option list, echoed: "... A. Pneumothorax B. Pleural effusion C. Lobar pneumonia D. Pulmonary edema Answer with
    the option's letter ..."), and is option `named` named nowhere after that list? Then the echo names it."""
    if named is None or [x for _, x in positions] != list(letters) or "\n" in s[positions[0][0]:positions[-1][0]]:
        return False  # (a walk line by line is enumerated()'s: its lines may judge the options)
    last = positions[-1][0]
    list_end = min([end for start, end, index in spans if index == len(letters) - 1 and start > last] or [last + 1])
    return not any(index == named and start >= list_end for start, _, index in spans)


def commits(s: str, i: int) -> bool:
    """Does the sentence holding the letter s[i] conclude without hedging ("so this is complete heart block: D")?
    (letters-v7, a correction's new letter)"""
    start, end = _sentence(s, i)
    sentence = s[start:end]
    blanked = sentence[:i - start] + "_" + sentence[i - start + 1:]
    return _CONCLUDES.search(blanked) is not None and _HEDGES.search(blanked) is None


def listed_together(s: str, positions: list[tuple[int, str]], spans, index: int) -> bool:
    """Is option `index` named only inside sentences that list two or more options by letter ("The differential
    includes A (meningioma) and B (hemangiopericytoma)", "either ... or", "versus")? Then its text is one entry of a list, not a choice
    (letters-v7). `spans` are (start, end, option index) of the mentions in `s`."""
    own = [start for start, _, k in spans if k == index]
    if not own:
        return False
    at = [i for i, _ in positions]  # in text order: each sentence's letters found by bisection
    for start in own:
        lo, hi = _sentence(s, start)
        inside = positions[bisect.bisect_left(at, lo):bisect.bisect_left(at, hi)]
        if len({x for _, x in inside}) < 2 or _LISTS.search(s[lo:hi]) is None:
            return False
    return True


_LISTS = re2.compile(r"(?i)(?:^|[^a-z])(?:differential|differentials|includes?|including|considerations?|possibilities|"
                     r"either|both|versus|vs)(?:[^a-z]|$)")


# letters-v7: an option-by-option analysis that stops before concluding ("Let's analyze each option:\n\nA. Psoriasis –
# well-demarcated plaques ...; the image does show") is no answer: its lines label the options they discuss
_ANALYSIS_PREFACE = re2.compile(r"(?i)(?:^|[^a-z])(?:each (?:option|choice|answer)|options? (?:one by one|in turn)|"
                                r"(?:analy[sz]e|evaluate|consider|go through|review|look at) (?:the|all|each) (?:options|choices)|"
                                r"let['’]?s (?:analy[sz]e|evaluate|go through|consider))(?:[^a-z]|$)")
_LINE_LABEL = re2.compile(r"^(?:[-*•+] )?(?:(?i:option|choice) )?[(\[]?([A-E])(?:[.):\]]| [-–—]) ?")


def ends_in_analysis(s: str, spans, letters: str) -> bool:
    """Does the response's last non-empty line open with a letter and that option's own text followed by comment
    ("A. Psoriasis – plaques ..."), after a preface announcing an option-by-option analysis?"""
    body = s.rstrip()
    start = body.rfind("\n") + 1
    line = body[start:]
    m = _LINE_LABEL.match(line[:20])
    if m is None or m.group(1) not in letters or _ANALYSIS_PREFACE.search(s[max(0, start - 2000):start]) is None:
        return False
    text_at = start + m.end()
    own = [end for a, end, k in spans if a == text_at and k == letters.index(m.group(1))]
    return bool(own) and len(body[own[0]:].split()) >= 2


_BULLET = re2.compile(r"^(?:[-*•+]\s*|\d[.)]\s*)?")


def stops_in_option_analysis(s: str, spans) -> bool:
    """letters-v9: does the response stop mid-sentence (no full stop) on a line that opens with an option's own text
    and a colon or dash, after a preface announcing an option-by-option analysis ("Step 4: Evaluate the options.\n*
    Addison disease: This refers to ... A unilateral fat-containing")? It was cut off before choosing."""
    body = s.rstrip()
    if not body or body[-1] in ".!?。！？)]*":
        return False
    start = body.rfind("\n") + 1
    text_at = start + _BULLET.match(body[start:start + 10]).end()
    own = [end for a, end, _ in spans if a == text_at]
    if not own or body[own[0]:own[0] + 3].lstrip()[:1] not in (":", "-", "–", "—"):
        return False
    return _ANALYSIS_PREFACE.search(s[max(0, start - 2000):start]) is not None


_SENTENCE_ENDS = frozenset(".!?。！？")
_STEP_HEADING = re2.compile(r"(?im)^[#*\s]*step ?(\d{1,2})\b([^\n]{0,80})")
_WALK_PREFACE = re2.compile(r"(?i)(?:evaluat|analy[sz]|consider|review|go(?:ing)? through|look(?:ing)? at)[a-z]* "
                            r"(?:the |all |each )?(?:answer )?(?:options|choices)|differential(?: diagnos[ie]s)?:|"
                            r"option[- ]by[- ]option|逐一分析|逐项分析|分析各选项|各选项")
_CONCLUDING_STEP = re2.compile(r"(?i)conclu|answer|diagnos|final|summar|select|choos|decision|verdict|impression")


def walk_cut_off(s: str, letters: str) -> bool:
    """letters-v13: does an option-by-option walk, after some analysis, stop partway through the options, on the line
    of the last option it reached and without ending its sentence ("## Evaluating the options\n\n- **A. Ulcerative
    colitis** —", "B. 胆囊结石：图中确实可见结石，但")? The response was cut off before it chose."""
    body = s.rstrip()
    if not body or body[-1] in _SENTENCE_ENDS:
        return False
    labels, at = [], 0
    while at < len(body):
        end = body.find("\n", at)
        end = len(body) if end < 0 else end
        line = body[at:end]
        k = len(line) - len(line.lstrip(" *#-_>•"))
        if k < len(line) and line[k] in letters and line.startswith(_LABEL_GAPS, k + 1):
            labels.append((at, line[k]))
        at = end + 1
    walked = "".join(letter for _, letter in labels)
    if not (0 < len(walked) < len(letters) and letters.startswith(walked) and labels[0][0] > 0
            and "\n" not in body[labels[-1][0]:]):
        return False
    before = body[max(0, labels[0][0] - 2000):labels[0][0]]  # announced: "Findings:\n\nA. Pneumothorax – ..." answers
    return _ANALYSIS_PREFACE.search(before) is not None or _WALK_PREFACE.search(before) is not None


def cut_off_in_steps(s: str) -> bool:
    """letters-v13: does a step-by-step analysis ("**Step 3: Evaluate the spleen.**") stop mid-sentence inside a step
    that is not its conclusion ("**Step 4: Evaluate the kidneys.**\nBoth kidneys")? It was cut off before it chose."""
    body = s.rstrip()
    if not body or not (body[-1].isalnum()):
        return False
    steps = list(_STEP_HEADING.finditer(body))
    return len(steps) >= 2 and _CONCLUDING_STEP.search(steps[-1].group(2)) is None


# the response cannot decide between the options it weighed: this undoes even a stated letter ("the dural tail
# favours B. ... I can't reliably distinguish between these two.")
_UNDECIDED_PATTERN = (
    # letters-v12: "I can't reliably favour one over the other"
    r"(?:can ?not|can'?t|can’t|unable to) (?:reliably |confidently |definitively )?(?:favou?r|decide between|choose between|"
    r"distinguish between) (?:one|them|the two|these two|those two|the options|these options)|"
    # letters-v13: "it's not possible to determine which is more likely"; Chinese "两者都有可能，无法确定"
    r"(?:can ?not|can'?t|can’t|unable to|not possible to|impossible to|not able to) (?:determine|tell|say|decide) "
    r"which (?:one |option )?(?:is|it is)|"
    # (in Chinese only when it is about the options: "边界无法确定" (the margin cannot be determined) is no refusal)
    r"两者都有可能|二者都有可能|两者均有可能|二者均有可能|(?:无法|难以|不能)(?:确定|区分|判断|鉴别)(?:是哪|哪|两者|二者)")
_UNDECIDED = re2.compile("(?i)" + _UNDECIDED_PATTERN)
# letters-v9: "Without that information, I can't confidently select a single answer." The writer declines to choose;
# a reader takes none of the options it discussed (a stated answer, step 1 or 2, still stands).
_DECLINES = re2.compile(
    r"(?i)(?:can ?not|can'?t|can’t|unable to|not able to|not possible to|impossible to|won'?t|will not|do not want to|"
    r"don'?t want to)(?: [a-z]+){0,2} (?:select|choose|pick|commit to|settle on|give|provide|identify)"
    r"(?: [a-z]+){0,2} (?:single|one|specific|particular|definitive|definite|correct)"
    r"(?: [a-z]+)? (?:answer|option|choice|diagnosis|letter)|"
    # "I can't make a psychiatric diagnosis based on someone's facial expression": a refusal
    r"(?:can ?not|can'?t|can’t|unable to|not able to|not possible to|impossible to|won'?t|will not) "
    r"(?:make|provide|give|offer|render|establish|determine) (?:a|any|an)(?: [a-z]+){0,2} diagnos[ie]s|"
    # letters-v13: "I'm not able to provide medical diagnoses, but I can describe what's visible."
    r"(?:make|provide|give|offer|render) (?:[a-z]+ )?diagnos[ie]s,? but i can (?:only )?describe|"
    # letters-v13: "I'm not able to determine this from the image provided"
    r"(?:can ?not|can'?t|can’t|unable to|not able to) (?:determine|judge|assess|answer|tell) (?:this|that|it)"
    r"(?: [a-z]+){0,3} from (?:the|this)(?: [a-z]+)? (?:image|picture|photo)|"
    r"(?:can ?not|can'?t|can’t|unable to|not able to) diagnose (?:medical )?(?:conditions?|diseases?|this|images?)|"
    # letters-v13: "Honestly, I can't narrow this to one option with confidence."
    r"(?:can ?not|can'?t|can’t|unable to|not able to) narrow (?:this|it|them|the options)(?: down)? to (?:one|a single)|"
    + _UNDECIDED_PATTERN)


# after a disclaimer, these go on to answer: "I'm not able to provide a diagnosis, but ... the best fit is B." ("but I can
# describe what I see" does not)
_ANSWERS_ANYWAY = re2.compile(r"(?i)(?:^|[^a-z])(?:most likely|best fits?|answer is|correct answer|favou?r|"
                              r"the answer|would (?:choose|pick|go with|select)|my (?:answer|choice|pick)|if i had to|"
                              r"if i (?:must|have to|need to|were to) (?:choose|pick|select|answer)|if forced|"  # v11
                              r"i can (?:tell you|say) that|"  # v11: "I can't diagnose. However, I can tell you that ..."
                              r"most consistent|consistent with)(?:[^a-z]|$)|"
                              r"最可能|最有可能|倾向|考虑为|答案|选择?[A-E]|更符合")  # v13: "无法确定，但最可能为…"


def declines_to_choose(s: str) -> bool:
    """Does the response say it will not pick one option ("I can't confidently select a single answer", "unable to
    choose one option") or make a diagnosis ("I can't make a psychiatric diagnosis from a photograph"), and not go on
    to answer after all ("..., but based on the features the best fit is B")?"""
    m = _DECLINES.search(s)
    return m is not None and _ANSWERS_ANYWAY.search(s[m.end():]) is None


_TRAILING = re2.compile(r"^[(\[]?([A-Z])[.)\]]?(?: ([^\n]{1,120}))?$")
_ALONE = re2.compile(r"^[(\[]?([A-Z])[.)\]]?$")


def undecided_after(s: str, end: int) -> bool:
    """letters-v13: does the response, after its last statement (ending at `end`), say it cannot decide between the
    options it weighed, and not answer after all? ("... while the dural tail favours B. Without perfusion imaging,
    I can't reliably distinguish between these two.")"""
    m = _UNDECIDED.search(s[end:])
    return m is not None and _ANSWERS_ANYWAY.search(s[end + m.end():]) is None


def trailing_letter(s: str, candidates: set[str], own_text=None) -> str | None:
    """letters-v9: the letter alone on the response's last line after reasoning above it ("... key features of a
    retrosternal goiter.\n\n**D**"), or (letters-v11) with its own option's text ("\n\n**B. Tuberculosis**": `own_text`
    tells); not when the line above is a lone letter too (a column of letters)."""
    lines = [line.strip() for line in s.rstrip().split("\n")[-3:] if line.strip()]
    if len(lines) < 2:
        return None
    m = _TRAILING.match(lines[-1])
    if m is None or m.group(1) not in candidates or _ALONE.match(lines[-2]):
        return None
    if m.group(2) is not None:  # letters-v11: "B. Tuberculosis" closing an analysis, not an echoed option list
        if m.group(2).rstrip().endswith((":", "-", "–", "—")):
            return None  # "C. Rhabdomyosarcoma:" opens an analysis line that was cut off
        above = _TRAILING.match(lines[-2])
        if own_text is None or not own_text(m.group(1), m.group(2).rstrip(" .")) or (
                above is not None and above.group(2) is not None and own_text(above.group(1), above.group(2).rstrip(" ."))):
            return None
    return m.group(1)

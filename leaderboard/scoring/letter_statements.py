"""Explicit answer statements (step 1 of the letter rule, letters.py): the patterns a careful reader takes as a
response stating its letter ("Answer: C", "The most likely diagnosis is (E) ...", "C is the correct answer", "I'd go
with option B", "\\boxed{C}", "答案：C", "Respuesta: C", ...), each with the lookbehind RE2 lacks (checked by
letters._explicitmatches on the character before the match) and a check on the text after it. Every pattern is RE2:
linear time. New statements of each rule version are marked with it.
"""
from __future__ import annotations

import re2

_L = r"\(?\[?(?P<l>[A-Za-z])"  # the letter, maybe in brackets; alone (no word character either side): `_explicit`
# ... and where the statement ends with it, the character after it (not a word character) is part of the match:
# RE2 then takes the path a backtracking engine would ("Respuesta: A incorrecta" is A, not the "i" after "a ")
_L_END = _L + r"(?P<guard>[^A-Za-z0-9\x{c0}-\x{24f}]|$)"
_ADVERB = r"(?:(?:therefore|thus|hence|then|likely|probably|most likely|clearly|definitely|indeed|actually) )?"
_OPTION = r"(?:(?:option|choice|letter|answer|alternative) )?"
_VERB = (r"(?: ?[:=][ \n]?| [-–—] | (?:is|would be|should be|must be|will be|has to be|seems to be|appears to be)"
         r"(?: ?:)? )")
_VERDICT = (r"(?:correct|right|best|better fit|better choice|favou?red|preferred|most (?:likely|appropriate|accurate|consistent)|"
            r"more likely|more consistent)")  # v8: "Both B and C fit, but B is more likely"; v13: "So A is more consistent"
_MODIFIER = (r"(?:(?P<final>final)(?: correct)? |(?:correct|right|best|most likely|most appropriate|my|our|"
             r"most fitting|best[- ]fitting|most suitable) )")  # letters-v13: "The most fitting option is C."

WORD_BEFORE, LINE_START, PY_WORD_BEFORE, NOT_BU = "word", "line", "pyword", "bu"  # lookbehinds, checked
NOT_NEGATED = "negated"  # letters-v10: a word before, and not "not going with A"


def py_word(ch: str) -> bool:
    """Python's `\\w` on str."""
    return bool(ch) and (ch.isalnum() or ch == "_")


def _verdict_stands(tail: str) -> bool:
    """`(?![\\w-])(?! (?:incorrect|wrong|not|false|unlikely|excluded|ruled))` after "B is correct"."""
    return not (py_word(tail[:1]) or tail[:1] == "-" or _RETRACTED.match(tail[:16]))


def _sentence_ends(tail: str) -> bool:
    return tail in ("", ".") or tail.startswith(("\n", ".\n", ". "))


_GLOSS_ENDS = re2.compile(r" \([^()\n]{1,60}\)(?:[.!]|$|\n|,? (?:though|although|while) )")
_REASON_FOLLOWS = re2.compile(r"(?i) (?:given|because|since|due|as) ")  # "C fits better given ..." (letters-v7)
_REASON_OPENS = re2.compile(r"(?::|;| [-–—] ?)")  # letters-v13: "Probably D: the lesion ...", "A — the ovary ..."
_RETRACTED = re2.compile(r"(?i) (?:incorrect|wrong|not|false|unlikely|excluded|ruled)")
# (pattern, the lookbehind at its start, the lookahead after its end as a check on the rest of the text)
_EXPLICIT_SPECS = (
    # "Answer: C", "The final answer is (C)", "The correct answer, therefore, is option C"
    (rf"{_MODIFIER}?answer(?: choice| option)?(?: to (?:this|the) question| here)?"
    rf"(?:, (?:therefore|then|thus|hence),)?{_VERB}{_ADVERB}{_OPTION}{_L_END}", WORD_BEFORE, None),
    # label at the start of a line: "Answer C", "### Final Answer\nC", "Choice: C"
    (rf"(?P<bare>){_MODIFIER}?(?:answer(?: choice| option)?(?: |\n)|(?:option|choice|selection) ?: ?|ans\.? ?[:=] ?){_L_END}",
     LINE_START, None),  # letters-v11: "Ans: e"
    (rf"(?P<final>final)(?: choice| pick| verdict)? ?: ?{_L_END}", LINE_START, None),  # "Final: B" (letters-v5)
    # "The correct option is B", "The most likely diagnosis is (E) Retinoblastoma", "My choice: D"
    (rf"{_MODIFIER}(?:option|choice|selection|diagnosis|response|one){_VERB}{_ADVERB}{_OPTION}{_L_END}", WORD_BEFORE, None),
    # letters-v11: "the next best step is **D. ...**", "The most appropriate management would be B"
    (rf"(?:next|best|most appropriate|appropriate|initial|first)(?: best| next)? (?:step|management|investigation|test|"
     rf"treatment|intervention)(?: in management)?{_VERB}{_ADVERB}{_OPTION}{_L_END}", WORD_BEFORE, None),
    # "the most likely is C", "the likeliest one is B" (letters-v7)
    (rf"(?:most likely|most probable|likeliest|best)(?: one| pick| bet)? (?:is|would be|remains) {_ADVERB}{_OPTION}{_L_END}",
     WORD_BEFORE, None),
    # "C is the correct answer", "Option D is most likely", "B is correct", "D - most likely" (a verdict table)
    (rf"(?:(?:option|choice|answer|letter) )?{_L}[)\]]?"
     rf"(?: (?:is|would be|seems to be|appears to be|must be)(?: the)? (?:(?P<final>final answer)|answer|{_VERDICT})"
     rf"| ?[-–—:|] {_VERDICT})", WORD_BEFORE, _verdict_stands),
    # "most consistent with D", "D fits the picture", "fits D best", "Hence, C."
    (rf"most consistent with (?:(?:option|choice|answer) )?{_L_END}", None, None),
    (rf"makes (?:(?:option|choice) )?{_L}[)\]]? (?:the )?(?:{_VERDICT}|answer)", WORD_BEFORE, _verdict_stands),  # "makes C the most likely"
    # letters-v7: "... makes it B.", "Most likely B." (a sentence ending with the letter)
    (rf"(?:makes (?:it|this)|most likely|most probably|probably)[,:]? (?:(?:option|choice) )?{_L}[)\]]?", WORD_BEFORE,
     lambda tail: _sentence_ends(tail) or _GLOSS_ENDS.match(tail[:80]) is not None or _REASON_OPENS.match(tail[:4]) is not None),
    # letters-v13: "This most likely represents A — the right ovary is ...", "probably reflects D: ..."
    (rf"(?:most likely|most probably|probably|likely) (?:represents|reflects) (?:(?:option|choice) )?\(?\[?(?P<l>(?-i:[A-Z]))[)\]]?",
     WORD_BEFORE, lambda tail: _sentence_ends(tail) or _REASON_OPENS.match(tail[:4]) is not None),
    (rf"(?:(?:option|choice) )?{_L}[)\]]? (?:fits|matches)"
     r"(?: (?:the|this) [a-z]{1,20}(?: [a-z]{1,20})?)?(?: best| better| well)?", WORD_BEFORE,
     lambda tail: tail[:1] in ("", ".", ",", ";", "!", "\n") or _REASON_FOLLOWS.match(tail[:10]) is not None),
    (rf"(?:fits|matches)(?: (?:option|choice))? {_L}[)\]]? (?:best|better)", None, None),
    # letters-v12: "So the finding that is NOT present is C.", "The device not seen is E." (a which-is-absent item)
    (rf"(?:finding|device|feature|structure|abnormality|sign|line|tube|one|option)(?: that is| which is| that's)? not "
     rf"(?:present|seen|visible|shown|identified|demonstrated)(?: here| on (?:the|this) (?:image|film|study|radiograph))?"
     rf"(?: is|:) {_L_END}", WORD_BEFORE, None),
    # letters-v13: "These features are typical of option B.", "characteristic of choice C."
    (rf"(?:typical|characteristic|classic|diagnostic|suggestive|indicative) (?:of|for) (?:option|choice) {_L}[)\]]?",
     WORD_BEFORE, _sentence_ends),
    # letters-v12: "... most closely matches option A.", "best corresponds to C.", "corresponds to option A."
    (rf"corresponds to (?:option|choice) {_L}[)\]]?", WORD_BEFORE, _sentence_ends),
    # letters-v12: "the option that best matches is C, pyogenic granuloma."
    (rf"(?:option|choice|answer|one) that (?:best |most closely )?(?:matches|fits|corresponds)(?: best)?(?: is| would be)"
     rf"{_ADVERB} {_L_END}", WORD_BEFORE, None),
    (rf"(?:most closely|most|best|closely) (?:matches|fits|corresponds to|resembles)(?: (?:option|choice))? {_L}[)\]]?",
     WORD_BEFORE, _sentence_ends),
    (rf"(?:hence|therefore|thus|so|accordingly),? (?:actually |then |really )?(?:it(?:'s| is) )?(?:(?:option|choice) )?{_L}[)\]]?", WORD_BEFORE,
     _sentence_ends),
    (rf"(?:favou?rs?|favou?ring|points? to|supports?|tips? towards?) (?:(?:option|choice) )?{_L}[)\]]?", WORD_BEFORE,
     _sentence_ends),  # v12: "On balance, this tips toward D."
    # "i think it's e.", "It is most likely C." (letters-v5; lower case counts only before punctuation or the end)
    (rf"it(?:['’]s| is| should be| must be| has to be)(?: (?:probably|likely|most likely|definitely|clearly))? (?:(?:option|choice) )?{_L}[)\]]?",
     WORD_BEFORE, _sentence_ends),
    # "I choose C", "I'd go with option B", "We select (D)", "I lean towards D"
    (r"(?:I|we)(?: would| will| am| are|['’]d|['’]ll|['’]m)?"
     r" (?:choose|chose|select|pick|go with|opt for|say|lean(?:ing)? towards?|(?:am )?(?:going|opting) (?:with|for)|"
     r"(?:am )?(?:choosing|selecting|picking))"
     rf"(?: (?:option|choice|answer|letter))?:? {_L_END}", WORD_BEFORE, None),
    # letters-v10: "Going with C.", "Let's go with C", "Settling on C", "My pick: C", "C it is."
    (rf"(?:go(?:ing)? with|settl(?:e|ing) on|choosing|my (?:pick|vote|bet|guess))(?: is)?:? (?:(?:option|choice) )?{_L}[)\]]?",
     NOT_NEGATED, lambda tail: _sentence_ends(tail) or _GLOSS_ENDS.match(tail[:80]) is not None),
    (rf"{_L} it is", WORD_BEFORE, lambda tail: tail[:1] in ("", ".", "!", "\n")),
    # structured output: \boxed{C}, <answer>C</answer>, {"answer": "C"}
    (rf"(?P<final>\\boxed\{{) ?(?:\\text(?:bf)?\{{|\\mathrm\{{)? ?{_L_END}", None, None),
    (rf"(?P<final><answer>) ?{_L_END}", None, None),
    (rf"(?P<final>[\"'](?:final ?answer|answer|choice|option|selected ?option|prediction|letter)[\"']) ?: ?[\"']? ?{_L_END}",
     None, None),
    # Spanish, Portuguese, French, Italian, German
    (r"(?:(?:richtige|korrekte|bonne|(?P<final>endgültige)) )?"
     r"(?:respuesta|resposta|réponse|reponse|risposta|antwort|lösung)"
     r"(?: (?:correcta|correta|correcte|corretta|juste|richtige|(?P<final2>final|finale)))?"
     r"(?: ?: ?| (?:es|é|est|è|ist|lautet|sería|seria|serait|sarebbe)(?: ?:)? )"
     rf"(?:(?:la |a |l')?(?:opción|opcion|opção|opcao|option|opzione|alternativa) |(?:la|el|a|le|die) )?{_L_END}",
     PY_WORD_BEFORE, None),
    # Chinese, Japanese, Korean: "答案：C", "正确答案是 B", "最终答案为D", "正确选项是C", "故选D", "C正确"
    (rf"(?P<final>最终|最終|最后|最後)?的?(?:正确|正確)?(?:答案|答え|正解|정답)(?:应该|應該|应|應)?"
     rf"(?:改为|改選|改选)?(?:是|为|為|は|选|選)?:? ?(?:选项|選項)? ?{_L_END}", None, None),  # v12: "答案改为B"
    (rf"(?:正确|正確|最佳|最合适的|最合适|最终|最終)的?(?:选项|選項|选择|選択)(?:应该|应)?(?:是|为|為|は)?:? ?{_L_END}", None, None),
    # letters-v12: "最可能的诊断是 D", "首先考虑 C" (leans, "倾向于 A，但…", are letter_leans.py's)
    (rf"(?:最可能|最符合|最有可能)的?(?:诊断|選項|选项)(?:应该|应)?(?:是|为|為)?:? ?{_L_END}", None, None),
    (rf"(?:首先考虑|首选|考虑为) ?(?:选项)? ?{_L_END}", None, None),
    # "选" before "项"/"择" starts another word; what may follow here (":", " ", a letter) never is one
    (rf"(?:选择|選擇|选|選)(?:择)?:? ?{_L_END}", NOT_BU, None),
    (rf"(?:选项|選項)? ?{_L}[)\]]? ?(?:选项|選項)?(?:是)?(?:正确|正確)", None, None),
)
STATEMENTS = [(re2.compile("(?i)" + p), before, after) for p, before, after in _EXPLICIT_SPECS]

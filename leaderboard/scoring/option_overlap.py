"""A short answer that tells one long option from its siblings answers it (rule letters-v12, step 4, last).

Report-style items offer long options that share most of their words ("Right upper / Right middle / Right lower /
Left lower lobe consolidation with air bronchograms", "Left PICC with tip at the cavoatrial junction"). A model often
answers with the words that tell its option apart and leaves the rest out: "Saddle PE.", "Left PICC, tip at the CAJ.",
"The nodule is a ground-glass nodule.", "右肺中叶实变伴支气管充气征" (right middle lobe consolidation with air
bronchograms). A careful reader takes the one option whose telling words the answer uses and whose siblings' telling
words it does not.

How: each option's content words less the words every option has are its telling words. The response's words (folded
as option_text folds; a few abbreviations written out, "CAJ" -> "cavoatrial junction"; Chinese report terms glossed
in English, "右肺中叶" -> "right middle lobe") score each option: telling words used, less other options' telling words
used that this option lacks. The one best option, ahead by one at least, answers. Only when no earlier step found
anything, every option is written in Latin letters with four content words or more, and the response is short (600 characters; one longer than 120 must end its sentence), asks nothing, and
hedges, refuses or denies nothing (a denial may only repeat the winner's own: "no rotation").
"""
from __future__ import annotations

from typing import Sequence

from .cjk import has_cjk
from .option_text import fold, folded_option

_MAX_CHARS = 600
_STOP = frozenset(("the", "a", "an", "of", "in", "at", "with", "to", "and", "on", "for", "is", "by", "its", "it", "this",
                   "that", "are", "be", "as", "from", "into", "seen", "there", "shows", "show", "image", "i", "see"))
_BLOCKING = frozenset(("or", "either", "cannot", "cant", "unable", "unsure", "uncertain", "whether", "if", "differential",
                       "versus", "vs", "maybe", "perhaps", "could", "might", "may", "possibly", "possible", "unclear",
                       "indeterminate", "neither", "nor", "sorry", "except", "apart", "but", "however", "although",
                       "though"))
_DENIALS = frozenset(("no", "not", "without", "absent", "isnt", "arent", "doesnt", "never", "none"))
_CJK_BLOCKING = ("或", "可能", "无法", "不能", "不确定", "未见", "没有", "不是", "并非", "除外", "鉴别", "？")
# abbreviations report answers use, written out for the comparison only
_WRITTEN_OUT = {"caj": "cavoatrial junction", "aicd": "implantable cardioverter defibrillator",
                "icd": "implantable cardioverter defibrillator", "pe": "pulmonary embolus embolism",
                "ett": "endotracheal tube", "ngt": "nasogastric tube", "ng": "nasogastric", "cvc": "central venous catheter",
                "ij": "internal jugular", "ijv": "internal jugular vein", "svc": "superior vena cava", "rv": "right ventricle",
                "ra": "right atrium", "rul": "right upper lobe", "rml": "right middle lobe", "rll": "right lower lobe",
                "lul": "left upper lobe", "lll": "left lower lobe", "uip": "usual interstitial pneumonia",
                "nsip": "nonspecific interstitial pneumonia", "ggo": "ground glass opacity", "ggn": "ground glass nodule",
                "aspergilloma": "mycetoma", "pneumoperitoneum": "free subdiaphragmatic air", "cxr": "chest radiograph",
                "ptx": "pneumothorax", "picc": "picc peripherally inserted central catheter"}
# Chinese report terms and their English words (longest first when read)
_GLOSSARY = {"右肺上叶": "right upper lobe", "右肺中叶": "right middle lobe", "右肺下叶": "right lower lobe",
             "左肺上叶": "left upper lobe", "左肺下叶": "left lower lobe", "舌段": "lingular", "右侧": "right",
             "左侧": "left", "双侧": "bilateral", "两侧": "bilateral", "右肺门": "right hilar", "左肺门": "left hilar",
             "肺门": "hilar", "纵隔": "mediastinal", "隆突下": "subcarinal", "淋巴结肿大": "lymphadenopathy",
             "实变": "consolidation", "支气管充气征": "air bronchograms", "胸腔积液": "pleural effusion",
             "少量": "small", "中量": "moderate", "大量": "large", "气胸": "pneumothorax", "肺气肿": "emphysema",
             "小叶中心型": "centrilobular", "支气管扩张": "bronchiectasis", "柱状": "cylindrical", "心影增大": "cardiomegaly",
             "吸气不足": "poor inspiration", "吸气充分": "adequate inspiration", "向左旋转": "rotated left",
             "向右旋转": "rotated right", "无旋转": "no rotation", "磨玻璃": "ground glass", "实性": "solid",
             "部分实性": "part solid", "钙化": "calcified", "结节": "nodule", "空洞": "cavity cavitating", "厚壁": "thick walled",
             "薄壁": "thin walled", "气液平": "air fluid level", "上叶": "upper lobes", "下叶": "lower lobes",
             "气管插管": "endotracheal tube", "胃管": "nasogastric tube", "胸腔引流管": "chest drain", "肺尖": "apex"}
_MIN_OPTION_WORDS = 4  # content words, every option: report-style options only


def _content(words) -> set[str]:
    return {w for w in words if w not in _STOP}


def _response_words(source: str) -> set[str] | None:
    """The response's content words for the comparison, or None when it asks, hedges, refuses or is too long."""
    if len(source) > _MAX_CHARS or "?" in source or any(cue in source for cue in _CJK_BLOCKING):
        return None
    if len(source) > 120 and source.rstrip()[-1:] not in ".。!！)）":
        return None  # a longer answer must end its sentence: one cut off has not concluded
    words = fold(source).text.split()
    if _BLOCKING.intersection(words):
        return None
    out = set(words)
    for word in words:
        out.update(_WRITTEN_OUT.get(word, "").split())
    if has_cjk(source):
        rest = source
        for term in sorted(_GLOSSARY, key=len, reverse=True):
            if term in rest:
                out.update(_GLOSSARY[term].split())
                rest = rest.replace(term, " ")
    return _content(out)


def overlapping_option(source: str, options: Sequence[str]) -> int | None:
    """The index of the one long option the response's telling words point to (module docstring), else None."""
    if any(has_cjk(o or "") for o in options):
        return None  # Chinese options fold one character a word: no telling words to compare
    option_words = [{w for w in _content(folded_option(o).split()) if not w.isdigit()} for o in options]
    if len(option_words) < 2 or min(map(len, option_words)) < _MIN_OPTION_WORDS:
        return None  # (numbers are read as numbers: option_numbers, option_counts)
    said = _response_words(source)
    if not said:
        return None
    common = set.intersection(*option_words)
    telling = [ws - common for ws in option_words]
    scores = []
    for k, own in enumerate(telling):
        others = set().union(*(t for j, t in enumerate(telling) if j != k)) - option_words[k]
        scores.append(len(own & said) - len(others & said))
    best = max(scores)
    winners = [k for k, score in enumerate(scores) if score == best]
    if best < 1 or len(winners) != 1:  # (integers: the one best is ahead by one at least)
        return None
    if _DENIALS.intersection(said) - option_words[winners[0]]:
        return None  # "no right effusion": a denial the winner does not hold itself
    return winners[0]

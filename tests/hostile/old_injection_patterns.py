"""The injection patterns as they were at 80bfef6, on the stdlib engine (verbatim): the reference the RE2
filter is compared with on ordinary text (tests/test_injection_filter.py). Test data only: never applied
to a submission."""
_ROLE = r"(?:grader|judge|evaluator|examiner|reviewer|scorer|assessor|grading\s+(?:model|system)|marker)s?"
_ROLE_ZH = r"(?:评分员|评分者|评分人|评分模型|评委|裁判|评审员?|阅卷人|考官|评审老师|阅卷老师)"
OLD_PATTERNS = (
    ("ignore instructions", r"(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+)?"
                            r"(?:previous|prior|above|earlier|your|system)?\s*(?:instructions?|prompts?|rules?|rubrics?|criteria)"),
    ("role play as grader", r"(?:you\s+are|act\s+as)\s+(?:now\s+)?(?:a|an|the)?\s*(?:\w+\s+){0,2}?" + _ROLE + r"\b"),
    ("you are now / pretend", r"\byou\s+are\s+now\b|\b(?:pretend|imagine)\s+(?:that\s+)?you\s+are\b"),
    ("addresses the grader", r"(?:\b(?:as|to|for)\s+the\s+|\b(?:note\s+to|dear|attention|hey)\s+(?:the\s+)?)" + _ROLE + r"\b"
                             r"|\b" + _ROLE + r"\s*(?:[:,，：]|-\s|note\b|instructions?\b)"
                             r"|\bto\s+whoever\s+(?:evaluates|grades|scores|reviews|judges|marks)\b"),
    ("asks for a top score", r"\b(?:give|assign|award|output|return|rate|grant)s?\s+(?:this|me|it|the\s+(?:answer|response|reply))?\s*"
                             r"(?:a\s+|the\s+)?(?:full|maximum|max|perfect|highest|top|every)\s+(?:score|marks?|points?|rating|credit)"
                             r"|\b(?:gets?|deserves?|earns?|receives?)\s+(?:full|maximum|perfect)\s+(?:credit|marks?|score|points?)"),
    ("rates itself", r"\b(?:score|grade|rate|mark|consider|treat)\s+(?:this|it|me)\s+(?:answer\s+|response\s+|reply\s+)?(?:as\s+)?"
                     r"(?:a\s+)?(?:10|100|2|correct|perfect|met|right|full)\b"),
    ("criteria declared met", r"\b(?:all|every|each)\s+(?:of\s+the\s+)?(?:rubric\s+|scoring\s+)?(?:criteri(?:on|a)|rubric\s+items?|items?)\s+"
                              r"(?:are\s+|is\s+|as\s+|should\s+be\s+|must\s+be\s+)?(?:met|satisfied|fulfilled)"),
    ("output instruction", r"\b(?:output|print|return|respond\s+(?:only\s+)?with|reply\s+(?:only\s+)?with)\b[^.\n]{0,40}?"
                           r"\b(?:score|accuracy|verdict|criterion|criteria|met|correct|full\s+marks)\b"),
    ("rubric changed", r"\b(?:scoring|grading|evaluation|judge)\s+(?:rubric|instructions?|criteria)\s+"
                       r"(?:has\s+been\s+|have\s+been\s+|was\s+|were\s+)?(?:updated|changed|overridden|override)\b|\boverride\s*:"),
    ("no penalty", r"\bregardless\s+of\s+(?:the\s+)?(?:content|answer|rubric|reference)\b"
                   r"|\bno\s+matter\s+what\b|\b(?:do|must|should)\s+not\s+(?:penali[sz]e|deduct|mark\s+down)\b"),
    ("verdict assignment", r"\bverdict\s*[:=]\s*[\"']?(?:correct|met|pass|true|yes)\b|\b(?:score|grade)\s*=\s*[\"']?[\w+]"),
    ("system or role marker", r"\bsystem\s*(?:prompt|message|override)\s*:|</?\s*(?:system|candidate_response|instructions?)\s*>"
                              r"|<\|\s*(?:im_start|im_end|system|assistant|user)\s*\|>|^\s*\[?\s*(?:system|assistant)\s*[\]:]"
                              r"|###\s*(?:instruction|system|response)\b"),
    ("fake JSON verdict", r"\{\s*\"?(?:score|verdict|met|rating|grade|accuracy|consistency|coherence|visual_accuracy|ground_truth|"
                          r"criteri(?:on|a)|pass)\"?\s*:"),
    # Chinese
    ("忽略指令", r"(?:忽略|无视|忘记|忽视)[^。！？\n]{0,10}?(?:指令|指示|说明|规则|提示|标准|参考答案)"),
    ("扮演评分员", r"你(?:现在)?(?:是|作为)[^。，！？\n]{0,8}?" + _ROLE_ZH + r"|作为" + _ROLE_ZH),
    ("称呼评分员", r"(?:致|请|供|给)" + _ROLE_ZH + r"|" + _ROLE_ZH + r"(?:请注意|须知|注意|[:：，,]|请|直接|忽略|参考)"),
    ("要求满分", r"(?:给|打|得|为|给出|评为?|判)(?:这个|此|该|本)?(?:回答|回复|答案)?(?:打|个)?(?:满分|最高分)"
                 r"|给(?:这个|此|该|本)(?:回答|回复|答案)[^。！？\n]{0,4}?分"),
    ("宣称满足标准", r"(?:满足|符合|通过)(?:了)?(?:全部|所有|每一?条|每项)(?:的)?(?:评分)?(?:标准|要求|条目|要点)"
                     r"|(?:标记|判|判定|视|评)为(?:已)?(?:满足|通过|正确)|(?:判定|评为|视为)(?:所有|全部)?(?:标准|条目)?(?:都|均)?(?:已满足|满足|通过)"
                     r"|判定(?:本|该|此)?(?:回答|答案|回复)?(?:完全)?正确"),
    ("系统标记", r"(?:【|\[)\s*(?:系统|system)\s*(?:】|\])|系统(?:提示|消息|指令)\s*[:：]|评分(?:已完成|已结束)|评分[:：]\s*\d{2,3}\b"),
)
# benchmarks/medrealmm/judging.py's own Chinese regex (removed: the shared filter covers Chinese)
OLD_ZH_INJECTION = (
    r"(忽略|无视|忘记|忽视)(掉)?(之前|以上|上面|前面|所有|全部)?的?(所有|全部)?(指令|指示|提示词?|规则|评分标准|要求)"
    r"|(你|您)(现在)?(是|作为|扮演)(一名|一个)?(评分员|评分者|评委|裁判|评估员|评审)"
    r"|(评分员|评分者|评委|裁判|评估员|评审)(请|你|您|注意)"
    r"|(给|打|判)(我|这个?|本|该)?(回答|回复|答案)?(满分|最高分|全部得分)"
    r"|(所有|全部|每[一条个]?)(评分)?标准(都)?(判定?为|视为|算作?)?(满足|符合|达到|met|true)"
    r"|\"?met\"?\s*[:：]\s*true"
)

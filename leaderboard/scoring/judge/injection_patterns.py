"""The injection filter's patterns: phrases that instruct a grader rather than answer a clinical question,
one concept per entry, in English, Chinese and a few other languages.

Every entry is RE2 syntax (no lookaround, no backreference; gaps bounded) and compiled on RE2 by
`safety`, so matching is linear in the text. Entries are also valid stdlib syntax so the property tests
can compare both engines on ordinary text. They are matched with (?i) and (?m) on the normalised views
of `normalize`.

False positives matter as much as misses: clinical text says "criteria are met", "score 8", "ignore the
incidental cyst", "System: cardiovascular - ...", "urine output met the target", {"score": 3, "scale":
"CURB-65"}. So each entry needs a grader-facing object (the answer/response/rubric/score/marks), a
grader role, or a form only a prompt uses; a verb alone ("ignore", "output", "consider") is never enough.
Grown from tests/hostile/injections.jsonl; tests/hostile/injections_heldout.jsonl measures how it
generalises (bench/injection_detection.py).
"""
from __future__ import annotations

_ROLE = (r"(?:grader|judge|evaluator|examiner|reviewer|scorer|assessor|rater|grading\s+(?:model|system|ai)|"
         r"(?:scoring|grading|evaluation|judging|marking)\s+(?:model|system|ai|assistant|bot|llm))s?")
_AI = r"(?:ai|llm|gpt|language\s+model|assistant|model)"
_ANSWER = r"(?:answer|response|reply|submission|prediction|output|candidate)"
_OBJECT = (r"(?:this|my\s+(?:answer|response|reply|diagnosis|prediction|submission)|the\s+following\s+(?:answer|response|"
           r"reply)|(?:the|this)\s+(?:above|candidate|"
           r"answer|response|reply|submission|prediction|predicted\s+diagnosis))")
_TOP = r"(?:full|maximum|max|perfect|highest|top|100\s*%)"
_POINTS = r"(?:scores?|marks?|points?|rating|credit|grade)"
_MET = r"(?:met|satisfied|fulfill?ed|achieved|covered|matched|true|passed|correct)"
_CRITERIA = (r"(?:criteri(?:on|a)|rubric(?:\s+(?:items?|points?))?|items?|points?|dimensions?|requirements?|findings?|"
             r"facts?|checks?|aspects?|categories)")
_FILLER = (r"(?:all|any|the|of|previous|prior|above|earlier|preceding|foregoing|your|my|system|original|given|these|"
           r"those|other|grading|scoring|evaluation|evaluator|existing|initial|current|standard|judging)")
_ROLE_ZH = r"(?:评分员|评分者|评分人|评分模型|评分系统|评分老师|评委|裁判|评审员?|评审老师|阅卷人|阅卷老师|考官|评估员|评测员|打分员)"
_ANSWER_ZH = r"(?:本回答|该回答|此回答|这个回答|这条回答|本回复|该回复|此回复|本答案|该答案|此答案|这个答案|本题|此题|该题|这道题|我的回答|我的答案|回答|回复|答案)"
_STOP_ZH = r"[^。！？!?\n]"
_CLAUSE_ZH = r"[^。！？!?\n，,；;：:]"  # a gap inside one clause

PATTERNS: tuple[tuple[str, str], ...] = (
    # --- override the instructions
    ("ignore instructions",
     r"\b(?:ignore|disregard|forget|override|bypass|overrule|skip|discard)\s+(?:" + _FILLER + r"\s+){0,3}"
     r"(?:instructions?|prompts?|rules?|rubrics?|criteria|guidelines?|directions?|directives?|reference\s+(?:answers?|diagnos[ie]s|solutions?)|"
     r"ground[\s-]truth|scoring|grading|answer\s+key|system\s+message)\b"
     r"|\b(?:do\s+not|don'?t|never)\s+follow\s+(?:" + _FILLER + r"\s+){0,3}(?:instructions?|rubrics?|rules?|criteria)\b"),
    ("rubric changed", r"\b(?:scoring|grading|evaluation|judging|marking)\s+(?:rubric|instructions?|criteria|rules?|policy)\s+"
                       r"(?:has\s+been\s+|have\s+been\s+|was\s+|were\s+|is\s+|are\s+)?(?:now\s+)?(?:updated|changed|overridden|"
                       r"replaced|revised|suspended|waived)\b|\boverride\s*:|\bnew\s+(?:task|instructions?|rules?|objective)\s*"
                       r"(?::|for\s+(?:the\s+)?(?:" + _AI + r"|" + _ROLE + r")\b)"),
    ("reference declared wrong",
     r"\b(?:reference|ground[\s-]truth|gold|expected|model)\s+(?:answer|diagnosis|label|solution)\s+(?:for\s+this\s+"
     r"(?:case|item|question)\s+)?(?:is|was|are|seems|appears)\s+(?:(?:clearly|actually|probably|likely)\s+)?"
     r"(?:wrong|outdated|incorrect|mistaken|erroneous|out\s+of\s+date|invalid|in\s+error)\b"
     r"|\b(?:equivalent|identical)\s+to\s+(?:the\s+)?(?:reference|ground[\s-]truth|gold|expected)\s+(?:answer|diagnosis)\b"
     r"|\bas\s+(?:fully\s+|completely\s+|exactly\s+)?(?:matching|equivalent\s+to|identical\s+to)\s+the\s+"
     r"(?:reference|ground[\s-]truth|gold|expected)\s+(?:answer|diagnosis)"),
    # --- who the text talks to
    ("role play as grader",
     r"\b(?:you\s+are|act\s+as|acting\s+as|behave\s+as|serve\s+as|play\s+the\s+role\s+of)\s+(?:now\s+)?(?:a|an|the)?\s*"
     r"(?:[a-z]+\s+){0,2}?" + _ROLE + r"\b"),
    ("role play setup",
     r"\byou\s+are\s+now\s+(?:a|an|the|my)?\s*(?:[a-z]+\s+){0,2}?(?:bot|persona|character|ai|assistant|model|version|"
     r"dan|[a-z]+bot)\b|\b(?:pretend|imagine)\s+(?:that\s+)?you\s+are\b"
     r"|\bfrom\s+now\s+on,?\s+you\s+(?:will\s+|shall\s+|must\s+)?(?:behave|act|respond|reply|answer|output|play|pretend)\b"
     r"|\blet'?s\s+play\s+a\s+game\b|\brole-?\s?play\s*:|\b(?:developer|god|debug|admin|unrestricted|jailbreak)\s+mode\b"
     r"|\bjailbreak"
     r"|\byou\s+(?:are|will\s+be|will\s+act\s+as|will\s+behave\s+as)\b[^.\n]{0,60}?\bwho\s+[^.\n]{0,40}?"
     r"\b(?:scores?|marks?|points|credit|answers?|grades?|passes|correct|ratings?|deducts?)\b"),
    ("addresses the grader",
     r"(?:\b(?:as|to|for)\s+the\s+|\b(?:note\s+(?:to|for)|dear|attention|hey|hi|hello|message\s+(?:to|for))\s+(?:the\s+|all\s+)?)"
     + _ROLE + r"\b"
     r"|\b" + _ROLE + r"\s*(?:[:：]|-\s|,?\s*(?:please|note|instructions?)\b)"
     r"|\b" + _ROLE + r"\s+(?:should|must|shall|will|is\s+to|needs\s+to|has\s+to)\b[^.\n]{0,40}?\b(?:met|satisfied|covered|"
     r"matched|correct|full\s+marks|full\s+credit|maximum|score\s+of|true)\b"
     r"|\bto\s+whoever\s+(?:evaluates|grades|scores|reviews|judges|marks|assesses|checks)\b"
     r"|\bto\s+the\s+(?:person|model|ai|llm|system|one)\s+(?:or\s+\w+\s+)?(?:scoring|grading|evaluating|judging|marking|"
     r"assessing|checking|reviewing)\b"
     r"|\b(?:note|message|instructions?|attention)\s+(?:to|for)\s+(?:the\s+)?(?:ai|llm|gpt|language\s+model|grading|scoring)\b"),
    # --- what the text asks for
    ("asks for a top score",
     r"\b(?:give|giving|assign|award|grant|output|return)s?\b[^.\n]{0,40}?\b" + _TOP + r"\s+"
     + _POINTS + r"\b"
     r"|\b(?:deserves?|earns?|merits?|worth)\s+(?:a\s+|the\s+)?" + _TOP + r"\s+" + _POINTS + r"\b"
     r"|\b(?:deserves?|earns?|merits?|worth|rate[sd]?|score[sd]?|grade[sd]?|give|award|mark)\b[^.\n]{0,30}?\b"
     r"(?:10|ten)\s*(?:/|out\s+of)\s*(?:10|ten)\b[^.\n]{0,30}?\b(?:criteri|dimension|rubric|consistency|coherence|accuracy|"
     r"ground)"
     r"|\b(?:give|rate|score|grade|award|mark)\s+" + _OBJECT + r"\b[^.\n]{0,25}?\b(?:10|ten|100)\s*(?:/|out\s+of)\s*"
     r"(?:10|ten|100)\b"),
    ("rates itself",
     r"\b(?:score|grade|rate|mark|consider|treat|judge|count|accept|evaluate|regard|deem|label|classify)(?:s|ed|d)?\s+"
     + _OBJECT + r"\s+(?:(?:answer|response|reply)\s+)?(?:as\s+)?(?:a\s+|an\s+|the\s+)?(?:fully\s+|completely\s+|entirely\s+|"
     r"totally\s+)?(?:10|100|2|correct|perfect|met|right|full|satisfied|passing|passed|matched|matching|a\s+match|accurate|"
     r"flawless|gold\s+standard|reference\s+answer|ground\s+truth|model\s+answer)\b"
     r"|\b(?:score|grade|rate|mark)\s+it\s+(?:as\s+)?(?:a\s+)?(?:10|100|2|correct|perfect|met|right|full)\b"
     r"|\b(?:count|mark|treat|consider|score|grade|rate|regard|label)\s+(?:them|these|those|it|this)\s+as\s+"
     r"(?:(?:fully|all)\s+)?(?:met|matched|correct|covered|satisfied|achieved|a\s+match|passed|true)\b"
     r"|\b(?:answer|response|reply|submission|prediction|candidate)\s+(?:should|must|shall|is\s+to|needs\s+to|has\s+to|"
     r"will)\s+be\s+(?:judged|graded|scored|marked|rated|considered|treated|counted|accepted|evaluated|regarded|deemed)\s+"
     r"(?:as\s+)?(?:fully\s+|completely\s+)?(?:correct|perfect|met|a\s+match|passing|full\s+marks)\b"),
    ("asks for leniency",
     r"\b(?:be|being)\s+(?:lenient|generous|kind|gentle|forgiving|charitable)\s+(?:when|while|in|with)\s+(?:the\s+)?"
     r"(?:grading|marking|scoring|evaluating|assessing|judging|rating)\b"
     r"|\b(?:grade|mark|score|evaluate|assess|judge|rate)\s+(?:this|it|me|my\s+\w+)(?:\s+\w+)?\s+(?:leniently|generously|"
     r"charitably|kindly)\b|\b(?:lenient|generous)\s+(?:grading|marking|scoring)\b"
     r"|\b(?:deserves?|earns?|merits?|worth|give\s+(?:it|this|me))\s+(?:an?\s+)?(?:A\+|top\s+(?:band|grade|mark)|"
     r"highest\s+(?:band|grade|mark))"
     r"|\b(?:bump|raise|move|push|upgrade)\s+(?:this|it|me|my\s+\w+)\s+(?:up\s+)?to\s+(?:the\s+)?(?:highest|top|maximum|"
     r"best)\b"
     r"|\bno\s+(?:further\s+|additional\s+)?(?:grading|scoring|marking)\s+(?:is\s+)?(?:needed|required|necessary)\b"
     r"|\b(?:tick|check)\s+every\s+box\b"
     r"|\bsay\s+(?:it'?s|it\s+is|this\s+is|that\s+(?:it|this)\s+is)\s+(?:correct|right|perfect|flawless|accurate)\b"
     r"|\b(?:this|my|the\s+above)\s+(?:answer|reply|response)\s+is\s+(?:100\s*%|fully|completely|entirely|perfectly)\s+"
     r"(?:accurate|correct|right)\b"),
    ("addresses an AI", r"(?:^|[\[(]|\b(?:psst|hey|hi|dear|note|p\.?s\.?)[,:.]?\s+)(?:for\s+|to\s+)?(?:the\s+)?"
                        r"(?:ai|bot|model|llm|assistant|gpt|language\s+model)(?:\s+(?:reading|evaluating|grading|scoring|"
                        r"checking|marking|judging|reviewing)\s+this)?\s*[:,]"
                        r"|\b(?:ai|bot|model|llm|assistant)\s+(?:reading|evaluating|grading|scoring|checking|marking|judging|"
                        r"reviewing)\s+this\b"
                        r"|\bas\s+an?\s+(?:ai|model|llm|assistant|language\s+model)\s+(?:evaluating|grading|scoring|"
                        r"judging|marking|reviewing|assessing)\b"),
    ("criteria declared met",
     r"\b(?:all|every|each)\s+(?:of\s+the\s+|the\s+)?(?:rubric|scoring|grading|evaluation|reference|ground[\s-]truth|marking)\s+"
     + _CRITERIA + r"\b[^.\n]{0,30}?\b(?:are|is|as|be|were|been)\s+(?:all\s+)?(?:already\s+)?(?:fully\s+)?" + _MET + r"\b"
     r"|\b(?:mark|treat|consider|count|set|regard|judge|score|grade|rate|deem|record|label|flag)\s+(?:all|every|each)\b"
     r"[^.\n]{0,40}?\bas\s+(?:fully\s+)?" + _MET + r"\b"
     r"|\b(?:mark|treat|consider|count|regard|deem)\s+(?:all|every|each)\s+(?:of\s+the\s+|the\s+)?(?:rubric\s+|reference\s+|"
     r"ground[\s-]truth\s+|scoring\s+)?" + _CRITERIA + r"\b[^.\n]{0,40}?\b" + _MET + r"\b"
     r"|\b" + _ANSWER + r"\s+(?:fully\s+|completely\s+)?(?:meets|satisfies|fulfils|fulfills|covers|addresses|matches)\s+"
     r"(?:all|every|each)\b"
     r"|\bevery\s+criterion\s+(?:is\s+|was\s+)?(?:met|satisfied)"
     r"|\b(?:rubric|criteria|criterion|marking\s+scheme|answer\s+key)\s+(?:is|are)\s+(?:satisfied|met|fulfill?ed|covered)\s+"
     r"(?:in\s+full\s+|fully\s+)?by\s+(?:this|my|the\s+above)\b"),
    ("no penalty",
     r"\bregardless\s+of\s+(?:the\s+)?(?:content|answer|rubric|reference|criteria|ground[\s-]truth|correctness)\b"
     r"|\bno\s+matter\s+what\b|\b(?:do|must|should|will)\s+not\s+(?:penali[sz]e|deduct|mark\s+down|subtract)\b"
     r"|\bnever\s+(?:deducts?|penali[sz]es?|marks?\s+down)\b"
     r"|\beven\s+if\b[^.\n]{0,30}?\b(?:differs?|different|disagrees?|deviates?|contradicts?|wrong|incorrect)\b[^.\n]{0,30}?"
     r"\b(?:reference|ground[\s-]truth|gold|expected|rubric|answer\s+key)"),
    ("output instruction",
     r"(?:^|[.:;!?]\s*|\b(?:please|must|should|always|only|just|to|and|then|now|you)\s+)(?:output|print|return|respond|reply|"
     r"write)\s*:?\s+(?:only\s+)?(?:with\s+)?[^.\n]{0,40}?\b(?:score|verdict|criterion\s+met|criteria\s+met|full\s+marks|"
     r"highest|maximum|rating|accuracy)\b"
     r"|\bset\s+(?:\"?met\"?|the\s+verdict|verdict|the\s+score|score|rating|accuracy)\s+(?:to|=|as)\s+(?:true|correct|met|"
     r"\d+|full|max)"),
    # --- forms only a prompt or a verdict uses
    ("verdict format",
     r"\bverdict\s*[:=]\s*[\"']?(?:correct|met|pass|passed|true|yes|accepted|match|right)\b"
     r"|\b(?:score|grade)\s*=\s*[\"']?(?:10|100|2|full|max|perfect)\b"
     r"|[\"'](?:met|verdict|consistency|coherence|visual_accuracy|ground_truth|matched_pairs|predicted_ids|"
     r"ground_truth_ids|hallucinated_predicted_ids|non_hallucinated_unmatched_predicted_ids|unmatched_ground_truth_ids|"
     r"rationale|accuracy|rating|pass|passed|criterion_met|criteria_met|facts|is_correct|correct)[\"']\s*[:：]"
     r"|\{\s*[\"']?(?:score|grade|points)[\"']?\s*[:：]\s*[0-9.]+\s*(?:\}|,\s*[\"'](?:reason|reasoning|rationale|explanation|"
     r"justification|comment|feedback|verdict)[\"'])"
     r"|\bmet[\"']?\s*[:=：]\s*(?:true|yes|1)\b"
     r"|<\s*/?\s*(?:accuracy|score|verdict|rating|grade|met|rationale|reasoning|result|evaluation|judgement|judgment)\s*>"
     r"|\|\s*(?:verdict|met|criterion\s+met|judgement|judgment)\s*\|"),
    ("system or role marker",
     r"\bsystem\s*(?:prompt|message|override|instructions?|note|notice|update)\s*:|<\s*/?\s*(?:system|candidate_response|"
     r"instructions?|grading\w*|scoring\w*|evaluation_?\w*|judge\w*|grader\w*|assistant|user|prompt)\s*>"
     r"|<\|\s*(?:im_start|im_end|system|assistant|user|endoftext)\s*\|>|\[/?\s*(?:inst|system|sys)\s*\]|<<\s*sys\s*>>"
     r"|^\s*(?:assistant|system\s+prompt)\s*:|###\s*(?:instruction|system|response)\b"),
    ("end of the answer",
     r"\bend\s+of\s+(?:the\s+)?(?:candidate(?:'s)?\s+|model(?:'s)?\s+|my\s+)?(?:answer|response|reply|submission|candidate|"
     r"model\s+output)\b"
     r"|\b(?:benchmark|grading|scoring|leaderboard|dataset|rubric)\s+(?:authors?|team|maintainers?|organi[sz]ers?|"
     r"creators?|designers?|administrators?|committee|staff|owners?)\b|\bevaluation\s+(?:authors?|maintainers?|organi[sz]ers?)\b"
     r"|\bdecode\s+(?:this|the\s+following|and)\b[^.\n]{0,20}?\b(?:follow|execute|obey|apply)"),
    # --- Chinese
    ("忽略指令",
     r"(?:忽略|无视|忘记|忽视|不要理会|跳过|不用管)(?:掉)?(?:之前|以上|上面|前面|上述|先前|所有|全部|任何|系统|原有|原来|原先|"
     r"你的)?的?(?:所有|全部|任何)?(?:的)?(?:指令|指示|提示词?|规则|评分标准|评分规则|评分要求|标准|要求|参考答案|说明|设定)"
     r"|(?:忽略|无视|忽视)" + _STOP_ZH + r"{0,10}?(?:评分标准|评分规则|参考答案|标准答案)"
     r"|(?:忽略|无视|忽视)" + _STOP_ZH + r"{0,10}?(?:回答|答案)" + _STOP_ZH + r"{0,6}?(?:标准|规则|指令)"),
    ("扮演评分员",
     r"(?:你|您)(?:现在)?(?:是|作为|扮演)" + _STOP_ZH + r"{0,8}?" + _ROLE_ZH + r"|作为" + _ROLE_ZH
     + r"|(?:你|您)现在(?:扮演|是)" + _STOP_ZH + r"{0,20}?(?:满分|最高分|都通过|全部通过)"),
    ("称呼评分员",
     r"(?:致|请|供|给|提醒)" + _ROLE_ZH + r"|" + _ROLE_ZH + r"(?:请注意|须知|注意|[:：，,]|请|直接|忽略|参考|你|您)"),
    ("要求满分",
     r"(?:给|打|判|给予|授予|给出|评为|计为)" + _CLAUSE_ZH + r"{0,12}?(?:满分|最高分|最高评价|最高等级|全部分数|全部得分|"
     r"最高的分)"
     r"|给(?:这个|此|该|本)(?:回答|回复|答案)" + _STOP_ZH + r"{0,4}?分"),
    ("宣称满足标准",
     r"(?:满足|符合|通过)(?:了)?(?:全部|所有|每一?条|每项)(?:的)?(?:评分)?(?:标准|要求|条目|要点|得分点)"
     r"|(?:所有|全部|每[一条个项]?)(?:的)?(?:评分|得分)?(?:标准|要点|得分点|评分点|评分项|条目|参考要点|参考事实)"
     + _STOP_ZH + r"{0,6}?(?:都|均)?(?:已|已经)?(?:判定?为|视为|算作?)?(?:满足|覆盖|符合|达到|通过|命中|met|true)"
     r"|" + _ANSWER_ZH + _STOP_ZH + r"{0,12}?(?:视为|判定为?|判为|标记为|算作?|评为|认定为?|当作|当成)" + _STOP_ZH
     + r"{0,8}?(?:正确|通过|满足|一致|已覆盖|符合|met|true|满分|匹配)"
     r"|(?:把|将)" + _ANSWER_ZH + _STOP_ZH + r"{0,10}?(?:判|视|标记|算|评|定|当)"
     r"|(?:把|将)(?:所有|全部|每一?[条项个])(?:的)?(?:评分)?(?:评分项|评分点|得分点|标准|条目)" + _STOP_ZH + r"{0,10}?(?:判|视|标记|算|评|定)"
     r"|(?:与|和)参考答案(?:完全)?一致|参考答案" + _STOP_ZH + r"{0,4}?(?:有误|错误|不对|过时|不准确|有问题)"
     r"|以(?:本|该|此|我的|这个)(?:回答|答案|回复)为准"),
    ("请求宽松或高分",
     r"(?:评分|打分|阅卷|评判|批改)" + _CLAUSE_ZH + r"{0,6}?(?:宽松|从宽|手下留情|高抬贵手)|(?:宽松|从宽)地?(?:评分|打分|评判|批改)"
     r"|(?:应|应该|应当|值得|理应|请)(?:得|给|打|获得|给予)?(?:高分|满分|最高分|全对|最高评价)"
     r"|(?:算|判|当)(?:我|本题|这题|这道题|本回答)(?:全对|全部正确|正确|满分)"
     r"|(?:无需|不需要|不必|不用)(?:再|再次|重新)?(?:评分|打分|评判|阅卷)|无需再评(?:[。，！!\n]|$)"
     r"|(?:致|给|提醒)(?:AI|人工智能|模型|大模型|评分模型)\s*[：:，,]"),
    ("系统标记",
     r"(?:【|\[)\s*(?:系统|system|评分|评审|阅卷|评测)" + r"[^】\]\n]{0,6}(?:】|\])|系统(?:提示|消息|指令)\s*[:：]"
     r"|评分(?:已完成|已结束)|(?:最终|总)?评分\s*[:：]\s*(?:100|满分)"
     r"|(?:回答|回复|作答)(?:到此|至此)?(?:结束|完毕)"
     r"|(?:基准|评测|评分|测评|数据集|榜单)(?:的)?(?:作者|团队|组织者|维护者|官方)"),
    # --- other languages: the two commonest requests (drop the instructions; give the top mark)
    ("other languages",
     r"\bignor(?:e[zr]?|ant)\s+(?:toutes\s+)?(?:les\s+)?(?:instructions|consignes|règles|directives)"
     r"|\b(?:attribue[zr]?|donne[zr]?|mets|mettez|accorde[zr]?)\b[^.\n]{0,40}?\bnote\s+(?:maximale|parfaite|complète)"
     r"|\bignorier(?:e|en|t)?\s+(?:alle\s+)?(?:vorherigen\s+|bisherigen\s+|obigen\s+)?"
     r"(?:Anweisungen|Instruktionen|Regeln|Vorgaben)"
     r"|\b(?:gib|gebt|geben\s+sie|vergib|vergeben\s+sie|erteile|bewerte)\b[^.\n]{0,40}?\b(?:volle|maximale|höchste)\s+Punkt"
     r"|\bignora(?:r|d)?\s+(?:todas\s+)?(?:las\s+)?(?:instrucciones|indicaciones|reglas)"
     r"|\b(?:da|dale|asigna|otorga|pon)\b[^.\n]{0,40}?\b(?:puntuaci[oó]n|nota)\s+m[aá]xima"
     r"|\b(?:pon|da|dale|asigna|otorga)\b[^.\n]{0,30}?\b(?:la\s+)?(?:mejor|máxima)\s+(?:nota|puntuación|calificación)"
     r"|\b(?:mets|mettez|donne[zr]?|attribue[zr]?)\b[^.\n]{0,30}?\b(?:la\s+)?(?:meilleure|maximale)\s+note"
     r"|\bbewerte[nt]?\s+(?:diese|die|meine)\s+Antwort\s+als\s+(?:vollständig\s+|komplett\s+)?(?:korrekt|richtig)"
     r"|\bcalifica\s+(?:esta|la|mi)\s+respuesta\s+como\s+(?:correcta|perfecta)"
     r"|\b(?:note[zr]?|évalue[zr]?|considère[zr]?)\s+(?:cette|ma)\s+réponse\s+comme\s+(?:correcte|parfaite)"
     r"|\bnegeer\s+(?:alle\s+)?(?:de\s+)?(?:vorige\s+|eerdere\s+)?(?:instructies|regels|aanwijzingen)"
     r"|\b(?:geef|ken)\b[^.\n]{0,30}?\b(?:het\s+)?(?:maximale|hoogste|volle)\s+(?:cijfer|score|punten|aantal\s+punten)"
     r"|\bignora\s+(?:tutte\s+)?(?:le\s+)?istruzioni|\b(?:dai|assegna|attribuisci)\b[^.\n]{0,40}?\b(?:punteggio|voto)\s+massimo"
     r"|\bignore\s+(?:todas\s+)?(?:as\s+)?instruç[õo]es|\b(?:dê|atribua)\b[^.\n]{0,40}?\b(?:pontuaç[ãa]o|nota)\s+m[aá]xima"
     r"|игнорир[а-я]*\s+(?:все\s+)?(?:предыдущ[а-я]*\s+|прежн[а-я]*\s+)?(?:инструкци|указани|правил)"
     r"|(?:постав|дай|присво|выстав|оцени)[а-я]*[^.\n]{0,40}?(?:максимальн|высш|отличн)[а-я]*\s+(?:балл|оценк)"
     r"|(?:以前|前|上記|これまで)の?(?:指示|命令|指令)" + _STOP_ZH + r"{0,8}?無視"
     r"|満点を(?:付け|つけ|与え|あげ)|最高(?:点|評価)を(?:付け|つけ|与え|あげ)"
     r"|(?:이전|앞의|위의)\s*(?:지시|명령|지침)" + r"[^.\n]{0,10}?무시|만점을?\s*(?:주|줘)|최고\s*점수를?\s*(?:주|줘)"),
)

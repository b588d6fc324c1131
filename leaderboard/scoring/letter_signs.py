"""A named sign answers the option it is the sign of (rule letters-v9).

"There is a meniscus sign at the right base" among "Pneumothorax / Pleural effusion / ...", "spongiform change with
vacuoles in the neuropil" among "... / Creutzfeldt-Jakob disease / ...", "a T-sign without a twin peak" among the
kinds of twins: a careful reader (a clinician) takes the one option the description's classic sign belongs to,
although the response names no option.

Only when no letter is stated and no option is named by its text (step 4 found none); every sign named and not
denied ("no", "without", "absent", "absence of" just before it) is read, and its conditions must meet exactly one
option (a condition's name inside the option's folded text, whole words), else nothing is answered. The table holds
signs a textbook calls characteristic of one condition; a sign shared by several ("ground glass") is not in it.
Signs and names are written in lower case and folded when the table is built (option_text.fold: apostrophes
dropped, hyphens as spaces, British spellings as American), as responses and options are.
"""
from __future__ import annotations

import functools
from typing import Sequence

from .option_text import Folded, asserted_options, fold, folded_option, read_mentions

# (signs, conditions): any sign of the first tuple names the conditions of the second
SIGNS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    # chest
    (("meniscus sign", "blunted costophrenic angle", "blunting of the costophrenic angle",
      "blunting of the right costophrenic angle", "blunting of the left costophrenic angle",
      "blunted right costophrenic angle", "blunted left costophrenic angle", "fluid in the pleural space"),
     ("pleural effusion", "hydrothorax", "hemothorax", "empyema")),
    (("deep sulcus sign", "visceral pleural line", "absent lung markings", "absence of lung markings",
      "no lung markings beyond", "air in the pleural space"), ("pneumothorax",)),
    (("kerley b lines", "kerley lines", "bat wing", "batwing", "butterfly pattern", "cephalization",
      "peribronchial cuffing"), ("pulmonary edema", "heart failure", "cardiac failure")),
    (("air bronchogram", "air bronchograms", "silhouette sign"), ("pneumonia", "consolidation")),
    # letters-v11: a lobe's collapse is atelectasis (a "collapsed lung" is a pneumothorax: option_synonyms)
    (("lobar collapse", "lobe collapse", "collapsed lobe", "collapse of the lingula", "lingular collapse",
      *(f"collapse of the {side} {lobe} lobe" for side in ("right", "left") for lobe in ("upper", "middle", "lower")),
      *(f"{side} {lobe} lobe collapse" for side in ("right", "left") for lobe in ("upper", "middle", "lower"))),
     ("atelectasis",)),
    (("hamptons hump", "westermark sign"), ("pulmonary embolism", "pulmonary infarction")),
    (("popcorn calcification",), ("hamartoma", "fibroadenoma")),
    (("continuous diaphragm sign",), ("pneumomediastinum",)),
    (("boot shaped heart", "coeur en sabot"), ("tetralogy of fallot",)),
    (("egg on a string", "egg on string"), ("transposition of the great arteries",)),
    (("snowman sign", "figure of 8 heart", "figure 8 heart"), ("anomalous pulmonary venous",)),
    (("rib notching", "figure 3 sign"), ("coarctation",)),
    (("water bottle heart", "water bottle shaped"), ("pericardial effusion",)),
    (("eggshell calcification",), ("silicosis",)),
    (("tree in bud",), ("bronchiolitis", "endobronchial")),
    (("signet ring sign", "tram track", "tram tracks"), ("bronchiectasis",)),
    (("reversed halo", "atoll sign"), ("organizing pneumonia",)),
    (("crazy paving",), ("alveolar proteinosis",)),
    # abdomen
    (("double bubble",), ("duodenal atresia",)),
    (("coffee bean sign", "bent inner tube"), ("sigmoid volvulus",)),
    (("apple core",), ("colorectal carcinoma", "colon cancer", "colon carcinoma", "colorectal cancer",
                       "adenocarcinoma of the colon")),
    (("target sign", "doughnut sign", "donut sign", "pseudokidney sign", "coiled spring",
      # letters-v10: the mechanism itself, described
      "telescoping of", "telescoping bowel", "bowel telescoping", "concentric alternating hypoechoic and echogenic rings",
      "同心圆征", "靶环征", "套筒征", "肠管套入"),  # letters-v13: the Chinese signs
     ("intussusception", "肠套叠")),
    # letters-v13: gas in the bowel wall
    (tuple(f"{gas} {where} {wall}" for gas in ("air", "gas") for where in ("in", "within")
           for wall in ("the bowel wall", "the wall of the bowel", "the wall of the small intestine", "the intestinal wall",
                        "the wall of the small bowel", "the wall of the colon", "the wall of the intestine",
                        "the colonic wall")) + ("intramural gas", "intramural air"),
     ("pneumatosis intestinalis", "pneumatosis", "肠壁积气")),
    (("string sign", "cobblestoning", "cobblestone appearance", "skip lesions", "creeping fat"), ("crohn", "pyloric stenosis")),
    (("lead pipe colon", "lead pipe", "loss of haustra", "loss of haustral markings"), ("ulcerative colitis",)),
    (("thumbprinting", "thumb printing"), ("ischemic colitis",)),
    (("pseudomembranes", "volcano lesions"), ("pseudomembranous colitis",)),
    (("rigler sign", "riglers sign", "football sign", "air under the diaphragm", "free air under the diaphragm"),
     ("pneumoperitoneum", "perforation", "perforated")),  # letters-v11: "Perforated peptic ulcer"
    (("birds beak", "bird beak"), ("achalasia",)),
    (("corkscrew esophagus",), ("esophageal spasm",)),
    (("stepladder", "step ladder"), ("small bowel obstruction",)),
    (("central dot sign",), ("caroli",)),
    (("porcelain gallbladder",), ("porcelain gallbladder",)),
    (("wall echo shadow", "wes sign"), ("cholelithiasis", "gallstones")),
    (("string of pearls",), ("polycystic ovary", "small bowel obstruction")),
    # neuro
    (("spongiform change", "spongiform changes", "spongiform encephalopathy", "pulvinar sign", "hockey stick sign",
      "cortical ribboning"), ("creutzfeldt jakob", "prion", "cjd")),
    (("neurofibrillary tangles", "senile plaques", "amyloid plaques"), ("alzheimer",)),
    (("pick bodies",), ("pick disease", "frontotemporal")),
    (("lewy bodies", "lewy body"), ("lewy bodies", "parkinson")),
    (("dawson fingers", "dawsons fingers", "periventricular ovoid lesions"), ("multiple sclerosis",)),
    (("hummingbird sign", "penguin sign", "mickey mouse sign"), ("progressive supranuclear palsy",)),
    (("hot cross bun sign",), ("multiple system atrophy",)),
    (("butterfly glioma",), ("glioblastoma",)),
    (("dural tail", "dural tail sign"), ("meningioma",)),
    (("ice cream cone", "ice cream cone sign"), ("vestibular schwannoma", "acoustic neuroma")),
    (("biconvex", "lens shaped", "lentiform shaped"), ("epidural",)),
    (("crescentic", "crescent shaped"), ("subdural",)),
    (("molar tooth sign",), ("joubert",)),
    # bone
    (("onion skin", "onion skinning", "onion peel"), ("ewing",)),
    (("sunburst", "sunray", "codman triangle", "codmans triangle"), ("osteosarcoma",)),
    (("soap bubble",), ("giant cell tumor", "aneurysmal bone cyst")),
    (("fallen fragment",), ("unicameral bone cyst", "simple bone cyst")),
    (("nidus",), ("osteoid osteoma", "arteriovenous malformation")),
    (("rings and arcs", "ring and arc", "chondroid matrix", "popcorn matrix"), ("chondrosarcoma", "enchondroma")),
    (("pencil in cup", "pencil in a cup"), ("psoriatic arthritis",)),
    (("bamboo spine", "dagger sign", "trolley track"), ("ankylosing spondylitis",)),
    (("rat bite erosions", "overhanging edges", "martel sign"), ("gout",)),
    (("chondrocalcinosis",), ("calcium pyrophosphate", "pseudogout", "cppd")),
    (("punched out lytic lesions", "punched out lesions", "raindrop skull", "pepper pot skull"),
     ("multiple myeloma",)),
    (("hair on end",), ("thalassemia", "sickle cell")),
    (("salt and pepper skull",), ("hyperparathyroidism",)),
    (("picture frame vertebra", "cotton wool skull"), ("paget",)),
    (("rugger jersey spine",), ("renal osteodystrophy",)),
    (("terry thomas sign", "signet ring sign of the wrist"), ("scapholunate",)),
    (("lightbulb sign", "light bulb sign"), ("posterior shoulder dislocation",)),
    (("fat pad sign", "sail sign"), ("supracondylar",)),
    (("segond fracture",), ("anterior cruciate ligament",)),
    (("fraying", "cupping", "splaying of the metaphyses", "rachitic rosary"), ("rickets",)),
    # eye
    (("cherry red spot",), ("central retinal artery occlusion", "tay sachs", "niemann pick")),
    (("blood and thunder", "stormy sunset"), ("central retinal vein occlusion",)),
    (("swiss cheese",), ("band keratopathy",)),
    (("drusen",), ("age related macular degeneration",)),
    (("cotton wool spots", "flame hemorrhages", "av nicking", "arteriovenous nicking", "copper wiring",
      "silver wiring"), ("hypertensive retinopathy",)),
    (("neovascularization of the disc", "microaneurysms", "dot and blot hemorrhages", "hard exudates"),
     ("diabetic retinopathy",)),
    (("bone spicule", "bone spicules", "waxy pallor"), ("retinitis pigmentosa",)),
    (("cupping of the optic disc", "increased cup to disc ratio", "enlarged cup to disc ratio"), ("glaucoma",)),
    (("morning glory",), ("morning glory",)),
    (("pizza pie", "cottage cheese and ketchup"), ("cmv retinitis", "cytomegalovirus retinitis")),
    (("headlight in the fog", "headlight in fog"), ("toxoplasmosis", "toxoplasma")),
    (("dendritic ulcer", "dendritic lesion", "dendrites"), ("herpes simplex keratitis", "hsv keratitis",
                                                            "herpetic keratitis")),
    (("oil droplet", "oil drop reflex"), ("keratoconus",)),
    (("kayser fleischer",), ("wilson",)),
    # skin
    (("christmas tree pattern",), ("pityriasis rosea",)),
    (("herald patch",), ("pityriasis rosea",)),
    (("auspitz sign", "silvery scale", "silvery scales"), ("psoriasis",)),
    (("wickham striae",), ("lichen planus",)),
    (("rolled borders", "pearly papule", "pearly border", "rodent ulcer"), ("basal cell carcinoma",)),
    (("stuck on appearance",), ("seborrheic keratosis",)),
    (("central umbilication", "umbilicated papules", "umbilicated papule"), ("molluscum",)),
    (("bulls eye", "bullseye", "target lesions", "target lesion", "iris lesions"), ("erythema multiforme",
                                                                                      "erythema migrans")),
    (("nikolsky sign",), ("pemphigus vulgaris", "staphylococcal scalded skin", "toxic epidermal necrolysis")),
    (("dermatographism",), ("urticaria",)),
    (("honey colored crust", "honey colored crusts", "honey crusted"), ("impetigo",)),
    (("spaghetti and meatballs",), ("tinea versicolor", "pityriasis versicolor")),
    (("gottron papules", "gottrons papules", "heliotrope rash", "heliotrope"), ("dermatomyositis",)),
    (("malar rash", "butterfly rash"), ("lupus",)),
    (("slapped cheek",), ("erythema infectiosum", "parvovirus")),
    (("koplik spots",), ("measles", "rubeola")),
    (("strawberry tongue",), ("kawasaki", "scarlet fever")),
    (("dermatomal",), ("herpes zoster", "shingles")),
    (("hutchinson sign",), ("melanoma", "herpes zoster ophthalmicus")),
    (("velvety hyperpigmented", "velvety hyperpigmentation", "velvety brown", "velvety thickened", "velvety plaques",
      "velvety plaque"), ("acanthosis nigricans",)),
    (("coral red fluorescence", "coral pink fluorescence", "coral red"), ("erythrasma",)),
    (("comedo like openings", "milia like cysts", "fissures and ridges", "brain like appearance"),
     ("seborrheic keratosis",)),
    (("arborizing vessels", "arborizing telangiectasia", "arborizing telangiectasias", "leaf like areas",
      "spoke wheel areas", "blue gray ovoid nests"), ("basal cell carcinoma",)),
    (("blue white veil", "atypical pigment network", "irregular streaks"), ("melanoma",)),
    (("dimple sign", "central white scar like patch"), ("dermatofibroma",)),
    (("glomerular vessels",), ("bowen", "squamous cell carcinoma in situ")),
    (("burrows", "burrow"), ("scabies",)),
    (("satellite lesions", "satellite papules", "satellite pustules"), ("candidiasis", "candidal", "candida")),
    (("exclamation mark hairs", "exclamation point hairs"), ("alopecia areata",)),
    (("kerion",), ("tinea capitis",)),
    # pathology and blood
    (("reed sternberg", "owl eye nuclei", "owl eyes nuclei"), ("hodgkin",)),
    (("starry sky",), ("burkitt",)),
    (("auer rods", "auer rod"), ("acute myeloid leukemia", "acute promyelocytic leukemia")),
    (("smudge cells", "smudge cell"), ("chronic lymphocytic leukemia",)),
    (("hairy projections", "tartrate resistant acid phosphatase", "trap positive"), ("hairy cell leukemia",)),
    (("sickle cells", "drepanocytes", "sickled cells", "sickled red cells", "sickle shaped", "crescent shaped red blood cells",
      "crescent shaped red cells", "crescent shaped erythrocytes"), ("sickle cell",)),
    (("schistocytes", "helmet cells"), ("microangiopathic", "thrombotic thrombocytopenic purpura",
                                        "hemolytic uremic syndrome", "disseminated intravascular coagulation")),
    (("spherocytes",), ("spherocytosis",)),
    (("hypersegmented neutrophils", "hypersegmented neutrophil", "macro ovalocytes", "macroovalocytes"),
     ("megaloblastic", "b12 deficiency", "folate deficiency", "pernicious anemia")),
    (("basophilic stippling",), ("lead poisoning",)),
    (("teardrop cells", "dacrocytes", "dry tap"), ("myelofibrosis",)),
    (("rouleaux",), ("multiple myeloma",)),
    (("banana shaped gametocytes", "crescent shaped gametocytes"), ("falciparum",)),
    (("maltese cross",), ("babesiosis", "babesia")),
    (("psammoma bodies", "orphan annie", "orphan annie eye", "nuclear grooves"), ("papillary thyroid carcinoma",
                                                                                 "papillary carcinoma")),
    (("hurthle cells", "hürthle cells"), ("hurthle", "hürthle")),
    (("amyloid stroma",), ("medullary thyroid carcinoma",)),
    (("keratin pearls",), ("squamous cell carcinoma",)),
    (("separated by fibrous septa", "fibrous septa with lymphocytes", "clear cytoplasm and prominent nucleoli"),
     ("seminoma", "dysgerminoma")),
    (("interface hepatitis with plasma cells", "interface hepatitis and plasma cells", "plasma cell rich interface",
      "lymphoplasmacytic interface hepatitis"), ("autoimmune hepatitis",)),
    (("signet ring cells",), ("signet ring", "diffuse gastric", "linitis plastica")),
    (("palisading granuloma",), ("granuloma annulare",)),
    (("caseating granuloma", "caseating granulomas", "caseous necrosis"), ("tuberculosis",)),
    (("non caseating granuloma", "non caseating granulomas", "noncaseating granulomas"), ("sarcoidosis",)),
    (("verocay bodies", "antoni a", "antoni b"), ("schwannoma",)),
    (("homer wright rosettes",), ("neuroblastoma", "medulloblastoma")),
    (("perivascular pseudorosettes",), ("ependymoma",)),
    (("rosenthal fibers",), ("pilocytic astrocytoma",)),
    (("fried egg",), ("oligodendroglioma",)),
    (("pseudopalisading necrosis", "pseudopalisading"), ("glioblastoma",)),
    (("call exner bodies",), ("granulosa cell tumor",)),
    (("schiller duval",), ("yolk sac tumor",)),
    (("koilocytes", "koilocytosis"), ("hpv", "human papillomavirus", "condyloma")),
    (("owl eye inclusions",), ("cytomegalovirus", "cmv")),
    (("negri bodies",), ("rabies",)),
    (("mallory bodies", "mallory denk"), ("alcoholic hepatitis",)),
    (("councilman bodies",), ("viral hepatitis", "yellow fever")),
    (("ground glass hepatocytes",), ("hepatitis b",)),
    (("michaelis gutmann",), ("malakoplakia",)),
    (("crescents",), ("rapidly progressive glomerulonephritis", "crescentic glomerulonephritis")),
    (("spike and dome", "spikes and domes"), ("membranous nephropathy",)),
    (("tram track basement membrane",), ("membranoproliferative",)),
    (("kimmelstiel wilson",), ("diabetic nephropathy",)),
    (("apple green birefringence",), ("amyloidosis",)),
    (("clue cells",), ("bacterial vaginosis",)),
    (("pseudohyphae",), ("candida",)),
    (("curschmann spirals", "charcot leyden crystals"), ("asthma",)),
    (("ferruginous bodies", "asbestos bodies"), ("asbestosis",)),
    # ECG
    (("delta wave", "delta waves", "slurred upstroke"), ("wolff parkinson white", "wpw")),
    (("sawtooth", "saw tooth", "flutter waves", "锯齿状扑动波", "锯齿状f波", "锯齿波"), ("atrial flutter", "心房扑动", "房扑")),
    # pathology (letters-v12): Giardia's disc and face, Gaucher cells
    (("ventral adhesive disc", "smiling face", "falling leaf motility"), ("giardia",)),
    (("crumpled tissue paper", "wrinkled tissue paper", "glucocerebrosidase deficiency"), ("gaucher",)),
    # nuclear medicine (letters-v12): the bone-scan flare of a responding tumour
    (("osteoblastic healing response", "healing response"), ("flare phenomenon", "flare")),
    # knee (letters-v12): the displaced fragment of a bucket-handle tear under the PCL
    (("double pcl sign", "double pcl"), ("bucket handle tear",)),
    # eye (letters-v12): blood or pus layered in the anterior chamber; the fluorescein leak of CSC
    (("blood in the anterior chamber", "layer of blood in the anterior chamber", "blood layered in the anterior chamber",
      "blood settled in the inferior anterior chamber", "blood settled in the anterior chamber",
      "layered blood in the anterior chamber"), ("hyphema",)),
    (("pus in the anterior chamber", "layer of pus in the anterior chamber", "pus layered in the anterior chamber",
      "layered pus in the anterior chamber", "white cells layered in the anterior chamber"), ("hypopyon",)),
    (("smokestack", "smoke stack", "ink blot leakage", "inkblot leakage"), ("central serous chorioretinopathy",)),
    (("irregularly irregular", "no discernible p waves", "absent p waves", "fibrillatory waves"),
     ("atrial fibrillation",)),
    (("progressive pr prolongation", "progressive prolongation of the pr interval", "progressively lengthening pr"),
     ("mobitz type i", "mobitz i", "wenckebach")),
    (("av dissociation", "atrioventricular dissociation"), ("third degree", "complete heart block",
                                                            "complete av block")),
    (("peaked t waves", "tented t waves"), ("hyperkalemia",)),
    (("u waves", "u wave"), ("hypokalemia",)),
    (("osborn wave", "osborn waves", "j waves"), ("hypothermia",)),
    (("electrical alternans",), ("pericardial effusion", "cardiac tamponade")),
    (("diffuse st elevation", "pr depression", "pr segment depression"), ("pericarditis", "心包炎")),
    (("coved st elevation",), ("brugada",)),
    (("s1q3t3", "s1 q3 t3"), ("pulmonary embolism",)),
    (("torsades",), ("torsades de pointes",)),
    (("epsilon wave",), ("arrhythmogenic right ventricular",)),
    # obstetrics
    (("t sign",), ("monochorionic diamniotic",)),
    (("lambda sign", "twin peak sign", "twin peak"), ("dichorionic diamniotic",)),
    (("snowstorm", "snow storm", "bunch of grapes", "cluster of grapes"), ("hydatidiform mole", "molar pregnancy")),
    (("ring of fire",), ("ectopic pregnancy",)),
    (("lemon sign", "banana sign"), ("spina bifida", "myelomeningocele", "chiari ii")),
)


def sign_option(source: str, options: Sequence[str]) -> int | None:
    """The index of the one option whose condition the response's signs name (the module's docstring), else None."""
    folded = read_mentions(source, options)[0]  # the fold step 4 made of this text (kept: no second fold)
    conditions: set[str] = set()
    for sign in _signs_in(folded):
        conditions.update(_table()[sign])
    if not conditions:
        return None
    named = {k for k, option in enumerate(options)
             if any(f" {c} " in folded_option(option) or f" {c}s " in folded_option(option) for c in conditions)
             and folded_option(option).split()[:1] not in (["no"], ["without"], ["absent"])}  # v12: not "No pleural effusion"
    if len(named) != 1 or asserted_options(source, options) - named:
        return None
    return named.pop()


_DENIALS = frozenset(("no", "without", "absent", "absence", "not", "lack", "lacks", "negative", "nor", "neither"))


_UNASSERTED = frozenset(("if", "whether", "unless", "would", "could", "should", "might", "typically", "usually",
                         "classically", "expected", "expect", "absent", "cannot", "otherwise"))


def _signs_in(folded: Folded) -> list[str]:
    """The table's signs named in the folded response and not denied by one of the four words before them in
    their clause ("no meniscus sign", "without a twin peak (lambda) sign"). One dictionary look-up per word."""
    text, by_first = folded.text, _by_first_word()
    found = []
    at = 1
    while at < len(text):
        end = text.find(" ", at)
        for sign in by_first.get(text[at:end], ()):
            if text.startswith(sign + " ", at) and sign not in found and not _denied(folded, at):
                found.append(sign)
        at = end + 1
    return found


def _denied(folded: Folded, at: int) -> bool:
    """Is the sign at `at` denied ("no", "without a" up to four words before it) or not asserted: its clause is a
    condition or an expectation ("If pulmonary edema were present, Kerley lines would be seen", "X typically
    shows Y")?"""
    clause = folded.clause[at]
    lo = hi = at
    while lo > 0 and at - lo < 160 and folded.clause[lo - 1] == clause:
        lo -= 1
    while hi < len(folded.text) and hi - at < 160 and folded.clause[hi] == clause:
        hi += 1
    clause = folded.text[lo:hi]
    for sign in _signs_saying_absent():  # letters-v12: "absent lung markings" is a sign, not its denial
        clause = clause.replace(" " + sign + " ", " ")
    if not _UNASSERTED.isdisjoint(clause.split()):
        return True
    sentence = folded.text[max(0, at - 200):at]  # "If X were present, <sign> ...": the condition is the clause before
    return not _DENIALS.isdisjoint(folded.text[lo:at].split()[-4:]) or "if" in sentence.split()[-12:]


@functools.lru_cache(maxsize=1)
def _signs_saying_absent() -> tuple[str, ...]:
    """The signs whose own words deny something ("absent lung markings"), longest first."""
    return tuple(sorted((sign for sign in _table() if not _UNASSERTED.isdisjoint(sign.split())), key=len, reverse=True))


@functools.lru_cache(maxsize=1)
def _table() -> dict[str, tuple[str, ...]]:
    table: dict[str, set[str]] = {}
    for signs, conditions in SIGNS:
        for sign in signs:  # folded as responses and options are ("michaelis" -> "michelis", "hürthle")
            table.setdefault(fold(sign).text.strip(), set()).update(fold(c).text.strip() for c in conditions)
    return {sign: tuple(sorted(c)) for sign, c in table.items()}


@functools.lru_cache(maxsize=1)
def _by_first_word() -> dict[str, tuple[str, ...]]:
    index: dict[str, list[str]] = {}
    for sign in _table():
        index.setdefault(sign.split(" ", 1)[0], []).append(sign)
    return {word: tuple(signs) for word, signs in index.items()}

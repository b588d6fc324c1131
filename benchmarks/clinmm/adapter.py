"""ClinMM-Bench: one JSON file per case (the paper's Supplementary F conversion format plus
provenance keys) and image files.

Release layout (this project's definition; the authors' release layout is unknown):

    SOURCE/cases/<case_id>.json        one case per file (see below)
    SOURCE/images/...                  image files, referenced from `image_files`
    SOURCE/reference_facts.jsonl       optional sidecar of frozen reference atomic facts, written by
                                       `python -m benchmarks.clinmm.facts --source SOURCE`

Case file: the conversion JSON (`case_presentation.{english,chinese}.{demographic_information,
chief_complaint, history_of_present_illness, lab_result, physical_examination}`,
`images.{english,chinese}[] = {image_id, image_type, image_finding, diagnostic_significance}`,
`final_diagnosis.{english,chinese}`, `diagnostic_reasoning.{english,chinese}`) plus `case_id`
(default: file stem), `pmid`, `pmcid`, `license`, `specialty` (one of the paper's eight),
`image_files` ({image_id: path relative to SOURCE}), optional `qc_fidelity_score` (3-5) and optional
`reference_facts` (list of strings). Chinese blocks are optional; English ones are required.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from datasets import Features, Image, List, Value

from dataset_builders.errors import ProblemLog
from dataset_builders.fields import FieldReader
from dataset_builders.adapter import (EXTRA_FIELDS, Adapter, CardFacts, ConfigSpec, Preparation,
                                      PreparationError, release_image)
from .taxonomy import (BIBTEX, PRESENTATION_FIELDS, SIDECAR, SPECIALTIES, is_non_commercial,
                          normalise_specialty, turn_texts)

KNOWN_KEYS = {"case_id", "pmid", "pmcid", "license", "specialty", "qc_fidelity_score", "image_files",
              "reference_facts", "case_presentation", "images", "final_diagnosis", "diagnostic_reasoning"}
IMAGE_KEYS = ("image_id", "image_type", "image_finding", "diagnostic_significance")
LANGS = {"en": "english", "zh": "chinese"}

PRESENTATION = {name: Value("string") for name in PRESENTATION_FIELDS}
TURN = {
    "turn": Value("int32"),
    "role": Value("string"),
    "text": Value("string"),
    "images": List(Image()),
    "image_types": List(Value("string")),
}
FEATURES = Features({
    "case_id": Value("string"),
    "pmid": Value("string"),
    "pmcid": Value("string"),
    "license": Value("string"),
    "specialty": Value("string"),
    "qc_fidelity_score": Value("int32"),
    "case_presentation_en": PRESENTATION,
    "case_presentation_zh": PRESENTATION,
    "turns": List(TURN),
    "turn_texts_zh": List(Value("string")),
    "num_turns": Value("int32"),
    "num_images": Value("int32"),
    "image_ids": List(Value("string")),
    "image_types": List(Value("string")),
    "image_paths": List(Value("string")),
    "image_sha256": List(Value("string")),
    "final_diagnosis_en": Value("string"),
    "final_diagnosis_zh": Value("string"),
    "diagnostic_reasoning_en": Value("string"),
    "diagnostic_reasoning_zh": Value("string"),
    "image_findings_en": List(Value("string")),
    "image_findings_zh": List(Value("string")),
    "diagnostic_significance_en": List(Value("string")),
    "diagnostic_significance_zh": List(Value("string")),
    "reference_facts": List(Value("string")),
    "reference_facts_extractor": Value("string"),
})
ANSWER_COLUMNS = ("final_diagnosis_en", "final_diagnosis_zh", "diagnostic_reasoning_en", "diagnostic_reasoning_zh",
                  "image_findings_en", "image_findings_zh", "diagnostic_significance_en",
                  "diagnostic_significance_zh", "reference_facts")

FIELD_DOCS = {
    "case_id": "Case identifier (`case_id` of the case file, else its file stem).",
    "pmid": "PubMed id of the source case report.",
    "pmcid": "PubMed Central id of the source article (PMC open-access subset).",
    "license": "License of the source article as given in PMC-OA (per case; some are non-commercial).",
    "specialty": "One of the paper's eight specialties. Stratum.",
    "qc_fidelity_score": "Claude-4.0-Sonnet fidelity score of the conversion (1-5; the paper kept >= 3); null when not released.",
    "case_presentation_en": "Case presentation (English): demographics, chief complaint, history, lab results, examinations performed (never their imaging results). Model input.",
    "case_presentation_zh": "The same in Chinese (null when not released).",
    "turns": "The dialogue, one struct per round: `turn` (1-based), `role` (`user`), `text`, `images` (the image disclosed in this round, original bytes), `image_types`. Round 1 = case presentation, then one round per image (image + its type only), last = request for final diagnosis and reasoning. Model input.",
    "turn_texts_zh": "Chinese text of each turn, aligned with `turns` (null when the case has no Chinese version).",
    "num_turns": "Number of rounds (number of images + 2).",
    "num_images": "Number of images.",
    "image_ids": "Figure labels from the source article, in disclosure order.",
    "image_types": "Image type per image (e.g. 'Chest CT scan').",
    "image_paths": "Original relative path of each image in the release (provenance).",
    "image_sha256": "SHA-256 of each image's bytes.",
    "final_diagnosis_en": "Ground-truth final diagnosis (English). Answer.",
    "final_diagnosis_zh": "Ground-truth final diagnosis (Chinese). Answer.",
    "diagnostic_reasoning_en": "Reference diagnostic reasoning from the source text (English). Answer.",
    "diagnostic_reasoning_zh": "Reference diagnostic reasoning (Chinese). Answer.",
    "image_findings_en": "What each image shows (aligned with `image_ids`). Answer: never shown to the model.",
    "image_findings_zh": "The same in Chinese. Answer.",
    "diagnostic_significance_en": "What each image means for the diagnosis. Answer: never shown to the model.",
    "diagnostic_significance_zh": "The same in Chinese. Answer.",
    "reference_facts": "Reference atomic facts decomposed once from `diagnostic_reasoning_en` with the fact-extraction prompt and frozen (null if the release has none). Answer.",
    "reference_facts_extractor": "Who extracted `reference_facts` (judge model, prompt id and hash), or how they were written.",
}

LICENSE_NOTE = (
    "The paper states no license for the benchmark. Cases derive from PubMed Central open-access case reports, "
    "each under its own article license (listed per case below and in the `license` column); some are "
    "non-commercial (CC BY-NC*). Filter on `license` before any redistribution or commercial use; images and "
    "text keep their original copyright."
)


class ClinMMAdapter(Adapter):
    name = "clinmm"
    id_column = "case_id"
    answer_columns = ANSWER_COLUMNS
    base_facts = CardFacts(
        pretty_name="ClinMM-Bench",
        summary=(
            "1,089 challenging real-world clinical cases with 3,760 medical images across eight specialties, "
            "posed as multi-turn multimodal diagnostic dialogues: the case presentation first, then one image per "
            "round, then a request for the final diagnosis and reasoning. Scored by two LLM judges (diagnostic "
            "accuracy 0-2) and by atomic-fact decomposition of the reasoning (fact recall, hallucination, fact "
            "density)."
        ),
        license="other",
        license_name="clinmm-per-article-pmc-oa",
        license_link="https://www.ncbi.nlm.nih.gov/pmc/tools/openftlist/",
        license_note=LICENSE_NOTE,
        paper_title="Evaluating Multi-Turn Multimodal Diagnostic Reasoning on Challenging Real-World Clinical Cases",
        paper_url="https://arxiv.org/abs/2607.25933",
        code_url="https://github.com/ruiyang-medinfo/ClinMM",
        bibtex=BIBTEX,
        provenance=(
            "Clinical case reports from the PubMed Central open-access subset published before 2025-09-01, found "
            "by a per-specialty PubMed query and a manually curated PMID list; cases with videos, without images "
            "or with images below 336x336 px excluded; kept only when GPT-4.1 and Claude-4.0-Sonnet both judged "
            "them diagnostically suitable; converted to JSON by GPT-4.1 (diagnosis and image-only findings removed "
            "from the presentation); conversion fidelity >= 3/5 by Claude-4.0-Sonnet; a random sample reviewed by "
            "medical experts. Turn texts and the reference-fact sidecar are this re-publication's (see fields). "
            "Raw layout read by the builder (this project's definition; the authors' release layout is unknown): "
            "`cases/<case_id>.json` = the paper's conversion JSON (bilingual `case_presentation`, `images`, "
            "`final_diagnosis`, `diagnostic_reasoning`) plus `pmid`, `pmcid`, `license`, `specialty`, "
            "`image_files` ({image_id: path}), optional `qc_fidelity_score` and `reference_facts`; `images/...`; "
            "optional `reference_facts.jsonl` sidecar of frozen reference facts."
        ),
        task_categories=("image-text-to-text", "visual-question-answering"),
        language=("en", "zh"),
        field_docs=FIELD_DOCS,
    )

    def __init__(self) -> None:
        self._sources: list[tuple[str, str | None, str | None, str | None]] = []

    def prepare(self, source: Path, progress: bool = True) -> Preparation:
        """`build --prepare` (alias --extract-facts): extract the reference atomic facts once with the judge
        (JUDGE_BASE_URL, JUDGE_MODEL; cached in .cache/judge_cache.sqlite) and freeze them in the release's
        sidecar (reference_facts.jsonl), which the build then reads."""
        from leaderboard.scoring.judge import NO_JUDGE, Judge, JudgeConfig

        from .facts import extract_reference_facts

        config = JudgeConfig.from_env(cache_path=Path(".cache") / "judge_cache.sqlite")
        if config is None:
            raise PreparationError(NO_JUDGE)
        judge = Judge(config)
        try:
            summary = extract_reference_facts(source, judge, progress=progress)
        finally:
            judge.close()
        failed = None
        if summary["failed"]:
            failed = (f"extraction failed for {len(summary['failed'])} case(s); rerun to retry (cached verdicts are "
                      "reused)")
        return Preparation(f"reference facts: {summary['extracted']} case(s) extracted, {summary['skipped']} already "
                           "frozen", failed)

    @property
    def facts(self) -> CardFacts:  # type: ignore[override]
        """The card facts, with the per-case source licenses read so far appended to the provenance."""
        from dataclasses import replace

        if not self._sources:
            return self.base_facts
        non_commercial = sum(is_non_commercial(lic) for *_, lic in self._sources)
        rows = "\n".join(f"| {c} | {pmid or ''} | {pmcid or ''} | {lic or ''} |" for c, pmid, pmcid, lic in self._sources)
        table = (f"\n\nSources per case ({non_commercial} of {len(self._sources)} under a non-commercial license):\n\n"
                 f"| case | PMID | PMCID | license |\n|---|---|---|---|\n{rows}\n")
        return replace(self.base_facts, provenance=self.base_facts.provenance + table)

    def configs(self) -> list[ConfigSpec]:
        return [ConfigSpec(name="default", data_dir="data", features=FEATURES, default=True,
                           description="All cases, one row per case (a multi-turn dialogue).")]

    def source_files(self, source: Path) -> list[Path]:
        files = sorted((source / "cases").glob("*.json"))
        sidecar = source / SIDECAR
        return files + ([sidecar] if sidecar.is_file() else [])

    def strata(self, config: str, row: dict) -> dict[str, Any]:
        return {"specialty": row["specialty"], "license": row["license"], "num_images": row["num_images"]}

    def usage_example(self, repo_id: str, config: str) -> str:
        return (
            "from datasets import load_dataset\n\n"
            f'ds = load_dataset("{repo_id}", "{config}", split="test")\n'
            "case = ds[0]\n"
            "for turn in case[\"turns\"]:  # replay the rounds in order, keeping the history\n"
            "    print(turn[\"turn\"], turn[\"text\"][:80], len(turn[\"images\"]))"
        )

    # ------------------------------------------------------------------ reading
    def read(self, source: Path, log: ProblemLog) -> Iterator[tuple[str, dict]]:
        self._sources = []
        source = Path(source)
        if not source.is_dir() or not (source / "cases").is_dir():
            log.add(str(source), "expected a folder with a `cases/` subfolder of case JSON files")
            return
        files = sorted((source / "cases").glob("*.json"))
        if not files:
            log.add("cases/", "no .json case file found")
            return
        sidecar = read_sidecar(source, log)
        seen: dict[str, str] = {}
        with_facts, without_facts = [], []
        for path in files:
            if log.full:
                return
            rel = str(path.relative_to(source))
            row = self._read_case(path, rel, source, log, seen, sidecar)
            if row is None:
                continue
            (with_facts if row["reference_facts"] is not None else without_facts).append(row["case_id"])
            self._sources.append((row["case_id"], row["pmid"], row["pmcid"], row["license"]))
            yield "default", row
        for case_id in sorted(set(sidecar) - set(seen)):
            log.add(SIDECAR, "reference facts for a case that is not in cases/", line=sidecar[case_id]["line"],
                    case=case_id)
        if with_facts and without_facts:
            shown = ", ".join(without_facts[:10]) + (" ..." if len(without_facts) > 10 else "")
            log.add(SIDECAR, f"{len(without_facts)} case(s) have no reference facts while {len(with_facts)} do: "
                             f"{shown}; run `python -m benchmarks.clinmm.facts --source DIR`")

    def _read_case(self, path: Path, rel: str, root: Path, log: ProblemLog, seen: dict[str, str],
                   sidecar: dict[str, dict]) -> dict | None:
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except UnicodeDecodeError as exc:
            log.add(rel, f"file is not valid UTF-8 ({exc.reason} at byte {exc.start})")
            return None
        except json.JSONDecodeError as exc:
            log.add(rel, f"malformed JSON ({exc.msg} at column {exc.colno})", line=exc.lineno)
            return None
        if not isinstance(record, dict):
            log.add(rel, f"a case file must hold one JSON object, got {type(record).__name__}")
            return None
        f = FieldReader(log, rel, None)  # type: ignore[arg-type]  # JSON files: located by file, case, field
        case_id = f.string(record.get("case_id"), "case_id") or path.stem
        f.case = case_id
        if case_id in seen:
            f.problem(f"duplicate case_id (first seen in {seen[case_id]})")
        seen.setdefault(case_id, rel)
        extras = f.extras(record, set(record) - KNOWN_KEYS, KNOWN_KEYS)
        meta = self._metadata(f, record)
        presentation = {lang: self._presentation(f, record, lang) for lang in LANGS}
        images = self._images(f, record, root)
        final = {lang: self._bilingual(f, record, "final_diagnosis", lang) for lang in LANGS}
        reasoning = {lang: self._bilingual(f, record, "diagnostic_reasoning", lang) for lang in LANGS}
        facts, extractor = self._facts(f, record, sidecar.get(case_id))
        if not f.ok:
            return None
        types = images["image_types"]
        texts_en = turn_texts(presentation["en"], types, "en")
        texts_zh = turn_texts(presentation["zh"], types, "zh") if presentation["zh"] is not None else None
        turns = [{"turn": k + 1, "role": "user", "text": text,
                  "images": [images["images"][k - 1]] if 1 <= k <= len(types) else [],
                  "image_types": [types[k - 1]] if 1 <= k <= len(types) else []}
                 for k, text in enumerate(texts_en)]
        return {
            "case_id": case_id, **meta,
            "case_presentation_en": presentation["en"], "case_presentation_zh": presentation["zh"],
            "turns": turns, "turn_texts_zh": texts_zh, "num_turns": len(turns), "num_images": len(types),
            "image_ids": images["image_ids"], "image_types": types, "image_paths": images["image_paths"],
            "image_sha256": images["image_sha256"],
            "final_diagnosis_en": final["en"], "final_diagnosis_zh": final["zh"],
            "diagnostic_reasoning_en": reasoning["en"], "diagnostic_reasoning_zh": reasoning["zh"],
            "image_findings_en": images["findings"]["en"], "image_findings_zh": images["findings"]["zh"],
            "diagnostic_significance_en": images["significance"]["en"],
            "diagnostic_significance_zh": images["significance"]["zh"],
            "reference_facts": facts, "reference_facts_extractor": extractor, EXTRA_FIELDS: extras,
        }

    def _metadata(self, f: FieldReader, record: dict) -> dict:
        pmcid = f.string(record.get("pmcid"), "pmcid", required=True)
        if pmcid is not None and not pmcid.upper().startswith("PMC"):
            pmcid = "PMC" + pmcid
        specialty = f.string(record.get("specialty"), "specialty", required=True)
        if specialty is not None:
            specialty = f.vocab_found(specialty, "specialty", normalise_specialty(specialty), SPECIALTIES)
        qc = f.integer(record.get("qc_fidelity_score"), "qc_fidelity_score")
        if qc is not None and not 1 <= qc <= 5:
            f.problem(f"field 'qc_fidelity_score' must be 1-5, got {qc}")
        elif qc is not None and qc < 3:
            f.irregular(f"field 'qc_fidelity_score' is {qc}; the paper keeps only cases scoring >= 3",
                        "qc_fidelity_score below 3 (the paper keeps only cases scoring >= 3)")
        return {"pmid": f.string(record.get("pmid"), "pmid"), "pmcid": pmcid,
                "license": f.string(record.get("license"), "license", required=True), "specialty": specialty,
                "qc_fidelity_score": qc}

    def _block(self, f: FieldReader, record: dict, key: str, lang: str) -> Any:
        """record[key][english|chinese]; the English block is required, the Chinese one optional."""
        outer = f.obj(record.get(key), key)
        value = outer.get(LANGS[lang])
        if value is None and lang == "en":
            f.problem(f"field '{key}.english' is required")
        return value

    def _presentation(self, f: FieldReader, record: dict, lang: str) -> dict | None:
        block = self._block(f, record, "case_presentation", lang)
        if block is None:
            return None
        where = f"case_presentation.{LANGS[lang]}"
        block = f.obj(block, where)
        out = {}
        for name in PRESENTATION_FIELDS:
            if name not in block:
                f.problem(f"field '{where}.{name}' is missing (use an empty string when the report has none)")
            out[name] = f.string(block.get(name), f"{where}.{name}")
        extra = sorted(set(block) - set(PRESENTATION_FIELDS))
        if extra:
            f.problem(f"unknown field(s) in '{where}': {', '.join(extra)}")
        return out

    def _bilingual(self, f: FieldReader, record: dict, key: str, lang: str) -> str | None:
        value = self._block(f, record, key, lang)
        return f.string(value, f"{key}.{LANGS[lang]}", required=(lang == "en"))

    def _images(self, f: FieldReader, record: dict, root: Path) -> dict:
        blocks = f.obj(record.get("images"), "images")
        english = f.array(blocks.get("english"), "images.english")
        chinese = f.array(blocks.get("chinese"), "images.chinese", required=False)
        files = f.obj(record.get("image_files"), "image_files")
        out = {"images": [], "image_ids": [], "image_types": [], "image_paths": [], "image_sha256": [],
               "findings": {"en": [], "zh": None}, "significance": {"en": [], "zh": None}}
        if not english and f.ok:
            f.problem("case has no image (images.english is empty); every case needs at least one image")
        if chinese and len(chinese) != len(english):
            f.problem(f"images.chinese has {len(chinese)} entries but images.english has {len(english)}")
            chinese = []
        if chinese:
            out["findings"]["zh"], out["significance"]["zh"] = [], []
        for k, entry in enumerate(english):
            where = f"images.english[{k}]"
            entry = f.obj(entry, where)
            image_id = f.string(entry.get("image_id"), f"{where}.image_id", required=True)
            image_type = f.string(entry.get("image_type"), f"{where}.image_type", required=True)
            finding = f.string(entry.get("image_finding"), f"{where}.image_finding", required=True)
            significance = f.string(entry.get("diagnostic_significance"), f"{where}.diagnostic_significance", required=True)
            if image_id is None:
                continue
            if image_id in out["image_ids"]:
                f.problem(f"field '{where}.image_id' repeats {image_id!r}")
            if chinese:
                zh = f.obj(chinese[k], f"images.chinese[{k}]")
                if zh.get("image_id") not in (None, image_id):
                    f.problem(f"images.chinese[{k}].image_id is {zh.get('image_id')!r}, expected {image_id!r} "
                              "(the two lists must be in the same order)")
                out["findings"]["zh"].append(f.string(zh.get("image_finding"), f"images.chinese[{k}].image_finding"))
                out["significance"]["zh"].append(
                    f.string(zh.get("diagnostic_significance"), f"images.chinese[{k}].diagnostic_significance"))
            rel = files.get(image_id)
            if not isinstance(rel, str) or not rel.strip():
                f.problem(f"field 'image_files' has no path for image_id {image_id!r}")
                continue
            image = release_image(f, root, rel, f"image_files.{image_id}")
            if image is None:
                continue
            out["images"].append({"bytes": image["bytes"], "path": f"{f.case}/{Path(rel).name}"})
            out["image_sha256"].append(image["sha256"])
            out["image_paths"].append(rel)
            out["image_ids"].append(image_id)
            out["image_types"].append(image_type)
            out["findings"]["en"].append(finding)
            out["significance"]["en"].append(significance)
        unused = sorted(set(files) - {e.get("image_id") for e in english if isinstance(e, dict)})
        if unused:
            f.problem(f"field 'image_files' names image(s) not in images.english: {', '.join(map(str, unused))}")
        return out

    def _facts(self, f: FieldReader, record: dict, side: dict | None) -> tuple[list[str] | None, str | None]:
        inline = record.get("reference_facts")
        if inline is not None and side is not None:
            f.problem(f"reference facts given twice (in the case file and in {SIDECAR}, line {side['line']}); "
                      "keep one")
            return None, None
        if side is not None:
            return side["facts"], side["extractor"]
        if inline is None:
            return None, None
        facts = f.array(inline, "reference_facts")
        return _clean_facts(f, facts, "reference_facts"), "frozen in the case file (reference_facts)"


def _clean_facts(f: FieldReader, facts: list, where: str) -> list[str] | None:
    if not facts:
        f.problem(f"field '{where}' is empty; a case needs at least one reference fact")
        return None
    clean = [f.string(fact, f"{where}[{k}]", required=True) for k, fact in enumerate(facts)]
    return clean if all(c is not None for c in clean) else None


def read_sidecar(source: Path, log: ProblemLog) -> dict[str, dict]:
    """case_id -> {facts, extractor, line} from `reference_facts.jsonl` (absent: empty)."""
    path = Path(source) / SIDECAR
    out: dict[str, dict] = {}
    if not path.is_file():
        return out
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as exc:
            log.add(SIDECAR, f"malformed JSON ({exc.msg} at column {exc.colno})", line=line_no)
            continue
        f = FieldReader(log, SIDECAR, line_no)
        entry = f.obj(entry, "line")
        case_id = f.string(entry.get("case_id"), "case_id", required=True)
        f.case = case_id
        facts = _clean_facts(f, f.array(entry.get("facts"), "facts"), "facts")
        extractor = entry.get("extractor")
        if case_id in out:
            f.problem(f"duplicate case_id (first at line {out[case_id]['line']})")
        elif case_id is not None and facts is not None:
            out[case_id] = {"facts": facts, "line": line_no,
                            "extractor": json.dumps(extractor, sort_keys=True) if isinstance(extractor, dict)
                            else (str(extractor) if extractor else "reference_facts.jsonl")}
    return out

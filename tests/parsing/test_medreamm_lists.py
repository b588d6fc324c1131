"""MedReaMM list parsing beyond the authors' parser (issue 27): JSON objects, single-quoted lists with
apostrophes, plain lists under the heading, echoed templates, and the diagnosis name stripped of appended
codes, likelihoods and explanations. A hand-labelled corpus plus one case per rule."""
import json
from pathlib import Path

import pytest

from benchmarks.medreamm.parsing import diagnosis_name, is_template, parse_response, ranked_list, ranked_lists

CORPUS_PATH = Path(__file__).with_name("medreamm_list_corpus.jsonl")
CORPUS = [json.loads(line) for line in CORPUS_PATH.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("case", CORPUS, ids=[f"M{n}-{c['style']}" for n, c in enumerate(CORPUS, 1)])
def test_list_corpus_case(case):
    assert [diagnosis_name(item) for item in parse_response(case["text"])] == case["expected"], case.get("note")


def test_list_corpus_is_varied():
    assert len(CORPUS) >= 30 and len({c["style"] for c in CORPUS}) >= 20
    assert sum(not c["expected"] for c in CORPUS) >= 6


@pytest.mark.parametrize("text, expected", [
    ('[{"diagnosis": "Gout", "probability": 0.7}, {"diagnosis": "Pseudogout"}]', ["Gout", "Pseudogout"]),
    ('[{"name": "Gout", "disease": "Pseudogout"}]', ["Pseudogout"]),  # `disease` outranks `name`
    ('[{"Diagnosis": "Gout"}]', ["Gout"]),                            # keys compared case-folded
    ('[{"diagnosis": 3, "name": "Gout"}]', ["Gout"]),                # a non-string field is skipped
    ('[{"probability": 0.7}] "Gout"', []),                           # objects without a diagnosis: nothing
    ('[{"diagnosis": "Gout"}, 3]', ["Gout"]),                        # beside objects, other values are skipped
    ('[1, 2] "Gout"', ["Gout"]),                                     # no object: numbers are no list (authors')
])
def test_json_objects_give_their_diagnosis_field(text, expected):
    assert parse_response("### Output ###\n" + text) == expected


@pytest.mark.parametrize("text, expected", [
    ("['Crohn's disease', 'Graves' disease']", ["Crohn's disease", "Graves' disease"]),
    ("['Crohn’s disease' , 'Still's disease']", ["Crohn’s disease", "Still's disease"]),
    ("['Crohn's disease']", ["Crohn's disease"]),
    ("[Crohn's disease, Gout]", []),                                   # not quoted: not this shape
])
def test_single_quoted_lists_with_apostrophes(text, expected):
    assert parse_response("### Output ###\n" + text) == expected


@pytest.mark.parametrize("text, expected", [
    ("### Output ###\nGout, Pseudogout", ["Gout", "Pseudogout"]),
    ("### Output ###\nGout; Pseudogout, calcium pyrophosphate type", ["Gout", "Pseudogout, calcium pyrophosphate type"]),
    ("### Output ###\nGout\nPseudogout.", ["Gout", "Pseudogout"]),
    ("Gout, Pseudogout", []),                                          # no heading: not read
    ("### Output ###\n" + "word " * 13, []),                          # 13 words: prose
    ("### Output ###\n" + "word " * 12, [("word " * 12).strip()]),    # 12 words: still an item
    ("### Output ###\n[]\nGout", []),                                  # a bracketed list decides
])
def test_plain_lists_under_the_heading(text, expected):
    assert parse_response(text) == expected


@pytest.mark.parametrize("item, template", [
    ("Diagnosis A", True), ("diagnosis b", True), ("Diagnosis 2", True), ("Disease C", True),
    ("Diagnosis AB", False), ("Hepatitis A", False), ("Diagnosis", False), ("Diagnosis A B", False),
])
def test_template_items(item, template):
    assert is_template(item) is template


@pytest.mark.parametrize("item, name", [
    ("Pneumonia (CA40)", "Pneumonia"),
    ("Langerhans cell histiocytosis (2B31.2)", "Langerhans cell histiocytosis"),
    ("Cushing syndrome (ICD-11: 5A70)", "Cushing syndrome"),
    ("Sepsis - 60%", "Sepsis"),
    ("Sepsis – 60%", "Sepsis"),
    ("Sepsis 60%", "Sepsis"),
    ("Sepsis, 0.6", "Sepsis"),
    ("Appendicitis (70%)", "Appendicitis"),
    ("Kaposi sarcoma (0.2)", "Kaposi sarcoma"),
    ("Pneumocystis pneumonia (probability: 0.5)", "Pneumocystis pneumonia"),
    ("Kawasaki disease (most likely)", "Kawasaki disease"),
    ("Hepatocellular carcinoma: arterial enhancement", "Hepatocellular carcinoma"),
    ("**Systemic sclerosis** - skin thickening", "Systemic sclerosis"),
    ("Rosai-Dorfman disease (3B63.1) - less likely", "Rosai-Dorfman disease"),
    # kept: hyphenated names, integers that are part of the name, abbreviations and other parentheses
    ("Guillain-Barré syndrome", "Guillain-Barré syndrome"),
    ("Trisomy 21", "Trisomy 21"),
    ("Type 2 diabetes mellitus", "Type 2 diabetes mellitus"),
    ("Neurofibromatosis (type 1)", "Neurofibromatosis (type 1)"),
    ("Focal nodular hyperplasia (FNH)", "Focal nodular hyperplasia (FNH)"),
    ("Pneumonia (left lower lobe: CA40)", "Pneumonia (left lower lobe: CA40)"),
    ("Hemophilia A", "Hemophilia A"),
    ("70%", "70%"),  # nothing but a likelihood: kept (it codes to nothing), never emptied
])
def test_diagnosis_name_strips_what_models_append(item, name):
    assert diagnosis_name(item) == name


def test_ranked_lists_code_names_and_keep_the_raw_text():
    assert ranked_list(["Sepsis - 60%", "sepsis (0.3)", "Pneumonia (CA40)"]) == ["Sepsis", "Pneumonia"]
    assert ranked_lists([["Pneumonia (CA40)", "Pneumonia"]]) == [["Pneumonia"]]
    from benchmarks.medreamm.parsing import ranked_matrix
    import pyarrow as pa

    matrix = ranked_matrix(pa.array([["Pneumonia (CA40)", "Gout - 10%"]], pa.list_(pa.string())))
    assert matrix.terms == ["Pneumonia", "Gout"] and matrix.raw == ["Pneumonia (CA40)", "Gout - 10%"]
    matrix = ranked_matrix(pa.array([["Pneumonia (CA40)"], ["Pneumonia"]], pa.list_(pa.string())))
    assert matrix.terms == ["Pneumonia"] and matrix.raw == ["Pneumonia (CA40)"]  # the first text it was read from

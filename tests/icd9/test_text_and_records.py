"""ICD-9 pre-processing (section 4 + NegEx) and the record readers, on real and hand-made input."""
import gzip
from collections import Counter

import pytest

from textqa.models.icd9.records import (MAX_CHARS, RecordError, load_descriptions, read_cmc_xml, read_jsonl,
                                 read_records)
from textqa.models.icd9.text import NUMBER_TOKEN, PRONOUN_TOKEN, TextOptions, dedupe_paragraphs, record_features
from textqa.runtime.paths import DATA_DIR, english_stopwords

CMC = DATA_DIR / "icd9" / "cmc2007_train_dev80.xml.gz"
STOP = english_stopwords()


def feats(text, **kw):
    return record_features({"text": text}, TextOptions(stopwords=STOP, **kw))


def test_negation_and_uncertainty_scopes():
    f = feats("No focal pneumonia. Cough for three days.")
    assert "NEG_focal" in f and "NEG_pneumonia" in f and "cough" in f and "NEG_cough" not in f   # sentence ends scope
    assert "UNC_pneumonia" in feats("Atelectasis versus pneumonia.")
    assert "UNC_pneumonia" in feats("Cannot exclude pneumonia")
    f = feats("No fever but persistent cough")
    assert "NEG_fever" in f and "persistent" in f and "cough" in f          # 'but' terminates the scope
    assert "pneumonia" in feats("No focal pneumonia.", negation=False)


def test_classing_stopwords_and_window():
    f = feats("He is 11 years old with 3.5 cm mass")
    assert NUMBER_TOKEN in f and PRONOUN_TOKEN in f and "is" not in f and "with" not in f
    f = feats("No a1 a2 a3 a4 a5 a6 a7 a8", window=3)
    assert f[:3] == ["NEG___num__"] * 3 and f[3] == NUMBER_TOKEN


def test_sections_are_prefixed_and_kept_plain():
    f = record_features({"history": "Cough.", "impression": "Pneumonia."}, TextOptions(stopwords=STOP))
    assert {"cough", "H_cough", "pneumonia", "I_pneumonia"} <= set(f)
    f = record_features({"history": "Cough."}, TextOptions(sections=False))
    assert f == ["cough"]
    # plain text may hold either section: both prefixes, beside the plain features
    assert feats("Cough.") == ["cough", "H_cough", "I_cough"]


def test_hypothetical_pseudo_and_post_triggers():
    # ConText's hypothetical triggers: the requisition's question is not a finding
    assert "UNC_pneumonia" in feats("Evaluate for pneumonia.") and "UNC_pneumonia" in feats("Rule out pneumonia.")
    # NegEx's pseudo-negations open no scope: the hydronephrosis is still there
    f = feats("No significant change of severe left hydronephrosis.")
    assert "hydronephrosis" in f and not any(x.startswith("NEG_") for x in f)
    assert "NEG_hydronephrosis" in feats("No hydronephrosis.")
    # post-triggers reach back over the words before them, within the sentence and up to a terminator
    f = feats("A small focus of pneumonia cannot be excluded. Cough.")
    assert "UNC_pneumonia" in f and "UNC_focus" in f and "cough" in f
    f = feats("Atelectasis but pneumonia is ruled out")
    assert "NEG_pneumonia" in f and "atelectasis" in f
    assert "NEG_pneumonia" in feats("No pneumonia is suspected")          # a negation is not turned uncertain
    assert "pneumonia" in feats("Pneumonia is ruled out", negation=False)
    # each group switchable; without them the basic lists are what they were ("rule out" a negation)
    assert "NEG_pneumonia" in feats("Rule out pneumonia.", triggers=())
    assert "pneumonia" in feats("Pneumonia cannot be excluded.", triggers=("hypothetical",))
    assert "NEG_hydronephrosis" in feats("No significant change of hydronephrosis.", triggers=("post",))
    assert "worrisome" in feats("Worrisome for pneumonia.", triggers=("post",))
    assert "UNC_pneumonia" in feats("Worrisome for pneumonia.")
    with pytest.raises(ValueError, match="unknown trigger group"):
        feats("Cough.", triggers=("contextual",))


def test_index_term_concepts():
    from textqa.models.icd9.concepts import INDEX, concepts
    from textqa.models.icd9.text import tagged_sentences
    opts = TextOptions(stopwords=STOP)

    def found(text):
        return concepts(tagged_sentences(text, opts), STOP)
    assert found("Bilateral nonobstructing renal stones.") == [("592.0", None)]
    assert found("Two new renal calculi are identified.") == [("592.0", None)]          # plural folded
    # degree and laterality words inside a term; both word orders of an index entry
    assert found("Mild dilatation of the left collecting system.") == [("593.89", None)]
    assert found("Collecting system dilation.") == [("593.89", None)]
    assert found("Left duplicated kidney.") == [("753.3", None)]
    # scopes: negated, uncertain, affirmed; the longest term wins ("urinary tract infection", not "infection")
    assert found("No focal pneumonia.") == [("486", "NEG")]
    assert found("Atelectasis versus pneumonia.") == [("518.0", None), ("486", "UNC")]
    assert found("Recent urinary tract infection with fever.") == [("599.0", None), ("780.6", None)]
    assert found("Normal renal ultrasound.") == []
    f = record_features({"history": "Cough.", "impression": "No pneumonia."}, TextOptions(stopwords=STOP, concepts=True))
    assert {"CPT_786.2", "H_CPT_786.2", "CPT_NEG_486", "I_CPT_NEG_486"} <= set(f)
    assert not any(x.startswith("CPT") for x in feats("Cough."))                       # off unless asked
    assert all(c[0].isdigit() or c[0] == "V" for c in INDEX) and all(INDEX.values())


def test_paragraph_deduplication():
    assert dedupe_paragraphs("Cough.\n\nFever.\n\n  cough. \n\nFEVER.") == "Cough.\n\nFever."


def test_real_cmc_file_matches_its_sources_counts():
    records = read_cmc_xml(CMC)
    assert len(records) == 782
    counts = Counter(c for r in records for c in r.codes)
    assert sum(counts.values()) == 966 and len(counts) == 42
    assert [c for c, _ in counts.most_common(5)] == ["786.2", "780.6", "599.0", "593.70", "591"]
    assert counts["786.2"] == 209 and set(records[0].sections) == {"history", "impression"}
    assert read_records(CMC)[0].id == records[0].id


def test_descriptions_table():
    d = load_descriptions(DATA_DIR / "icd9" / "CMS32_DESC_LONG_DX.txt.gz")
    assert d["786.2"] == "Cough" and d["593.70"].startswith("Vesicoureteral reflux") and "E800.0" in d


@pytest.mark.parametrize("content, message", [
    (b"<docs><doc id='1'><texts><text>x</text></docs>", "bad.xml:1: malformed XML"),
    (b"<docs><doc id='1'><texts><text type='IMPRESSION'>  </text></texts></doc></docs>", "<doc id='1'>: empty document"),
    (b"<docs></docs>", "no <doc> elements"),
    (b"<docs><doc id='1'><texts><text>a</text></texts></doc><doc id='1'><texts><text>b</text></texts></doc></docs>",
     "id given twice"),
])
def test_cmc_xml_errors_name_the_record(tmp_path, content, message):
    f = tmp_path / "bad.xml"
    f.write_bytes(content)
    with pytest.raises(RecordError, match=message.replace("(", r"\(")):
        read_cmc_xml(f)


@pytest.mark.parametrize("line, message", [
    ('{"id": "a", "text": "x"', "r.jsonl:1: malformed JSON"),
    ('["a"]', "r.jsonl:1: a record must be a JSON object"),
    ('{"text": "x"}', "r.jsonl:1: record needs an 'id'"),
    ('{"id": "a", "text": "  "}', "r.jsonl:1 \\(id 'a'\\): empty document"),
    ('{"id": "a", "text": 5}', "text must be a string"),
    ('{"id": "a", "text": "x", "codes": "786.2"}', "'codes' must be a list"),
    ('{"id": "a", "text": "' + "x" * (MAX_CHARS + 1) + '"}', "over the limit"),
])
def test_jsonl_errors_name_file_line_and_record(tmp_path, line, message):
    f = tmp_path / "r.jsonl"
    f.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(RecordError, match=message):
        read_jsonl(f)


def test_jsonl_duplicates_encoding_and_missing_codes(tmp_path):
    f = tmp_path / "r.jsonl"
    f.write_text('{"id": 1, "text": "a"}\n{"id": "1", "text": "b"}\n', encoding="utf-8")
    with pytest.raises(RecordError, match="r.jsonl:2: id '1' given twice"):
        read_jsonl(f)
    f.write_bytes(b'{"id": 1, "text": "a"}\n{"id": 2, "text": "\xff"}\n')
    with pytest.raises(RecordError, match="r.jsonl:2: not valid UTF-8"):
        read_jsonl(f)
    f.write_text('{"id": 1, "text": "a"}\n', encoding="utf-8")
    with pytest.raises(RecordError, match="no 'codes'"):
        read_jsonl(f, need_codes=True)
    g = tmp_path / "r.jsonl.gz"
    g.write_bytes(gzip.compress(b'{"id": 1, "sections": {"history": "Cough."}, "codes": ["786.2"]}\n'))
    assert read_jsonl(g, need_codes=True)[0].codes == ["786.2"]


def test_scope_spans_are_where_the_features_are_negated():
    """``scope_spans`` (the playground's highlighting) marks exactly the words that
    ``tagged_sentences`` puts in a scope, at their character offsets, and the trigger phrases."""
    from textqa.models.icd9.text import scope_spans, tagged_sentences
    opts = TextOptions(stopwords=english_stopwords())
    text = ("History: cough.\nImpression: No evidence of focal pneumonia. Possible early infiltrate versus "
            "atelectasis, but the heart is normal. Effusion is not seen.")
    spans = scope_spans(text, opts)
    words = {(text[s["start"]:s["end"]].lower(), s["kind"]) for s in spans}
    tagged = [(st, tok) for sent in tagged_sentences(text, opts) for st, tok in sent if st]
    scoped = [s for s in spans if s["kind"] != "trigger"]
    assert len(scoped) == len(tagged)
    assert {("pneumonia", "negated"), ("focal", "negated"), ("infiltrate", "uncertain"), ("atelectasis", "uncertain"),
            ("effusion", "negated")} <= words
    assert ("heart", "uncertain") not in words and ("cough", "negated") not in words     # "but" ends the scope
    triggers = {text[s["start"]:s["end"]].lower(): s["trigger"] for s in spans if s["kind"] == "trigger"}
    assert triggers["no evidence of"] == "NEG" and triggers["possible"] == "UNC" and triggers["is not seen"] == "POST_NEG"
    assert [s["start"] for s in spans] == sorted(s["start"] for s in spans)

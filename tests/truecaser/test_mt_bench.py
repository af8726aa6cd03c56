"""The MT-recasing benchmark's placeholder count (bench/truecase_mt.py), on a synthetic example."""
from bench.truecase_mt import placeholders_kept


def test_placeholders_are_compared_span_for_span():
    own = ["Ask #NAME# about #PRS_ORG#.", "No placeholder here.", "#NUMBER# of #NAME#"]
    recased = ["Ask #name# about #PRS_ORG#.", "No placeholder here.", "#Number# of #NAME#"]
    kept = placeholders_kept(own, recased)
    assert kept[("#NAME#", "of")] == 2 and kept[("#NAME#", "kept")] == 1
    assert kept[("#PRS_ORG#", "of")] == 1 and kept[("#PRS_ORG#", "kept")] == 1
    assert kept[("#NUMBER#", "of")] == 1 and kept[("#NUMBER#", "kept")] == 0
    assert placeholders_kept(own, own)[("#NAME#", "kept")] == 2

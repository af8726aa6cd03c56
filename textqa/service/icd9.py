"""``POST /v1/icd9/code``: ICD-9-CM codes for clinical documents."""
from __future__ import annotations

from flask import Blueprint

from textqa.models.icd9.records import Record

from .contract import POST_ERRORS, endpoint
from .http_errors import invalid
from .slots import get_model
from .schemas import Icd9Response
from .validation import check_request_budget

bp = Blueprint("icd9", __name__)


@endpoint(bp, "POST", "/v1/icd9/code", request="icd9", response=Icd9Response, errors=POST_ERRORS, tag="icd9",
          summary="ICD-9-CM codes for clinical documents (Lita et al. 2008: per-code SVM or BRR)",
          examples={"one": {"documents": [{"id": "1", "text": "Cough and fever for three days. No focal pneumonia."}],
                            "classifier": "svm"}})
def code(req):
    """Codes above their thresholds per document, best first, in the order of the documents."""

    coder = get_model("icd9")
    if req.classifier not in getattr(coder, "models_", {}):
        raise invalid("classifier", f"this model has no {req.classifier!r} classifier "
                                    f"(it has {', '.join(coder.models_)})")
    records = [Record(str(d.id), {"text": d.text} if d.sections is None else dict(d.sections), [])
               for d in req.documents]
    check_request_budget(sum(len(r.text.split()) for r in records), "TEXTQA_ICD9_MAX_TOKENS_PER_REQUEST", "tokens",
                         "send fewer documents per request")
    manifest = getattr(coder, "manifest", {})
    return {"documents": coder.code(records, req.classifier, req.all_scores, req.explain), "classifier": req.classifier,
            "model": {"name": manifest.get("name", "icd9"), "created_at": manifest.get("created_at")}}

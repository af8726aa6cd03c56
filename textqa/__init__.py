"""textqa: classic NLP models (truecaser, BLANC, ICD-9 coders, instance-based QA) as versioned artifacts."""
__version__ = "0.1.0"

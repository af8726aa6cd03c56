"""Model implementations (pure Python + numpy/scikit-learn/kenlm); no I/O layout, no Flask."""

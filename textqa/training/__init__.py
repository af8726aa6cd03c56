"""Training scripts: read a dataset, fit, evaluate on held-out data, write an artifact."""

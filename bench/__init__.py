"""Benchmarks: speed, memory and quality against named peers (``make bench``)."""

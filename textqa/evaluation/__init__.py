"""Scorers that read system output in the papers' formats; imports nothing from models/."""

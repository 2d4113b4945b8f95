"""Batch jobs composed from the other parts: rating, grading, collections, the demo."""

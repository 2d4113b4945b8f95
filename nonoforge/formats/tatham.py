"""Placeholder: this format module is being written; it registers nothing yet."""

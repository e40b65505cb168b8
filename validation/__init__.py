"""Cross-validation of dupack against ns-2.35 (and, later, ns-3): issue 7.

Run ``python3 validation/run.py`` (see its ``--help``); it writes
docs/validation.md.
"""

"""The ``dupack`` command-line interface (typer)."""

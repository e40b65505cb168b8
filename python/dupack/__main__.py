"""``python -m dupack`` is the ``dupack`` command."""

from dupack.cli.app import main

if __name__ == "__main__":
    main()

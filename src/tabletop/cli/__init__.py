"""The ``tabletop`` command-line tool."""

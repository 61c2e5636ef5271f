"""Practice tables: the computer players' driver, and hints and reviews for the person."""

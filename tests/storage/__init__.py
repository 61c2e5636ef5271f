"""The Store on SQLite and PostgreSQL: migrations, durability, ledger guards, operations."""

"""Durable state of the bot (SQLite, or PostgreSQL by URL): ``store.Store`` composes the
repositories of this package over one database, on both backends.

Each name is imported from the one module that defines it (``bot.storage.store.Store``,
``bot.storage.rows``, ``bot.storage.errors``, ``bot.storage.migrations``): this package
re-exports nothing."""

"""Packaging: everything is in pyproject.toml but this one mapping, which pyproject cannot
express beside package discovery. The repository's top-level ``cogs/`` is installed as
``bot.cogs``, so installing the bot never puts a generic ``cogs`` package into
site-packages, where it would clash with any other project's ``cogs``."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["bot", "bot.*"]), "bot.cogs"],
    package_dir={"bot.cogs": "cogs"},
)

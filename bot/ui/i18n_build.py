"""Extract, compile and check the gettext catalogs (Babel). Run from the repository:

    python -m bot.ui.i18n_build extract   # messages.po of every locale from the English source
    python -m bot.ui.i18n_build compile   # messages.po -> messages.mo (shipped in the package)
    python -m bot.ui.i18n_build check     # what CI fails on; exit 1 with one line per problem

``extract`` writes the English catalog from the source (``bot.ui.catalog.MESSAGES``, the
rule summaries and every slash-command string discord.py would translate) and merges it
into each translated catalog: a new key arrives untranslated, a key whose English changed
is marked fuzzy (the English each translation was made from is kept as its ``#.`` comment),
a key gone from the source is dropped. Translators then fill in ``msgstr`` and remove the
``fuzzy`` flag; ``compile`` writes the ``.mo`` files that ``bot.ui.i18n`` reads.
"""

from __future__ import annotations

import asyncio
import importlib
import io
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po, write_po

from . import i18n

# The classic GNU gettext plural rules (Babel's CLDR-derived ones vary between versions).
PLURAL_FORMS = {
    "en": "nplurals=2; plural=(n != 1);",
    "pt_BR": "nplurals=2; plural=(n > 1);",
    "vi": "nplurals=1; plural=0;",
}
# Fixed header dates keep the files free of churn: the content is what changes.
STAMP = datetime(2026, 1, 1, tzinfo=timezone.utc)  # noqa: UP017 - Babel wants a tzinfo
COMMAND_CONTEXT = "command:"


@dataclass(frozen=True)
class Source:
    """One English source string: msgid (a key, or the English of a command string)."""

    msgid: str
    english: str | tuple[str, str]  # (one, other) for a plural message
    context: str | None = None

    @property
    def id(self) -> str | tuple[str, str]:
        return (self.msgid, self.msgid) if isinstance(self.english, tuple) else self.msgid


ROOT = Path(str(i18n.LOCALE_DIR))


def po_path(locale: str, root: Path = ROOT) -> Path:
    return root / locale / "LC_MESSAGES" / f"{i18n.DOMAIN}.po"


def mo_path(locale: str, root: Path = ROOT) -> Path:
    return root / locale / "LC_MESSAGES" / f"{i18n.DOMAIN}.mo"


# --------------------------------------------------------------------------- the source


def message_sources() -> list[Source]:
    """The catalog's keyed messages (with the rule summaries and the server controls')."""
    from bot.ui.catalog import MESSAGES, Plural

    return [
        Source(key, (m.one, m.other) if isinstance(m, Plural) else m) for key, m in MESSAGES.items()
    ]


async def command_strings() -> list[tuple[str, str]]:
    """(location, English) of every string of the slash-command tree that discord.py
    hands to the translator: names, descriptions, options and choices."""
    import discord
    from discord import app_commands
    from discord.ext import commands

    from bot.engine import VARIANTS
    from bot.ui.extensions import EXTENSIONS

    seen: dict[tuple[str, str], None] = {}

    class Recorder(app_commands.Translator):
        async def translate(
            self,
            string: app_commands.locale_str,
            locale: discord.Locale,
            context: app_commands.TranslationContextTypes,
        ) -> str | None:
            game_group = context.location.name == "group_name" and string.message in VARIANTS
            if locale == discord.Locale.american_english and not game_group:
                where = i18n.command_where(context.location.name, string.extras)
                seen[(where, string.message)] = None
            return None

    bot = commands.Bot(command_prefix="!", intents=discord.Intents.none())
    for name in EXTENSIONS:  # the cogs' classes, without running their cog_load
        module = importlib.import_module(name)
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, commands.Cog) and obj.__module__ == name:
                cog = obj(bot)
                group = cog.__cog_app_commands_group__
                tops: list[Any] = [group] if group else list(cog.get_app_commands())
                for command in tops:
                    bot.tree.add_command(command)
    recorder = Recorder()
    for command in bot.tree.get_commands():
        await command.get_translated_payload(bot.tree, recorder)
    return list(seen)


def command_sources() -> list[Source]:
    strings = asyncio.run(command_strings())
    return [Source(english, english, COMMAND_CONTEXT + where) for where, english in strings]


def sources() -> list[Source]:
    return message_sources() + command_sources()


# --------------------------------------------------------------------------- catalogs


def new_catalog(locale: str) -> Catalog:
    catalog = Catalog(
        locale=locale,
        domain=i18n.DOMAIN,
        project="lowball-bot",
        version="1",
        creation_date=STAMP,
        revision_date=STAMP,
        charset="utf-8",
        fuzzy=False,
        copyright_holder="the lowball-bot authors",
        msgid_bugs_address="",
        last_translator="the lowball-bot authors",
        language_team=i18n.LANGUAGE_NAMES[locale],
        header_comment=(
            f"# {i18n.LANGUAGE_NAMES[locale]} messages of lowball-bot ({locale}).\n"
            "# Translate msgstr only. `python -m bot.ui.i18n_build extract` refreshes the\n"
            "# keys from the English source; `... compile` writes messages.mo.\n#"
        ),
    )
    headers = [(k, v) for k, v in catalog.mime_headers if k != "Plural-Forms"]
    catalog.mime_headers = [*headers, ("Plural-Forms", PLURAL_FORMS[locale])]
    return catalog


def load(locale: str, root: Path = ROOT) -> Catalog:
    path = po_path(locale, root)
    if not path.is_file():
        return new_catalog(locale)
    with path.open("rb") as fp:
        return read_po(fp, locale=locale, domain=i18n.DOMAIN)


def save(catalog: Catalog, locale: str, root: Path = ROOT) -> None:
    path = po_path(locale, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    write_po(buf, catalog, width=100, omit_header=False, sort_output=False, include_lineno=False)
    path.write_bytes(buf.getvalue())


def english_of(source: Source) -> str:
    """The English as one comment line (plural forms joined), to notice a change."""
    if isinstance(source.english, tuple):
        return " | ".join(source.english)
    return source.english


def extract(all_sources: Iterable[Source], root: Path = ROOT) -> None:
    all_sources = list(all_sources)
    english = new_catalog(i18n.SOURCE)
    for s in all_sources:
        english.add(s.id, s.english, context=s.context)
    save(english, i18n.SOURCE, root)
    for locale in i18n.LOCALES:
        if locale == i18n.SOURCE:
            continue
        old = load(locale, root)
        merged = new_catalog(locale)
        for s in all_sources:
            previous = old.get(s.msgid, context=s.context)
            comment = english_of(s)
            if previous is None or not _translated(previous):
                string: str | tuple[str, ...] = (
                    ("",) * merged.num_plurals if isinstance(s.english, tuple) else ""
                )
                merged.add(s.id, string, auto_comments=[comment], context=s.context)
                continue
            flags = set(previous.flags)
            if " ".join(previous.auto_comments).split() != comment.split():
                flags.add("fuzzy")  # the English changed since this was translated
            merged.add(
                s.id,
                _reshape(previous.string, s.english, merged.num_plurals),
                auto_comments=[comment],
                context=s.context,
                flags=flags,
            )
        save(merged, locale, root)


def _reshape(string: Any, english: str | tuple[str, ...], num_plurals: int) -> Any:
    """Keep a translation's forms when a message turns plural or back."""
    if isinstance(english, tuple):
        forms = list(string) if isinstance(string, list | tuple) else [string]
        return tuple((forms + [forms[-1]] * num_plurals)[:num_plurals])
    return string[0] if isinstance(string, list | tuple) else string


def _translated(message: Message) -> bool:
    if isinstance(message.string, list | tuple):
        return all(message.string)
    return bool(message.string)


def compile_mo(locale: str, root: Path = ROOT) -> bytes:
    buf = io.BytesIO()
    write_mo(buf, load(locale, root), use_fuzzy=False)
    return buf.getvalue()


def compile_all(root: Path = ROOT) -> None:
    for locale in i18n.LOCALES:
        mo_path(locale, root).write_bytes(compile_mo(locale, root))


# --------------------------------------------------------------------------- checks


def _forms(message: Message) -> list[str]:
    string = message.string
    return [str(f) for f in string] if isinstance(string, list | tuple) else [str(string)]


def _mo_content(data: bytes) -> dict[tuple[str | None, str], Any]:
    catalog = read_mo(io.BytesIO(data))
    return {(m.context, str(m.id)): m.string for m in catalog if m.id}


def problems(all_sources: Iterable[Source] | None = None, root: Path = ROOT) -> list[str]:
    """Everything CI fails on, one line each (empty when the catalogs are in order)."""
    all_sources = list(sources() if all_sources is None else all_sources)
    out: list[str] = []
    for locale in i18n.LOCALES:
        catalog = load(locale, root)
        if catalog.num_plurals != int(PLURAL_FORMS[locale].split(";")[0].split("=")[1]):
            out.append(f"{locale}: Plural-Forms header is not {PLURAL_FORMS[locale]!r}")
        wanted = {(s.context, s.msgid) for s in all_sources}
        for message in catalog:
            if message.id and (message.context, _msgid(message)) not in wanted:
                out.append(f"{locale}: {_msgid(message)!r} is not in the source (run extract)")
        for s in all_sources:
            where = f"{locale}: {s.msgid!r}" + (f" ({s.context})" if s.context else "")
            found = catalog.get(s.msgid, context=s.context)
            if found is None:
                out.append(f"{where} is missing (run extract, then translate it)")
                continue
            message = found
            if message.fuzzy:
                out.append(f"{where} is fuzzy: its English changed; check it, drop the flag")
            if not _translated(message):
                out.append(f"{where} is untranslated")
                continue
            if isinstance(s.english, tuple) != isinstance(message.id, list | tuple):
                out.append(f"{where} is plural in one place and not in the other (run extract)")
                continue
            if locale == i18n.SOURCE and _forms(message) != list(
                s.english if isinstance(s.english, tuple) else [s.english]
            ):
                out.append(f"{where}: en catalog differs from the source (run extract)")
            if s.context is None:
                expected = set().union(*(i18n.placeholders(e) for e in _as_list(s.english)))
                plural = isinstance(s.english, tuple)
                for form in _forms(message):
                    got = i18n.placeholders(form)
                    if plural:  # a form for one may say "one" instead of {count}
                        got, expected = got | {"count"}, expected | {"count"}
                    if got != expected:
                        out.append(
                            f"{where}: placeholders {sorted(got)} differ from the English "
                            f"{sorted(expected)}"
                        )
        mo = mo_path(locale, root)
        if not mo.is_file():
            out.append(f"{locale}: {mo.name} is missing (run compile)")
        elif _mo_content(mo.read_bytes()) != _mo_content(compile_mo(locale, root)):
            out.append(f"{locale}: {mo.name} does not match messages.po (run compile)")
    return out


def _msgid(message: Message) -> str:
    return str(message.id[0] if isinstance(message.id, list | tuple) else message.id)


def _as_list(english: str | tuple[str, str]) -> list[str]:
    return list(english) if isinstance(english, tuple) else [english]


def main(argv: list[str]) -> int:
    if argv[:1] == ["extract"]:
        extract(sources())
    elif argv[:1] == ["compile"]:
        compile_all()
    elif argv[:1] == ["check"]:
        found = problems()
        for line in found:
            print(line)
        return 1 if found else 0
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

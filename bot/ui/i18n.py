"""Languages: which one a reader gets, and the compiled gettext catalogs behind ``t``.

The catalogs are standard gettext files, ``bot/ui/locales/<locale>/LC_MESSAGES/
messages.po``, compiled to ``messages.mo`` beside them (``python -m bot.ui.i18n_build``
does both with Babel; the ``.mo`` files ship in the package, so nothing is compiled at
run time). A message's msgid is its catalog key (``table.seats``); the slash-command
strings are keyed by their English text with the place they appear in as msgctxt
(``command:parameter_name``). English is the source language: its words live in
``bot.ui.catalog`` and the ``en`` catalog is generated from them.

Who reads what: a private answer (ephemeral reply, DM) is in the reader's
``interaction.locale``; a public table message or result is in the server's language
(a ``/settings language`` value, else the server's preferred locale). The language of
the text being built is a context variable, set once per interaction task and
switched explicitly (``using``) around public messages.
"""

from __future__ import annotations

import gettext
import string
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from importlib import resources
from typing import Any

from babel.numbers import format_decimal

SOURCE = "en"
LOCALES = ("en", "pt_BR", "vi")  # gettext / Babel names
DOMAIN = "messages"
# Discord's locale codes -> ours; every other Discord locale reads English.
DISCORD_LOCALES = {"en-US": "en", "en-GB": "en", "pt-BR": "pt_BR", "vi": "vi"}
# The language names offered by /settings and shown to players, each in itself.
LANGUAGE_NAMES = {"en": "English", "pt_BR": "Português", "vi": "Tiếng Việt"}

LOCALE_DIR = resources.files(__package__) / "locales"
_current: ContextVar[str] = ContextVar("locale", default=SOURCE)


def resolve(locale: object) -> str:
    """Our locale for a Discord locale (``discord.Locale`` or its code), a name of ours,
    or ``None``. Anything unknown falls back to English."""
    if locale is None:
        return SOURCE
    code = str(getattr(locale, "value", locale))
    if code in LOCALES:
        return code
    if code in DISCORD_LOCALES:
        return DISCORD_LOCALES[code]
    base = code.replace("_", "-").split("-")[0].lower()
    if base == "pt":
        return "pt_BR"  # Discord has only pt-BR; a pt-PT setting reads it too
    return DISCORD_LOCALES.get(base, SOURCE)


def current() -> str:
    """The language of the text being built now."""
    return _current.get()


def set_current(locale: object) -> str:
    """Set the language for the rest of this task (one interaction's task)."""
    resolved = resolve(locale)
    _current.set(resolved)
    return resolved


@contextmanager
def using(locale: object) -> Iterator[str]:
    """Build text in ``locale`` inside the block (a public message inside a private task)."""
    resolved = resolve(locale)
    token = _current.set(resolved)
    try:
        yield resolved
    finally:
        _current.reset(token)


# --------------------------------------------------------------------------- readers

# Discord tells a user's language only with their interactions: the last one seen is the
# language of the DMs sent to them (their cards), until the bot restarts. Bounded: the
# users seen least recently are forgotten (their DMs then use their table's language).
READERS_KEPT = 50_000


class Readers:
    """The latest language of each of the ``kept`` users seen most recently."""

    def __init__(self, kept: int = READERS_KEPT) -> None:
        self.kept = kept
        self._languages: OrderedDict[int, str] = OrderedDict()

    def __len__(self) -> int:
        return len(self._languages)

    def put(self, user_id: int, language: str) -> None:
        self._languages[user_id] = language
        self._languages.move_to_end(user_id)
        while len(self._languages) > self.kept:
            self._languages.popitem(last=False)

    def get(self, user_id: int) -> str | None:
        return self._languages.get(user_id)


_readers = Readers()


def remember(user_id: int, locale: object) -> str:
    resolved = resolve(locale)
    _readers.put(user_id, resolved)
    return resolved


def reader(user_id: int, default: object = None) -> str:
    """The language of a private message to ``user_id`` outside an interaction."""
    return _readers.get(user_id) or resolve(default)


# --------------------------------------------------------------------------- catalogs


@lru_cache(maxsize=len(LOCALES))
def catalog(locale: str) -> gettext.GNUTranslations | gettext.NullTranslations:
    """The compiled catalog of ``locale`` (an empty one if it is not shipped)."""
    path = LOCALE_DIR / locale / "LC_MESSAGES" / f"{DOMAIN}.mo"
    if not path.is_file():
        return gettext.NullTranslations()
    with path.open("rb") as fp:
        return gettext.GNUTranslations(fp)


def lookup(locale: str, key: str, count: int | None = None) -> str | None:
    """The translation of catalog ``key`` in ``locale``; ``None`` if it has none."""
    tr = catalog(locale)
    found = tr.gettext(key) if count is None else tr.ngettext(key, key, count)
    return None if found == key else found


def text(key: str, english: str | tuple[str, str], locale: str, count: int | None = None) -> str:
    """The words of catalog ``key`` in ``locale``, falling back to the English source.

    ``english`` is a string, or ``(one, other)`` for a plural message, whose form is
    chosen by ``count`` under the language's own plural rule (Vietnamese has one form;
    Portuguese's ``n > 1`` puts 0 and 1 in the singular, "0 ficha", "1 ficha", "2 fichas",
    so a message whose count can be 0 says zero its own way, from its own key).
    """
    plural = isinstance(english, tuple)
    if locale != SOURCE:
        found = lookup(locale, key, count if plural else None)
        if found is not None:
            return found
    if isinstance(english, tuple):
        return english[0] if count == 1 else english[1]
    return english


def command_where(location: str, extras: Mapping[str, Any]) -> str:
    """The catalog place of a command string: its location (``command_name``), and the
    ``context`` a ``locale_str`` carries where one English word names two different things
    (``show`` under ``/settings`` and under ``/privacy``: ``command_name:privacy``)."""
    context = extras.get("context")
    return f"{location}:{context}" if context else location


def command_text(locale: str, where: str, english: str) -> str | None:
    """A slash-command string (name, description, option, choice) in ``locale``."""
    if locale == SOURCE:
        return None
    tr = catalog(locale)
    found = tr.pgettext(f"command:{where}", english)
    if found != english:
        return found
    # the same word in both languages ("normal") is a translation too, when the catalog has it
    entries = getattr(tr, "_catalog", {})
    return found if f"command:{where}\x04{english}" in entries else None


# --------------------------------------------------------------------------- formatting


def number(n: int | float, locale: str | None = None) -> str:
    """``1234`` as its readers write it: ``1,234``, ``1.234``."""
    return _number(isinstance(n, float), n, locale or current())  # 1 and 1.0 apart


@lru_cache(maxsize=8192)
def _number(is_float: bool, n: int | float, locale: str) -> str:
    # Babel parses the locale on every call (costly on the event loop: docs/benchmarks.md),
    # for the handful of stack sizes and pots a table shows over and over.
    return format_decimal(n, locale=locale)


# Numbers that name something rather than count it are written as they are (no "1,234"):
# ids, Discord timestamps (<t:…>), seat numbers.
RAW_NUMBERS = frozenset({"created", "seat", "when"})


class LocaleFormatter(string.Formatter):
    """``str.format`` with quantities written the locale's way (``{n}``, ``{n:d}``, ``{n:+d}``):
    ``1,234`` in English, ``1.234`` in Portuguese and Vietnamese; identifiers stay raw."""

    def __init__(self, locale: str) -> None:
        self.locale = locale
        self._field = ""

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        self._field = field_name
        return super().get_field(field_name, args, kwargs)

    def format_field(self, value: Any, format_spec: str) -> str:
        return _format_field(self._field, value, format_spec, self.locale)


def fill(template: str, locale: str, params: Mapping[str, Any]) -> str:
    parts = _parts(template)
    if parts is None:  # conversions, attributes, indexing, nested specs: the general way
        return LocaleFormatter(locale).vformat(template, (), params)
    out = []
    for literal, field, spec in parts:
        out.append(literal)
        if field is not None:
            out.append(_format_field(field, params[field], spec, locale))
    return "".join(out)


@lru_cache(maxsize=4096)
def _parts(template: str) -> tuple[tuple[str, str | None, str], ...] | None:
    """The template's pieces when every field is a plain name (the catalog's case), parsed
    once: ``str.format``'s machinery costs more than the words it fills."""
    parts = []
    for literal, field, spec, conversion in string.Formatter().parse(template):
        if field is not None and (
            not field.isidentifier() or conversion is not None or "{" in (spec or "")
        ):
            return None
        parts.append((literal, field, spec or ""))
    return tuple(parts)


def _format_field(field: str, value: Any, spec: str, locale: str) -> str:
    raw = field in RAW_NUMBERS or field.endswith("_id")
    if isinstance(value, int) and not isinstance(value, bool) and not raw:
        if spec in ("", "d"):
            return number(value, locale)
        if spec == "+d":
            return ("+" if value >= 0 else "-") + number(abs(value), locale)
    return format(value, spec)


def placeholders(template: str) -> set[str]:
    """The named fields of a message (``{name}``, ``{net:+d}`` -> ``name``, ``net``)."""
    fields = set()
    for _, field, _, _ in string.Formatter().parse(template):
        if field is not None:
            fields.add(field.split(".")[0].split("[")[0])
    return fields


def for_interaction(interaction: Any) -> str:
    """Answer this interaction in its reader's language (and DM them in it later)."""
    remember(interaction.user.id, interaction.locale)
    return set_current(interaction.locale)

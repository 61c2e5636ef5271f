"""The gettext catalogs: complete, not fuzzy, the same placeholders, compiled .mo shipped,
and the checker really catches each of those."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog

from bot.ui import i18n
from bot.ui import i18n_build as build
from bot.ui.catalog import MESSAGES, Plural
from tests.support.paths import ROOT


@pytest.fixture(scope="module")
def sources() -> list[build.Source]:
    return build.sources()


def test_catalogs_are_complete_and_compiled(sources) -> None:
    assert build.problems(sources) == []


@pytest.fixture
def copy(tmp_path) -> Path:
    root = tmp_path / "locales"
    shutil.copytree(build.ROOT, root)
    return root


def _edit(root: Path, locale: str, msgid: str, change, context: str | None = None) -> None:
    catalog: Catalog = build.load(locale, root)
    message = catalog.get(msgid, context=context)
    assert message is not None
    change(catalog, message)
    build.save(catalog, locale, root)
    build.compile_all(root)


def test_a_missing_key_is_caught(sources, copy) -> None:
    _edit(copy, "vi", "rules.common", lambda catalog, m: catalog.delete(m.id))
    assert "vi: 'rules.common' is missing (run extract, then translate it)" in build.problems(
        sources, copy
    )


def test_an_untranslated_entry_is_caught(sources, copy) -> None:
    _edit(copy, "pt_BR", "rules.a5-draw", lambda catalog, m: setattr(m, "string", ""))
    assert "pt_BR: 'rules.a5-draw' is untranslated" in build.problems(sources, copy)


def test_a_fuzzy_entry_is_caught(sources, copy) -> None:
    _edit(copy, "vi", "rules.a5-draw", lambda catalog, m: m.flags.add("fuzzy"))
    found = build.problems(sources, copy)
    assert any(p.startswith("vi: 'rules.a5-draw' is fuzzy") for p in found)


def test_a_changed_english_source_marks_its_translations_fuzzy(sources, copy) -> None:
    changed = [
        build.Source(s.msgid, s.english + " Have fun.") if s.msgid == "rules.common" else s
        for s in sources
        if isinstance(s.english, str)
    ]
    build.extract(changed, copy)
    catalog = build.load("pt_BR", copy)
    assert catalog.get("rules.common").fuzzy
    assert not catalog.get("rules.a6-draw").fuzzy
    assert catalog.get("rules.common").string.startswith("Limite fixo")  # kept for review


def test_placeholders_that_differ_are_caught(copy) -> None:
    sources = [build.Source("greet", "Hello {name}, you have {count} chips.")]
    build.extract(sources, copy)
    for locale, text in (("pt_BR", "Olá {nome}, tem {count} fichas."), ("vi", "Chào {name}.")):
        _edit(copy, locale, "greet", lambda c, m, text=text: setattr(m, "string", text))
    found = build.problems(sources, copy)
    assert "pt_BR: 'greet': placeholders ['count', 'nome'] differ from the English " in "\n".join(
        found
    )
    assert any(p.startswith("vi: 'greet': placeholders ['name']") for p in found)


def test_a_stale_mo_is_caught(sources, copy) -> None:
    catalog = build.load("vi", copy)
    catalog.get("rules.common").string = "Luật chung đã sửa."
    build.save(catalog, "vi", copy)  # .po edited, .mo not recompiled
    assert "vi: messages.mo does not match messages.po (run compile)" in build.problems(
        sources, copy
    )


def test_plural_forms_follow_each_language() -> None:
    assert build.load("vi").num_plurals == 1
    assert build.load("pt_BR").plural_expr == "(n > 1)"
    assert build.load("en").plural_expr == "(n != 1)"


@pytest.mark.parametrize(
    ("discord_locale", "ours"),
    [
        ("en-US", "en"),
        ("en-GB", "en"),
        ("pt-BR", "pt_BR"),
        ("vi", "vi"),
        ("fr", "en"),
        ("es-ES", "en"),
        ("zh-CN", "en"),
        (None, "en"),
    ],
)
def test_discord_locales_resolve(discord_locale, ours) -> None:
    assert i18n.resolve(discord_locale) == ours


def test_numbers_are_written_the_readers_way() -> None:
    assert i18n.fill("{pot} / {net:+d}", "en", {"pot": 1234, "net": -1500}) == "1,234 / -1,500"
    assert i18n.fill("{pot} / {net:+d}", "pt_BR", {"pot": 1234, "net": 1500}) == "1.234 / +1.500"
    assert i18n.fill("{pot}", "vi", {"pot": 1234567}) == "1.234.567"


def test_the_fast_fill_writes_every_message_as_the_general_formatter_does() -> None:
    """fill() parses plain-name templates once and puts them together itself; it must say
    what the general formatter says, for every message in every language, and hand it
    anything else (a conversion). How a number is written, which both share, is checked
    by test_numbers_are_written_the_readers_way."""
    values = [1234567, -5, 0, 3.5, "x<y>", True]
    for locale in ("en", "pt_BR", "vi"):
        for key, message in MESSAGES.items():
            english = (message.one, message.other) if isinstance(message, Plural) else message
            for template in {i18n.text(key, english, locale, count) for count in (1, 2)}:
                fields = i18n.placeholders(template)
                for value in values:
                    params = {name: value for name in fields} | {"count": 2}
                    general = i18n.LocaleFormatter(locale)
                    try:
                        expected = general.vformat(template, (), params)
                    except (ValueError, TypeError) as exc:  # e.g. "{n:+d}" with a string
                        with pytest.raises(type(exc)):
                            i18n.fill(template, locale, params)
                        continue
                    assert i18n.fill(template, locale, params) == expected, (key, template)
    assert i18n.fill("{name!r} has {pot}", "en", {"name": "a", "pot": 1000}) == "'a' has 1,000"


def test_catalogs_ship_as_package_data() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["bot.ui"]
    assert "locales/*/LC_MESSAGES/*.mo" in patterns
    for locale in i18n.LOCALES:
        assert (i18n.LOCALE_DIR / locale / "LC_MESSAGES" / "messages.mo").is_file()

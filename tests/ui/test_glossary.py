"""Each catalog follows its language's glossary (docs/translating.md): the core poker
actions say the glossary's word, and no word the glossary rules out appears."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

from bot.ui import i18n_build
from bot.ui.i18n_build import COMMAND_CONTEXT

DOC = Path(__file__).resolve().parents[2] / "docs" / "translating.md"
GLOSSARIES = ("pt_BR", "vi")


def entries(locale: str) -> dict[str, list[str]]:
    """Every translated entry of ``locale``'s catalog, by the name the glossary uses:
    its key (``verb.call``), or its place and English (``command_name "call"``)."""
    out = {}
    for message in i18n_build.load(locale):
        if not message.id:
            continue
        msgid = message.id[0] if isinstance(message.id, list | tuple) else message.id
        forms = message.string if isinstance(message.string, list | tuple) else [message.string]
        if message.context:
            name = f'{message.context.removeprefix(COMMAND_CONTEXT)} "{msgid}"'
        else:
            name = str(msgid)
        out[name] = [str(f) for f in forms]
    return out


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _words(cell: str) -> list[str]:
    return [w.strip() for w in cell.split(",") if w.strip()]


def _refs(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def glossary(locale: str, doc: str | None = None) -> tuple[list[tuple], list[tuple]]:
    """(terms, nevers) of ``locale``'s section: terms as (English, accepted forms, entries),
    nevers as (words, entries or None for everywhere)."""
    text = DOC.read_text(encoding="utf-8") if doc is None else doc
    section = re.search(rf"^### .*\(`{locale}`\)\n(.*?)(?=^##|\Z)", text, re.M | re.S)
    assert section, f"docs/translating.md has no glossary section for {locale}"
    terms, nevers, table = [], [], None
    for line in section.group(1).splitlines():
        if line.startswith(("Terms:", "Never:")):
            table = line[:5]
        elif line.startswith("|") and not set(line) <= set("|- "):
            cells = _cells(line)
            if cells[0] in ("English", "not"):
                continue
            if table == "Terms":
                terms.append((cells[0], _words(cells[2]), _refs(cells[3])))
            elif table == "Never":
                where = None if cells[1] == "everywhere" else _refs(cells[1])
                nevers.append((_words(cells[0]), where))
    return terms, nevers


def _has(text: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE) is not None


def _pt_bases(word: str) -> set[str]:
    """The singulars a Portuguese word may be the plural of ("finais" -> "final")."""
    bases = {word}
    for plural, singular in (("ões", "ão"), ("ães", "ão"), ("ns", "m"), ("is", "l"), ("es", "")):
        if word.endswith(plural):
            bases.add(word[: -len(plural)] + singular)
    if word.endswith("s"):
        bases.add(word[:-1])
    return bases


def _pt_plurals(word: str) -> set[str]:
    """A Portuguese singular with its plurals ("confronto final" words: "confrontos", "finais")."""
    forms = {word, word + "s"}
    if word.endswith("ão"):
        forms |= {word[:-2] + "ões", word[:-2] + "ães"}
    elif word.endswith("m"):
        forms.add(word[:-1] + "ns")
    elif word.endswith(("r", "z", "s")):
        forms.add(word + "es")
    elif word.endswith("l"):
        forms |= {word[:-1] + "is", word[:-2] + "éis", word[:-2] + "óis", word[:-2] + "eis"}
    return forms


def word_forms(locale: str, word: str) -> set[str]:
    """Every form a word of a *Never* row takes in ``locale``: Portuguese nouns and adjectives
    change in the plural ("confronto final" is "confrontos finais"); Vietnamese words do not."""
    if locale != "pt_BR":
        return {word}
    return {form for base in _pt_bases(word) for form in _pt_plurals(base)}


def _never(locale: str, word: str) -> re.Pattern[str]:
    """A *Never* word in any of its forms, each of its words inflected on its own."""
    parts = [
        "(?:" + "|".join(re.escape(f) for f in sorted(word_forms(locale, w), key=len)[::-1]) + ")"
        for w in word.split()
    ]
    return re.compile(r"(?<!\w)" + r"\s+".join(parts) + r"(?!\w)", re.IGNORECASE)


def _matching(catalog: dict[str, list[str]], ref: str) -> list[str]:
    return [name for name in catalog if fnmatchcase(name, ref)]


def problems(locale: str, catalog: dict[str, list[str]], doc: str | None = None) -> list[str]:
    terms, nevers = glossary(locale, doc)
    assert terms and nevers, f"{locale}: the glossary has no Terms or no Never table"
    out = []
    for english, forms, refs in terms:
        for ref in refs:
            names = _matching(catalog, ref)
            if not names:
                out.append(f"{locale}: glossary entry {ref!r} ({english}) names no catalog entry")
            for name in names:
                for text in catalog[name]:
                    if not any(_has(text, form) for form in forms):
                        out.append(f"{locale}: {name} says {text!r}, not {english}: {forms}")
    for words, where in nevers:
        names = (
            list(catalog) if where is None else [n for r in where for n in _matching(catalog, r)]
        )
        if where is not None and not names:
            out.append(f"{locale}: glossary place {where} names no catalog entry")
        patterns = [(word, _never(locale, word)) for word in words]
        for name in names:
            for text in catalog[name]:
                for word, pattern in patterns:
                    if found := pattern.search(text):
                        out.append(f"{locale}: {name} uses {word!r} ({found[0]!r}): {text!r}")
    return out


@pytest.mark.parametrize("locale", GLOSSARIES)
def test_the_catalog_follows_its_glossary(locale) -> None:
    found = problems(locale, entries(locale))
    assert not found, "\n".join(found)


def test_the_check_flags_a_word_outside_the_glossary() -> None:
    pt = entries("pt_BR")
    pt["button.call"] = ["Igualar {cost}"]  # the European word
    found = problems("pt_BR", pt)
    assert any("button.call" in f and "pagar" in f for f in found), found
    assert any("button.call uses 'igualar'" in f for f in found), found
    vi = entries("vi")
    vi["illegal.named_twice"] = ["Một lá bài bị ghi hai lần khi bỏ bài."]  # fold, not discard
    assert any("illegal.named_twice uses 'bỏ bài'" in f for f in problems("vi", vi))


def test_a_glossary_entry_that_names_nothing_is_flagged() -> None:
    doc = DOC.read_text(encoding="utf-8").replace("`verb.call`, `button.call`", "`verb.calls`", 1)
    assert any("'verb.calls'" in f for f in problems("pt_BR", entries("pt_BR"), doc))


def test_a_portuguese_never_word_is_caught_in_its_plural_and_singular() -> None:
    assert {"final", "finais"} <= word_forms("pt_BR", "final")
    assert {"cor", "cores"} <= word_forms("pt_BR", "cor")
    assert {"pote", "potes"} <= word_forms("pt_BR", "potes")
    assert word_forms("vi", "nút cái") == {"nút cái"}  # Vietnamese words do not inflect
    pt = entries("pt_BR")
    pt["stats.public_only"] = ["Só o que a mesa mostrou a todos: resultados e confrontos finais."]
    pt["result.showdown"] = ["Pote secundário"]  # the Never row says "potes secundários"
    pt["refused.no_bot"] = ["Não há jogadores do computador nesta mesa."]
    found = problems("pt_BR", pt)
    assert any("stats.public_only uses 'confronto final'" in f for f in found), found
    assert any("result.showdown uses 'potes secundários'" in f for f in found), found
    assert any("refused.no_bot uses 'jogador do computador'" in f for f in found), found


def test_stats_and_replay_lines_may_not_need_the_players_gender() -> None:
    """/stats and /replay describe any player: "ficou servido" is masculine for everyone."""
    pt = entries("pt_BR")
    pt["stats.draw"] = ["Troca {draw}: ficou servido {pat} · {cards} cartas em média"]
    pt["replay.spectator"] = ["Você assiste como espectador"]
    found = problems("pt_BR", pt)
    assert any("stats.draw uses 'servido'" in f for f in found), found
    assert any("replay.spectator uses 'espectador'" in f for f in found), found


def test_the_vietnamese_dealer_button_and_kick_keep_their_words() -> None:
    vi = entries("vi")
    vi["replay.deal"] = ["Bài đã được chia; {dealer} giữ nút cái. Tiếp theo: {round}."]
    kick = 'command_description "Remove a player from this channel\'s table"'
    vi[kick] = ["Mời một người chơi rời bàn của kênh này"]
    found = problems("vi", vi)
    assert any("replay.deal uses 'nút cái'" in f for f in found), found
    assert any(kick in f and "uses 'mời'" in f for f in found), found
    assert any(kick in f and "not kick" in f for f in found), found

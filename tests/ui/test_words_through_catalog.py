"""No user-visible words in bot/ui or cogs that bypass the catalog.

Scans the source with ``ast``: a string literal with words in it, passed where Discord
shows it to a person (message content, embed title/description/fields/footer, button and
menu labels, select options, autocomplete choices, the text of ``reply``), is a string
the translators never see. Slash-command names and descriptions are exempt: they are the
English source of the command translator (see tests/discord/test_translated_commands.py).
"""

from __future__ import annotations

import ast
import re

from tests.support.paths import ROOT

SCANNED = [*sorted((ROOT / "bot" / "ui").glob("*.py")), *sorted((ROOT / "cogs").glob("*.py"))]
# Build-time tooling, not words anyone reads in Discord.
EXEMPT = {"i18n_build.py"}

# call name -> (positional argument indexes, keyword names) that reach a reader
VISIBLE: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {
    "send_message": ((0,), ("content",)),
    "send": ((0,), ("content",)),
    "edit": ((), ("content",)),
    "edit_message": ((), ("content",)),
    "edit_original_response": ((), ("content",)),
    "reply": ((1,), ("text", "content")),
    "Embed": ((), ("title", "description")),
    "add_field": ((), ("name", "value")),
    "insert_field_at": ((), ("name", "value")),
    "set_field_at": ((), ("name", "value")),
    "set_footer": ((), ("text",)),
    "set_author": ((), ("name",)),
    "Button": ((), ("label",)),
    "TableButton": ((), ("label",)),
    "Select": ((), ("placeholder",)),
    "SelectOption": ((), ("label", "description")),
    "TextInput": ((), ("label", "placeholder", "default")),
    "Modal": ((), ("title",)),
    "Choice": ((), ("name",)),
}
VISIBLE_ATTRIBUTES = {"title", "description", "label", "placeholder", "content"}
WORD = re.compile(r"[^\W\d_]{2,}")


def _words(node: ast.AST) -> str | None:
    """The literal text with words in ``node`` (a str or the fixed parts of an f-string)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value if WORD.search(node.value) else None
    if isinstance(node, ast.JoinedStr):
        fixed = "".join(
            v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)
        )
        return fixed if WORD.search(fixed) else None
    if isinstance(node, ast.BinOp):  # "a" + x, "..." % x
        return _words(node.left) or _words(node.right)
    if isinstance(node, ast.IfExp):
        return _words(node.body) or _words(node.orelse)
    if isinstance(node, ast.BoolOp):
        return next((w for v in node.values if (w := _words(v))), None)
    return None


def _name(func: ast.AST) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def bypasses(source: str, filename: str = "<source>") -> list[str]:
    """``file:line: text`` for every visible literal in ``source``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename)):
        hits: list[ast.AST] = []
        if isinstance(node, ast.Call) and (rule := VISIBLE.get(_name(node.func))):
            positions, keywords = rule
            hits += [node.args[i] for i in positions if i < len(node.args)]
            hits += [k.value for k in node.keywords if k.arg in keywords]
        elif isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Attribute) and target.attr in VISIBLE_ATTRIBUTES
            for target in node.targets
        ):
            hits.append(node.value)
        for hit in hits:
            if (text := _words(hit)) is not None:
                found.append((hit.lineno, f"{filename}:{hit.lineno}: {text!r}"))
    return [line for _, line in sorted(found)]


def test_no_visible_literal_in_ui_or_cogs_bypasses_the_catalog() -> None:
    found = []
    for path in SCANNED:
        if path.name not in EXEMPT:
            found += bypasses(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert found == [], "put these words in bot/ui/catalog.py and call t():\n" + "\n".join(found)


def test_the_scan_catches_each_kind_of_bypass() -> None:
    source = """
async def handler(interaction, embed, view, t):
    await interaction.response.send_message("You folded.", ephemeral=True)
    await interaction.followup.send(f"{name} wins {chips}")
    await reply(interaction, "Not your turn")
    embed = discord.Embed(title="Your hand", description=t("hand.title"))
    embed.add_field(name=t("x"), value="nobody yet")
    embed.set_footer(text="Page " + str(page))
    embed.description = "Everyone else folded"
    view.add_item(TableButton(1, "fold", label="Fold" if x else t("button.fold")))
    options = [discord.SelectOption(label=card, description="ace of spades")]
    return [app_commands.Choice(name="stand pat", value="")]
"""
    found = bypasses(source)
    assert [line.split(": ", 1)[1] for line in found] == [
        "'You folded.'",
        "' wins '",
        "'Not your turn'",
        "'Your hand'",
        "'nobody yet'",
        "'Page '",
        "'Everyone else folded'",
        "'Fold'",
        "'ace of spades'",
        "'stand pat'",
    ]


def test_catalog_calls_symbols_and_placeholders_pass() -> None:
    source = """
async def handler(interaction, embed, t):
    await interaction.response.send_message(t("done.left"), ephemeral=True)
    await interaction.followup.send(f"✅ {line}")
    embed = discord.Embed(title=t("hand.title", game=g), description="\\n".join(lines))
    embed.add_field(name="\\u200b", value=f"**{name}** {chips:+d}")
    await reply(interaction, "", embed=embed)
"""
    assert bypasses(source) == []

"""/privacy show and /privacy delete: what the bot stores about a player, and erasing it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.storage.errors import PlayerInHand, UnknownAccount
from bot.ui import i18n
from bot.ui.answering import Ack, Answered
from bot.ui.catalog import t
from bot.ui.export import export_button
from bot.ui.handlers import reply
from bot.ui.text import slash

if TYPE_CHECKING:
    from bot.client import PokerBot
    from bot.storage.store import Store
    from bot.tables.manager import TableManager


CONFIRM_SECONDS = 120


class EraseButton(Answered, discord.ui.Button["ConfirmErase"]):
    """The confirmation's button: its answer updates the confirmation in place."""

    ack = Ack.UPDATE

    async def answer(self, interaction: discord.Interaction) -> None:
        assert self.view is not None  # always sent in its ConfirmErase
        await self.view.erase(interaction)


class ConfirmErase(discord.ui.View):
    """One button, for the player who asked, that erases their data on this server."""

    def __init__(self, manager: TableManager, guild_id: int, user_id: int) -> None:
        super().__init__(timeout=CONFIRM_SECONDS)
        self.manager, self.guild_id, self.user_id = manager, guild_id, user_id
        self.add_item(
            EraseButton(
                label=t("privacy.confirm_button"),
                style=discord.ButtonStyle.danger,
                custom_id=f"pv:erase:{guild_id}:{user_id}",
            )
        )

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        i18n.for_interaction(interaction)
        return True

    async def erase(self, interaction: discord.Interaction) -> None:
        if interaction.user.id != self.user_id:  # ephemeral, so never expected
            await reply(interaction, t("privacy.not_yours"))
            return
        # answered already (EraseButton: Ack.UPDATE): a long history makes the erase take
        # longer than Discord waits
        try:
            await self.manager.forget_player(self.guild_id, self.user_id)
        except PlayerInHand:
            await interaction.edit_original_response(content=t("privacy.in_hand"), view=None)
            return
        except UnknownAccount:
            await interaction.edit_original_response(content=t("privacy.nothing"), view=None)
            return
        self.stop()
        await interaction.edit_original_response(content=t("privacy.deleted"), view=None)


@app_commands.guild_only()
class PrivacyCog(
    commands.GroupCog, group_name="privacy", group_description="What the bot stores about you"
):
    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot

    @property
    def store(self) -> Store:
        return self.bot.app.store

    @property
    def manager(self) -> TableManager:
        return self.bot.app.manager

    # "show" is also /settings show: its own catalog context, so each can read differently
    @app_commands.command(
        name=app_commands.locale_str("show", context="privacy"),
        description="What the bot stores about you here",
    )
    async def show(self, interaction: discord.Interaction) -> None:
        assert interaction.guild_id is not None  # guild-only
        data = await self.store.server.player_data(interaction.guild_id, interaction.user.id)
        if data is None:
            await reply(interaction, t("privacy.nothing"))
            return
        a = data.account
        seats = ", ".join(f"<#{c}>" for c in data.seats) or t("privacy.seats.none")
        body = t(
            "privacy.body",
            name=a.display_name,
            user_id=a.user_id,
            balance=a.balance,
            granted=a.granted,
            refilled=a.refilled,
            net_won=a.net_won,
            hands_played=a.hands_played,
            hands=data.hands,
            entries=data.ledger_entries,
            seats=seats,
            created=int(data.created_at),
        )
        embed = discord.Embed(title=t("privacy.title"), description=body)
        embed.set_footer(text=t("privacy.delete_hint", command=slash("privacy", "delete")))
        await reply(interaction, "", embed=embed, view=export_button(a.user_id))  # issue 21

    @app_commands.command(name="delete", description="Erase your account on this server")
    async def delete(self, interaction: discord.Interaction) -> None:
        assert interaction.guild_id is not None  # guild-only
        if await self.store.server.player_data(interaction.guild_id, interaction.user.id) is None:
            await reply(interaction, t("privacy.nothing"))
            return
        manager = self.manager
        if manager.in_live_hand(interaction.guild_id, interaction.user.id):
            await reply(interaction, t("privacy.in_hand"))
            return
        view = ConfirmErase(manager, interaction.guild_id, interaction.user.id)
        await reply(interaction, t("privacy.confirm"), view=view)


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(PrivacyCog(bot))

"""What the four table cogs share: one app_commands group per variant.

Each subclass is a ``GroupCog`` named by its variant id (``/a5-draw join`` …).
The commands only translate between Discord and the table manager.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, ClassVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.engine import ActionKind, BuySource
from bot.opponents import LEVELS
from bot.storage.rows import GuildSettings
from bot.tables.guild_settings import GuildSettingsBook
from bot.tables.manager import TableManager
from bot.tables.models import Outcome, Refused
from bot.ui import handlers, practice
from bot.ui.autocomplete import buy_choices, discard_choices, parse_source
from bot.ui.catalog import t
from bot.ui.limits import TABLE_REPOST, cooldown, within_budget
from bot.ui.moderation import is_moderator, jump_url, open_refusal
from bot.ui.text import cmd, game, join_list, outcome

if TYPE_CHECKING:
    from bot.client import PokerBot


@app_commands.guild_only()  # the schema says so: Discord does not offer them in DMs
class TableCog(commands.GroupCog, group_name="table"):
    variant_id: ClassVar[str]

    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot
        self._posted: dict[int, float] = {}  # channel -> when this cog last posted its table

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        if interaction.guild_id is None or interaction.channel_id is None:
            await handlers.reply(interaction, t("refused.dm_only"))
            return False
        return await within_budget(interaction)  # one budget over every table command

    @property
    def manager(self) -> TableManager:
        return self.bot.app.manager

    @property
    def book(self) -> GuildSettingsBook:
        return self.bot.app.guild_settings

    async def _open(
        self,
        interaction: discord.Interaction,
        seats: int | None,
        timeout: int | None,
        thread: bool = False,
        bots: int | None = None,
    ) -> None:
        channel_id = interaction.channel_id or 0
        await handlers.answer_first(interaction)
        settings = await self.book.get(interaction.guild_id or 0)
        if (why := open_refusal(interaction, settings)) is not None:
            await handlers.reply(interaction, why)
            return
        if thread:
            await self._open_in_thread(interaction, settings, seats, timeout, bots)
        elif await self._open_here(interaction, channel_id, settings, seats, timeout, bots):
            await self._post(interaction, channel_id)

    async def _open_here(
        self,
        interaction: discord.Interaction,
        channel_id: int,
        settings: GuildSettings,
        seats: int | None,
        timeout: int | None,
        bots: int | None = None,
    ) -> bool:
        """Open the table in ``channel_id`` with the server's settings; False if refused.
        With ``bots``, a practice table: the opener sits down first (a table keeps a
        person), then that many computer players."""
        turn_time = timeout if timeout is not None else settings.turn_timeout  # None: bot's
        try:
            await self.manager.open_table(
                interaction.guild_id or 0,  # interaction_check: always in a server
                channel_id,
                self.variant_id,
                seats,
                turn_time,
                self.book.auto_deal(settings),
                opener=interaction.user.id,
            )
        except Refused as exc:
            await handlers.refuse(interaction, exc, variant=self.variant_id)
            return False
        self.bot.app.limits.note("open", interaction.user.id)
        if bots:
            try:
                await self.manager.join(
                    channel_id, interaction.user.id, interaction.user.display_name
                )
            except Refused as exc:
                await handlers.refuse(interaction, exc, channel_id, self.variant_id)
                return True  # the table is open (and is posted); only the seat was refused
            await practice.add_bots(interaction, channel_id, bots, "normal")
        return True

    async def _open_in_thread(
        self,
        interaction: discord.Interaction,
        settings: GuildSettings,
        seats: int | None,
        timeout: int | None,
        bots: int | None = None,
    ) -> None:
        """A new public thread named after the game and its number, with the table in it."""
        parent = interaction.channel
        if not isinstance(parent, discord.TextChannel):
            await handlers.reply(interaction, t("thread.not_here"))
            return
        number = 1 + await self.bot.app.store.tables.count_tables(
            interaction.guild_id or 0, self.variant_id
        )
        name = t("thread.name", game=game(self.variant_id), number=number)
        created = await parent.create_thread(
            name=name, type=discord.ChannelType.public_thread, auto_archive_duration=1440
        )
        if not await self._open_here(interaction, created.id, settings, seats, timeout, bots):
            await created.delete()  # refused: no empty thread is left behind
            return
        await interaction.followup.send(t("thread.opened", thread=created.mention))

    @app_commands.command(
        name="close", description="Close this table (after the hand being played)"
    )
    async def close(self, interaction: discord.Interaction) -> None:
        """The opener's close (moderators: /table-admin close)."""
        if (ch := await self._here(interaction)) is None:
            return
        await handlers.answer_first(interaction)
        settings = await self.book.get(interaction.guild_id or 0)
        moderator = is_moderator(interaction, settings)
        try:
            now = await self.manager.close_table(ch, interaction.user.id, moderator=moderator)
        except Refused as exc:
            await handlers.refuse(interaction, exc, ch, self.variant_id)
            return
        await handlers.reply(interaction, t("close.done" if now else "close.after_hand"))

    async def _post(self, interaction: discord.Interaction, channel_id: int) -> None:
        self._posted[channel_id] = self.bot.clock()
        await interaction.delete_original_response()  # the presenter posts the table message

    async def _here(self, interaction: discord.Interaction) -> int | None:
        """This channel's table id, refusing if it holds another game's table."""
        channel_id = interaction.channel_id or 0
        try:
            view = self.manager.view(channel_id)
        except Refused as exc:
            await handlers.refuse(interaction, exc, variant=self.variant_id)
            return None
        mixed = view.mixed is not None and self.variant_id in view.mixed.games
        mixed = mixed or (view.level is not None and self.variant_id in view.level.mixed)
        if view.variant != self.variant_id and not mixed:  # a mixed table takes its games
            text = t("refused.other_game", game=game(view.variant), command=cmd(view.variant, "…"))
            await handlers.reply(interaction, text)
            return None
        return channel_id

    @app_commands.command(name="join", description="Take a seat at this channel's table")
    async def join(self, interaction: discord.Interaction) -> None:
        if (ch := await self._here(interaction)) is not None:
            await handlers.join(interaction, ch)

    @app_commands.command(
        name="leave", description="Leave the table (after this hand if you are in it)"
    )
    async def leave(self, interaction: discord.Interaction) -> None:
        if (ch := await self._here(interaction)) is not None:
            await self._simple(interaction, self.manager.leave(ch, interaction.user.id), ch)

    @app_commands.command(name="sitout", description="Sit out the next hands, or come back")
    async def sitout(self, interaction: discord.Interaction) -> None:
        if (ch := await self._here(interaction)) is not None:
            await self._simple(interaction, self.manager.sit_out(ch, interaction.user.id), ch)

    async def _simple(
        self, interaction: discord.Interaction, call: Awaitable[Outcome], channel_id: int
    ) -> None:
        await handlers.answer_first(interaction)
        try:
            done = await call
        except Refused as exc:
            await handlers.refuse(interaction, exc, channel_id)
            return
        await handlers.reply(interaction, outcome(done, self.variant_id))

    @app_commands.command(
        name="addbot", description="Seat a computer player between hands (a practice table)"
    )
    @app_commands.describe(level="How well it plays (default: normal)")
    @app_commands.choices(level=[app_commands.Choice(name=lv, value=lv) for lv in LEVELS])
    async def addbot(self, interaction: discord.Interaction, level: str = "normal") -> None:
        if (ch := await self._here(interaction)) is not None:
            await practice.addbot(interaction, ch, level)

    @app_commands.command(name="removebot", description="Stand a computer player up")
    async def removebot(self, interaction: discord.Interaction) -> None:
        if (ch := await self._here(interaction)) is not None:
            await practice.removebot(interaction, ch)

    @app_commands.command(
        name="hint", description="What the computer players' level would do now (only you see it)"
    )
    async def hint(self, interaction: discord.Interaction) -> None:
        if (ch := await self._here(interaction)) is not None:
            await practice.hint(interaction, ch)

    @app_commands.command(name="deal", description="Deal the next hand")
    async def deal(self, interaction: discord.Interaction) -> None:
        if (ch := await self._here(interaction)) is not None:
            await handlers.deal(interaction, ch)

    @app_commands.command(name="hand", description="See your cards (only you can see them)")
    async def hand(self, interaction: discord.Interaction) -> None:
        if (ch := await self._here(interaction)) is not None:
            await handlers.show_hand(interaction, ch)

    @app_commands.command(name="table", description="Post the table again")
    @cooldown("table")
    async def table(self, interaction: discord.Interaction) -> None:
        if (ch := await self._here(interaction)) is None:
            return
        message_id = self.bot.app.presenter.message_id(ch)
        posted = self._posted.get(ch)
        now = self.bot.clock()
        if message_id is not None and posted is not None and now - posted < TABLE_REPOST:
            link = jump_url(interaction.guild_id or 0, ch, message_id)
            await handlers.reply(interaction, t("limit.table_recent", link=link))
            return
        self._posted[ch] = now
        await handlers.post_table(interaction, ch)

    @app_commands.command(name="check", description="Check (nothing is owed)")
    async def check(self, interaction: discord.Interaction) -> None:
        await self._act(interaction, ActionKind.CHECK)

    @app_commands.command(name="bet", description="Bet the round's fixed amount")
    async def bet(self, interaction: discord.Interaction) -> None:
        await self._act(interaction, ActionKind.BET)

    @app_commands.command(name="call", description="Call the current bet")
    async def call(self, interaction: discord.Interaction) -> None:
        await self._act(interaction, ActionKind.CALL)

    @app_commands.command(name="raise", description="Raise by the round's fixed amount")
    async def raise_(self, interaction: discord.Interaction) -> None:
        await self._act(interaction, ActionKind.RAISE)

    @app_commands.command(name="fold", description="Fold your hand")
    async def fold(self, interaction: discord.Interaction) -> None:
        await self._act(interaction, ActionKind.FOLD)

    async def _act(self, interaction: discord.Interaction, action: str, **kwargs: Any) -> None:
        if (ch := await self._here(interaction)) is not None:
            await handlers.act(interaction, ch, action, **kwargs)


class DrawTableCog(TableCog, group_name="draw-table"):
    """The draw games add ``discard``."""

    @app_commands.command(
        name="discard", description="Throw cards and draw new ones; empty stands pat"
    )
    @app_commands.describe(
        cards="Cards to throw, like 8♣ K♦ or 8c Kd (c♣ d♦ h♥ s♠); leave empty to stand pat"
    )
    async def discard(self, interaction: discord.Interaction, cards: str | None = None) -> None:
        text = (cards or "").strip()
        if text.lower() in ("pat", "none", "-"):
            text = ""
        await self._act(interaction, ActionKind.DISCARD, cards=text)

    @discard.autocomplete("cards")
    async def discard_cards(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        channel_id = interaction.channel_id or 0
        if not self.manager.has_table(channel_id):
            return []
        seat = self.manager.my_hand(channel_id, interaction.user.id)
        return discard_choices(seat.cards if seat else (), current)


class AbyssiniaBase(TableCog, group_name="abyssinia-table"):
    """Abyssinia adds ``buy``."""

    @app_commands.command(name="buy", description="Buy the left or right market card, or blind")
    @app_commands.rename(source="from")
    @app_commands.describe(source="left, right or blind (the top card of the stub, price after)")
    async def buy(self, interaction: discord.Interaction, source: str) -> None:
        choice = parse_source(source)  # "left", "esquerda", "trái" …
        if choice is None:
            places = join_list(t(f"source.{s}") for s in BuySource)
            text = t("refused.bad_source", source=f"'{source}'", legal=places)
            await handlers.reply(interaction, text)
            return
        await self._act(interaction, ActionKind.BUY, source=choice)

    @buy.autocomplete("source")
    async def buy_sources(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        channel_id = interaction.channel_id or 0
        view = self.manager.find_view(channel_id)
        return buy_choices(view, current)

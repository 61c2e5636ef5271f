"""The ledger repository: chip accounts, holds, settlement, refills and the leaderboard.

Chips: a hand places a *hold* on each player's account for the chips they bring
(``Hands.start_hand``). ``available = balance - Σ holds of live hands``, and a
hold can only be placed within ``available``; a settlement refuses a loss larger
than the hold. Hence ``balance`` can never go negative, even for a player
sitting at several tables at once. The database enforces the same
(``migrations.LEDGER_GUARDS``), so a bug here is refused, not written, and keeps
``accounts.held`` up to date itself, in the transactions that start and end hands
(``migrations.PLAYER_WORK``).
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.storage import people
from bot.storage.connection import Connection, Row
from bot.storage.database import Database, all_rows, one
from bot.storage.errors import BadSettlement, RefillRefused, UnknownAccount
from bot.storage.rows import Account, LeaderboardRow, account_of

# ``held`` is kept on the row by the database (migrations.PLAYER_WORK): one row read,
# however many hands the player has played.
ACCOUNT_SQL = "SELECT * FROM accounts WHERE guild_id = ? AND user_id = ?"


class Ledger:
    """Accounts and the ledger over one ``Database``."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def ensure_account(
        self, guild_id: int, user_id: int, display_name: str, grant: int
    ) -> Account:
        """The account, created with a 'grant' ledger entry of ``grant`` if missing.

        An existing account only gets its display_name refreshed.
        """
        if grant < 0:
            raise ValueError(f"grant must be >= 0, got {grant}")
        now = self._db.clock()
        async with self._db.write("ensure_account") as conn:
            cursor = await conn.execute(
                "INSERT INTO accounts (guild_id, user_id, display_name, balance, granted, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (guild_id, user_id, display_name, grant, grant, now),
            )
            if cursor.rowcount == 1:
                await people.ensure(conn, guild_id, [user_id], {user_id: display_name})
                await self.entry(conn, guild_id, user_id, "grant", grant, None, grant)
            else:
                await conn.execute(
                    "UPDATE accounts SET display_name = ? WHERE guild_id = ? AND user_id = ? "
                    "AND display_name != ?",
                    (display_name, guild_id, user_id, display_name),
                )
            return await self.account_in(conn, guild_id, user_id)

    async def balance(self, guild_id: int, user_id: int) -> Account | None:
        async with self._db.read() as conn:
            row = await one(conn, ACCOUNT_SQL, (guild_id, user_id))
        return None if row is None else account_of(row)

    async def account_in(self, conn: Connection, guild_id: int, user_id: int) -> Account:
        """The account, read inside the caller's transaction; UnknownAccount if none."""
        row = await one(conn, ACCOUNT_SQL, (guild_id, user_id))
        if row is None:
            raise UnknownAccount(guild_id, user_id)
        return account_of(row)

    async def refill(self, guild_id: int, user_id: int, grant: int, smallest_minimum: int) -> int:
        """Top the balance up to ``grant``; return the amount added.

        Allowed only when the balance is below the smallest table minimum and
        the player is in no live hand (their chips there are still in play).
        Raises RefillRefused (reason with the numbers) or UnknownAccount.
        """
        async with self._db.write("refill") as conn:
            account = await self.account_in(conn, guild_id, user_id)
            check_refill(account, grant, smallest_minimum)
            amount = grant - account.balance
            # Conditional on what was checked: under PostgreSQL's READ COMMITTED two
            # processes can both read the low balance; the second UPDATE waits for the
            # first's row lock, then finds the row changed and updates nothing.
            cursor = await conn.execute(
                "UPDATE accounts SET balance = balance + ?, refilled = refilled + ? "
                "WHERE guild_id = ? AND user_id = ? AND balance = ? AND held = 0",
                (amount, amount, guild_id, user_id, account.balance),
            )
            if cursor.rowcount != 1:
                now = await self.account_in(conn, guild_id, user_id)
                check_refill(now, grant, smallest_minimum)  # refused with today's numbers
                raise RefillRefused(  # unreachable unless the row changed back meanwhile
                    "your balance changed meanwhile; try again",
                    "not_low",
                    balance=now.balance,
                    minimum=smallest_minimum,
                )
            await self.entry(conn, guild_id, user_id, "refill", amount, None, grant)
        return amount

    async def entry(
        self,
        conn: Connection,
        guild_id: int,
        user_id: int,
        kind: str,
        amount: int,
        hand_id: int | None,
        balance_after: int,
    ) -> None:
        """One ledger entry, inside the caller's transaction."""
        await conn.execute(
            "INSERT INTO ledger (guild_id, person_id, kind, amount, hand_id, balance_after, "
            f"created_at) VALUES (?, {people.PERSON_SQL}, ?, ?, ?, ?, ?)",
            (guild_id, guild_id, user_id, kind, amount, hand_id, balance_after, self._db.clock()),
        )

    async def settle(
        self, conn: Connection, hand: Row, results: list[tuple[int, int]], *, played: bool = True
    ) -> None:
        """Pay out a hand inside the caller's transaction: every player's balance and
        net_won move by their result (and, if ``played``, hands_played by one), their
        ``hand_players`` net is set and a 'hand' ledger entry is written; one statement
        of each kind (fewer round trips)."""
        guild_id, hand_id = hand["guild_id"], hand["hand_id"]
        await conn.executemany(
            "UPDATE accounts SET balance = balance + ?, net_won = net_won + ?, "
            "hands_played = hands_played + ? WHERE guild_id = ? AND user_id = ?",
            [(amount, amount, int(played), guild_id, user) for user, amount in results],
        )
        await conn.executemany(
            "UPDATE hand_players SET net = ? "
            f"WHERE hand_id = ? AND person_id = {people.PERSON_SQL}",
            [(amount, hand_id, guild_id, user) for user, amount in results],
        )
        marks = ",".join("?" * len(results))
        balances = {
            row[0]: int(row[1])
            for row in await all_rows(
                conn,
                "SELECT user_id, balance FROM accounts "
                f"WHERE guild_id = ? AND user_id IN ({marks})",
                [guild_id, *(user for user, _ in results)],
            )
        }
        now = self._db.clock()
        await conn.executemany(
            "INSERT INTO ledger (guild_id, person_id, kind, amount, hand_id, balance_after, "
            f"created_at) VALUES (?, {people.PERSON_SQL}, 'hand', ?, ?, ?, ?)",
            [
                (guild_id, guild_id, user, amount, hand_id, balances.get(user, 0), now)
                for user, amount in results
            ],
        )

    async def leaderboard(
        self, guild_id: int, page: int, per_page: int = 10
    ) -> tuple[list[LeaderboardRow], int]:
        """Page ``page`` (1-based) of the guild ranked by net_won; and how many are ranked.

        Only players of at least one hand are ranked (an account made by /balance is not).
        net_won is the sum of hand results, so refills do not lift anyone.
        Ties: more hands played first, then lower user_id.
        """
        if page < 1 or per_page < 1:
            raise ValueError(f"page and per_page must be >= 1, got {page}, {per_page}")
        offset = (page - 1) * per_page
        async with self._db.read() as conn:
            total = await one(
                conn,
                "SELECT COUNT(*) FROM accounts "
                "WHERE guild_id = ? AND user_id > 0 AND hands_played > 0",
                (guild_id,),
            )
            rows = await all_rows(
                conn,
                "SELECT user_id, display_name, net_won, hands_played, balance FROM accounts "
                "WHERE guild_id = ? AND user_id > 0 "  # erased players (ids < 0) are not ranked
                "AND hands_played > 0 "
                "ORDER BY net_won DESC, hands_played DESC, user_id ASC LIMIT ? OFFSET ?",
                (guild_id, per_page, offset),
            )
        ranked = [LeaderboardRow(rank=offset + i + 1, **dict(row)) for i, row in enumerate(rows)]
        return ranked, int(total[0]) if total else 0


def check_refill(account: Account, grant: int, smallest_minimum: int) -> None:
    if account.held:
        raise RefillRefused(
            f"you have {account.held} chips in a hand still being played; refill after it finishes",
            "in_hand",
            held=account.held,
        )
    if account.balance >= smallest_minimum:
        raise RefillRefused(
            f"your balance {account.balance} is not below the smallest table minimum "
            f"{smallest_minimum}",
            "not_low",
            balance=account.balance,
            minimum=smallest_minimum,
        )
    if grant <= account.balance:
        raise RefillRefused(
            f"your balance {account.balance} is already at least {grant}",
            "at_grant",
            balance=account.balance,
            grant=grant,
        )


def check_settlement(hand_id: int, net: Mapping[int, int], holds: Mapping[int, int]) -> None:
    strangers = set(net) - set(holds)
    if strangers:
        raise BadSettlement(f"hand #{hand_id}: users {sorted(strangers)} are not in the hand")
    for user_id, amount in net.items():
        if -amount > holds[user_id]:
            raise BadSettlement(
                f"hand #{hand_id}: user {user_id} loses {-amount} but only {holds[user_id]} held"
            )

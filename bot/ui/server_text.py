"""The words of server controls (settings, moderation, limits, privacy), in one table.

Same shape as the catalog (``key -> text`` with named placeholders); the catalog
merges it into its own, so they are said through its ``t`` like every other word.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    # ----- limits
    "limit.cooldown": "Slow down: try again in {seconds} s.",
    "limit.clicks": "You are clicking too fast: try again in {seconds} s.",
    "limit.table_recent": "The table was posted a moment ago: {link}",
    # ----- moderators
    "mod.only": (
        "Only moderators can do that: Manage Channels here, or the server's moderator role."
    ),
    "mod.open_only": "On this server only moderators open tables.",
    "mod.channel_not_allowed": "Tables can't be opened here. Allowed: {channels}.",
    # ----- settings
    "settings.title": "Server settings",
    "settings.channels": "Channels for tables",
    "settings.channels.any": "any channel",
    "settings.role": "Moderator role",
    "settings.role.none": "none (Manage Channels only)",
    "settings.turn_time": "Turn time of new tables",
    "settings.turn_time.value": "{seconds} s",
    "settings.turn_time.default": "{seconds} s (the bot's default)",
    "settings.auto_deal": "Automatic next deal",
    "settings.on": "on",
    "settings.off": "off",
    "settings.default_suffix": "{value} (the bot's default)",
    "settings.open_by": "Who opens tables",
    "settings.open_by.anyone": "anyone",
    "settings.open_by.moderators": "moderators only",
    "settings.language": "Language",
    "settings.language.auto": "the server's language ({locale})",
    "settings.idle_close": "Idle time before a table closes",
    "settings.idle_close.value": "{hours} h",
    "settings.never": "never",
    "settings.changed": "{name} is now: {value}.",
    "settings.channel_added": "Tables may now be opened in: {channels}.",
    "settings.bad.turn_time": "The turn time must be between {min} and {max} seconds, not {given}.",
    "settings.bad.idle_close": (
        "The idle time must be between {min} and {max} hours (0: never), not {given}."
    ),
    "settings.bad.open_by": "Who opens tables must be one of: {allowed}.",
    "settings.bad.language": "The language must be one of: {allowed}.",
    "settings.bad.too_many_channels": "At most {max} channels can be listed.",
    "settings.bad.not_listed": "{channel} is not in the list of channels for tables.",
    "settings.mtt_remind": "Tournament reminders",
    "settings.mtt_remind.post": "a post in the tournament's channel that mentions the players",
    "settings.mtt_remind.dm": "a direct message to each registered player",
    "settings.bad.mtt_remind": "Tournament reminders must be one of: {allowed}.",
    # ----- privacy
    "privacy.nothing": "I store nothing about you on this server.",
    "privacy.title": "What I store about you on this server",
    "privacy.body": (
        "Name: {name}\nUser id: {user_id}\nChips: {balance} (granted {granted}, refills "
        "{refilled}, net won {net_won:+d})\nHands played: {hands_played}, in {hands} hand "
        "records (with your cards and actions)\nLedger entries: {entries}\n"
        "Seated at: {seats}\nFirst seen: <t:{created}:f>"
    ),
    "privacy.seats.none": "no table",
    "privacy.delete_hint": "{command} erases it.",
    "privacy.confirm": (
        "This erases your account on this server: chips, name and id. Your past hands "
        'stay for the other players, under the name "deleted player". This can\'t be undone.'
    ),
    "privacy.confirm_button": "Erase my data",
    "privacy.deleted": "Done: your account on this server is erased.",
    "privacy.in_hand": "You are in a hand still being played: try again when it is over.",
    "privacy.not_yours": "This button belongs to someone else.",
    # ----- closing, kicking, threads
    "refused.moderators_only": (
        "Only moderators can do that: Manage Channels here, or the server's moderator role."
    ),
    "refused.close_not_yours": "Only a moderator, or whoever opened this table, can close it.",
    "refused.close_others_seated": (
        "Other players are still seated ({count}): only a moderator can close the table now."
    ),
    "refused.table_closing": "This table closes when this hand ends: no new players or hands.",
    "refused.kicked_wait": "A moderator removed you from this hand: join again when it ends.",
    "refused.kick_not_seated": "That player is not seated at this table.",
    "close.done": "The table is closed; this channel can host a new table.",
    "close.after_hand": "The table closes when this hand ends.",
    "close.cancelled": (
        "Hand #{hand_id} was cancelled: everyone got back exactly what they put in."
    ),
    "kick.now": "{name} is removed from the table.",
    "kick.after_hand": (
        "{name} makes no more choices in this hand and leaves the table when it ends."
    ),
    "thread.name": "{game} #{number}",
    "thread.opened": "Table open in {thread}.",
    "thread.not_here": "A thread can only be made in a text channel: open the table without it.",
    "table.closing": "🔒 This table closes when this hand ends.",
    "table.closed": "🔒 This table is closed.",
    "table.closed_title": "{game} — closed",
    "event.closing": "🔒 The table closes when this hand ends.",
    "event.closed": "🔒 The table is closed.",
    "event.kicked": "{name} was removed from the table by a moderator.",
    "history.cancelled": "cancelled, no chips moved",
    # ----- closed DMs
    "dm.join_probe": "You joined a table. I will send your cards here when a hand is dealt.",
    "dm.closed": (
        "I can't send you direct messages, so use the **My hand** button "
        "(or {command}) to see your cards."
    ),
    "dm.open_now": "Your direct messages work now: your cards will come here at each deal.",
    "dm.still_closed": (
        "Your direct messages are still closed to me. Open them in this server's privacy "
        "settings, then press the button again; meanwhile **My hand** shows your cards."
    ),
    "button.dms_retry": "Try DMs again",
}

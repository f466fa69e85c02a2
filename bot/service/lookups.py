"""Local dates, and the name bot/scheduling, bot/ops and the read side import the shared reads by. The reads live,
with their SQL, in repositories/lookups.py (the session is private to repositories and views); a module outside
those imports the pure helpers (`local_date`, `local_midnight`, `season_span`) from here."""

from bot.service.repositories.lookups import (
    CHANNEL_REF_COLUMNS,
    ChannelPlace,
    WorkspaceRow,
    channel_place,
    channel_ref_of,
    channel_row,
    find_cohort,
    find_season,
    in_channel,
    in_workspace,
    joined_to_channel,
    local_date,
    local_midnight,
    running_season,
    season_span,
    workspace_row,
)

__all__ = [
    "CHANNEL_REF_COLUMNS",
    "ChannelPlace",
    "WorkspaceRow",
    "channel_place",
    "channel_ref_of",
    "channel_row",
    "find_cohort",
    "find_season",
    "in_channel",
    "in_workspace",
    "joined_to_channel",
    "local_date",
    "local_midnight",
    "running_season",
    "season_span",
    "workspace_row",
]

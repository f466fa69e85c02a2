"""SQLAlchemy 2 models. Every row that belongs to a team is reached through its workspace (Slack team id,
Discord guild id, or the terminal's local workspace), so several workspaces can share one database.

One module per aggregate (places, questions, posts and answers, scores, cohorts, review, schedules and fires, flags,
seasons, confirmations) over `base` (the declarative base and column types). Importing `bot.db.models` imports them
all, so `Base.metadata` holds every table (Alembic's env and the migration checks read it)."""

from bot.db.models.base import NAMING, Base, BigId, UTCDateTime
from bot.db.models.checkpoints import MeCheckpoint
from bot.db.models.cohorts import Cohort, CohortMember
from bot.db.models.confirmations import PendingConfirmation
from bot.db.models.flags import QuestionFlag
from bot.db.models.places import Channel, SeenDelivery, User, Workspace
from bot.db.models.posts import POST_FINISH_SQL, Answer, Post, PostRecipient, PostSnapshot, post_finish_time
from bot.db.models.questions import PackRow, QuestionRow, QuestionVersion
from bot.db.models.review import ReviewAnswer, ReviewItem, ReviewSnapshot
from bot.db.models.roles import WorkspaceRole
from bot.db.models.schedules import MemberFire, Schedule, ScheduleFire
from bot.db.models.scores import ChannelScore, PeriodScore, UserScore
from bot.db.models.seasons import Season
from bot.db.models.settings import ChannelSetting, SettingChangeRow, WorkspaceSetting
from bot.db.models.workspace_packs import DraftRow, WorkspacePackRow

__all__ = [
    "NAMING",
    "POST_FINISH_SQL",
    "Answer",
    "Base",
    "BigId",
    "Channel",
    "ChannelScore",
    "ChannelSetting",
    "Cohort",
    "CohortMember",
    "DraftRow",
    "MeCheckpoint",
    "MemberFire",
    "PackRow",
    "PendingConfirmation",
    "PeriodScore",
    "Post",
    "PostRecipient",
    "PostSnapshot",
    "QuestionFlag",
    "QuestionRow",
    "QuestionVersion",
    "ReviewAnswer",
    "ReviewItem",
    "ReviewSnapshot",
    "Schedule",
    "ScheduleFire",
    "Season",
    "SeenDelivery",
    "SettingChangeRow",
    "UTCDateTime",
    "User",
    "UserScore",
    "Workspace",
    "WorkspacePackRow",
    "WorkspaceRole",
    "WorkspaceSetting",
    "post_finish_time",
]

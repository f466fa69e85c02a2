"""The repositories a unit of work exposes: what the use cases load and save, one class per aggregate.

Each wraps the unit of work's session; none opens, commits or rolls back a transaction (the unit of work does).
Use cases call `uow.posts`, `uow.questions`, `uow.schedules`, `uow.cohorts`, `uow.review`, `uow.seasons`,
`uow.flags`, `uow.confirmations`, `uow.answers` and `uow.places`; the read models (boards, `/quiz me`, reports) stay
tuned queries on the read side (service/stats.py, service/report.py, service/home.py). The click path's batched
statements are the answers repository's (answers.py, with the rollups in scores.py), run by the group commit in
service/answers.py. The shared reads (lookups.py) and the directory of platform ids (directory.py) are imported
from their modules by whoever needs them, inside and outside this package; the schedules' repository (schedules.py:
Schedules) is imported from its module too.
"""

from bot.service.repositories.answers import Answers, ClickedPost, KnownUser
from bot.service.repositories.cohorts import Cohorts, DeliveryMember, Totals
from bot.service.repositories.confirmations import PendingConfirmations
from bot.service.repositories.deadlines import Deadlines
from bot.service.repositories.fires import ChannelFires, FireClaims, FireRow, MemberFires
from bot.service.repositories.flags import FlaggedPost, Flags, Seen
from bot.service.repositories.places import Places
from bot.service.repositories.posts import FirePost, Posts, RevealedAnswer, Shown
from bot.service.repositories.questions import Questions, Rotation
from bot.service.repositories.review import Review
from bot.service.repositories.roles import Roles
from bot.service.repositories.seasons import Seasons

__all__ = [
    "Answers",
    "ChannelFires",
    "ClickedPost",
    "Cohorts",
    "Deadlines",
    "DeliveryMember",
    "FireClaims",
    "FirePost",
    "FireRow",
    "FlaggedPost",
    "Flags",
    "KnownUser",
    "MemberFires",
    "PendingConfirmations",
    "Places",
    "Posts",
    "Questions",
    "RevealedAnswer",
    "Review",
    "Roles",
    "Rotation",
    "Seasons",
    "Seen",
    "Shown",
    "Totals",
]

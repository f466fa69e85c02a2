"""The repositories a unit of work exposes: what the use cases load and save, one class per aggregate.

Each wraps the unit of work's session; none opens, commits or rolls back a transaction (the unit of work does).
Use cases call `uow.posts`, `uow.questions`, `uow.schedules`, `uow.cohorts` and `uow.review`; the read models
(boards, `/quiz me`, reports) stay tuned queries on the read side (service/stats.py, service/report.py), and the
click path's batched statements live with the group commit that runs them (service/answers.py, scores.py).
"""

from bot.service.repositories.cohorts import Cohorts, DeliveryMember, Totals
from bot.service.repositories.deadlines import Deadlines
from bot.service.repositories.fires import ChannelFires, FireClaims, FireRow, MemberFires
from bot.service.repositories.flags import FlaggedPost, Flags, Seen
from bot.service.repositories.places import Places
from bot.service.repositories.posts import FirePost, Posts, RevealedAnswer, Shown
from bot.service.repositories.questions import Questions, Rotation
from bot.service.repositories.review import Review
from bot.service.repositories.schedules import Schedules

__all__ = [
    "ChannelFires",
    "Cohorts",
    "Deadlines",
    "DeliveryMember",
    "FireClaims",
    "FirePost",
    "FireRow",
    "FlaggedPost",
    "Flags",
    "MemberFires",
    "Places",
    "Posts",
    "Questions",
    "RevealedAnswer",
    "Review",
    "Rotation",
    "Schedules",
    "Seen",
    "Shown",
    "Totals",
]

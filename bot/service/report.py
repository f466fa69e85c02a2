"""Reports on a workspace or a cohort: participation, accuracy per question and tag, most-missed questions, board.

`ReportService.build` gathers a Report (plain data); `bot/report_html.py` draws it as a self-contained HTML file
(`quizbot report`), and `summary_message` words it for chat (`/quiz report`).

Flags (people's reports that a question is wrong) are the open ones in the same scope: the workspace's, or the
cohort's members'.

Scope: a workspace report counts every answer in the workspace; a cohort report counts its members' answers
(anywhere in the workspace) since the cohort's start, the same answers its leaderboard counts.

Questions are reported per version, as their posts showed them: a question edited in its pack after some posts
has one row for the old text (with the old correct answer, against which those answers were judged) and one for
the new. Tags are the question's current ones: they classify it rather than show it.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from typing import NamedTuple

from sqlalchemy import ColumnElement, case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.clock import Clock
from bot.db.models import (
    Answer,
    Cohort,
    CohortMember,
    PackRow,
    Post,
    PostSnapshot,
    QuestionRow,
    QuestionVersion,
    ReviewItem,
    User,
    Workspace,
)
from bot.domain import ChannelRef
from bot.domain.attention import DEFAULT_RULES, AttentionRules
from bot.domain.flags import DEFAULT_PAUSE_THRESHOLD
from bot.domain.views import DayActivity, QuestionResult, Report, TagResult
from bot.domain.windows import Scope, Window
from bot.errors import QuizError, UnknownWorkspace
from bot.service.cohorts import cohort_view
from bot.service.flags import flagged_questions
from bot.service.repositories.lookups import find_cohort, local_date
from bot.service.stats import Stats
from bot.service.uow import UnitOfWork, UnitOfWorkFactory, reading
from bot.wording import reports as report_words


def tag_results(questions: tuple[QuestionResult, ...]) -> tuple[TagResult, ...]:
    """Accuracy per tag from accuracy per question, most answered first."""
    answered: dict[str, int] = defaultdict(int)
    correct: dict[str, int] = defaultdict(int)
    for question in questions:
        for tag in question.tags:
            answered[tag] += question.answered
            correct[tag] += question.correct
    return tuple(
        TagResult(tag=tag, answered=answered[tag], correct=correct[tag])
        for tag in sorted(answered, key=lambda t: (-answered[t], t))
    )


def weekly(days: list[DayActivity], participants_by_week: dict[date, int]) -> list[DayActivity]:
    """Daily activity folded into weeks starting on Monday."""
    weeks: dict[date, list[int]] = {}
    for day in days:
        monday = date.fromordinal(day.day.toordinal() - day.day.weekday())
        totals = weeks.setdefault(monday, [0, 0])
        totals[0] += day.answers
        totals[1] += day.correct
    return [
        DayActivity(day=week, answers=a, participants=participants_by_week.get(week, 0), correct=c)
        for week, (a, c) in sorted(weeks.items())
    ]


WEEKLY_AFTER_DAYS = 120
"""Participation is charted per day up to this span, per week beyond."""


class WorkspaceKey(NamedTuple):
    """A workspace by its platform and the platform's id for it."""

    platform: str
    workspace: str


class ReportService:
    """Builds reports from the database (no content files needed)."""

    def __init__(
        self,
        *,
        uow: UnitOfWorkFactory,
        stats: Stats,
        clock: Clock,
        flag_threshold: int = DEFAULT_PAUSE_THRESHOLD,
        cohort_rules: AttentionRules = DEFAULT_RULES,
    ) -> None:
        self.uow = uow
        self.stats = stats
        self.clock = clock
        self.flag_threshold = flag_threshold
        self.cohort_rules = cohort_rules  # who a cohort report flags as behind or inactive

    async def find_workspace(
        self, *, platform: str | None = None, workspace: str | None = None, cohort: str | None = None
    ) -> WorkspaceKey:
        """(platform, workspace id) matching the filters, or QuizError saying which ones there are (the operator's
        `quizbot report`: a read-only unit of work of its own)."""
        async with reading(self.uow, None) as uow:
            session = uow.session
            query = select(Workspace.platform, Workspace.external_id).order_by(
                Workspace.platform, Workspace.external_id
            )
            if platform:
                query = query.where(Workspace.platform == platform)
            if workspace:
                query = query.where(Workspace.external_id == workspace)
            if cohort:
                query = query.join(Cohort, Cohort.workspace_id == Workspace.id).where(Cohort.key == cohort.casefold())
            found = (await session.execute(query)).all()
            if len(found) == 1:
                return WorkspaceKey(found[0][0], found[0][1])
            everything = (
                await session.execute(
                    select(Workspace.platform, Workspace.external_id).order_by(
                        Workspace.platform, Workspace.external_id
                    )
                )
            ).all()
            cohorts = (
                await session.execute(
                    select(Cohort.name, Workspace.platform, Workspace.external_id)
                    .join(Workspace, Workspace.id == Cohort.workspace_id)
                    .where(*([Workspace.platform == platform] if platform else []))
                    .where(*([Workspace.external_id == workspace] if workspace else []))
                    .order_by(Cohort.key, Workspace.platform, Workspace.external_id)
                )
            ).all()
        if not found and cohort:
            known = [f"{name} ({p}:{w})" for name, p, w in cohorts]
            raise QuizError(report_words.no_match(cohort=cohort, known=known))
        if not found:
            raise QuizError(report_words.no_match(cohort=None, known=[f"{p}:{w}" for p, w in everything]))
        raise QuizError(report_words.several_match([f"--platform {p} --workspace {w}" for p, w in found]))

    async def build(
        self,
        *,
        platform: str,
        workspace: str,
        cohort: str | None = None,
        daily: bool = True,
        top: int = 10,
        within: UnitOfWork | None = None,
    ) -> Report:
        """The report for a workspace, or one of its cohorts; `daily` adds participation over time. Read in the
        caller's unit of work (`within`: a command's), else in a read-only one (the operator's `quizbot report`)."""
        now = self.clock.now()
        async with reading(self.uow, within) as uow:
            session = uow.session
            row = (
                await session.execute(
                    select(Workspace.id, Workspace.timezone, Workspace.name).where(
                        Workspace.platform == platform, Workspace.external_id == workspace
                    )
                )
            ).first()
            if row is None:
                raise UnknownWorkspace(report_words.unknown_workspace(platform, workspace))
            workspace_id, timezone = int(row.id), row.timezone
            found = await find_cohort(session, workspace_id, cohort) if cohort else None
            scope = self._scope(workspace_id, found)
            totals = (
                await session.execute(
                    select(
                        func.count(func.distinct(Answer.user_id)),
                        func.count(Answer.id),
                        func.coalesce(func.sum(case((Answer.is_correct, 1), else_=0)), 0),
                        func.coalesce(func.sum(Answer.points), 0),
                    ).where(*scope)
                )
            ).one()
            questions = await self._questions(session, scope)
            days = await self._days(session, scope, timezone) if daily else ()
            view = await cohort_view(uow, found, now=now, rules=self.cohort_rules) if found else None
            users = (
                select(CohortMember.user_id).where(CohortMember.cohort_id == found.id)
                if found
                else select(User.id).where(User.workspace_id == workspace_id)
            )
            review = dict(
                (
                    await session.execute(
                        select(ReviewItem.retired_at.is_(None), func.count())
                        .where(ReviewItem.user_id.in_(users))
                        .group_by(ReviewItem.retired_at.is_(None))
                    )
                ).all()
            )
            flagged = await flagged_questions(
                session,
                threshold=self.flag_threshold,
                workspace_ids=[workspace_id],
                users=users if found else None,
                since=found.starts_at if found else None,
            )
            board = await self.stats.leaderboard(
                ChannelRef(platform, workspace, ""),
                window=Window.ALL,
                scope=Scope.COHORT if found else Scope.WORKSPACE,
                cohort=found.name if found else None,
                now=now,
                limit=top,
                within=uow,
            )
        title = report_words.report_title(cohort=found.name if found else None, workspace=row.name or workspace)
        return Report(
            title=title,
            workspace=f"{platform}:{workspace}",
            timezone=timezone,
            generated_at=now,
            since=found.start_date if found else None,
            participants=int(totals[0]),
            answers=int(totals[1]),
            correct=int(totals[2]),
            points=int(totals[3]),
            leaderboard=board,
            questions=questions,
            days=tuple(days),
            members=view.members if view else None,
            cohort_posts=view.posts if view else 0,
            cohort_rules=view.rules if view else self.cohort_rules,
            curriculum=view.curriculum if view else (),
            review_learning=int(review.get(True, 0)),
            review_mastered=int(review.get(False, 0)),
            tags=tag_results(questions),
            flagged=tuple(flagged),
        )

    @staticmethod
    def _scope(workspace_id: int, cohort: Cohort | None) -> list[ColumnElement[bool]]:
        if cohort is None:
            return [Answer.workspace_id == workspace_id]
        members = select(CohortMember.user_id).where(CohortMember.cohort_id == cohort.id)
        return [Answer.user_id.in_(members), Answer.answered_at >= cohort.starts_at]

    @staticmethod
    async def _questions(session: AsyncSession, scope: list[ColumnElement[bool]]) -> tuple[QuestionResult, ...]:
        per_version = (
            select(
                PostSnapshot.question_version_id.label("version_id"),
                func.max(PostSnapshot.question_number).label("number"),
                func.count(Answer.id).label("answered"),
                func.sum(case((Answer.is_correct, 1), else_=0)).label("correct"),
                func.max(case((Post.closed_at.is_(None), 1), else_=0)).label("still_open"),
            )
            .join(PostSnapshot, PostSnapshot.post_id == Answer.post_id)
            .join(Post, Post.id == Answer.post_id)
            .where(*scope)
            .group_by(PostSnapshot.question_version_id)
            .subquery()
        )
        rows = (
            await session.execute(
                select(
                    QuestionVersion,
                    QuestionRow,
                    PackRow.title,
                    per_version.c.number,
                    per_version.c.answered,
                    per_version.c.correct,
                    per_version.c.still_open,
                )
                .join(per_version, per_version.c.version_id == QuestionVersion.id)
                .join(QuestionRow, QuestionRow.id == QuestionVersion.question_id)
                .join(PackRow, PackRow.id == QuestionRow.pack_id)
                .order_by(QuestionRow.pack_id, per_version.c.number, QuestionRow.id, QuestionVersion.id)
            )
        ).all()
        return tuple(
            QuestionResult(
                pack_id=question.pack_id,
                pack_title=title,
                key=question.key,
                number=int(number),
                prompt=version.prompt,
                correct_choice=version.choices[version.correct_index],
                explanation=version.explanation,
                tags=tuple(question.tags or ()),
                answered=int(answered),
                correct=int(correct or 0),
                still_open=bool(still_open),
            )
            for version, question, title, number, answered, correct, still_open in rows
        )

    @staticmethod
    async def _days(session: AsyncSession, scope: list[ColumnElement[bool]], timezone: str) -> list[DayActivity]:
        # Local days need the workspace's timezone rules, which SQLite does not have: fold in Python.
        answers: dict[date, list[int]] = {}
        people: dict[date, set[int]] = defaultdict(set)
        weekly_people: dict[date, set[int]] = defaultdict(set)
        result = await session.execute(select(Answer.answered_at, Answer.user_id, Answer.is_correct).where(*scope))
        for answered_at, user_id, correct in result:
            day = local_date(answered_at, timezone)
            totals = answers.setdefault(day, [0, 0])
            totals[0] += 1
            totals[1] += int(bool(correct))
            people[day].add(user_id)
            weekly_people[date.fromordinal(day.toordinal() - day.weekday())].add(user_id)
        if not answers:
            return []
        first, last = min(answers), max(answers)
        days = [
            DayActivity(
                day=day,
                answers=answers.get(day, [0, 0])[0],
                participants=len(people.get(day, ())),
                correct=answers.get(day, [0, 0])[1],
            )
            for day in (date.fromordinal(n) for n in range(first.toordinal(), last.toordinal() + 1))
        ]
        if (last - first).days > WEEKLY_AFTER_DAYS:
            return weekly(days, {week: len(users) for week, users in weekly_people.items()})
        return days

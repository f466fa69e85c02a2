# syntax=docker/dockerfile:1.7
# quizbot production image: a wheel built in one stage, installed alone into a slim runtime as a non-root user.

FROM python:3.11-slim AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
WORKDIR /src
COPY requirements/lock.txt ./requirements/lock.txt
# The dependencies exactly as locked (versions and hashes: a changed or substituted file fails the build), fetched
# or built as wheels here so that the runtime stage installs offline, with no compiler and no build tools.
RUN pip wheel --require-hashes --wheel-dir /wheels -r requirements/lock.txt
COPY pyproject.toml README.md alembic.ini ./
COPY bot ./bot
COPY adapters ./adapters
COPY content ./content
COPY migrations ./migrations
# quizbot's own wheel (bundling the packs and the migrations), without resolving anything again.
RUN pip wheel --no-deps --wheel-dir /wheels .

FROM python:3.11-slim AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    QUIZBOT_DATABASE_URL=sqlite+aiosqlite:////data/quizbot.db \
    QUIZBOT_CONTENT_DIR=/app/content \
    QUIZBOT_HTTP_PORT=8080 \
    QUIZBOT_LOG_FORMAT=json
RUN groupadd --system --gid 10001 quizbot \
 && useradd --system --uid 10001 --gid quizbot --home-dir /app --shell /usr/sbin/nologin quizbot \
 && mkdir -p /app /data && chown quizbot:quizbot /app /data
COPY --from=build /wheels /wheels
# Only the wheels checked against the lock above; --no-deps: nothing is resolved at install time.
RUN pip install --no-cache-dir --no-index --no-deps /wheels/*.whl && rm -rf /wheels
# The shipped packs; mount a folder over /app/content (or set QUIZBOT_CONTENT_DIR) to use your own.
COPY --chown=quizbot:quizbot content /app/content
USER quizbot
WORKDIR /app
VOLUME ["/data"]
# 8080: /healthz and /metrics. 3000: Slack HTTP mode (QUIZBOT_SLACK_PORT), when used.
EXPOSE 8080 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["quizbot", "healthcheck"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["quizbot"]
CMD ["run"]

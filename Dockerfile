# syntax=docker/dockerfile:1.7
# quizbot production image: a wheel built in one stage, installed alone into a slim runtime as a non-root user.

FROM python:3.11-slim AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
WORKDIR /src
COPY pyproject.toml README.md alembic.ini ./
COPY bot ./bot
COPY adapters ./adapters
COPY content ./content
COPY migrations ./migrations
# The wheel bundles the packs and the migrations; its dependencies are built or fetched as wheels here so the
# runtime stage installs offline, with no compiler and no build tools.
RUN pip wheel --wheel-dir /wheels .

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
RUN pip install --no-cache-dir --no-index --find-links /wheels quizbot && rm -rf /wheels
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

# The bot in a slim image: no build tools, a non-root user, the database on a volume.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DATABASE_PATH=/data/poker.db

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
RUN pip install . \
    && useradd --create-home --uid 10001 poker \
    && mkdir -p /data && chown poker:poker /data

USER poker
VOLUME ["/data"]
CMD ["python", "-m", "bot"]

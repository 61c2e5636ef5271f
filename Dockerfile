# The bot in a slim image: no build tools, a non-root user, the database on a volume.
# Dependencies are installed before the code is copied, pinned by constraints.txt (the same
# file CI installs from), so a code change rebuilds only the last layers.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATABASE_PATH=/data/poker.db

WORKDIR /app

# 1. The runtime dependencies only (read from pyproject.toml), at their pinned versions.
COPY pyproject.toml constraints.txt ./
RUN python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies'], sep='\n')" > /tmp/requirements.txt \
    && pip install -c constraints.txt -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

# 2. The bot itself (cogs/ installs as bot.cogs: see setup.py); pip check proves nothing is missing.
COPY setup.py README.md LICENSE ./
COPY bot ./bot
COPY cogs ./cogs
RUN pip install --no-deps -c constraints.txt . \
    && pip check \
    && useradd --create-home --uid 10001 poker \
    && mkdir -p /data && chown poker:poker /data

USER poker
VOLUME ["/data"]
# Exec form: python is PID 1 and gets docker stop's SIGTERM itself (no shell in between);
# the bot closes cleanly on it and exits 0, well within the default 10 s grace period.
STOPSIGNAL SIGTERM
CMD ["python", "-m", "bot"]

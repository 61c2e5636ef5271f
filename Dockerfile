# The bot in a slim image: the installed wheel and its pinned dependencies, no source tree,
# no build tools, a non-root user, the database on a volume. docs/operations.md says how it
# is built and checked, and what CI (no Docker engine) cannot check.
#
# Two stages. "build" makes the wheel; "runtime" installs it and nothing else from the
# repository, so python -m bot imports the package pip installed and checked (no /app/bot
# to shadow it, no top-level cogs, no build/ or egg-info). In each stage the layers that
# download come first and depend only on pyproject.toml and constraints.txt (the versions
# CI tests), so a code-only change rebuilds the last layers without touching PyPI.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
# 1. The build backend (pyproject's [build-system] requires), pinned: built offline below.
COPY pyproject.toml constraints.txt ./
RUN python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['build-system']['requires'], sep='\n')" > /tmp/build-requirements.txt \
    && pip install --no-cache-dir -c constraints.txt -r /tmp/build-requirements.txt
# 2. The wheel (cogs/ goes in as bot.cogs: see setup.py), without build isolation or an index.
COPY setup.py README.md LICENSE ./
COPY bot ./bot
COPY cogs ./cogs
RUN pip wheel --no-cache-dir --no-deps --no-build-isolation --no-index --wheel-dir /wheels .

FROM python:3.11-slim AS runtime
# PYTHONSAFEPATH: python -m bot does not put the working folder on sys.path, so nothing
# there can shadow the installed package.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONSAFEPATH=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATABASE_PATH=/data/poker.db \
    METRICS_PORT=9108
# 1. The runtime dependencies only (pyproject's [project] dependencies), pinned.
COPY pyproject.toml constraints.txt /tmp/deps/
RUN python -c "import tomllib; print(*tomllib.load(open('/tmp/deps/pyproject.toml', 'rb'))['project']['dependencies'], sep='\n')" > /tmp/deps/requirements.txt \
    && pip install --no-cache-dir -c /tmp/deps/constraints.txt -r /tmp/deps/requirements.txt \
    && rm -r /tmp/deps
# 2. The user, by number (USER below), and the volume's folder, owned by it.
RUN groupadd --gid 10001 poker \
    && useradd --uid 10001 --gid 10001 --create-home poker \
    && mkdir /data && chown 10001:10001 /data
# 3. The bot: the wheel alone, from the build stage; pip check proves nothing is missing.
COPY --from=build /wheels /tmp/wheels
RUN pip install --no-cache-dir --no-deps --no-index /tmp/wheels/*.whl \
    && pip check \
    && rm -r /tmp/wheels

USER 10001:10001
# Not the source (there is none in this stage): the volume, where a relative path lands.
WORKDIR /data
VOLUME ["/data"]
# Exec form: python is PID 1 and gets docker stop's SIGTERM itself (no shell in between).
# It catches SIGTERM before anything else it does, and exits 0 well within the 10 s grace.
STOPSIGNAL SIGTERM
# /healthz of the bot's own endpoint (METRICS_PORT above; on 127.0.0.1 unless METRICS_HOST
# says otherwise): the event loop answers and the database answers a query. A command the
# image has (no curl in slim): python -m bot.health, exit 0 healthy, 1 not, with the reason.
EXPOSE 9108
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot.health"]
CMD ["python", "-m", "bot"]

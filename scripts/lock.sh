#!/usr/bin/env bash
# Regenerate constraints.txt, the pinned versions CI and the Dockerfile install, from the
# ranges in pyproject.toml (pip-tools' pip-compile, in a throwaway venv of its own).
#
#     scripts/lock.sh                          # after adding or changing a dependency
#     scripts/lock.sh --upgrade                # move every pin to the newest allowed
#     scripts/lock.sh --upgrade-package NAME   # move one
set -euo pipefail
cd "$(dirname "$0")/.."
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
python3 -m venv "$tools" && "$tools/bin/pip" install -q 'pip-tools>=7.4,<8'
CUSTOM_COMPILE_COMMAND="scripts/lock.sh" "$tools/bin/pip-compile" --quiet --extra dev --extra bench --strip-extras \
    --allow-unsafe --no-emit-index-url --no-emit-find-links --output-file constraints.txt \
    "$@" pyproject.toml

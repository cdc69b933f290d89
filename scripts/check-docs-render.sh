#!/usr/bin/env bash
# Usage: scripts/check-docs-render.sh SITE_DIR (from build-docs.sh): every page in headless
# Chromium (Debian's `chromium`), by check-docs-render.py.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 SITE_DIR" >&2; exit 2; }
command -v chromium >/dev/null || { echo "check-docs-render: no chromium in PATH (apt-get install chromium)" >&2; exit 2; }
exec python3 "$(dirname "$0")/check-docs-render.py" "$1"

#!/usr/bin/env bash
# Opens every page of a documentation site built by scripts/build-docs.sh in headless
# Chromium and checks that it renders its title, shows no error view, and that every link
# to a documentation page in it reaches a page of the site. Serves the site on loopback
# itself; installs nothing (CI installs Debian's `chromium`). The work is done by
# scripts/check-docs-render.py; see its header.
# Usage: scripts/check-docs-render.sh SITE_DIR   (e.g. .build-docs/site)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 SITE_DIR" >&2; exit 2; }
command -v chromium >/dev/null 2>&1 || { echo "check-docs-render: no chromium in PATH (apt-get install chromium)" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "check-docs-render: no python3 in PATH" >&2; exit 2; }
exec python3 "$(dirname "$0")/check-docs-render.py" "$1"

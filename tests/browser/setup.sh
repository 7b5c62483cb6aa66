#!/bin/sh
# Prepare the browser test suite: Debian's chromium (never a downloaded browser) and playwright-core.
set -eu
cd "$(dirname "$0")"
if [ ! -x /usr/bin/chromium ]; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi
[ -d node_modules/playwright-core ] || PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund

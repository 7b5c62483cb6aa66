#!/bin/sh
# Run the browser suite: setup (chromium, playwright-core), then node's test runner. The tests start
# the real server themselves ($SERVER_BIN, or a release build of the workspace's binary).
set -eu
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
cd "$(dirname "$0")"
./setup.sh
exec node --test --test-concurrency=1 *.test.mjs

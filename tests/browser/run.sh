#!/bin/sh
# Run the browser suite: setup (chromium, playwright-core), then node's test runner. The tests start
# the real server themselves ($SERVER_BIN, or a release build of the workspace's binary).
set -eu
cd "$(dirname "$0")"
./setup.sh
exec node --test --test-concurrency=1 *.test.mjs

#!/usr/bin/env bash
# Compares every declaration of the Apple stubs (scripts/apple-stubs: Network, Combine, SwiftUI,
# Darwin) with Apple's real SDK, laid out by ../shared/apple-sdk/setup.sh (see its README):
#
#   scripts/compare-apple-stubs.sh [SDK]   SDK: the .sdk folder; default $APPLESDK_SDK, else
#                                          /tmp/applesdk/iPhoneOS17.4-backport.sdk
#
# One line per difference (FILE:LINE: DECLARATION: ASPECT: stub says X, SDK says Y), then a
# count. Exit 0: none; 1: differences; 77: no SDK there (skipped). What is compared, and how it
# is normalised, is written at the top of compare-apple-stubs.py. The first run synthesizes the
# Swift interfaces of the SDK's Darwin, Network and dnssd C modules (about a minute, cached).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
sdk=${1:-${APPLESDK_SDK:-/tmp/applesdk/iPhoneOS17.4-backport.sdk}}
[ $# -gt 0 ] && shift
exec nice -n 10 python3 scripts/compare-apple-stubs.py "$sdk" "$@"

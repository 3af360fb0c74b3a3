#!/usr/bin/env bash
# What `make test` needs besides Go, checked in seconds before any test runs,
# and installed here when this can be done: `make test` and .ci/run both call
# this one script, so what CI installs and what a developer's run checks
# cannot drift apart.
#
#   scripts/prereqs.sh           check; install what is missing when possible
#   scripts/prereqs.sh --check   check only; exit 1 naming what is missing
#
# Debian's packages (a headless Chromium for the board's browser tests,
# caddy for the team server behind a real proxy, jq for the smoke script,
# Node.js and npm for the MCP interop tools) install with apt-get as root;
# without root the script stops at once and prints the one command that
# would install them. The Lambda runtime interface emulator installs with
# `go install` (no root needed). moto_server and cfn-lint are Python tools
# this machine image ships; they are checked, not installed.
#
# PREREQS_NOT_ROOT=1 makes the script behave as for a user without root
# (its own test uses it).
set -euo pipefail

mode=install
case "${1:-}" in
--check) mode=check ;;
"") ;;
*)
	echo "usage: $0 [--check]" >&2
	exit 2
	;;
esac

rie_version=v0.0.0-20261030222936-bef5c4ba774d

# Debian package for each command the tests need.
apt_missing=()
need_apt() { # command package
	command -v "$1" >/dev/null 2>&1 || apt_missing+=("$2")
}
need_apt node nodejs
need_apt npm npm
need_apt chromium-headless-shell chromium-headless-shell
need_apt caddy caddy
need_apt jq jq

other_missing=()
command -v moto_server >/dev/null 2>&1 || other_missing+=("moto_server (pip install 'moto[server]')")
command -v cfn-lint >/dev/null 2>&1 || other_missing+=("cfn-lint (pip install cfn-lint)")

gobin=""
if command -v go >/dev/null 2>&1; then
	gobin=$(go env GOPATH)/bin
else
	other_missing+=("go (https://go.dev/doc/install)")
fi
rie_missing=0
if [ -n "$gobin" ] && ! command -v aws-lambda-rie >/dev/null 2>&1 && [ ! -x "$gobin/aws-lambda-rie" ]; then
	rie_missing=1
fi

is_root=0
if [ "${PREREQS_NOT_ROOT:-}" != 1 ] && [ "$(id -u)" = 0 ]; then
	is_root=1
fi

if [ "${#other_missing[@]}" -gt 0 ]; then
	echo "prereqs: missing, and not installed by this script: ${other_missing[*]}" >&2
	exit 1
fi

if [ "$mode" = check ]; then
	missing=("${apt_missing[@]}")
	[ "$rie_missing" = 1 ] && missing+=("aws-lambda-rie")
	if [ "${#missing[@]}" -gt 0 ]; then
		echo "prereqs: missing: ${missing[*]}; run: sudo scripts/prereqs.sh" >&2
		exit 1
	fi
	exit 0
fi

if [ "${#apt_missing[@]}" -gt 0 ]; then
	if [ "$is_root" != 1 ]; then
		echo "prereqs: missing Debian packages: ${apt_missing[*]}" >&2
		echo "prereqs: install them with: sudo apt-get install -y ${apt_missing[*]}" >&2
		exit 1
	fi
	echo "prereqs: installing ${apt_missing[*]} (apt-get)"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_missing[@]}"
fi

if [ "$rie_missing" = 1 ]; then
	echo "prereqs: installing aws-lambda-rie (go install)"
	go install "github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie@$rie_version"
fi

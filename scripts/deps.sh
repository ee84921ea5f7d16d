#!/usr/bin/env bash
# Install everything hexpost needs to build, test and run on Debian (as root).
set -euo pipefail
pkgs=(build-essential cmake pkg-config libsqlite3-dev libsodium-dev
	libcurl4-openssl-dev libcmocka-dev libgmime-3.0-dev clang libclang-rt-14-dev minisign
	sqlite3 python3 curl openssl dovecot-imapd python3-aiosmtpd systemd strace e2fsprogs
	zlib1g-dev)
pkgs+=(libcairo2-dev libjson-c-dev python3-jsonschema chromium)
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${pkgs[@]}"

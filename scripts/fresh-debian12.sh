#!/usr/bin/env bash
# Checks the README's two set-up commands the way a new user meets them: each in a fresh
# Debian 12 system of its own (debootstrap minbase, plus git and ca-certificates to clone),
# as root, in a clone of this repository's HEAD (what CI sees: commit first):
#   build-fresh-debian12/main/root:  bash scripts/main.sh   (installs, builds, profiles, tables)
#   build-fresh-debian12/test/root:  bash scripts/test.sh   (installs, builds, runs every test)
# Both systems are made anew on every run (their output: build-fresh-debian12/*.log), so
# each run downloads Debian 12 and the packages twice, ~1 GB in all from MIRROR
# (http://deb.debian.org/debian). About 8 minutes on 2 cores. Not part of scripts/test.sh:
# it needs the network and root (debootstrap, mount, chroot).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
  echo "fresh-debian12: must run as root (debootstrap, mount, chroot)" >&2
  exit 1
fi
# shellcheck source=scripts/chroot_lib.sh
source scripts/chroot_lib.sh
if [ -n "$(chroot_missing / debootstrap)" ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
fi

top=$PWD/build-fresh-debian12
status=0
for job in main test; do
  root=$top/$job/root
  chroot_unmount_all
  chroot_remove "$top/$job"
  chroot_create "$root" bookworm "$(dpkg --print-architecture)" git,ca-certificates
  chroot_mount "$root" sys  # PoCL reads the CPU topology from /sys
  git clone -q "$PWD" "$root/root/clprof"
  echo "fresh-debian12: bash scripts/$job.sh in $root (log: $top/$job.log)"
  if chroot_run "$root" sh -c "cd /root/clprof && bash scripts/$job.sh" >"$top/$job.log" 2>&1; then
    echo "fresh-debian12: $job: passed"
    grep -E "kernel launches|tests passed" "$top/$job.log" || true
  else
    echo "fresh-debian12: $job: FAILED" >&2
    tail -30 "$top/$job.log" >&2
    status=1
  fi
done
exit $status

# Sourced by the scripts that build and test clprof inside a Debian system made with
# debootstrap (debian11.sh, fresh-debian12.sh). Must run as root. Defines:
#   chroot_create ROOT SUITE ARCH [PACKAGES]  debootstrap --variant=minbase SUITE (amd64 or
#       arm64; PACKAGES: a comma-separated --include list) into ROOT, unless ROOT already
#       holds a system. arm64 on x86-64 runs the second stage under QEMU: the caller
#       installs qemu-user-static and enables it (qemu_binfmt.sh).
#   chroot_mount ROOT [sys]  mounts /proc and /dev (and /sys) in ROOT until the script exits.
#       The binds are made slaves first, so unmounting them never reaches the machine's own.
#   chroot_run ROOT COMMAND...  runs COMMAND in ROOT as root with a clean environment.
#   chroot_missing ROOT PACKAGE...  prints those of the packages ROOT has not installed.
#   chroot_remove DIR  unmounts whatever is still mounted under DIR (a run that was killed
#       leaves its mounts), then deletes DIR; refuses if a mount stays.

chroot_create() {
  local root=$1 suite=$2 arch=$3 include=${4:-}
  [ -e "$root/etc/debian_version" ] && return 0
  echo "$(basename "$0"): debootstrap $suite ($arch) into $root"
  chroot_remove "$root" || return 1
  mkdir -p "$root"
  local log=$root.debootstrap.log options=(--variant=minbase --arch="$arch")
  [ -n "$include" ] && options+=(--include="$include")
  local mirror=${MIRROR:-http://deb.debian.org/debian}
  if [ "$arch" = "$(dpkg --print-architecture)" ]; then
    debootstrap "${options[@]}" "$suite" "$root" "$mirror" >"$log" 2>&1 ||
      { tail -20 "$log" >&2; return 1; }
    return 0
  fi
  # Two stages: the second runs the foreign binaries in the chroot, which needs QEMU
  # there (the machine's binfmt entry names /usr/libexec/qemu-binfmt/aarch64-binfmt-P).
  debootstrap --foreign "${options[@]}" "$suite" "$root" "$mirror" >"$log" 2>&1 ||
    { tail -20 "$log" >&2; return 1; }
  mkdir -p "$root/usr/libexec/qemu-binfmt"
  cp /usr/bin/qemu-aarch64-static "$root/usr/bin/"
  ln -sf ../../bin/qemu-aarch64-static "$root/usr/libexec/qemu-binfmt/aarch64-binfmt-P"
  chroot "$root" /debootstrap/debootstrap --second-stage >>"$log" 2>&1 ||
    { tail -20 "$log" >&2; return 1; }
}

chroot_mounted=()
chroot_unmount_all() {
  local i
  for ((i = ${#chroot_mounted[@]} - 1; i >= 0; i--)); do
    umount -R "${chroot_mounted[i]}" 2>/dev/null || umount -lR "${chroot_mounted[i]}"
  done
  chroot_mounted=()
}

chroot_mount() {
  local root=$1 fs
  trap chroot_unmount_all EXIT
  if ! mountpoint -q "$root/proc"; then
    mount -t proc proc "$root/proc"
    chroot_mounted+=("$root/proc")
  fi
  for fs in dev ${2:-}; do
    if ! mountpoint -q "$root/$fs"; then
      mount --rbind "/$fs" "$root/$fs"
      mount --make-rslave "$root/$fs"
      chroot_mounted+=("$root/$fs")
    fi
  done
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
}

chroot_run() {
  local root=$1
  shift
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"
}

chroot_missing() {
  local root=$1 p
  shift
  for p in "$@"; do
    chroot_run "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
      grep -q "install ok installed" || echo "$p"
  done
}

# The mount points at or under $1, deepest first.
chroot_mounts_under() {
  awk -v d="$1" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/self/mounts | sort -r
}

chroot_remove() {
  local dir m
  dir=$(realpath -m "$1")
  chroot_mounts_under "$dir" | while read -r m; do umount -l "$m"; done
  if [ -n "$(chroot_mounts_under "$dir")" ]; then
    echo "$(basename "$0"): still mounted under $dir; not deleting it" >&2
    return 1
  fi
  rm -rf "$dir"
}

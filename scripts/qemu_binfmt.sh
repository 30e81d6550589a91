# Sourced by scripts that run aarch64 programs on an x86-64 machine (cross-aarch64.sh,
# debian11.sh with ARCH=arm64). Defines:
#   enable_qemu_aarch64   binfmt_misc mounted, and qemu-aarch64 (Debian's qemu-user-static
#                         and binfmt-support, installed by the caller) registered and
#                         enabled, so that the kernel hands aarch64 binaries to QEMU.
# Uses the caller's as_root (a command runner with root rights) when it has one.

enable_qemu_aarch64() {
  local run=()
  declare -F as_root >/dev/null && run=(as_root)
  local binfmt=/proc/sys/fs/binfmt_misc
  if [ ! -e "$binfmt/status" ]; then
    "${run[@]}" mount -t binfmt_misc binfmt_misc "$binfmt"
  fi
  if [ ! -e "$binfmt/qemu-aarch64" ]; then
    "${run[@]}" update-binfmts --enable qemu-aarch64
  fi
  if ! grep -qx enabled "$binfmt/qemu-aarch64"; then
    echo 1 | "${run[@]}" tee "$binfmt/qemu-aarch64" >/dev/null
  fi
  if ! grep -qx enabled "$binfmt/status"; then
    echo 1 | "${run[@]}" tee "$binfmt/status" >/dev/null
  fi
}

#!/bin/bash
# Builds the controller image's runtime contents into a folder, without a Docker engine: the
# karpenter-proxmox binary, every shared library ldd resolves for it (at the paths ldd names, with
# the host's symlinks, each checked to come from an installed Debian package), the CA bundle of
# Debian's ca-certificates package where OpenSSL looks for it, /etc/passwd and /etc/group with the
# non-root user 65532, and an nsswitch.conf so the chart's hostAliases resolve. No shell, no
# package manager, nothing else. The Dockerfile's image runs the same binary with the same
# libraries and certificates.
#
# Usage: scripts/build-rootfs.sh [BINARY] [FOLDER]
#   defaults: build/bin/karpenter-proxmox and build/rootfs
# Also writes FOLDER.manifest: each file, the Debian package it came from and its version.
# Make an image of it with any OCI tool, e.g. `tar -C build/rootfs -c . | podman import \
#   --change 'USER 65532:65532' --change 'ENTRYPOINT ["/usr/local/bin/karpenter-proxmox"]' - IMAGE`.
set -euo pipefail
umask 022

binary=${1:-build/bin/karpenter-proxmox}
out=${2:-build/rootfs}
uid=65532

fail() {
  echo "build-rootfs: $*" >&2
  exit 1
}

[ -x "$binary" ] || fail "$binary is not an executable (build it first: cmake --build build --target karpenter-proxmox)"
command -v ldd >/dev/null || fail "ldd is missing (Debian package libc-bin)"
command -v dpkg-query >/dev/null || fail "dpkg-query is missing: the libraries must come from Debian packages"
[ -n "$out" ] && [ "$(realpath -m "$out")" != / ] || fail "refusing to use '$out' as the folder"
# Only ever delete a folder this script made (it has a manifest beside it) or an empty one.
if [ -e "$out" ]; then
  if [ -f "$out.manifest" ] || [ -z "$(ls -A "$out")" ]; then
    rm -rf "$out"
  else
    fail "$out exists and was not made by this script; remove it or choose another folder"
  fi
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
: >"$out.manifest"  # marks the folder as ours, so a failed run can be re-run
manifest_lines=()

# Records where a file of the folder came from: path, source, version (tab-separated).
note() {
  local IFS=$'\t'
  manifest_lines+=("$*")
}

# The Debian package (and version) that installed PATH, or fails: nothing in the folder comes
# from outside Debian.
package_of() {
  local path=$1 real pkg
  real=$(readlink -f "$path")
  pkg=$(dpkg-query -S "$path" 2>/dev/null || dpkg-query -S "$real" 2>/dev/null) ||
    fail "$path is not from a Debian package"
  pkg=${pkg%%:*}
  printf '%s\t%s' "$pkg" "$(dpkg-query -W -f='${Version}' "$pkg")"
}

# Copies PATH into the folder the way the host has it: each directory on the way, each symlink
# on the way (same target) and what it points to, then the file itself.
copy_path() {
  local path=$1 dir="" rest comp current target resolved
  rest=${path#/}
  while :; do
    comp=${rest%%/*}
    current="$dir/$comp"
    if [ -L "$current" ]; then
      target=$(readlink "$current")
      [ -L "$out$current" ] || ln -s "$target" "$out$current"
      case $target in
        /*) resolved=$target ;;
        *) resolved="$dir/$target" ;;
      esac
      if [ "$comp" = "$rest" ]; then
        copy_path "$(realpath -m -s "$resolved")"
      else
        copy_path "$(realpath -m -s "$resolved")/${rest#*/}"
      fi
      return
    fi
    if [ "$comp" = "$rest" ]; then
      [ -e "$out$current" ] || cp "$current" "$out$current"
      return
    fi
    [ -e "$out$current" ] || mkdir -p "$out$current"
    dir=$current
    rest=${rest#*/}
  done
}

# The binary.
mkdir -p "$out/usr/local/bin"
install -m 0755 "$binary" "$out/usr/local/bin/karpenter-proxmox"
note /usr/local/bin/karpenter-proxmox "(built)" "$("$binary" --version 2>/dev/null || echo unknown)"

# Its shared libraries, as ldd resolves them (the dynamic loader included).
libraries=()
while IFS= read -r line; do
  read -r first arrow second _ <<<"$line"
  case $line in
    *"not found"*) fail "ldd: $first not found" ;;
  esac
  if [ "$arrow" = "=>" ] && [ "${second#/}" != "$second" ]; then
    libraries+=("$second")
  elif [ "${first#/}" != "$first" ]; then
    libraries+=("$first")
  fi
done < <(ldd "$binary")
[ "${#libraries[@]}" -gt 0 ] || fail "ldd lists no library for $binary (a static binary needs no script)"
for lib in "${libraries[@]}"; do
  copy_path "$lib"
  note "$lib" "$(package_of "$lib")"
done

# The CA certificates, where OpenSSL's default paths (/usr/lib/ssl) lead.
bundle=/etc/ssl/certs/ca-certificates.crt
dpkg-query -W -f='${Status}' ca-certificates 2>/dev/null | grep -q "ok installed" ||
  fail "the Debian package ca-certificates is not installed (apt-get install ca-certificates)"
[ -s "$bundle" ] || fail "$bundle is missing or empty (run update-ca-certificates)"
mkdir -p "$out/etc/ssl/certs"
cp "$bundle" "$out$bundle"
note "$bundle" ca-certificates "$(dpkg-query -W -f='${Version}' ca-certificates)"
openssl_dir=/usr/lib/ssl
mkdir -p "$out$openssl_dir"
ln -s "$bundle" "$out$openssl_dir/cert.pem"
ln -s /etc/ssl/certs "$out$openssl_dir/certs"

# The users, the name lookup order and a writable-by-all /tmp (the chart mounts an emptyDir).
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%s:%s:nonroot:/home/nonroot:/sbin/nologin\n' \
  "$uid" "$uid" >"$out/etc/passwd"
printf 'root:x:0:\nnonroot:x:%s:\n' "$uid" >"$out/etc/group"
printf 'hosts: files dns\n' >"$out/etc/nsswitch.conf"
for f in /etc/passwd /etc/group /etc/nsswitch.conf; do note "$f" "(generated)" "-"; done
mkdir -p "$out/tmp"
chmod 1777 "$out/tmp"

printf '%s\n' "${manifest_lines[@]}" >"$out.manifest"
echo "build-rootfs: $out ($(du -sh "$out" | cut -f1)), manifest $out.manifest"

#!/usr/bin/env bash
# Builds the OCI images of gpucost (serve and the CLI) and gpucost-agent from built binaries and
# Debian 12 packages only: no base image is pulled. For each binary, the shared libraries it
# loads are traced to their installed Debian packages (ldd, dpkg -S), and those packages'
# libraries and copyright files are copied into an empty root filesystem, with the
# stripped binary, CA certificates and time zones (gpucost), /etc/passwd and /etc/group with the
# non-root user 65532. No shell, no package manager. umoci writes one OCI image layout per binary.
#
#   scripts/build-image.sh BIN_DIR [OUT_DIR]
#     BIN_DIR holds gpucost and gpucost-agent (build/release/src/cli); OUT_DIR defaults to
#     build/image. Writes OUT_DIR/gpucost and OUT_DIR/gpucost-agent (OCI layouts, tag = version)
#     and OUT_DIR/rootfs-<name> (the files of each image).
# Environment: GPUCOST_IMAGES (default "gpucost gpucost-agent"), SOURCE_DATE_EPOCH (the images'
# creation time; default now), GPUCOST_LICENSE, GPUCOST_SOURCE_URL (labels).
set -euo pipefail
[ -z "${GPUCOST_TRACE:-}" ] || { PS4='+ ${EPOCHREALTIME} '; set -x; }

PATH=$PATH:/usr/sbin:/sbin  # ldconfig, for users whose PATH lacks them
bin_dir=${1:?usage: scripts/build-image.sh BIN_DIR [OUT_DIR]}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${2:-$root/build/image}" && cd "${2:-$root/build/image}" && pwd)
images=${GPUCOST_IMAGES:-gpucost gpucost-agent}

version=$(sed -n 's/^project(gpucost VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
revision=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
epoch=${SOURCE_DATE_EPOCH:-$(date +%s)}
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)
arch=$(dpkg --print-architecture)
source_url=${GPUCOST_SOURCE_URL:-https://github.com/gpucost/gpucost}
# The project has no licence file yet: the label says so (SPDX's NOASSERTION) until it has one.
license=${GPUCOST_LICENSE:-NOASSERTION}

for tool in umoci dpkg strip ldd ldconfig; do
  command -v "$tool" >/dev/null || { echo "build-image: $tool is missing (scripts/install-deps.sh)" >&2; exit 1; }
done

# Prints "PACKAGE PATH" for each shared library BINARY loads: the Debian package that installed
# it and the path the package registers it under (usrmerge: with or without /usr), one
# `dpkg -S` for all of them.
libraries_of() {
  local libs candidates=() lib
  libs=$(ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}')
  for lib in $libs; do candidates+=("$lib" "/usr$lib" "${lib#/usr}"); done
  # "pkg[:arch]: /path" lines, then the libraries: the first registered candidate of each.
  { dpkg -S "${candidates[@]}" 2>/dev/null || true; echo "--"; echo "$libs"; } | awk '
    !done && $0 == "--" {done = 1; next}
    !done {pkg = $1; sub(/:.*/, "", pkg); owner[$2] = pkg; next}
    {
      n = split($1 " /usr" $1 " " substr($1, ($1 ~ /^\/usr\//) ? 5 : 1), c, " ")
      for (i = 1; i <= n; i++) if (c[i] in owner) {print owner[c[i]], c[i]; next}
      print "build-image: no Debian package holds " $1 > "/dev/stderr"; exit 1
    }'
}

# Checks the installed PACKAGES against their own checksums (dpkg --verify), so that what goes
# into the image is what Debian shipped, and copies their copyright files into ROOTFS.
verify_packages() {
  local rootfs=$1 bad pkg
  shift
  bad=$(dpkg --verify "$@" 2>&1 | awk '$1 ~ /5/ && $2 != "c" {print $NF}' || true)
  if [ -n "$bad" ]; then
    echo "build-image: installed files differ from their Debian packages: $bad" >&2
    exit 1
  fi
  for pkg in "$@"; do
    install -D -m 0644 "/usr/share/doc/$pkg/copyright" "$rootfs/usr/share/doc/$pkg/copyright"
  done
}

# Copies the files of PACKAGE whose paths match the extended regular expression into ROOTFS.
add_package_files() {
  local rootfs=$1 pkg=$2 regex=$3
  verify_packages "$rootfs" "$pkg"
  dpkg -L "$pkg" | grep -E "$regex" | tr '\n' '\0' | copy_paths "$rootfs"
}

# Copies the NUL-separated absolute paths on stdin (symlinks as symlinks) into ROOTFS.
copy_paths() {
  tar -C / --null --no-recursion -cf - -T - 2>/dev/null | tar -xf - -C "$1"
}

build_one() {
  local name=$1 bin=$bin_dir/$1 rootfs=$out/rootfs-$1 layout=$out/$1 pkg
  [ -x "$bin" ] || { echo "build-image: $bin is not a built binary" >&2; exit 1; }
  rm -rf "$rootfs" "$layout"
  mkdir -p "$rootfs"/{etc,tmp,usr/bin,var/lib/gpucost,etc/ssl/certs}
  chmod 1777 "$rootfs/tmp"

  # Only the libraries the binary loads (each soname link and the file it names), not whole packages.
  local packages="" libs
  libs=$(libraries_of "$bin")
  packages=$(awk '{print $1}' <<<"$libs" | sort -u)
  # shellcheck disable=SC2086
  verify_packages "$rootfs" $packages
  awk '{print $2}' <<<"$libs" | while read -r lib; do
    printf '%s\0' "$lib"
    while [ -L "$lib" ]; do
      local target
      target=$(readlink "$lib")
      [[ $target = /* ]] || target=$(dirname "$lib")/$target
      lib=$target
      printf '%s\0' "$lib"
    done
  done | copy_paths "$rootfs"
  # ld.so's default directories are the multiarch ones; a cache makes the lookup independent of it.
  printf '/lib/%s\n/usr/lib/%s\n' "$(gcc -dumpmachine)" "$(gcc -dumpmachine)" >"$rootfs/etc/ld.so.conf"
  ldconfig -r "$rootfs"

  if [ "$name" = gpucost ]; then
    # HTTPS to Prometheus, AMP and remote-write endpoints; IANA zones for --slurm-time-zone.
    add_package_files "$rootfs" ca-certificates '^/usr/share/ca-certificates/mozilla/.'
    cat "$rootfs"/usr/share/ca-certificates/mozilla/*.crt >"$rootfs/etc/ssl/certs/ca-certificates.crt"
    rm -rf "$rootfs/usr/share/ca-certificates"
    add_package_files "$rootfs" tzdata '^/usr/share/zoneinfo/([^r]|r[^i])'  # not right/: leap seconds
    packages="$packages ca-certificates tzdata"
  fi

  strip --strip-unneeded -o "$rootfs/usr/bin/$name" "$bin"
  chmod 0755 "$rootfs/usr/bin/$name"
  mkdir -p "$rootfs/usr/share/doc/gpucost"
  if [ -f "$root/LICENSE" ]; then install -m 0644 "$root/LICENSE" "$rootfs/usr/share/doc/gpucost/copyright"; fi
  printf 'root:x:0:0:root:/root:/usr/sbin/nologin\ngpucost:x:65532:65532:gpucost:/var/lib/gpucost:/usr/sbin/nologin\n' \
    >"$rootfs/etc/passwd"
  printf 'root:x:0:\ngpucost:x:65532:\n' >"$rootfs/etc/group"
  printf 'hosts: files dns\n' >"$rootfs/etc/nsswitch.conf"
  # What is in the image, for scanners and for people.
  for pkg in $packages; do
    printf '%s %s\n' "$pkg" "$(dpkg-query -W -f='${Version}' "$pkg")"
  done >"$rootfs/usr/share/doc/gpucost/debian-packages"
  printf '%s\n' "version=$version" "revision=$revision" "created=$created" \
    >"$rootfs/usr/share/doc/gpucost/build-info"

  local layer
  layer=$(mktemp --suffix=.tar)
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$rootfs" -cf "$layer" .
  # The ledger's folder is the user's, for runs without a volume there (the later entry wins).
  tar --owner=65532 --group=65532 --numeric-owner --mtime="@$epoch" --no-recursion \
    -C "$rootfs" -rf "$layer" ./var/lib/gpucost
  umoci init --layout "$layout"
  umoci new --image "$layout:$version"
  umoci raw add-layer --image "$layout:$version" --history.created "$created" \
    --history.created_by "scripts/build-image.sh" "$layer"
  rm -f "$layer"
  local labels=() k v
  for kv in "version=$version" "revision=$revision" "source=$source_url" \
    "licenses=$license" "created=$created" "title=$name" \
    "description=gpucost: exact GPU cost attribution for shared Kubernetes and Slurm clusters"; do
    k=${kv%%=*} v=${kv#*=}
    labels+=(--config.label "org.opencontainers.image.$k=$v"
      --manifest.annotation "org.opencontainers.image.$k=$v")
  done
  umoci config --image "$layout:$version" --no-history --created "$created" \
    --architecture "$arch" --os linux --config.user 65532:65532 \
    --config.entrypoint "/usr/bin/$name" --config.workingdir /var/lib/gpucost \
    --config.env PATH=/usr/bin --config.env TZ=UTC "${labels[@]}"
  umoci gc --layout "$layout"
  echo "build-image: $layout:$version ($(du -sh "$rootfs" | cut -f1) unpacked, $(echo $packages | wc -w) Debian packages)"
}

for name in $images; do build_one "$name"; done

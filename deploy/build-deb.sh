#!/bin/sh
# Builds the Debian package of alarmd on this machine, for this machine's architecture:
#
#   deploy/build-deb.sh ARCH [OUTPUT_DIR]
#
# ARCH is Debian's name (amd64, arm64) and must be this machine's (`dpkg --print-architecture`):
# Swift cannot cross-compile here, so an arm64 package is built on an arm64 machine (a Raspberry
# Pi 4 or 5 with 4 GB, or an arm64 container; see deploy/README.md). Writes
# OUTPUT_DIR/alarmd_VERSION_ARCH.deb (default OUTPUT_DIR: .build-deb in the checkout).
# VERSION is the first line of a VERSION file at the top of the checkout, else derived from
# `git describe` (a tag v1.2.3 gives 1.2.3; no tag gives 0~gitYYYYMMDD.HASH). The Maintainer
# field is DEB_MAINTAINER ("Name <address>"; the default is a placeholder).
set -eu

usage() {
    echo "usage: deploy/build-deb.sh ARCH [OUTPUT_DIR]   (ARCH must be this machine's: $(dpkg --print-architecture))" >&2
    exit 64
}
[ $# -ge 1 ] && [ $# -le 2 ] || usage
arch=$1
host_arch=$(dpkg --print-architecture)
if [ "$arch" != "$host_arch" ]; then
    echo "build-deb.sh: this machine builds $host_arch packages, not $arch: Swift cannot cross-compile here." \
        "Run this script on a $arch machine (for arm64: a Raspberry Pi with Swift for aarch64 from swift.org," \
        "see deploy/README.md)." >&2
    exit 64
fi

source_dir=$(cd "$(dirname "$0")/.." && pwd)
output=${2:-$source_dir/.build-deb}
mkdir -p "$output"
output=$(cd "$output" && pwd)

for tool in swift dpkg-deb dpkg-shlibdeps strip readelf; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "build-deb.sh: $tool is missing (apt-get install dpkg-dev binutils; Swift from swift.org)" >&2
        exit 69
    fi
done
"$source_dir/deploy/install-build-deps"

# The version: VERSION, else a tag, else the commit.
if [ -f "$source_dir/VERSION" ]; then
    version=$(head -n 1 "$source_dir/VERSION")
elif described=$(git -C "$source_dir" describe --tags --match 'v[0-9]*' 2>/dev/null); then
    # v1.2.3-4-gabcdef0 -> 1.2.3+4.gabcdef0 (sorts after 1.2.3)
    version=$(echo "${described#v}" | sed -E 's/-([0-9]+)-g([0-9a-f]+)$/+\1.g\2/')
elif commit=$(git -C "$source_dir" log -1 --format='%cd.%h' --date=format:%Y%m%d 2>/dev/null); then
    version="0~git$commit"
else
    echo "build-deb.sh: no VERSION file and no git history: cannot tell the version" >&2
    exit 65
fi
if ! dpkg --validate-version "$version" 2>/dev/null; then
    echo "build-deb.sh: \"$version\" is not a valid Debian version" >&2
    exit 65
fi
if [ -n "$(git -C "$source_dir" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    echo "build-deb.sh: note: the checkout has uncommitted changes; the package is still called $version" >&2
fi

# Release binaries with the Swift runtime linked in, so the package needs no Swift toolchain,
# linked for a small resident set (deploy/swift-build-release: lld, deploy/link/alarmd.order).
# Time zones come from /usr/share/zoneinfo (tzdata), read by alarmd itself, not from ICU.
scratch=$output/build
set -- --package-path "$source_dir" --scratch-path "$scratch"
"$source_dir/deploy/swift-build-release" "$@" --product alarmd
"$source_dir/deploy/swift-build-release" "$@" --product alarmctl
bin_dir=$("$source_dir/deploy/swift-build-release" "$@" --show-bin-path)

# dpkg-shlibdeps wants a debian/ directory with the package's tree inside it.
work=$output/work
package=$work/debian/alarmd
rm -rf "$work"
mkdir -p "$package"
UNIT_DIR=/lib/systemd/system UDEV_RULES_DIR=/lib/udev/rules.d \
    "$source_dir/deploy/install.sh" --prefix /usr --destdir "$package" --bin-dir "$bin_dir" --quiet
for program in alarmd alarmctl; do
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$package/usr/bin/$program"
done

maintainer=${DEB_MAINTAINER:-alarmd maintainers <alarmd@localhost>}
# A native package's changelog: one entry naming the commit it was built from.
commit=$(git -C "$source_dir" rev-parse --short HEAD 2>/dev/null || echo unknown)
printf 'alarmd (%s) unstable; urgency=medium\n\n  * Built from commit %s.\n\n -- %s  %s\n' \
    "$version" "$commit" "$maintainer" "$(date -R)" | gzip -9n >"$package/usr/share/doc/alarmd/changelog.gz"
chmod 0644 "$package/usr/share/doc/alarmd/changelog.gz"

printf 'Source: alarmd\n\nPackage: alarmd\nArchitecture: any\n' >"$work/debian/control"
shlibs=$(cd "$work" && dpkg-shlibdeps -O -e debian/alarmd/usr/bin/alarmd -e debian/alarmd/usr/bin/alarmctl 2>/dev/null)
shlibs=${shlibs#shlibs:Depends=}
[ -n "$shlibs" ] || { echo "build-deb.sh: dpkg-shlibdeps found no libraries" >&2; exit 70; }
# Relative relocations packed as DT_RELR (-z pack-relative-relocs) need glibc's
# GLIBC_ABI_DT_RELR, new in 2.36, which dpkg-shlibdeps does not turn into a version.
if readelf -V "$package/usr/bin/alarmd" "$package/usr/bin/alarmctl" | grep -q GLIBC_ABI_DT_RELR; then
    libc_minimum=$(echo "$shlibs" | sed -n 's/.*libc6 (>= \([^)]*\)).*/\1/p')
    if [ -n "$libc_minimum" ] && dpkg --compare-versions "$libc_minimum" lt 2.36; then
        shlibs=$(echo "$shlibs" | sed "s/libc6 (>= $libc_minimum)/libc6 (>= 2.36)/")
    fi
fi

install -d -m 0755 "$package/DEBIAN"
installed_size=$(du -k -s --exclude=DEBIAN "$package" | cut -f 1)
cat >"$package/DEBIAN/control" <<EOF
Package: alarmd
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: $shlibs, tzdata, systemd
Section: misc
Priority: optional
Description: bedside alarm clock daemon for Raspberry Pi boards
 alarmd keeps one-time and weekly alarms, timers and countdowns with the
 semantics of Apple's AlarmKit, and rings them on time through a power cut, a
 clock jump or a daylight-saving change. It drives two buttons and an LED over
 GPIO (libgpiod), a character LCD over I2C and a speaker over ALSA, as
 described by a board profile in /usr/share/alarmd/boards. alarmctl is its
 command-line client.
EOF
echo /etc/alarmd/alarmd.toml >"$package/DEBIAN/conffiles"

cat >"$package/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
    systemd-sysusers alarmd.conf
    systemd-tmpfiles --create alarmd.conf || true
    if command -v udevadm >/dev/null 2>&1 && [ -d /run/udev ]; then
        udevadm control --reload-rules || true
        udevadm trigger --action=change --subsystem-match=gpio --subsystem-match=i2c-dev || true
    fi
    # Enabled on the first installation only: an upgrade keeps what the administrator chose.
    if [ -z "$2" ]; then
        systemctl enable alarmd.service >/dev/null 2>&1 || true
    fi
    if [ -d /run/systemd/system ]; then
        systemctl daemon-reload
        if [ -z "$2" ]; then
            systemctl start alarmd.service || echo "alarmd did not start; see journalctl -u alarmd" >&2
        else
            systemctl try-restart alarmd.service || echo "alarmd did not restart; see journalctl -u alarmd" >&2
        fi
    fi
fi
EOF
cat >"$package/DEBIAN/prerm" <<'EOF'
#!/bin/sh
set -e
# On removal (not on upgrade: postinst restarts then) stop and disable while the unit still exists.
if [ "$1" = remove ]; then
    if [ -d /run/systemd/system ]; then
        systemctl stop alarmd.service || true
    fi
    systemctl disable alarmd.service >/dev/null 2>&1 || true
fi
EOF
cat >"$package/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
case "$1" in
    remove|purge)
        if [ -d /run/systemd/system ]; then
            systemctl daemon-reload || true
        fi
        ;;
esac
# Purging deletes the alarms and the clients' records; the user and groups stay (Debian never
# removes a system user, whose IDs may still own files).
if [ "$1" = purge ]; then
    rm -rf /var/lib/alarmd
fi
EOF
chmod 0755 "$package/DEBIAN/postinst" "$package/DEBIAN/prerm" "$package/DEBIAN/postrm"

deb=$output/alarmd_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$package" "$deb" >/dev/null
echo "$deb"

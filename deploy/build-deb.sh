#!/bin/sh
# Builds the Debian packages of alarmd:
#
#   deploy/build-deb.sh ARCH [OUTPUT_DIR]
#
# ARCH is Debian's name. This machine's own architecture (`dpkg --print-architecture`) is built
# natively and gives OUTPUT_DIR/alarmd_VERSION_ARCH.deb for the Debian release it runs.
# arm64 on an amd64 machine is cross-built (deploy/cross/, Swift 6.0.3 from Debian trixie, run
# as root) into two packages, one per Debian release, because the binaries link that release's
# libgpiod and glibc:
#   OUTPUT_DIR/alarmd_VERSION_arm64.bookworm.deb   Raspberry Pi OS / Debian 12 bookworm
#   OUTPUT_DIR/alarmd_VERSION_arm64.trixie.deb     Raspberry Pi OS / Debian 13 trixie
# (default OUTPUT_DIR: .build-deb in the checkout). VERSION is the first line of a VERSION file
# at the top of the checkout, else derived from `git describe` (a tag v1.2.3 gives 1.2.3; no tag
# gives 0~gitYYYYMMDD.HASH). The Maintainer field is DEB_MAINTAINER ("Name <address>"; the
# default is a placeholder). Prints the path of each package written.
set -eu

usage() {
    echo "usage: deploy/build-deb.sh ARCH [OUTPUT_DIR]   (ARCH: $(dpkg --print-architecture), or arm64 on amd64)" >&2
    exit 64
}
[ $# -ge 1 ] && [ $# -le 2 ] || usage
arch=$1
host_arch=$(dpkg --print-architecture)
if [ "$arch" = "$host_arch" ]; then
    cross=0
elif [ "$arch" = arm64 ] && [ "$host_arch" = amd64 ]; then
    cross=1
else
    echo "build-deb.sh: this machine builds $host_arch packages, and arm64 ones on amd64; not $arch" >&2
    exit 64
fi

source_dir=$(cd "$(dirname "$0")/.." && pwd)
output=${2:-$source_dir/.build-deb}
mkdir -p "$output"
output=$(cd "$output" && pwd)

if [ $cross = 0 ]; then
    for tool in swift dpkg-deb dpkg-shlibdeps strip; do
        if ! command -v "$tool" >/dev/null 2>&1; then
            echo "build-deb.sh: $tool is missing (apt-get install dpkg-dev binutils; Swift from swift.org)" >&2
            exit 69
        fi
    done
    "$source_dir/deploy/install-build-deps"
fi

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

maintainer=${DEB_MAINTAINER:-alarmd maintainers <alarmd@localhost>}
commit=$(git -C "$source_dir" rev-parse --short HEAD 2>/dev/null || echo unknown)

# build_package BIN_DIR SUITE DEB STRIP SHLIBDEPS_OPTION...: stages the binaries of BIN_DIR and
# every installed file, strips the binaries with STRIP, derives the libraries' dependencies with
# dpkg-shlibdeps (run with the options given) and writes DEB. SUITE names the Debian release the
# package is for ("" for this machine's own).
build_package() {
    bin_dir=$1 suite=$2 deb=$3 strip=$4
    shift 4
    # dpkg-shlibdeps wants a debian/ directory with the package's tree inside it.
    work=$output/work${suite:+-$suite}
    package=$work/debian/alarmd
    rm -rf "$work"
    mkdir -p "$package"
    # trixie has merged /usr, and its packages ship nothing under the /lib alias (dpkg would not
    # know /lib/x and /usr/lib/x are one file); bookworm's systemd and udev still use /lib.
    case ${suite:-$(. /etc/os-release && echo "${VERSION_CODENAME:-}")} in
    bullseye | bookworm) lib=/lib ;;
    *) lib=/usr/lib ;;
    esac
    UNIT_DIR=$lib/systemd/system UDEV_RULES_DIR=$lib/udev/rules.d \
        "$source_dir/deploy/install.sh" --prefix /usr --destdir "$package" --bin-dir "$bin_dir" --quiet
    for program in alarmd alarmctl alarm-web; do
        "$strip" --strip-unneeded --remove-section=.comment --remove-section=.note "$package/usr/bin/$program"
    done

    # A native package's changelog: one entry naming the commit it was built from.
    printf 'alarmd (%s) unstable; urgency=medium\n\n  * Built from commit %s%s.\n\n -- %s  %s\n' \
        "$version" "$commit" "${suite:+ for Debian $suite}" "$maintainer" "$(date -R)" |
        gzip -9n >"$package/usr/share/doc/alarmd/changelog.gz"
    chmod 0644 "$package/usr/share/doc/alarmd/changelog.gz"

    # dpkg-shlibdeps recognises the package's tree by its DEBIAN directory.
    install -d -m 0755 "$package/DEBIAN"
    printf 'Source: alarmd\n\nPackage: alarmd\nArchitecture: any\n' >"$work/debian/control"
    shlibs=$(cd "$work" && dpkg-shlibdeps "$@" -O -e debian/alarmd/usr/bin/alarmd -e debian/alarmd/usr/bin/alarmctl -e debian/alarmd/usr/bin/alarm-web \
        2>"$work/dpkg-shlibdeps.log")
    # Its one warning here is about a tree layout it handles anyway.
    grep -v "binaries to analyze should already be installed" "$work/dpkg-shlibdeps.log" >&2 || true
    shlibs=${shlibs#shlibs:Depends=}
    [ -n "$shlibs" ] || { echo "build-deb.sh: dpkg-shlibdeps found no libraries" >&2; exit 70; }
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
 command-line client; alarm-web serves its page to phones on the home network
 (port 8080), where a browser is let in once paired at the clock's buttons.
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
        systemctl enable alarmd.service alarm-web.service >/dev/null 2>&1 || true
    fi
    if [ -d /run/systemd/system ]; then
        systemctl daemon-reload
        if [ -z "$2" ]; then
            systemctl start alarmd.service || echo "alarmd did not start; see journalctl -u alarmd" >&2
            systemctl start alarm-web.service || echo "alarm-web did not start; see journalctl -u alarm-web" >&2
        else
            systemctl try-restart alarmd.service || echo "alarmd did not restart; see journalctl -u alarmd" >&2
            systemctl try-restart alarm-web.service || echo "alarm-web did not restart; see journalctl -u alarm-web" >&2
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
        systemctl stop alarm-web.service alarmd.service || true
    fi
    systemctl disable alarm-web.service alarmd.service >/dev/null 2>&1 || true
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
# Purging deletes the alarms, the clients' records and the paired browsers; the users and
# groups stay (Debian never removes a system user, whose IDs may still own files).
if [ "$1" = purge ]; then
    rm -rf /var/lib/alarmd /var/lib/alarm-web
fi
EOF
    chmod 0755 "$package/DEBIAN/postinst" "$package/DEBIAN/prerm" "$package/DEBIAN/postrm"

    dpkg-deb --root-owner-group -Zxz --build "$package" "$deb" >/dev/null
    echo "$deb"
}

if [ $cross = 0 ]; then
    # Release binaries with the Swift runtime linked in, so the package needs no Swift toolchain.
    # Time zones come from /usr/share/zoneinfo (tzdata), read by alarmd itself, not from ICU.
    set -- --package-path "$source_dir" --scratch-path "$output/build"
    "$source_dir/deploy/swift-build-release" "$@" --product alarmd
    "$source_dir/deploy/swift-build-release" "$@" --product alarmctl
    "$source_dir/deploy/swift-build-release" "$@" --product alarm-web
    build_package "$("$source_dir/deploy/swift-build-release" "$@" --show-bin-path)" "" \
        "$output/alarmd_${version}_${arch}.deb" strip
    exit 0
fi

# arm64 from amd64: each release's binaries, built against its sysroot. dpkg-shlibdeps reads the
# package database made from the very .debs unpacked in the sysroot (deploy/cross/common.sh),
# finds the libraries in the sysroot's directories, and reads them with aarch64-linux-gnu-objdump.
. "$source_dir/deploy/cross/common.sh"
for suite in bookworm trixie; do
    scratch=$output/build-arm64-$suite
    set -- "$suite" --package-path "$source_dir" --scratch-path "$scratch"
    "$source_dir/deploy/cross/swift-build" "$@" --product alarmd
    "$source_dir/deploy/cross/swift-build" "$@" --product alarmctl
    "$source_dir/deploy/cross/swift-build" "$@" --product alarm-web
    cross_prepare_package_database "$suite"
    DEB_HOST_ARCH=arm64 DEB_HOST_MULTIARCH=aarch64-linux-gnu DEB_HOST_GNU_TYPE=aarch64-linux-gnu \
        build_package "$scratch/build/aarch64-unknown-linux-gnu/release" "$suite" \
        "$output/alarmd_${version}_arm64.$suite.deb" aarch64-linux-gnu-strip \
        --admindir="$cross_targets/dpkg-$suite" \
        -l"$cross_targets/sysroot-$suite/lib/aarch64-linux-gnu" -l"$cross_targets/sysroot-$suite/usr/lib/aarch64-linux-gnu"
done

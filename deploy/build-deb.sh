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
#   OUTPUT_DIR/alarmd_VERSION~deb12_arm64.bookworm.deb   Raspberry Pi OS / Debian 12 bookworm
#   OUTPUT_DIR/alarmd_VERSION~deb13_arm64.trixie.deb     Raspberry Pi OS / Debian 13 trixie
# (default OUTPUT_DIR: .build-deb in the checkout). VERSION is deploy/version's (a VERSION file,
# else `git describe`); each package's version adds its Debian release, ~debN (the native one
# that of this machine's /etc/os-release), so one apt repository holds both arm64 builds and an
# upgrade from bookworm to trixie moves to the trixie build: VERSION~deb12 < VERSION~deb13 <
# VERSION < any later VERSION. The binaries are built with that version (alarmd --version says
# what dpkg -l says). The man pages are generate-manual's (swift-argument-parser) from each
# program's own --experimental-dump-help. The Maintainer field is DEB_MAINTAINER ("Name
# <address>"; the default is a placeholder at the reserved .invalid domain). Prints the path of
# each package written.
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

# The upstream version: VERSION, else a tag, else the commit (deploy/version).
upstream_version=$("$source_dir/deploy/version") || exit
if [ -n "$(git -C "$source_dir" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    echo "build-deb.sh: note: the checkout has uncommitted changes; the package is still called $upstream_version" >&2
fi

# release_suffix [SUITE]: the Debian release's mark on the version, ~debN. A tilde sorts before
# everything, so VERSION~deb12 < VERSION~deb13 < VERSION, and an upgrade of the release (and of
# its apt suite) upgrades the package; each sorts before the next upstream version, including
# a later commit's VERSION+N.gHASH. Without SUITE, this machine's release (/etc/os-release): a
# release that is not Debian's gets ~IDVERSION_ID (~ubuntu24.04), testing or sid (no VERSION_ID)
# none.
release_suffix() {
    case ${1:-} in
    bookworm) echo "~deb12" ;;
    trixie) echo "~deb13" ;;
    *)
        (
            . /etc/os-release
            [ -n "${VERSION_ID:-}" ] || exit 0
            case ${ID:-} in
            debian | raspbian) echo "~deb$VERSION_ID" ;;
            *) echo "~${ID:-}$VERSION_ID" ;;
            esac
        )
        ;;
    esac
}

maintainer=${DEB_MAINTAINER:-alarmd maintainers <alarmd@alarmd.invalid>}
commit=$(git -C "$source_dir" rev-parse --short HEAD 2>/dev/null || echo unknown)
# The man pages' date: the commit's, so that a package built again from it is the same.
manual_date=$(git -C "$source_dir" log -1 --format=%cd --date=format:%Y-%m-%d 2>/dev/null || date -u +%Y-%m-%d)

# generate_manuals BIN_DIR DEST_DIR [RUNNER...]: writes DEST_DIR/PROGRAM.1.gz for alarmd,
# alarmctl and alarm-web with generate-manual, the tool behind swift-argument-parser's
# GenerateManual plugin, which renders a program's own `--experimental-dump-help` as mdoc.
# The plugin itself (`swift package plugin generate-manual`) builds every product of the package
# again in a configuration of its own; the tool run on BIN_DIR's programs describes exactly
# the binaries packaged. RUNNER runs a program of another architecture (qemu-aarch64-static -L
# SYSROOT); the tool itself is built for this machine once, in OUTPUT_DIR/build.
generate_manuals() {
    bin_dir=$1 dest=$2
    shift 2
    if [ -z "${generate_manual:-}" ]; then
        swift build --package-path "$source_dir" --scratch-path "$output/build" --product generate-manual >&2
        generate_manual=$(swift build --package-path "$source_dir" --scratch-path "$output/build" --show-bin-path)/generate-manual
    fi
    pages=$work/man-pages
    rm -rf "$pages"
    mkdir -p "$pages" "$dest"
    for program in alarmd alarmctl alarm-web alarm-mqtt; do
        # generate-manual runs the tool it names; a wrapper runs it through RUNNER.
        printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$*" "$bin_dir/$program" >"$pages/$program"
        chmod 0755 "$pages/$program"
        "$generate_manual" "$pages/$program" --date "$manual_date" --output-directory "$pages" >&2
        gzip -9n <"$pages/$program.1" >"$dest/$program.1.gz"
        chmod 0644 "$dest/$program.1.gz"
    done
    rm -rf "$pages"
}

# build_package BIN_DIR SUITE VERSION DEB STRIP RUNNER SHLIBDEPS_OPTION...: stages the binaries
# of BIN_DIR and every installed file, strips the binaries with STRIP, generates their man pages
# (running them through RUNNER, "" for none), derives the libraries' dependencies with
# dpkg-shlibdeps (run with the options given) and writes DEB. SUITE names the Debian release the
# package is for ("" for this machine's own).
build_package() {
    bin_dir=$1 suite=$2 version=$3 deb=$4 strip=$5 runner=$6
    shift 6
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
    for program in alarmd alarmctl alarm-web alarm-mqtt; do
        "$strip" --strip-unneeded --remove-section=.comment --remove-section=.note "$package/usr/bin/$program"
    done
    # shellcheck disable=SC2086 # RUNNER is words
    generate_manuals "$package/usr/bin" "$package/usr/share/man/man1" $runner

    # A native package's changelog: one entry naming the commit it was built from.
    printf 'alarmd (%s) unstable; urgency=medium\n\n  * Built from commit %s%s.\n\n -- %s  %s\n' \
        "$version" "$commit" "${suite:+ for Debian $suite}" "$maintainer" "$(date -R)" |
        gzip -9n >"$package/usr/share/doc/alarmd/changelog.gz"
    chmod 0644 "$package/usr/share/doc/alarmd/changelog.gz"

    # dpkg-shlibdeps recognises the package's tree by its DEBIAN directory.
    install -d -m 0755 "$package/DEBIAN"
    printf 'Source: alarmd\n\nPackage: alarmd\nArchitecture: any\n' >"$work/debian/control"
    shlibs=$(cd "$work" && dpkg-shlibdeps "$@" -O -e debian/alarmd/usr/bin/alarmd -e debian/alarmd/usr/bin/alarmctl -e debian/alarmd/usr/bin/alarm-web \
        -e debian/alarmd/usr/bin/alarm-mqtt \
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
 (port 8080), where a browser is let in once paired at the clock's buttons;
 alarm-mqtt (off until configured) shows the clock in Home Assistant over MQTT.
EOF
    printf '/etc/alarmd/alarmd.toml\n/etc/alarmd/alarm-mqtt.toml\n' >"$package/DEBIAN/conffiles"

    # The maintainer scripts handle the units as debhelper's dh_installsystemd would: enabling
    # through deb-systemd-helper (whose state file remembers an administrator's `systemctl
    # disable` across upgrades, and which works without systemd running, in a chroot or an
    # image), starting and stopping through deb-systemd-invoke (which honours policy-rc.d and
    # leaves a disabled unit stopped). Both come from init-system-helpers (Essential: yes).
    cat >"$package/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
    systemd-sysusers alarmd.conf
    systemd-tmpfiles --create alarmd.conf || true
    if command -v udevadm >/dev/null 2>&1 && [ -d /run/udev ]; then
        udevadm control --reload-rules || true
        udevadm trigger --action=change --subsystem-match=gpio --subsystem-match=i2c-dev --subsystem-match=pwm || true
    fi
fi
if [ "$1" = configure ] || [ "$1" = abort-upgrade ] || [ "$1" = abort-deconfigure ] || [ "$1" = abort-remove ]; then
    for unit in alarmd.service alarm-web.service; do
        # was-enabled is true on the first installation, false once the administrator disabled it.
        if deb-systemd-helper --quiet was-enabled "$unit"; then
            deb-systemd-helper enable "$unit" >/dev/null || true
        else
            deb-systemd-helper update-state "$unit" >/dev/null || true
        fi
    done
    # The MQTT bridge is never enabled here: it needs a broker (/etc/alarmd/alarm-mqtt.toml).
    deb-systemd-helper update-state alarm-mqtt.service >/dev/null || true
    if [ -d /run/systemd/system ]; then
        systemctl --system daemon-reload >/dev/null || true
        # After an upgrade the running services take the new binaries.
        if [ -n "$2" ]; then action=restart; else action=start; fi
        deb-systemd-invoke "$action" alarmd.service || echo "alarmd did not $action; see journalctl -u alarmd" >&2
        deb-systemd-invoke "$action" alarm-web.service || echo "alarm-web did not $action; see journalctl -u alarm-web" >&2
        if [ -n "$2" ]; then deb-systemd-invoke try-restart alarm-mqtt.service || true; fi
    fi
fi
EOF
    cat >"$package/DEBIAN/prerm" <<'EOF'
#!/bin/sh
set -e
# On removal (not on upgrade: postinst restarts then) the services stop while their units exist.
if [ -z "${DPKG_ROOT:-}" ] && [ "$1" = remove ] && [ -d /run/systemd/system ]; then
    deb-systemd-invoke stop alarm-mqtt.service alarm-web.service alarmd.service >/dev/null || true
fi
EOF
    cat >"$package/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
case "$1" in
    remove|purge)
        if [ -d /run/systemd/system ]; then
            systemctl --system daemon-reload >/dev/null || true
        fi
        ;;
esac
# Removed, the units keep their enablement for a reinstallation (with no unit file there is
# nothing to start, and no init script to mask); purged, it is forgotten, unless
# init-system-helpers went first.
if [ "$1" = purge ] && command -v deb-systemd-helper >/dev/null; then
    deb-systemd-helper purge alarmd.service alarm-web.service alarm-mqtt.service >/dev/null || true
fi
# Purging deletes the alarms, the clients' records and the paired browsers; the users and
# groups stay (Debian never removes a system user, whose IDs may still own files).
if [ "$1" = purge ]; then
    rm -rf /var/lib/alarmd /var/lib/alarm-web
fi
EOF
    chmod 0755 "$package/DEBIAN/postinst" "$package/DEBIAN/prerm" "$package/DEBIAN/postrm"

    # What dh_md5sums writes: `debsums` and `dpkg --verify` check the installed files against it.
    (cd "$package" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort | xargs -d '\n' md5sum) \
        >"$package/DEBIAN/md5sums"
    chmod 0644 "$package/DEBIAN/md5sums"

    dpkg-deb --root-owner-group -Zxz --build "$package" "$deb" >/dev/null
    echo "$deb"
}

if [ $cross = 0 ]; then
    # Release binaries with the Swift runtime linked in, so the package needs no Swift toolchain.
    # Time zones come from /usr/share/zoneinfo (tzdata), read by alarmd itself, not from ICU.
    # ALARMD_VERSION: the version the programs report (Plugins/VersionPlugin).
    version=$upstream_version$(release_suffix)
    export ALARMD_VERSION="$version"
    set -- --package-path "$source_dir" --scratch-path "$output/build"
    "$source_dir/deploy/swift-build-release" "$@" --product alarmd
    "$source_dir/deploy/swift-build-release" "$@" --product alarmctl
    "$source_dir/deploy/swift-build-release" "$@" --product alarm-web
    "$source_dir/deploy/swift-build-release" "$@" --product alarm-mqtt
    build_package "$("$source_dir/deploy/swift-build-release" "$@" --show-bin-path)" "" "$version" \
        "$output/alarmd_${version}_${arch}.deb" strip ""
    exit 0
fi

# arm64 from amd64: each release's binaries, built against its sysroot. dpkg-shlibdeps reads the
# package database made from the very .debs unpacked in the sysroot (deploy/cross/common.sh),
# finds the libraries in the sysroot's directories, and reads them with aarch64-linux-gnu-objdump.
. "$source_dir/deploy/cross/common.sh"
cross_host_tools
qemu=$(command -v qemu-aarch64-static)
for suite in bookworm trixie; do
    scratch=$output/build-arm64-$suite
    version=$upstream_version$(release_suffix "$suite")
    export ALARMD_VERSION="$version"
    set -- "$suite" --package-path "$source_dir" --scratch-path "$scratch"
    "$source_dir/deploy/cross/swift-build" "$@" --product alarmd
    "$source_dir/deploy/cross/swift-build" "$@" --product alarmctl
    "$source_dir/deploy/cross/swift-build" "$@" --product alarm-web
    "$source_dir/deploy/cross/swift-build" "$@" --product alarm-mqtt
    cross_prepare_package_database "$suite"
    DEB_HOST_ARCH=arm64 DEB_HOST_MULTIARCH=aarch64-linux-gnu DEB_HOST_GNU_TYPE=aarch64-linux-gnu \
        build_package "$scratch/build/aarch64-unknown-linux-gnu/release" "$suite" "$version" \
        "$output/alarmd_${version}_arm64.$suite.deb" aarch64-linux-gnu-strip "$qemu -L $cross_targets/sysroot-$suite" \
        --admindir="$cross_targets/dpkg-$suite" \
        -l"$cross_targets/sysroot-$suite/lib/aarch64-linux-gnu" -l"$cross_targets/sysroot-$suite/usr/lib/aarch64-linux-gnu"
done

#!/bin/sh
# Installs alarmd from a source checkout: builds the release binaries, installs them with the
# unit, the sysusers/tmpfiles/udev files, the configuration, the board profiles and the docs,
# then creates the user, reloads systemd and enables and starts the service.
#
#   deploy/install.sh [--prefix DIR] [--destdir DIR] [--bin-dir DIR] [--no-start]
#
#   --prefix DIR   where programs and data go (default /usr). /etc/alarmd is always /etc.
#   --destdir DIR  stage everything under DIR instead of / (also DESTDIR=DIR); nothing on the
#                  running system is touched then (no user, no systemctl).
#   --bin-dir DIR  take alarmd, alarmctl, alarm-web and alarm-mqtt from DIR instead of building them.
#   --no-start     install and enable, but do not start or restart the service.
#   --quiet        no notes on stderr (errors still go there).
#
# An existing /etc/alarmd/alarmd.toml (or alarm-mqtt.toml) is kept; the new default goes next to
# it as alarmd.toml.new (alarm-mqtt.toml.new). alarm-mqtt.service is installed but not enabled (it needs a broker). deploy/build-deb.sh uses this script to stage the Debian package.
set -eu

prefix=/usr
destdir=${DESTDIR:-}
bin_dir=
start=yes
quiet=no
# Overridable for the Debian package, whose unit and udev rule go to /lib (bookworm's layout).
unit_dir=${UNIT_DIR:-}
udev_dir=${UDEV_RULES_DIR:-}

while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
        --prefix=*) prefix=${1#*=}; shift ;;
        --destdir) destdir=${2:?--destdir needs a directory}; shift 2 ;;
        --destdir=*) destdir=${1#*=}; shift ;;
        --bin-dir) bin_dir=${2:?--bin-dir needs a directory}; shift 2 ;;
        --bin-dir=*) bin_dir=${1#*=}; shift ;;
        --no-start) start=no; shift ;;
        --quiet) quiet=yes; shift ;;
        -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown argument \"$1\" (see --help)" >&2; exit 64 ;;
    esac
done
case "$prefix" in /*) ;; *) echo "install.sh: --prefix must be an absolute path, not \"$prefix\"" >&2; exit 64 ;; esac
prefix=${prefix%/}
[ -n "$prefix" ] || prefix=/usr
unit_dir=${unit_dir:-$prefix/lib/systemd/system}
udev_dir=${udev_dir:-$prefix/lib/udev/rules.d}

note() {
    [ "$quiet" = yes ] || echo "install.sh: $*" >&2
}

source_dir=$(cd "$(dirname "$0")/.." && pwd)
deploy=$source_dir/deploy

if [ -z "$bin_dir" ]; then
    "$deploy/install-build-deps"
    # Release, static Swift standard library, no $ORIGIN run path: see deploy/swift-build-release.
    set -- --package-path "$source_dir" --scratch-path "$source_dir/.build-release"
    "$deploy/swift-build-release" "$@" --product alarmd
    "$deploy/swift-build-release" "$@" --product alarmctl
    "$deploy/swift-build-release" "$@" --product alarm-web
    "$deploy/swift-build-release" "$@" --product alarm-mqtt
    bin_dir=$("$deploy/swift-build-release" "$@" --show-bin-path)
fi
for program in alarmd alarmctl alarm-web alarm-mqtt; do
    [ -x "$bin_dir/$program" ] || { echo "install.sh: $bin_dir/$program is missing" >&2; exit 66; }
done

root=${destdir%/}
share=$prefix/share/alarmd
doc=$prefix/share/doc/alarmd

install -D -m 0755 "$bin_dir/alarmd" "$root$prefix/bin/alarmd"
install -D -m 0755 "$bin_dir/alarmctl" "$root$prefix/bin/alarmctl"
install -D -m 0755 "$bin_dir/alarm-web" "$root$prefix/bin/alarm-web"
install -D -m 0755 "$bin_dir/alarm-mqtt" "$root$prefix/bin/alarm-mqtt"
# The unit names the binary by path: follow the prefix.
install -d -m 0755 "$root$unit_dir"
sed "s|^ExecStart=/usr/bin/alarmd |ExecStart=$prefix/bin/alarmd |" "$deploy/alarmd.service" >"$root$unit_dir/alarmd.service"
chmod 0644 "$root$unit_dir/alarmd.service"
sed -e "s|^ExecStart=/usr/bin/alarm-web |ExecStart=$prefix/bin/alarm-web |" -e "s|--files /usr/share/alarmd/web|--files $share/web|" \
    "$deploy/alarm-web.service" >"$root$unit_dir/alarm-web.service"
chmod 0644 "$root$unit_dir/alarm-web.service"
sed "s|^ExecStart=/usr/bin/alarm-mqtt |ExecStart=$prefix/bin/alarm-mqtt |" "$deploy/alarm-mqtt.service" >"$root$unit_dir/alarm-mqtt.service"
chmod 0644 "$root$unit_dir/alarm-mqtt.service"
for file in "$source_dir"/web/*; do
    install -D -m 0644 "$file" "$root$share/web/$(basename "$file")"
done
install -D -m 0644 "$deploy/alarmd.sysusers" "$root$prefix/lib/sysusers.d/alarmd.conf"
install -D -m 0644 "$deploy/alarmd.tmpfiles" "$root$prefix/lib/tmpfiles.d/alarmd.conf"
install -D -m 0644 "$deploy/alarmd.udev" "$root$udev_dir/60-alarmd.rules"
for profile in "$source_dir"/board/*.toml; do
    install -D -m 0644 "$profile" "$root$share/boards/$(basename "$profile")"
done
install -D -m 0644 "$deploy/sounds-README" "$root$share/sounds/README"
install -D -m 0644 "$source_dir/README.md" "$root$doc/README.md"
# The manual beside the README, as in the source, so the README's links to docs/ hold.
for file in "$source_dir"/docs/*.md; do
    install -D -m 0644 "$file" "$root$doc/docs/$(basename "$file")"
done
install -D -m 0644 "$source_dir/board/README.md" "$root$doc/boards.md"
install -D -m 0644 "$deploy/README.md" "$root$doc/deploy.md"
install -D -m 0644 "$deploy/copyright" "$root$doc/copyright"

# The configuration: the documented defaults; under another prefix the data directories are
# written out, since the built-in defaults are under /usr.
config=$(mktemp)
trap 'rm -f "$config"' EXIT
if [ "$prefix" = /usr ]; then
    cp "$deploy/alarmd.toml" "$config"
else
    sed -e "s|^#boards_directory = .*|boards_directory = \"$share/boards\"|" \
        -e "s|^#sounds_directory = .*|sounds_directory = \"$share/sounds\"|" "$deploy/alarmd.toml" >"$config"
fi
install -d -m 0755 "$root/etc/alarmd"
if [ -e "$root/etc/alarmd/alarmd.toml" ] && ! cmp -s "$config" "$root/etc/alarmd/alarmd.toml"; then
    install -m 0644 "$config" "$root/etc/alarmd/alarmd.toml.new"
    note "kept $root/etc/alarmd/alarmd.toml; the new default is alarmd.toml.new next to it"
else
    install -m 0644 "$config" "$root/etc/alarmd/alarmd.toml"
fi

if [ -e "$root/etc/alarmd/alarm-mqtt.toml" ] && ! cmp -s "$deploy/alarm-mqtt.toml" "$root/etc/alarmd/alarm-mqtt.toml"; then
    install -m 0644 "$deploy/alarm-mqtt.toml" "$root/etc/alarmd/alarm-mqtt.toml.new"
    note "kept $root/etc/alarmd/alarm-mqtt.toml; the new default is alarm-mqtt.toml.new next to it"
else
    install -m 0644 "$deploy/alarm-mqtt.toml" "$root/etc/alarmd/alarm-mqtt.toml"
fi

if [ -n "$root" ]; then
    note "staged under $root; on the target run: systemd-sysusers alarmd.conf," \
        "systemd-tmpfiles --create alarmd.conf, systemctl daemon-reload, systemctl enable --now alarmd alarm-web"
    exit 0
fi

systemd-sysusers alarmd.conf
systemd-tmpfiles --create alarmd.conf
if command -v udevadm >/dev/null 2>&1 && [ -d /run/udev ]; then
    udevadm control --reload-rules || true
    udevadm trigger --action=change --subsystem-match=gpio --subsystem-match=i2c-dev --subsystem-match=pwm || true
fi
systemctl enable alarmd.service alarm-web.service
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload
    if [ "$start" = yes ]; then
        systemctl restart alarmd.service || echo "install.sh: alarmd did not start; see journalctl -u alarmd" >&2
        systemctl restart alarm-web.service || echo "install.sh: alarm-web did not start; see journalctl -u alarm-web" >&2
        systemctl try-restart alarm-mqtt.service || echo "install.sh: alarm-mqtt did not restart; see journalctl -u alarm-mqtt" >&2
    fi
else
    note "systemd is not running here; alarmd starts at the next boot"
fi

# The arm64 cross toolchain, made on an x86-64 Debian bookworm machine from Debian's own
# packages. Sourced by deploy/cross/swift-build, deploy/build-deb.sh and
# Tests/Integration/run-arm64-user; see deploy/README.md, "Building for arm64".
#
# Everything is cached in $ALARMD_CROSS_CACHE (default ~/.cache/alarmd/cross, outside the clone)
# and made again when missing or when its recipe below changes:
#   compiler/          a Debian trixie amd64 root with trixie's swiftlang 6.0.3 and lld-19: the
#                      compiler needs glibc 2.38, which bookworm does not have, so it runs there
#                      (chroot, in a mount namespace of its own)
#   targets/           bound into that root at the same path, so paths agree inside and out:
#     apt/SUITE/       private apt state for arm64 SUITE (lists, caches; never the system's)
#     swift-arm64/     the arm64 Swift runtime and modules from trixie's swiftlang/libswiftlang
#     sysroot-SUITE/   arm64 Debian SUITE's C libraries and headers (mmdebstrap --variant=extract)
#     dpkg-SUITE/      a dpkg database of the sysroot's packages, for dpkg-shlibdeps (Depends:)
#     sdk-SUITE/       the Swift SDK bundle (info.json, swift-sdk.json, toolset.json)
#     packages/        dependencies lowered to what Swift 6.0.3 accepts, and SwiftPM's mirrors
#     runtime-SUITE-*/ arm64 roots of a package's Depends, for qemu-aarch64-static -L
# Root only (chroot, mount namespaces, mmdebstrap).

cross_cache=${ALARMD_CROSS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/alarmd/cross}
cross_targets=$cross_cache/targets
cross_here=$(cd "$(dirname "$0")" && pwd)

# The Debian suites a package is built for, and what differs between them.
cross_check_suite() {
    case "$1" in
    bookworm | trixie) ;;
    *) echo "cross: unknown suite \"$1\" (bookworm or trixie)" >&2; exit 64 ;;
    esac
}
cross_gcc_version() { [ "$1" = bookworm ] && echo 12 || echo 14; }

cross_note() { echo "cross: $*" >&2; }

# The Debian mirror the system already uses (deb822 "URIs:" or one-line "deb URL suite").
cross_mirror() {
    local mirror
    mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
        awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }')
    [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' \
        /etc/apt/sources.list 2>/dev/null || true)
    echo "${mirror:-http://deb.debian.org/debian}"
}

# Host tools: mmdebstrap (the roots), qemu-user-static (running arm64 programs), rsync (the
# source copy), binutils-aarch64-linux-gnu (strip, readelf), dpkg-dev (packaging), curl (the
# arm64 phone page's check in Tests/Integration/run-arm64-user).
cross_host_tools() {
    local missing package
    missing=
    for package in mmdebstrap qemu-user-static rsync binutils-aarch64-linux-gnu dpkg-dev curl; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' ||
            missing="$missing $package"
    done
    [ -z "$missing" ] && return 0
    [ "$(id -u)" = 0 ] || { echo "cross: run as root (missing host packages:$missing)" >&2; exit 77; }
    cross_note "installing$missing"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null; }
}

# A directory is made in DIR.tmp and renamed when complete, with its recipe in DIR/.recipe:
# an interrupted run leaves nothing that looks finished, and a changed recipe remakes it.
cross_is_current() { [ "$(cat "$1/.recipe" 2>/dev/null)" = "$2" ]; }
cross_finish() {  # DIR RECIPE
    echo "$2" >"$1.tmp/.recipe"
    rm -rf "$1"
    mv "$1.tmp" "$1"
}

# apt-get for arm64 SUITE with private lists and caches (never the system's apt state).
cross_apt() {  # SUITE APT-GET-ARGUMENTS...
    local suite state
    suite=$1; shift
    state=$cross_targets/apt/$suite
    mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/parts"
    echo "deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(cross_mirror) $suite main" \
        >"$state/sources.list"
    apt-get -o Dir::Etc::sourcelist="$state/sources.list" -o Dir::Etc::sourceparts="$state/parts" \
        -o Dir::State::Lists="$state/lists" -o Dir::Cache="$state/cache" -o Dir::State::status=/dev/null \
        -o APT::Architecture=arm64 -o APT::Architectures=arm64 -o APT::Sandbox::User=root -qq "$@"
}
# The lists are refreshed when missing or a day old (a point release moves versions).
cross_apt_update() {  # SUITE
    local lists
    lists=$cross_targets/apt/$1/lists
    if [ -z "$(find "$lists" -maxdepth 1 -name '*_Packages*' -mtime -1 2>/dev/null | head -n 1)" ]; then
        cross_apt "$1" update
    fi
}

# The compiler's root: trixie amd64 with swiftlang 6.0.3 (the Swift compiler, SwiftPM and the
# amd64 runtime the manifests are compiled against), lld-19 (the arm64 linker: swiftlang's own
# lld 17 is an assertions build), git (SwiftPM's checkouts), pkg-config, and the amd64 C
# development files the manifests link with.
cross_compiler_recipe="1 trixie swiftlang=6.0.3* lld-19 git pkg-config ca-certificates libc6-dev libgcc-14-dev libstdc++-14-dev"
cross_prepare_compiler() {
    local root version
    root=$cross_cache/compiler
    cross_is_current "$root" "$cross_compiler_recipe" && return 0
    cross_note "making the compiler's root (trixie amd64, swiftlang 6.0.3): about a minute"
    rm -rf "$root.tmp"
    mmdebstrap --quiet --variant=apt \
        --include=swiftlang,libswiftlang,lld-19,git,pkg-config,ca-certificates,libc6-dev,libgcc-14-dev,libstdc++-14-dev \
        trixie "$root.tmp" "$(cross_mirror)" >&2
    version=$(chroot "$root.tmp" dpkg-query -W -f='${Version}' swiftlang)
    case $version in
    6.0.3*) ;;
    *) echo "cross: trixie's swiftlang is $version, not 6.0.3: the recipe needs a look" >&2; exit 70 ;;
    esac
    cross_finish "$root" "$cross_compiler_recipe"
}

# The arm64 Swift runtime (shared and static), its modules and clang's resource directory, from
# trixie's arm64 swiftlang and libswiftlang: the compiler and the runtime must be one version.
cross_swift_recipe="1 swiftlang libswiftlang 6.0.3"
cross_prepare_swift_runtime() {
    local dir deb lib
    dir=$cross_targets/swift-arm64
    cross_is_current "$dir" "$cross_swift_recipe" && return 0
    cross_note "fetching the arm64 Swift runtime (trixie swiftlang 6.0.3, 400 MB)"
    rm -rf "$dir.tmp"
    mkdir -p "$dir.tmp/debs" "$dir.tmp/unpacked"
    cross_apt_update trixie
    (cd "$dir.tmp/debs" && cross_apt trixie download swiftlang:arm64 libswiftlang:arm64)
    for deb in "$dir.tmp"/debs/*.deb; do
        case $(dpkg-deb -f "$deb" Version) in 6.0.3*) ;; *) echo "cross: $deb is not 6.0.3" >&2; exit 70 ;; esac
        dpkg-deb -x "$deb" "$dir.tmp/unpacked"
    done
    lib=$dir.tmp/unpacked/usr/libexec/swift/lib
    mv "$lib/swift" "$lib/swift_static" "$lib/clang" "$dir.tmp/"
    rm -rf "$dir.tmp/debs" "$dir.tmp/unpacked"
    cross_finish "$dir" "$cross_swift_recipe"
}

# The arm64 sysroot of SUITE: the C libraries and headers alarmd links against, unpacked from
# Debian's packages without running anything (--variant=extract); base-files for trixie's
# merged-/usr links (/lib -> usr/lib), which its linker scripts go through. The .debs are kept,
# for the package database below.
cross_sysroot_recipe() { echo "7 $1 base-files libc6-dev libgcc-$(cross_gcc_version "$1")-dev libstdc++-$(cross_gcc_version "$1")-dev libasound2-dev libgpiod-dev libsndfile1-dev libmosquitto-dev"; }
cross_prepare_sysroot() {  # SUITE
    local dir recipe gcc link target
    dir=$cross_targets/sysroot-$1
    recipe=$(cross_sysroot_recipe "$1")
    cross_is_current "$dir" "$recipe" && return 0
    cross_note "making the arm64 $1 sysroot"
    rm -rf "$dir.tmp"
    gcc=$(cross_gcc_version "$1")
    mmdebstrap --quiet --variant=extract --architectures=arm64 --skip=cleanup/apt/cache \
        --include="base-files,libc6-dev,libgcc-$gcc-dev,libstdc++-$gcc-dev,libasound2-dev,libgpiod-dev,libsndfile1-dev,libmosquitto-dev" \
        "$1" "$dir.tmp" "$(cross_mirror)" >&2
    # Absolute symlinks (bookworm's libm.so -> /lib/aarch64-linux-gnu/libm.so.6) would point at
    # the build machine's own libraries; the linker then silently takes libm.a instead.
    find "$dir.tmp" -type l -lname '/*' | while read -r link; do
        target=$(readlink "$link")
        ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$dir.tmp$target")" "$link"
    done
    cross_finish "$dir" "$recipe"
}

# The package database of what the sysroot of SUITE holds, for dpkg-shlibdeps --admindir (how
# deploy/build-deb.sh derives Depends:): each package's status, its files as paths inside the
# sysroot (where dpkg-shlibdeps finds the libraries) and its shlibs and symbols control files.
cross_database_recipe="1"
cross_prepare_package_database() {  # SUITE
    local dir sysroot recipe deb package name control file
    dir=$cross_targets/dpkg-$1
    sysroot=$cross_targets/sysroot-$1
    recipe="$cross_database_recipe $(cat "$sysroot/.recipe")"
    cross_is_current "$dir" "$recipe" && return 0
    rm -rf "$dir.tmp"
    mkdir -p "$dir.tmp/info" "$dir.tmp/updates"
    echo 1 >"$dir.tmp/info/format"     # the multiarch layout: info/PACKAGE:ARCH.* for Multi-Arch: same
    : >"$dir.tmp/status"
    for deb in "$sysroot"/var/cache/apt/archives/*.deb; do
        package=$(dpkg-deb -f "$deb" Package)
        name=$package
        [ "$(dpkg-deb -f "$deb" Multi-Arch)" = same ] && name=$package:$(dpkg-deb -f "$deb" Architecture)
        { dpkg-deb -f "$deb"; echo "Status: install ok installed"; echo; } >>"$dir.tmp/status"
        dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -e 's|^\./|/|' -e 's|/$||' -e '/^\.$/d' |
            sed "s|^|$sysroot|" >"$dir.tmp/info/$name.list"
        control=$(mktemp -d)
        dpkg-deb -e "$deb" "$control"
        for file in shlibs symbols; do
            if [ -f "$control/$file" ]; then cp "$control/$file" "$dir.tmp/info/$name.$file"; fi
        done
        rm -rf "$control"
    done
    cross_finish "$dir" "$recipe"
}

# glibc 2.38's symbols that Debian's static Swift runtime (built on trixie) refers to, for a
# bookworm (glibc 2.36) sysroot: C23's strtol/strtoll/sscanf, which differ from the older ones
# only in reading "0b" binary prefixes (never in what Swift's runtime parses), and strlcpy.
cross_compat_recipe() { echo "1 $(sha256sum <"$cross_here/glibc-2.38-compat.c" | cut -c1-16)"; }

# The Swift SDK bundle for SUITE: the sysroot, the arm64 Swift runtime, lld-19 as the linker and,
# on bookworm, the compatibility archive above.
cross_prepare_sdk() {  # SUITE
    local dir recipe bundle linker_options
    dir=$cross_targets/sdk-$1
    recipe="2 $(cross_sysroot_recipe "$1") $cross_swift_recipe $(cross_compat_recipe)"
    cross_is_current "$dir" "$recipe" && return 0
    rm -rf "$dir.tmp"
    bundle=$dir.tmp/alarmd-arm64-$1.artifactbundle
    mkdir -p "$bundle/sdk"
    ln -s "$cross_targets/sysroot-$1" "$bundle/sdk/sysroot"
    ln -s "$cross_targets/swift-arm64/swift" "$bundle/sdk/swift"
    ln -s "$cross_targets/swift-arm64/swift_static" "$bundle/sdk/swift_static"
    ln -s "$cross_targets/swift-arm64/clang" "$bundle/sdk/clang"
    cat >"$bundle/info.json" <<JSON
{ "schemaVersion": "1.0",
  "artifacts": { "alarmd-arm64-$1": { "type": "swiftSDK", "version": "1",
    "variants": [ { "path": "sdk", "supportedTriples": [ "x86_64-pc-linux-gnu", "x86_64-unknown-linux-gnu" ] } ] } } }
JSON
    cat >"$bundle/sdk/swift-sdk.json" <<JSON
{ "schemaVersion": "4.0",
  "targetTriples": { "aarch64-unknown-linux-gnu": {
    "sdkRootPath": "sysroot", "swiftResourcesPath": "swift", "swiftStaticResourcesPath": "swift_static",
    "toolsetPaths": [ "toolset.json" ] } } }
JSON
    linker_options=
    if [ "$1" = bookworm ]; then
        mkdir -p "$dir.tmp/compat"
        cross_in_compiler clang --target=aarch64-linux-gnu --sysroot="$cross_targets/sysroot-$1" -O2 -fPIC \
            -c "$cross_targets/glibc-2.38-compat.c" -o "$dir.tmp/compat/glibc-2.38-compat.o"
        # lld takes an archive's members wherever it stands on the command line.
        cross_in_compiler llvm-ar rcs "$dir.tmp/compat/libglibc-2.38-compat.a" "$dir.tmp/compat/glibc-2.38-compat.o"
        linker_options="\"$dir/compat/libglibc-2.38-compat.a\""
    fi
    cat >"$bundle/sdk/toolset.json" <<JSON
{ "schemaVersion": "1.0",
  "swiftCompiler": { "extraCLIOptions": [ "-use-ld=lld" ] },
  "linker": { "path": "/usr/bin/ld.lld-19", "extraCLIOptions": [ $linker_options ] } }
JSON
    cross_finish "$dir" "$recipe"
}

# Runs COMMAND in the compiler's root, in a mount namespace of its own (the mounts vanish with
# it): /proc, /dev, and each path of $cross_binds at the same path inside as outside. Of the
# environment only the pkg-config variables and ALARMD_VERSION (the version the programs report,
# Plugins/VersionPlugin) go in.
cross_in_compiler() {  # COMMAND...
    CROSS_BINDS="$cross_targets ${cross_binds:-}" unshare --mount --propagation private --fork sh -c '
        set -e
        root=$1; shift
        mount -t proc proc "$root/proc"
        mount --rbind /dev "$root/dev"
        for path in $CROSS_BINDS; do
            mkdir -p "$root$path"
            mount --rbind "$path" "$root$path"
        done
        cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
        exec chroot "$root" env -i PATH=/usr/libexec/swift/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
            ${ALARMD_VERSION:+ALARMD_VERSION=$ALARMD_VERSION} \
            ${PKG_CONFIG_SYSROOT_DIR:+PKG_CONFIG_SYSROOT_DIR=$PKG_CONFIG_SYSROOT_DIR} \
            ${PKG_CONFIG_LIBDIR:+PKG_CONFIG_LIBDIR=$PKG_CONFIG_LIBDIR PKG_CONFIG_PATH=$PKG_CONFIG_LIBDIR} "$@"' \
        sh "$cross_cache/compiler" "$@"
}

# Git's URL rewrites (this machine reads github.com from a local mirror) hold in the compiler's
# root too, with the local directories they name bound in.
cross_git_config() {  # prints the local directories to bind
    local key value base
    : >"$cross_cache/compiler/root/.gitconfig"
    git config --get-regexp '^url\..*\.insteadof$' 2>/dev/null | while read -r key value; do
        base=${key#url.}; base=${base%.insteadof}
        git config --file "$cross_cache/compiler/root/.gitconfig" --add "url.$base.insteadOf" "$value"
        if [ -d "$base" ]; then echo "${base%/}"; fi
    done | sort -u
}

# Swift 6.0.3 rejects what swift-log 1.16.2 and swift-service-lifecycle 2.13.0 (the versions
# this project depends on) write with Swift 6.1 and 6.2: tools-version 6.2 manifests with package
# traits, `nonisolated(nonsending)`, `_runtime(_multithreaded)`, trailing commas in argument
# lists, and (service-lifecycle) a return across isolation that 6.0's checker refuses in Swift 6
# mode. Each is cloned at its tag, rewritten mechanically, committed with fixed dates (the same
# commit every time, so Package.resolved stays valid) and re-tagged; SwiftPM reaches the copies
# through mirrors (--config-path). Behaviour is unchanged: the rewrites drop an attribute that
# only moves where an async function runs, a platform test for single-threaded WebAssembly,
# and commas; the manifests keep the products this project uses, in Swift 5 mode for
# service-lifecycle.
cross_packages_recipe=3
cross_lower_sources() {  # DIR
    find "$1" -name '*.swift' -exec perl -0pi -e '
        s/nonisolated\(nonsending\)\s+//g;
        s/_runtime\(_multithreaded\)/!os(WASI)/g;
        s/,(\s*\n\s*\))/$1/g;
    ' {} +
}
cross_lower_package() {  # URL VERSION NAME MANIFEST
    local repo
    repo=$dir.tmp/$3.git
    git -c advice.detachedHead=false clone -q --branch "$2" "$1" "$repo"
    cross_lower_sources "$repo/Sources"
    printf '%s\n' "$4" >"$repo/Package.swift"
    (cd "$repo" && git add -A &&
        GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z \
        git -c user.name=alarmd -c user.email=alarmd@localhost -c commit.gpgsign=false \
            commit -q -m "Lowered to Swift 6.0.3 by alarmd's deploy/cross" &&
        git tag -f "$2" >/dev/null)
    printf '  { "original": "%s", "mirror": "%s" },\n  { "original": "%s.git", "mirror": "%s" },\n' \
        "$1" "$dir/$3.git" "$1" "$dir/$3.git" >>"$dir.tmp/mirrors"
}
cross_prepare_packages() {
    local dir
    dir=$cross_targets/packages
    cross_is_current "$dir" "$cross_packages_recipe" && return 0
    cross_note "lowering swift-log and swift-service-lifecycle to Swift 6.0.3"
    rm -rf "$dir.tmp"
    mkdir -p "$dir.tmp/swiftpm-config"
    : >"$dir.tmp/mirrors"
    cross_lower_package https://github.com/apple/swift-log 1.16.2 swift-log '// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "swift-log",
    products: [
        .library(name: "Logging", targets: ["Logging"]),
        .library(name: "InMemoryLogging", targets: ["InMemoryLogging"]),
    ],
    targets: [
        .target(name: "Logging", exclude: ["CMakeLists.txt"]),
        .target(name: "InMemoryLogging", dependencies: ["Logging"], exclude: ["CMakeLists.txt"]),
    ]
)'
    cross_lower_package https://github.com/swift-server/swift-service-lifecycle 2.13.0 swift-service-lifecycle '// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "swift-service-lifecycle",
    products: [
        .library(name: "ServiceLifecycle", targets: ["ServiceLifecycle"]),
        .library(name: "UnixSignals", targets: ["UnixSignals"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.14.0"),
        .package(url: "https://github.com/apple/swift-async-algorithms.git", from: "1.1.3"),
    ],
    targets: [
        .target(name: "ServiceLifecycle", dependencies: [
            .product(name: "Logging", package: "swift-log"),
            .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            "UnixSignals", "ConcurrencyHelpers",
        ]),
        .target(name: "UnixSignals", dependencies: ["ConcurrencyHelpers"]),
        .target(name: "ConcurrencyHelpers"),
    ],
    swiftLanguageModes: [.v5]
)'
    { echo '{ "version": 1, "object": ['; sed '$ s/,$//' "$dir.tmp/mirrors"; echo '] }'; } \
        >"$dir.tmp/swiftpm-config/mirrors.json"
    rm "$dir.tmp/mirrors"
    cross_finish "$dir" "$cross_packages_recipe"
}

# Everything a cross build of SUITE needs, made when missing.
cross_prepare() {  # SUITE
    cross_host_tools
    mkdir -p "$cross_targets"
    # One preparation at a time: two builds starting together would make the same parts.
    exec 9>"$cross_cache/.lock"
    flock 9
    cp "$cross_here/glibc-2.38-compat.c" "$cross_targets/glibc-2.38-compat.c"
    cross_prepare_compiler
    cross_prepare_swift_runtime
    cross_prepare_sysroot "$1"
    cross_prepare_sdk "$1"
    cross_prepare_packages
    flock -u 9
    exec 9>&-
}

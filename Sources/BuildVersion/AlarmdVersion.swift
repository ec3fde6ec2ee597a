/// The version of this build of alarmd, the same in every place that shows one: `alarmd
/// --version`, `alarmctl --version`, `alarm-web --version`, the control socket's hello,
/// `alarmctl status` and the Debian package.
///
/// It comes from `deploy/version` (a VERSION file, else `git describe`; `0~unknown` without
/// either), through `Plugins/VersionPlugin`; a package built by deploy/build-deb.sh carries the
/// package's own version, with its Debian release suffix (`~deb12`, `~deb13`).
public enum AlarmdVersion {
    /// The version, a valid Debian version string such as `0~git20261128.3500aec` or `1.2.3~deb12`.
    public static let current = packageVersion
}

import Foundation
import PackagePlugin

/// Gives the `BuildVersion` target the version `deploy/version` derives (its VERSION file, else
/// `git describe`), or `$ALARMD_VERSION` when deploy/build-deb.sh sets it to the package's version.
///
/// Why a prebuild command: SwiftPM runs it before every build, so a new commit or a new
/// `ALARMD_VERSION` reaches the binaries without a clean build, and the script rewrites its file
/// only when the version changed, so an unchanged version recompiles nothing. A file generated
/// into `Sources/` would leave the checkout dirty and stale; `-D` flags carry no values; a
/// resource would have to be found at run time beside an installed binary.
///
/// SwiftPM gives a prebuild command only the environment its plugin names, so the plugin passes
/// `ALARMD_VERSION` on from its own (which SwiftPM inherits from `swift build`; seen with Swift
/// 6.0.3 and 6.3). The command is `/bin/sh`: a prebuild command cannot run a tool built from
/// source.
@main
struct VersionPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "generated")
        let script = context.package.directoryURL.appending(path: "deploy/version")
        var environment = ["PATH": "/usr/bin:/bin"]
        environment["ALARMD_VERSION"] = ProcessInfo.processInfo.environment["ALARMD_VERSION"]
        return [
            .prebuildCommand(
                displayName: "The version from deploy/version",
                executable: URL(filePath: "/bin/sh"),
                arguments: [script.path(percentEncoded: false), "--swift", output.appending(path: "PackageVersion.swift").path(percentEncoded: false)],
                environment: environment,
                outputFilesDirectory: output
            )
        ]
    }
}

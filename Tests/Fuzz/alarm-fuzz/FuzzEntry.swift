import Glibc

// The libFuzzer entry points of `alarm-fuzz`. `ALARMD_FUZZ_TARGET` picks what each input is fed
// to (Tests/Fuzz/README.md); Tests/Fuzz/run-fuzzers sets it for each run:
//
//     ALARMD_FUZZ_TARGET=protocol .build-fuzz/debug/alarm-fuzz -max_total_time=60 CORPUS_DIR
//
// A finding is a trap: a crash in the code under test, or `fuzzCheck` naming an invariant that
// did not hold. Everything else (a refused request, a bad file) is an error value and a normal run.

/// Called once by libFuzzer before the first input: refuses to start without a target.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    _ = FuzzTarget.selected
    return 0
}

/// Called by libFuzzer for every input. Always returns 0: the input may join the corpus.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // SAFETY: libFuzzer owns `data` for the duration of this call; the bytes are copied.
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    switch FuzzTarget.selected {
    case .protocol: ProtocolFuzzing.run(bytes)
    case .config: ConfigFuzzing.runConfiguration(bytes)
    case .profile: ConfigFuzzing.runProfile(bytes)
    case .store: StoreFuzzing.run(bytes)
    case .web: WebFuzzing.run(bytes)
    }
    return 0
}

/// The `main` of a build without `--sanitize fuzzer`, where SwiftPM links the executable's entry
/// point under this name (libFuzzer's own `main` takes its place in a fuzzing build): says how to
/// build the real thing, so that a plain `swift build` of the package still links this target.
@_cdecl("alarm_fuzz_main")
public func plainBuildMain(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> CInt {
    printError("alarm-fuzz: this build has no libFuzzer; build and run it with Tests/Fuzz/run-fuzzers")
    return 2
}

/// What the inputs of this run are fed to.
enum FuzzTarget: String, CaseIterable, Sendable {
    /// The control server's request decoding, and the client's response routing.
    case `protocol`
    /// `alarmd.toml`: ``DaemonConfiguration``.
    case config
    /// `board/*.toml`: ``BoardProfile``.
    case profile
    /// The store file and journal entries, and the engine restoring them.
    case store
    /// alarm-web's request reading: heads, chunked bodies, the page's JSON forms.
    case web

    /// `ALARMD_FUZZ_TARGET`, read once; a missing or unknown name ends the process with usage.
    static let selected: FuzzTarget = {
        let names = allCases.map(\.rawValue).joined(separator: "|")
        guard let value = getenv("ALARMD_FUZZ_TARGET") else {
            printError("alarm-fuzz: set ALARMD_FUZZ_TARGET=\(names)")
            exit(2)
        }
        guard let target = FuzzTarget(rawValue: String(cString: value)) else {
            printError("alarm-fuzz: unknown ALARMD_FUZZ_TARGET \"\(String(cString: value))\"; expected \(names)")
            exit(2)
        }
        return target
    }()
}

/// Traps with `message` unless `condition` holds: libFuzzer saves the input as a crash.
func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    guard !condition else { return }
    printError("alarm-fuzz: invariant failed: \(message())")
    fatalError("invariant failed", file: file, line: line)
}

/// One line on stderr, written at once (libFuzzer's own output goes there too).
func printError(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

import AlarmEngine
import Glibc
import Synchronization

/// The kernel's file system with chosen calls on chosen files failing: `EIO` on every read of
/// `alarms.store` as from a failing SD card, `ENOSPC` on a journal append, `EROFS` on a rename.
/// It also records every call that changes a file, so a test can tell what was written where.
///
/// ```swift
/// let files = FaultyFileSystem()
/// files.fail(.read, on: "alarms.store", with: EIO)
/// let store = AlarmStore(directory: path, logger: logger, files: DurableFile(calls: files))
/// ...
/// files.heal()
/// ```
final class FaultyFileSystem: FileSystemCalls {
    enum Call: CaseIterable, Hashable, Sendable {
        /// `open` of an existing file for reading (a directory for syncing included).
        case openForReading
        /// `open` for writing: creating a temporary file, appending to the journal.
        case openForWriting
        case read, write, fstat, lstat, fsync, fdatasync, ftruncate, rename, unlink, mkdir, access
    }

    /// A change made to a file, by name within its directory.
    struct Change: Hashable, Sendable {
        var call: Call
        var name: String
    }

    private struct State {
        /// errno by call and by file name (the last path component), or `*` for any file.
        var failures: [Call: [String: Int32]] = [:]
        var pathsByDescriptor: [Int32: String] = [:]
        var changes: [Change] = []
    }

    private let state = Mutex(State())
    private let system = SystemFileSystem()
    /// Reads of this file name wait on a pipe until ``releaseStalledReads()`` writes to it, as
    /// reads from a card whose controller retries for seconds do.
    private let stalledName = Mutex<String?>(nil)
    private let stall: (read: Int32, write: Int32) = {
        var ends: [Int32] = [0, 0]
        precondition(pipe(&ends) == 0, "a pipe for stalled reads")
        return (ends[0], ends[1])
    }()
    private let stalledContinuation: AsyncStream<Void>.Continuation
    /// One element each time a read starts to stall.
    let stalledReads: AsyncStream<Void>

    init() {
        (stalledReads, stalledContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    deinit {
        Glibc.close(stall.read)
        Glibc.close(stall.write)
    }

    /// Makes every read of the file named `name` wait until ``releaseStalledReads()``.
    func stallReads(on name: String) {
        stalledName.withLock { $0 = name }
    }

    /// Lets the reads waiting go on (and ends the stall for later ones).
    func releaseStalledReads() {
        stalledName.withLock { $0 = nil }
        var byte: UInt8 = 1
        _ = Glibc.write(stall.write, &byte, 1)
    }

    /// Makes `call` on the file named `name` (`*` for every file) fail with `errno` until healed.
    func fail(_ call: Call, on name: String, with errno: Int32) {
        state.withLock { $0.failures[call, default: [:]][name] = errno }
    }

    /// Makes every read of the files named fail with `errno`, whether at open or at read.
    func failReading(_ names: [String], with errno: Int32, atOpen: Bool = false) {
        for name in names { fail(atOpen ? .openForReading : .read, on: name, with: errno) }
    }

    /// Ends one failure, or every failure.
    func heal(_ call: Call? = nil, on name: String? = nil) {
        state.withLock { state in
            guard let call else {
                state.failures = [:]
                return
            }
            if let name { state.failures[call]?[name] = nil } else { state.failures[call] = nil }
        }
    }

    /// Every call that changed a file so far (a write, a truncation, a rename to or from it, an
    /// unlink, an open that emptied it), by the name it changed.
    var changes: [Change] { state.withLock { $0.changes } }

    func forgetChanges() {
        state.withLock { $0.changes = [] }
    }

    private static func name(of path: String) -> String {
        String(path.split(separator: "/").last ?? "")
    }

    /// `-1` with `errno` set if `call` on `path` is to fail, else `nil`.
    private func injected(_ call: Call, _ path: String?) -> Int32? {
        guard let path else { return nil }
        let code = state.withLock { state -> Int32? in
            guard let byName = state.failures[call] else { return nil }
            return byName[Self.name(of: path)] ?? byName["*"]
        }
        guard let code else { return nil }
        Glibc.errno = code
        return -1
    }

    private func path(of descriptor: Int32) -> String? {
        state.withLock { $0.pathsByDescriptor[descriptor] }
    }

    private func record(_ call: Call, _ path: String?) {
        guard let path else { return }
        state.withLock { $0.changes.append(Change(call: call, name: Self.name(of: path))) }
    }

    func open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
        let writing = flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC) != 0
        if let failure = injected(writing ? .openForWriting : .openForReading, path) { return failure }
        let descriptor = system.open(path, flags, mode)
        guard descriptor >= 0 else { return descriptor }
        state.withLock { $0.pathsByDescriptor[descriptor] = path }
        if flags & O_TRUNC != 0 { record(.openForWriting, path) }
        return descriptor
    }

    func close(_ descriptor: Int32) -> Int32 {
        state.withLock { _ = $0.pathsByDescriptor.removeValue(forKey: descriptor) }
        return system.close(descriptor)
    }

    func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
        if let stalled = stalledName.withLock({ $0 }), let path = path(of: descriptor), Self.name(of: path) == stalled {
            stalledContinuation.yield()
            var byte: UInt8 = 0
            _ = Glibc.read(stall.read, &byte, 1)
        }
        if let failure = injected(.read, path(of: descriptor)) { return Int(failure) }
        return system.read(descriptor, buffer)
    }

    func write(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int {
        if let failure = injected(.write, path(of: descriptor)) { return Int(failure) }
        record(.write, path(of: descriptor))
        return system.write(descriptor, buffer)
    }

    func fstat(_ descriptor: Int32, _ status: inout stat) -> Int32 {
        injected(.fstat, path(of: descriptor)) ?? system.fstat(descriptor, &status)
    }

    func lstat(_ path: String, _ status: inout stat) -> Int32 {
        injected(.lstat, path) ?? system.lstat(path, &status)
    }

    func fsync(_ descriptor: Int32) -> Int32 {
        injected(.fsync, path(of: descriptor)) ?? system.fsync(descriptor)
    }

    func fdatasync(_ descriptor: Int32) -> Int32 {
        injected(.fdatasync, path(of: descriptor)) ?? system.fdatasync(descriptor)
    }

    func ftruncate(_ descriptor: Int32, _ length: off_t) -> Int32 {
        if let failure = injected(.ftruncate, path(of: descriptor)) { return failure }
        record(.ftruncate, path(of: descriptor))
        return system.ftruncate(descriptor, length)
    }

    func rename(_ source: String, _ destination: String) -> Int32 {
        if let failure = injected(.rename, source) ?? injected(.rename, destination) { return failure }
        let result = system.rename(source, destination)
        if result == 0 {
            record(.rename, source)
            record(.rename, destination)
        }
        return result
    }

    func unlink(_ path: String) -> Int32 {
        if let failure = injected(.unlink, path) { return failure }
        let result = system.unlink(path)
        if result == 0 { record(.unlink, path) }
        return result
    }

    func mkdir(_ path: String, _ mode: mode_t) -> Int32 {
        injected(.mkdir, path) ?? system.mkdir(path, mode)
    }

    func access(_ path: String, _ mode: Int32) -> Int32 {
        injected(.access, path) ?? system.access(path, mode)
    }
}

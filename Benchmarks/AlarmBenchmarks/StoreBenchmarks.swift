import AlarmEngine
import AlarmKitCore
import AlarmModel
import AlarmProtocol
import AlarmTestKit
import AlarmTime
import FoundationEssentials
import Glibc
import Logging

/// A fresh directory under `parent`, removed with its contents when released.
final class BenchmarkDirectory {
    let path: String

    init(parent: String, name: String) throws {
        _ = mkdir(parent, 0o700)
        guard let created = TemporaryDirectory.makeUnique(template: "\(parent)/\(name)-XXXXXX") else {
            throw BenchmarkError("mkdtemp under \(parent) failed: errno \(errno)")
        }
        path = created
    }

    /// Removes only this run's own directory; the parent may hold other runs.
    deinit {
        removeTree(path)
    }

    private func removeTree(_ path: String) {
        guard let handle = opendir(path) else { return }
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name == "." || name == ".." { continue }
            let child = path + "/" + name
            if entry.pointee.d_type == UInt8(DT_DIR) { removeTree(child) } else { unlink(child) }
        }
        closedir(handle)
        rmdir(path)
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A logger that drops everything: the benchmarks measure the engine, not the log sink.
let silentLogger = Logger(label: "alarm-benchmarks", factory: { _ in SwiftLogNoOpLogHandler() })

/// The state the runtime would write with `size` alarms of the mix, and every client authorized.
func storedState(size: Int, seed: UInt64) throws -> StoredState {
    var workload = Workload(seed: seed)
    let filled = try FilledScheduler(count: size, workload: &workload)
    return StoredState(
        scheduler: filled.scheduler.snapshot,
        authorizations: Workload.owners.map { AuthorizationRecord(client: $0, state: .authorized) },
        savedAt: Workload.now)
}

struct StoreResult {
    let size: Int
    let fileBytes: Int
    /// `AlarmStore.save`: encode, then two atomic replaces (write, fsync, rename, directory fsync).
    let save: Timing
    /// `AlarmStore.encode`: JSON encoding, CRC-32 and header; no I/O.
    let encode: Timing
    /// The same two atomic replaces of the same number of bytes, without any encoding: the I/O floor.
    let rawReplace: Timing
    /// `JSONEncoder().encode` of a single alarm record: what re-encoding only the changed alarm would cost.
    let encodeOneRecord: Timing
    /// `scheduler.snapshot` (the sort into creation order): for cold saves and tests; the runtime no longer takes one per change.
    let snapshot: Timing
    /// The same with every alarm created at the same instant: the sort falls back to `uuidString`.
    let snapshotTied: Timing
    /// `scheduler.alarms(of:)` for one of the 4 clients, which the runtime publishes after every change.
    let alarmsOfOwner: Timing
    /// `AlarmStore.load`: read, checksum and decode both copies, as at daemon start.
    let load: Timing
    /// `AlarmStore.decode` of one copy's bytes (checksum and JSON), no I/O.
    let decode: Timing
}

/// Measures the durable write of a store holding `size` alarms, in a fresh directory under `parent`,
/// and the other whole-store work the runtime does per change.
func benchmarkStore(size: Int, samples: Int, warmup: Int, parent: String, seed: UInt64) throws -> StoreResult {
    let state = try storedState(size: size, seed: seed)
    let directory = try BenchmarkDirectory(parent: parent, name: "store-\(size)")
    let store = AlarmStore(directory: directory.path, logger: silentLogger)

    let save = try measure(warmup: warmup, samples: samples) { _ in try store.save(state) }
    // The file is what was measured: it must load back.
    let loaded = store.load()
    precondition(loaded.state == state && loaded.problems.isEmpty, "the saved store does not load back")
    var info = stat()
    guard stat(store.primaryPath, &info) == 0 else { throw BenchmarkError("stat \(store.primaryPath): errno \(errno)") }

    var bytes: [UInt8] = []
    let encode = try measure(warmup: warmup, samples: samples) { _ in bytes = try AlarmStore.encode(state) }
    let rawPath = directory.path + "/raw"
    let rawReplace = try measure(warmup: warmup, samples: samples) { _ in
        try atomicReplace(rawPath + ".a", bytes, directory: directory.path)
        try atomicReplace(rawPath + ".b", bytes, directory: directory.path)
    }
    let records = state.scheduler.alarms
    let encodeOne = try measure(warmup: warmup, samples: samples) { index in
        blackHole(try JSONEncoder().encode(records[index % records.count]))
    }

    var workload = Workload(seed: seed)
    let filled = try FilledScheduler(count: size, workload: &workload)
    var tiedWorkload = Workload(seed: seed)
    let tied = try FilledScheduler(count: size, workload: &tiedWorkload, distinctCreation: false)
    let snapshot = measure(warmup: warmup, samples: samples) { _ in blackHole(filled.scheduler.snapshot) }
    let snapshotTied = measure(warmup: warmup, samples: samples) { _ in blackHole(tied.scheduler.snapshot) }
    let alarmsOfOwner = measure(warmup: warmup, samples: samples) { _ in
        blackHole(filled.scheduler.alarms(of: Workload.owners[0]))
    }
    let load = measure(warmup: warmup, samples: samples) { _ in blackHole(store.load()) }
    let decode = try measure(warmup: warmup, samples: samples) { _ in blackHole(try AlarmStore.decode(bytes)) }

    return StoreResult(
        size: size, fileBytes: Int(info.st_size), save: save, encode: encode, rawReplace: rawReplace,
        encodeOneRecord: encodeOne, snapshot: snapshot, snapshotTied: snapshotTied, alarmsOfOwner: alarmsOfOwner,
        load: load, decode: decode)
}

/// What `DurableFile.replace` does, on plain POSIX calls: write a temporary file, fsync, rename,
/// fsync the directory.
private func atomicReplace(_ path: String, _ bytes: [UInt8], directory: String) throws {
    let temporary = path + ".tmp"
    let file = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard file >= 0 else { throw BenchmarkError("open \(temporary): errno \(errno)") }
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { write(file, $0.baseAddress! + offset, $0.count - offset) }
        guard written > 0 else { close(file); throw BenchmarkError("write \(temporary): errno \(errno)") }
        offset += written
    }
    guard fsync(file) == 0 else { close(file); throw BenchmarkError("fsync \(temporary): errno \(errno)") }
    close(file)
    guard rename(temporary, path) == 0 else { throw BenchmarkError("rename \(temporary): errno \(errno)") }
    let handle = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard handle >= 0 else { throw BenchmarkError("open \(directory): errno \(errno)") }
    defer { close(handle) }
    guard fsync(handle) == 0 else { throw BenchmarkError("fsync \(directory): errno \(errno)") }
}

func printStoreTable(_ results: [StoreResult]) {
    let rows: [(String, KeyPath<StoreResult, Timing>)] = [
        ("AlarmStore.save (encode + 4 fsync)", \.save),
        ("  of which AlarmStore.encode", \.encode),
        ("  I/O floor: 2 atomic replaces", \.rawReplace),
        ("JSONEncoder, one AlarmRecord", \.encodeOneRecord),
        ("scheduler.snapshot (cold saves only)", \.snapshot),
        ("  same, all createdAt equal", \.snapshotTied),
        ("runtime, per change: alarms(of: client)", \.alarmsOfOwner),
        ("AlarmStore.load (daemon start)", \.load),
        ("  AlarmStore.decode, one copy", \.decode),
    ]
    printTimingTable(
        title: "store (ms)", sizes: results.map(\.size),
        rows: rows.map { name, path in (name, results.map { $0[keyPath: path] }) })
    print("")
    for result in results {
        print("  store file with N=\(grouped(result.size)): \(grouped(result.fileBytes)) bytes "
              + "(\(grouped(result.fileBytes / max(result.size, 1))) bytes per alarm); two copies are written per save")
    }
}

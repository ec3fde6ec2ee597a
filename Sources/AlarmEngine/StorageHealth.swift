import FoundationEssentials
import Glibc

/// Whether the store can be read and written, and what was wrong with it at start: what the
/// device's display, its LED and `status` show. An SD card that the kernel remounted read-only, or
/// a full one, or one that fails to read, must be seen before it costs an alarm.
public struct StorageHealth: Hashable, Sendable {
    /// Why the store could not be read, while it cannot (since its load at start): alarms ring
    /// from what could be read, changes are refused, and the store is read again until it can be.
    public var readFault: StorageFault?
    /// Why saving fails now (the last failed save); `nil` while saves succeed.
    public var fault: StorageFault?
    /// Changes in effect that are not durable yet: silencing that storage refused, or a
    /// time-driven change (an alert's start) waiting for its save.
    public var hasUnsavedChanges: Bool
    /// Files found bad when the store was loaded, each set aside (or left in place) with why.
    public var problemsAtStart: [String]
    /// A person at the device has seen the problems at start (a press acknowledged them).
    public var problemsAcknowledged: Bool

    public init(
        readFault: StorageFault? = nil, fault: StorageFault? = nil, hasUnsavedChanges: Bool = false,
        problemsAtStart: [String] = [], problemsAcknowledged: Bool = false
    ) {
        self.readFault = readFault
        self.fault = fault
        self.hasUnsavedChanges = hasUnsavedChanges
        self.problemsAtStart = problemsAtStart
        self.problemsAcknowledged = problemsAcknowledged
    }

    /// Problems at start that nobody at the device has seen yet.
    public var hasUnseenProblems: Bool { !problemsAtStart.isEmpty && !problemsAcknowledged }

    /// One short line for a 16-column display, or `nil` when there is nothing to say.
    public var displayText: String? {
        if readFault != nil { return "Disk unreadable" }
        if let fault { return fault.displayText }
        return hasUnseenProblems ? "Bad file on disk" : nil
    }
}

/// A save (or a read of the store) that failed: the system call's error, and since when.
public struct StorageFault: Hashable, Sendable, CustomStringConvertible {
    /// The failing system call's `errno`; `nil` when the failure was not the file system's.
    public var errno: Int32?
    /// The whole error, with the operation and the path.
    public var message: String
    /// When the first of the failing saves (or reads) was tried.
    public var since: Date

    public init(_ error: any Error, since: Date) {
        let storeError = error as? StoreError ?? (error as? StoreUnreadable)?.failures.first
        self.errno = storeError?.reason == nil ? storeError?.errno : nil
        self.message = "\(error)"
        self.since = since
    }

    /// The errno's symbolic name (`EROFS`), which is what a person searches for.
    public var errnoName: String? {
        guard let errno else { return nil }
        return StoreError.name(of: errno)
    }

    /// What the device's display says: a full or read-only disk in words, anything else by name.
    public var displayText: String {
        switch errno {
        case ENOSPC?, EDQUOT?: "Disk full"
        case EROFS?: "Disk read-only"
        case let errno?: "Disk: \(StoreError.knownName(of: errno) ?? "error \(errno)")"
        case nil: "Disk fault"
        }
    }

    public var description: String {
        errnoName.map { "\(message) (\($0))" } ?? message
    }
}

import FoundationEssentials
import Logging
import Synchronization

/// Keeps the latest log lines for the simulator's screen, where stderr would scribble over the
/// drawing.
final class RecentLogLines: Sendable {
    private let lines = Mutex<[String]>([])
    let capacity: Int

    init(capacity: Int = 6) {
        self.capacity = capacity
    }

    var latest: [String] { lines.withLock { $0 } }

    func append(_ line: String) {
        lines.withLock { lines in
            lines.append(line)
            if lines.count > capacity { lines.removeFirst(lines.count - capacity) }
        }
    }

    /// A log handler that writes into these lines: `level: message key=value ...`.
    func handler(label: String, level: Logger.Level) -> some LogHandler {
        ScreenLogHandler(sink: self, logLevel: level)
    }
}

struct ScreenLogHandler: LogHandler {
    let sink: RecentLogLines
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        event.metadata?.forEach { merged[$0.key] = $0.value }
        let details = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        sink.append("\(event.level): \(event.message)" + (details.isEmpty ? "" : " \(details)"))
    }
}

import AlarmTime
import Glibc
import LinuxSupport

/// Watches the device directory (`/dev`) for GPIO chip nodes appearing or changing, so a backend
/// waiting for a missing chip tries again when one shows up rather than by polling: udev creates
/// `/dev/gpiochipN` when the chip's driver binds and then sets its owner and mode, and either
/// may be what lets the open succeed.
///
/// Used on a backend's thread while its lines are not held; dropped once they are.
final class ChipAppearanceWatch {
    private let inotify: Inotify
    private let watch: Int32

    /// `nil` if inotify or the directory cannot be had: the backend then relies on its backoff.
    init?(directory: String) {
        guard let inotify = Inotify(),
              let watch = inotify.add(directory, mask: UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB))
        else { return nil }
        self.inotify = inotify
        self.watch = watch
    }

    var descriptor: Int32 { inotify.descriptor }

    /// Reads what is queued; `true` if a GPIO chip node appeared or changed (or events were
    /// lost). Other nodes (a terminal, a disk) only cost this read.
    func chipChanged() -> Bool {
        inotify.readEvents().contains { event in
            event.isOverflow || (event.watch == watch && event.name.hasPrefix("gpiochip"))
        }
    }
}

import Glibc
import LinuxSupport
import Synchronization

/// inotify watches on what a change of the device's zone touches, and nothing else in `/etc`:
///
/// - the `/etc/localtime` symlink itself (`IN_DONT_FOLLOW`): `timedatectl set-timezone` makes a
///   new link and renames it over the old one, which reaches the old link's inode as
///   `IN_ATTRIB` (its link count dropped) and `IN_DELETE_SELF`;
/// - the zone file it leads to (followed): a tzdata upgrade renames a new file over it, or an
///   administrator overwrites a copied `/etc/localtime` in place (`IN_CLOSE_WRITE`);
/// - only while `/etc/localtime` is missing (the zone is UTC), the directory, for that one name
///   being created or renamed into place.
///
/// The watches are on inodes, so each change re-arms them on whatever the path names now. Other
/// files in `/etc` (resolv.conf rewritten by DHCP, editors' temporary files) never wake it.
///
/// Owns the inotify descriptor and an eventfd that stops ``run(_:)``.
final class LocaltimeWatch: Sendable {
    let inotify: Inotify
    private let stopSignal: EventSignal
    private let localtimePath: String
    /// The watch descriptors in use, read and replaced by whichever thread handles events.
    private let watches = Mutex<Set<Int32>>([])

    private static let inodeEvents = UInt32(IN_ATTRIB | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF)

    /// Adds the watches; `nil` if inotify or the eventfd cannot be had.
    init?(localtimePath: String) {
        guard let inotify = Inotify(), let stopSignal = EventSignal() else { return nil }
        self.inotify = inotify
        self.stopSignal = stopSignal
        self.localtimePath = localtimePath
        arm()
    }

    /// Makes ``run(_:)`` return.
    func stop() {
        stopSignal.signal()
    }

    /// Blocks, calling `changed` after each batch of events that may have changed the zone (the
    /// watches re-armed first, so a change right after it is not missed), until ``stop()``.
    /// Call once.
    func run(_ changed: () -> Void) {
        while true {
            var descriptors = [
                pollfd(fd: inotify.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopSignal.descriptor, events: Int16(POLLIN), revents: 0),
            ]
            if poll(&descriptors, 2, -1) < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[1].revents != 0 { return }
            if handleEvents() { changed() }
        }
    }

    /// Reads the queued events without blocking; if one may have changed the zone, re-arms the
    /// watches and returns `true`.
    func handleEvents() -> Bool {
        let current = watches.withLock { $0 }
        let relevant = inotify.readEvents().contains { event in
            guard event.isOverflow || current.contains(event.watch) else { return false }
            // Our own removal of a replaced inode's watch.
            if event.mask & UInt32(IN_IGNORED) != 0 { return false }
            return event.name.isEmpty || event.name == Self.baseName(of: localtimePath)
        }
        if relevant { arm() }
        return relevant
    }

    /// Watches what the path names now, then drops the watches on what it named before.
    private func arm() {
        var added: Set<Int32> = []
        if let link = inotify.add(localtimePath, mask: Self.inodeEvents | UInt32(IN_DONT_FOLLOW)) {
            added.insert(link)
            if let zone = inotify.add(localtimePath, mask: Self.inodeEvents) { added.insert(zone) }
        } else if let directory = inotify.add(Self.directory(of: localtimePath), mask: UInt32(IN_CREATE | IN_MOVED_TO)) {
            added.insert(directory)
        }
        let replaced = watches.withLock { watches in
            defer { watches = added }
            return watches
        }
        for stale in replaced where !added.contains(stale) {
            inotify.remove(stale)
        }
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func baseName(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}

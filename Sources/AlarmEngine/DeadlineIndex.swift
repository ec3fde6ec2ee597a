import FoundationEssentials
import HeapModule

/// The next deadline of every alarm, ordered, with O(log n) updates.
///
/// A binary heap with lazy deletion: changing or removing an alarm's deadline leaves its old heap
/// entry behind, recognised as stale by its generation and dropped when it reaches the top. The
/// heap is rebuilt when stale entries outnumber live ones, so memory stays proportional to the
/// number of alarms.
struct DeadlineIndex: Sendable {
    private struct Entry: Comparable, Sendable {
        let deadline: Date
        let generation: UInt64
        let key: AlarmKey

        static func < (lhs: Entry, rhs: Entry) -> Bool {
            (lhs.deadline, lhs.generation) < (rhs.deadline, rhs.generation)
        }

        static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.generation == rhs.generation
        }
    }

    private var heap = Heap<Entry>()
    private var live: [AlarmKey: Entry] = [:]
    private var nextGeneration: UInt64 = 0

    /// The earliest deadline, if any alarm has one.
    var earliest: (key: AlarmKey, deadline: Date)? {
        heap.min.map { ($0.key, $0.deadline) }
    }

    /// The deadline of one alarm.
    func deadline(of key: AlarmKey) -> Date? {
        live[key]?.deadline
    }

    /// Sets or clears the deadline of an alarm.
    mutating func set(_ deadline: Date?, for key: AlarmKey) {
        if let current = live[key], current.deadline == deadline { return }
        if let deadline {
            nextGeneration += 1
            let entry = Entry(deadline: deadline, generation: nextGeneration, key: key)
            live[key] = entry
            heap.insert(entry)
        } else {
            live[key] = nil
        }
        compact()
    }

    /// Drops every entry.
    mutating func removeAll() {
        heap = Heap()
        live = [:]
    }

    /// Keeps the top of the heap live, and the heap at most about twice the live entries.
    private mutating func compact() {
        if heap.count > 2 * live.count + 32 {
            heap = Heap(live.values)
            return
        }
        while let top = heap.min, live[top.key]?.generation != top.generation {
            heap.removeMin()
        }
    }
}

/// A binary min-heap of pending occurrences: the earliest due delivery is always at the top.
///
/// One heap operation per fire: `popFirst` and `insert` are O(log n); the scheduler never scans the schedule.
public struct OccurrenceQueue: Sendable {
    /// Sixteen bytes: a schedule holds a million of them.
    public struct Item: Sendable, Equatable {
        /// The occurrence, in microseconds since the epoch.
        public var fireTime: Int64
        private var entryIndex: Int32
        /// Its randomized delay (`DeliveryTiming`), whole milliseconds up to `DeliveryTiming.longest`.
        private var delayMilliseconds: UInt32

        /// - Parameter due: when the delivery is due, from `fireTime` up to `DeliveryTiming.longest` later in whole
        ///   milliseconds; `fireTime` if not given.
        public init(fireTime: Int64, due: Int64? = nil, entry: Int) {
            self.fireTime = fireTime
            entryIndex = Int32(entry)
            delayMilliseconds = UInt32((max(0, (due ?? fireTime) - fireTime)) / 1000)
        }

        /// Index of the entry in the schedule (`MaxNotifications=` keeps it within 32 bits).
        public var entry: Int { Int(entryIndex) }

        /// When its delivery is due: the occurrence, or later by its randomized delay.
        @inline(__always)
        public var due: Int64 { fireTime + Int64(delayMilliseconds) * 1000 }
    }

    public private(set) var items: [Item] = []

    public var count: Int { items.count }
    public var isEmpty: Bool { items.isEmpty }
    public var first: Item? { items.first }

    public init() {}

    /// Builds the heap from unordered items in O(n).
    public init(_ unordered: consuming [Item]) {
        items = consume unordered
        for index in stride(from: items.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    public mutating func insert(_ item: Item) {
        items.append(item)
        siftUp(items.count - 1)
    }

    public mutating func popFirst() -> Item? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        if !items.isEmpty { siftDown(0) }
        return top
    }

    /// Removes the item of `entry`, if there is one: a scan to find it (the heap is ordered by time, not entry),
    /// then O(log n) to mend the heap. Used when one notification leaves the schedule without a rebuild.
    @discardableResult
    public mutating func remove(entry: Int) -> Item? {
        guard let index = items.firstIndex(where: { $0.entry == entry }) else { return nil }
        items.swapAt(index, items.count - 1)
        let removed = items.removeLast()
        if index < items.count {
            siftDown(index)
            siftUp(index)
        }
        return removed
    }

    /// The `limit` earliest items, earliest first, without disturbing the heap: O(limit · log limit) whatever the
    /// size of the queue. A heap's smallest are found walking down from its top, keeping the positions still to be
    /// looked at in a small heap of their own.
    public func earliest(_ limit: Int) -> [Item] {
        guard limit > 0, !items.isEmpty else { return [] }
        var result: [Item] = []
        result.reserveCapacity(min(limit, items.count))
        var frontier = [0]
        func before(_ a: Int, _ b: Int) -> Bool { less(items[a], items[b]) }
        while result.count < limit, !frontier.isEmpty {
            // Pop the frontier's earliest position.
            frontier.swapAt(0, frontier.count - 1)
            let position = frontier.removeLast()
            var parent = 0
            while true {
                let left = 2 * parent + 1
                guard left < frontier.count else { break }
                var smallest = left
                if left + 1 < frontier.count && before(frontier[left + 1], frontier[left]) { smallest = left + 1 }
                guard before(frontier[smallest], frontier[parent]) else { break }
                frontier.swapAt(parent, smallest)
                parent = smallest
            }
            result.append(items[position])
            for child in [2 * position + 1, 2 * position + 2] where child < items.count {
                frontier.append(child)
                var index = frontier.count - 1
                while index > 0 {
                    let up = (index - 1) / 2
                    guard before(frontier[index], frontier[up]) else { break }
                    frontier.swapAt(index, up)
                    index = up
                }
            }
        }
        return result
    }

    /// Ties are broken by entry index, so that deliveries due at the same instant come out in a stable order.
    @inline(__always)
    private func less(_ a: Item, _ b: Item) -> Bool {
        a.due < b.due || (a.due == b.due && a.entry < b.entry)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(items[child], items[parent]) else { return }
            items.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < items.count else { return }
            var smallest = left
            if left + 1 < items.count && less(items[left + 1], items[left]) { smallest = left + 1 }
            guard less(items[smallest], items[parent]) else { return }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

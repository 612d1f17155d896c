import ChimeCore

/// The notifications a generator gave at the load before, when its output has changed since.
///
/// - A line printed then too (the same bytes, by `GeneratorOutput.lineHash`) that gave a notification without a
///   word to say about it gives that notification again, without being read: an output that changed in a few lines,
///   or only in their order, costs about as much as one that did not change.
/// - Any other line read now that gives a notification equal to the one of the same id then is given that one
///   instead, sharing its strings, arrays and events; one that differs shares the parts that are equal.
///
/// Either way the notifications are not made twice while the earlier ones are still installed: the peak of such a
/// rebuild was twice the schedule's memory. Only for an output read in zones that read alike now
/// (`GeneratorReuse.readsAlike`): a notification is a function of its line and of the zones' rules then.
struct EarlierNotifications: EarlierOutput {
    private let notifications: ArraySlice<LoadedNotification>
    private let index: NameIndex
    private let lines: LineIndex

    /// - Parameter lineHashes: the line hash of each of `notifications` (0 for one not to be taken as it is).
    init(_ notifications: ArraySlice<LoadedNotification>, lineHashes: [Int]) {
        self.notifications = notifications
        let start = notifications.startIndex
        index = NameIndex(count: notifications.count) { notifications[start + $0].notification.id }
        lines = LineIndex(lineHashes.count == notifications.count ? lineHashes : [])
    }

    /// The notification of the earlier line with `lineHash`, if it gave one. Called from several threads.
    func notification(ofLine lineHash: Int) -> ScheduledNotification? {
        guard let position = lines.position(of: lineHash) else { return nil }
        return notifications[notifications.startIndex + position].notification
    }

    /// The earlier notification of the same id when it equals `notification`; else `notification` sharing the
    /// parts that equal the earlier one's, or as it is when there was none. Called from several threads.
    func sharing(_ notification: ScheduledNotification) -> ScheduledNotification {
        notifications.withUnsafeBufferPointer { earlier in
            guard let position = index.position(of: notification.id, { earlier[$0].notification.id }) else {
                return notification
            }
            let then = earlier[position].notification
            return then == notification ? then : notification.sharingEqualParts(with: then)
        }
    }
}

/// Positions by line hash: a table of 32-bit positions, at most half full, probed by the hash (0 is no line).
private struct LineIndex: Sendable {
    private let hashes: [Int]
    private let table: [Int32]

    init(_ hashes: [Int]) {
        var capacity = 1
        while capacity < 2 * hashes.count { capacity <<= 1 }
        let mask = capacity - 1
        var table = [Int32](repeating: -1, count: hashes.isEmpty ? 0 : capacity)
        table.withUnsafeMutableBufferPointer { table in
            for (position, hash) in hashes.enumerated() where hash != 0 {
                var slot = hash & mask
                while table[slot] >= 0 && hashes[Int(table[slot])] != hash { slot = (slot + 1) & mask }
                // The first of equal lines is kept; the others gave the same.
                if table[slot] < 0 { table[slot] = Int32(position) }
            }
        }
        self.hashes = hashes
        self.table = table
    }

    func position(of hash: Int) -> Int? {
        guard !table.isEmpty else { return nil }
        let mask = table.count - 1
        var slot = hash & mask
        while table[slot] >= 0 {
            let position = Int(table[slot])
            if hashes[position] == hash { return position }
            slot = (slot + 1) & mask
        }
        return nil
    }
}

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
struct PreviousNotifications: PreviousOutput {
    private let notifications: ArraySlice<LoadedNotification>
    /// The line hash of each of `notifications`; 0 for one not to be taken as it is, or none at all.
    private let lineHashes: [Int]
    /// Positions by line hash; a line hash is never 0, so the lines kept as 0 are never found.
    private let lines: NameIndex
    /// Positions by id, made by the first line read whose notification is not at its own line's position: an
    /// output whose lines were edited in place finds each one there, and needs no index of a million ids.
    private let ids = Locked<NameIndex?>(nil)

    /// - Parameter lineHashes: the line hash of each of `notifications` (0 for one not to be taken as it is).
    init(_ notifications: ArraySlice<LoadedNotification>, lineHashes: [Int]) {
        self.notifications = notifications
        self.lineHashes = lineHashes.count == notifications.count ? lineHashes : []
        lines = NameIndex(hashes: self.lineHashes) { _, _ in true }
    }

    /// The notification of the earlier line with `lineHash`, if it gave one; looked for first at `position`, where
    /// an output printed in the same order has it. Called from several threads.
    func notification(ofLine lineHash: Int, at position: Int) -> ScheduledNotification? {
        let found =
            lineHashes.indices.contains(position) && lineHashes[position] == lineHash
            ? position : lines.position(ofHash: lineHash, where: { _ in true })
        guard let found else { return nil }
        return notifications[notifications.startIndex + found].notification
    }

    /// Makes `notification` the earlier one of the same id when the two are equal; else it shares the parts equal to
    /// the earlier one's, or stays as it is when there was none. The earlier one is looked for first at `position`.
    /// Called from several threads.
    func share(_ notification: inout ScheduledNotification, at position: Int) {
        notifications.withUnsafeBufferPointer { earlier in
            func then(_ index: Int) -> UnsafePointer<ScheduledNotification> {
                LoadedNotification.notification(of: earlier.baseAddress! + index)
            }
            let found =
                earlier.indices.contains(position) && then(position).pointee.id == notification.id
                ? position : index(earlier).position(of: notification.id, { then($0).pointee.id })
            guard let found else { return }
            notification.share(withNotificationAt: then(found))
        }
    }

    /// The index of ids, made once, by whichever thread needs it first.
    private func index(_ earlier: UnsafeBufferPointer<LoadedNotification>) -> NameIndex {
        nonisolated(unsafe) let earlier = earlier
        return ids.withLock { index in
            if index == nil { index = NameIndex(count: earlier.count) { earlier[$0].notification.id } }
            return index!
        }
    }
}

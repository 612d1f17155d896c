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
    /// Positions by line hash; a line hash is never 0, so the lines kept as 0 are never found.
    private let lines: NameIndex

    /// - Parameter lineHashes: the line hash of each of `notifications` (0 for one not to be taken as it is).
    init(_ notifications: ArraySlice<LoadedNotification>, lineHashes: [Int]) {
        self.notifications = notifications
        let start = notifications.startIndex
        index = NameIndex(count: notifications.count) { notifications[start + $0].notification.id }
        lines = NameIndex(hashes: lineHashes.count == notifications.count ? lineHashes : []) { _, _ in true }
    }

    /// The notification of the earlier line with `lineHash`, if it gave one. Called from several threads.
    func notification(ofLine lineHash: Int) -> ScheduledNotification? {
        guard let position = lines.position(ofHash: lineHash, where: { _ in true }) else { return nil }
        return notifications[notifications.startIndex + position].notification
    }

    /// The earlier notification of the same id when it equals `notification`; else `notification` sharing the
    /// parts that equal the earlier one's, or as it is when there was none. Called from several threads.
    func sharing(_ notification: consuming ScheduledNotification) -> ScheduledNotification {
        var notification = notification
        notifications.withUnsafeBufferPointer { earlier in
            guard let position = index.position(of: notification.id, { earlier[$0].notification.id }) else { return }
            // Copied out once: passed from the buffer as it is, each call would copy it again, retaining and
            // releasing each of its parts, which another thread made.
            let then = earlier[position].notification
            if then == notification {
                notification = then
            } else {
                notification.shareEqualParts(with: then)
            }
        }
        return notification
    }
}

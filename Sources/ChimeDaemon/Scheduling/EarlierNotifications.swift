import ChimeCore

/// The notifications a generator gave at the load before, when its output has changed since: each line read now
/// that gives a notification equal to the one of the same id then is given that one instead, sharing its strings,
/// arrays and events.
///
/// An output that changed in a few lines (or only in their order) otherwise made a second copy of a million
/// notifications while the first was still installed: the peak of such a rebuild was twice the schedule's memory.
/// Only for an output read in zones that read alike now (`GeneratorReuse.readsAlike`): a trigger equal by its
/// zones' names then has their rules too.
struct EarlierNotifications: Sendable {
    private let notifications: ArraySlice<LoadedNotification>
    private let index: NameIndex

    init(_ notifications: ArraySlice<LoadedNotification>) {
        self.notifications = notifications
        let start = notifications.startIndex
        index = NameIndex(count: notifications.count) { notifications[start + $0].notification.id }
    }

    /// The earlier notification equal to `notification`, or `notification` itself. Called from several threads.
    func sharing(_ notification: ScheduledNotification) -> ScheduledNotification {
        let found = notifications.withUnsafeBufferPointer { earlier in
            index.position(of: notification.id) { earlier[$0].notification.id }.flatMap { position in
                earlier[position].notification == notification ? earlier[position].notification : nil
            }
        }
        return found ?? notification
    }
}

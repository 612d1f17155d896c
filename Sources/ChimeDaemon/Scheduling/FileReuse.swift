import ChimeCore

/// The notifications of the schedule in place that were read from files, lent to the next rebuild: one whose files
/// hold the same bytes (`NotificationBytes.fingerprint`) is taken as it was instead of being parsed and validated
/// again.
///
/// The files are still found, read and checked for their owner and mode at every rebuild; what is saved is the
/// rest, most of a file's cost, and making every notification anew while the installed ones still hold their
/// memory, which left the heaps fragmented after each rebuild. Only a notification loaded without a word to say
/// about it is taken (its problems would have to be told again), and only while the load reads alike
/// (`LoadContext`). The notifications are the installed schedule's array, which the scheduler holds too.
public struct FileReuse: Sendable {
    private let notifications: [LoadedNotification]
    private let context: LoadContext
    /// The notifications found by file, once `indexed()`.
    private var files: PreviousFiles?

    /// What `loaded` can lend the next rebuild; `nil` when it read no notification from files. Cheap: made where
    /// a rebuild is installed, and indexed by the next one's load.
    public init?(_ loaded: LoadedSchedule) {
        guard loaded.reusable.readFiles else { return nil }
        notifications = loaded.notifications
        context = loaded.reusable.context
    }

    /// This, with the notifications found by file, once for all the directory sources of a load.
    func indexed() -> FileReuse {
        var indexed = self
        indexed.files = files ?? PreviousFiles(notifications)
        return indexed
    }

    /// The notifications to take from, for a load by `loader`; `nil` when it would read them otherwise.
    func earlier(for loader: NotificationLoader) -> PreviousFiles? {
        context.readsAlike(loader) ? files ?? PreviousFiles(notifications) : nil
    }
}

/// The notifications an earlier load read from files, found by their main file.
struct PreviousFiles: Sendable {
    private let notifications: [LoadedNotification]
    /// The positions in `notifications` of those read from files.
    private let positions: [Int]
    private let index: NameIndex

    init(_ notifications: [LoadedNotification]) {
        self.notifications = notifications
        positions = LoadedNotification.fingerprintedPositions(in: notifications)
        let positions = positions
        index = NameIndex(count: positions.count) { notifications[positions[$0]].source }
    }

    /// The notification read then from files with the same paths and bytes as `bytes`. Called from several
    /// threads.
    func notification(readFrom bytes: NotificationBytes) -> LoadedNotification? {
        guard let position = index.position(of: bytes.paths[0], { notifications[positions[$0]].source }) else {
            return nil
        }
        let earlier = notifications[positions[position]]
        return earlier.wasRead(from: bytes) ? earlier : nil
    }
}

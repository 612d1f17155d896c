import ChimeCore

/// The requests in the schedule, `chimectl add`'s and applications' (`LoadedNotification.isRequest`), by their
/// place among the scheduler's entries: which entries they are and the entry of each id, which of them a status
/// always lists, which `place` replaced or `withdraw` took out since the last install, and how many deliveries of
/// each are in flight.
///
/// A request with nothing left to fire is finished only once its delivery is done (`Status.finishedPinnedSources`),
/// so that a crash in between still finds it to deliver again; then its file can go. The scheduler holds it and
/// uses it on its queue; the in-flight counts are also changed where the backends finish.
struct RequestIndex {
    private var entries: Set<Int> = []
    private var entryOfID: [String: Int] = [:]
    /// `chimectl add`'s requests, which `status(limit:)` lists however far off they are, since it looks for them.
    /// Applications' requests, which may be thousands, are listed among the soonest only.
    private(set) var listed: Set<Int> = []
    /// Entries replaced or taken out since the last install: no longer in the schedule, they keep their place (so
    /// that no index moves) until the next install or compaction leaves them out.
    private(set) var retired: Set<Int> = []
    private let inFlight = Locked<[String: Int]>([:])

    var isEmpty: Bool { entryOfID.isEmpty }

    /// The request entries of a schedule just installed, as it was prepared.
    mutating func installed(entries: Set<Int>, entryOfID: [String: Int], listed: Set<Int>) {
        self.entries = entries
        self.entryOfID = entryOfID
        self.listed = listed
        retired = []
    }

    /// The entry of request `id`, if it is in the schedule.
    func entry(of id: String) -> Int? { entryOfID[id] }

    /// The entries of the requests whose id begins with `prefix` (an application's).
    func entries(withIDPrefix prefix: String) -> Set<Int> {
        Set(entryOfID.lazy.filter { $0.key.hasPrefix(prefix) }.map(\.value))
    }

    /// `loaded`, placed at `index`, is the request of its id from now on.
    mutating func add(_ loaded: LoadedNotification, at index: Int) {
        entries.insert(index)
        entryOfID[loaded.notification.id] = index
        if loaded.kind == .added { listed.insert(index) }
    }

    /// Takes request `id` out of the index; returns its entry, to be retired.
    mutating func remove(_ id: String) -> Int? {
        entryOfID.removeValue(forKey: id)
    }

    /// The entry at `index` left the schedule. Returns whether so many did that the entries should be compacted.
    mutating func retire(_ index: Int, of entryCount: Int) -> Bool {
        entries.remove(index)
        listed.remove(index)
        retired.insert(index)
        return retired.count > 1024 && retired.count * 2 > entryCount
    }

    /// After a compaction that left the retired entries out: each entry's new place (`newIndex[old]`).
    mutating func renumber(_ newIndex: [Int]) {
        entries = Set(entries.map { newIndex[$0] })
        listed = Set(listed.map { newIndex[$0] })
        entryOfID = entryOfID.mapValues { newIndex[$0] }
        retired = []
    }

    /// Counts a delivery of request `id` in flight until the `finished` it returns runs (on any thread); `nil`
    /// when `id` is no request, whose deliveries are not counted.
    func deliveryStarted(_ id: String) -> (@Sendable () -> Void)? {
        guard entryOfID[id] != nil else { return nil }
        let inFlight = self.inFlight
        inFlight.withLock { $0[id, default: 0] += 1 }
        return {
            inFlight.withLock { counts in
                counts[id] = counts[id].flatMap { $0 > 1 ? $0 - 1 : nil }
            }
        }
    }

    /// The requests among the entries `isIdle` says have nothing left to fire, whose deliveries are all done and
    /// that `isFollowedUp` (a snooze or repeat pending) does not hold: finished.
    func finished(isIdle: (Int) -> Bool, id: (Int) -> String, isFollowedUp: (String) -> Bool) -> [Int] {
        let delivering = inFlight.withLock { $0 }
        return entries.filter { index in
            guard isIdle(index) else { return false }
            let id = id(index)
            return delivering[id] == nil && !isFollowedUp(id)
        }
    }
}

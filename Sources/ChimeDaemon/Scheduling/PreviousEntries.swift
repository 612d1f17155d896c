import ChimeCore

/// The entries installed before a rebuild, found by id. A rebuild mostly loads the same notifications in the same
/// order, so each is looked for first where the one before it was found (at its own position, or shifted by as
/// many as were added or removed before it); only when that fails is an index of every id built, once.
struct PreviousEntries {
    let entries: [LoadedNotification]
    /// How many entries each thread looks up at a time, each share starting from no shift.
    static let share = 16_384

    init(_ entries: [LoadedNotification]) {
        self.entries = entries
    }

    /// Where each of `installed` was before, -1 for one that was not. The shares of `installed` are looked up on
    /// all cores: a rebuild of a million whose output changed its order found each by the index, one after the
    /// other, for a second on the thread preparing it.
    func positions(of installed: UnsafeBufferPointer<LoadedNotification>) -> [Int32] {
        guard !entries.isEmpty else { return [Int32](repeating: -1, count: installed.count) }
        let index = Locked<NameIndex?>(nil)
        return entries.withUnsafeBufferPointer { entries in
            nonisolated(unsafe) let entries = entries
            /// The index of every id, made by the first share that needs it; the others wait for it.
            func shared() -> NameIndex {
                index.withLock { index in
                    if index == nil { index = NameIndex(count: entries.count) { entries[$0].notification.id } }
                    return index!
                }
            }
            let shares = (installed.count + Self.share - 1) / Self.share
            return [Int32](unsafeUninitializedCapacity: installed.count) { buffer, initialized in
                nonisolated(unsafe) let buffer = buffer
                ParallelWork.perform(iterations: shares) { part in
                    var shift = 0
                    var index: NameIndex?
                    for position in part * Self.share..<min(installed.count, (part + 1) * Self.share) {
                        let id = installed[position].notification.id
                        let guess = position + shift
                        var found: Int?
                        if entries.indices.contains(guess), entries[guess].notification.id == id {
                            found = guess
                        } else {
                            if index == nil { index = shared() }
                            found = index!.position(of: id) { entries[$0].notification.id }
                            if let found { shift = found - position }
                        }
                        (buffer.baseAddress! + position).initialize(to: Int32(found ?? -1))
                    }
                }
                initialized = installed.count
            }
        }
    }
}

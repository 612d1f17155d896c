import ChimeCore

/// The entries installed before a rebuild, found by id. A rebuild mostly loads the same notifications in the same
/// order, so each is looked for first where the one before it was found (at its own position, or shifted by as
/// many as were added or removed before it); only when that fails is an index of every id built, once.
struct PreviousEntries {
    let entries: [LoadedNotification]
    private var index: NameIndex?
    /// How far the last one found had moved: position before minus position now.
    private var shift = 0

    init(_ entries: [LoadedNotification]) {
        self.entries = entries
    }

    /// Where the notification `id`, now at `position`, was before; nil if it was not.
    mutating func position(of id: String, installedAt position: Int) -> Int? {
        guard !entries.isEmpty else { return nil }
        let guess = position + shift
        if entries.indices.contains(guess), entries[guess].notification.id == id { return guess }
        let found = entries.withUnsafeBufferPointer { entries in
            nonisolated(unsafe) let entries = entries
            if index == nil { index = NameIndex(count: entries.count) { entries[$0].notification.id } }
            return index!.position(of: id) { entries[$0].notification.id }
        }
        guard let found else { return nil }
        shift = found - position
        return found
    }
}

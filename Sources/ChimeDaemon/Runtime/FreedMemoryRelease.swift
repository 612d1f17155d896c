import CChimeShims
import ChimeCore

/// Gives the free pages of malloc's heaps back to the system once every one of a few events has happened: after
/// a rebuild, both the replaced schedule freed (on the load's queue) and the snapshot written. The heaps keep
/// what is freed for reuse, so a trim that came before the replaced schedule was freed would leave the process at
/// the high-water mark of the rebuild, with two schedules' worth resident.
final class FreedMemoryRelease: Sendable {
    private let remaining: Locked<Int>
    private let release: @Sendable () -> Void

    init(after events: Int, release: @escaping @Sendable () -> Void = { _ = chime_release_free_memory() }) {
        remaining = Locked(events)
        self.release = release
    }

    /// One of the events has happened; the last one gives the memory back, on its thread.
    func arrive() {
        let isLast = remaining.withLock { remaining in
            remaining -= 1
            return remaining == 0
        }
        if isLast { release() }
    }
}

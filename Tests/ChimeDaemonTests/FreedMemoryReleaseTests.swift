import ChimeCore
import Testing

@testable import ChimeDaemon

/// `FreedMemoryRelease`: the heaps are trimmed once, after the last of the events it waits for, whichever thread
/// that comes on.
@Suite struct FreedMemoryReleaseTests {
    @Test func releasesOnceAfterTheLastEvent() {
        let releases = Locked(0)
        let release = FreedMemoryRelease(after: 2) { releases.withLock { $0 += 1 } }
        release.arrive()
        #expect(releases.withLock { $0 } == 0)
        release.arrive()
        #expect(releases.withLock { $0 } == 1)
    }

    @Test func eventsOnManyThreadsReleaseOnce() {
        let releases = Locked(0)
        let release = FreedMemoryRelease(after: 64) { releases.withLock { $0 += 1 } }
        ParallelWork.perform(iterations: 64, threads: 4) { _ in release.arrive() }
        #expect(releases.withLock { $0 } == 1)
    }
}

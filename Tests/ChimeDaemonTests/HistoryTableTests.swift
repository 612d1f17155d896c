import ChimeCore
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// `HistoryTable`: each notification's delivery history, by id, written on the scheduler's queue.
@Suite struct HistoryTableTests {
    @Test func aFirstSightingIsRecordedOnceAndNeverMoved() {
        let earlier = TestDate.timestamp("2026-11-01 00:00 UTC")
        let later = TestDate.timestamp("2026-11-02 00:00 UTC")
        let table = HistoryTable(["known": DeliveryHistory(firstSeen: earlier, lastOccurrence: later)])
        table.recordFirstSeen(["new", "known", "other"], at: later)
        #expect(table["new"] == DeliveryHistory(firstSeen: later))
        #expect(table["other"] == DeliveryHistory(firstSeen: later))
        #expect(table["known"] == DeliveryHistory(firstSeen: earlier, lastOccurrence: later))
        table.recordFirstSeen(["new"], at: TestDate.timestamp("2026-11-03 00:00 UTC"))
        #expect(table.read("new") == DeliveryHistory(firstSeen: later))
        #expect(table.all.count == 3)
    }
}

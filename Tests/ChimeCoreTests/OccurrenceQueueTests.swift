import ChimeCore
import ChimeTestSupport
import Testing

/// The heap of pending occurrences: what comes out, and in which order, after items are taken out of its middle.
struct OccurrenceQueueTests {
    /// A schedule holds a million items: the randomized delay shares the entry's word.
    @Test func anItemIsSixteenBytesAndKeepsItsDueTime() {
        #expect(MemoryLayout<OccurrenceQueue.Item>.stride == 16)
        let item = OccurrenceQueue.Item(
            fireTime: 1_800_000_000_000_000, due: 1_800_000_000_000_000 + 4_233_600_000_000, entry: 1_999_999)
        #expect(item.due - item.fireTime == 4_233_600_000_000)
        #expect(item.entry == 1_999_999)
        #expect(OccurrenceQueue.Item(fireTime: 5, entry: 3).due == 5)
    }

    @Test func removingAnEntryLeavesTheRestInOrder() {
        var generator = SeededRandomNumberGenerator(seed: 42)
        for round in 0..<200 {
            let count = 1 + round % 60
            let items = (0..<count).map { OccurrenceQueue.Item(fireTime: Int64(generator.next() % 50), entry: $0) }
            var queue = OccurrenceQueue(items)
            let removed = Set((0..<count).filter { _ in generator.next() % 3 == 0 })
            for entry in removed { #expect(queue.remove(entry: entry)?.entry == entry) }
            #expect(queue.remove(entry: count + 1) == nil)
            var drained: [OccurrenceQueue.Item] = []
            while let first = queue.popFirst() { drained.append(first) }
            let expected = items.filter { !removed.contains($0.entry) }.sorted {
                ($0.fireTime, $0.entry) < ($1.fireTime, $1.entry)
            }
            #expect(drained == expected)
        }
    }
}

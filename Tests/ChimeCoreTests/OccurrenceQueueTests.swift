import ChimeCore
import ChimeTestSupport
import Testing

/// The heap of pending occurrences: what comes out, and in which order, after items are taken out of its middle.
struct OccurrenceQueueTests {
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

/// One copy of each notification body read during a load: a generator of reminders prints the same few bodies
/// ("Take the tablets") on thousands of lines, and a body longer than fifteen bytes is an allocation of its own in
/// each notification (shorter ones are kept inline by `String` and are not looked up). Thread-safe, since a load
/// reads on all cores, behind a lock for each part of the table chosen by the text's hash. `capacity` bounds the
/// table when the bodies are all different: past it a body is kept as it was read.
public final class SharedTexts: Sendable {
    private let shards: [Locked<Set<String>>]
    private let capacityPerShard: Int
    private static let shardCount = 16

    public init(capacity: Int = 4096) {
        shards = (0..<Self.shardCount).map { _ in Locked([]) }
        capacityPerShard = max(1, capacity / Self.shardCount)
    }

    /// `text`, or the equal text read before.
    public func shared(_ text: String) -> String {
        guard text.utf8.count > 15 else { return text }
        let shard = shards[Int(UInt(bitPattern: text.hashValue) % UInt(Self.shardCount))]
        return shard.withLock { texts in
            if let index = texts.firstIndex(of: text) { return texts[index] }
            if texts.count < capacityPerShard { texts.insert(text) }
            return text
        }
    }
}

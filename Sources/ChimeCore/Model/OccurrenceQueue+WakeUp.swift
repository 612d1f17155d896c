extension OccurrenceQueue {
    /// When to wake up for the earliest deliveries: the first one's due time, or, where `AccuracySec=` lets
    /// deliveries wait (`accuracy` of an item's entry, in microseconds), the latest instant that keeps each of them
    /// within its window, so that deliveries due close together share one wake-up. Looks at `lookahead` items at
    /// most: past them, the wake-up is no later than the next one's due time, which keeps every item in its window.
    public func wakeUp(accuracy: (Int) -> Int64, lookahead: Int = 64) -> Int64? {
        guard let first else { return nil }
        var wake = first.due + accuracy(first.entry)
        guard wake > first.due else { return wake }
        let earliest = self.earliest(lookahead + 1)
        for (position, item) in earliest.enumerated().dropFirst() {
            guard item.due < wake else { break }
            if position == lookahead { return item.due }
            wake = min(wake, item.due + accuracy(item.entry))
        }
        return wake
    }
}

import Foundation

/// What the schedule remembers about a notification between runs; it shapes the occurrences.
public struct DeliveryHistory: Sendable, Equatable {
    /// When the notification was first seen: the anchor of `Every=` and of `Count=` without `From=`.
    public var firstSeen: Date
    /// The last occurrence delivered (or deliberately skipped); later occurrences only.
    public var lastOccurrence: Date? {
        get { lastOccurrenceStored.isNaN ? nil : Date(timeIntervalSinceReferenceDate: lastOccurrenceStored) }
        set { lastOccurrenceStored = newValue?.timeIntervalSinceReferenceDate ?? .nan }
    }
    /// `lastOccurrence`, NaN for none: sixteen bytes a history instead of twenty-four, in a table of a million.
    private var lastOccurrenceStored: Double

    public init(firstSeen: Date, lastOccurrence: Date? = nil) {
        self.firstSeen = firstSeen
        lastOccurrenceStored = lastOccurrence?.timeIntervalSinceReferenceDate ?? .nan
    }

    public static func == (a: DeliveryHistory, b: DeliveryHistory) -> Bool {
        a.firstSeen == b.firstSeen && a.lastOccurrence == b.lastOccurrence
    }
}

extension Trigger {
    /// The first occurrence strictly after `instant` (and after `history.lastOccurrence`), or `nil` if there is
    /// none left.
    ///
    /// Pure: the clock and the zone come in as arguments. Wall-clock times are read in `timeZone`, or in
    /// `systemZone` when the trigger names none. `Every=` without `From=` first fires one interval after
    /// `history.firstSeen`; with `From=`, at `From=` itself.
    public func nextOccurrence(after instant: Date, history: DeliveryHistory, systemZone: ZoneRules) -> Date? {
        var after = instant.epochMicroseconds
        if let last = history.lastOccurrence?.epochMicroseconds { after = max(after, last) }
        return nextOccurrence(afterMicroseconds: after, history: history, systemZone: systemZone).map(
            Date.init(
                epochMicroseconds:))
    }

    /// The next `limit` occurrences after `instant`, for listing.
    public func occurrences(
        after instant: Date, history: DeliveryHistory, systemZone: ZoneRules, limit: Int
    ) -> [Date] {
        var result: [Date] = []
        var after = instant
        while result.count < limit, let next = nextOccurrence(after: after, history: history, systemZone: systemZone) {
            result.append(next)
            after = next
        }
        return result
    }

    func nextOccurrence(afterMicroseconds after: Int64, history: DeliveryHistory, systemZone: ZoneRules) -> Int64? {
        guard let offset = recurrence?.offset else {
            return unmovedOccurrence(after: after, history: history, systemZone: systemZone)
        }
        // Offset= moves each occurrence once all else is decided: the first whose moved time is after `after`.
        let zone = timeZone ?? systemZone
        var unmoved = offset.earliestUnmoved(movedAfter: after)
        while let next = unmovedOccurrence(after: unmoved, history: history, systemZone: systemZone) {
            let moved = offset.apply(to: next, zone: zone)
            if moved > after { return moved }
            unmoved = next
        }
        return nil
    }

    /// The first occurrence after `after` before `Offset=` moves it.
    private func unmovedOccurrence(after: Int64, history: DeliveryHistory, systemZone: ZoneRules) -> Int64? {
        let zone = timeZone ?? systemZone
        // The window opens at From= (inclusive) or just after the first time the notification was seen.
        let windowStart = from?.epochMicroseconds ?? history.firstSeen.epochMicroseconds + 1
        let windowEnd = until?.epochMicroseconds ?? Int64.max
        guard let count else {
            guard let next = earliest(atOrAfter: max(after + 1, windowStart), zone: zone, history: history) else {
                return nil
            }
            return next <= windowEnd ? next : nil
        }
        if calendars.isEmpty && instants.isEmpty && recurrence == nil, let step = intervalMicroseconds {
            // Every= alone: the k-th occurrence is at anchor + k·step, no need to walk the sequence.
            let (anchor, firstIndex) = everyAnchor(history: history)
            let wanted = max(after + 1, windowStart)
            var index = firstIndex
            if wanted > anchor { index = max(index, (wanted - anchor + step - 1) / step) }
            guard index - firstIndex < Int64(count) else { return nil }
            let next = anchor + index * step
            return next <= windowEnd ? next : nil
        }
        // Count= over a merged sequence: which occurrence is the N-th is known only by walking the sequence from the
        // window's start. The walk goes only as far as asked, and the position it reached is kept with the trigger,
        // so the scheduler, which asks in ascending order, pays for each occurrence once.
        let wanted = max(after + 1, windowStart)
        guard wanted <= windowEnd else { return nil }
        let walk = countLimit ?? CountLimit()
        guard
            let next = walk.next(
                atOrAfter: wanted, windowStart: windowStart, zone: zone, count: count, sources: sourceCount,
                first: { source, start in first(of: source, atOrAfter: start, zone: zone, history: history) }),
            next <= windowEnd
        else { return nil }
        return next
    }

    /// The sources whose occurrences merge: `At=` (all of them, one source), each `OnCalendar=`, `Every=`, each
    /// `RRule=`, then `RDate=` (all of them, one source).
    private var sourceCount: Int {
        1 + calendars.count + 1 + (recurrence.map { $0.rules.count + 1 } ?? 0)
    }

    /// The first occurrence at or after `start` of one source (numbered as in `sourceCount`) that `ExDate=` leaves.
    private func first(of source: Int, atOrAfter start: Int64, zone: ZoneRules, history: DeliveryHistory) -> Int64? {
        guard let recurrence, !recurrence.exclusions.isEmpty else {
            return firstIncluded(of: source, atOrAfter: start, zone: zone, history: history)
        }
        var start = start
        while let candidate = firstIncluded(of: source, atOrAfter: start, zone: zone, history: history) {
            guard let end = recurrence.exclusionEnd(covering: candidate, zone: zone) else { return candidate }
            start = end
        }
        return nil
    }

    private func firstIncluded(
        of source: Int, atOrAfter start: Int64, zone: ZoneRules, history: DeliveryHistory
    ) -> Int64? {
        if source == 0 { return firstInstant(atOrAfter: start) }
        if source <= calendars.count {
            return calendars[source - 1].nextElapse(afterMicroseconds: start - 1, localZone: zone)
        }
        if source == calendars.count + 1 { return firstInterval(atOrAfter: start, history: history) }
        guard let recurrence else { return nil }
        let rule = source - calendars.count - 2
        guard rule < recurrence.rules.count else { return recurrence.firstDate(atOrAfter: start, zone: zone) }
        return recurrence.rules[rule].nextInstant(
            after: start - 1, start: recurrenceStart(history: history, zone: zone), zone: zone,
            cursor: recurrence.cursors[rule])
    }

    /// DTSTART of `RRule=`: `From=` as written, or the first sighting, as seconds of the wall clock in `zone`.
    private func recurrenceStart(history: DeliveryHistory, zone: ZoneRules) -> Int64 {
        if let start = recurrence?.start { return start }
        let (seconds, _) = CivilTime.floorDivide64((from ?? history.firstSeen).epochMicroseconds, 1_000_000)
        return seconds + Int64(zone.utcOffset(at: seconds))
    }

    private var intervalMicroseconds: Int64? {
        guard let interval, !interval.isInfinite, interval.microseconds > 0,
            interval.microseconds < UInt64(Int64.max)
        else { return nil }
        return Int64(interval.microseconds)
    }

    /// The anchor of `Every=` and the index of its first occurrence (0 at `From=`, 1 after a first sighting).
    private func everyAnchor(history: DeliveryHistory) -> (anchor: Int64, firstIndex: Int64) {
        if let from { return (from.epochMicroseconds, 0) }
        return (history.firstSeen.epochMicroseconds, 1)
    }

    /// The earliest instant at or after `start` that any of the triggers produces.
    private func earliest(atOrAfter start: Int64, zone: ZoneRules, history: DeliveryHistory) -> Int64? {
        var best: Int64?
        for source in 0..<sourceCount {
            guard let candidate = first(of: source, atOrAfter: start, zone: zone, history: history) else { continue }
            if best == nil || candidate < best! { best = candidate }
        }
        return best
    }

    /// The first `At=` instant at or after `start`, by halving (they are kept sorted).
    private func firstInstant(atOrAfter start: Int64) -> Int64? {
        var low = 0
        var high = instants.count
        while low < high {
            let middle = (low + high) / 2
            if instants[middle].epochMicroseconds < start { low = middle + 1 } else { high = middle }
        }
        return low < instants.count ? instants[low].epochMicroseconds : nil
    }

    /// The first `Every=` occurrence at or after `start`.
    private func firstInterval(atOrAfter start: Int64, history: DeliveryHistory) -> Int64? {
        guard let step = intervalMicroseconds else { return nil }
        let (anchor, firstIndex) = everyAnchor(history: history)
        var index = firstIndex
        if start > anchor {
            let (quotient, overflow) = (start - anchor + step - 1).dividedReportingOverflow(by: step)
            if !overflow { index = max(index, quotient) }
        }
        let (product, overflow1) = index.multipliedReportingOverflow(by: step)
        let (value, overflow2) = anchor.addingReportingOverflow(product)
        return overflow1 || overflow2 ? nil : value
    }
}

/// How far the occurrences of a trigger with `Count=` over several sources have been counted, for the window start
/// and zone they were counted in: a notification keeps its trigger for as long as it is scheduled, and asks for its
/// next occurrence at every fire.
///
/// The walk merges the sources (`At=`, each `OnCalendar=`, `Every=`) as a k-way merge: it keeps each source's next
/// occurrence and advances only the sources that gave the one counted, so counting N occurrences asks each source
/// for about as many of its own as it contributes, not N times over (with 1,024 `OnCalendar=` events, a thousand
/// times fewer calendar searches).
///
/// A notification with `Count=` keeps one, shared by the copies of its trigger and asked from the scheduler's queue
/// and the threads that prepare a rebuild. One allocation each: the walks of different notifications rarely meet,
/// so they share a few locks instead of a mutex each, and the one source most triggers have is kept inline.
final class CountLimit: @unchecked Sendable {
    private struct Walk {
        var windowStart: Int64
        /// Held, not just compared by name: an updated tzdata gives other rules under the same name.
        var zone: ZoneRules
        /// Every occurrence before `position` has been counted; there are `counted` of them.
        var position: Int64
        var counted = 0
        /// Each source's first occurrence at or after `position` (`Int64.max`: none).
        var heads: Heads
        /// The walk reached `Count=`, or the sequence ended: there is nothing at or after `position`.
        var isFinished = false
    }

    /// The sources' heads: the first three inline, which is every source of a trigger without `RRule=` and with
    /// one `OnCalendar=` (`At=`, the event, `Every=`).
    private struct Heads {
        let count: Int
        private var inline: (Int64, Int64, Int64) = (.max, .max, .max)
        private var others: [Int64] = []

        init(count: Int, _ head: (Int) -> Int64) {
            self.count = count
            for source in 0..<count { self[source] = head(source) }
        }

        subscript(source: Int) -> Int64 {
            get {
                switch source {
                case 0: inline.0
                case 1: inline.1
                case 2: inline.2
                default: others[source - 3]
                }
            }
            set {
                switch source {
                case 0: inline.0 = newValue
                case 1: inline.1 = newValue
                case 2: inline.2 = newValue
                default:
                    if others.count < source - 2 {
                        others.append(contentsOf: repeatElement(.max, count: source - 2 - others.count))
                    }
                    others[source - 3] = newValue
                }
            }
        }

        var earliest: Int64 { others.reduce(min(inline.0, inline.1, inline.2), min) }
    }

    // `walk` is read and written only under `lock`.
    private var walk: Walk?

    private static let locks = (0..<64).map { _ in Locked(()) }
    private var lock: Locked<Void> { Self.locks[ObjectIdentifier(self).hashValue & 63] }

    /// The first of the first `count` occurrences that is at or after `wanted`, walking from where the walk stopped
    /// last (or from the window's start) only as far as that one. `first(source, start)` is the first occurrence
    /// of one of the `sources` at or after `start`.
    func next(
        atOrAfter wanted: Int64, windowStart: Int64, zone: ZoneRules, count: Int, sources: Int,
        first: (Int, Int64) -> Int64?
    ) -> Int64? {
        var state = lock.withLock { _ in walk }
        if state == nil || state!.windowStart != windowStart || !state!.zone.isSame(as: zone)
            || state!.heads.count != sources
        {
            let heads = Heads(count: sources) { first($0, windowStart) ?? .max }
            state = Walk(windowStart: windowStart, zone: zone, position: windowStart, heads: heads)
        }
        // Taken out of `state`, so that the heads beyond the third are not copied to be changed.
        var current = state.take()!
        defer { lock.withLock { _ in walk = current } }
        if wanted < current.position {
            // One of those already counted, if any is at or after `wanted`.
            var best = Int64.max
            for source in 0..<sources {
                if let next = first(source, wanted), next < best { best = next }
            }
            if best < current.position { return best }
        }
        while !current.isFinished && current.counted < count {
            let next = current.heads.earliest
            guard next != .max else {
                current.isFinished = true
                break
            }
            current.counted += 1
            current.position = next + 1
            for source in 0..<sources where current.heads[source] == next {
                current.heads[source] = first(source, next + 1) ?? .max
            }
            if current.counted == count { current.isFinished = true }
            if next >= wanted { return next }
        }
        return nil
    }
}

import Foundation

/// Wall time to instant, as glibc's `mktime` finds it.
extension ZoneRules {
    /// Converts wall-clock time to an instant as glibc's `mktime(3)` does: normalises out-of-range fields of `time`
    /// in place (filling in weekday, offset and abbreviation) and returns seconds since the epoch, or `nil` where
    /// `mktime` fails (then `time` is left as it was).
    ///
    /// The instant is found the way glibc finds it, so that every DST corner comes out the same: starting from
    /// the wall time read with `offsetHint` (glibc remembers the offset of its previous successful conversion),
    /// each guess is corrected by the difference between the wanted and the obtained wall time.
    /// - A wall time that occurs twice resolves to the occurrence that search reaches first, unless `isDST`
    ///   (0 or 1) asks for the flavour of the other one.
    /// - A wall time in a gap makes the guesses alternate between the two sides; the answer is the side whose
    ///   flavour differs from the requested `isDST`, or with `isDST == -1` the daylight side (so Berlin's 02:30
    ///   on the spring-forward day reads as 03:30 CEST) and between two sides of one flavour the side reached
    ///   first (Kiritimati's 1979 gap: forward from the earlier offset, backward from the later). Where no side
    ///   will do — a gap between two standard times asked for as standard time — `mktime` fails.
    /// - A wall time that exists only in the other flavour than `isDST` asks for is read with the offset of the
    ///   nearest instant of that flavour (searched a week at a time, up to about seven years either way), or else
    ///   shifted by one hour.
    /// - Seconds beyond 59 (or below 0) are added after the search, as for a leap second.
    ///
    /// `offsetHint` is updated to the offset the conversion settled on; a failed conversion leaves it alone.
    public func makeTime(_ time: inout LocalDateTime, offsetHint: inout Int) -> Int64? {
        if let (instant, typeIndex) = uniqueInstant(
            forLocal: time.localSeconds, offset: offsetHint, isDST: time.isDST)
        {
            // glibc's first guess is right and the offset it remembers stays the same.
            let type = types[typeIndex]
            let local = instant + Int64(type.utcOffset)
            if time.isInRange {
                time.weekday = CivilTime.weekday(days: Int(CivilTime.floorDivide64(local, 86_400).quotient))
            } else {
                time.setFields(localSeconds: local)
            }
            time.isDST = type.isDST ? 1 : 0
            time.utcOffset = type.utcOffset
            time.abbreviation = type.abbreviation
            return instant
        }
        let requestedSecond = time.second
        var wanted = time
        wanted.second = min(max(requestedSecond, 0), 59)
        let local = wanted.localSeconds
        let isDST = time.isDST
        var instant = local - Int64(offsetHint)
        var converted = localTime(at: instant)

        if isPlainFixedOffset(isDST: isDST) {
            // A fixed offset: the first correction is exact.
            instant = local - Int64(converted.utcOffset)
            converted = localTime(at: instant)
        } else if let found = search(local: local, isDST: isDST, from: instant) {
            (instant, converted) = found
        } else {
            return nil
        }
        offsetHint = Int(local - instant)

        if requestedSecond != converted.second {
            // The seconds were clamped for the search; put the requested ones back (one more if the search landed
            // on a leap second while 0 was asked for).
            var adjustment = Int64(requestedSecond - wanted.second)
            if wanted.second == 0 && converted.second == 60 { adjustment += 1 }
            instant += adjustment
            converted = localTime(at: instant)
        }
        time = converted
        return instant
    }

    /// `makeTime(_:offsetHint:)` on the fields without the abbreviation, for the calendar search: its two common
    /// cases (a wall time far from any transition read with the remembered offset, and a plain fixed offset) are
    /// answered here without building a `LocalDateTime`, the others by `makeTime(_:offsetHint:)` itself.
    @inline(__always)
    func makeTime(_ time: inout LocalDateTime.Fields, offsetHint: inout Int) -> Int64? {
        let local = time.localSeconds
        let instant: Int64
        let type: Int
        if let (unique, uniqueType) = uniqueInstant(forLocal: local, offset: offsetHint, isDST: time.isDST) {
            instant = unique
            type = uniqueType
        } else if isPlainFixedOffset(isDST: time.isDST) {
            // As the general path: the first correction is exact, seconds out of range carry over.
            type = initialType
            instant = local - Int64(types[type].utcOffset)
            offsetHint = types[type].utcOffset
        } else {
            var general = LocalDateTime(fields: time, abbreviation: "")
            guard let instant = makeTime(&general, offsetHint: &offsetHint) else { return nil }
            time = general.fields
            return instant
        }
        if time.isInRange {
            time.weekday = CivilTime.weekday(days: Int(CivilTime.floorDivide64(local, 86_400).quotient))
        } else {
            time.setFields(localSeconds: local)
        }
        time.isDST = types[type].isDST ? 1 : 0
        time.utcOffset = types[type].utcOffset
        return instant
    }

    /// The common case, with one lookup: `local` read with `offset` lands in a period of that offset, of the
    /// requested flavour, at least a day from either end of it — so no other reading exists, and glibc's first
    /// guess is its answer.
    @inline(__always)
    func uniqueInstant(forLocal local: Int64, offset: Int, isDST: Int) -> (Int64, Int)? {
        guard !transitions.isEmpty && leapSeconds.isEmpty else { return nil }
        let guess = local - Int64(offset)
        let index = transitionIndex(atOrBefore: guess)
        let type = index < 0 ? initialType : transitionTypes[index]
        guard types[type].utcOffset == offset, isDST < 0 || types[type].isDST == (isDST > 0) else { return nil }
        let margin: Int64 = 26 * 3_600
        if index >= 0 && guess - transitions[index] <= margin { return nil }
        if index + 1 < transitions.count && transitions[index + 1] - guess <= margin { return nil }
        return (guess, type)
    }

    /// Whether the zone has one offset and no leap seconds, and `isDST` does not ask for another flavour: then
    /// wall time in range converts back to itself.
    @inline(__always)
    func isPlainFixedOffset(isDST: Int) -> Bool {
        transitions.isEmpty && leapSeconds.isEmpty && (isDST < 0 || (isDST > 0) == types[initialType].isDST)
    }

    /// `makeTime(_:offsetHint:)` without a remembered offset.
    public func makeTime(_ time: inout LocalDateTime) -> Int64? {
        var hint = 0
        return makeTime(&time, offsetHint: &hint)
    }

    /// glibc's guess-and-correct search for the instant whose wall time is `local`, starting at `guess`.
    private func search(local: Int64, isDST: Int, from guess: Int64) -> (Int64, LocalDateTime)? {
        var instant = guess
        // The two previous guesses, to notice alternation across a gap, and the flavour of the last one.
        var previous = guess
        var beforePrevious = guess
        var previousWasDST = false
        var probesLeft = 6
        var converted: LocalDateTime
        while true {
            converted = localTime(at: instant)
            let error = local - converted.localSeconds
            if error == 0 { break }
            let isDaylight = converted.isDST > 0
            if instant == beforePrevious && instant != previous {
                // Alternating across a gap: settle on this side if its flavour is the preferred one.
                let preferred = isDST < 0 ? (!previousWasDST || isDaylight) : ((isDST != 0) != isDaylight)
                if preferred { return (instant, converted) }
            }
            probesLeft -= 1
            if probesLeft == 0 { return nil }
            beforePrevious = previous
            previous = instant
            instant += error
            previousWasDST = isDaylight
        }
        guard isDST >= 0 && (isDST > 0) != (converted.isDST > 0) else { return (instant, converted) }

        // The wall time exists, but in the other flavour: borrow the offset of the nearest instant that has the
        // requested one.
        let stride: Int64 = 601_200
        let bound: Int64 = 457_243_200 / 2 + stride
        var distance = stride
        while distance < bound {
            for direction: Int64 in [-1, 1] {
                let probe = localTime(at: instant + direction * distance)
                if (probe.isDST > 0) == (isDST > 0) {
                    let borrowed = instant + direction * distance + (local - probe.localSeconds)
                    return (borrowed, localTime(at: borrowed))
                }
            }
            distance += stride
        }
        // None near: assume daylight saving time is one hour ahead.
        let shifted = instant + (isDST > 0 ? -3_600 : 3_600)
        return (shifted, localTime(at: shifted))
    }
}

import ChimeCore
import Foundation

extension Scheduler {
    /// The machine is about to suspend or hibernate (logind's `PrepareForSleep(true)`): logged, and the moment kept,
    /// so that the resume can say how long the machine slept.
    public func sleeping() {
        onQueue()
        let now = clock.now()
        sleepingSince = now
        log.record(
            DaemonEvent(
                .sleeping, "The system is going to sleep at \(Timestamp.iso8601(now, fraction: .microseconds)).",
                fields: [("CHIME_NOW", Timestamp.iso8601(now, fraction: .microseconds))]))
    }

    /// The machine resumed (`PrepareForSleep(false)`): what fell due while it slept is handled at once, as after a
    /// jump of the clock: each notification's occurrences missed by more than the threshold collapse into one
    /// `missed` event, or, with `Persistent=yes`, one late delivery; what is only a little late is delivered.
    public func resumed() {
        onQueue()
        let now = clock.now()
        var fields: [(name: String, value: String)] = [("CHIME_NOW", Timestamp.iso8601(now, fraction: .microseconds))]
        var message = "The system resumed"
        if let since = sleepingSince {
            let slept = max(.zero, now.duration(since: since))
            fields.append(("CHIME_SLEPT_USEC", String(slept.wholeMicroseconds)))
            message += " after sleeping \(Timespan(slept.roundedToSeconds)!)"
        }
        sleepingSince = nil
        log.record(DaemonEvent(.resumed, message + "; handling what fell due meanwhile.", fields: fields))
        timerFired()
    }
}

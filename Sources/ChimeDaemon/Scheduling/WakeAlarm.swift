import Foundation

/// The timer that wakes a suspended system (`CLOCK_REALTIME_ALARM`, or the system instance's over the bus for a
/// user's instance) for the scheduler's earliest occurrence with `WakeSystem=yes` and for the wake-ups users'
/// instances ask the system instance for; and what tells that it was what woke the system: time asleep since it
/// was armed.
///
/// Used on the scheduler's queue; its timer calls back there.
public final class WakeAlarm: @unchecked Sendable {
    private let timer: any WallTimer
    private let timeAsleep: @Sendable () -> Duration
    /// `timeAsleep()` when the alarm was armed.
    private var asleepWhenArmed = Duration.zero
    /// The wake-ups users' instances asked for (`WakeService`), by user id.
    private(set) var userWakes: [UInt32: Date] = [:]

    /// - Parameters:
    ///   - timer: the alarm's own timer.
    ///   - timeAsleep: how long the system has been suspended since it booted.
    public init(timer: any WallTimer, timeAsleep: @escaping @Sendable () -> Duration = { .zero }) {
        self.timer = timer
        self.timeAsleep = timeAsleep
    }

    /// What runs when the alarm expires (the scheduler's `alarmFired`).
    func setHandler(_ handler: @escaping @Sendable () -> Void) {
        timer.setHandler(handler)
    }

    /// Arms for the earliest of `notificationsDue` and the users' wake-ups, or disarms when there is neither.
    func rearm(notificationsDue: Date?) {
        guard let earliest = [notificationsDue, userWakes.values.min()].compactMap({ $0 }).min() else {
            if timer.deadline != nil { timer.cancel() }
            return
        }
        if timer.deadline?.epochMicroseconds != earliest.epochMicroseconds {
            asleepWhenArmed = timeAsleep()
            timer.arm(at: earliest)
        }
    }

    /// The alarm expired at `now`: the users whose wake-up came, which is done with (their instance asks again for
    /// its next), and how long the system slept since the alarm was armed.
    func expired(now: Date) -> (users: [UInt32], slept: Duration) {
        let asleep = timeAsleep()
        let slept = asleep - asleepWhenArmed
        asleepWhenArmed = asleep
        let users = userWakes.filter { $0.value <= now }.keys.sorted()
        for uid in users { userWakes[uid] = nil }
        return (users, slept)
    }

    /// The wake-up the instance of user `uid` asks for, replacing the one it asked for before; `nil` withdraws it.
    func setUserWake(_ uid: UInt32, at instant: Date?) {
        userWakes[uid] = instant
    }
}

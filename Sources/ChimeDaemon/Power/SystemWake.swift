import ChimeCore

/// What `WakeSystem=yes` has to work with in this chimed (`SystemWaking.make`), given to the scheduler at its start:
/// the alarm that wakes a suspended system, what keeps it awake while a delivery that woke it is in flight, and why
/// the system cannot be woken, when it cannot.
public struct SystemWake: Sendable {
    public var alarm: WakeAlarm?
    public var sleepHold: (any SleepHolding)?
    /// Why `WakeSystem=yes` cannot be honoured (`nil` when it can): the loader refuses it then.
    public var refusal: String?

    public init(alarm: WakeAlarm? = nil, sleepHold: (any SleepHolding)? = nil, refusal: String? = nil) {
        self.alarm = alarm
        self.sleepHold = sleepHold
        self.refusal = refusal
    }
}

/// Keeps the machine awake while a delivery that may have woken it is in flight (`SleepInhibitor`, logind's delay
/// inhibitor).
public protocol SleepHolding: Sendable {
    /// Takes a hold for `why`; returns what releases it.
    func hold(_ why: String) -> @Sendable () -> Void
}

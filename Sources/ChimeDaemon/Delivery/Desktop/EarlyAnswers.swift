/// The server's answers (`ActionInvoked`, `NotificationClosed`) for bubbles the desktop backend does not know yet,
/// held while one of its `Notify` calls waits to be taken in.
///
/// A server may send an answer before its reply to `Notify` (one that closes a bubble it will not show at once),
/// and even when the reply comes first, the backend may take the signal in first: the two reach the actor on
/// different paths. An answer for an unknown id is therefore held until the pending calls are done and handled
/// when one of them turns out to have put up that bubble; with no call pending, an unknown id is another client's.
struct EarlyAnswers {
    /// How many answers are held at most (the latest ones).
    let limit: Int
    private var held: [DesktopSignal] = []
    private var callsInFlight = 0

    init(limit: Int) { self.limit = limit }

    mutating func callStarted() { callsInFlight += 1 }

    /// After a call's reply has been taken in (or it failed): with none left in flight, nothing held can be ours.
    mutating func callEnded() {
        callsInFlight -= 1
        if callsInFlight == 0 { held.removeAll() }
    }

    /// Holds `signal` when a call is in flight, and drops it otherwise.
    mutating func hold(_ signal: DesktopSignal) {
        guard callsInFlight > 0 else { return }
        held.append(signal)
        if held.count > limit { held.removeFirst(held.count - limit) }
    }

    /// The answers held for the bubble `serverID`, in the order they came, no longer held.
    mutating func take(for serverID: UInt32) -> [DesktopSignal] {
        let taken = held.filter { $0.serverID == serverID }
        if !taken.isEmpty { held.removeAll { $0.serverID == serverID } }
        return taken
    }
}

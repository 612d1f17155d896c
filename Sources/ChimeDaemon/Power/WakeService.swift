import ChimeCore
import ChimeSystemd
import Foundation

/// The system instance's `org.chime.Wake1` at `/org/chime/Wake1`, beside the application interface on the system
/// bus: a user's instance, which cannot hold CAP_WAKE_ALARM, asks it to wake the system for the earliest of its
/// notifications with `WakeSystem=yes` (`RemoteAlarm`). Each user has one wake-up, which every call replaces;
/// the caller is known by the bus daemon's word, never its own. What users asked for is kept across restarts in
/// `STATE_DIRECTORY/wake-requests.json`.
///
/// `SetWakeAlarm(x usec)`: microseconds since the epoch, at most a year ahead; 0 withdraws it. Errors:
/// `org.chime.Wake1.Error.InvalidArgument`, `org.chime.Wake1.Error.LimitExceeded` (more users than `maximumUsers`),
/// `org.chime.Wake1.Error.NotSupported` (this chimed cannot wake the system).
final class WakeService: @unchecked Sendable {
    static let path = "/org/chime/Wake1"
    static let interface = "org.chime.Wake1"
    /// How many users may have a wake-up at once.
    static let maximumUsers = 1024
    static let horizon = Duration.seconds(366 * 86_400)

    private let queue: DispatchQueue
    private let scheduler: Scheduler
    private let clock: any WallClock
    private let file: StateListFile
    private let log: any EventLog
    /// Why this chimed cannot wake the system, if it cannot: every request is refused with it.
    private let refusal: String?

    init(
        queue: DispatchQueue, scheduler: Scheduler, stateDirectory: String, refusal: String?, clock: any WallClock,
        log: any EventLog
    ) {
        self.queue = queue
        self.refusal = refusal
        self.scheduler = scheduler
        self.clock = clock
        self.log = log
        file = StateListFile(
            path: stateDirectory + "/wake-requests.json", member: "wake_requests",
            unreadable: "is not a chime file of wake-up requests; the wake-ups in it are lost",
            unwritable: "Cannot keep the users' wake-up requests", log: log)
    }

    /// Takes up what users asked for before a restart (on the scheduler's queue), leaving out what is past.
    func restore() {
        dispatchPrecondition(condition: .onQueue(queue))
        let now = clock.now()
        for item in file.load() {
            guard let uid = (item["uid"] as? NSNumber)?.uint32Value,
                let due = ((item["due_usec"] as? NSNumber)?.int64Value).map({ Date(epochMicroseconds: $0) }),
                due > now
            else { continue }
            scheduler.setUserWake(uid, at: due)
        }
    }

    /// Exports the object on `connection` (before the name is taken, as the application interface is).
    func export(on connection: BusConnection) async throws {
        try await connection.exportObject(path: Self.path) { [weak self] call in
            self?.received(call, connection: connection)
        }
    }

    private func received(_ call: BusMethodCall, connection: BusConnection) {
        guard call.interface == Self.interface, call.member == "SetWakeAlarm" else {
            call.reply(
                error: "org.freedesktop.DBus.Error.UnknownMethod",
                "No method \(call.member) in interface \(call.interface) at \(call.path)")
            return
        }
        guard call.signature == "x", let requested = try? call.read({ try $0.readInt64() }) else {
            call.reply(
                error: "org.freedesktop.DBus.Error.InvalidArgs", "SetWakeAlarm takes (x), not (\(call.signature))")
            return
        }
        if let refusal {
            call.reply(error: "\(Self.interface).Error.NotSupported", "This chimed cannot wake the system: \(refusal)")
            return
        }
        // Microseconds since the epoch on the wire; 0 withdraws.
        let instant = requested == 0 ? nil : Date(epochMicroseconds: requested)
        guard requested >= 0 && instant.map({ $0 <= clock.now() + Self.horizon }) != false else {
            call.reply(
                error: "\(Self.interface).Error.InvalidArgument",
                "A wake-up is microseconds since the epoch, at most a year ahead, or 0 to withdraw it.")
            return
        }
        Task {
            let uid: uid_t
            do {
                uid = try await connection.credentials(of: call.sender).uid
            } catch {
                call.reply(
                    error: "org.freedesktop.DBus.Error.AccessDenied", "Cannot tell who calls (\(error)); refused.")
                return
            }
            queue.async { self.set(call, uid: uid, instant: instant) }
        }
    }

    /// On the scheduler's queue.
    private func set(_ call: BusMethodCall, uid: uid_t, instant: Date?) {
        dispatchPrecondition(condition: .onQueue(queue))
        var wakes = scheduler.userWakeTimes
        if instant != nil && wakes[uid] == nil && wakes.count >= Self.maximumUsers {
            call.reply(
                error: "\(Self.interface).Error.LimitExceeded",
                "\(Self.maximumUsers) users have a wake-up already, the most chimed takes.")
            return
        }
        scheduler.setUserWake(uid, at: instant)
        wakes[uid] = instant
        file.save(
            wakes.sorted { $0.key < $1.key }.map {
                .object([("uid", .number(Int64($0.key))), ("due_usec", .number($0.value.epochMicroseconds))])
            })
        call.reply()
    }
}

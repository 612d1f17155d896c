import Foundation

/// When the delivery of an occurrence is due, with systemd.timer(5)'s meaning of the `[Trigger]` keys
/// `RandomizedDelaySec=`, `FixedRandomDelay=`, `AccuracySec=` and `WakeSystem=`.
///
/// An occurrence keeps its time: that is what the history records and `CHIME_FIRE_TIME` names. Its delivery is due
/// later by a delay spread evenly over `0...randomizedDelay`, drawn anew for each occurrence and at each start of
/// chimed, or, with `FixedRandomDelay=yes`, the same for a notification on a host, from the machine id and the
/// notification's id: the hosts of a fleet that all post a webhook at 09:00 spread out, each at its own moment,
/// every day. `AccuracySec=` lets a delivery wait that much longer still, so that deliveries close together share
/// one wake-up; the default, 0, is exact. `WakeSystem=yes` wakes a suspended machine for the delivery.
public struct DeliveryTiming: Sendable, Equatable {
    /// The most a delivery is delayed.
    public var randomizedDelay: Duration = .zero
    public var isFixedRandomDelay = false
    /// How much later than due a delivery may come to share a wake-up.
    public var accuracy: Duration = .zero
    /// Whether the machine is woken from suspend for the delivery.
    public var wakesSystem = false

    public init(
        randomizedDelay: Duration = .zero, isFixedRandomDelay: Bool = false, accuracy: Duration = .zero,
        wakesSystem: Bool = false
    ) {
        self.randomizedDelay = randomizedDelay
        self.isFixedRandomDelay = isFixedRandomDelay
        self.accuracy = accuracy
        self.wakesSystem = wakesSystem
    }

    /// The longest `RandomizedDelaySec=` and `AccuracySec=`: seven weeks, far beyond any use, so that a delay fits
    /// the 32 bits of milliseconds the schedule keeps it in (`OccurrenceQueue.Item`).
    public static let longest = Timespan(microseconds: 49 * 86_400 * 1_000_000)

    /// Whether every delivery is due exactly at its occurrence.
    public var isExact: Bool { randomizedDelay == .zero && accuracy == .zero }

    /// The delay of the delivery of notification `id`'s occurrence at `fireTime`: whole milliseconds.
    public func delay(id: String, fireTime: Date, seeds: DelaySeeds) -> Duration {
        guard randomizedDelay > .zero else { return .zero }
        var hash = StableHash()
        hash.combine(isFixedRandomDelay ? seeds.host : seeds.run)
        hash.combine(id)
        if !isFixedRandomDelay { hash.combine(UInt64(bitPattern: fireTime.epochMicroseconds)) }
        return .milliseconds(Int64(hash.mixed % UInt64(randomizedDelay.wholeMilliseconds + 1)))
    }

    /// The keys as a notification file gives them, for summaries (`RandomizedDelaySec=5min FixedRandomDelay=yes`).
    public var summary: String {
        var parts: [String] = []
        if randomizedDelay > .zero {
            parts.append("RandomizedDelaySec=\(Timespan(microseconds: UInt64(randomizedDelay.wholeMicroseconds)))")
            if isFixedRandomDelay { parts.append("FixedRandomDelay=yes") }
        }
        if accuracy > .zero {
            parts.append("AccuracySec=\(Timespan(microseconds: UInt64(accuracy.wholeMicroseconds)))")
        }
        if wakesSystem { parts.append("WakeSystem=yes") }
        return parts.joined(separator: " ")
    }
}

/// What randomized delays are drawn from: `host`, the same on a host for as long as its machine id stays, for
/// `FixedRandomDelay=yes`; `run`, new at each start of chimed, for the others.
public struct DelaySeeds: Sendable, Equatable {
    public var host: UInt64
    public var run: UInt64

    public init(host: UInt64, run: UInt64) {
        self.host = host
        self.run = run
    }

    /// The host's seed from its machine id (machine-id(5): 32 hexadecimal digits).
    public static func host(machineID: String) -> UInt64 {
        var hash = StableHash()
        hash.combine(machineID.trimmingCharacters(in: .whitespacesAndNewlines).lowercased())
        return hash.mixed
    }
}

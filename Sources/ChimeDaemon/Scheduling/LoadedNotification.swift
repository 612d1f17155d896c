import ChimeCore
import Foundation

/// A notification as loaded, with where it came from.
public struct LoadedNotification: Sendable {
    /// Which kind of source it came from.
    public enum Kind: UInt64, Sendable {
        /// A notification file of the configuration directories.
        case file = 0
        /// A line of a generator's output.
        case generator = 1
        /// A request of `chimectl add`.
        case added = 2
        /// An application's request (its id is `APP_ID:ID`, `ApplicationRequests.scheduleID`).
        case application = 3
    }

    public var notification: ScheduledNotification
    /// The file (or generator, or runtime request) it came from.
    public var source: String
    /// The kind, and a generator's line or the files' fingerprint, in one word: the payload shifted left by two,
    /// the kind in the two lowest bits. It fits where the entry had padding, and each of a million entries stays
    /// 136 bytes.
    private let origin: UInt64

    /// One from `source`: a generator's line `line`, or a file without a fingerprint (`line` nil).
    public init(notification: ScheduledNotification, source: String, line: Int? = nil) {
        self.notification = notification
        self.source = source
        origin = line.map { UInt64(clamping: max($0, 0)) << 2 | Kind.generator.rawValue } ?? Kind.file.rawValue
    }

    /// Read from the files of `source` whose fingerprint is `fingerprint` (0: files not to be known again).
    public init(notification: ScheduledNotification, source: String, fingerprint: Int = 0, kind: Kind) {
        self.notification = notification
        self.source = source
        origin = Self.payload(of: fingerprint) << 2 | kind.rawValue
    }

    /// An application's request, read from `source`.
    public init(application notification: ScheduledNotification, source: String) {
        self.notification = notification
        self.source = source
        origin = Kind.application.rawValue
    }

    public var kind: Kind { Kind(rawValue: origin & 3)! }

    /// A request, `chimectl add`'s or an application's: with nothing left to fire, it is finished once its
    /// delivery is done, and its file goes (`AddedRequests`).
    var isRequest: Bool { kind == .added || kind == .application }

    /// The positions of the requests among `entries` (`isRequest`).
    static func requestPositions(in entries: [LoadedNotification]) -> Set<Int> {
        Set(positions(in: entries) { kind, _ in kind == .added || kind == .application })
    }

    /// The positions of those among `entries` read from files whose fingerprint they keep (`fingerprinted`).
    static func fingerprintedPositions(in entries: [LoadedNotification]) -> [Int] {
        positions(in: entries) { kind, payload in (kind == .file || kind == .added) && payload != 0 }
    }

    /// The positions of the entries whose kind and payload pass `test`, each entry's stored word read in place:
    /// asking a computed property of `entries[i]` copies the entry out, with a retain of everything it holds, which a
    /// million entries feel.
    private static func positions(
        in entries: [LoadedNotification], where test: (Kind, _ payload: UInt64) -> Bool
    ) -> [Int] {
        var positions: [Int] = []
        for index in entries.indices {
            let origin = entries[index].origin
            if test(Kind(rawValue: origin & 3)!, origin >> 2) { positions.append(index) }
        }
        return positions
    }

    /// The line of `source` it came from, where that is one line (a generator's output).
    public var line: Int? {
        kind == .generator && origin >> 2 != 0 ? Int(origin >> 2) : nil
    }

    /// For a notification read from files, whether they are the files of `bytes` (their fingerprint and path):
    /// how `FileReuse` knows them again at the next rebuild.
    func wasRead(from bytes: NotificationBytes) -> Bool {
        fingerprinted && origin >> 2 == Self.payload(of: bytes.fingerprint) && source == bytes.paths[0]
    }

    /// Whether it was read from files whose fingerprint it keeps.
    var fingerprinted: Bool { (kind == .file || kind == .added) && origin >> 2 != 0 }

    private static func payload(of fingerprint: Int) -> UInt64 {
        UInt64(bitPattern: Int64(fingerprint)) & (UInt64.max >> 2)
    }

    /// Where a delivery of it comes from.
    var deliveryOrigin: DeliveryOrigin {
        switch kind {
        case .file: return .file
        case .generator: return .generator
        case .added: return .added
        case .application:
            // The loader made the id of the two parts (`ApplicationRequests.scheduleID`).
            let (appID, id) = ApplicationRequests.parts(ofScheduleID: notification.id) ?? ("", notification.id)
            return .application(appID: appID, id: id)
        }
    }

    /// The notification of the entry at `entry`, where it lies: an entry taken from a buffer by value is copied
    /// whole, retaining and releasing each of its parts, which another thread or an earlier load made.
    static func notification(of entry: UnsafePointer<LoadedNotification>) -> UnsafePointer<ScheduledNotification> {
        (UnsafeRawPointer(entry) + notificationOffset).assumingMemoryBound(to: ScheduledNotification.self)
    }

    private static let notificationOffset = MemoryLayout<LoadedNotification>.offset(of: \.notification)!
}

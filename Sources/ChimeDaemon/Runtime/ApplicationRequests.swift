import ChimeCore
import ChimePlatform
import Foundation

/// The requests applications made over D-Bus (`org.chime.Notifications1.Add`): a notification file each in the
/// state directory, in a directory of each application's own (`apps/APP_ID/ID.notification`), so that they last
/// across restarts and one application's are apart from another's.
///
/// In the schedule, a request's id is `APP_ID:ID`: an application id has no `:`, so the two parts are always told
/// apart, and no application can name another's request.
public struct ApplicationRequests: Sendable {
    /// `STATE/apps`.
    public let directory: String
    /// How many requests one application may have pending unless chimed.conf says otherwise
    /// (`MaxRequestsPerApp=`).
    public static let defaultMaximumPerApp = 4096
    /// The largest request taken, as the notification file it is stored as.
    public static let maximumRequestSize = 64 << 10
    /// The most bytes one application's requests may take as notification files: `GetPending`'s answer, which holds
    /// them all, stays well within the 32 MiB a message may have on the system bus (128 MiB on a session bus).
    public static let maximumBytesPerApp = 16 << 20
    /// How many requests all applications together may have pending unless chimed.conf says otherwise
    /// (`MaxRequests=`).
    public static let defaultMaximumTotal = 16_384
    /// The most bytes all applications' requests may take unless chimed.conf says otherwise (`MaxRequestBytes=`).
    public static let defaultMaximumTotalBytes = 64 << 20

    /// The shortest time apart one request may fire, whatever chimed.conf allows files: an application is held to
    /// what iOS holds it to.
    public static let minimumInterval = Duration.seconds(60)

    /// `loader` as it loads applications' requests: at most once a minute, and rules of a bounded `COUNT`
    /// (`InputLimits.maximumSteppedCount`), so that one request costs a bounded amount of work to place.
    public static func restricting(_ loader: NotificationLoader) -> NotificationLoader {
        var loader = loader
        if loader.minimumInterval < minimumInterval {
            loader.minimumInterval = minimumInterval
            loader.minimumIntervalSetting = "for an application's request"
        }
        loader.maximumRecurrenceCount = InputLimits.maximumSteppedCount
        return loader
    }

    /// The longest id of a request: its file and the temporary file it is written through fit a file name (255
    /// bytes), whatever the process id.
    public static let maximumIDLength = 200
    /// The longest `APP_ID:ID`, the request's id in the schedule (`NotificationLoader.isValidID`).
    public static let maximumScheduleIDLength = 255

    /// Why `id` cannot name a request of `appID` (`nil`: it can): one message for each limit.
    public static func idRefusal(_ id: String, appID: String) -> String? {
        let length = id.utf8.count
        if length > maximumIDLength {
            return "The id is \(InputLimits.grouped(length)) bytes long; an id may have at most \(maximumIDLength)."
        }
        if appID.utf8.count + 1 + length > maximumScheduleIDLength {
            return
                "app_id and id are \(InputLimits.grouped(appID.utf8.count + length)) bytes together; they may have at "
                + "most \(maximumScheduleIDLength - 1)."
        }
        guard NotificationLoader.isValidID(id) else {
            return "Invalid id '\(id)': use letters, digits and '-_.@:', not starting with '.'."
        }
        return nil
    }

    public init(stateDirectory: String) {
        directory = stateDirectory + "/apps"
    }

    /// Whether `appID` is a desktop-file id as the Desktop Entry specification describes D-Bus-activatable ones:
    /// two or more elements of ASCII letters, digits, `_` and `-`, separated by `.`, none empty or starting with a
    /// digit, at most 255 bytes.
    public static func isValidAppID(_ appID: String) -> Bool {
        let elements = appID.split(separator: ".", omittingEmptySubsequences: false)
        guard appID.utf8.count <= 255, elements.count >= 2 else { return false }
        return elements.allSatisfy { element in
            guard let first = element.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
            return element.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-")
            }
        }
    }

    /// The schedule's id of `appID`'s request `id`.
    public static func scheduleID(appID: String, id: String) -> String {
        appID + ":" + id
    }

    /// The application and the request of a schedule id made by `scheduleID(appID:id:)`.
    public static func parts(ofScheduleID scheduleID: String) -> (appID: String, id: String)? {
        guard let colon = scheduleID.firstIndex(of: ":") else { return nil }
        return (String(scheduleID[..<colon]), String(scheduleID[scheduleID.index(after: colon)...]))
    }

    public func path(appID: String, id: String) -> String {
        "\(directory)/\(appID)/\(id).notification"
    }

    /// Stores `text` as `appID`'s request `id`, replacing one of the same id.
    public func store(_ text: String, appID: String, id: String) throws {
        try FileManager.default.createDirectory(
            atPath: directory + "/" + appID, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        try AtomicFile.write(text, to: path(appID: appID, id: id))
    }

    /// The ids of `appID`'s stored requests, sorted.
    public func ids(appID: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/" + appID)) ?? []
        return names.filter { $0.hasSuffix(".notification") }.map { String($0.dropLast(".notification".count)) }
            .sorted()
    }

    /// The sizes of `appID`'s stored requests, by id.
    public func sizes(appID: String) -> [String: Int] {
        var sizes: [String: Int] = [:]
        for id in ids(appID: appID) {
            var status = stat()
            if lstat(path(appID: appID, id: id), &status) == 0 { sizes[id] = Int(status.st_size) }
        }
        return sizes
    }

    /// Removes `appID`'s requests `ids`; unknown ids are ignored. Returns whether any was removed.
    @discardableResult
    public func remove(appID: String, ids: [String]) -> Bool {
        ids.filter { NotificationLoader.isValidID($0) && unlink(path(appID: appID, id: $0)) == 0 }.count > 0
    }

    /// Every application with a directory of requests.
    public func appIDs() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter(Self.isValidAppID).sorted()
    }
}

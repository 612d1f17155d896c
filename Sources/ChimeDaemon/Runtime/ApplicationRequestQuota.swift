import ChimeCore
import Dispatch
import Foundation

/// What applications' requests take of chimed, counted against the limits before a request is stored: each
/// application's requests and their bytes as notification files, and all applications' together.
///
/// The counts are read from the state directory once (all applications at the first check) and then kept up to
/// date by `stored` and `removed`; requests that fired for the last time leave without a call, so a check that
/// finds a limit reached reads the counts again before it refuses. Bound to the scheduler's queue.
final class ApplicationRequestQuota: @unchecked Sendable {
    /// The limits, from chimed.conf but for the fixed bytes of one application.
    struct Limits: Equatable {
        var requestsPerApp = ApplicationRequests.defaultMaximumPerApp
        var requests = ApplicationRequests.defaultMaximumTotal
        var bytes = ApplicationRequests.defaultMaximumTotalBytes
        var bytesPerApp = ApplicationRequests.maximumBytesPerApp
    }

    private let requests: ApplicationRequests
    private let queue: DispatchQueue
    /// One application's requests: id → bytes, and their sum.
    private struct Usage {
        var sizes: [String: Int] = [:]
        var bytes = 0
    }

    /// Each application's requests; `nil` until read.
    private var apps: [String: Usage]?
    private var totalRequests = 0
    private var totalBytes = 0
    private var lastFullCount: Date?

    init(requests: ApplicationRequests, queue: DispatchQueue) {
        self.requests = requests
        self.queue = queue
    }

    /// How long a count of every application's requests holds before a refusal counts them again: an application
    /// at a limit that keeps calling must not have chimed read the whole state directory at every call.
    static let recountInterval = Duration.seconds(10)

    /// Why `appID`'s request `id` of `bytes` may not be stored now (`nil`: it may), as the message a caller is told.
    func refusal(adding id: String, bytes: Int, to appID: String, limits: Limits, now: Date) -> String? {
        dispatchPrecondition(condition: .onQueue(queue))
        if apps == nil { recountAll(now: now) }
        guard check(id, bytes: bytes, appID: appID, limits: limits) != nil else { return nil }
        recount(appID)
        let interval = Double(Self.recountInterval.wholeMicroseconds) / 1_000_000
        if let counted = lastFullCount, now >= counted.addingTimeInterval(interval) {
            recountAll(now: now)
        }
        return check(id, bytes: bytes, appID: appID, limits: limits)
    }

    /// `appID`'s request `id` is stored, `bytes` long (replacing one of the same id).
    func stored(_ id: String, bytes: Int, appID: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard apps != nil else { return }
        let before = apps?[appID, default: Usage()].sizes.updateValue(bytes, forKey: id)
        apps?[appID]?.bytes += bytes - (before ?? 0)
        totalRequests += before == nil ? 1 : 0
        totalBytes += bytes - (before ?? 0)
    }

    /// `appID`'s requests `ids` are removed (unknown ones ignored).
    func removed<Ids: Sequence<String>>(_ ids: Ids, appID: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard apps?[appID] != nil else { return }
        for id in ids {
            if let bytes = apps?[appID]?.sizes.removeValue(forKey: id) {
                apps?[appID]?.bytes -= bytes
                totalRequests -= 1
                totalBytes -= bytes
            }
        }
    }

    private func check(_ id: String, bytes: Int, appID: String, limits: Limits) -> String? {
        let count = apps?[appID]?.sizes.count ?? 0
        let replaced = apps?[appID]?.sizes[id]
        let ownBytes = (apps?[appID]?.bytes ?? 0) - (replaced ?? 0) + bytes
        if replaced == nil && count >= limits.requestsPerApp {
            return "\(appID) has \(InputLimits.grouped(count)) requests pending, the most chimed takes from one "
                + "application (MaxRequestsPerApp=\(limits.requestsPerApp) in chimed.conf); remove some first."
        }
        if ownBytes > limits.bytesPerApp {
            return "\(appID)'s requests would take \(InputLimits.grouped(ownBytes)) bytes as notification files, more "
                + "than the \(InputLimits.size(limits.bytesPerApp)) chimed keeps for one application (so that "
                + "GetPending's answer fits in a message); remove some first."
        }
        if replaced == nil && totalRequests >= limits.requests {
            return "Applications have \(InputLimits.grouped(totalRequests)) requests pending, the most chimed takes "
                + "from all of them (MaxRequests=\(limits.requests) in chimed.conf)."
        }
        let allBytes = totalBytes - (replaced ?? 0) + bytes
        if allBytes > limits.bytes {
            return "Applications' requests would take \(InputLimits.grouped(allBytes)) bytes, more than chimed keeps "
                + "for all of them (MaxRequestBytes=\(InputLimits.size(limits.bytes)) in chimed.conf)."
        }
        return nil
    }

    /// Reads every application's requests and their sizes from the state directory.
    private func recountAll(now: Date) {
        apps = [:]
        totalRequests = 0
        totalBytes = 0
        for appID in requests.appIDs() { recount(appID) }
        lastFullCount = now
    }

    /// Reads `appID`'s requests and their sizes from the state directory.
    private func recount(_ appID: String) {
        let sizes = requests.sizes(appID: appID)
        let usage = Usage(sizes: sizes, bytes: sizes.values.reduce(0, +))
        let before = apps?.updateValue(usage, forKey: appID)
        totalRequests += usage.sizes.count - (before?.sizes.count ?? 0)
        totalBytes += usage.bytes - (before?.bytes ?? 0)
    }
}

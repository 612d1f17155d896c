import ChimeCore
import ChimePlatform
import Dispatch
import Glibc

/// Reports each change of the system time zone: a change of `/etc/localtime`, which `timedatectl set-timezone` and
/// `ln -sf` replace by renaming a new symlink over it.
///
/// It watches the file's directory with inotify, for events naming the file: created, moved in or away, closed
/// after writing, deleted, attributes changed. Events that arrive together, or within `coalescing` of the first,
/// make one burst and one call of the handler, so that "delete, then create" rebuilds the schedule once, with the
/// new zone in place. A change of the zone file that a symlink points to (a tzdata update) is not reported.
public final class TimeZoneChangeMonitor: Sendable {
    /// The watched file.
    public let path: String
    private let fileName: [UInt8]
    private let coalescing: Duration
    private let queue: DispatchQueue
    private let watch: DescriptorWatch
    private let handler: @Sendable () -> Void
    private let burstPending = Locked(false)

    /// The events, for files in the directory, that can mean another zone.
    private static let eventMask = UInt32(
        IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_DELETE | IN_ATTRIB | IN_ONLYDIR)

    /// Starts watching `path`'s directory; `handler` will run on `queue` once per burst of changes after `start()`,
    /// including changes made between `init` and `start()`.
    /// - Parameter coalescing: how long after the first event of a burst the handler runs; later events within it
    ///   join the burst.
    /// - Throws: `SystemCallError` from `inotify_init1` or `inotify_add_watch` (e.g. `ENOENT`: no such directory).
    public init(
        path: String = "/etc/localtime", queue: DispatchQueue, coalescing: Duration = .milliseconds(100),
        handler: @escaping @Sendable () -> Void
    ) throws(SystemCallError) {
        self.path = path
        self.coalescing = coalescing
        self.queue = queue
        self.handler = handler
        let (directory, name) = Self.split(path)
        fileName = Array(name.utf8)
        let descriptor = try SystemCall.retrying("inotify_init1") { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
        do {
            try SystemCall.retrying("inotify_add_watch") { inotify_add_watch(descriptor, directory, Self.eventMask) }
        } catch {
            close(descriptor)
            throw error
        }
        watch = DescriptorWatch(descriptor: descriptor, queue: queue)
    }

    /// Starts calling the handler; only the first call has an effect.
    public func start() {
        watch.start { [weak self] in self?.descriptorReadable() }
    }

    /// Stops calling the handler (a call already running completes) and closes the inotify descriptor.
    public func stop() {
        watch.stop()
    }

    private func descriptorReadable() {
        guard readEvents() else { return }
        let startsBurst = burstPending.withLock { pending in
            defer { pending = true }
            return !pending
        }
        guard startsBurst else { return }
        queue.asyncAfter(deadline: .now() + coalescing.dispatchInterval) { [weak self] in
            self?.endBurst()
        }
    }

    private func endBurst() {
        // Events already queued belong to this burst: take them now rather than let them start another.
        _ = readEvents()
        burstPending.withLock { $0 = false }
        guard watch.isRunning else { return }
        handler()
    }

    /// Reads every queued event; returns whether one of them names the file, or events were lost (queue overflow).
    private func readEvents() -> Bool {
        let headerSize = MemoryLayout<inotify_event>.size
        let maskOffset = MemoryLayout<inotify_event>.offset(of: \.mask)!
        let lengthOffset = MemoryLayout<inotify_event>.offset(of: \.len)!
        var concernsFile = false
        // Room for at least one event with the longest name (NAME_MAX plus its NUL), as inotify(7) requires.
        withUnsafeTemporaryAllocation(byteCount: 16 * (headerSize + 256), alignment: 8) { buffer in
            while true {
                // EAGAIN: all read. Nothing else can fail on a valid inotify descriptor and a large enough buffer.
                guard
                    case .success(let count) = SystemCall.retrying({
                        read(watch.descriptor, buffer.baseAddress, buffer.count)
                    }), count > 0
                else { return }
                var offset = 0
                while offset + headerSize <= count {
                    let mask = buffer.loadUnaligned(fromByteOffset: offset + maskOffset, as: UInt32.self)
                    let length = Int(buffer.loadUnaligned(fromByteOffset: offset + lengthOffset, as: UInt32.self))
                    let nameStart = offset + headerSize
                    let name = UnsafeRawBufferPointer(rebasing: buffer[nameStart..<min(nameStart + length, count)])
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 || name.prefix(while: { $0 != 0 }).elementsEqual(fileName) {
                        concernsFile = true
                    }
                    offset = nameStart + length
                }
            }
        }
        return concernsFile
    }

    /// The directory to watch and the file's name in it.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }
}

import ChimeCore

/// What the generators contributed to the schedule in place, kept so that the next rebuild can take a generator's
/// notifications as they are when it prints exactly the same bytes again.
///
/// A rebuild still runs every generator, but reading and validating a million unchanged lines was most of its cost,
/// and they would load the same: the loader is a pure function of a line, the system zone and the zone files. So a
/// generator's notifications (and the problems of its lines) are reused when
/// - its output has the same length and the same hash (`Hasher`, whose seed is random for each process, so output
///   cannot be made to collide on purpose), and
/// - the load reads alike (`LoadContext`): the system zone, every zone name the load looked up (an updated tzdata
///   or another `/etc/localtime` makes every generator's lines be read again), and chimed.conf's backends.
///
/// The notifications are a slice of the installed schedule's array, which the scheduler holds too: keeping them
/// costs no memory of its own.
public struct GeneratorReuse: Sendable {
    struct Output: Sendable {
        var fingerprint: OutputFingerprint
        var problems: [UnitFileDiagnostic]
        var notifications: ArraySlice<LoadedNotification>
        /// The line hash of each notification's line (`GeneratorOutput.lineHash`), 0 for one not to be reused.
        var lineHashes: [Int]
    }

    var outputs: [String: Output] = [:]
    var context: LoadContext

    /// What `loaded` can lend the next rebuild; `nil` when no generator contributed to it.
    public init?(_ loaded: LoadedSchedule) {
        guard !loaded.reusable.generatorOutputs.isEmpty else { return nil }
        context = loaded.reusable.context
        for (path, record) in loaded.reusable.generatorOutputs {
            outputs[path] = Output(
                fingerprint: record.fingerprint, problems: record.problems,
                notifications: loaded.notifications[record.notifications], lineHashes: record.lineHashes)
        }
    }

    /// Whether what was loaded then would be read the same by `loader`.
    func readsAlike(_ loader: NotificationLoader) -> Bool {
        context.readsAlike(loader)
    }
}

/// The length and hash of what a generator printed.
struct OutputFingerprint: Equatable, Sendable {
    var byteCount: Int
    var hash: Int

    /// Each chunk hashed on its own, on all cores, and the hashes hashed in order: a chunk's bounds depend only on
    /// the bytes (`LineChunks`), so the same output gives the same fingerprint. One pass over 140 MB on one thread
    /// was a tenth of a second of every rebuild of a million.
    init(_ output: LineChunks) {
        byteCount = output.count
        let chunks = output.chunks
        let hashes = [Int](unsafeUninitializedCapacity: chunks.count) { buffer, initialized in
            nonisolated(unsafe) let buffer = buffer
            ParallelWork.perform(iterations: chunks.count) { index in
                var hasher = Hasher()
                chunks[index].withUnsafeBytes { hasher.combine(bytes: $0) }
                (buffer.baseAddress! + index).initialize(to: hasher.finalize())
            }
            initialized = chunks.count
        }
        var hasher = Hasher()
        for chunkHash in hashes { hasher.combine(chunkHash) }
        hash = hasher.finalize()
    }
}

/// What one generator contributed to a load: its output's fingerprint, the problems of its lines, where its
/// notifications are in the loaded array, and the hash of each one's line.
struct GeneratorOutputRecord: Sendable {
    var fingerprint: OutputFingerprint
    var problems: [UnitFileDiagnostic]
    var notifications: Range<Int>
    var lineHashes: [Int]
}

/// Bytes a program printed, kept as chunks of about `chunkSize` that each end at the end of a line (all but the
/// last): a large output is never copied as it grows, as one array is at each doubling (holding it twice for that
/// moment), and its lines can be read a chunk at a time on several threads, each chunk given back once read.
///
/// How the bytes are cut depends only on the bytes, not on how they arrived: a chunk is filled to `chunkSize` and
/// cut after its last line break, the rest starting the next. A line longer than a chunk makes its chunk longer.
public struct LineChunks: Sendable, Equatable {
    /// A quarter of a MiB: about 1,800 of a generator's usual lines, which is also how finely a load is shared
    /// between threads.
    public static let chunkSize = 1 << 18

    public private(set) var chunks: [[UInt8]] = []
    /// The bytes in all chunks.
    public private(set) var count = 0
    /// Whether the last chunk is full and was found to hold no line break: what comes then is searched, not it again
    /// (a line of megabytes arriving in pipe-sized pieces would be searched once for each).
    private var lastIsOneUnfinishedLine = false

    public init() {}

    public init(_ bytes: some Collection<UInt8>) {
        append(contentsOf: bytes)
    }

    public var isEmpty: Bool { count == 0 }

    /// All the bytes in one array: for outputs known to be small.
    public var bytes: [UInt8] {
        chunks.count == 1 ? chunks[0] : Array(chunks.joined())
    }

    public mutating func append(contentsOf bytes: some Collection<UInt8>) {
        let appended: Void? = bytes.withContiguousStorageIfAvailable { append($0) }
        if appended == nil { Array(bytes).withUnsafeBufferPointer { append($0) } }
    }

    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        count += bytes.count
        var rest = bytes[...]
        while !rest.isEmpty {
            if chunks.last.map({ $0.count >= Self.chunkSize }) ?? true { startChunk() }
            let last = chunks.count - 1
            let room = Self.chunkSize - chunks[last].count
            let piece: Slice<UnsafeBufferPointer<UInt8>>
            if room > 0 {
                piece = rest.prefix(room)
            } else if let lineEnd = rest.firstIndex(of: UInt8(ascii: "\n")) {
                // A full chunk without a line break, its line now ending.
                piece = rest[...lineEnd]
            } else {
                piece = rest
            }
            chunks[last].append(contentsOf: piece)
            rest = rest[piece.endIndex...]
        }
    }

    /// Begins a chunk after the last, full one, moving its unfinished line there; leaves a full chunk without a line
    /// break to grow.
    private mutating func startChunk() {
        guard let last = chunks.indices.last else {
            // The first grows as an array does, so that a short output takes little.
            chunks.append([])
            return
        }
        var cut = chunks[last].count
        if chunks[last].last != UInt8(ascii: "\n") {
            guard !lastIsOneUnfinishedLine, let lineEnd = chunks[last].lastIndex(of: UInt8(ascii: "\n")) else {
                lastIsOneUnfinishedLine = true
                return
            }
            cut = lineEnd + 1
        }
        var next: [UInt8] = []
        next.reserveCapacity(Self.chunkSize)
        next.append(contentsOf: chunks[last][cut...])
        chunks[last].removeSubrange(cut...)
        lastIsOneUnfinishedLine = false
        chunks.append(next)
    }

    /// Keeps the whole lines within the first `limit` bytes and lets go of the rest (a line cut by the limit too).
    /// Returns whether anything was let go of.
    @discardableResult
    public mutating func keepLines(within limit: Int) -> Bool {
        guard count > limit else { return false }
        var kept = 0
        for index in chunks.indices {
            guard kept + chunks[index].count > limit else {
                kept += chunks[index].count
                continue
            }
            let room = limit - kept
            let lineEnd = chunks[index][..<room].lastIndex(of: UInt8(ascii: "\n"))
            let keepHere = lineEnd.map { $0 + 1 } ?? 0
            chunks[index].removeSubrange(keepHere...)
            chunks.removeSubrange((index + 1)...)
            if chunks[index].isEmpty { chunks.removeLast() }
            count = kept + keepHere
            lastIsOneUnfinishedLine = false
            return true
        }
        return false
    }

    /// Takes the chunks away, leaving this empty: so that whoever reads them holds the only reference, and each
    /// chunk's memory goes as soon as it is let go of.
    public mutating func takeChunks() -> [[UInt8]] {
        defer {
            chunks = []
            count = 0
            lastIsOneUnfinishedLine = false
        }
        return chunks
    }
}

import Testing

@testable import ChimeCore

/// `LineChunks`: a program's output kept in chunks that end at line ends, cut the same however the bytes arrived.
@Suite struct LineChunksTests {
    /// `count` lines of about 100 bytes, each naming its number.
    static func lines(_ count: Int) -> [UInt8] {
        Array((0..<count).map { "line \($0) " + String(repeating: "x", count: 90) + "\n" }.joined().utf8)
    }

    /// `bytes` appended in pieces of `pieceSize`, as reads of a pipe bring them.
    static func arriving(_ bytes: [UInt8], inPiecesOf pieceSize: Int) -> LineChunks {
        var chunks = LineChunks()
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + pieceSize)
            chunks.append(contentsOf: bytes[start..<end])
            start = end
        }
        return chunks
    }

    /// What a generator printed past its output limit: the whole lines within the limit are kept, from one chunk or
    /// across many.
    @Test func theWholeLinesWithinALimitAreKept() {
        var short = LineChunks(Array("one\ntwo\nthree\n".utf8))
        let unchanged = short.keepLines(within: 100)
        #expect(!unchanged)
        let cut = short.keepLines(within: 10)
        #expect(cut && short.bytes == Array("one\ntwo\n".utf8) && short.count == 8)
        let none = short.keepLines(within: 3)
        #expect(none && short.isEmpty && short.chunks.isEmpty)
        let line = Array(String(repeating: "x", count: 99).utf8) + [UInt8(ascii: "\n")]
        var long = LineChunks(Array(repeating: line, count: 10_000).joined())
        #expect(long.chunks.count > 3)
        let kept = long.keepLines(within: 700_050)
        #expect(kept)
        #expect(long.count == 700_000 && long.bytes == Array(Array(repeating: line, count: 7_000).joined()))
        #expect(long.chunks.allSatisfy { $0.last == UInt8(ascii: "\n") })
    }

    @Test func emptyHoldsNothing() {
        let chunks = LineChunks()
        #expect(chunks.chunks.isEmpty)
        #expect(chunks.isEmpty)
        #expect(chunks.bytes == [])
        #expect(LineChunks([]) == chunks)
    }

    @Test func aShortOutputIsOneChunkAsItCame() {
        let bytes = Array("one\ntwo\nno end".utf8)
        let chunks = LineChunks(bytes)
        #expect(chunks.chunks == [bytes])
        #expect(chunks.count == bytes.count)
        #expect(chunks.bytes == bytes)
    }

    @Test func everyChunkButTheLastEndsAtALineEndAndNoneIsLongerThanAChunk() {
        let bytes = Self.lines(6000) + Array("unfinished".utf8)
        let chunks = LineChunks(bytes)
        #expect(chunks.chunks.count == (bytes.count + LineChunks.chunkSize - 1) / LineChunks.chunkSize)
        for chunk in chunks.chunks.dropLast() {
            #expect(chunk.last == UInt8(ascii: "\n"))
            #expect(chunk.count <= LineChunks.chunkSize)
            // Cut after the last line that fits: the next line would not have.
            #expect(chunk.count > LineChunks.chunkSize - 100)
        }
        #expect(chunks.chunks.last?.last == UInt8(ascii: "d"))
        #expect(chunks.bytes == bytes)
        #expect(chunks.count == bytes.count)
    }

    @Test func theCutsDependOnTheBytesNotOnHowTheyArrived() {
        let bytes = Self.lines(7000)
        let whole = LineChunks(bytes)
        for pieceSize in [1, 7, 4096, 65536, LineChunks.chunkSize + 13] {
            #expect(Self.arriving(bytes, inPiecesOf: pieceSize) == whole, "pieces of \(pieceSize)")
        }
    }

    @Test func aLineLongerThanAChunkMakesItsChunkLonger() {
        let long = [UInt8](repeating: UInt8(ascii: "a"), count: LineChunks.chunkSize * 2 + 5) + [0x0A]
        let bytes = Array("first\n".utf8) + long + Array("after\n".utf8)
        for pieceSize in [bytes.count, 65536, 1000] {
            let chunks = Self.arriving(bytes, inPiecesOf: pieceSize)
            // "first" is cut off where the long line begins, which fills a chunk of its own.
            #expect(chunks.chunks.map(\.count) == [6, long.count, 6], "pieces of \(pieceSize)")
            #expect(chunks.bytes == bytes)
        }
    }

    @Test func takingTheChunksLeavesItEmpty() {
        let bytes = Self.lines(3000)
        var chunks = LineChunks(bytes)
        let taken = chunks.takeChunks()
        #expect(Array(taken.joined()) == bytes)
        #expect(chunks == LineChunks())
    }
}

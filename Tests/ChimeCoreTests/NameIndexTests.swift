import Testing

@testable import ChimeCore

/// `NameIndex`: a load's ids found by name, and whether they repeat, on all cores.
@Suite struct NameIndexTests {
    static func index(_ names: [String]) -> NameIndex {
        NameIndex(count: names.count) { names[$0] }
    }

    @Test func fewerThanTwoNamesRepeatNothing() {
        #expect(!Self.index([]).hasRepeats)
        #expect(Self.index([]).position(of: "any") { _ in "" } == nil)
        #expect(!Self.index(["only"]).hasRepeats)
    }

    @Test func everyNameIsFoundAtItsPositionAndNoOtherIs() {
        let names = (0..<100_000).map { "scale-\($0)" }
        let index = Self.index(names)
        #expect(!index.hasRepeats)
        for position in stride(from: 0, to: names.count, by: 997) {
            #expect(index.position(of: names[position]) { names[$0] } == position)
        }
        #expect(index.position(of: "scale-100000") { names[$0] } == nil)
        #expect(index.position(of: "") { names[$0] } == nil)
    }

    @Test(arguments: [(0, 1), (0, 99_999), (51_234, 51_235), (7, 88_000)])
    func oneRepeatAnywhereIsFoundAndTheFirstIsTheOneFound(first: Int, second: Int) {
        var names = (0..<100_000).map { "n\($0)" }
        names[second] = names[first]
        let index = Self.index(names)
        #expect(index.hasRepeats)
        #expect(index.position(of: names[first]) { names[$0] } == first)
    }

    /// Hashes made elsewhere that share a slot, its top bits, or all of them: each probe goes on past what does
    /// not match, and only equal hashes that `isSame` calls alike are repeats.
    @Test func hashesSharingSlotsOrTopBitsAreToldApart() {
        let top = Int(bitPattern: 0xABCD_0000_0000_0000)
        // 16 slots: 5 and top | 5 share one, as do 13 and top | 13; 5 and 21 would share slot and top bits.
        let hashes = [5, 13, top | 5, top | 13, 5]
        let index = NameIndex(hashes: hashes) { earlier, later in earlier == 0 && later == 4 }
        #expect(index.hasRepeats)
        for position in 0..<4 {
            #expect(index.position(ofHash: hashes[position]) { _ in true } == position)
        }
        #expect(index.position(ofHash: 5) { $0 != 0 } == nil)
        #expect(index.position(ofHash: top | 21) { _ in true } == nil)
        #expect(index.position(ofHash: 21) { _ in true } == nil)
        let distinct = NameIndex(hashes: [7, 7, 7]) { _, _ in false }
        #expect(!distinct.hasRepeats)
        #expect(distinct.position(ofHash: 7) { $0 == 2 } == 2)
    }

    @Test func namesDifferingOnlyInNormalisationAreTheSameName() {
        // As a Set of Swift strings has it: "é" precomposed and decomposed are equal.
        #expect(Self.index(["caf\u{E9}", "x", "cafe\u{301}"]).hasRepeats)
        #expect(!Self.index(["a", "A", "a "]).hasRepeats)
    }
}

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

    @Test func namesDifferingOnlyInNormalisationAreTheSameName() {
        // As a Set of Swift strings has it: "é" precomposed and decomposed are equal.
        #expect(Self.index(["caf\u{E9}", "x", "cafe\u{301}"]).hasRepeats)
        #expect(!Self.index(["a", "A", "a "]).hasRepeats)
    }
}

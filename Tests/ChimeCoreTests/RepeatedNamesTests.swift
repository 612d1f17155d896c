import Testing

@testable import ChimeCore

/// `RepeatedNames`: whether a load's ids repeat, found on all cores.
@Suite struct RepeatedNamesTests {
    static func any(_ names: [String]) -> Bool {
        RepeatedNames.any(count: names.count) { names[$0] }
    }

    @Test func fewerThanTwoNamesRepeatNothing() {
        #expect(!Self.any([]))
        #expect(!Self.any(["only"]))
    }

    @Test func distinctNamesDoNotRepeat() {
        let names = (0..<100_000).map { "scale-\($0)" }
        #expect(!Self.any(names))
    }

    @Test(arguments: [(0, 1), (0, 99_999), (51_234, 51_235), (7, 88_000)])
    func oneRepeatAnywhereIsFound(first: Int, second: Int) {
        var names = (0..<100_000).map { "n\($0)" }
        names[second] = names[first]
        #expect(Self.any(names))
    }

    @Test func namesDifferingOnlyInNormalisationAreTheSameName() {
        // As a Set of Swift strings has it: "é" precomposed and decomposed are equal.
        #expect(Self.any(["caf\u{E9}", "x", "cafe\u{301}"]))
        #expect(!Self.any(["a", "A", "a "]))
    }
}

import ChimePlatform
import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeCore

@Suite struct ZoneDatabaseTests {
    /// A tzdata directory holding one zone, `Test/Berlin` (a copy of the system's Europe/Berlin).
    private func database() throws -> (TemporaryDirectory, ZoneDatabase) {
        let directory = try TemporaryDirectory(prefix: "chime-zones")
        try FileManager.default.createDirectory(atPath: directory.path + "/Test", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: "/usr/share/zoneinfo/Europe/Berlin", toPath: directory.path + "/Test/Berlin")
        return (directory, ZoneDatabase(directory: directory.path))
    }

    @Test func cachingGivesTheSameAnswers() throws {
        let (directory, plain) = try database()
        defer { directory.remove() }
        let caching = plain.cachingLookups()
        for _ in 0..<2 {
            #expect(caching.isValidName("Test/Berlin") == plain.isValidName("Test/Berlin"))
            #expect(caching.isValidName("Test/Nowhere") == false)
            #expect(caching.isValidName("UTC"))
            let cached = try caching.rules(named: "Test/Berlin")
            let read = try plain.rules(named: "Test/Berlin")
            #expect(cached.name == read.name)
            #expect(cached.transitions == read.transitions)
            #expect(throws: ZoneError.unknownZone("Test/Nowhere")) { try caching.rules(named: "Test/Nowhere") }
            #expect(throws: ZoneError.unknownZone("../etc")) { try caching.rules(named: "../etc") }
        }
    }

    /// A misspelt zone, or a city without its region, is matched to the installed zone it likely means.
    @Test func suggestsTheZoneAMisspellingMeans() {
        let zones = ZoneDatabase(
            source: MemoryZoneSource(["Europe/Berlin": [], "Europe/Bern": [], "America/New_York": [], "UTC": []]))
        #expect(zones.suggestion(for: "Europe/Berlinn") == "Europe/Berlin")
        #expect(zones.suggestion(for: "europe/berlin") == "Europe/Berlin")
        #expect(zones.suggestion(for: "Berlin") == "Europe/Berlin")
        #expect(zones.suggestion(for: "New_York") == "America/New_York")
        #expect(zones.suggestion(for: "Mars/Olympus_Mons") == nil)
        // The system's tzdata is listed without its posix/ and right/ copies.
        let system = ZoneDatabase(directory: "/usr/share/zoneinfo")
        #expect(system.suggestion(for: "Asia/Tokio") == "Asia/Tokyo")
        #expect(system.suggestion(for: "posix/Asia/Tokio") == "Asia/Tokyo")
    }

    /// A caching database reads each zone once; the next one (the next rebuild) reads the directory anew.
    @Test func readsEachZoneOncePerCachingDatabase() throws {
        let (directory, plain) = try database()
        defer { directory.remove() }
        let caching = plain.cachingLookups()
        #expect(caching.isValidName("Test/Berlin"))
        _ = try caching.rules(named: "Test/Berlin")
        try FileManager.default.removeItem(atPath: directory.path + "/Test/Berlin")

        let copy = caching
        #expect(copy.isValidName("Test/Berlin"))
        #expect(try copy.rules(named: "Test/Berlin").name == "Test/Berlin")
        #expect(!plain.isValidName("Test/Berlin"))
        #expect(!caching.cachingLookups().isValidName("Test/Berlin"))
        #expect(throws: ZoneError.unknownZone("Test/Berlin")) { try plain.cachingLookups().rules(named: "Test/Berlin") }
    }

    /// The database reads only through its source: in memory here, and each zone once per caching database.
    @Test func readsThroughItsSourceOncePerCachingDatabase() throws {
        let berlin = try #require(FileManager.default.contents(atPath: "/usr/share/zoneinfo/Europe/Berlin"))
        let source = MemoryZoneSource(["Test/Berlin": Array(berlin), "Test/Broken": Array("TZif, then nothing".utf8)])
        let caching = ZoneDatabase(source: source).cachingLookups()
        for _ in 0..<3 {
            #expect(try caching.rules(named: "Test/Berlin").name == "Test/Berlin")
            #expect(throws: ZoneError.unknownZone("Test/Broken")) { try caching.rules(named: "Test/Broken") }
            #expect(!caching.isValidName("Test/Nowhere"))
        }
        #expect(source.reads(of: "Test/Berlin") == 1)
        #expect(source.reads(of: "Test/Broken") == 1)
        source.set("Test/Berlin", nil)
        #expect(try caching.rules(named: "Test/Berlin").name == "Test/Berlin")
        #expect(throws: ZoneError.unknownZone("Test/Berlin")) {
            try caching.cachingLookups().rules(named: "Test/Berlin")
        }
    }
}

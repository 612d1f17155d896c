import ChimeTestSupport
import Foundation
import Testing

@testable import ChimeDaemon

/// `chimectl ack` leaves requests that chimed takes by removing them.
struct AcknowledgementRequestsTests {
    @Test func requestsAreTakenOnceAndInvalidIDsAreNotLeft() throws {
        let directory = try TemporaryDirectory(prefix: "chime-ack")
        defer { directory.remove() }
        let requests = AcknowledgementRequests(stateDirectory: directory.path)
        try requests.request(["pills", "../escape", "tea.time"])
        #expect(requests.take() == ["pills", "tea.time"])
        #expect(requests.take().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/escape"))
    }

    /// Root asking the system instance, whose state directory is the user chime's: the requests' directory is
    /// made chimed's too (chimed could not remove root's requests from a directory of root's), and an old one of
    /// root's is handed over.
    @Test(.enabled(if: geteuid() == 0, "skipped: needs root, to own files as another user"))
    func theDirectoryBelongsToTheStateDirectorysOwner() throws {
        let directory = try TemporaryDirectory(prefix: "chime-ack-owner")
        defer { directory.remove() }
        let state = directory.path + "/state"
        try FileManager.default.createDirectory(atPath: state + "/acknowledge", withIntermediateDirectories: true)
        #expect(chown(state, 65534, 65534) == 0)
        try AcknowledgementRequests(stateDirectory: state).request(["pills"])
        let attributes = try FileManager.default.attributesOfItem(atPath: state + "/acknowledge")
        #expect(attributes[.ownerAccountID] as? Int == 65534)
        #expect(attributes[.groupOwnerAccountID] as? Int == 65534)
    }
}

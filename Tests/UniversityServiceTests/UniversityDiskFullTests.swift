import Foundation
import Messaging
import RnmAPI
import TestSupport
import Testing

/// Issue 29, row 9, for the universities: a list fetched is answered with the disk full.
@Suite("UniversityService with its disk full", .cleansUp)
struct UniversityDiskFullTests {
    @Test("a country fetched with the disk full is answered; the sync fails naming the disk; health says full")
    func diskFull() async throws {
        let disk = try SmallDisk()
        let harness = try await UniversityHarness.start(databasePath: disk.path + "/universities.sqlite")
        try disk.fill()
        let japan = try await harness.list("Japan")
        #expect(japan.count > 0 && japan.freshness.source == .upstream)
        let sync = await rpcError(of: {
            try await harness.client.call(RPCMethods.universitiesSync, NoParams(), timeout: .seconds(20))
        })
        #expect(sync?.code == .storageUnavailable)
        #expect(
            sync?.message.contains("cannot store the world list: the disk is full") == true,
            "\(String(describing: sync))")
        let health = try await harness.client.call(RPCMethods.universitiesHealth, NoParams(), timeout: .seconds(5))
        #expect(health.status == "degraded" && health.storage?.state == "full")
        try disk.free()
        let again = try await harness.list("Japan")
        #expect(again.items == japan.items)
        #expect(
            try await harness.client.call(RPCMethods.universitiesHealth, NoParams(), timeout: .seconds(5)).status
                == "ok")
        try await harness.stop()
    }
}

@Suite("UniversityService with a damaged database file", .cleansUp)
struct UniversityDamagedDatabaseTests {
    @Test("a file that is not a database: set aside, the service starts and answers")
    func notADatabase() async throws {
        let path = temporaryDirectory() + "/universities.sqlite"
        try Data("this is not SQLite".utf8).write(to: URL(fileURLWithPath: path))
        let harness = try await UniversityHarness.start(databasePath: path)
        let health = try await harness.client.call(RPCMethods.universitiesHealth, NoParams(), timeout: .seconds(5))
        #expect(health.storage?.setAside?.hasPrefix(path + ".damaged-") == true)
        #expect(try await harness.list("Japan").count > 0)
        try await harness.stop()
    }
}

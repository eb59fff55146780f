import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP answer: status and body.
public struct HTTPAnswer: Sendable {
    public var status: Int
    public var body: Data
}

/// One page of a list, as fetched.
struct FetchedPage: Sendable {
    var count: Int
    var pages: Int
    var records: [FetchedRecord]

    static let empty = FetchedPage(count: 0, pages: 0, records: [])
}

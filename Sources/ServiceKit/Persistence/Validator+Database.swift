import GRDB

extension Validator {
    /// The two columns a stored copy keeps its validator in (nullable: none known).
    public static let columns = ["etag", "lastModified"]

    /// Adds the validator columns to each of `tables`.
    public static func addColumns(to tables: [String], in db: Database) throws {
        for table in tables {
            try db.alter(table: table) { t in
                for column in columns { t.add(column: column, .text) }
            }
        }
    }

    /// The validator in a row read with `columns` at `index` and `index + 1`.
    public init?(row: Row, at index: Int) {
        self.init(etag: row[index], lastModified: row[index + 1])
    }

    /// The values to bind to ``columns``.
    public static func values(_ validator: Validator?) -> [(any DatabaseValueConvertible)?] {
        [validator?.etag, validator?.lastModified]
    }
}

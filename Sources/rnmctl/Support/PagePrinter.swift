import Messaging
import RnmAPI

/// A page of records as a table (names in full), then the page footer. The footer is built
/// first: a page past the end is an error before anything is printed.
func printPage<Item>(
    _ page: Fresh<Page<Item>>, noun: String, query: Invocation, wide: Bool,
    columns: [Table.Column], row: (Item) -> [String]
) throws {
    let footer = try pageFooter(page: page.page, pages: page.pages, count: page.count, noun: noun, query: query)
    if !page.items.isEmpty { print(Table(columns, rows: page.items.map(row)).render(wide: wide)) }
    print(footer)
}

/// The line under a page: "page 2 of 42 (824 characters) — next: <the same query, next page>".
/// A page past the end is an error (exit 66) naming the last page.
func pageFooter(page: Int, pages: Int, count: Int, noun: String, query: Invocation) throws -> String {
    guard pages > 0 else { return "no \(noun) match" }
    guard page <= pages else {
        throw CLIFailure.nothingFound(
            """
            there is no page \(page): \(plural(count, String(noun.dropLast()), noun)) fill \
            \(plural(pages, "page")); the last is: \(query.option("page", pages).text)
            """
        )
    }
    var footer = "page \(page) of \(pages) (\(plural(count, String(noun.dropLast()), noun)))"
    if page < pages { footer += " — next: \(query.option("page", page + 1).text)" }
    return footer
}

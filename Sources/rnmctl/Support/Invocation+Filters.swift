import RnmAPI

extension Invocation {
    /// A list's filters as options (`--name rick --status alive`), in the API's order: the
    /// "next page" hint repeats the query the user typed.
    func filterOptions<Params: ListParams>(_ params: Params) -> Invocation {
        params.filterValues.reduce(self) { $0.option($1.name, $1.value) }
    }
}

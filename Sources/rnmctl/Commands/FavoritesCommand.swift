import ArgumentParser
import Messaging
import RnmAPI

/// `rnmctl favorites …`
struct FavoritesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "favorites", abstract: "Favorite characters.",
        discussion: Help.examples("rnmctl favorites add 1", "rnmctl favorites list", "rnmctl favorites remove 1"),
        subcommands: [Add.self, Remove.self, List.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Mark a character as a favorite.",
            discussion: Help.examples("rnmctl favorites add 1"))
        @Argument(help: "The character's id.") var id: Int
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let was = await global.isFavorite(id)
            try await global.perform(RPCMethods.favoritesAdd, IDParams(id: id)) {
                print(was == true ? "character \($0.id) was a favorite already" : "character \($0.id) is a favorite")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Unmark a favorite.",
            discussion: Help.examples("rnmctl favorites remove 1"), aliases: ["rm"])
        @Argument(help: "The character's id.") var id: Int
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let was = await global.isFavorite(id)
            try await global.perform(RPCMethods.favoritesRemove, IDParams(id: id)) {
                print(
                    was == false
                        ? "character \($0.id) was not a favorite" : "character \($0.id) is no longer a favorite")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List favorite characters.",
            discussion: Help.examples("rnmctl favorites list"), aliases: ["ls"])
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.favoritesList, NoParams()) { list in
                if !list.items.isEmpty { printCharacters(list.items, wide: global.wide) }
                print(
                    list.items.isEmpty
                        ? "no favorites yet: add one with rnmctl favorites add ID"
                        : plural(list.items.count, "favorite"))
            }
        }
    }
}

extension GlobalOptions {
    /// Whether `id` is a favorite now, to say what a change did (the methods answer the state
    /// after it only); nil when the list cannot be read (the change itself then says why).
    func isFavorite(_ id: Int) async -> Bool? {
        guard !json else { return nil }
        return try? await withGateway { client in
            try await client.call(RPCMethods.favoritesList, NoParams(), timeout: deadline).items.contains {
                $0.id == id
            }
        }
    }
}

import ArgumentParser
import Messaging
import RnmAPI

/// `rnmctl favorites …`
struct FavoritesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "favorites", abstract: "Favorite characters.",
                                                    subcommands: [Add.self, Remove.self, List.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mark a character as a favorite.")
        @Argument(help: "The character's id.") var id: Int
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.favoritesAdd, IDParams(id: id)) { print("character \($0.id) is a favorite") }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unmark a favorite.")
        @Argument(help: "The character's id.") var id: Int
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.favoritesRemove, IDParams(id: id)) { print("character \($0.id) is not a favorite") }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List favorite characters.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.perform(RPCMethods.favoritesList, NoParams()) { list in
                printCharacters(list.items)
                print("\(list.items.count) favorites")
            }
        }
    }
}

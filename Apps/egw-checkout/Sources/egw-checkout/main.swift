import CheckoutApp
import Foundation

let started = Date()
do {
    guard let options = try CheckoutOptions.parse(Array(CommandLine.arguments.dropFirst())) else {
        print(CheckoutOptions.usage)
        exit(0)
    }
    exit(MainActor.assumeIsolated { CheckoutMain.run(options, started: started) })
} catch {
    FileHandle.standardError.write(Data("egw-checkout: \(error)\n\(CheckoutOptions.usage)\n".utf8))
    exit(64)
}

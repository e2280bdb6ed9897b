import Testing

@testable import ReplCore

@Suite struct HelpTests {
    @Test func overviewListsEveryCommand() throws {
        let text = try HelpText.render(topic: [])
        for spec in CommandTable.standard.commands {
            #expect(text.contains("  \(spec.name) "), "\(spec.name) missing from help")
        }
    }

    @Test func everyCommandAndSubcommandHasHelp() throws {
        for spec in CommandTable.standard.commands {
            #expect(!spec.summary.isEmpty)
            let text = try HelpText.render(topic: [spec.name])
            #expect(text.hasPrefix("\(spec.name) — "))
            for sub in spec.subcommands {
                #expect(!sub.summary.isEmpty)
                let subText = try HelpText.render(topic: [spec.name, sub.name])
                #expect(subText.hasPrefix("\(spec.name) \(sub.name) — "))
                #expect(subText.contains("usage: \(spec.name) \(sub.name)"))
                #expect(text.contains("\(spec.name) \(sub.name)"))
            }
        }
    }

    @Test func synopsisShowsArgumentsAndFlags() throws {
        let text = try HelpText.render(topic: ["pay", "hosted"])
        #expect(text.contains("usage: pay hosted [--method card|bank|click-to-pay] [--step]"))
        let create = try HelpText.render(topic: ["payment", "create"])
        #expect(create.contains("usage: payment create [AMOUNT] [CURRENCY] [--order N]"))
    }

    @Test func unknownTopicsAreErrors() {
        #expect(throws: ReplError.self) { try HelpText.render(topic: ["nope"]) }
        #expect(throws: ReplError.self) { try HelpText.render(topic: ["card", "nope"]) }
    }
}

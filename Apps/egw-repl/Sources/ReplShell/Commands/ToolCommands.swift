import JWE
import ReplCore

extension Shell {
    /// `brand`, `luhn`, `format`, `jwe header`: the SDK's tools, no state.
    func runTool(_ command: ToolCommand) throws(ReplError) {
        switch command {
        case .brand(let number):
            try showBrand(number)
        case .luhn(let number):
            try showLuhn(number)
        case .format(let number):
            try showFormat(number)
        case .jweHeader(let token):
            try showJWEHeader(token)
        }
    }

    /// `jwe header TOKEN`: the decoded protected header, no decryption.
    func showJWEHeader(_ token: String) throws(ReplError) {
        let header: JWEProtectedHeader
        do {
            header = try JWEProtectedHeader(compact: token)
        } catch {
            throw ReplError(.commandFailed, "not a compact JWE: \(error.reason) (\(error.code.rawValue))")
        }
        if options.json {
            console.out(header.json)
            return
        }
        console.table([
            ("alg", header.alg.map(shown) ?? "(absent)"), ("enc", header.enc.map(shown) ?? "(absent)"),
            ("kid", header.kid.map(shown) ?? "(absent)"),
            ("header", header.json),
        ])
    }
}

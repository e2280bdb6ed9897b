// egw-jwe: a small command-line tool for integrators debugging card-encryption payloads.
// Usage errors exit 64 (EX_USAGE); every other failure prints one line to stderr and exits 1.
// Plaintext never appears in an error message.

import JWE

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let usage = """
    usage: egw-jwe <command> [options]

    commands:
      keygen [--bits N] [--kid ID]   generate an RSA key pair (N: 2048, 3072, 4096; default 2048);
                                     prints the private JWK (kid defaults to the RFC 7638 thumbprint)
      public                         private JWK (or PKCS#8 PEM) on stdin -> public JWK on stdout
      encrypt --key FILE             plaintext on stdin -> compact JWE (RSA-OAEP-256 + A256GCM) on stdout;
                                     FILE: a public or private JWK, an SPKI or PKCS#8 PEM
      decrypt --key FILE             compact JWE on stdin -> plaintext on stdout (strict policy);
                                     FILE: a private JWK or a PKCS#8 PEM
      header                         compact JWE on stdin -> its decoded protected header (JSON; characters
                                     outside printable ASCII are written as \\u escapes)
      help                           this text

    Trailing whitespace (a final newline) is trimmed from a token read on stdin.
    Input caps: a token 256 KiB, a plaintext 190 KiB, a key 64 KiB; reading stops at the cap and the input is
    refused (tooLarge, exit 1).
    Exit status: 0 success, 1 failure (message on stderr), 64 usage error.

    """

struct UsageError: Error {
    var message: String
}

struct Failure: Error {
    var message: String
}

func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if written < 0 {
            if errno == EINTR { continue }
            return
        }
        offset += written
    }
}

func printOut(_ text: String) { writeAll(1, Array(text.utf8)) }
func printErr(_ text: String) { writeAll(2, Array(text.utf8)) }

/// Size caps on what the tool reads. Reading stops at the cap: input beyond it is refused without being read.
enum InputLimit {
    /// A compact token: the strict policy's cap, plus room for trailing whitespace (trimmed).
    static let token = JWEPolicy.strict.maximumCompactLength + 64
    /// A plaintext to encrypt: its token stays under the strict cap even under an 8192-bit key.
    static let plaintext = 190 * 1024
    /// A JWK or PEM key (an 8192-bit private JWK is about 6.5 KiB).
    static let key = 64 * 1024
}

/// Reads `fd` to its end, or fails with `tooLarge` as soon as more than `limit` bytes arrived (the rest is
/// never read). The input may be card data or a private key, so every buffer it passes through is wiped: the
/// buffer grows by hand, wiping the old storage before it is freed (an appending array would free it unwiped),
/// and the caller wipes the returned array.
func readAll(_ fd: Int32, limit: Int, what: String) throws -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: min(65_536, limit + 1))
    var count = 0
    defer { SecureMemory.wipe(&buffer) }
    while true {
        if count == buffer.count {
            guard count <= limit else {
                throw JWEError(.tooLarge, "\(what) exceeds \(limit) bytes; stopped reading there")
            }
            var larger = [UInt8](repeating: 0, count: min(buffer.count * 2, limit + 1))
            larger.replaceSubrange(0..<count, with: buffer)
            SecureMemory.wipe(&buffer)
            buffer = larger
        }
        let received = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
        if received < 0 {
            if errno == EINTR { continue }
            throw Failure(message: "cannot read \(what) (errno \(errno))")
        }
        if received == 0 { break }
        count += received
    }
    return Array(buffer[0..<count])
}

/// The bytes of the key file at `path`, in a buffer wiped as it grows; the returned array is wiped by
/// ``KeyFile`` once the key is read.
func readFile(_ path: String) throws -> KeyFile {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw Failure(message: "cannot read key file \(UntrustedText.escaped(path))") }
    defer { close(fd) }
    return KeyFile(bytes: try readAll(fd, limit: InputLimit.key, what: "the key file"))
}

func trimmedText(_ bytes: [UInt8]) -> String {
    var end = bytes.count
    while end > 0, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[end - 1]) { end -= 1 }
    return String(decoding: bytes[0..<end], as: UTF8.self)
}

/// Options `--name value` after the command; unknown or repeated options are usage errors.
func parseOptions(_ arguments: ArraySlice<String>, allowed: Set<String>) throws(UsageError) -> [String: String] {
    var options: [String: String] = [:]
    var index = arguments.startIndex
    while index < arguments.endIndex {
        let name = arguments[index]
        guard allowed.contains(name) else {
            throw UsageError(message: "unknown argument '\(UntrustedText.escaped(name))'")
        }
        guard options[name] == nil else { throw UsageError(message: "'\(name)' given twice") }
        guard index + 1 < arguments.endIndex else { throw UsageError(message: "'\(name)' needs a value") }
        options[name] = arguments[index + 1]
        index += 2
    }
    return options
}

func run(_ arguments: [String]) throws -> Int32 {
    guard let command = arguments.first else { throw UsageError(message: "no command given") }
    let rest = arguments.dropFirst()
    switch command {
    case "help", "--help", "-h":
        guard rest.isEmpty else { throw UsageError(message: "help takes no arguments") }
        printOut(usage)
    case "keygen":
        let options = try parseOptions(rest, allowed: ["--bits", "--kid"])
        var bits = 2048
        if let text = options["--bits"] {
            guard let value = Int(text) else {
                throw UsageError(message: "--bits needs a number, got '\(UntrustedText.escaped(text))'")
            }
            bits = value
        }
        let key = try RSAPrivateKey.generate(bits: bits, kid: options["--kid"])
        printOut(key.jwkJSON() + "\n")
    case "public":
        _ = try parseOptions(rest, allowed: [])
        let key = try KeyFile(bytes: readAll(0, limit: InputLimit.key, what: "the key on stdin")).privateKey()
        printOut(key.publicKey.jwkJSON() + "\n")
    case "encrypt":
        let options = try parseOptions(rest, allowed: ["--key"])
        guard let path = options["--key"] else { throw UsageError(message: "encrypt needs --key FILE") }
        let key = try readFile(path).publicKey()
        var plaintext = try readAll(0, limit: InputLimit.plaintext, what: "the plaintext on stdin")
        defer { SecureMemory.wipe(&plaintext) }
        printOut(try JWEEncrypter(recipient: key).encrypt(plaintext) + "\n")
    case "decrypt":
        let options = try parseOptions(rest, allowed: ["--key"])
        guard let path = options["--key"] else { throw UsageError(message: "decrypt needs --key FILE") }
        let key = try readFile(path).privateKey()
        var token = try readAll(0, limit: InputLimit.token, what: "the token on stdin")
        defer { SecureMemory.wipe(&token) }
        var plaintext = try JWEDecrypter(key: key).decrypt(trimmedText(token))
        writeAll(1, plaintext)
        SecureMemory.wipe(&plaintext)
    case "header":
        _ = try parseOptions(rest, allowed: [])
        var token = try readAll(0, limit: InputLimit.token, what: "the token on stdin")
        defer { SecureMemory.wipe(&token) }
        // `json` has every character outside printable ASCII as a \u escape: safe on a terminal.
        let header = try JWEProtectedHeader(compact: trimmedText(token))
        printOut(header.json + "\n")
    default:
        throw UsageError(message: "unknown command '\(UntrustedText.escaped(command))'")
    }
    return 0
}

signal(SIGPIPE, SIG_IGN)
let status: Int32
do {
    status = try run(Array(CommandLine.arguments.dropFirst()))
} catch let error as UsageError {
    printErr("egw-jwe: \(error.message)\n\n" + usage)
    status = 64
} catch let error as JWEError {
    printErr("egw-jwe: \(error.code): \(error.reason)\n")
    status = 1
} catch let error as Failure {
    printErr("egw-jwe: \(error.message)\n")
    status = 1
} catch {
    printErr("egw-jwe: \(error)\n")
    status = 1
}
exit(status)

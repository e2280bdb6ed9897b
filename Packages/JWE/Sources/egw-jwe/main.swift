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
      header                         compact JWE on stdin -> its decoded protected header
      help                           this text

    Trailing whitespace (a final newline) is trimmed from a token read on stdin.
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

/// Reads `fd` to its end. The input may be card data, so every buffer it passes through is wiped: the buffer
/// grows by hand, wiping the old storage before it is freed (an appending array would free it unwiped).
func readAll(_ fd: Int32) throws(Failure) -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: 65_536)
    var count = 0
    defer { SecureMemory.wipe(&buffer) }
    while true {
        if count == buffer.count {
            var larger = [UInt8](repeating: 0, count: buffer.count * 2)
            larger.replaceSubrange(0..<count, with: buffer)
            SecureMemory.wipe(&buffer)
            buffer = larger
        }
        let received = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
        if received < 0 {
            if errno == EINTR { continue }
            throw Failure(message: "cannot read input (errno \(errno))")
        }
        if received == 0 { break }
        count += received
    }
    return Array(buffer[0..<count])
}

func readFile(_ path: String) throws(Failure) -> String {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw Failure(message: "cannot open key file \(path)") }
    defer { close(fd) }
    return String(decoding: try readAll(fd), as: UTF8.self)
}

func trimmedText(_ bytes: [UInt8]) -> String {
    var end = bytes.count
    while end > 0, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[end - 1]) { end -= 1 }
    return String(decoding: bytes[0..<end], as: UTF8.self)
}

func isPEM(_ text: String) -> Bool {
    text.drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }.hasPrefix("-----BEGIN")
}

/// Options `--name value` after the command; unknown or repeated options are usage errors.
func parseOptions(_ arguments: ArraySlice<String>, allowed: Set<String>) throws(UsageError) -> [String: String] {
    var options: [String: String] = [:]
    var index = arguments.startIndex
    while index < arguments.endIndex {
        let name = arguments[index]
        guard allowed.contains(name) else { throw UsageError(message: "unknown argument '\(name)'") }
        guard options[name] == nil else { throw UsageError(message: "'\(name)' given twice") }
        guard index + 1 < arguments.endIndex else { throw UsageError(message: "'\(name)' needs a value") }
        options[name] = arguments[index + 1]
        index += 2
    }
    return options
}

func publicKey(fromFile path: String) throws(JWEError) -> RSAPublicKey? {
    guard let text = try? readFile(path) else { return nil }
    if isPEM(text) {
        if text.contains("-----BEGIN PRIVATE KEY-----") {
            return try RSAPrivateKey(pem: text).publicKey
        }
        return try RSAPublicKey(pem: text)
    }
    return try RSAPublicKey(jwk: text)
}

func privateKey(fromFile path: String) throws(JWEError) -> RSAPrivateKey? {
    guard let text = try? readFile(path) else { return nil }
    return isPEM(text) ? try RSAPrivateKey(pem: text) : try RSAPrivateKey(jwk: text)
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
            guard let value = Int(text) else { throw UsageError(message: "--bits needs a number, got '\(text)'") }
            bits = value
        }
        let key = try RSAPrivateKey.generate(bits: bits, kid: options["--kid"])
        printOut(key.jwkJSON() + "\n")
    case "public":
        _ = try parseOptions(rest, allowed: [])
        let text = String(decoding: try readAll(0), as: UTF8.self)
        let key = isPEM(text) ? try RSAPrivateKey(pem: text) : try RSAPrivateKey(jwk: text)
        printOut(key.publicKey.jwkJSON() + "\n")
    case "encrypt":
        let options = try parseOptions(rest, allowed: ["--key"])
        guard let path = options["--key"] else { throw UsageError(message: "encrypt needs --key FILE") }
        guard let key = try publicKey(fromFile: path) else { throw Failure(message: "cannot read key file \(path)") }
        var plaintext = try readAll(0)
        defer { SecureMemory.wipe(&plaintext) }
        printOut(try JWEEncrypter(recipient: key).encrypt(plaintext) + "\n")
    case "decrypt":
        let options = try parseOptions(rest, allowed: ["--key"])
        guard let path = options["--key"] else { throw UsageError(message: "decrypt needs --key FILE") }
        guard let key = try privateKey(fromFile: path) else { throw Failure(message: "cannot read key file \(path)") }
        var plaintext = try JWEDecrypter(key: key).decrypt(trimmedText(try readAll(0)))
        writeAll(1, plaintext)
        SecureMemory.wipe(&plaintext)
    case "header":
        _ = try parseOptions(rest, allowed: [])
        let header = try JWEProtectedHeader(compact: trimmedText(try readAll(0)))
        printOut(header.json + "\n")
    default:
        throw UsageError(message: "unknown command '\(command)'")
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

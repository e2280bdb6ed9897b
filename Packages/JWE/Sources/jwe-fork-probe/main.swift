// jwe-fork-probe: the fork-safety check of the JWE tests (ForkTests), run in a process of its own.
//
//   jwe-fork-probe fork|_Fork
//
// Generates a key, encrypts once (so the encrypter's contexts are pooled and OpenSSL's generator is in use),
// then forks with `fork()` or glibc's `_Fork()` (found with `dlsym(RTLD_DEFAULT, "_Fork")`). Child and parent
// each encrypt three messages with the same encrypter; the child writes its tokens to a pipe and leaves with
// `_exit`. Prints `key <private JWK>`, then `parent <token>` and `child <token>` lines; exit status 2 when the
// fork function does not exist, 1 on any other failure.
//
// Why a process of its own: forking a multi-threaded process (a test runner) leaves the child with whatever
// locks other threads held at that instant, and `_Fork()` does not even take malloc's; a child can then hang
// for reasons that have nothing to do with this package. This process has one thread when it forks.

import JWE

#if canImport(Glibc)
import Glibc
#endif

typealias ForkFunction = @convention(c) () -> pid_t

func fail(_ message: String, status: Int32 = 1) -> Never {
    let bytes = Array("jwe-fork-probe: \(message)\n".utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

let arguments = CommandLine.arguments.dropFirst()
let forkCall: ForkFunction
switch arguments.first {
case "fork":
    forkCall = { fork() }
case "_Fork":
    // RTLD_DEFAULT is the null handle on glibc.
    guard let symbol = dlsym(nil, "_Fork") else { fail("_Fork not found", status: 2) }
    forkCall = unsafeBitCast(symbol, to: ForkFunction.self)
default:
    fail("usage: jwe-fork-probe fork|_Fork", status: 64)
}

let plaintext = Array(#"{"cardNumber":"4111111111111111"}"#.utf8)
let key: RSAPrivateKey
let encrypter: JWEEncrypter
do {
    key = try RSAPrivateKey.generate(bits: 2048, kid: "fork-probe")
    encrypter = JWEEncrypter(recipient: key.publicKey)
    _ = try encrypter.encrypt(plaintext)
} catch {
    fail("\(error)")
}

var fds: [Int32] = [-1, -1]
guard pipe(&fds) == 0 else { fail("pipe failed") }
let pid = forkCall()
if pid == 0 {
    close(fds[0])
    var output: [UInt8] = []
    for _ in 0..<3 {
        output += Array(((try? encrypter.encrypt(plaintext)) ?? "encryption-failed").utf8) + [0x0A]
    }
    var offset = 0
    while offset < output.count {
        let written = output[offset...].withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        if written <= 0 { break }
        offset += written
    }
    _exit(0)
}
guard pid > 0 else { fail("fork failed") }
close(fds[1])

var lines = ["key " + key.jwkJSON()]
for _ in 0..<3 {
    guard let token = try? encrypter.encrypt(plaintext) else { fail("encryption failed in the parent") }
    lines.append("parent " + token)
}
var received: [UInt8] = []
var buffer = [UInt8](repeating: 0, count: 4096)
while true {
    let count = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
    if count < 0, errno == EINTR { continue }
    if count <= 0 { break }
    received += buffer[0..<count]
}
var status: Int32 = 0
while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
for token in String(decoding: received, as: UTF8.self).split(separator: "\n") {
    lines.append("child " + token)
}
print(lines.joined(separator: "\n"))

import Foundation

@testable import PaymentFlow

/// Sends `request` and waits for the single completion.
func send(
    _ request: HTTPRequest, over transport: some HTTPTransport
) async -> Result<HTTPResponse, TransportError> {
    await withCheckedContinuation { continuation in
        transport.send(request) { continuation.resume(returning: $0) }
    }
}

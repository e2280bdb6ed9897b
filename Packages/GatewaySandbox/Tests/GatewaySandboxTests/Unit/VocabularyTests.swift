import Testing

@testable import GatewaySandbox

/// The shell parses fault commands from SandboxVocabulary's names without linking the sandbox; the
/// names must be exactly the ones the sandbox's kinds and endpoints have.
@Suite struct VocabularyTests {
    @Test func everyFaultKindIsNamedInTheVocabularyInOrder() {
        let kinds: [SandboxFault.Kind] = [
            .latency(.milliseconds(1)), .status(503), .statusWithoutBody(502), .malformedBody, .truncatedBody,
            .dropConnection, .rotateKey,
        ]
        #expect(kinds.map(\.name) == SandboxFaultKindNames.all)
    }

    @Test func everyEndpointNameRoundTrips() {
        for endpoint in SandboxEndpoint.allCases {
            #expect(SandboxEndpoint(name: endpoint.rawValue) == endpoint)
        }
        #expect(SandboxEndpoint(name: "nope") == nil)
    }
}

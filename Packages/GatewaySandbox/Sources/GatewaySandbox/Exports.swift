// The endpoint and fault names are part of the sandbox's API: importing GatewaySandbox brings them.
@_exported import SandboxVocabulary

import Testing

@testable import WebKitPresenter

/// What GTKMainLoop.start sets before GTK starts: no disk cache ever, and no GL shaders to compile on
/// the CPU when OpenGL would be software (issue 35).
@Suite struct StartupEnvironmentTests {
    let gpu = ["/dev/dri/renderD128"]

    @Test func shaderCachesStayOffDiskWithOrWithoutAGPU() {
        for nodes in [gpu, []] {
            let names = StartupEnvironment.choose(environment: [:], renderNodes: nodes).variables.map(\.name)
            #expect(names.contains("MESA_SHADER_CACHE_DISABLE"))
            #expect(names.contains("__GL_SHADER_DISK_CACHE"))
        }
    }

    @Test func withoutARenderNodeWindowsAndPagesAreDrawnWithoutGL() {
        let chosen = StartupEnvironment.choose(environment: [:], renderNodes: [])
        #expect(chosen.variables.contains { $0 == ("GSK_RENDERER", "cairo") })
        #expect(chosen.variables.contains { $0 == ("WEBKIT_DISABLE_COMPOSITING_MODE", "1") })
    }

    @Test func aGPUKeepsGTKsOwnRenderer() {
        let names = StartupEnvironment.choose(environment: [:], renderNodes: gpu).variables.map(\.name)
        #expect(!names.contains("GSK_RENDERER"))
        #expect(!names.contains("WEBKIT_DISABLE_COMPOSITING_MODE"))
    }

    @Test func forcedSoftwareRenderingCountsAsSoftwareEvenWithAGPU() {
        for environment in [["LIBGL_ALWAYS_SOFTWARE": "1"], ["GALLIUM_DRIVER": "llvmpipe"]] {
            let chosen = StartupEnvironment.choose(environment: environment, renderNodes: gpu)
            #expect(chosen.variables.contains { $0 == ("GSK_RENDERER", "cairo") })
        }
        let notForced = StartupEnvironment.choose(environment: ["LIBGL_ALWAYS_SOFTWARE": "0"], renderNodes: gpu)
        #expect(!notForced.variables.map(\.name).contains("GSK_RENDERER"))
    }

    @Test func whatTheEnvironmentAlreadySaysIsNeverOverridden() {
        let environment = ["GSK_RENDERER": "gl", "MESA_SHADER_CACHE_DISABLE": "false"]
        let names = StartupEnvironment.choose(environment: environment, renderNodes: []).variables.map(\.name)
        #expect(!names.contains("GSK_RENDERER"))
        #expect(!names.contains("MESA_SHADER_CACHE_DISABLE"))
        #expect(names.contains("WEBKIT_DISABLE_COMPOSITING_MODE"))
    }

    @Test func theSandboxRecordsRemovedAtExitAreThisProcessesOnly() {
        let names = ["webkit-41-1", "webkit-41-12", "webkit-412-3", "webkit-4-1", "webkit-41-x", "other-41-1"]
        #expect(StartupEnvironment.sandboxRecords(of: 41, among: names) == ["webkit-41-1", "webkit-41-12"])
    }

    @Test func theSandboxRecordsAreWhereGLibPutsTheRuntimeDirectory() {
        #expect(
            StartupEnvironment.sandboxRecordsDirectory(environment: ["XDG_RUNTIME_DIR": "/run/user/7", "HOME": "/h"])
                == "/run/user/7/.flatpak")
        #expect(
            StartupEnvironment.sandboxRecordsDirectory(environment: ["XDG_CACHE_HOME": "/c", "HOME": "/h"])
                == "/c/.flatpak")
        #expect(StartupEnvironment.sandboxRecordsDirectory(environment: ["HOME": "/h"]) == "/h/.cache/.flatpak")
    }
}

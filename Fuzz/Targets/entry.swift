import Foundation

/// The one libFuzzer entry point of the fuzz binary: `FUZZ_TARGET` (read once) picks the target.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEntry(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzTarget.selected(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

enum FuzzTarget {
    static let all: [String: ([UInt8]) -> Void] = [
        "multipart": fuzzMultipart, "request-head": fuzzRequestHead, "json-bodies": fuzzJSONBodies, "jwt": fuzzJWT,
    ]

    static let selected: ([UInt8]) -> Void = {
        let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
        guard let target = all[name] else {
            FileHandle.standardError.write(Data("FUZZ_TARGET must be one of \(all.keys.sorted())\n".utf8))
            exit(2)
        }
        return target
    }()
}

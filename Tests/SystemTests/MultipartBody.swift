/// Builds multipart/form-data bodies for identify requests in tests.
struct MultipartBody {
    let boundary = "----mapvest-test-\(UInt32.random(in: 0...UInt32.max))"
    private(set) var bytes: [UInt8] = []

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    mutating func addFile(name: String, filename: String, contentType: String?, data: [UInt8]) {
        var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\n"
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        head += "\r\n"
        bytes += Array(head.utf8) + data + Array("\r\n".utf8)
    }

    mutating func addText(name: String, value: String) {
        bytes += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
    }

    func finished() -> [UInt8] { bytes + Array("--\(boundary)--\r\n".utf8) }

    /// A tiny valid JPEG-shaped payload (the hint path does not decode it).
    static let fakeJPEG: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x42, count: 256) + [0xFF, 0xD9]

    static func identify(hint: String?, image: [UInt8] = fakeJPEG, imageType: String? = "image/jpeg") -> MultipartBody {
        var body = MultipartBody()
        body.addFile(name: "image", filename: "photo.jpg", contentType: imageType, data: image)
        if let hint { body.addText(name: "hint", value: hint) }
        return body
    }
}

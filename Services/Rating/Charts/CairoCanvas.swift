import CCairo

/// An RGBA colour, components 0…1.
struct ChartColor: Sendable {
    var r: Double
    var g: Double
    var b: Double
    var a: Double = 1

    /// `0xRRGGBB` with an alpha.
    init(hex: UInt32, alpha: Double = 1) {
        r = Double((hex >> 16) & 0xFF) / 255
        g = Double((hex >> 8) & 0xFF) / 255
        b = Double(hex & 0xFF) / 255
        a = alpha
    }

    func with(alpha: Double) -> ChartColor {
        var c = self
        c.a = alpha
        return c
    }
}

enum TextAlign { case left, center, right }

/// Owns one cairo image surface and its drawing context (the only place cairo's C API is called). Drawing is in
/// logical units, scaled to pixels by `scale`; the handles are destroyed in `deinit`. Used by one thread at a time.
final class CairoCanvas {
    private let surface: OpaquePointer
    private let cr: OpaquePointer
    /// Size in logical units.
    let width: Double
    let height: Double

    private init(surface: OpaquePointer, cr: OpaquePointer, width: Double, height: Double) {
        self.surface = surface
        self.cr = cr
        self.width = width
        self.height = height
    }

    /// A white canvas of `pixelWidth × pixelHeight` drawn in logical units of `1 / scale` pixels; nil when cairo
    /// cannot allocate it.
    static func make(pixelWidth: Int, pixelHeight: Int, scale: Double) -> CairoCanvas? {
        guard pixelWidth > 0, pixelHeight > 0, pixelWidth <= 8192, pixelHeight <= 8192, scale > 0,
            let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(pixelWidth), Int32(pixelHeight))
        else { return nil }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(surface) else {
            cairo_surface_destroy(surface)
            return nil
        }
        guard cairo_status(cr) == CAIRO_STATUS_SUCCESS else {
            cairo_destroy(cr)
            cairo_surface_destroy(surface)
            return nil
        }
        cairo_scale(cr, scale, scale)
        let canvas = CairoCanvas(
            surface: surface, cr: cr, width: Double(pixelWidth) / scale, height: Double(pixelHeight) / scale)
        canvas.setColor(ChartColor(hex: 0xFFFFFF))
        cairo_paint(cr)
        return canvas
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
    }

    // MARK: - Paths

    func move(_ x: Double, _ y: Double) { cairo_move_to(cr, x, y) }
    func line(_ x: Double, _ y: Double) { cairo_line_to(cr, x, y) }
    func close() { cairo_close_path(cr) }
    func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double) { cairo_rectangle(cr, x, y, w, h) }
    func circle(_ x: Double, _ y: Double, radius: Double) {
        cairo_new_sub_path(cr)
        cairo_arc(cr, x, y, radius, 0, 2 * Double.pi)
    }

    /// A polyline through `points` (a new path).
    func polyline(_ points: [(Double, Double)]) {
        cairo_new_path(cr)
        for (i, p) in points.enumerated() {
            if i == 0 { cairo_move_to(cr, p.0, p.1) } else { cairo_line_to(cr, p.0, p.1) }
        }
    }

    // MARK: - Painting

    func setColor(_ c: ChartColor) { cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a) }

    func stroke(_ color: ChartColor, width: Double, dash: [Double] = [], preserve: Bool = false) {
        setColor(color)
        cairo_set_line_width(cr, width)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        dash.withUnsafeBufferPointer { cairo_set_dash(cr, $0.baseAddress, Int32($0.count), 0) }
        if preserve { cairo_stroke_preserve(cr) } else { cairo_stroke(cr) }
        cairo_set_dash(cr, nil, 0, 0)
    }

    func fill(_ color: ChartColor, preserve: Bool = false) {
        setColor(color)
        if preserve { cairo_fill_preserve(cr) } else { cairo_fill(cr) }
    }

    /// Fills the current path with a vertical gradient from `top` at `y0` to `bottom` at `y1`.
    func fillVerticalGradient(top: ChartColor, bottom: ChartColor, y0: Double, y1: Double) {
        guard let pattern = cairo_pattern_create_linear(0, y0, 0, y1) else {
            fill(top)
            return
        }
        cairo_pattern_add_color_stop_rgba(pattern, 0, top.r, top.g, top.b, top.a)
        cairo_pattern_add_color_stop_rgba(pattern, 1, bottom.r, bottom.g, bottom.b, bottom.a)
        cairo_set_source(cr, pattern)
        cairo_fill(cr)
        cairo_pattern_destroy(pattern)
    }

    /// Restricts drawing to a rectangle until `unclip()`.
    func clip(_ x: Double, _ y: Double, _ w: Double, _ h: Double) {
        cairo_save(cr)
        cairo_new_path(cr)
        cairo_rectangle(cr, x, y, w, h)
        cairo_clip(cr)
    }

    func unclip() { cairo_restore(cr) }

    // MARK: - Text (DejaVu Sans through fontconfig)

    private func font(size: Double, bold: Bool) {
        cairo_select_font_face(
            cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cr, size)
    }

    /// The advance width of `text` at `size`.
    func textWidth(_ text: String, size: Double, bold: Bool = false) -> Double {
        font(size: size, bold: bold)
        var extents = cairo_text_extents_t()
        cairo_text_extents(cr, text, &extents)
        return extents.x_advance
    }

    /// Draws `text` with its baseline at `y`, aligned on `x`.
    func text(
        _ text: String, x: Double, y: Double, size: Double, color: ChartColor, bold: Bool = false,
        align: TextAlign = .left
    ) {
        let w = textWidth(text, size: size, bold: bold)
        let left: Double
        switch align {
        case .left: left = x
        case .center: left = x - w / 2
        case .right: left = x - w
        }
        setColor(color)
        cairo_new_path(cr)
        cairo_move_to(cr, left, y)
        cairo_show_text(cr, text)
        cairo_new_path(cr)
    }

    // MARK: - Output

    /// The canvas encoded as PNG, or nil when cairo fails.
    func png() -> [UInt8]? {
        cairo_surface_flush(surface)
        let sink = PNGSink()
        let status = cairo_surface_write_to_png_stream(
            surface,
            { closure, data, length in
                guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
                let sink = Unmanaged<PNGSink>.fromOpaque(closure).takeUnretainedValue()
                sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
                return CAIRO_STATUS_SUCCESS
            }, Unmanaged.passUnretained(sink).toOpaque())
        return withExtendedLifetime(sink) { status == CAIRO_STATUS_SUCCESS ? sink.bytes : nil }
    }
}

/// Collects the bytes cairo writes.
private final class PNGSink {
    var bytes: [UInt8] = []
    init() { bytes.reserveCapacity(128 << 10) }
}

/// What a PNG holds, read back through cairo: its pixel size and the variance of its luminance (0 for a blank
/// image). For tests and tools that check rendered or upstream images.
public struct PNGInfo: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Variance of pixel luminance in 0…255 units.
    public let luminanceVariance: Double

    /// Decodes `png`; nil when it is not a PNG cairo can read.
    public static func inspect(_ png: [UInt8]) -> PNGInfo? {
        let source = PNGSource(png)
        guard
            let surface = cairo_image_surface_create_from_png_stream(
                { closure, data, length in
                    guard let closure, let data else { return CAIRO_STATUS_READ_ERROR }
                    let source = Unmanaged<PNGSource>.fromOpaque(closure).takeUnretainedValue()
                    return source.read(into: data, count: Int(length)) ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_READ_ERROR
                }, Unmanaged.passUnretained(source).toOpaque())
        else { return nil }
        defer { cairo_surface_destroy(surface) }
        return withExtendedLifetime(source) { () -> PNGInfo? in
            guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else { return nil }
            cairo_surface_flush(surface)
            let format = cairo_image_surface_get_format(surface)
            guard format == CAIRO_FORMAT_RGB24 || format == CAIRO_FORMAT_ARGB32,
                let data = cairo_image_surface_get_data(surface)
            else { return nil }
            let width = Int(cairo_image_surface_get_width(surface))
            let height = Int(cairo_image_surface_get_height(surface))
            let stride = Int(cairo_image_surface_get_stride(surface))
            var sum = 0.0
            var sumSquares = 0.0
            for y in 0..<height {
                let row = data + y * stride
                for x in 0..<width {
                    let p = row + x * 4
                    let lum = 0.299 * Double(p[2]) + 0.587 * Double(p[1]) + 0.114 * Double(p[0])
                    sum += lum
                    sumSquares += lum * lum
                }
            }
            let n = Double(max(1, width * height))
            let mean = sum / n
            return PNGInfo(width: width, height: height, luminanceVariance: max(0, sumSquares / n - mean * mean))
        }
    }
}

/// Feeds cairo's PNG reader from a byte array.
private final class PNGSource {
    let bytes: [UInt8]
    var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Bool {
        guard count >= 0, offset + count <= bytes.count else { return false }
        bytes.withUnsafeBufferPointer { src in
            if let base = src.baseAddress { buffer.update(from: base + offset, count: count) }
        }
        offset += count
        return true
    }
}

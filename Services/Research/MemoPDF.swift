import CCairo

/// Owns one cairo PDF surface and its context (the only place Research calls cairo): lays out a conversation as
/// wrapped paragraphs on A4 pages, breaking pages as it goes, and hands back the finished PDF bytes. Blocking,
/// CPU-bound C work: used by one thread at a time, never from the cooperative pool (see `MemoRenderer`).
final class MemoPDF {
    /// Where cairo writes the PDF.
    private final class Sink {
        var bytes: [UInt8] = []
    }

    static let pageWidth = 595.0
    static let pageHeight = 842.0
    static let margin = 56.0

    /// Outlives the surface, which may write to it until it is destroyed.
    private let sink: Sink
    private let surface: OpaquePointer
    private let cr: OpaquePointer
    private var y = MemoPDF.margin
    private var finished = false

    private init(surface: OpaquePointer, cr: OpaquePointer, sink: Sink) {
        self.surface = surface
        self.cr = cr
        self.sink = sink
    }

    /// A blank first page; nil when cairo cannot make one.
    static func make() -> MemoPDF? {
        let sink = Sink()
        let write: cairo_write_func_t = { closure, data, length in
            guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
            let sink = Unmanaged<Sink>.fromOpaque(closure).takeUnretainedValue()
            sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
            return CAIRO_STATUS_SUCCESS
        }
        guard
            let surface = cairo_pdf_surface_create_for_stream(
                write, Unmanaged.passUnretained(sink).toOpaque(), pageWidth, pageHeight)
        else { return nil }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(surface),
            cairo_status(cr) == CAIRO_STATUS_SUCCESS
        else {
            cairo_surface_destroy(surface)
            return nil
        }
        let pdf = MemoPDF(surface: surface, cr: cr, sink: sink)
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.12)
        return pdf
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
    }

    /// `text` wrapped to the page width in `size`-point type, followed by `after` points of space.
    func paragraph(_ text: String, size: Double, bold: Bool = false, gray: Double = 0.1, after: Double = 8) {
        cairo_select_font_face(
            cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cr, size)
        cairo_set_source_rgb(cr, gray, gray, gray + 0.02)
        let lineHeight = size * 1.4
        let width = Self.pageWidth - 2 * Self.margin
        for block in text.split(separator: "\n", omittingEmptySubsequences: false) {
            for line in wrap(String(block), width: width) {
                if y + lineHeight > Self.pageHeight - Self.margin {
                    cairo_show_page(cr)
                    y = Self.margin
                }
                y += lineHeight
                cairo_move_to(cr, Self.margin, y - size * 0.35)
                cairo_show_text(cr, line)
            }
        }
        y += after
    }

    /// The finished PDF; nil when cairo reported an error.
    func finish() -> [UInt8]? {
        guard !finished else { return nil }
        finished = true
        cairo_surface_finish(surface)
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else { return nil }
        return sink.bytes
    }

    private func advance(_ text: String) -> Double {
        var extents = cairo_text_extents_t()
        cairo_text_extents(cr, text, &extents)
        return extents.x_advance
    }

    /// Greedy word wrap; a word wider than the line is cut by characters.
    private func wrap(_ text: String, width: Double) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            let candidate = current.isEmpty ? String(word) : current + " " + word
            if advance(candidate) <= width {
                current = candidate
                continue
            }
            if !current.isEmpty { lines.append(current) }
            current = ""
            for character in word {
                if advance(current + String(character)) > width, !current.isEmpty {
                    lines.append(current)
                    current = ""
                }
                current.append(character)
            }
        }
        if !current.isEmpty || lines.isEmpty { lines.append(current) }
        return lines
    }
}

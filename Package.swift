// swift-tools-version:6.0
import PackageDescription

/// Swift 6 language mode everywhere; strict concurrency is the default in this mode. `MemberImportVisibility`: a
/// file sees the members (extensions) of a module only when it imports that module itself, so every dependency a
/// file uses is written down in it, and `scripts/checks/imports.py` keeps each target's dependencies equal to them.
let swiftSettings: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility")]

/// One `systemLibrary` target per C library. Only one Swift wrapper module imports each.
/// `pkgConfig: nil` where the library's headers and `link` in the module map need no flags: hiredis's `.pc` adds
/// `-D_FILE_OFFSET_BITS=64`, which SwiftPM refuses with a warning on every build (and which 64-bit Linux does not need).
func cLibrary(_ name: String, pkgConfig: String?, apt: [String]) -> Target {
    .systemLibrary(name: name, path: "Shared/CLibs/\(name)", pkgConfig: pkgConfig, providers: [.apt(apt)])
}

/// The layers of `Shared/`, one folder each; what each may depend on is checked by scripts/checks/imports.py.
enum Layer: String {
    /// Swift owners of the C libraries, and the messaging built on them.
    case infrastructure = "Infrastructure"
    /// What every binary shares: wire types, configuration and logging, the service kit.
    case platform = "Platform"
    /// Clients of the paid and public upstreams.
    case upstreams = "Upstreams"
    /// Rules and data more than one service uses.
    case domain = "Domain"
}

func shared(_ layer: Layer, _ name: String, _ deps: [Target.Dependency], resources: [Resource]? = nil) -> Target {
    .target(
        name: name, dependencies: deps, path: "Shared/\(layer.rawValue)/\(name)", resources: resources,
        swiftSettings: swiftSettings)
}

/// A service's binary: `Services/<name>/`, minus the folders of the libraries that live beside it.
func service(_ name: String, _ deps: [Target.Dependency], libraries: [String] = []) -> Target {
    .executableTarget(
        name: name, dependencies: deps, path: "Services/\(name)", exclude: libraries, swiftSettings: swiftSettings)
}

/// A library only one service uses, beside its binary: `Services/<service>/<folder>/`.
func serviceLibrary(_ name: String, in service: String, folder: String, _ deps: [Target.Dependency]) -> Target {
    .target(name: name, dependencies: deps, path: "Services/\(service)/\(folder)", swiftSettings: swiftSettings)
}

func tests(_ name: String, _ deps: [Target.Dependency]) -> Target {
    .testTarget(name: name, dependencies: deps, path: "Tests/\(name)", swiftSettings: swiftSettings)
}

let package = Package(
    name: "Mapvest",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "Gateway", targets: ["Gateway"]),
        .executable(name: "Identify", targets: ["Identify"]),
        .executable(name: "Research", targets: ["Research"]),
        .executable(name: "Nearby", targets: ["Nearby"]),
        .executable(name: "Rating", targets: ["Rating"]),
        .executable(name: "Briefs", targets: ["Briefs"]),
        .executable(name: "PushDispatcher", targets: ["PushDispatcher"]),
        .executable(name: "DevBroker", targets: ["DevBroker"]),
        .executable(name: "LoadGen", targets: ["LoadGen"]),
        .executable(name: "BenchNearbyRating", targets: ["BenchNearbyRating"]),
        .executable(name: "PushBench", targets: ["PushBench"]),
        .executable(name: "BenchCharts", targets: ["BenchCharts"]),
        .executable(name: "BenchBriefs", targets: ["BenchBriefs"]),
    ],
    targets: [
        // C libraries from Debian.
        cLibrary("CRdKafka", pkgConfig: "rdkafka", apt: ["librdkafka-dev"]),
        cLibrary("CLibPQ", pkgConfig: "libpq", apt: ["libpq-dev"]),
        cLibrary("CCurl", pkgConfig: "libcurl", apt: ["libcurl4-openssl-dev"]),
        cLibrary("CHiredis", pkgConfig: nil, apt: ["libhiredis-dev"]),
        cLibrary("CMicroHTTPD", pkgConfig: "libmicrohttpd", apt: ["libmicrohttpd-dev"]),
        cLibrary("CCrypto", pkgConfig: "libcrypto", apt: ["libssl-dev"]),
        cLibrary("CTesseract", pkgConfig: "tesseract", apt: ["libtesseract-dev", "tesseract-ocr-eng"]),
        cLibrary("CCairo", pkgConfig: "cairo", apt: ["libcairo2-dev", "fonts-dejavu-core"]),

        // Shared modules.
        shared(.platform, "Runtime", []),
        shared(.platform, "Contracts", []),
        shared(.platform, "Tracing", ["Runtime"]),
        shared(.infrastructure, "Crypto", ["CCrypto"]),
        shared(.infrastructure, "Kafka", ["CRdKafka", "Runtime", "Tracing"]),
        shared(.infrastructure, "Messaging", ["Kafka", "Contracts", "Runtime", "Tracing"]),
        shared(.infrastructure, "Postgres", ["CLibPQ", "Runtime", "Tracing"]),
        shared(.infrastructure, "Redis", ["CHiredis", "Crypto", "Runtime", "Tracing"]),
        shared(.infrastructure, "HTTPServer", ["CMicroHTTPD", "Runtime"]),
        shared(.infrastructure, "HTTPClient", ["CCurl", "Runtime", "Tracing"]),
        shared(
            .platform, "ServiceKit",
            ["HTTPServer", "HTTPClient", "Messaging", "Kafka", "Postgres", "Redis", "Runtime", "Contracts", "Tracing"]),
        shared(.domain, "Finance", ["Contracts"], resources: [.copy("Resources/brand-seed.json")]),
        shared(.upstreams, "Jev", ["HTTPClient", "Runtime"]),
        shared(.upstreams, "OpenRouter", ["HTTPClient", "Contracts", "Runtime"]),
        shared(.upstreams, "Exa", ["HTTPClient", "Contracts", "Runtime"]),
        shared(.upstreams, "MarketData", ["HTTPClient", "Contracts", "Runtime"]),
        serviceLibrary("OCR", in: "Identify", folder: "OCR", ["CTesseract", "Runtime", "Tracing"]),
        serviceLibrary("Charts", in: "Rating", folder: "Charts", ["CCairo", "Contracts"]),
        shared(.domain, "Geo", []),
        shared(
            .domain, "Resolver",
            ["Finance", "Exa", "OpenRouter", "MarketData", "Redis", "Postgres", "Contracts", "Runtime"]),
        shared(.upstreams, "Places", ["HTTPClient", "Redis", "Finance", "Geo", "Contracts", "Runtime"]),
        serviceLibrary("NearbyCore", in: "Nearby", folder: "Core", ["Finance", "Geo", "Contracts", "Runtime"]),
        serviceLibrary(
            "NearbyAdapters", in: "Nearby", folder: "Adapters",
            ["NearbyCore", "Places", "Resolver", "Finance", "Kafka", "Messaging", "Postgres", "Contracts", "Runtime"]),
        shared(.domain, "Headlines", ["Jev", "MarketData", "Redis", "Crypto", "Finance", "Contracts", "Runtime"]),
        serviceLibrary("RatingCore", in: "Rating", folder: "Core", ["Contracts", "Runtime"]),
        serviceLibrary(
            "RatingAdapters", in: "Rating", folder: "Adapters",
            ["RatingCore", "Headlines", "Jev", "MarketData", "HTTPClient", "Redis", "Finance", "Contracts", "Runtime"]),
        serviceLibrary(
            "TickerPage", in: "Rating", folder: "TickerPage",
            ["Charts", "MarketData", "RatingAdapters", "RatingCore", "Redis", "Messaging", "Contracts", "Runtime"]),
        serviceLibrary(
            "SearchIntent", in: "Rating", folder: "SearchIntent", ["Jev", "Finance", "Redis", "Contracts", "Runtime"]),
        serviceLibrary("PushCore", in: "PushDispatcher", folder: "Core", ["Contracts", "Runtime"]),
        serviceLibrary(
            "ExpoPush", in: "PushDispatcher", folder: "ExpoPush",
            ["PushCore", "HTTPClient", "Redis", "Contracts", "Runtime"]),
        serviceLibrary("MCP", in: "Gateway", folder: "MCPServer", ["HTTPServer", "HTTPClient", "Runtime"]),
        serviceLibrary("MoneyCore", in: "Gateway", folder: "MoneyCore", []),
        serviceLibrary("BriefsCore", in: "Briefs", folder: "Core", ["Finance", "Geo", "Contracts", "Runtime"]),
        serviceLibrary(
            "Scheduling", in: "Briefs", folder: "Scheduling",
            ["Messaging", "Kafka", "Postgres", "Contracts", "Runtime", "Tracing"]),
        serviceLibrary(
            "PushAdapters", in: "PushDispatcher", folder: "Adapters",
            [
                "PushCore", "ExpoPush", "Messaging", "Kafka", "Postgres", "Redis", "HTTPClient", "Crypto", "Contracts",
                "Runtime",
            ]),

        // Services: one executable each.
        serviceLibrary(
            "GatewayKit", in: "Gateway", folder: "Kit",
            [
                "ServiceKit", "HTTPServer", "HTTPClient", "Messaging", "Redis", "Postgres", "Crypto", "Contracts",
                "Runtime", "MCP", "Finance", "Tracing", "MoneyCore", "Geo", "ResearchCore",
            ]),
        service(
            "Gateway", ["GatewayKit", "ServiceKit", "Messaging", "Redis", "Postgres", "Runtime"],
            libraries: ["MCPServer", "Kit", "MoneyCore"]),
        serviceLibrary("IdentifyCore", in: "Identify", folder: "Core", ["Finance", "Contracts", "Runtime"]),
        service(
            "Identify",
            [
                "ServiceKit", "Messaging", "Finance", "Resolver", "OCR", "Geo", "Crypto", "Jev", "OpenRouter", "Exa",
                "MarketData", "HTTPClient", "Redis", "Postgres", "Contracts", "Runtime", "Kafka", "IdentifyCore",
                "Scheduling",
            ], libraries: ["OCR", "Core"]),
        service(
            "Nearby",
            [
                "ServiceKit", "Messaging", "NearbyAdapters", "NearbyCore", "Places", "Resolver", "Exa", "OpenRouter",
                "MarketData", "Redis", "Postgres", "Contracts", "Runtime",
            ], libraries: ["Core", "Adapters"]),
        service(
            "Rating",
            [
                "ServiceKit", "Messaging", "RatingAdapters", "TickerPage", "Headlines", "SearchIntent", "Jev",
                "MarketData", "Redis", "Contracts", "Runtime",
            ], libraries: ["Core", "Adapters", "TickerPage", "SearchIntent", "Charts"]),
        service(
            "Briefs",
            [
                "ServiceKit", "Messaging", "Scheduling", "Headlines", "Places", "Finance", "Geo", "Resolver", "Jev",
                "OpenRouter", "Exa", "MarketData", "Redis", "Postgres", "Kafka", "Contracts", "Runtime", "Crypto",
                "HTTPClient", "BriefsCore",
            ], libraries: ["Scheduling", "Core"]),
        service(
            "Research",
            [
                "ServiceKit", "Messaging", "OpenRouter", "Exa", "HTTPClient", "Postgres", "Redis", "Crypto",
                "Contracts",
                "Runtime", "ResearchCore", "CCairo", "Finance", "MarketData",
            ], libraries: ["Core"]),
        serviceLibrary("ResearchCore", in: "Research", folder: "Core", ["Finance", "Contracts"]),
        service(
            "PushDispatcher", ["ServiceKit", "PushAdapters", "PushCore", "Messaging", "Contracts", "Runtime", "Kafka"],
            libraries: ["Core", "Adapters", "ExpoPush"]),

        // Dev/test tooling.
        .executableTarget(
            name: "DevBroker", dependencies: ["KafkaMock", "Runtime"], path: "Tools/DevBroker",
            swiftSettings: swiftSettings),
        // librdkafka's mock cluster, for the dev broker only: no service links it.
        .target(
            name: "KafkaMock", dependencies: ["CRdKafka", "Runtime"], path: "Tools/KafkaMock",
            swiftSettings: swiftSettings),

        .executableTarget(
            name: "LoadGen", dependencies: ["CEventWait", "Runtime"], path: "Tools/LoadGen",
            swiftSettings: swiftSettings),
        // epoll with a nanosecond wait, which Swift's Glibc module does not declare.
        .target(name: "CEventWait", path: "Tools/CEventWait"),

        .executableTarget(
            name: "PushBench",
            dependencies: [
                "PushAdapters", "UpstreamFakes", "Postgres", "Contracts", "Runtime", "HTTPServer", "HTTPClient",
            ],
            path: "Tools/PushBench", swiftSettings: swiftSettings),

        .executableTarget(
            name: "BenchCharts", dependencies: ["Charts", "Contracts"], path: "Tools/BenchCharts",
            swiftSettings: swiftSettings),

        .executableTarget(
            name: "BenchNearbyRating", dependencies: ["UpstreamFakes", "HTTPClient", "HTTPServer", "Runtime"],
            path: "Tools/BenchNearbyRating", swiftSettings: swiftSettings),

        .executableTarget(
            name: "BenchBriefs",
            dependencies: ["UpstreamFakes", "Kafka", "Postgres", "HTTPServer", "Contracts", "Runtime"],
            path: "Tools/BenchBriefs", swiftSettings: swiftSettings),

        // Tests.
        // Loopback fakes of the paid upstreams, shared by tests and benchmark drivers.
        .target(
            name: "UpstreamFakes", dependencies: ["HTTPServer", "Runtime"], path: "Tools/UpstreamFakes",
            swiftSettings: swiftSettings),
        .target(
            name: "TestSupport", dependencies: ["HTTPClient", "Runtime"], path: "Tests/TestSupport",
            swiftSettings: swiftSettings),
        tests("RuntimeTests", ["Runtime"]),
        tests("TracingTests", ["Tracing", "Runtime"]),
        tests("ContractsTests", ["Contracts"]),
        tests("CryptoTests", ["Crypto"]),
        tests("KafkaTests", ["Kafka", "CRdKafka", "Messaging", "Contracts", "Runtime", "TestSupport"]),
        tests("PostgresTests", ["Postgres", "Runtime", "TestSupport"]),
        tests("RedisTests", ["Redis", "Crypto", "Runtime", "TestSupport"]),
        tests("HTTPTests", ["HTTPServer", "HTTPClient", "Runtime", "TestSupport", "UpstreamFakes"]),
        tests("FinanceTests", ["Finance", "Contracts"]),
        tests(
            "UpstreamTests",
            [
                "Jev", "OpenRouter", "Exa", "MarketData", "HTTPClient", "Contracts", "Runtime", "HTTPServer",
                "TestSupport", "UpstreamFakes",
            ]),
        tests("OCRTests", ["OCR", "Runtime", "TestSupport"]),
        tests("ChartsTests", ["Charts", "Contracts"]),
        tests("GeoTests", ["Geo"]),
        tests("IdentifyTests", ["IdentifyCore", "Finance", "Contracts", "Runtime"]),
        tests("ResearchTests", ["ResearchCore", "Contracts"]),
        tests(
            "NearbyTests",
            [
                "NearbyAdapters", "NearbyCore", "Messaging", "Places", "Resolver", "Finance", "Exa", "OpenRouter",
                "MarketData", "Kafka", "Redis", "Postgres", "Geo", "HTTPServer", "Contracts", "Runtime", "TestSupport",
                "UpstreamFakes",
            ]),
        tests("NearbyCoreTests", ["NearbyCore", "Finance", "Contracts"]),
        tests(
            "RatingTests",
            [
                "TickerPage", "Charts", "Messaging", "RatingAdapters", "RatingCore", "Headlines", "SearchIntent", "Jev",
                "MarketData", "Redis", "HTTPServer", "Contracts", "Runtime", "TestSupport", "UpstreamFakes",
            ]),
        tests("RatingCoreTests", ["RatingCore", "Contracts"]),
        tests(
            "PushTests",
            [
                "PushAdapters", "PushCore", "ExpoPush", "Messaging", "Kafka", "Postgres", "Redis", "HTTPServer",
                "HTTPClient",
                "Crypto", "Contracts", "Runtime", "TestSupport", "UpstreamFakes",
            ]),
        tests("PushCoreTests", ["PushCore", "Contracts"]),
        tests("MCPTests", ["MCP", "HTTPServer", "HTTPClient", "TestSupport", "Runtime", "UpstreamFakes"]),
        tests(
            "GatewayTests",
            [
                "GatewayKit", "MCP", "ServiceKit", "HTTPServer", "HTTPClient", "Messaging", "Contracts", "Crypto",
                "Runtime", "MoneyCore", "ResearchCore", "TestSupport", "UpstreamFakes", "Geo", "Tracing",
            ]),
        tests("MoneyCoreTests", ["MoneyCore", "Crypto"]),
        tests("BriefsTests", ["BriefsCore", "Scheduling", "Contracts", "Finance"]),
        tests(
            "SchedulingTests",
            ["Scheduling", "Messaging", "Kafka", "Postgres", "Contracts", "Runtime", "TestSupport", "Tracing"]),
        tests(
            "SystemTests",
            [
                "HTTPClient", "HTTPServer", "Kafka", "Messaging", "Postgres", "Redis", "Scheduling", "ServiceKit",
                "Crypto", "Finance", "Contracts", "Runtime", "TestSupport", "UpstreamFakes", "Tracing", "IdentifyCore",
                "Geo",
            ]),
    ],
    swiftLanguageModes: [.v6]
)

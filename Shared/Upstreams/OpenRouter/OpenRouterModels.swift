/// Model ids and the cascade order of each feature (docs/COMPATIBILITY.md#openrouter).
public enum OpenRouterModels {
    public static let gpt56Terra = "openai/gpt-5.6-terra"
    static let gpt56Luna = "openai/gpt-5.6-luna"
    public static let claudeOpus48 = "anthropic/claude-opus-4.8"
    static let grok46 = "x-ai/grok-4.6"

    /// Identify vision: terra → opus → grok (no temperature; 25 s each in the original).
    public static let vision = [gpt56Terra, claudeOpus48, grok46]
    /// resolveComparable judge: terra → opus → grok (temperature 0.1, 20 s).
    public static let comparables = [gpt56Terra, claudeOpus48, grok46]
    /// Daily brief: terra → opus → grok (temperature 0.4, 20 s).
    public static let dailyBrief = [gpt56Terra, claudeOpus48, grok46]
    /// Local economy brief: opus → terra → grok (temperature 0.4, 25 s).
    public static let localBrief = [claudeOpus48, gpt56Terra, grok46]
    /// Research chat fallback when Derivation returns a machine error: grok → luna → opus (25 s).
    public static let researchFallback = [grok46, gpt56Luna, claudeOpus48]
}
